"""Real files that PyPI packages ship, downloaded at test time into a cache (never committed).

    path = pypi_file("llama-cpp-python", "0.3.36", "vendor/llama.cpp/models/ggml-vocab-qwen2.gguf",
                     sdist=True, sha256="...")

`pip download --no-deps` fetches the wheel (or, with sdist=True, the source archive) of exactly that
version once into TOKINSPECT_TEST_CACHE (default ~/.cache/tokinspect-tests/pypi); the member is
extracted beside it and its sha256 checked when given, so a test always reads the bytes it names.
A member path is matched against the archive's names after their first component for sdists
(`llama_cpp_python-0.3.36/vendor/...` is asked for as `vendor/...`). Concurrent test processes
share the cache through a lock file. A download that fails is an error that says what was asked.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from tokinspect.core.tokenizer import file_sha256

CACHE = Path(os.environ.get("TOKINSPECT_TEST_CACHE", Path.home() / ".cache" / "tokinspect-tests")) / "pypi"


def pypi_archive(package: str, version: str, sdist: bool = False) -> Path:
    """The downloaded wheel or sdist of package==version (downloaded once)."""
    d = CACHE / f"{package}-{version}-{'sdist' if sdist else 'wheel'}"
    d.mkdir(parents=True, exist_ok=True)
    with open(d / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        have = [p for p in d.iterdir() if p.suffix in (".whl", ".gz", ".zip", ".bz2")]
        if not have:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q",
                   "-d", str(d), f"{package}=={version}"]
            # an sdist's metadata comes from its build backend: the installed one (--no-build-isolation), or
            # pip would build the backend's own dependencies (cmake...) from source first
            cmd += ["--no-binary", package, "--no-build-isolation"] if sdist else ["--only-binary", ":all:"]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
            if r.returncode != 0:
                raise RuntimeError(f"pip download {package}=={version} failed:\n{r.stderr[-2000:]}")
            have = [p for p in d.iterdir() if p.suffix in (".whl", ".gz", ".zip", ".bz2")]
        if len(have) != 1:
            raise RuntimeError(f"{d}: expected one archive, found {[p.name for p in have]}")
        return have[0]


def _names(archive: Path) -> list[str]:
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as z:
            return z.namelist()
    with tarfile.open(archive) as t:
        return t.getnames()


def pypi_members(package: str, version: str, sdist: bool = False) -> list[str]:
    """The member paths of the archive (for sdists without their first component)."""
    archive = pypi_archive(package, version, sdist)
    names = _names(archive)
    return [n.split("/", 1)[1] for n in names if "/" in n] if sdist else names


def pypi_file(package: str, version: str, member: str, sdist: bool = False, sha256: str | None = None) -> Path:
    """Path of one file from the archive of package==version, extracted into the cache."""
    archive = pypi_archive(package, version, sdist)
    out = archive.parent / "files" / member
    with open(archive.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.is_file():
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_name(out.name + ".part")
            if archive.suffix in (".whl", ".zip"):
                with zipfile.ZipFile(archive) as z, z.open(member) as src, open(tmp, "wb") as dst:
                    dst.write(src.read())
            else:
                with tarfile.open(archive) as t:
                    full = next((n for n in t.getnames() if n.split("/", 1)[-1] == member and "/" in n), None)
                    if full is None:
                        raise FileNotFoundError(f"{archive.name} has no {member}")
                    src = t.extractfile(full)
                    if src is None:
                        raise FileNotFoundError(f"{archive.name}: {member} is not a regular file")
                    with open(tmp, "wb") as dst:
                        dst.write(src.read())
            tmp.replace(out)
    if sha256 is not None and file_sha256(out) != sha256:
        raise RuntimeError(f"{package}=={version} {member}: sha256 {file_sha256(out)}, the test expects {sha256}")
    return out
