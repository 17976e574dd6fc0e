"""llama.cpp's `llama-tokenize`, built from the sources the llama-cpp-python sdist vendors, once per machine.

The sdist (PyPI llama-cpp-python 0.3.36, sha256 below, fetched by tests/pypi_files.py) carries llama.cpp
under vendor/llama.cpp. It is unpacked into <cache>/llama.cpp/<sdist sha256>/src (<cache>:
TOKINSPECT_LLAMACPP_CACHE if set, else the test cache beside the PyPI files) and the one target
`llama-tokenize` is built with cmake + ninja (Release, GGML_NATIVE=OFF, no curl, no OpenSSL, no tests,
examples, server or app, static libraries) into .../<sha256>/<target>-<digest of the flags>, so a build
made with other flags is never reused:

- `host`: the machine's own compilers; the oracle of tests/test_llama_tokenize.py.
- `aarch64`: aarch64-linux-gnu-gcc/g++, linked -static so qemu-aarch64-static runs it on the test board
  (tests/boardfix.py) without an aarch64 sysroot; tests/test_board_llamacpp.py uploads it there.

Cost. The target links llama-common (argument parser, JSON, Jinja, chat parsers, cpp-httplib) and all of
libllama and ggml-cpu, but a tokenize call on a vocab-only GGUF runs only the tokenizer, the Unicode tables
and the GGUF reader (HOT). Those keep -O2; everything else compiles at -O0 (CMAKE_<LANG>_FLAGS_RELEASE, the
per-file -O2 set by a CMAKE_PROJECT_INCLUDE, PROFILE). Same sources, same tool: the tests compare its ids
unchanged. Measured on the shared 2-core test machine (nice, -j2; wall times depend on the other load):
- before (everything -O3): host 627 s, aarch64 993 s wall, each measured alone;
- this profile: host 1143 s, aarch64 1222 s wall, built side by side while the machine's load average stood
  near 8 (the other work outran both cores), so the wall times say little; like for like, one file compiled
  alone: common/arg.cpp takes 9.2 s CPU at -O0 against 22.1 s at -O3. `cpu_seconds` records each build's
  CPU time from now on.
- same tool: the -O2/-O0 host binary gives the -O3 one's ids on all 7,400 texts (5,000 random + 2,400
  UDHR and War and Peace) of every vendored GGUF, and the board tests pass on the aarch64 one.

A build runs under `nice` with -j2 (the test machine has 2 cores), holds a lock file per target, so
concurrent test processes wait for one build instead of starting another, and records its wall time in
`seconds` and its CPU time in `cpu_seconds` beside the binary (figures to report, never asserted). A build
that fails raises with the tail of its log.

Fixtures: `llama_tokenize` (host binary), `llama_tokenize_aarch64`, `board_llama` (the aarch64 build and
the vocabulary GGUFs uploaded to the test board).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import resource
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

from tokinspect.core.tokenizer import file_sha256

PKG, VER = "llama-cpp-python", "0.3.36"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
ROOT = Path(os.environ.get("TOKINSPECT_LLAMACPP_CACHE") or PYPI_CACHE.parent / "llama.cpp") / SDIST_SHA256
TARGET = "llama-tokenize"
BUILD_TIMEOUT = 3600

# The files llama-tokenize spends its run time in on a vocab-only GGUF: the tokenizer (src/llama-vocab.cpp,
# llm_tokenizer_* and llama_vocab::impl::tokenize), its Unicode classes and pre-tokenizer regexes
# (src/unicode.cpp, src/unicode-data.cpp) and the GGUF reader (ggml/src/gguf.cpp). They keep -O2; the rest
# (llama-common's argument parser, JSON, Jinja and chat parsers, cpp-httplib, the model graphs, ggml-cpu's
# kernels) is linked in but never run on a tokenize call, and compiles at -O0, several times faster.
HOT = ["src/llama-vocab.cpp", "src/unicode.cpp", "src/unicode-data.cpp", "ggml/src/gguf.cpp"]
PROFILE = f"""include_guard(GLOBAL)
cmake_language(DEFER DIRECTORY "${{CMAKE_SOURCE_DIR}}" CALL _tokinspect_hot)
function(_tokinspect_hot)
  foreach(f {' '.join(HOT)})
    get_filename_component(d "${{CMAKE_SOURCE_DIR}}/${{f}}" DIRECTORY)
    set_source_files_properties("${{CMAKE_SOURCE_DIR}}/${{f}}" DIRECTORY "${{d}}" PROPERTIES COMPILE_OPTIONS "-O2")
  endforeach()
endfunction()
"""

COMMON = ["-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_C_FLAGS_RELEASE=-O0 -DNDEBUG",
          "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DGGML_NATIVE=OFF",
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
    if file_sha256(archive) != SDIST_SHA256:
        raise RuntimeError(f"{archive}: sha256 {file_sha256(archive)}, the build expects {SDIST_SHA256}")
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


def flags_key(target: str) -> str:
    """The build's directory name: the target and a digest of every flag, so a build with other flags is
    never reused."""
    h = hashlib.sha256("\0".join([*COMMON, *TOOLCHAINS[target], PROFILE]).encode()).hexdigest()[:12]
    return f"{target}-{h}"


def build(target: str = "host") -> Path:
    """The llama-tokenize binary for target ("host" or "aarch64"), built if the cache lacks it."""
    if target not in TOOLCHAINS:
        raise ValueError(f"target {target!r}: one of {', '.join(TOOLCHAINS)}")
    ROOT.mkdir(parents=True, exist_ok=True)
    out = ROOT / flags_key(target)
    exe = out / "bin" / TARGET
    with open(ROOT / f"{target}.lock", "w") as lock:   # one lock per target: host and aarch64 build side by side
        fcntl.flock(lock, fcntl.LOCK_EX)
        if exe.is_file() and (out / "seconds").is_file():
            return exe
        tree = sources()
        cmake, ninja = _tool("cmake"), _tool("ninja")
        log = ROOT / f"{out.name}.log"
        profile = ROOT / f"{out.name}.cmake"
        profile.write_text(PROFILE)
        t0, cpu0 = time.monotonic(), _children_cpu()
        steps = [
            ["nice", cmake, "-S", str(tree), "-B", str(out), "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}",
             *COMMON, *TOOLCHAINS[target], f"-DCMAKE_PROJECT_INCLUDE={profile}"],
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
        (out / "cpu_seconds").write_text(f"{_children_cpu() - cpu0:.0f}\n")
        return exe


def _children_cpu() -> float:
    """User + system CPU seconds of this process's finished children: a build's cost, unlike its wall time,
    hardly depends on what else the machine runs."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


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


def build_seconds(target: str, what: str = "seconds") -> str:
    """The recorded wall time ("seconds") or CPU time ("cpu_seconds") of the target's build (for reports)."""
    p = ROOT / flags_key(target) / what
    return p.read_text().strip() if p.is_file() else "?"


@pytest.fixture(scope="session")
def llama_tokenize() -> Path:
    return build("host")


@pytest.fixture(scope="session")
def llama_tokenize_aarch64() -> Path:
    return build("aarch64")


BOARD_MODELS = ("qwen2", "llama-spm")   # the vendored vocabulary GGUFs the board gets (tests/test_gguf.py)


@pytest.fixture(scope="module")
def board_llama(board, board_conn, llama_tokenize_aarch64: Path) -> dict:
    """llama-tokenize (aarch64) and the BOARD_MODELS GGUFs uploaded to the test board (tests/boardfix.py) by
    SFTP: {"exe": its path there, "files": {model: GGUF path there}}."""
    from test_gguf import gguf_file

    root = f"{board.dir}/llama.cpp board"
    board_conn.makedirs(root)
    exe = f"{root}/llama-tokenize"
    board_conn.put_file(llama_tokenize_aarch64, exe, mode=0o755)
    files = {}
    for m in BOARD_MODELS:
        files[m] = f"{root}/ggml-vocab-{m}.gguf"
        board_conn.put_file(gguf_file(m), files[m])
    return {"exe": exe, "files": files}
