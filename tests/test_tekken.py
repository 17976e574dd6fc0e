"""Mistral Tekken .json against mistral-common's Tekkenizer (the oracle) on the files its wheel ships.

Files (tests/pypi_files.py, sha256 checked): mistral-common 1.13.1 wheel,
mistral_common/data/tekken_240718.json and tekken_240911.json (v3: 150,000 vocab entries,
default_vocab_size 131,072, default_num_special_tokens 1,000, no special_tokens member, so the
deprecated list of 20 plus "<SPECIAL_n>" fillers). Inputs: >= 5,000 seeded random strings (core), UDHR
and War and Peace (shared data). Checked: ids without and with <s> (add_special_tokens), decode with
special tokens dropped (SpecialTokenPolicy.IGNORE) and kept (KEEP), the special tokens and the three sizes.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest
from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy
from mistral_common.tokens.tokenizers.tekken import Tekkenizer
from pypi_files import pypi_file

from corpus import random_text
from tokinspect import Tokenizer, TokenizerError

FILES = {
    "mistral_common/data/tekken_240718.json": "eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516",
    "mistral_common/data/tekken_240911.json": "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
}
N_RANDOM = 5000


def tekken_path(member: str) -> Path:
    return pypi_file("mistral-common", "1.13.1", member, sha256=FILES[member])


@pytest.fixture(scope="module", params=sorted(FILES))
def pair(request: pytest.FixtureRequest):
    path = tekken_path(request.param)
    return Tokenizer.from_file(path), Tekkenizer.from_file(path), path


def _check(ours: Tokenizer, ref: Tekkenizer, texts: list[str]) -> None:
    plain = [e.ids.tolist() for e in ours.encode_batch(texts, add_special_tokens=False)]
    with_bos = [e.ids.tolist() for e in ours.encode_batch(texts, add_special_tokens=True)]
    for text, a, b in zip(texts, plain, with_bos):
        want = ref.encode(text, bos=False, eos=False)
        assert a == want, text[:200]
        assert b == ref.encode(text, bos=True, eos=False), text[:200]
        assert ours.decode(b, skip_special_tokens=True) == ref.decode(b, SpecialTokenPolicy.IGNORE)
        assert ours.decode(b) == ref.decode(b, SpecialTokenPolicy.KEEP)


def test_random_strings(pair) -> None:
    ours, ref, _ = pair
    rng = random.Random(131072)
    specials = [t["token_str"] for t in ref._all_special_tokens[:40]]
    # special strings in the text stay text: mistral-common encodes with no special tokens
    _check(ours, ref, [random_text(rng, specials) for _ in range(N_RANDOM)])


def test_udhr_and_war_and_peace(pair) -> None:
    from conftest import shared

    ours, ref, _ = pair
    texts = [f.read_text(encoding="utf-8") for f in sorted(shared("udhr", "txt").glob("*.txt"))]
    texts.append(shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8"))
    _check(ours, ref, texts)


def test_specials_and_sizes(pair) -> None:
    ours, ref, _ = pair
    assert ours.vocab_size == ref.n_words == 131072
    added = ours.added_tokens
    assert [(a["id"], a["content"]) for a in added] == [(t["rank"], t["token_str"]) for t in ref._all_special_tokens]
    assert len(added) == ref.num_special_tokens == 1000 and all(a["special"] for a in added)
    for i in list(range(0, 1300)) + list(range(131000, 131072)):
        assert ours.id_to_bytes(i) == ref.id_to_byte_piece(i, SpecialTokenPolicy.KEEP), i
    assert ours.id_to_bytes(131072) is None


def test_cli_equals_python(pair, tokcore: Path) -> None:
    ours, ref, path = pair
    texts = ["Hello world <s> [INST] 123", "naïve 中文 🦙\n\n  tab\t"]
    lines = "".join(json.dumps({"text": t, "add_special_tokens": True}) + "\n" for t in texts)
    r = subprocess.run([str(tokcore), "encode", "--tokenizer", str(path), "--jsonl"], input=lines,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = [json.loads(ln)["ids"] for ln in r.stdout.splitlines()]
    assert got == [ref.encode(t, bos=True, eos=False) for t in texts]


def _variant(tmp_path: Path, name: str, edit) -> Path:
    data = json.loads(tekken_path("mistral_common/data/tekken_240718.json").read_text(encoding="utf-8"))
    edit(data)
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def _refused(p: Path) -> str:
    with pytest.raises(TokenizerError) as ei:
        Tokenizer.from_file(p)
    return str(ei.value)


def test_files_list_their_special_tokens(tmp_path: Path) -> None:
    """A file with "special_tokens" (v7 style): ids, content and the fillers as Tekkenizer builds them."""
    def edit(d: dict) -> None:
        d["special_tokens"] = [{"rank": i, "token_str": s, "is_control": True}
                               for i, s in enumerate(["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[THINK]"])]
        d["config"]["version"] = "v7"
        d["config"]["default_num_special_tokens"] = 10
        d["config"]["default_vocab_size"] = 1010 + 64000
    p = _variant(tmp_path, "tekken_v7.json", edit)
    ours, ref = Tokenizer.from_file(p), Tekkenizer.from_file(p)
    assert [(a["id"], a["content"]) for a in ours.added_tokens] == [(t["rank"], t["token_str"])
                                                                     for t in ref._all_special_tokens]
    rng = random.Random(7)
    _check(ours, ref, [random_text(rng) for _ in range(500)])


def test_bad_files_name_path_and_reason(tmp_path: Path) -> None:
    def rank(d: dict) -> None:
        d["vocab"][300]["rank"] = 7

    def b64(d: dict) -> None:
        d["vocab"][5]["token_bytes"] = "!!"

    def v13(d: dict) -> None:
        d["config"]["version"] = "v13"

    def small(d: dict) -> None:
        d["vocab"] = d["vocab"][:1000]

    cases = [(rank, "$.vocab[300].rank", "entry 300 must have \"rank\": 300"),
             (b64, "$.vocab[5].token_bytes", "invalid base64 token"),
             (v13, "$", "no \"special_tokens\""),
             (small, "$.vocab", "1000 entries, but default_vocab_size - default_num_special_tokens = 130072")]
    for edit, where, why in cases:
        p = _variant(tmp_path, f"bad_{edit.__name__}.json", edit)
        msg = _refused(p)
        assert msg.startswith(f"{p}: tekken: {where} at byte ") and why in msg, msg
