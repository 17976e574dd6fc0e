"""Build of the native extension `tokinspect._tokcore` from native/.

Everything else is declared in pyproject.toml. Set TOKINSPECT_SANITIZE=1 to
build the extension with AddressSanitizer and UndefinedBehaviorSanitizer
(gcc/clang); run Python with the ASan runtime preloaded then.
"""

import os
from glob import glob

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCES = sorted(glob("native/src/*.c")) + ["native/python/pymodule.c"]


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
    cmdclass={"build_ext": BuildExt},
)
