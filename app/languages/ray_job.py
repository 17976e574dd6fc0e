"""The same count on a Ray cluster (the `corpus` extra): Ray Data reads the corpus's files and
runs `count_batch` in its workers; the driver folds the counted rows as the local run does.

`ray.init(address)` joins a running cluster ("127.0.0.1:6379", "ray://host:10001", "auto"); the
workers import tokinspect (installed on every node) and load the series themselves. Reading:
text files with `read_binary_files` (one row per file: its path names the language), Parquet with
`read_parquet`, JSON Lines with `read_json`, Arrow IPC read here and handed over with
`from_arrow`. Order is kept (`preserve_order`), so a language's rows stay in file order.

Does not: start or stop a cluster, or ship tokinspect to the nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .corpus import Source, read_table
from .counting import RowCounts, count_batch, from_columns, to_columns
from .optional import need
from .series import Series


def count_text_files(batch: Any, series: list[Series]) -> Any:
    """A batch of read_binary_files rows (path, bytes) -> counted rows (pyarrow Table)."""
    import pyarrow as pa

    from .corpus import decode

    paths = batch.column("path").to_pylist()
    texts = [decode(b, Path(p)) for p, b in zip(paths, batch.column("bytes").to_pylist())]
    return pa.table(to_columns(count_batch([Path(p).stem for p in paths], texts, series), len(series)))


def count_table(batch: Any, series: list[Series], lang_column: str, text_column: str) -> Any:
    """A batch of (language, text) rows -> counted rows (pyarrow Table)."""
    import pyarrow as pa

    rows = count_batch(batch.column(lang_column).to_pylist(), batch.column(text_column).to_pylist(), series)
    return pa.table(to_columns(rows, len(series)))


def _dataset(ray: Any, src: Source) -> Any:
    files = [str(f.resolve()) for f in src.files]
    if src.kind == "text":
        return ray.data.read_binary_files(files, include_paths=True)
    if src.kind == "parquet":
        return ray.data.read_parquet(files)
    if src.kind == "json":
        return ray.data.read_json(files, lines=True)
    return ray.data.from_arrow([read_table(f, "arrow") for f in src.files])


def run_ray(src: Source, series: Sequence[Series], address: str, workers: int = 2,
            batch_size: int = 16) -> list[RowCounts]:
    ray = need("ray", "--ray")
    need("ray.data", "--ray")
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = True
    ds = _dataset(ray, src)
    # one Parquet file is one block, and a block is one task: split it so `workers` tasks share it
    ds = ds.repartition(max(2, workers * 4))
    if src.kind == "text":
        fn, kwargs = count_text_files, {"series": list(series)}
    else:
        missing = [c for c in (src.lang_column, src.text_column) if c not in ds.columns()]
        if missing:
            raise ValueError(f"{src.files[0]}: no column {missing[0]!r} (columns: {', '.join(ds.columns())})")
        fn, kwargs = count_table, {"series": list(series), "lang_column": src.lang_column,
                                   "text_column": src.text_column}
    counted = ds.map_batches(fn, fn_kwargs=kwargs, batch_format="pyarrow", batch_size=batch_size,
                             concurrency=workers, num_cpus=1)
    table = ray.data.Dataset.to_arrow_refs(counted)
    import pyarrow as pa

    whole = pa.concat_tables(ray.get(table)) if table else pa.table({})
    return from_columns({name: whole.column(name).to_pylist() for name in whole.column_names}, len(series))
