"""The plain run: the corpus read here and counted in this process, or in N worker processes.

Workers are spawned processes (not forked: the window runs this from a thread), each loading the
series once (series.load caches per process); rows go out in order and come back by index, so
the result does not depend on which worker was faster.

Does not: use HF `datasets` or Ray (hf_datasets.py, ray_job.py).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

from .corpus import Row, Source, read_rows
from .counting import RowCounts, count_row
from .progress import Progress
from .series import Series

MAX_WORKERS = 64


def _size(r: Row) -> int:
    return len(r.text.encode("utf-8", "surrogatepass"))


def count_rows(rows: Sequence[Row], series: Sequence[Series], workers: int = 1,
               progress: Progress | None = None) -> list[RowCounts]:
    """Every row counted, in corpus order."""
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"--workers {workers}: between 1 and {MAX_WORKERS}")
    if workers == 1 or len(rows) < 2:
        out = []
        for r in rows:
            if progress is not None:
                progress.check()
            out.append(count_row(r.lang, r.text, series))
            if progress is not None:
                progress.advance(_size(r))
        return out
    results: list[RowCounts | None] = [None] * len(rows)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        pending: dict[Future[RowCounts], int] = {pool.submit(count_row, r.lang, r.text, list(series)): i
                                                 for i, r in enumerate(rows)}
        try:
            while pending:
                done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for f in done:
                    i = pending.pop(f)
                    results[i] = f.result()
                    if progress is not None:
                        progress.advance(_size(rows[i]))
                if progress is not None:
                    progress.check()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return [r for r in results if r is not None]


def run_local(src: Source, series: Sequence[Series], workers: int = 1,
              progress: Progress | None = None) -> list[RowCounts]:
    rows = list(read_rows(src))
    if progress is not None:
        progress.total = sum(_size(r) for r in rows)
    return count_rows(rows, series, workers, progress)
