"""Build of the native extension `tokinspect._tokcore` from native/, and the
engine's C sources (native/src, native/cli) shipped inside the package as
tokinspect/native/ (the board link uploads and builds them on a board; an
editable install finds the repository's native/ instead).

Everything else is declared in pyproject.toml. Set TOKINSPECT_SANITIZE=1 to
build the extension with AddressSanitizer and UndefinedBehaviorSanitizer
(gcc/clang); run Python with the ASan runtime preloaded then.
"""

import os
import shutil
from glob import glob

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

SOURCES = sorted(glob("native/src/*.c")) + ["native/python/pymodule.c"]
SHIPPED = [p for sub in ("src", "cli") for ext in ("c", "h") for p in sorted(glob(f"native/{sub}/*.{ext}"))]


class BuildPy(build_py):
    """Copies the engine's C sources into the built package as tokinspect/native/."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # tokinspect.board.deploy finds <repo>/native itself
        for src in SHIPPED:
            dst = os.path.join(self.build_lib, "tokinspect", src)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)

    def get_source_files(self) -> list[str]:
        return list(super().get_source_files()) + SHIPPED  # so that an sdist carries them

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outs = list(super().get_outputs(include_bytecode))
        if not getattr(self, "editable_mode", False):
            outs += [os.path.join(self.build_lib, "tokinspect", src) for src in SHIPPED]
        return outs


class BuildExt(build_ext):
    def build_extensions(self) -> None:
        unix = self.compiler.compiler_type != "msvc"
        for ext in self.extensions:
            if unix:
                ext.extra_compile_args = ["-std=c11", "-O2", "-Wall", "-Wextra", "-fvisibility=hidden"]
                if os.environ.get("TOKINSPECT_SANITIZE"):
                    flags = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"]
                    ext.extra_compile_args += flags
                    ext.extra_link_args = flags
            else:
                ext.extra_compile_args = ["/O2", "/std:c11"]
        super().build_extensions()


setup(
    ext_modules=[Extension("tokinspect._tokcore", sources=SOURCES, depends=sorted(glob("native/src/*.h")))],
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
)
