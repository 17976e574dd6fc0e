"""Corpus readers: a corpus becomes rows of (language, text), in file order.

Kinds, chosen by the path: a folder of `.txt` files (one language each, named by the file's stem,
as UDHR's `udhr/txt/<code>.txt`); one `.txt` file (one language: its stem); JSON Lines (`.jsonl`),
Parquet (`.parquet`) or Arrow IPC (`.arrow`) with a language column and a text column (rows of one
language in file order; a row may hold many lines). The folder's index, when there is one
(`MANIFEST.tsv` beside the files or in the folder above, tab-separated with `code` and `name`
columns, as UDHR's), names the languages.

Lines are the unit of the per-line figures: a row's text split at "\\n", a trailing "\\r" dropped,
empty lines skipped (`lines`). Every path that counts (local, datasets, Ray) splits with it.

Does not: read Parquet or Arrow without pyarrow (the `corpus` extra), or guess a language from text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .optional import need

TABLE_KINDS = {".jsonl": "json", ".parquet": "parquet", ".arrow": "arrow"}
INDEX_NAMES = ("MANIFEST.tsv", "index.tsv")


class CorpusError(ValueError):
    """A corpus that cannot be read, said in one sentence naming the file (and line or column)."""


@dataclass(frozen=True)
class Row:
    lang: str
    text: str


@dataclass(frozen=True)
class Source:
    """Where a corpus is: its kind ("text", "json", "parquet", "arrow"), its files, the columns."""

    path: Path
    kind: str
    files: tuple[Path, ...]
    lang_column: str = "lang"
    text_column: str = "text"
    names: dict[str, str] = field(default_factory=dict)   # language code -> name, from the index


def lines(text: str) -> list[str]:
    """The lines of a row's text: split at "\\n", a trailing "\\r" dropped, empty lines skipped."""
    out = []
    for ln in text.split("\n"):
        if ln.endswith("\r"):
            ln = ln[:-1]
        if ln:
            out.append(ln)
    return out


def _index_names(folder: Path) -> dict[str, str]:
    for d in (folder, folder.parent):
        for name in INDEX_NAMES:
            p = d / name
            if p.is_file():
                return _read_index(p)
    return {}


def _read_index(p: Path) -> dict[str, str]:
    names: dict[str, str] = {}
    header: list[str] | None = None
    for ln in p.read_text(encoding="utf-8", errors="replace").splitlines():
        if not ln.strip() or ln.startswith("#"):
            continue
        cells = ln.split("\t")
        if header is None:
            header = cells
            if "code" not in header or "name" not in header:
                return {}
            continue
        row = dict(zip(header, cells))
        if row.get("code") and row.get("name"):
            names[row["code"]] = row["name"]
    return names


def open_source(path: str | Path, lang_column: str = "lang", text_column: str = "text") -> Source:
    """The corpus at `path`, checked to exist and be of a known kind (its contents are read later)."""
    p = Path(path)
    if p.is_dir():
        files = tuple(sorted(f for f in p.iterdir() if f.suffix == ".txt" and f.is_file()))
        if not files:
            raise CorpusError(f"{p}: a folder without .txt files (a corpus folder holds one <language>.txt each)")
        return Source(p, "text", files, lang_column, text_column, _index_names(p))
    if not p.exists():
        raise CorpusError(f"{p}: no such file or folder")
    suffix = p.suffix.lower()
    if suffix == ".txt":
        return Source(p, "text", (p,), lang_column, text_column, _index_names(p.parent))
    if suffix in TABLE_KINDS:
        return Source(p, TABLE_KINDS[suffix], (p,), lang_column, text_column, _index_names(p.parent))
    raise CorpusError(f"{p}: not a corpus (a folder of .txt files, a .txt, .jsonl, .parquet or .arrow file)")


def decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_rows(src: Source) -> Iterator[Row]:
    """Every row of the corpus, in file order."""
    for f in src.files:
        if src.kind == "text":
            yield Row(f.stem, decode(f.read_bytes(), f))
        elif src.kind == "json":
            yield from _json_rows(f, src)
        else:
            yield from _table_rows(f, src)


def _cell(value: object, f: Path, where: str, column: str) -> str:
    if not isinstance(value, str):
        raise CorpusError(f"{f}: {where}: column {column!r} is {type(value).__name__}, not a string")
    return value


def _json_rows(f: Path, src: Source) -> Iterator[Row]:
    with open(f, "rb") as fh:
        for k, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(decode(raw, f))
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{f}: line {k}: not JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(obj, dict):
                raise CorpusError(f"{f}: line {k}: not a JSON object")
            for col in (src.lang_column, src.text_column):
                if col not in obj:
                    raise CorpusError(f"{f}: line {k}: no {col!r} field")
            yield Row(_cell(obj[src.lang_column], f, f"line {k}", src.lang_column),
                      _cell(obj[src.text_column], f, f"line {k}", src.text_column))


KIND_NAMES = {"parquet": "a Parquet", "arrow": "an Arrow IPC"}


def _refusal(f: Path, kind: str, exc: BaseException) -> CorpusError:
    why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return CorpusError(f"{f}: not {KIND_NAMES[kind]} file ({why})")


def read_table(f: Path, kind: str, schema_only: bool = False) -> object:
    """A Parquet or Arrow IPC file as a pyarrow Table, or only its schema (pyarrow: the `corpus` extra)."""
    pa = need("pyarrow", f"reading {f.name}")
    try:
        if kind == "parquet":
            pq = need("pyarrow.parquet", f"reading {f.name}")
            return pq.read_schema(str(f)) if schema_only else pq.read_table(str(f))
        with pa.memory_map(str(f)) as mm:
            try:
                reader = pa.ipc.open_file(mm)
            except pa.ArrowInvalid:
                mm.seek(0)
                reader = pa.ipc.open_stream(mm)
            return reader.schema if schema_only else reader.read_all()
    except (pa.ArrowInvalid, pa.ArrowIOError, OSError) as exc:
        raise _refusal(f, kind, exc) from None


def _table_rows(f: Path, src: Source) -> Iterator[Row]:
    table = read_table(f, src.kind)
    names = list(table.column_names)  # type: ignore[attr-defined]
    for col in (src.lang_column, src.text_column):
        if col not in names:
            raise CorpusError(f"{f}: no column {col!r} (columns: {', '.join(names)})")
    langs = table.column(src.lang_column).to_pylist()  # type: ignore[attr-defined]
    texts = table.column(src.text_column).to_pylist()  # type: ignore[attr-defined]
    for k, (lang, text) in enumerate(zip(langs, texts)):
        yield Row(_cell(lang, f, f"row {k}", src.lang_column), _cell(text, f, f"row {k}", src.text_column))
