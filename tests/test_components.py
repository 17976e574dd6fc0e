"""Differential component matrix: each supported normalizer / pre-tokenizer /
post-processor / model flag, built as a tokenizer.json and loaded in both
engines (ours and HF `tokenizers`), compared on seeded random texts (ids and
char offsets), with and without special tokens, plus decode equality.

Byte-level variants reuse the Qwen3 vocab and merges (cut to the first
VOCAB_CUT ids, so a variant loads in a fraction of a second); the char-level
variants use a small BPE trained with `BpeTrainer` on random texts.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from conftest import assert_same_both, pair
from corpus import SPACES, WORDS, random_texts

N = 2000  # random texts per configuration (and per add_special_tokens value)
VOCAB_CUT = 8000

QWEN_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# added tokens of the byte-level base: template specials, a plain special,
# non-special ones (one with spaces around, to exercise trim_offsets)
ADDED = [
    {"content": "<|endoftext|>", "special": True},
    {"content": "<|im_start|>", "special": True},
    {"content": "<|im_end|>", "special": True},
    {"content": "<think>", "special": False},
    {"content": " spaced tok ", "special": False},
]
ADDED_TEXTS = [a["content"] for a in ADDED]


# ---- helpers -------------------------------------------------------------------


_compare = assert_same_both


def _write(tmp_path: Path, cfg: dict, name: str = "tok.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(cfg, ensure_ascii=False), encoding="utf-8")
    return p


def spacey_texts(seed: int, n: int, added: list[str] | None = None) -> list[str]:
    """Texts dominated by spaces: leading, trailing, runs, between words and
    around added tokens (trim_offsets and add_prefix_space territory)."""
    rng = random.Random(seed)
    pieces = [" ", "  ", "   ", " \n", "\t", "\u00a0", "\u3000"] + SPACES
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, 10)):
            r = rng.random()
            if r < 0.45:
                parts.append(rng.choice(pieces))
            elif r < 0.8:
                parts.append(rng.choice(WORDS))
            elif r < 0.9 and added:
                parts.append(rng.choice(added))
            else:
                parts.append(rng.choice(["1", "23", ".", "!", "Ġ", "é", "中", "🦙", "'s"]))
        out.append("".join(parts))
    return out


def texts_for(seed: int, added: list[str] | None = ADDED_TEXTS) -> list[str]:
    return ["", " ", "  ", "a", " a", "a ", "  a  b  "] + random_texts(seed, N, added) + spacey_texts(seed + 1, N // 4, added)


# ---- byte-level base (Qwen vocab) ------------------------------------------------


@pytest.fixture(scope="module")
def qwen_base(qwen3_json) -> dict:
    """Qwen3's tokenizer.json with the model cut to ids < VOCAB_CUT (ids stay
    dense) and ADDED as added tokens numbered right after the vocab."""
    d = json.loads(Path(qwen3_json).read_text(encoding="utf-8"))
    m = d["model"]
    vocab = {k: v for k, v in m["vocab"].items() if v < VOCAB_CUT}
    assert sorted(vocab.values()) == list(range(VOCAB_CUT))
    merges = []
    for mg in m["merges"]:
        a, b = mg if isinstance(mg, list) else mg.split(" ", 1)
        if a in vocab and b in vocab and a + b in vocab:
            merges.append([a, b])
    d["model"] = dict(m, vocab=vocab, merges=merges)
    d["added_tokens"] = [
        {"id": VOCAB_CUT + i, "content": a["content"], "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": not a["special"], "special": a["special"]}
        for i, a in enumerate(ADDED)
    ]
    return d


def _byte_pre(*before: dict, aps: bool = False, use_regex: bool = False) -> dict:
    bl = {"type": "ByteLevel", "add_prefix_space": aps, "trim_offsets": False, "use_regex": use_regex}
    if not before:
        return bl
    return {"type": "Sequence", "pretokenizers": [*before, bl]}


def _split(pattern: dict, behavior: str, invert: bool) -> dict:
    return {"type": "Split", "pattern": pattern, "behavior": behavior, "invert": invert}


QWEN_SPLIT = _split({"Regex": QWEN_PATTERN}, "Isolated", False)


def _post_bl(trim: bool, aps: bool) -> dict:
    return {"type": "ByteLevel", "add_prefix_space": aps, "trim_offsets": trim, "use_regex": True}


def _template() -> dict:
    s, e = VOCAB_CUT + 1, VOCAB_CUT + 2
    return {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<|im_start|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "<|im_end|>", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {
            "<|im_start|>": {"id": "<|im_start|>", "ids": [s], "tokens": ["<|im_start|>"]},
            "<|im_end|>": {"id": "<|im_end|>", "ids": [e], "tokens": ["<|im_end|>"]},
        },
    }


def _nf(*names: str) -> dict:
    if len(names) == 1:
        return {"type": names[0]}
    return {"type": "Sequence", "normalizers": [{"type": n} for n in names]}


BYTE_VARIANTS: dict[str, dict] = {}

# normalizers (Qwen's pre-tokenizer)
for _n in ("NFC", "NFD", "NFKC", "NFKD", "Lowercase"):
    BYTE_VARIANTS[f"norm-{_n}"] = {"normalizer": _nf(_n)}
BYTE_VARIANTS["norm-none"] = {"normalizer": None}
BYTE_VARIANTS["norm-NFKC+Lowercase"] = {"normalizer": _nf("NFKC", "Lowercase")}
BYTE_VARIANTS["norm-NFD+Lowercase+NFC"] = {"normalizer": _nf("NFD", "Lowercase", "NFC")}
BYTE_VARIANTS["norm-Lowercase+NFKD"] = {"normalizer": _nf("Lowercase", "NFKD")}

# Split: every behavior x invert over regex and string patterns
SPLIT_PATTERNS = {
    "re-ws": {"Regex": r"\s+"},
    "re-N": {"Regex": r"\p{N}"},
    "re-vowel": {"Regex": r"[aeiou]"},
    "re-d2": {"Regex": r"\d{2}"},
    "re-the-i": {"Regex": r"(?i)the"},
    "re-ws-star": {"Regex": r"\s*"},
    "str-space": {"String": " "},
    "str-ab": {"String": "ab"},
    "str-the": {"String": "the"},
    "str-nonascii": {"String": "ß"},
}
BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")
for _pn, _pat in SPLIT_PATTERNS.items():
    for _b in BEHAVIORS:
        for _inv in (False, True):
            BYTE_VARIANTS[f"split-{_pn}-{_b}-inv{int(_inv)}"] = {
                "normalizer": None, "pre_tokenizer": _byte_pre(_split(_pat, _b, _inv))}

# Digits
for _ind in (False, True):
    BYTE_VARIANTS[f"digits-ind{int(_ind)}"] = {
        "pre_tokenizer": _byte_pre({"type": "Digits", "individual_digits": _ind})}
    BYTE_VARIANTS[f"digits-ind{int(_ind)}+qwen-split"] = {
        "pre_tokenizer": _byte_pre({"type": "Digits", "individual_digits": _ind}, QWEN_SPLIT)}
    BYTE_VARIANTS[f"qwen-split+digits-ind{int(_ind)}"] = {
        "pre_tokenizer": _byte_pre(QWEN_SPLIT, {"type": "Digits", "individual_digits": _ind})}

# ByteLevel alone, and after a Split (add_prefix_space applies per split)
for _aps in (False, True):
    for _rx in (False, True):
        BYTE_VARIANTS[f"bytelevel-aps{int(_aps)}-regex{int(_rx)}"] = {
            "normalizer": None, "pre_tokenizer": _byte_pre(aps=_aps, use_regex=_rx)}
    BYTE_VARIANTS[f"split-ws-isolated+bytelevel-aps{int(_aps)}"] = {
        "pre_tokenizer": _byte_pre(_split({"Regex": r"\s+"}, "Isolated", False), aps=_aps)}
    BYTE_VARIANTS[f"qwen-split+bytelevel-aps{int(_aps)}"] = {"pre_tokenizer": _byte_pre(QWEN_SPLIT, aps=_aps)}

# ByteLevel post-processor: trim_offsets x add_prefix_space, with pre-tokenizer aps both ways
for _trim in (False, True):
    for _paps in (False, True):
        for _aps in (False, True):
            BYTE_VARIANTS[f"post-bl-trim{int(_trim)}-aps{int(_paps)}-pre-aps{int(_aps)}"] = {
                "pre_tokenizer": _byte_pre(aps=_aps, use_regex=True), "post_processor": _post_bl(_trim, _paps)}
        BYTE_VARIANTS[f"post-bl-trim{int(_trim)}-aps{int(_paps)}-qwen-pre"] = {
            "post_processor": _post_bl(_trim, _paps)}

# TemplateProcessing, alone, in a Sequence after ByteLevel(trim_offsets), and none
BYTE_VARIANTS["post-template"] = {"post_processor": _template()}
BYTE_VARIANTS["post-seq-bl-trim+template"] = {
    "post_processor": {"type": "Sequence", "processors": [_post_bl(True, False), _template()]}}
BYTE_VARIANTS["post-seq-bl-trim+template-pre-aps"] = {
    "pre_tokenizer": _byte_pre(aps=True, use_regex=True),
    "post_processor": {"type": "Sequence", "processors": [_post_bl(True, True), _template()]}}
BYTE_VARIANTS["post-none"] = {"post_processor": None}

# model flags
BYTE_VARIANTS["model-ignore-merges"] = {"model": {"ignore_merges": True}}
BYTE_VARIANTS["model-ignore-merges+NFKC+Lowercase"] = {
    "model": {"ignore_merges": True}, "normalizer": _nf("NFKC", "Lowercase")}


def _variant(base: dict, patch: dict) -> dict:
    cfg = copy.copy(base)
    for k, v in patch.items():
        if k == "model":
            cfg["model"] = dict(base["model"], **v)
        else:
            cfg[k] = v
    return cfg


@pytest.mark.parametrize("name", list(BYTE_VARIANTS))
def test_byte_level_variant(qwen_base, tmp_path, name):
    cfg = _variant(qwen_base, BYTE_VARIANTS[name])
    ours, hf = pair(_write(tmp_path, cfg))
    for a in ADDED:
        assert ours.token_to_id(a["content"]) == hf.token_to_id(a["content"]), a
    seed = sum(map(ord, name))
    _compare(ours, hf, texts_for(seed), name)


# minimal reproducers of disagreements found by the matrix above (regression tests)
MINIMAL = [
    ("split-re-ws-star-MergedWithPrevious-inv1", "na"),
    ("split-re-ws-star-MergedWithNext-inv1", "na"),
    ("bytelevel-aps1-regex1", "\na"),  # prefix space token: HF (0,1)
    ("post-bl-trim1-aps0-pre-aps0", "é "),  # trimmed empty span at the end: HF (2,2)
    ("post-bl-trim1-aps0-pre-aps1", "\na"),  # trimmed prefix space: HF (1,1)
    ("post-bl-trim1-aps1-pre-aps1", "<think>🨝"),  # prefix space after an added token is trimmed in HF
]


@pytest.mark.parametrize(("name", "text"), MINIMAL)
def test_byte_level_minimal(qwen_base, tmp_path, name, text):
    ours, hf = pair(_write(tmp_path, _variant(qwen_base, BYTE_VARIANTS[name])))
    _compare(ours, hf, [text], f"{name} {text!r}")


# ---- decode ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["norm-NFC", "post-seq-bl-trim+template", "bytelevel-aps1-regex1"])
def test_byte_level_decode(qwen_base, tmp_path, name):
    cfg = _variant(qwen_base, BYTE_VARIANTS[name])
    ours, hf = pair(_write(tmp_path, cfg))
    texts = texts_for(11, ADDED_TEXTS)
    rng = random.Random(12)
    nvocab = VOCAB_CUT + len(ADDED)
    seqs = [h.ids for h in hf.encode_batch(texts, add_special_tokens=True)]
    # random id sequences: split multi-byte characters, specials anywhere
    seqs += [[rng.randrange(nvocab) for _ in range(rng.randint(0, 12))] for _ in range(1000)]
    seqs += [[rng.choice([VOCAB_CUT + i for i in range(len(ADDED))] + list(range(128, 256)))
              for _ in range(rng.randint(1, 6))] for _ in range(500)]
    for skip in (False, True):
        bad = [(s, ours.decode(s, skip_special_tokens=skip), hf.decode(s, skip_special_tokens=skip)) for s in seqs]
        bad = [b for b in bad if b[1] != b[2]]
        assert not bad, f"{name} skip={skip}: {len(bad)}/{len(seqs)} differ; first {bad[0]!r}"


# ---- char-level BPE (trained) ----------------------------------------------------


@pytest.fixture(scope="module")
def char_bpe_base(tmp_path_factory) -> dict:
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##", end_of_word_suffix="</w>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"\s+"), behavior="removed")
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=["[UNK]"], limit_alphabet=120,
                                  continuing_subword_prefix="##", end_of_word_suffix="</w>", show_progress=False)
    tok.train_from_iterator(random_texts(seed=424242, n=400), trainer=trainer)
    p = tmp_path_factory.mktemp("charbpe") / "char.json"
    tok.save(str(p))
    d = json.loads(p.read_text(encoding="utf-8"))
    assert d["model"]["continuing_subword_prefix"] == "##" and d["model"]["end_of_word_suffix"] == "</w>"
    n = len(d["model"]["vocab"])
    d["added_tokens"] = [
        {"id": 0, "content": "[UNK]", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
         "special": True},
        {"id": n, "content": "[CLS]", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
         "special": True},
        {"id": n + 1, "content": "[SEP]", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
         "special": True},
        {"id": n + 2, "content": "hello world", "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": True, "special": False},
    ]
    return d


CHAR_ADDED = ["[UNK]", "[CLS]", "[SEP]", "hello world"]


def _char_template(base: dict) -> dict:
    n = len(base["model"]["vocab"])
    return {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {
            "[CLS]": {"id": "[CLS]", "ids": [n], "tokens": ["[CLS]"]},
            "[SEP]": {"id": "[SEP]", "ids": [n + 1], "tokens": ["[SEP]"]},
        },
    }


def _with_byte_tokens(base: dict) -> dict:
    """<0xXX> tokens right after the trained vocab; the added tokens after
    them (HF numbers added tokens from the model's vocab size on)."""
    d = copy.deepcopy(base)
    vocab = d["model"]["vocab"]
    n = len(vocab)
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = n + b
    for a in d["added_tokens"]:
        if a["id"] >= n:
            a["id"] += 256
    if isinstance(d.get("post_processor"), dict):
        raise AssertionError("renumber the template too")
    return d


CHAR_VARIANTS = {
    "fuse_unk0": {"model": {"fuse_unk": False}},
    "fuse_unk1": {"model": {"fuse_unk": True}},
    "fuse_unk1-NFKC+Lowercase": {"model": {"fuse_unk": True}, "normalizer": _nf("NFKC", "Lowercase")},
    "fuse_unk0-no-pretok": {"model": {"fuse_unk": False}, "pre_tokenizer": None},
    "fuse_unk1-split-isolated": {"model": {"fuse_unk": True},
                                 "pre_tokenizer": _split({"Regex": r"\s+"}, "Isolated", False)},
    "ignore_merges": {"model": {"ignore_merges": True}},
    "no-unk": {"model": {"unk_token": None}},
    "digits+split": {"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        _split({"Regex": r"\s+"}, "Removed", False), {"type": "Digits", "individual_digits": True}]}},
    "template": {"post_processor": "TEMPLATE"},
    "byte_fallback": {"model": {"byte_fallback": True}, "BYTES": True},
    "byte_fallback-fuse_unk": {"model": {"byte_fallback": True, "fuse_unk": True}, "BYTES": True},
}


def _char_cfg(base: dict, name: str) -> dict:
    patch = dict(CHAR_VARIANTS[name])
    if patch.pop("BYTES", False):
        base = _with_byte_tokens(base)
    if patch.get("post_processor") == "TEMPLATE":
        patch["post_processor"] = _char_template(base)
    return _variant(base, patch)


@pytest.mark.parametrize("name", list(CHAR_VARIANTS))
def test_char_bpe_variant(char_bpe_base, tmp_path, name):
    cfg = _char_cfg(char_bpe_base, name)
    ours, hf = pair(_write(tmp_path, cfg))
    for a in CHAR_ADDED:
        assert ours.token_to_id(a) == hf.token_to_id(a), a
    seed = sum(map(ord, name)) + 7
    _compare(ours, hf, texts_for(seed, CHAR_ADDED), f"char-{name}")


@pytest.mark.parametrize(("name", "text"), [("no-unk", "ıi"), ("byte_fallback", "a")])
def test_char_bpe_minimal(char_bpe_base, tmp_path, name, text):
    ours, hf = pair(_write(tmp_path, _char_cfg(char_bpe_base, name)))
    _compare(ours, hf, [text], f"char-{name} {text!r}")


@pytest.mark.parametrize("name", ["fuse_unk0", "template"])
def test_char_bpe_decode(char_bpe_base, tmp_path, name):
    """No decoder: HF joins the token strings with a space."""
    cfg = _char_cfg(char_bpe_base, name)
    ours, hf = pair(_write(tmp_path, cfg))
    seqs = [h.ids for h in hf.encode_batch(texts_for(3, CHAR_ADDED)[:500], add_special_tokens=True)]
    for skip in (False, True):
        bad = [(s, ours.decode(s, skip_special_tokens=skip), hf.decode(s, skip_special_tokens=skip)) for s in seqs]
        bad = [b for b in bad if b[1] != b[2]]
        assert not bad, f"char-{name} skip={skip}: {len(bad)}/{len(seqs)} differ; first {bad[0]!r}"
