"""The load cache of tokenizer.json files: invisible, keyed by the file's sha256.

Does: loads a tokenizer.json through the engine with its BPE vocabulary and merge tables read from a
cache file named by the file's sha256 (written after the first load, atomically: a temporary file in
the same directory, then a rename). The engine checks a cache file against the sha256, its own version
and build, and a checksum before using it; anything else (missing, truncated, corrupt, foreign) is a
miss and the file is loaded whole, so a cached handle equals a fresh one. A cache directory that cannot
be created or written is silent: the load simply is not cached.
Where: $TOKINSPECT_CACHE_DIR (`off` disables the cache), else %LOCALAPPDATA%\\tokinspect on Windows,
else $XDG_CACHE_HOME/tokinspect or ~/.cache/tokinspect.
Size: at most $TOKINSPECT_CACHE_MAX_MB megabytes (default 512) of cache files; each write evicts the least
recently used ones past that (a hit sets its file's access time), the file just written
excepted. An evicted file is first renamed (one process wins the rename, so two evictors never count one
file twice), then deleted: a reader that opened it before keeps reading it whole (POSIX), one that opens
it after misses and loads the file itself; where a file in use cannot be renamed (Windows) it stays.
Does not: cache other formats (vocab.bin builds its indexes on first use instead: native/NOTES.md).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

from .. import _tokcore

ENV = "TOKINSPECT_CACHE_DIR"
SUFFIX = ".tokcache"
MAX_CACHED_FILE = 256 << 20  # bytes; larger tokenizer.json files load uncached (they are read whole to hash)
BUDGET_ENV = "TOKINSPECT_CACHE_MAX_MB"
DEFAULT_BUDGET_MB = 512.0
EVICTING = ".evict-"  # prefix of a file claimed by an eviction, deleted next
STALE_TMP_SECONDS = 3600.0  # a writer's temporary file this old was left by a process that died


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


def budget_bytes() -> int:
    """The cache directory's size budget: $TOKINSPECT_CACHE_MAX_MB (a number >= 0), else 512 MB."""
    raw = os.environ.get(BUDGET_ENV, "")
    try:
        mb = float(raw)
    except ValueError:
        mb = DEFAULT_BUDGET_MB
    if not mb >= 0 or mb == float("inf"):  # NaN, negative, infinite
        mb = DEFAULT_BUDGET_MB
    return int(mb * (1 << 20))


def touch(path: Path) -> None:
    """Marks a cache file as just used: its access time, set explicitly, orders eviction. The modification
    time stays: the engine's reader takes a change of it for a file rewritten under it (and misses)."""
    try:
        os.utime(path, ns=(time.time_ns(), path.stat().st_mtime_ns))
    except OSError:
        pass


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def evict(directory: Path, budget: int, keep: Path | None = None) -> list[Path]:
    """Brings the cache files in directory down to at most budget bytes, least recently used first, never
    keep; also deletes what an earlier eviction claimed and writers' temporary files left behind. Returns
    the cache files evicted. Never raises: another process may be evicting, writing or reading the same
    files, and a file that vanishes or cannot be claimed is skipped."""
    live: list[tuple[int, str, int, Path]] = []
    now = time.time()
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    for name in names:
        path = directory / name
        if not name.endswith(SUFFIX):
            continue
        if name.startswith(EVICTING):
            _unlink(path)
            continue
        try:
            st = path.stat()
        except OSError:
            continue
        if name.startswith(".tmp-"):
            if now - st.st_mtime > STALE_TMP_SECONDS:
                _unlink(path)
            continue
        if not name.startswith("."):
            live.append((st.st_atime_ns, name, st.st_size, path))
    total = sum(size for _, _, size, _ in live)
    evicted: list[Path] = []
    for _, _, size, path in sorted(live):
        if total <= budget:
            break
        if keep is not None and path.name == keep.name:
            continue
        claimed = directory / f"{EVICTING}{os.urandom(8).hex()}{SUFFIX}"
        try:
            os.rename(path, claimed)  # atomic: exactly one evictor gets each file
        except FileNotFoundError:
            total -= size  # another evictor took it: gone from the directory all the same
            continue
        except OSError:
            continue  # in use where that blocks renaming (Windows): it stays and counts
        total -= size
        evicted.append(path)
        _unlink(claimed)  # a reader that opened it first keeps its open file
    return evicted


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
    if where is not None:
        if hit:
            touch(where)
        elif blob is not None and store(where, blob):
            evict(where.parent, budget_bytes(), keep=where)
    return handle, hit
