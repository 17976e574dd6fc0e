"""Build of the native extension `tokinspect._tokcore` from native/, and the
engine's C sources (native/src, native/cli) shipped inside the package as
tokinspect/native/ (the board link uploads and builds them on a board; an
editable install finds the repository's native/ instead).

The window's translations: resources/i18n/*.ts compiled to .qm with PySide6's lrelease (into the
built package; for an editable install, beside the .ts, where the editable package finds them).

Everything else is declared in pyproject.toml. Set TOKINSPECT_SANITIZE=1 to
build the extension with AddressSanitizer and UndefinedBehaviorSanitizer
(gcc/clang); run Python with the ASan runtime preloaded then.
"""

import importlib.util
import os
import shutil
import subprocess
from glob import glob

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

SOURCES = sorted(glob("native/src/*.c")) + ["native/python/pymodule.c"]
CATALOGS = sorted(glob("resources/i18n/*.ts"))
SHIPPED = [p for sub in ("src", "cli") for ext in ("c", "h") for p in sorted(glob(f"native/{sub}/*.{ext}"))]


def lrelease() -> str:
    """PySide6's lrelease (the build requires PySide6-Essentials, which ships it)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("building tokinspect needs PySide6 (its lrelease compiles the translations)")
    base = os.path.join(list(spec.submodule_search_locations)[0], "lrelease")
    for exe in (base, base + ".exe"):
        if os.path.isfile(exe):
            return exe
    raise RuntimeError(f"{base}: PySide6's lrelease is missing (reinstall PySide6-Essentials)")


def compile_catalogs(out_dir: str) -> list[str]:
    """resources/i18n/X.ts -> out_dir/X.qm; the compiled paths. An untranslated entry fails the build."""
    os.makedirs(out_dir, exist_ok=True)
    outs = []
    for ts in CATALOGS:
        qm = os.path.join(out_dir, os.path.splitext(os.path.basename(ts))[0] + ".qm")
        subprocess.run([lrelease(), "-silent", "-nounfinished", ts, "-qm", qm], check=True)
        outs.append(qm)
    return outs


class BuildPy(build_py):
    """Copies the engine's C sources into the built package as tokinspect/native/, and compiles the
    translations into tokinspect/resources/i18n/."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            compile_catalogs("resources/i18n")  # the editable package reads resources/ itself
            return  # tokinspect.board.deploy finds <repo>/native itself
        compile_catalogs(os.path.join(self.build_lib, "tokinspect", "resources", "i18n"))
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
            outs += [os.path.join(self.build_lib, "tokinspect", "resources", "i18n",
                                  os.path.splitext(os.path.basename(ts))[0] + ".qm") for ts in CATALOGS]
        return outs


class BuildExt(build_ext):
    def build_extensions(self) -> None:
        unix = self.compiler.compiler_type != "msvc"
        for ext in self.extensions:
            if unix:
                ext.extra_compile_args = ["-std=c11", "-O2", "-Wall", "-Wextra", "-fvisibility=hidden"]
                # linked against libm by name, so that expf / logf / log bind to their current symbol
                # versions: left to the interpreter's libm, the references are unversioned and glibc
                # resolves them to the oldest one, the SVID compat wrapper (expf@GLIBC_2.2.5 with
                # its errno checks around __expf: 10% of the kestrel sampler preset's time)
                ext.libraries = ["m"]
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
