"""Bad input gets a clear error (naming the offset or JSON path and the
reason) or a correct result; never a crash, hang or quadratic blow-up."""

from __future__ import annotations

import json
import random

import pytest

from conftest import pair
from tokinspect import Tokenizer, TokenizerError


@pytest.fixture(scope="module")
def qwen_doc(qwen3_json) -> dict:
    return json.loads(qwen3_json.read_text(encoding="utf-8"))


def write(tmp_path, doc_or_text, name="tokenizer.json"):
    p = tmp_path / name
    if isinstance(doc_or_text, (bytes, bytearray)):
        p.write_bytes(doc_or_text)
    elif isinstance(doc_or_text, str):
        p.write_text(doc_or_text, encoding="utf-8")
    else:
        p.write_text(json.dumps(doc_or_text), encoding="utf-8")
    return p


def load_error(path) -> str:
    with pytest.raises(TokenizerError) as ei:
        Tokenizer.from_file(path)
    return str(ei.value)


def test_truncated_json(tmp_path, qwen3_json):
    data = qwen3_json.read_bytes()
    for cut in (len(data) // 2, len(data) - 3, 100):
        msg = load_error(write(tmp_path, data[:cut]))
        assert "end of input" in msg and f"byte {cut}" in msg, msg


def test_malformed_json_names_offset(tmp_path):
    msg = load_error(write(tmp_path, '{"model": {"vocab": {"a": 0,}, "merges": []}}'))
    assert "trailing comma" in msg and "byte 27" in msg, msg  # the comma
    msg = load_error(write(tmp_path, '{"model": {"vocab": {"a": 0, "a": 1}, "merges": []}}'))
    assert "duplicate key" in msg, msg


def test_deep_nesting_is_refused(tmp_path):
    msg = load_error(write(tmp_path, '{"model": ' + "[" * 1_000_000 + "]" * 1_000_000 + "}"))
    assert "nesting deeper than 512" in msg, msg


def test_unknown_component(tmp_path, qwen_doc):
    # every type of tokenizers 0.23.3 loads (tests/test_hf_component_types.py); one it does not have
    # is refused with its JSON path and name
    doc = dict(qwen_doc)
    doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [{"type": "Frobnicate", "behavior": "Isolated"}]}
    msg = load_error(write(tmp_path, doc))
    assert "$.pre_tokenizer.pretokenizers[0]" in msg and "Frobnicate" in msg and "not supported" in msg, msg
    doc = dict(qwen_doc)
    doc["normalizer"] = {"type": "BertNormaliser"}
    msg = load_error(write(tmp_path, doc))
    assert "$.normalizer" in msg and "BertNormaliser" in msg, msg
    doc = dict(qwen_doc)
    doc["decoder"] = {"type": "WordPieces"}
    assert "$.decoder" in load_error(write(tmp_path, doc))
    doc = dict(qwen_doc)
    doc["post_processor"] = {"type": "BertProcessing", "sep": ["[SEP]", 102]}
    msg = load_error(write(tmp_path, doc))
    assert "$.post_processor.cls" in msg, msg


def test_unsupported_regex_construct(tmp_path, qwen_doc):
    doc = dict(qwen_doc)
    doc["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": r"(?<=a)b"}, "behavior": "Isolated",
                            "invert": False}
    msg = load_error(write(tmp_path, doc))
    assert "$.pre_tokenizer.pattern" in msg and "lookbehind" in msg.lower(), msg


def test_merges_naming_unknown_tokens(tmp_path, qwen_doc):
    doc = dict(qwen_doc)
    doc["model"] = dict(qwen_doc["model"])
    doc["model"]["merges"] = list(qwen_doc["model"]["merges"][:10]) + [["zzz_not_a_token", "a"]]
    msg = load_error(write(tmp_path, doc))
    assert "$.model.merges[10]" in msg and "zzz_not_a_token" in msg, msg


def test_wrong_types(tmp_path, qwen_doc):
    doc = dict(qwen_doc)
    doc["model"] = dict(qwen_doc["model"])
    doc["model"]["vocab"] = {"a": "zero"}
    assert '$.model.vocab["a"]' in load_error(write(tmp_path, doc))
    doc = dict(qwen_doc)
    doc["post_processor"] = {"type": "ByteLevel", "trim_offsets": "yes"}
    assert "$.post_processor.trim_offsets" in load_error(write(tmp_path, doc))
    doc = dict(qwen_doc)
    doc["added_tokens"] = [{"id": -1, "content": "x"}]
    assert "$.added_tokens[0]" in load_error(write(tmp_path, doc))


def test_not_a_tokenizer(tmp_path):
    for content in (b"", b"\x00\x01\x02garbage", b"hello world\n"):
        with pytest.raises((TokenizerError, OSError)):
            Tokenizer.from_file(write(tmp_path, content, "x.bin"))
    with pytest.raises(OSError):
        Tokenizer.from_file(tmp_path / "missing.json")


def test_tiktoken_bad_line(tmp_path):
    p = write(tmp_path, "IQ== 0\nIg== 1\n!!!notbase64 2\n", "bad.tiktoken")
    with pytest.raises(TokenizerError, match="line 3"):
        Tokenizer.from_file(p)


def test_merges_txt_bad_line(tmp_path):
    vocab = write(tmp_path, {"a": 0, "b": 1, "ab": 2}, "vocab.json")
    merges = write(tmp_path, "#version: 0.2\na b\na b c\n", "merges.txt")
    with pytest.raises(TokenizerError, match="line 3"):
        Tokenizer.from_file(vocab, merges=merges)


def test_five_megabyte_single_word(qwen3_json):
    ours, hf = pair(qwen3_json)
    rng = random.Random(11)
    word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzé") for _ in range(5_000_000))
    enc = ours.encode(word)
    assert ours.decode(enc.ids) == word
    sample = word[:200_000]
    assert ours.encode(sample).ids.tolist() == hf.encode(sample).ids


def test_million_carets(qwen3_json):
    ours, hf = pair(qwen3_json)
    text = "^" * 1_000_000
    enc, ref = ours.encode(text), hf.encode(text)
    assert enc.ids.tolist() == ref.ids
    assert enc.offsets.tolist() == [list(o) for o in ref.offsets]


def test_long_whitespace_and_newline_runs(qwen3_json):
    ours, hf = pair(qwen3_json)
    for text in (" " * 300_000 + "x", "\n" * 300_000, " \n" * 100_000 + "y", "\t" * 200_000):
        assert ours.encode(text).ids.tolist() == hf.encode(text).ids


def test_lone_surrogate_is_a_clear_error(qwen3_json):
    ours, _ = pair(qwen3_json)
    with pytest.raises(UnicodeEncodeError):
        ours.encode("a\ud800b")


def test_regex_step_limit_is_an_error_not_a_hang(tmp_path, qwen_doc):
    doc = dict(qwen_doc)
    doc["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": r"(a|aa)+$"}, "behavior": "Isolated",
                            "invert": False}
    tok = Tokenizer.from_file(write(tmp_path, doc))
    with pytest.raises(TokenizerError, match="step limit"):
        tok.encode("a" * 5000 + "b")
