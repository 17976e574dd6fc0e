"""The report's figures, from counted rows: per language and per script, for each series.

Per language (all its rows, in order): lines, characters, bytes, tokens, tokens/char,
tokens/byte, p50 and p95 of tokens per line (numpy's linear interpolation), byte-fallback and
`<unk>` share of the tokens, parity against the reference language and its square, the relative
attention cost (self-attention compares every pair of tokens: 1.4x the tokens is 1.96x the pairs).

Parity (Petrov et al., NeurIPS 2023, "tokenization parity") is measured one of two ways, and the
report says which:
- "document": a language's tokens over the reference's, each over its whole text (UDHR's
  translations: the same content, not the same line breaks);
- "lines": the mean over aligned lines of the line's tokens over the reference line's tokens,
  when every language has as many lines as the reference (a line-aligned corpus, FLORES-style).
"auto" chooses "lines" when the corpus is line-aligned, else "document".

Per script (a language's dominant script, scripts.py): the languages of that script summed
(characters, bytes, tokens, their ratios), with the median parity of its languages.

Does not: encode (counting.py) or format (report.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from .counting import RowCounts
from .scripts import dominant

PARITY_MODES = ("auto", "document", "lines")


class ReportError(ValueError):
    """A report that cannot be made (no reference language, an empty corpus), in one sentence."""


@dataclass(frozen=True)
class Language:
    """One language's counts: every row of it, in corpus order."""

    lang: str
    chars: np.ndarray                 # per line
    nbytes: np.ndarray
    scripts: dict[str, int]
    tokens: tuple[np.ndarray, ...]    # per series, per line
    fallback: tuple[int, ...]
    unk: tuple[int, ...]

    @property
    def script(self) -> str:
        return dominant(self.scripts)


def group(rows: Sequence[RowCounts], n_series: int) -> list[Language]:
    """Rows of one language joined in corpus order; languages in order of first appearance."""
    by: dict[str, list[RowCounts]] = {}
    for r in rows:
        by.setdefault(r.lang, []).append(r)
    out = []
    for lang, rs in by.items():
        scripts: dict[str, int] = {}
        for r in rs:
            for k, v in r.scripts.items():
                scripts[k] = scripts.get(k, 0) + v
        out.append(Language(
            lang, np.array([c for r in rs for c in r.chars], np.int64), np.array([c for r in rs for c in r.nbytes],
                                                                                 np.int64), scripts,
            tuple(np.array([t for r in rs for t in r.series[k].tokens], np.int64) for k in range(n_series)),
            tuple(sum(r.series[k].fallback for r in rs) for k in range(n_series)),
            tuple(sum(r.series[k].unk for r in rs) for k in range(n_series))))
    return out


@dataclass(frozen=True)
class LanguageRow:
    series: str
    lang: str
    name: str
    script: str
    lines: int
    chars: int
    bytes: int
    tokens: int
    tokens_per_char: float
    tokens_per_byte: float
    p50: float
    p95: float
    byte_fallback_share: float
    unk_share: float
    parity: float
    attention_cost: float

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class ScriptRow:
    series: str
    script: str
    languages: int
    chars: int
    bytes: int
    tokens: int
    tokens_per_char: float
    tokens_per_byte: float
    median_parity: float
    attention_cost: float

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _ratio(a: float, b: float) -> float:
    return float(a) / float(b) if b else 0.0


def parity_mode(langs: Sequence[Language], ref: Language, mode: str) -> str:
    if mode not in PARITY_MODES:
        raise ReportError(f"unknown parity mode {mode!r}; one of {', '.join(PARITY_MODES)}")
    aligned = all(lg.chars.shape[0] == ref.chars.shape[0] for lg in langs)
    if mode == "lines" and not aligned:
        odd = next(lg for lg in langs if lg.chars.shape[0] != ref.chars.shape[0])
        raise ReportError(f"--parity lines needs a line-aligned corpus: {odd.lang} has {odd.chars.shape[0]} lines, "
                          f"the reference {ref.lang} {ref.chars.shape[0]}")
    return ("lines" if aligned else "document") if mode == "auto" else mode


def parity(lg: Language, ref: Language, k: int, mode: str) -> float:
    """Tokens of `lg` over the reference's for series k (see the module's note on the two modes)."""
    if mode == "document":
        return _ratio(int(lg.tokens[k].sum()), int(ref.tokens[k].sum()))
    a, b = lg.tokens[k], ref.tokens[k]
    keep = b > 0
    return float(np.mean(a[keep] / b[keep])) if keep.any() else 0.0


def language_rows(langs: Sequence[Language], labels: Sequence[str], reference: str, mode: str,
                  names: dict[str, str]) -> tuple[list[LanguageRow], str]:
    """Every language's row for every series (series-major), and the parity mode used."""
    if not langs:
        raise ReportError("the corpus has no text")
    ref = next((lg for lg in langs if lg.lang == reference), None)
    if ref is None:
        shown = ", ".join(lg.lang for lg in langs[:8]) + (" ..." if len(langs) > 8 else "")
        raise ReportError(f"--reference {reference}: no such language in the corpus (it has {shown})")
    used = parity_mode(langs, ref, mode)
    out = []
    for k, label in enumerate(labels):
        for lg in langs:
            t = lg.tokens[k]
            tokens = int(t.sum())
            p50, p95 = (float(v) for v in np.percentile(t, [50, 95])) if t.shape[0] else (0.0, 0.0)
            par = parity(lg, ref, k, used)
            out.append(LanguageRow(label, lg.lang, names.get(lg.lang, lg.lang), lg.script, int(t.shape[0]),
                                   int(lg.chars.sum()), int(lg.nbytes.sum()), tokens,
                                   _ratio(tokens, int(lg.chars.sum())), _ratio(tokens, int(lg.nbytes.sum())),
                                   p50, p95, _ratio(lg.fallback[k], tokens), _ratio(lg.unk[k], tokens),
                                   par, par * par))
    return out, used


def script_rows(rows: Sequence[LanguageRow]) -> list[ScriptRow]:
    """Per series and script: its languages summed; scripts by their number of languages, then name."""
    groups: dict[tuple[str, str], list[LanguageRow]] = {}
    for r in rows:
        groups.setdefault((r.series, r.script), []).append(r)
    order = {s: i for i, s in enumerate(dict.fromkeys(r.series for r in rows))}
    out = []
    for (series, script), rs in sorted(groups.items(), key=lambda kv: (order[kv[0][0]], -len(kv[1]), kv[0][1])):
        chars, nbytes, tokens = sum(r.chars for r in rs), sum(r.bytes for r in rs), sum(r.tokens for r in rs)
        med = float(np.median([r.parity for r in rs]))
        out.append(ScriptRow(series, script, len(rs), chars, nbytes, tokens, _ratio(tokens, chars),
                             _ratio(tokens, nbytes), med, med * med))
    return out
