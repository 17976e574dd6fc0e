"""The report written out: CSV (one row per series and language; the scripts in a second file),
JSON (everything), a self-contained HTML page (tables and inline SVG charts: no scripts, no
network), and the plain-text table the CLI prints.

Does not: compute a figure (metrics.py has them all).
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import unicodedata
from collections.abc import Callable
from dataclasses import asdict, fields
from pathlib import Path

from .metrics import LanguageRow, ScriptRow
from .run import Report

FORMATS = (".csv", ".json", ".html")
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f")
PARITY_NOTE = {"document": "parity: tokens over the reference's, whole documents (same content, own line breaks)",
               "lines": "parity: mean over aligned lines of tokens over the reference line's tokens"}


def _csv(rows: list[LanguageRow] | list[ScriptRow], kind: type) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([f.name for f in fields(kind)])
    for r in rows:
        w.writerow([getattr(r, f.name) for f in fields(kind)])
    return buf.getvalue()


def to_csv(rep: Report) -> str:
    return _csv(rep.languages, LanguageRow)


def scripts_csv(rep: Report) -> str:
    return _csv(rep.scripts, ScriptRow)


def to_json(rep: Report) -> str:
    return json.dumps({"corpus": rep.corpus, "kind": rep.kind, "engine": rep.options.engine,
                       "workers": rep.options.workers, "reference": rep.options.reference,
                       "parity_mode": rep.parity_mode, "parity_note": PARITY_NOTE[rep.parity_mode],
                       "series": rep.series, "cache_hit": rep.cache_hit,
                       "languages": [r.as_dict() for r in rep.languages],
                       "scripts": [r.as_dict() for r in rep.scripts]}, ensure_ascii=False, indent=1)


def write(rep: Report, path: str | Path) -> list[Path]:
    """Writes the report in the format its suffix names; returns the files written."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".csv":
        p.write_text(to_csv(rep), encoding="utf-8")
        s = p.with_name(p.stem + ".scripts.csv")
        s.write_text(scripts_csv(rep), encoding="utf-8")
        return [p, s]
    if suffix == ".json":
        p.write_text(to_json(rep), encoding="utf-8")
        return [p]
    if suffix == ".html":
        p.write_text(to_html(rep), encoding="utf-8")
        return [p]
    raise ValueError(f"{p}: the output's suffix names its format: one of {', '.join(FORMATS)}")


# ---- plain text --------------------------------------------------------------------------------
# the printed table's columns: (header, width in terminal columns, left-aligned)
LANGUAGE_COLUMNS = (("lang", 18, True), ("script", 11, True), ("tokens", 8, False), ("tok/char", 8, False),
                    ("tok/byte", 8, False), ("p50", 6, False), ("p95", 7, False), ("fallback", 8, False),
                    ("unk", 6, False), ("parity", 7, False), ("attn", 7, False))
SCRIPT_COLUMNS = (("script", 18, True), ("langs", 5, False), ("tokens", 9, False), ("tok/char", 8, False),
                  ("median parity", 13, False))
HEADERS = tuple(dict.fromkeys(h for h, _w, _l in (*LANGUAGE_COLUMNS, *SCRIPT_COLUMNS)))


def _columns(s: str) -> int:
    """Terminal columns of s (East Asian wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


def _row(cells: list[str], columns: tuple[tuple[str, int, bool], ...], widths: list[int]) -> str:
    out = []
    for c, (_h, _w, left), w in zip(cells, columns, widths):
        pad = " " * max(0, w - _columns(c))
        out.append(c + pad if left else pad + c)
    return "  " + " ".join(out)


def text_table(rep: Report, first: int | None = None, header: Callable[[str], str] = str) -> str:
    """Per series: languages by parity (highest first), then the scripts. `header`: a column's name in
    the reader's language (a column is as wide as its name, when the name is the wider)."""
    lang_heads = [header(h) for h, _w, _l in LANGUAGE_COLUMNS]
    lang_widths = [max(w, _columns(h)) for h, (_e, w, _l) in zip(lang_heads, LANGUAGE_COLUMNS)]
    script_heads = [header(h) for h, _w, _l in SCRIPT_COLUMNS]
    script_widths = [max(w, _columns(h)) for h, (_e, w, _l) in zip(script_heads, SCRIPT_COLUMNS)]
    out = [f"{rep.corpus}: {len(rep.rows_of(rep.series[0]))} languages, reference {rep.options.reference}; "
           f"{PARITY_NOTE[rep.parity_mode]}"]
    for s in rep.series:
        rows = sorted(rep.rows_of(s), key=lambda r: (-r.parity, r.lang))
        shown = rows if first is None else rows[:first]
        out.append("")
        out.append(f"{s}")
        out.append(_row(lang_heads, LANGUAGE_COLUMNS, lang_widths))
        for r in shown:
            out.append(_row([r.lang[:18], r.script[:11], f"{r.tokens}", f"{r.tokens_per_char:.3f}",
                             f"{r.tokens_per_byte:.3f}", f"{r.p50:.1f}", f"{r.p95:.1f}",
                             f"{r.byte_fallback_share:.2%}", f"{r.unk_share:.2%}", f"{r.parity:.3f}",
                             f"{r.attention_cost:.3f}"], LANGUAGE_COLUMNS, lang_widths))
        if len(shown) < len(rows):
            out.append(f"  ... {len(rows) - len(shown)} more (all of them: -o report.csv)")
        out.append(_row(script_heads, SCRIPT_COLUMNS, script_widths))
        for sr in (x for x in rep.scripts if x.series == s):
            out.append(_row([sr.script[:18], f"{sr.languages}", f"{sr.tokens}", f"{sr.tokens_per_char:.3f}",
                             f"{sr.median_parity:.3f}"], SCRIPT_COLUMNS, script_widths))
    return "\n".join(out) + "\n"


# ---- HTML --------------------------------------------------------------------------------------
def _bars_svg(labels: list[str], series: list[str], values: list[list[float]], title: str, log: bool) -> str:
    """Horizontal grouped bars, one group per label; log: a log10 axis with 1 at the origin line."""
    row_h, bar_h = 6 + 9 * len(series), 8
    left, width, top = 180, 560, 30 + 11 * len(series)
    height = top + row_h * len(labels) + 30
    vals = [v for vs in values for v in vs if v > 0]
    if log:
        lo = min([math.log10(v) for v in vals] + [0.0])
        hi = max([math.log10(v) for v in vals] + [0.0])
        lo, hi = math.floor(lo * 4) / 4, math.ceil(hi * 4) / 4 or 0.25
    else:
        lo, hi = 0.0, max(vals + [1e-9])

    def x(v: float) -> float:
        t = (math.log10(v) if log else v) if v > 0 else lo
        return left + width * (t - lo) / (hi - lo if hi > lo else 1)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" height="{height}" '
             f'font-family="sans-serif" font-size="10">',
             f'<text x="{left}" y="14" font-size="12" font-weight="bold">{html.escape(title)}</text>']
    for k, s in enumerate(series):
        parts.append(f'<text x="{left + width - 150}" y="{14 + 11 * k}" fill="{PALETTE[k % len(PALETTE)]}">'
                     f'■ {html.escape(s)}</text>')
    origin = x(1.0) if log else left
    for i, lb in enumerate(labels):
        y0 = top + i * row_h
        parts.append(f'<text x="{left - 4}" y="{y0 + row_h / 2 + 3:.1f}" text-anchor="end">{html.escape(lb)}</text>')
        for k, v in enumerate(values[i]):
            xv = x(v)
            a, b = sorted((origin, xv))
            parts.append(f'<rect x="{a:.1f}" y="{y0 + 3 + k * 9}" width="{max(b - a, 0.5):.1f}" height="{bar_h}" '
                         f'fill="{PALETTE[k % len(PALETTE)]}"><title>{html.escape(lb)} · {html.escape(series[k])}: '
                         f'{v:.3f}</title></rect>')
    y_axis = top + row_h * len(labels) + 4
    ticks = [10 ** (lo + (hi - lo) * j / 4) for j in range(5)] if log else [hi * j / 4 for j in range(5)]
    for t in ticks:
        parts.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{y_axis}" stroke="#ccc"/>')
        for y in (top - 3, y_axis + 12):     # the scale above the bars and below them
            parts.append(f'<text x="{x(t):.1f}" y="{y}" text-anchor="middle">{t:.2f}</text>')
    if log:
        parts.append(f'<line x1="{origin:.1f}" y1="{top}" x2="{origin:.1f}" y2="{y_axis}" stroke="#000"/>')
    parts.append("</svg>")
    return "\n".join(parts)


def _table(rows: list[dict[str, object]]) -> str:
    if not rows:
        return "<p>(none)</p>"
    head = "".join(f"<th>{html.escape(k)}</th>" for k in rows[0])
    body = []
    for r in rows:
        cells = "".join(f"<td>{v:.4g}</td>" if isinstance(v, float) else f"<td>{html.escape(str(v))}</td>"
                        for v in r.values())
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def to_html(rep: Report) -> str:
    first = rep.series[0]
    order = [r.lang for r in sorted(rep.rows_of(first), key=lambda r: (-r.parity, r.lang))]
    by = {(r.series, r.lang): r for r in rep.languages}
    names = {r.lang: r.name for r in rep.languages}
    labels = [f"{lang} {names[lang]}"[:30] for lang in order]
    parity = [[by[(s, lang)].parity for s in rep.series] for lang in order]
    scripts = list(dict.fromkeys(r.script for r in rep.scripts))
    sby = {(r.series, r.script): r for r in rep.scripts}
    tpc = [[sby[(s, sc)].tokens_per_char if (s, sc) in sby else 0.0 for s in rep.series] for sc in scripts]
    opts = asdict(rep.options)
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>tokinspect languages: {html.escape(Path(rep.corpus).name)}</title>",
        "<style>body{font-family:sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}th{background:#f4f4f4}"
        "td:nth-child(-n+4){text-align:left}</style></head><body>",
        "<h1>What the tokenizer costs each language</h1>",
        f"<p>Corpus <code>{html.escape(rep.corpus)}</code> ({html.escape(rep.kind)}), "
        f"{len(order)} languages; reference <b>{html.escape(rep.options.reference)}</b>; "
        f"{html.escape(PARITY_NOTE[rep.parity_mode])}. Attention cost = parity². "
        f"Engine {html.escape(str(opts['engine']))}, {opts['workers']} worker(s). "
        f"Series: {html.escape(', '.join(rep.series))}.</p>",
        "<h2>Per script</h2>",
        _bars_svg(scripts, rep.series, tpc, "tokens per character, by script", log=False),
        _table([r.as_dict() for r in rep.scripts]),
        "<h2>Parity per language (log scale; the reference at 1)</h2>",
        _bars_svg(labels, rep.series, parity, f"parity against {rep.options.reference}", log=True),
        "<h2>Per language</h2>",
        _table([r.as_dict() for r in rep.languages]),
        "</body></html>", ""])
