"""llama.cpp's `llama-tokenize`, built from the sources the llama-cpp-python sdist vendors, once per machine.

The sdist (PyPI llama-cpp-python 0.3.36, sha256 below, fetched by tests/pypi_files.py) carries llama.cpp
under vendor/llama.cpp. It is unpacked into TOKINSPECT_TEST_CACHE/llama.cpp/<sdist sha256>/src and the one
target `llama-tokenize` is built with cmake + ninja (Release, GGML_NATIVE=OFF, no curl, no OpenSSL, no
tests, examples, server or app, static libraries) into .../<sha256>/<target>:

- `host`: the machine's own compilers; the oracle of tests/test_llama_tokenize.py.
- `aarch64`: aarch64-linux-gnu-gcc/g++, linked -static so qemu-aarch64-static runs it on the test board
  (tests/boardfix.py) without an aarch64 sysroot; tests/test_board_llamacpp.py uploads it there.

A build runs under `nice` with -j2 (the test machine has 2 cores), holds a lock file per target, so
concurrent test processes wait for one build instead of starting another, and records its wall time in `seconds` beside
the binary (a figure to report, never asserted). A build that fails raises with the tail of its log.

Fixtures: `llama_tokenize` (host binary), `llama_tokenize_aarch64`.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
import unicodedata2
from pypi_files import CACHE as PYPI_CACHE
from pypi_files import pypi_archive

PKG, VER = "llama-cpp-python", "0.3.36"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
ROOT = PYPI_CACHE.parent / "llama.cpp" / SDIST_SHA256
TARGET = "llama-tokenize"
BUILD_TIMEOUT = 3600

COMMON = ["-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DGGML_NATIVE=OFF",
          "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=OFF",
          "-DLLAMA_BUILD_APP=OFF", "-DBUILD_SHARED_LIBS=OFF"]
TOOLCHAINS = {
    "host": [],
    "aarch64": ["-DCMAKE_SYSTEM_NAME=Linux", "-DCMAKE_SYSTEM_PROCESSOR=aarch64",
                "-DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc", "-DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++",
                "-DGGML_OPENMP=OFF", "-DCMAKE_EXE_LINKER_FLAGS=-static"],
}


def _tool(name: str) -> str:
    """cmake / ninja: the test environment's own (the `cmake` and `ninja` PyPI packages), else the PATH's."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.is_file() else shutil.which(name)
    if found is None:
        raise RuntimeError(f"building llama.cpp needs {name}: pip install -e '.[test]' installs it")
    return found


def _sha256(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sources() -> Path:
    """vendor/llama.cpp of the unpacked sdist (unpacked once, under its own lock)."""
    with open(ROOT / "src.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _unpack()


def _unpack() -> Path:
    src = ROOT / "src"
    tree = src / "vendor" / "llama.cpp"
    if (src / ".unpacked").is_file():
        return tree
    archive = pypi_archive(PKG, VER, sdist=True)
    if _sha256(archive) != SDIST_SHA256:
        raise RuntimeError(f"{archive}: sha256 {_sha256(archive)}, the build expects {SDIST_SHA256}")
    tmp = ROOT / "src.part"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(archive) as t:
        t.extractall(tmp, filter="data")
    (top,) = list(tmp.iterdir())
    shutil.rmtree(src, ignore_errors=True)
    top.rename(src)
    tmp.rmdir()
    (src / ".unpacked").write_text(archive.name + "\n")
    return tree


def build(target: str = "host") -> Path:
    """The llama-tokenize binary for target ("host" or "aarch64"), built if the cache lacks it."""
    if target not in TOOLCHAINS:
        raise ValueError(f"target {target!r}: one of {', '.join(TOOLCHAINS)}")
    ROOT.mkdir(parents=True, exist_ok=True)
    out = ROOT / target
    exe = out / "bin" / TARGET
    with open(ROOT / f"{target}.lock", "w") as lock:   # one lock per target: host and aarch64 build side by side
        fcntl.flock(lock, fcntl.LOCK_EX)
        if exe.is_file() and (out / "seconds").is_file():
            return exe
        tree = sources()
        cmake, ninja = _tool("cmake"), _tool("ninja")
        log = ROOT / f"{target}.log"
        t0 = time.monotonic()
        steps = [
            ["nice", cmake, "-S", str(tree), "-B", str(out), "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}",
             *COMMON, *TOOLCHAINS[target]],
            ["nice", cmake, "--build", str(out), "--target", TARGET, "-j2"],
        ]
        with open(log, "wb") as fh:
            for cmd in steps:
                r = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT,
                                   env={**os.environ, "LC_ALL": "C"})
                if r.returncode != 0:
                    tail = log.read_bytes()[-3000:].decode("utf-8", "replace")
                    raise RuntimeError(f"building {TARGET} ({target}) failed: {' '.join(cmd)}\n{tail}")
        if not exe.is_file():
            raise RuntimeError(f"the {target} build finished without {exe}")
        (out / "seconds").write_text(f"{time.monotonic() - t0:.0f}\n")
        return exe


def _llama_undefined() -> list[tuple[int, int]]:
    """The code point ranges llama.cpp's own Unicode tables leave UNDEFINED (src/unicode-data.cpp of the sdist,
    `unicode_ranges_flags`: {start, flags} rows, each up to the next start; flag 0x0001 = UNDEFINED)."""
    rows = [(int(a, 16), int(f, 16)) for a, f in
            re.findall(r"\{0x([0-9A-Fa-f]+), 0x([0-9A-Fa-f]+)\}", (sources() / "src" / "unicode-data.cpp").read_text()
                       .split("unicode_ranges_flags", 1)[1].split("};", 1)[0])]
    assert len(rows) > 1000, len(rows)
    return [(a, b) for (a, f), (b, _) in zip(rows, [*rows[1:], (0x110000, 0)]) if f & 0x0001]


def without_newer_than_llama(texts: list[str]) -> list[str]:
    """Characters of the texts that Unicode 16.0 (our classes, unicodedata2) assigns and llama.cpp's tables,
    generated from an older UCD, leave undefined: a known difference (its pre-tokenizer's \\p{L} misses
    them), taken out of the texts."""
    ranges = _llama_undefined()
    chars = {c for t in texts for c in t if ord(c) > 0x2FFF}
    newer = {c for c in chars if unicodedata2.category(c) != "Cn" and any(a <= ord(c) < b for a, b in ranges)}
    return ["".join(c for c in t if c not in newer) for t in texts]


def build_seconds(target: str) -> str:
    """The recorded wall time of the target's build (for reports)."""
    p = ROOT / target / "seconds"
    return p.read_text().strip() if p.is_file() else "?"


@pytest.fixture(scope="session")
def llama_tokenize() -> Path:
    return build("host")


@pytest.fixture(scope="session")
def llama_tokenize_aarch64() -> Path:
    return build("aarch64")
