"""Property tests (hypothesis) of the engine through the Python API:
lossless round trips, offsets that tile the text, batch = single encodes,
vocab.bin compile -> load -> entries, and encoders that never fail on bytes."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import cl100k_tiktoken_path
from tokinspect import Tokenizer
from tokinspect.formats.vocab_bin import compile_vocab_bin

settings.register_profile("default", max_examples=200, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("sanitized", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# text with the hard parts over-represented: combining marks, emoji and ZWJ,
# CJK, whitespace runs, digits, contractions, special-token lookalikes, surrogates excluded
_ALPHABET = st.characters(blacklist_categories=("Cs",))
_PIECES = st.sampled_from(["'s", "'LL", " ", "  ", "\n", "\r\n", "\t", "123", "e\u0301", "🦙", "👩\u200d👩\u200d👧", "中文",
                           "<|endoftext|>", "<|im_start|>", "Ġ", "\u00a0", "\u3000", "naïve", "ﬁ", "Å"])
TEXT = st.lists(st.one_of(st.text(_ALPHABET, max_size=12), _PIECES), max_size=12).map("".join)
ENCODERS = ("bpe", "rank", "greedy")


@pytest.fixture(scope="module")
def cl100k() -> Tokenizer:
    return Tokenizer.from_file(cl100k_tiktoken_path(), preset="cl100k")


@pytest.fixture(scope="module")
def qwen() -> Tokenizer:
    tok = Tokenizer.default()
    for e in ENCODERS:
        tok.encode("x", encoder=e)      # prepares every encoder once
    return tok


def _check_tiling(text: str, enc) -> None:
    """Byte offsets cover the text in order without gaps or overlaps, except
    that tokens sharing a split character both cover that whole character."""
    raw = text.encode("utf-8")
    spans = enc.byte_offsets.tolist()
    if not raw:
        assert spans == []
        return
    assert spans[0][0] == 0 and spans[-1][1] == len(raw)
    for (a, b), (c, d) in zip(spans, spans[1:]):
        assert a <= b and c <= d
        if c != b:
            # tokens that split a character both cover all of it: the only overlap allowed
            assert a <= c < b <= d, f"gap or overlap between {a, b} and {c, d}"
            assert len(raw[c:b].decode("utf-8")) == 1, f"overlap {c, b} is not one split character"
    chars = enc.offsets.tolist()
    for (bs, be), (cs, ce) in zip(spans, chars):
        assert len(raw[:bs].decode("utf-8", "replace")) == cs and len(raw[:be].decode("utf-8", "replace")) == ce


@given(TEXT)
def test_cl100k_is_lossless_and_tiles(cl100k: Tokenizer, text: str) -> None:
    for encoder in ("bpe", "rank"):
        enc = cl100k.encode(text, encoder=encoder)
        assert cl100k.decode(enc.ids) == text
        _check_tiling(text, enc)


@given(TEXT)
def test_qwen_is_lossless_on_nfc_text(qwen: Tokenizer, text: str) -> None:
    text = unicodedata.normalize("NFC", text)
    enc = qwen.encode(text)
    assert qwen.decode(enc.ids) == text
    _check_tiling(text, enc)
    assert enc.ids.tolist() == qwen.encode(text, encoder="rank").ids.tolist()


@given(st.lists(TEXT, max_size=8), st.sampled_from(ENCODERS), st.booleans())
def test_encode_batch_equals_encode(qwen: Tokenizer, texts: list[str], encoder: str, add_special: bool) -> None:
    batch = qwen.encode_batch(texts, add_special_tokens=add_special, encoder=encoder)
    assert len(batch) == len(texts)
    for t, b in zip(texts, batch):
        one = qwen.encode(t, add_special_tokens=add_special, encoder=encoder)
        assert b.ids.tolist() == one.ids.tolist()
        assert b.byte_offsets.tolist() == one.byte_offsets.tolist() and b.offsets.tolist() == one.offsets.tolist()


@given(st.binary(max_size=300), st.sampled_from(ENCODERS), st.booleans())
def test_encoders_never_fail_on_bytes(qwen: Tokenizer, data: bytes, encoder: str, add_special: bool) -> None:
    enc = qwen.encode(data, add_special_tokens=add_special, encoder=encoder)
    spans = enc.byte_offsets.tolist()
    assert all(0 <= a <= b <= len(data) for a, b in spans)
    assert all(0 <= i < qwen.vocab_size for i in enc.ids.tolist())
    if encoder != "greedy":
        assert qwen.decode_bytes(enc.ids) == data or enc.ids.size == 0 or len(data) > 0
    tr = qwen.trace(data, add_special_tokens=add_special, encoder=encoder)
    assert tr.encoding.ids.tolist() == enc.ids.tolist()


@given(st.binary(max_size=200))
def test_rank_bytes_round_trip(cl100k: Tokenizer, data: bytes) -> None:
    """No normalizer, every byte a token: the real bytes come back exactly."""
    assert cl100k.decode_bytes(cl100k.encode(data, encoder="rank").ids) == data


QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def _byte_level(b: bytes) -> str:
    from tokinspect.formats.vocab_bin import _mapped
    return _mapped(b)


# The format cannot tell a stored marker (C4 80..C4 A0, the bytes 0x00..0x20)
# from the UTF-8 of the letters U+0100..U+0120 (vocabbin.h); the loader decides
# with the vocabulary's help, assuming what trained vocabularies guarantee: a
# token is one pre-token chunk (here: Qwen2's pattern, the loader's default
# preset). Drawn tokens follow that rule, and control bytes 0x00..0x1F stay out
# of multi-byte tokens (b"\x00\x01" is one chunk yet reads back as letters).
def _one_chunk(b: bytes) -> bool:
    from tokinspect import _tokcore

    return _tokcore.find_all(QWEN2_PATTERN, b, True) == [(0, len(b))]


_TOKEN = st.binary(min_size=2, max_size=8).filter(
    lambda b: not b.startswith(b"<") and min(b) >= 0x20 and _one_chunk(b))


@settings(max_examples=40)
@given(st.lists(_TOKEN, min_size=1, max_size=40, unique=True))
def test_vocab_bin_compile_load_round_trip(tmp_path_factory: pytest.TempPathFactory, tokens: list[bytes]) -> None:
    """A byte-level tokenizer (256 bytes + the drawn tokens) compiled to
    vocab.bin and loaded back has the same entries, id by id."""
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers

    base = [bytes([b]) for b in range(256)]
    tokens = [t for t in tokens if t not in base]
    assume(tokens)
    vocab = {_byte_level(t): i for i, t in enumerate(base + tokens)}
    hf = HFTokenizer(models.BPE(vocab, []))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    hf.decoder = decoders.ByteLevel()
    d: Path = tmp_path_factory.mktemp("vbin")
    hf.save(str(d / "tokenizer.json"))
    tok = Tokenizer.from_file(d / "tokenizer.json")
    res = compile_vocab_bin(tok)
    assert res.total == len(vocab)
    (d / "vocab.bin").write_bytes(res.data)
    back = Tokenizer.from_file(d / "vocab.bin")
    assert back.vocab_size == tok.vocab_size
    again = compile_vocab_bin(back)
    assert again.data == res.data, "compile(load(vocab.bin)) must give the same file"
    for i in range(tok.vocab_size):
        assert back.id_to_bytes(i) == tok.id_to_bytes(i), (i, tok.id_to_bytes(i), back.id_to_bytes(i))
