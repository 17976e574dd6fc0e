"""Tokens of one encoding as CSV or JSON (the token table's columns)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from ..core.encoding import Encoding


def rows(enc: Encoding) -> list[dict[str, object]]:
    out = []
    for i, (tid, piece, raw) in enumerate(zip(enc.ids.tolist(), enc.tokens, enc.token_bytes)):
        c, b = enc.offsets[i].tolist(), enc.byte_offsets[i].tolist()
        out.append({"index": i, "id": tid, "piece": piece, "text": raw.decode("utf-8", errors="replace"),
                    "hex": raw.hex(" "), "char_start": c[0], "char_end": c[1], "byte_start": b[0],
                    "byte_end": b[1], "special": bool(enc.special_mask[i])})
    return out


def to_csv(enc: Encoding) -> str:
    buf = io.StringIO()
    data = rows(enc)
    fields = list(data[0]) if data else ["index", "id", "piece", "text", "hex", "char_start", "char_end",
                                         "byte_start", "byte_end", "special"]
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(data)
    return buf.getvalue()


def to_json(enc: Encoding) -> str:
    return json.dumps(rows(enc), ensure_ascii=False, indent=1)


def write(enc: Encoding, path: str | Path) -> None:
    """Writes CSV or JSON, chosen by the file's suffix (.json; anything else is CSV)."""
    p = Path(path)
    p.write_text(to_json(enc) if p.suffix.lower() == ".json" else to_csv(enc), encoding="utf-8")


def ids_list(enc: Encoding, rows_: list[int] | None = None) -> str:
    """"[9707, 1879]" for copying: the given rows, or all."""
    ids = enc.ids.tolist()
    return "[" + ", ".join(str(ids[r]) for r in (rows_ if rows_ is not None else range(len(ids)))) + "]"


FILTERS = "CSV (*.csv);;JSON (*.json)"


def path_for(path: str | Path, selected_filter: str = "") -> Path:
    """The path to write: a name without .csv/.json gets the suffix of the chosen filter."""
    p = Path(path)
    if p.suffix.lower() in (".csv", ".json"):
        return p
    return p.with_name(p.name + (".json" if "json" in selected_filter.lower() else ".csv"))
