"""vocab.bin: bit-exact compile, safe load, real bytes, encoders on it."""

from __future__ import annotations

import hashlib
import random
import struct

import pytest

from conftest import pair, shared
from corpus import random_texts
from tokinspect import Tokenizer, TokenizerError
from tokinspect.formats import vocab_bin as vb

PRODUCTION_SHA256 = "299e1c156bff1b85b5b4dc098c1d7f2e33e0b76fe1967d0d21df328985637a73"


@pytest.fixture(scope="module")
def qwen3_bin(tmp_path_factory) -> bytes:
    res = vb.compile_vocab_bin(Tokenizer.default())
    return res.data


def test_compile_default_is_the_production_file():
    res = vb.compile_vocab_bin(Tokenizer.default())
    assert len(res.data) == 1_950_864
    assert res.sha256 == PRODUCTION_SHA256
    assert (res.total, res.changed, res.kept, res.specials) == (151669, 57286, 94357, 26)


def test_compile_qwen3_tokenizer_json(qwen3_json):
    res = vb.compile_vocab_bin(Tokenizer.from_file(qwen3_json))
    assert res.sha256 == PRODUCTION_SHA256
    assert (res.total, res.changed, res.kept, res.specials) == (151669, 57286, 94357, 26)


def test_cli_compile_and_audit(tmp_path, capsys):
    from tokinspect.cli import main

    out = tmp_path / "vocab.bin"
    assert main(["vocab", "compile", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "total entries: 151669" in text and "converted: 57286" in text and "kept: 94357" in text
    assert "special copied: 26" in text and PRODUCTION_SHA256 in text
    assert main(["vocab", "audit", str(out), "--against", str(out)]) == 0
    text = capsys.readouterr().out
    assert "33 groups, 66 entries" in text and "identical" in text
    # seed 000 section 3.3 probes: space, newline, 0xAD, 0x7F
    assert "220  c4 a0        20       Ġ" in text and "198  c4 8a        0a       Ċ" in text
    assert "255  ad           ad       Ń" in text and "221  7f           7f       ġ" in text


def test_audit_lists_the_marker_letter_pairs(tmp_path, qwen3_bin):
    p = tmp_path / "v.bin"
    p.write_bytes(qwen3_bin)
    a = vb.audit(p)
    groups = a.report["identical"]["list"]
    assert len(groups) == 33 and all(len(g) == 2 for g in groups)
    for pair_ in ([213, 5156], [193, 5861], [191, 6705], [195, 7730], [219, 11011], [201, 13152], [215, 21444],
                  [189, 30657]):
        assert pair_ in groups


def test_compare_two_vocab_bins(tmp_path, qwen3_bin):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(qwen3_bin)
    broken = bytearray(qwen3_bin)
    # entry 255 (0xAD) written as the unfixed C5 83: same length file is impossible, so rebuild it
    entries = vb.read_entries(qwen3_bin)
    entries[255] = "Ń".encode()
    b.write_bytes(struct.pack("<I", len(entries)) + b"".join(struct.pack("<IH", i, len(e)) + e
                                                             for i, e in enumerate(entries)))
    cmp = vb.compare(a, b)
    assert not cmp.identical and [d.id for d in cmp.differences] == [255]
    assert cmp.differences[0].a == b"\xad" and cmp.differences[0].b == b"\xc5\x83"
    assert bytes(broken) == qwen3_bin


def _roundtrip(tok: Tokenizer, tmp_path, preset: str | None = None) -> None:
    p = tmp_path / "rt.bin"
    p.write_bytes(vb.compile_vocab_bin(tok).data)
    back = Tokenizer.from_file(p, preset=preset)
    assert back.format == "vocab_bin" and back.vocab_size == tok.vocab_size
    bad = [i for i in range(tok.vocab_size) if back.decode_bytes([i]) != tok.decode_bytes([i])]
    assert bad == []


def test_roundtrip_every_entry_qwen3(tmp_path):
    _roundtrip(Tokenizer.default(), tmp_path)


def test_roundtrip_every_entry_qwen25(tmp_path):
    _roundtrip(Tokenizer.from_file(shared("qwen2.5", "tokenizer.json")), tmp_path)


def test_roundtrip_every_entry_gpt2(tmp_path, gpt2_json):
    _roundtrip(Tokenizer.from_file(gpt2_json), tmp_path, preset="gpt2")


def test_vocab_bin_encoders_equal_hf(tmp_path, qwen3_bin, qwen3_json):
    """bpe and rank on the loaded vocab.bin give Qwen3's ids."""
    p = tmp_path / "v.bin"
    p.write_bytes(qwen3_bin)
    tok = Tokenizer.from_file(p)
    _, hf = pair(qwen3_json)
    texts = random_texts(seed=77, n=3000, added=[a["content"] for a in tok.added_tokens])
    want = [h.ids for h in hf.encode_batch(texts, add_special_tokens=False)]
    for enc in ("bpe", "rank"):
        got = [e.ids.tolist() for e in tok.encode_batch(texts, False, encoder=enc)]
        assert got == want, enc


def test_lookup_by_string_equals_hf(tmp_path, qwen3_bin, qwen3_json):
    """A vocab.bin handle builds its string index on the first lookup by string (vocab.c): every
    token's string, its first-id bytes and strings that are no token answer as HF does on Qwen3's
    tokenizer.json; an encode that needs no lookup first (greedy), then lookups, then bpe, agree too."""
    p = tmp_path / "v.bin"
    p.write_bytes(qwen3_bin)
    _, hf = pair(qwen3_json)
    tok = Tokenizer.from_file(p)
    texts = random_texts(seed=4242, n=300, added=[a["content"] for a in tok.added_tokens])
    greedy_first = [e.ids.tolist() for e in tok.encode_batch(texts, False, encoder="greedy")]
    strings = [hf.id_to_token(i) for i in range(hf.get_vocab_size())]
    rng = random.Random(17)
    misses = ["".join(rng.choice("aĠbĊ<>|x") for _ in range(rng.randint(1, 9))) for _ in range(2000)]
    queries = strings + misses + ["<0x0A>", "Ġ", "ĠĠ", ""]
    got = [tok.token_to_id(s) for s in queries]
    want = [hf.token_to_id(s) for s in queries]
    assert sum(g != w for g, w in zip(got, want, strict=True)) == 0
    assert [tok.id_to_token(i) for i in range(len(strings))] == strings
    fresh = Tokenizer.from_file(p)
    assert [e.ids.tolist() for e in fresh.encode_batch(texts, False, encoder="greedy")] == greedy_first
    want_ids = [h.ids for h in hf.encode_batch(texts, add_special_tokens=False)]
    assert [e.ids.tolist() for e in tok.encode_batch(texts, False, encoder="bpe")] == want_ids


# ---- greedy against a straightforward reference --------------------------------------

def _stored_text(raw: bytes) -> bytes:
    return b"".join(bytes([0xC4, 0x80 + b]) if b <= 0x20 else bytes([b]) for b in raw)


class ReferenceGreedy:
    """The board's rule, written naively: at each position the longest
    special that matches, else the longest entry that is a prefix (lower id
    on equal bytes), else drop one stored unit. A prefix set keeps the scan
    from trying every length."""

    def __init__(self, entries: list[bytes], specials: set[int]) -> None:
        self.first: dict[bytes, int] = {}
        for i, e in enumerate(entries):
            self.first.setdefault(e, i)
        self.prefixes = {e[:k] for e in entries for k in range(1, len(e) + 1)}
        self.specials = specials

    def _longest(self, s: bytes, i: int, special_only: bool) -> tuple[int, int] | None:
        best, L = None, 1
        while i + L <= len(s) and s[i : i + L] in self.prefixes:
            j = self.first.get(s[i : i + L])
            if j is not None and (not special_only or j in self.specials):
                best = (j, L)
            L += 1
        return best

    def encode(self, raw: bytes) -> list[int]:
        s = _stored_text(raw)
        out, i = [], 0
        while i < len(s):
            best = self._longest(s, i, True) or self._longest(s, i, False)
            if best is None:
                i += 2 if s[i] == 0xC4 and i + 1 < len(s) and 0x80 <= s[i + 1] <= 0xA0 else 1
                continue
            out.append(best[0])
            i += best[1]
        return out


def test_greedy_matches_reference_20000(tmp_path, qwen3_bin):
    p = tmp_path / "v.bin"
    p.write_bytes(qwen3_bin)
    tok = Tokenizer.from_file(p)
    ref = ReferenceGreedy(vb.read_entries(qwen3_bin), {a["id"] for a in tok.added_tokens})
    texts = random_texts(seed=2026, n=20_000, added=[a["content"] for a in tok.added_tokens])
    got = tok.encode_batch(texts, False, encoder="greedy")
    bad = [t for t, e in zip(texts, got) if e.ids.tolist() != ref.encode(t.encode())]
    assert bad == []
    rng = random.Random(5)
    for _ in range(500):
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 30)))
        assert tok.encode(raw, False, encoder="greedy").ids.tolist() == ref.encode(raw)


def test_greedy_on_tokenizer_json_equals_vocab_bin(tmp_path, qwen3_bin, qwen3_json):
    p = tmp_path / "v.bin"
    p.write_bytes(qwen3_bin)
    a, b = Tokenizer.from_file(p), Tokenizer.from_file(qwen3_json)
    texts = random_texts(seed=9, n=2000)
    assert [e.ids.tolist() for e in a.encode_batch(texts, encoder="greedy")] == \
           [e.ids.tolist() for e in b.encode_batch(texts, encoder="greedy")]


def test_greedy_board_behaviour():
    tok = Tokenizer.default()
    # the letter ę (C4 99) equals the stored marker of byte 0x19: the board keeps the lower id
    assert tok.encode("ę", encoder="greedy").ids.tolist() == [213]
    assert tok.encode("ę").ids.tolist() == [5156]
    # a special token right after text the greedy match runs into is split
    ids = tok.encode("x <|im_start|>", encoder="greedy").ids.tolist()
    assert 151644 not in ids
    assert tok.encode("<|im_start|>", encoder="greedy").ids.tolist() == [151644]


def test_greedy_trace_candidates():
    tok = Tokenizer.default()
    tr = tok.trace("Hello world", encoder="greedy")
    assert [s.chosen for s in tr.greedy_steps] == tr.encoding.ids.tolist()
    first = tr.greedy_steps[0]
    assert first.pos == 0 and first.candidates[-1] == first.chosen
    assert all(len(tok.id_to_bytes(c) or b"") <= first.chosen_len for c in first.candidates)


def test_encode_batch_with_encoders_equals_single():
    tok = Tokenizer.default()
    texts = random_texts(seed=12, n=200)
    for enc in ("bpe", "rank", "greedy"):
        for t, e in zip(texts, tok.encode_batch(texts, encoder=enc)):
            assert e.ids.tolist() == tok.encode(t, encoder=enc).ids.tolist()


# ---- bad files ----------------------------------------------------------------------

def _image(entries: list[tuple[int, bytes]], n: int | None = None) -> bytes:
    n = len(entries) if n is None else n
    return struct.pack("<I", n) + b"".join(struct.pack("<IH", i, len(b)) + b for i, b in entries)


GOOD = [(i, bytes([65 + i]) * 3) for i in range(4)]


@pytest.mark.parametrize("data,message", [
    (b"", "empty file"),
    (b"\x01\x00", "shorter than"),
    (_image([], 0), "N = 0"),
    (struct.pack("<I", 5_000_000) + b"\x00" * 8, "above"),
    (_image(GOOD)[:-2], "truncated entry bytes at entry 3"),
    (_image(GOOD)[:-5], r"truncated entry header \(id/len\) at entry 3"),
    (_image(GOOD[:3] + [(9, b"x")]), "id 9"),
    (_image(GOOD[:3] + [(1, b"x")]), "duplicate id"),
    (_image(GOOD[:3] + [(3, b"")]), "zero-length"),
], ids=["empty", "short", "n0", "n-limit", "trunc-bytes", "trunc-header", "id>=n", "dup", "zero-len"])
def test_bad_vocab_bin(tmp_path, data, message):
    p = tmp_path / "bad.bin"
    p.write_bytes(data)
    with pytest.raises(TokenizerError, match=message):
        Tokenizer.from_file(p)


def test_seed_case_n_changed_to_200000(tmp_path, qwen3_bin):
    p = tmp_path / "n200000.bin"
    p.write_bytes(struct.pack("<I", 200_000) + qwen3_bin[4:])
    with pytest.raises(TokenizerError, match="truncated entry header at entry 151669, offset 1950864"):
        Tokenizer.from_file(p)


def test_trailing_garbage_is_a_warning(tmp_path, qwen3_bin):
    p = tmp_path / "trailing.bin"
    p.write_bytes(qwen3_bin + b"junk")
    tok = Tokenizer.from_file(p)
    assert tok.vocab_size == 151669
    assert vb.audit(p).warnings == ["4 bytes after the last entry"]
    assert hashlib.sha256(p.read_bytes()).hexdigest() != PRODUCTION_SHA256
