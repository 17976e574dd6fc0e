"""Where llama.cpp's recipe for a GGUF differs from the model's own tokenizer.json.

A GGUF carries the vocabulary and merges, but not the tokenizer.json's pipeline: llama.cpp rebuilds
that from the file's `tokenizer.ggml.model` and `pre` names (its own pre-tokenizer regexes per pre type,
no normalizer for BPE, its own special-token attributes and BOS/EOS flags). When a user has both files
open, this compares them aspect by aspect (vocabulary, special tokens, normalizer, pre-tokenizer,
what add_special_tokens adds) and on the texts the caller gives (the CLI: the contract's probes and
golden samples, and the user's own), ids with add_special_tokens off, so only the split is compared.

The report's words go through `translate` (English templates; the window passes its translator,
the CLI's JSON stays English).

Does not: encode anything itself (the two tokenizers do), nor judge which side is right: the report
names both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..core.tokenizer import Tokenizer

MAX_EXAMPLES = 5
Translate = Callable[[str], str]


def _same(s: str) -> str:
    return s


@dataclass(frozen=True)
class Aspect:
    name: str
    gguf: str          # what llama.cpp does
    json: str          # what the tokenizer.json says
    same: bool


@dataclass(frozen=True)
class TextDifference:
    text: str
    first: int                     # index of the first differing token
    gguf_pieces: list[str]         # from there, a few tokens each
    json_pieces: list[str]


@dataclass(frozen=True)
class RecipeReport:
    aspects: list[Aspect]
    texts: int
    differing: int
    examples: list[TextDifference] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"aspects": [a.__dict__ for a in self.aspects], "texts": self.texts, "differing": self.differing,
                "examples": [e.__dict__ for e in self.examples]}


def _specials(tok: Tokenizer) -> dict[int, str]:
    return {int(a["id"]): str(a["content"]) for a in tok.added_tokens if a["special"]}  # type: ignore[call-overload]


def _template(tok: Tokenizer) -> str:
    """What add_special_tokens adds around a text, as pieces ("<s> $A", "$A", "$A </s>")."""
    on, off = tok.encode("x", True).ids.tolist(), tok.encode("x", False).ids.tolist()
    if on == off:
        return "$A"
    k = next((i for i in range(len(on)) if on[i:i + len(off)] == off), None)
    if k is None:
        return " ".join(tok.id_to_token(i) or str(i) for i in on)
    before = [tok.id_to_token(i) or str(i) for i in on[:k]]
    after = [tok.id_to_token(i) or str(i) for i in on[k + len(off):]]
    return " ".join([*before, "$A", *after])


def _vocabulary(gguf: Tokenizer, hf: Tokenizer, t: Translate) -> Aspect:
    n = min(gguf.vocab_size, hf.vocab_size)
    differ = [i for i in range(n) if gguf.id_to_bytes(i) != hf.id_to_bytes(i)]
    g = t("{n} ids").format(n=f"{gguf.vocab_size:,}")
    j = t("{n} ids").format(n=f"{hf.vocab_size:,}")
    same = not differ and gguf.vocab_size == hf.vocab_size
    if differ:
        g += t("; {k} of the first {n} hold other bytes (first: id {id})").format(
            k=f"{len(differ):,}", n=f"{n:,}", id=differ[0])
    elif gguf.vocab_size != hf.vocab_size:
        g += t("; the first {n} hold the same bytes").format(n=f"{n:,}")
    return Aspect(t("vocabulary"), g, j, same)


def _special_tokens(gguf: Tokenizer, hf: Tokenizer, t: Translate) -> Aspect:
    a, b = _specials(gguf), _specials(hf)
    only_g = sorted(set(a) - set(b))
    only_j = sorted(set(b) - set(a))

    def listed(ids: list[int], names: dict[int, str]) -> str:
        shown = ", ".join(f"{names[i]}({i})" for i in ids[:4])
        return shown + (t(" and {n} more").format(n=f"{len(ids) - 4:,}") if len(ids) > 4 else "")

    def side(specials: dict[int, str], only: list[int]) -> str:
        return t("{n} special").format(n=f"{len(specials):,}") + (
            t("; only here: {list}").format(list=listed(only, specials)) if only else "")

    return Aspect(t("special tokens"), side(a, only_g), side(b, only_j), not only_g and not only_j)


def _component(name: str, key: str, gguf: dict[str, object], hf: dict[str, object], t: Translate) -> Aspect:
    def show(v: object) -> str:
        if isinstance(v, list):
            return ", ".join(str(x) for x in v) or t("none")
        return str(v or t("none"))

    g, j = show(gguf.get(key)), show(hf.get(key))
    return Aspect(name, g, j, g.replace(" [fast path]", "") == j.replace(" [fast path]", ""))


def compare_recipe(gguf: Tokenizer, hf: Tokenizer, texts: Sequence[str], translate: Translate = _same) -> RecipeReport:
    """The GGUF as llama.cpp reads it next to the tokenizer.json, aspect by aspect and on `texts`
    (the words through `translate`: English by default)."""
    t = translate
    dg, dh = gguf.describe(), hf.describe()
    meta = dg.get("gguf")
    recipe = ""
    if isinstance(meta, dict):
        recipe = t(" (llama.cpp: model {model}, pre {pre})").format(
            model=repr(meta.get("model")), pre=repr(meta.get("pre") or "default"))
    pre_g = [str(x) for x in dg.get("pre_tokenizer", [])]  # type: ignore[attr-defined]
    pre_h = [str(x) for x in dh.get("pre_tokenizer", [])]  # type: ignore[attr-defined]
    aspects = [
        _vocabulary(gguf, hf, t),
        _special_tokens(gguf, hf, t),
        _component(t("normalizer"), "normalizer", dg, dh, t),
        Aspect(t("pre-tokenizer") + recipe, ", ".join(pre_g) or t("none"), ", ".join(pre_h) or t("none"),
               [x.replace(" [fast path]", "") for x in pre_g] == [x.replace(" [fast path]", "") for x in pre_h]),
        Aspect(t("add_special_tokens adds"), _template(gguf), _template(hf), _template(gguf) == _template(hf)),
    ]
    pool = list(texts)
    differing = 0
    examples: list[TextDifference] = []
    for text, eg, eh in zip(pool, gguf.encode_batch(pool, False), hf.encode_batch(pool, False)):
        a, b = eg.ids.tolist(), eh.ids.tolist()
        if a == b:
            continue
        differing += 1
        if len(examples) < MAX_EXAMPLES:
            k = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            examples.append(TextDifference(text[:200], k, eg.tokens[k:k + 6], eh.tokens[k:k + 6]))
    return RecipeReport(aspects, len(pool), differing, examples)
