"""One row of a corpus counted: its lines' characters, bytes and, for each series, tokens per
line, byte-fallback and `<unk>` tokens. The one function every run path calls (`count_row`,
`count_batch`), so the local run, the `datasets` map and the Ray tasks produce the same records.

Each line is encoded on its own, without special tokens (add_special_tokens=False: the text's
own cost, not the template's).

Does not: aggregate (metrics.py), or read files (corpus.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .corpus import lines
from .scripts import script_counts
from .series import Series, load, masks


@dataclass(frozen=True)
class SeriesCounts:
    tokens: tuple[int, ...]    # per line
    fallback: int              # byte-fallback tokens
    unk: int                   # <unk> tokens


@dataclass(frozen=True)
class RowCounts:
    lang: str
    chars: tuple[int, ...]     # per line, code points
    nbytes: tuple[int, ...]    # per line, UTF-8 bytes
    scripts: dict[str, int]    # characters per script (scripts.py)
    series: tuple[SeriesCounts, ...]


def count_series(s: Series, ls: Sequence[str]) -> SeriesCounts:
    tok = load(s)
    fallback, unk = masks(s)
    # ids only: a count needs no offsets, and the engine skips computing them
    encs = tok.encode_batch_ids(list(ls), add_special_tokens=False, encoder=s.encoder) if ls else []
    per_line = tuple(len(e) for e in encs)
    ids = np.concatenate(encs) if encs else np.zeros(0, np.uint32)
    ids = np.minimum(ids, fallback.shape[0] - 1)   # the masks' last slot: ids past the vocabulary
    return SeriesCounts(per_line, int(fallback[ids].sum()), int(unk[ids].sum()))


def count_row(lang: str, text: str, series: Sequence[Series]) -> RowCounts:
    ls = lines(text)
    return RowCounts(lang, tuple(len(x) for x in ls), tuple(len(x.encode("utf-8", "surrogatepass")) for x in ls),
                     script_counts("".join(ls)), tuple(count_series(s, ls) for s in series))


def count_batch(langs: Sequence[str], texts: Sequence[str], series: Sequence[Series]) -> list[RowCounts]:
    return [count_row(lang, text, series) for lang, text in zip(langs, texts)]


# ---- the records as plain columns (a datasets map's output, a Ray batch's) --------------------
def to_columns(rows: Sequence[RowCounts], n_series: int) -> dict[str, list[object]]:
    cols: dict[str, list[object]] = {"lang": [r.lang for r in rows], "chars": [list(r.chars) for r in rows],
                                     "nbytes": [list(r.nbytes) for r in rows],
                                     "script_names": [list(r.scripts) for r in rows],
                                     "script_counts": [list(r.scripts.values()) for r in rows]}
    for k in range(n_series):
        cols[f"tokens_{k}"] = [list(r.series[k].tokens) for r in rows]
        cols[f"fallback_{k}"] = [r.series[k].fallback for r in rows]
        cols[f"unk_{k}"] = [r.series[k].unk for r in rows]
    return cols


def _ints(values: object) -> tuple[int, ...]:
    return tuple(int(v) for v in values)  # type: ignore[attr-defined]


def from_columns(cols: dict[str, Sequence[Any]], n_series: int) -> list[RowCounts]:
    out = []
    for i, lang in enumerate(cols["lang"]):
        scripts = dict(zip(cols["script_names"][i], _ints(cols["script_counts"][i])))
        series = tuple(SeriesCounts(_ints(cols[f"tokens_{k}"][i]), int(cols[f"fallback_{k}"][i]),
                                    int(cols[f"unk_{k}"][i])) for k in range(n_series))
        out.append(RowCounts(str(lang), _ints(cols["chars"][i]), _ints(cols["nbytes"][i]), scripts, series))
    return out
