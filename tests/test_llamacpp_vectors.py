"""llama.cpp's tokenizer test vectors (models/ggml-vocab-*.gguf.inp/.out)."""

from __future__ import annotations

import pytest

import refs
from conftest import assert_same, missing, pair


def vectors(name: str):
    v = refs.llamacpp_vectors(name)
    if v is None:
        missing(f"../shared/data/llama.cpp vectors for {name}")
    return v


@pytest.mark.parametrize("name,fixture", [("qwen2", "qwen3_json"), ("gpt-2", "gpt2_json"),
                                          ("llama-bpe", "llama3_json")])
def test_vectors(name, fixture, request):
    path = request.getfixturevalue(fixture)
    ours, hf = pair(path)
    cases = vectors(name)
    assert len(cases) >= 43
    for text, ids in cases:
        assert ours.encode(text, add_special_tokens=False).ids.tolist() == ids, text
    assert_same(ours, hf, [t for t, _ in cases], label=name)
    for text, _ in cases:
        assert ours.decode(ours.encode(text).ids) == text


def test_llama3_needs_ignore_merges(llama3_json):
    """Without ignore_merges some Llama-3 vector would split differently:
    the flag is really exercised."""
    import json

    from tokinspect import Tokenizer

    data = json.loads(llama3_json.read_text(encoding="utf-8"))
    data["model"]["ignore_merges"] = False
    alt = llama3_json.with_name("llama3_no_ignore.json")
    alt.write_text(json.dumps(data), encoding="utf-8")
    with_flag, without = Tokenizer.from_file(llama3_json), Tokenizer.from_file(alt)
    cases = vectors("llama-bpe")
    diffs = [t for t, _ in cases if with_flag.encode(t).ids.tolist() != without.encode(t).ids.tolist()]
    assert diffs, "no vector depends on ignore_merges"
