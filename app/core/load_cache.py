"""The load cache of tokenizer.json files: invisible, keyed by the file's sha256.

Does: loads a tokenizer.json through the engine with its BPE vocabulary and merge tables read from a
cache file named by the file's sha256 (written after the first load, atomically: a temporary file in
the same directory, then a rename). The engine checks a cache file against the sha256, its own version
and build, and a checksum before using it; anything else (missing, truncated, corrupt, foreign) is a
miss and the file is loaded whole, so a cached handle equals a fresh one. A cache directory that cannot
be created or written is silent: the load simply is not cached.
Where: $TOKINSPECT_CACHE_DIR (`off` disables the cache), else %LOCALAPPDATA%\\tokinspect on Windows,
else $XDG_CACHE_HOME/tokinspect or ~/.cache/tokinspect.
Does not: cache other formats, or evict old entries (one file per distinct tokenizer.json loaded).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

from .. import _tokcore

ENV = "TOKINSPECT_CACHE_DIR"
SUFFIX = ".tokcache"
MAX_CACHED_FILE = 256 << 20  # bytes; larger tokenizer.json files load uncached (they are read whole to hash)


def cache_dir() -> Path | None:
    """The directory of the load cache, or None when it is turned off."""
    env = os.environ.get(ENV)
    if env == "off":
        return None
    if env:
        return Path(env)
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return Path(local if local else Path.home() / "AppData" / "Local") / "tokinspect"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg if xdg and os.path.isabs(xdg) else Path.home() / ".cache") / "tokinspect"


def cache_path(digest: bytes) -> Path | None:
    """Where the cache of a file with this sha256 lives (None: no cache)."""
    d = cache_dir()
    return None if d is None else d / f"{digest.hex()}{SUFFIX}"


def store(path: Path, blob: bytes) -> bool:
    """Writes blob to path atomically; False (and nothing left behind) when the directory is not writable."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX, dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
        return True
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False


def load_hf(path: Path) -> tuple[object, bool] | None:
    """(handle, cache hit) of a tokenizer.json; None when it is not one to cache here (too big, unreadable:
    the caller's plain load then reports what is wrong). Load errors are the engine's, as without a cache."""
    try:
        if path.stat().st_size > MAX_CACHED_FILE:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    digest = hashlib.sha256(data).digest()
    where = cache_path(digest)
    handle, hit, blob = _tokcore.load_hf_cached(data, digest, None if where is None else str(where))
    if blob is not None and where is not None:
        store(where, blob)
    return handle, hit
