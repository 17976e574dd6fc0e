"""Unigram models with SentencePiece's compiled normalizer (Precompiled), against HF `tokenizers`.

No PyPI package we found ships a Unigram tokenizer.json, so the files are built at test time the way
HF's own converter (transformers' SpmConverter: Precompiled + Strip(right) + Replace(" {2,}", "▁"),
Metaspace, Unigram over the pieces with their scores and unk_id, TemplateProcessing "$A </s>")
builds them, from real SentencePiece Unigram models that the `sentencepiece` sdist ships:

    sentencepiece 0.2.1 sdist, test/test_model.model     sha256 4884d27b...cf5a2 (1,000 pieces, nfkc charsmap)
    sentencepiece 0.2.1 sdist, test/test_ja_model.model  sha256 e39551e7...67f65 (8,000 pieces)

tests/spm_convert.py reads the .model and converts it.
ids, tokens, offsets and decode equal HF's over every UDHR text and War and Peace (when
../shared/data is there), seeded random strings (the corpus generator plus one aimed at grapheme
clusters: CR LF, marks, prepends, jamo, ZWJ, variation selectors), with added tokens glued to words;
damaged files are refused with the JSON path and the reason.
"""

from __future__ import annotations

import base64
import copy
import json
import random
import struct
from pathlib import Path

import pytest
from pypi_files import pypi_file
from spm_convert import build_hf, read_spm

from conftest import assert_same_both, pair, shared
from corpus import random_texts

SPM = ("sentencepiece", "0.2.1")
MODELS = {
    "test_model": ("test/test_model.model", "4884d27bf50494e080aa99dbb868f27b68b6a3b6bd128da37ad6057c5e3cf5a2"),
    "test_ja_model": ("test/test_ja_model.model", "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65"),
}
N_RANDOM = 5000
ADDED = ["<s>", "</s>", "<unk>"]


@pytest.fixture(scope="module", params=sorted(MODELS))
def model_json(request, tmp_path_factory) -> Path:
    member, sha = MODELS[request.param]
    spm = read_spm(pypi_file(*SPM, member, sdist=True, sha256=sha))
    return build_hf(spm, tmp_path_factory.mktemp("unigram") / f"{request.param}.json")


@pytest.fixture(scope="module")
def small_json(tmp_path_factory) -> Path:
    member, sha = MODELS["test_model"]
    spm = read_spm(pypi_file(*SPM, member, sdist=True, sha256=sha))
    return build_hf(spm, tmp_path_factory.mktemp("unigram_small") / "test_model.json")


# ---- texts ---------------------------------------------------------------------------------------

SHORT = ["\r", "\n", "\r\n", "\t", "\x01", "\x7f", " ", "a", "Z", "é", "ß", "ø", "Ω", "я", "ש", "ب", "ت", "0",
         "\u0301", "\u0308", "\u0327", "\u05b7", "\u064e", "\u0651", "\u0903", "\u093c", "\u0600", "\u06dd",
         "\u200c", "\u200d", "\ufe0f", "\ufe0e", "\u1100", "\u1161", "\u11a8", "\uac00", "\uac01", "\u00ad",
         "\u200b", "\ufeff", "\u2028", "\U0001f1eb", "\U0001f1f7", "\U0001f3fd", "\u2764", "ｱ", "ﾞ", "①", "㍿",
         "ﬁ", "Ａ", "\u3000", "\xa0", "\u0e33", "\u0e01"]


def grapheme_texts(seed: int, n: int) -> list[str]:
    """Short characters in runs: clusters under and over 6 bytes, CR LF, marks after controls."""
    rng = random.Random(seed)
    return ["".join(rng.choice(SHORT) for _ in range(rng.randint(1, 12))) for _ in range(n)]


def corpus() -> list[str]:
    files = sorted(shared("udhr", "txt").glob("*.txt"))
    assert len(files) == 532
    return [f.read_text(encoding="utf-8") for f in files] + \
        [shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8")]


def _decode_same(ours, hf, id_lists, label):
    for skip in (False, True):
        got = [ours.decode(ids, skip_special_tokens=skip) for ids in id_lists]
        want = hf.decode_batch(id_lists, skip_special_tokens=skip)
        bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
        assert not bad, (f"{label} skip_special_tokens={skip}: {len(bad)}/{len(id_lists)} decodes differ; "
                         f"first ids {id_lists[bad[0][0]][:20]}: ours {bad[0][1][:80]!r} HF {bad[0][2][:80]!r}")


def _tokens_same(ours, hf, texts, label):
    """Token strings equal HF's: an unknown is named by the text it covers, as HF names it."""
    encs = ours.encode_batch(texts, True)
    unk = hf.get_vocab().get("<unk>")
    named = 0
    for t, e, h in zip(texts, encs, hf.encode_batch(texts, add_special_tokens=True)):
        assert e.tokens == h.tokens, f"{label}: tokens differ on {t[:80]!r}: ours {e.tokens[:20]} HF {h.tokens[:20]}"
        named += sum(1 for i, tk in zip(h.ids, h.tokens) if i == unk and tk != "<unk>")
    return named


# ---- against HF ----------------------------------------------------------------------------------


def test_described(model_json):
    ours, _ = pair(model_json)
    d = ours.describe()
    assert d["model"] == "Unigram"
    assert d["normalizer"] == ["Precompiled", "Strip", "Replace"]
    assert d["pre_tokenizer"] == ["Metaspace"]


def test_random_strings(model_json):
    ours, hf = pair(model_json)
    texts = random_texts(1515, N_RANDOM, ADDED) + grapheme_texts(15, N_RANDOM)
    assert_same_both(ours, hf, texts, f"{model_json.name} random")
    assert _tokens_same(ours, hf, texts[:2000], f"{model_json.name} random") > 0, "no unknown was named: the test would not see it"
    ids = [e.ids.tolist() for e in ours.encode_batch(texts, True)]
    _decode_same(ours, hf, ids, f"{model_json.name} random")
    # and ids that no encode gives: every id, in random runs
    rng = random.Random(7)
    n = ours.vocab_size
    _decode_same(ours, hf, [[rng.randrange(n) for _ in range(rng.randint(0, 30))] for _ in range(2000)],
                 f"{model_json.name} random ids")


def test_corpus(model_json):
    ours, hf = pair(model_json)
    texts = corpus()
    assert_same_both(ours, hf, texts, f"{model_json.name} corpus")
    _tokens_same(ours, hf, texts, f"{model_json.name} corpus")
    _decode_same(ours, hf, [e.ids.tolist() for e in ours.encode_batch(texts, True)], f"{model_json.name} corpus")


# ---- model rules on a vocabulary made for them ----------------------------------------------------


def _unigram_file(tmp_path: Path, vocab, unk_id=0, byte_fallback=False, normalizer=None, name="u.json") -> Path:
    from tokenizers import Tokenizer, models

    tok = Tokenizer(models.Unigram(vocab, unk_id=unk_id, byte_fallback=byte_fallback))
    if normalizer is not None:
        tok.normalizer = normalizer
    p = tmp_path / name
    tok.save(str(p))
    return p


def test_fused_unknowns_byte_fallback_and_ties(tmp_path):
    """Unknowns fuse (and a fused run that spells a piece takes its id), byte fallback spans the whole
    string, equal scores keep the first path found, a piece given twice is its last id."""
    rng = random.Random(3)
    vocab = [("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -2.0), ("xx", -0.5), ("c", -1.0), ("a", -3.0),
             ("bc", -2.0), ("abc", -3.0)] + [(f"<0x{b:02X}>", -5.0) for b in range(256)]
    alphabet = ["a", "b", "c", "x", "é", "🦙", " ", "ab", "xx", "<unk>"]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(3000)]
    for fb in (False, True):
        ours, hf = pair(_unigram_file(tmp_path, vocab, byte_fallback=fb, name=f"fb{fb}.json"))
        assert_same_both(ours, hf, texts, f"byte_fallback={fb}")
        _tokens_same(ours, hf, texts, f"byte_fallback={fb}")


def test_no_unk_id(tmp_path):
    """Without unk_id a text the pieces cover encodes; one they do not is an error, as in HF."""
    ours, hf = pair(_unigram_file(tmp_path, [("a", -1.0), ("b", -2.0)], unk_id=None))
    assert ours.encode("abba").ids.tolist() == hf.encode("abba").ids
    with pytest.raises(Exception, match="unk_id"):
        hf.encode("abz")
    with pytest.raises(Exception, match="no piece covers"):
        ours.encode("abz")


def test_trace_lattice(small_json):
    """The trace shows per chunk the lattice: the best path's nodes are the chunk's tokens, and every
    piece of the vocabulary that starts there is listed with its score."""
    from tokinspect import Tokenizer

    tok = Tokenizer.from_file(small_json)
    text = "Hello wörld, ｱｲｳ x\u0301 🦙"
    tr = tok.trace(text, add_special_tokens=False)
    enc = tok.encode(text, add_special_tokens=False)
    chunks = [c for c in tr.chunks if c.added_id is None]
    assert chunks and all(c.lattice for c in chunks)
    best = [n for c in chunks for n in c.lattice if n.best]
    # fused unknowns are one token: the best nodes are the tokens once unknown runs are merged
    merged: list[int] = []
    for n in best:
        if n.unk and merged and merged[-1] == -1:
            continue
        merged.append(-1 if n.unk else n.id)
    unk = tok.describe()["specials"][0]["id"]
    assert [unk if i == -1 else i for i in merged] == enc.ids.tolist()
    vocab = {tok.id_to_token(i): i for i in range(tok.vocab_size)}
    for c in chunks:
        for n in c.lattice:
            if not n.unk:
                at = c.norm_span[0] + n.start
                assert vocab[tr.normalized[at:at + n.len].decode("utf-8")] == n.id
        # path scores: a best node's path score is the best of the nodes ending where it ends
        for n in c.lattice:
            if n.best:
                rivals = [m.path_score for m in c.lattice if m.start + m.len == n.start + n.len]
                assert n.path_score == max(rivals)


def test_other_encoders_refused(small_json):
    from tokinspect import Tokenizer

    tok = Tokenizer.from_file(small_json)
    for enc in ("rank", "greedy", "kestrel-v1", "kestrel-v2"):
        with pytest.raises(Exception, match="Unigram"):
            tok.encode("hello", encoder=enc)


# ---- damaged files -------------------------------------------------------------------------------


def _cfg(small_json: Path) -> dict:
    return json.loads(small_json.read_text(encoding="utf-8"))


def _blob(cfg: dict) -> bytes:
    return base64.b64decode(cfg["normalizer"]["normalizers"][0]["precompiled_charsmap"])


def _with_blob(cfg: dict, blob: bytes) -> dict:
    c = copy.deepcopy(cfg)
    c["normalizer"]["normalizers"][0]["precompiled_charsmap"] = base64.b64encode(blob).decode()
    return c


def _refused(tmp_path: Path, cfg: dict, *needles: str, hf_refuses: bool = True) -> str:
    from tokenizers import Tokenizer as HF

    from tokinspect import Tokenizer

    p = tmp_path / "bad.json"
    p.write_text(json.dumps(cfg), encoding="utf-8")
    with pytest.raises(Exception) as ei:
        Tokenizer.from_file(p)
    msg = str(ei.value)
    for n in needles:
        assert n in msg, msg
    if hf_refuses:
        # HF's refusals are exceptions or, for some damaged charsmaps, a Rust panic (pyo3 PanicException,
        # a BaseException)
        with pytest.raises(BaseException):  # noqa: B017, PT011
            HF.from_file(str(p))
    return msg


CM = "$.normalizer.normalizers[0].precompiled_charsmap"


def test_charsmap_cut_short(small_json, tmp_path):
    cfg = _cfg(small_json)
    blob = _blob(cfg)
    _refused(tmp_path, _with_blob(cfg, blob[:3]), CM, "cut short")
    _refused(tmp_path, _with_blob(cfg, blob[:1000]), CM, "cut short")


def test_charsmap_index_past_end(small_json, tmp_path):
    """Replacement strings cut off: leaves point past their end (HF loads this and panics on use)."""
    cfg = _cfg(small_json)
    blob = _blob(cfg)
    size = struct.unpack("<I", blob[:4])[0]
    cut = next(k for k in range(16, 0, -1) if _utf8(blob[4 + size:4 + size + k]))
    _refused(tmp_path, _with_blob(cfg, blob[:4 + size + cut]), CM, "past the end", hf_refuses=False)


def _utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_charsmap_not_base64(small_json, tmp_path):
    cfg = _cfg(small_json)
    cfg["normalizer"]["normalizers"][0]["precompiled_charsmap"] = "AAAA*AAA"
    _refused(tmp_path, cfg, CM, "base64")


def test_bad_scores(small_json, tmp_path):
    cfg = _cfg(small_json)
    for bad in ("NaN", None, [1]):
        c = copy.deepcopy(cfg)
        c["model"]["vocab"][5][1] = bad
        _refused(tmp_path, c, "$.model.vocab[5][1]", "not a number")
    text = json.dumps(cfg).replace(json.dumps(cfg["model"]["vocab"][5]), json.dumps(cfg["model"]["vocab"][5][0]) and
                                   f'[{json.dumps(cfg["model"]["vocab"][5][0])}, 1e999]', 1)
    p = tmp_path / "inf.json"
    p.write_text(text, encoding="utf-8")
    from tokinspect import Tokenizer

    with pytest.raises(Exception, match=r"\$\.model\.vocab\[5\]\[1\]"):
        Tokenizer.from_file(p)


def test_unk_id_out_of_range(small_json, tmp_path):
    cfg = _cfg(small_json)
    cfg["model"]["unk_id"] = len(cfg["model"]["vocab"])
    _refused(tmp_path, cfg, "$.model.unk_id", "out of range")
    cfg["model"]["unk_id"] = -1
    _refused(tmp_path, cfg, "$.model.unk_id")


def test_vocab_not_pairs(small_json, tmp_path):
    cfg = _cfg(small_json)
    cfg["model"]["vocab"][3] = ["a"]
    _refused(tmp_path, cfg, "$.model.vocab[3]", "[piece, score]")


# ---- Precompiled rules on a charsmap made for them (no download) ------------------------------------

RULES = {"\r": " ", "\n": " ", "\t": " ", "\u00ad": "", "\u200b": "", "\ufeff": "", "Ａ": "A", "ﬁ": "fi",
         "①": "1", "㍿": "株式会社", "e\u0301": "é", "a\u0308": "ä", "\r\n": "\n", "ｱ": "ア", "ﾞ": "\u3099",
         "ß": "ss", "\u0600": "", "x\u0301\u0301": "X", "é": "e\u0301", "ø": "o", "Ω": "ω\u0301\u0301"}


def test_precompiled_rules_against_hf(tmp_path):
    """Removals (their change lands on an earlier cluster's char), expansions, multi-char keys that match
    only as a whole cluster under 6 bytes, CR LF: ids and offsets equal HF's on a charsmap built here."""
    from charsmap import build_charsmap
    from tokenizers import normalizers

    blob = build_charsmap(RULES)
    texts = grapheme_texts(1516, 4000) + random_texts(1517, 1000, ADDED)
    chars = sorted({ch for t in texts for ch in t} | {ch for v in RULES.values() for ch in v} | set("▁"))
    vocab = [("<unk>", 0.0)] + [(ch, -float(i % 7) - 1.0) for i, ch in enumerate(chars)] + \
        [("".join(p), -3.5) for p in (("a", "b"), ("é", "ss"), ("株式", ""), ("\u3099", "ア"))]
    p = _unigram_file(tmp_path, vocab, normalizer=normalizers.Precompiled(blob), name="rules.json")
    ours, hf = pair(p)
    assert [hf.normalizer.normalize_str(t) for t in texts[:50]]   # HF reads the blob
    assert_same_both(ours, hf, texts, "precompiled rules")


def test_trace_pane_rows(small_json):
    """The window's rows for a Unigram chunk: one per position with every candidate and its score, the
    best one highlighted, then the best path, whose pieces are the chunk's tokens."""
    from tokinspect import Tokenizer
    from tokinspect.window.trace_rows import chunk_rows, lattice_rows

    tok = Tokenizer.from_file(small_json)
    tr = tok.trace("Hello wörld ｱｲｳ", add_special_tokens=False)
    rows = chunk_rows(tr)
    for k, ch in enumerate(tr.chunks):
        assert rows[k].steps == len(ch.lattice)
        lr = lattice_rows(tok, tr, ch)
        assert len(lr) == len({n.start for n in ch.lattice}) + 1
        a, b = ch.token_range
        ids = tr.encoding.ids.tolist()[a:b]
        assert lr[-1].result == "= " + " ".join(map(str, ids))
        assert sum(r.merged is not None for r in lr[:-1]) == sum(n.best for n in ch.lattice)
        assert all(len(r.symbols) == sum(n.start == int(r.label[1:]) for n in ch.lattice) for r in lr[:-1])


def test_vocab_bin_refused(small_json):
    from tokinspect import Tokenizer
    from tokinspect.formats.vocab_bin import compile_vocab_bin

    with pytest.raises(Exception, match="Unigram model"):
        compile_vocab_bin(Tokenizer.from_file(small_json))
