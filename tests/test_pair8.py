"""The merges table in 8-byte slots (native/src/pair8.c) and the short-chunk scan (bpe.c's bpe_scan).

The 8-byte table orders merges by their new ids, which is right only where new ids rise with the ranks;
a file whose ids are shuffled must keep its ranks (the 16-byte table), and still equal HF. The scan
must merge what the heap merges: the trace path runs the heap with the file's ranks, so its ids equal
the plain encode's on every text.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from conftest import assert_same, pair
from corpus import random_texts
from tokinspect import Tokenizer


def _shuffled(src: Path, out: Path, seed: int) -> np.ndarray:
    """src with its model vocabulary's ids permuted (merges, ranks and added tokens unchanged); returns
    perm with perm[old id] = new id."""
    j = json.loads(src.read_text(encoding="utf-8"))
    vocab: dict[str, int] = j["model"]["vocab"]
    n = len(vocab)
    assert sorted(vocab.values()) == list(range(n))
    perm = np.arange(n)
    random.Random(seed).shuffle(perm)   # type: ignore[arg-type]
    j["model"]["vocab"] = {s: int(perm[i]) for s, i in vocab.items()}
    out.write_text(json.dumps(j, ensure_ascii=False), encoding="utf-8")
    return perm


def _texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    alpha = "ab cdeé中文字\n\t  xyz😀ñ,.0123"
    made = ["".join(rng.choice(alpha) for _ in range(rng.randint(1, 120))) for _ in range(n)]
    return made + random_texts(seed=seed, n=n)


def test_shuffled_ids_keep_the_file_ranks(qwen3_json: Path, tmp_path: Path) -> None:
    shuffled = tmp_path / "tokenizer.json"
    perm = _shuffled(qwen3_json, shuffled, seed=20261204)
    ours, hf = pair(shuffled)
    texts = _texts(11, 1500)
    assert_same(ours, hf, texts, label="qwen3 with shuffled ids")
    plain = Tokenizer.from_file(qwen3_json)
    n = len(perm)
    for t in texts[:300]:
        a = plain.encode_ids(t, add_special_tokens=False).astype(np.int64)
        mapped = np.where(a < n, perm[np.minimum(a, n - 1)], a)
        assert ours.encode_ids(t, add_special_tokens=False).tolist() == mapped.tolist(), t


def test_the_8_byte_table_serves_the_files_that_qualify(qwen3_json: Path, gpt2_json: Path, tmp_path: Path) -> None:
    """Qwen3's and GPT-2's new ids rise with their ranks: the packed table serves them. Ids shuffled, or two
    merges swapped (a later rank making an earlier token), the file keeps its ranks and still equals HF."""
    for path in (qwen3_json, gpt2_json):
        assert Tokenizer.from_file(path)._handle.merge_table_slot_bytes() == 8, path.name
    shuffled = tmp_path / "shuffled.json"
    _shuffled(qwen3_json, shuffled, seed=7)
    assert Tokenizer.from_file(shuffled)._handle.merge_table_slot_bytes() == 16
    j = json.loads(qwen3_json.read_text(encoding="utf-8"))
    merges = j["model"]["merges"]
    merges[10], merges[11] = merges[11], merges[10]
    swapped = tmp_path / "swapped.json"
    swapped.write_text(json.dumps(j, ensure_ascii=False), encoding="utf-8")
    ours, hf = pair(swapped)
    assert ours._handle.merge_table_slot_bytes() == 16
    assert_same(ours, hf, _texts(3, 600), label="qwen3 with merges 10 and 11 swapped")


def test_scan_merges_what_the_heap_merges(qwen3_json: Path, gpt2_json: Path) -> None:
    for path in (qwen3_json, gpt2_json):
        tok = Tokenizer.from_file(path)
        for t in _texts(5, 800):
            e = tok.encode(t, add_special_tokens=False)
            tr = tok.trace(t, add_special_tokens=False).encoding
            assert e.ids.tolist() == tr.ids.tolist(), (path.name, t)
            assert e.offsets.tolist() == tr.offsets.tolist(), (path.name, t)


def test_trace_shows_the_files_ranks(qwen3_json: Path) -> None:
    """The trace keeps the merges' line numbers as ranks, not the 8-byte table's new ids."""
    merges = json.loads(qwen3_json.read_text(encoding="utf-8"))["model"]["merges"]
    rank_of = {tuple(m.split(" ")) if isinstance(m, str) else tuple(m): r for r, m in enumerate(merges)}
    tok = Tokenizer.from_file(qwen3_json)
    for ch in tok.trace("unbelievably tokenized, 中文字符", add_special_tokens=False).chunks:
        for st in ch.raw_steps:
            left, right = tok.id_to_token(int(st["left"])), tok.id_to_token(int(st["right"]))
            assert rank_of[(left, right)] == int(st["rank"])
