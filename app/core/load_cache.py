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
import struct
import sys
import tempfile
import threading
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
HINT_SUFFIX = ".hint"  # a file's last known sha256 by its path and stat (hint_path)
HINT = struct.Struct("<32sQQQQ")  # sha256, size, mtime in ns, inode, device
HASH_BLOCK = 1 << 20  # bytes hashed per read: one buffer, reused, stays in the CPU's cache


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


def cache_file(directory: Path, digest: bytes) -> Path:
    """The cache file of a file with this sha256 in directory."""
    return directory / f"{digest.hex()}{SUFFIX}"


def cache_path(digest: bytes) -> Path | None:
    """Where the cache of a file with this sha256 lives (None: no cache)."""
    d = cache_dir()
    return None if d is None else cache_file(d, digest)


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
    kept = {name for _, name, _, path in live if path not in evicted}
    for name in names:   # hints that name a cache file no longer here
        if name.endswith(HINT_SUFFIX) and not name.startswith("."):
            hint = _read_hint(directory / name)
            if hint is None or cache_file(directory, hint[0]).name not in kept:
                _unlink(directory / name)
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


def _fields(st: os.stat_result) -> tuple[int, int, int, int]:
    m = (1 << 64) - 1
    return st.st_size & m, st.st_mtime_ns & m, st.st_ino & m, st.st_dev & m


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return _fields(a) == _fields(b)


def hint_path(path: Path, directory: Path) -> Path:
    """Where the hint of the file at path lives: named by the sha256 of its absolute path."""
    return directory / f"{hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()}{HINT_SUFFIX}"


def _read_hint(hp: Path) -> tuple[bytes, tuple[int, int, int, int]] | None:
    try:
        raw = hp.read_bytes()
    except OSError:
        return None
    if len(raw) != HINT.size:
        return None
    digest, *fields = HINT.unpack(raw)
    return digest, (fields[0], fields[1], fields[2], fields[3])


def _streamed_sha256(path: Path) -> tuple[bytes, os.stat_result] | None:
    """The file's sha256, read HASH_BLOCK bytes at a time (never held whole: a hit reads only the ~10 KB
    around the cached values), with its stat as hashed; None when it is too big or changed while read."""
    h = hashlib.sha256()
    buf = bytearray(HASH_BLOCK)
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as f:
        st = os.fstat(f.fileno())
        if st.st_size > MAX_CACHED_FILE:
            return None
        while n := f.readinto(buf):
            h.update(view[:n])
        if not _same_file(os.fstat(f.fileno()), st):
            return None
    return h.digest(), st


class _Hashing(threading.Thread):
    """_streamed_sha256 on its own thread (the reads and hashlib release the GIL)."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.result: tuple[bytes, os.stat_result] | None = None
        self.error: OSError | None = None

    def run(self) -> None:
        try:
            self.result = _streamed_sha256(self.path)
        except OSError as exc:
            self.error = exc


def _hit(path: Path, size: int, digest: bytes, directory: Path) -> object | None:
    return _tokcore.load_hf_hit(str(path), size, digest, str(cache_file(directory, digest)))


def load_hf(path: Path) -> tuple[object, bool] | None:
    """(handle, cache hit) of a tokenizer.json; None when it is not one to cache here (the cache is off, the
    file is too big or unreadable: the caller's plain load then reports what is wrong). Load errors are
    the engine's, as without a cache.

    A hit hashes the file as it streams by and reads only what lies around the cached values. When the
    file's hint (its sha256 when it last had this size, mtime, inode and device) matches, the cache of
    that sha256 is read on this thread while another hashes the file (Qwen3: 11 ms of hashing next to
    ~14 of reading the cache, one after the other before); the handle is kept only if the file hashes
    to that sha256 and is still the file it was when the load began. Anything else is the plain order:
    hash, then the cache of the sha256 found, else the file parsed whole and its cache written."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        st0 = path.stat()
        if st0.st_size > MAX_CACHED_FILE:
            return None
        hp = hint_path(path, directory)
        hint = _read_hint(hp)
        guess = hint[0] if hint is not None and hint[1] == _fields(st0) else None
        handle = None
        if guess is not None:
            hashing = _Hashing(path)
            hashing.start()
            handle = _hit(path, st0.st_size, guess, directory)
            hashing.join()
            if hashing.error is not None:
                raise hashing.error
            hashed = hashing.result
        else:
            hashed = _streamed_sha256(path)
        if hashed is None:
            return None
        digest, st = hashed
        if digest != guess:
            handle = _hit(path, st.st_size, digest, directory)
        where = cache_file(directory, digest)
        if handle is not None and _same_file(st, st0) and _same_file(path.stat(), st0):
            touch(where)
            if digest != guess:
                store(hp, HINT.pack(digest, *_fields(st)))
            return handle, True
        data = path.read_bytes()
        now = path.stat()
        if not _same_file(now, st):   # rewritten since it was hashed: these bytes' own digest
            digest, st = hashlib.sha256(data).digest(), now
            where = cache_file(directory, digest)
    except OSError:
        return None
    handle, hit, blob = _tokcore.load_hf_cached(data, digest, str(where))
    if hit:
        touch(where)
    elif blob is not None and store(where, blob):
        evict(where.parent, budget_bytes(), keep=where)
    if hit or where.exists():
        store(hp, HINT.pack(digest, *_fields(st)))
    return handle, hit
