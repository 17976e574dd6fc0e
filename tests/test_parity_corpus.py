"""Real text: every UDHR translation and War and Peace, Qwen3 and GPT-2,
ids and offsets equal HF `tokenizers`; decode gives the text back."""

from __future__ import annotations

import unicodedata

import pytest

from conftest import assert_same, pair, shared


def corpus() -> list[str]:
    txt = shared("udhr", "txt")
    files = sorted(txt.glob("*.txt"))
    assert len(files) == 532
    texts = [f.read_text(encoding="utf-8") for f in files]
    texts.append(shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8"))
    return texts


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return corpus()


def test_qwen3_corpus(qwen3_json, texts):
    ours, hf = pair(qwen3_json)
    assert_same(ours, hf, texts, label="qwen3 corpus")
    for t in texts:
        assert ours.decode(ours.encode(t).ids) == unicodedata.normalize("NFC", t)


def test_gpt2_corpus(gpt2_json, texts):
    ours, hf = pair(gpt2_json)
    assert_same(ours, hf, texts, label="gpt2 corpus")
    for t in texts:
        assert ours.decode(ours.encode(t).ids) == t


def test_default_corpus_ids(qwen3_json, texts):
    """The embedded default gives the same ids as Qwen3's tokenizer.json on the corpus."""
    from tokinspect import Tokenizer

    ours, hf = Tokenizer.default(), pair(qwen3_json)[1]
    assert_same(ours, hf, texts, label="default corpus")


@pytest.mark.parametrize("fixture", ["qwen3_json", "gpt2_json"])
def test_rank_encoder_equals_hf_on_corpus(fixture, texts, request):
    """tiktoken's algorithm gives HF's ids on Qwen3 and GPT-2 over the whole corpus."""
    ours, hf = pair(request.getfixturevalue(fixture))
    got = [e.ids.tolist() for e in ours.encode_batch(texts, False, encoder="rank")]
    want = [h.ids for h in hf.encode_batch(texts, add_special_tokens=False)]
    bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    assert bad == []
