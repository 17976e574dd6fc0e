"""Every component type HF `tokenizers` 0.23.3 ships loads, and encodes and decodes as HF does.

The types are enumerated from the installed package (its normalizers, pre_tokenizers, processors,
decoders and models modules), so a type this table does not build fails the test. Each one is put into a
tokenizer on the real BERT vocabulary (tests/bert_vocab.py), saved by HF, loaded by both, and compared on
seeded random strings (ids, tokens, offsets) and random id sequences (decode, both skip modes).
No type is refused: each must equal HF, token strings included (a Unigram unknown is named by its text).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import bert_vocab
import pytest
from test_wordpiece import texts_random

# a real compiled charsmap: the sentencepiece 0.2.3 sdist's test model (NormalizerSpec.precompiled_charsmap)
SPM_MODEL = ("sentencepiece", "0.2.3", "test/botchan_en_unigram_1000.model",
             "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e")


def _proto_fields(b: bytes):
    """(field, wire type, value) of one protobuf message (varint and length-delimited are all we need)."""
    o = 0

    def varint(o: int) -> tuple[int, int]:
        r = s = 0
        while True:
            x = b[o]
            o += 1
            r |= (x & 0x7F) << s
            s += 7
            if x < 0x80:
                return r, o

    while o < len(b):
        k, o = varint(o)
        f, t = k >> 3, k & 7
        if t == 0:
            v, o = varint(o)
        elif t == 2:
            n, o = varint(o)
            v = b[o:o + n]
            o += n
        elif t == 5:
            v, o = b[o:o + 4], o + 4
        else:
            assert t == 1, t
            v, o = b[o:o + 8], o + 8
        yield f, t, v


def spm_charsmap() -> bytes:
    """ModelProto.normalizer_spec (3).precompiled_charsmap (2) of the sentencepiece test model."""
    from pypi_files import pypi_file

    pkg, ver, member, sha = SPM_MODEL
    model = pypi_file(pkg, ver, member, sdist=True, sha256=sha).read_bytes()
    spec = next(v for f, _, v in _proto_fields(model) if f == 3)
    return next(v for f, _, v in _proto_fields(spec) if f == 2)


def hf_types() -> set[str]:
    from tokenizers import decoders, models, normalizers, pre_tokenizers, processors

    out = set()
    for mod, base in ((normalizers, normalizers.Normalizer), (pre_tokenizers, pre_tokenizers.PreTokenizer),
                      (processors, processors.PostProcessor), (decoders, decoders.Decoder), (models, models.Model)):
        for name in dir(mod):
            obj = getattr(mod, name)
            if isinstance(obj, type) and issubclass(obj, base) and obj is not base:
                out.add(name)
    return out


def cases(vocab: dict[str, int]) -> list[tuple[str, str, dict[str, object]]]:
    """(type, label, parts): parts are the tokenizer components to set on the WordPiece base."""
    from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, processors

    n, p, pp, d = normalizers, pre_tokenizers, processors, decoders
    c: list[tuple[str, str, dict[str, object]]] = []
    for clean in (True, False):
        for chinese in (True, False):
            for strip in (None, True, False):
                for lower in (True, False):
                    c.append(("BertNormalizer", f"bert-{clean}-{chinese}-{strip}-{lower}",
                              {"normalizer": n.BertNormalizer(clean, chinese, strip, lower)}))
    c += [("ByteLevel", "norm-bytelevel", {"normalizer": n.ByteLevel()}),
          ("Lowercase", "lowercase", {"normalizer": n.Lowercase()}),
          ("NFC", "nfc", {"normalizer": n.NFC()}), ("NFD", "nfd", {"normalizer": n.NFD()}),
          ("NFKC", "nfkc", {"normalizer": n.NFKC()}), ("NFKD", "nfkd", {"normalizer": n.NFKD()}),
          ("Nmt", "nmt", {"normalizer": n.Nmt()}),
          ("Precompiled", "precompiled", {"normalizer": n.Precompiled(spm_charsmap())}),
          ("Prepend", "prepend", {"normalizer": n.Prepend("\u2581")}),
          ("Replace", "replace", {"normalizer": n.Replace("a", "bc")}),
          ("Sequence", "norm-seq", {"normalizer": n.Sequence([n.StripAccents(), n.NFKC(), n.Lowercase()])}),
          ("Strip", "strip", {"normalizer": n.Strip()}),
          ("StripAccents", "stripaccents", {"normalizer": n.StripAccents()}),
          ("StripAccents", "nfd-stripaccents", {"normalizer": n.Sequence([n.NFD(), n.StripAccents()])})]
    c += [("BertPreTokenizer", "bertpre", {"pre_tokenizer": p.BertPreTokenizer()}),
          ("ByteLevel", "pre-bytelevel", {"pre_tokenizer": p.ByteLevel(), "model": models.BPE(
              {ch: i for i, ch in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}, []),
              "decoder": d.ByteLevel()}),
          ("CharDelimiterSplit", "chardelim", {"pre_tokenizer": p.CharDelimiterSplit("e")}),
          ("Digits", "digits", {"pre_tokenizer": p.Digits(individual_digits=True)}),
          ("FixedLength", "fixed3", {"pre_tokenizer": p.FixedLength(3)}),
          ("FixedLength", "fixed-default", {"pre_tokenizer": p.Sequence([p.WhitespaceSplit(), p.FixedLength()])}),
          ("Metaspace", "metaspace", {"pre_tokenizer": p.Metaspace()}),
          ("Sequence", "pre-seq", {"pre_tokenizer": p.Sequence([p.WhitespaceSplit(), p.Punctuation("contiguous")])}),
          ("Split", "split", {"pre_tokenizer": p.Split(Regex(r"\s+|\p{P}"), "isolated")}),
          ("UnicodeScripts", "scripts", {"pre_tokenizer": p.UnicodeScripts()}),
          ("Whitespace", "whitespace", {"pre_tokenizer": p.Whitespace()}),
          ("WhitespaceSplit", "wssplit", {"pre_tokenizer": p.WhitespaceSplit()})]
    for beh in ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"):
        c.append(("Punctuation", f"punct-{beh}", {"pre_tokenizer": p.Sequence([p.WhitespaceSplit(), p.Punctuation(beh)])}))
    c += [("BertProcessing", "bertproc", {"post_processor": pp.BertProcessing(("[SEP]", 102), ("[CLS]", 101))}),
          ("ByteLevel", "post-bytelevel", {"post_processor": pp.ByteLevel(trim_offsets=True)}),
          ("TemplateProcessing", "template", {"post_processor": pp.TemplateProcessing(
              single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 101), ("[SEP]", 102)])}),
          ("Sequence", "post-seq", {"post_processor": pp.Sequence([pp.ByteLevel(trim_offsets=False),
                                                                    pp.BertProcessing(("[SEP]", 102), ("[CLS]", 101))])})]
    for trim in (True, False):
        for aps in (True, False):
            c.append(("RobertaProcessing", f"roberta-{trim}-{aps}", {
                "pre_tokenizer": p.Sequence([p.WhitespaceSplit(), p.Punctuation()]) if not aps else p.Metaspace(),
                "post_processor": pp.RobertaProcessing(("[SEP]", 102), ("[CLS]", 101), trim_offsets=trim,
                                                       add_prefix_space=aps)}))
    c += [("BPEDecoder", "bpedec", {"decoder": d.BPEDecoder(suffix="s")}),
          ("ByteFallback", "bytefallback", {"decoder": d.ByteFallback()}),
          ("ByteLevel", "dec-bytelevel", {"decoder": d.ByteLevel()}),
          ("CTC", "ctc", {"decoder": d.CTC(pad_token="[PAD]", word_delimiter_token="|")}),
          ("CTC", "ctc-nocleanup", {"decoder": d.CTC(pad_token="##s", word_delimiter_token="a", cleanup=False)}),
          ("Fuse", "fuse", {"decoder": d.Fuse()}),
          ("Metaspace", "dec-metaspace", {"decoder": d.Metaspace()}),
          ("Replace", "dec-replace", {"decoder": d.Replace("##", "")}),
          ("Sequence", "dec-seq", {"decoder": d.Sequence([d.WordPiece(cleanup=False), d.Strip(" ", 1, 1)])}),
          ("Strip", "dec-strip", {"decoder": d.Strip("#", 1, 0)}),
          ("WordPiece", "dec-wordpiece", {"decoder": d.WordPiece()}),
          ("WordPiece", "dec-wordpiece-nocleanup", {"decoder": d.WordPiece(prefix="##", cleanup=False)}),
          ("WordPiece", "dec-wordpiece-prefix", {"decoder": d.WordPiece(prefix="s", cleanup=True)})]
    merges = [("#", "#"), ("t", "h"), ("th", "e"), ("i", "n"), ("in", "g")]
    small = {t: i for i, t in enumerate(sorted({ch for t in vocab for ch in t} | {"##", "th", "the", "in", "ing"}))}
    c += [("BPE", "bpe", {"model": models.BPE(small, merges)}),
          ("WordPiece", "model-wordpiece", {}),
          ("WordPiece", "model-wordpiece-short", {"model": models.WordPiece(vocab, unk_token="[UNK]",
                                                                           max_input_chars_per_word=4)}),
          ("WordLevel", "wordlevel", {"model": models.WordLevel(vocab, unk_token="[UNK]"),
                                      "pre_tokenizer": p.BertPreTokenizer(), "normalizer": n.Lowercase()}),
          ("Unigram", "unigram", {"model": models.Unigram([("[UNK]", 0.0), ("a", -1.0), ("b", -2.0)], 0)})]
    return c


@pytest.fixture(scope="module")
def vocab(tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    path = bert_vocab.vocab_txt(tmp_path_factory.mktemp("bert") / "vocab.txt")
    return {t: i for i, t in enumerate(path.read_text(encoding="utf-8").split("\n")[:-1])}


def build(vocab: dict[str, int], parts: dict[str, object], path: Path):
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(parts.get("model") or models.WordPiece(vocab, unk_token="[UNK]"))
    if "pre_tokenizer" not in parts:
        tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    for k in ("normalizer", "pre_tokenizer", "post_processor", "decoder"):
        if k in parts:
            setattr(tok, k, parts[k])
    tok.add_special_tokens(["[CLS]", "[SEP]", "[PAD]", "[MASK]"])
    tok.add_tokens(["hello"])
    tok.save(str(path))
    return Tokenizer.from_file(str(path))


def test_every_hf_component_type(vocab: dict[str, int], tmp_path: Path) -> None:
    from tokinspect import Tokenizer, TokenizerError

    table = cases(vocab)
    assert {t for t, _, _ in table} == hf_types(), "a component type of the installed tokenizers is not tested here"

    texts = texts_random(23, 300, ["[CLS]", "[SEP]", "hello", "[MASK]"])
    rng = random.Random(5)
    failures = []
    for _typ, label, parts in table:
        path = tmp_path / f"{label}.json"
        hf = build(vocab, parts, path)
        try:
            ours = Tokenizer.from_file(path)
        except TokenizerError as e:
            failures.append(f"{label}: refused: {e}")
            continue
        tx = texts
        added = {int(a["id"]) for a in ours.added_tokens}
        for add in (True, False):
            for t, e, h in zip(tx, ours.encode_batch(tx, add), hf.encode_batch(tx, add_special_tokens=add)):
                # subtle: HF's token for a matched added token is the text it matched (a Prepend
                # normalizer's "\u2581" included); ours is the token's content, so those are not compared
                toks = [a == b or i in added
                        for a, b, i in zip(e.tokens, h.tokens, h.ids)]
                if e.ids.tolist() != h.ids or not all(toks) or e.offsets.tolist() != [list(o) for o in h.offsets]:
                    failures.append(f"{label} add={add}: {t[:80]!r}: ours {e.tokens[:12]} {e.offsets.tolist()[:12]} "
                                    f"HF {h.tokens[:12]} {h.offsets[:12]}")
                    break
        size = hf.get_vocab_size()
        for _ in range(200):
            ids = [rng.choice([rng.randrange(size), rng.randrange(min(size, 2000)), 102, 0, 1035])
                   for _ in range(rng.randint(0, 12))]
            if rng.random() < 0.3 and ids:
                ids.insert(rng.randrange(len(ids)), ids[0])   # repeats, for CTC's dedup
            for skip in (True, False):
                if ours.decode(ids, skip_special_tokens=skip) != hf.decode(ids, skip_special_tokens=skip):
                    failures.append(f"{label} decode skip={skip} {ids}: ours {ours.decode(ids, skip_special_tokens=skip)!r} "
                                    f"HF {hf.decode(ids, skip_special_tokens=skip)!r}")
                    break
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:20])


def test_describe_names_the_components(vocab: dict[str, int], tmp_path: Path) -> None:
    from tokenizers import decoders, normalizers, pre_tokenizers

    from tokinspect import Tokenizer

    path = tmp_path / "t.json"
    build(vocab, {"normalizer": normalizers.BertNormalizer(), "pre_tokenizer": pre_tokenizers.BertPreTokenizer(),
                  "decoder": decoders.WordPiece()}, path)
    d = Tokenizer.from_file(path).describe()
    assert d["model"] == "WordPiece"
    assert "Punctuation" in d["pre_tokenizer"] and "WordPiece" in d["decoder"]
    assert json.loads(path.read_text(encoding="utf-8"))["normalizer"]["type"] == "BertNormalizer"
    assert "BertNormalizer.clean_text" in d["normalizer"]
