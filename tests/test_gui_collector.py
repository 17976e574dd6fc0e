"""Cyclic garbage is collected on the UI thread only once the window's workers exist
(app/window/collector.py). A closed window collected in a pool thread ran its C++ destructor there,
and PySide's GIL + Qt lock order stopped a whole test run at 0% CPU."""

from __future__ import annotations

import gc
import threading

from tokinspect.window import collector
from tokinspect.window.workers import Runner


class _Canary:
    """A cycle whose finalizer names the thread that collected it."""

    def __init__(self, seen: list[int]) -> None:
        self.seen = seen
        self.me = self

    def __del__(self) -> None:
        self.seen.append(threading.get_ident())


def test_a_job_never_collects_a_cycle(qtbot) -> None:
    runner = Runner()
    assert collector.installed() and not gc.isenabled()
    seen: list[int] = []
    in_job: list[list[int]] = []

    def job(ev: threading.Event, gen: int) -> list[list[int]]:
        _Canary(seen)                      # garbage at once, and only a collection frees it
        keep = [[i] for i in range(200_000)]   # 200,000 allocations: far past generation 0's threshold
        in_job.append(list(seen))          # what was collected while the job ran
        return keep                        # kept (by `done`): the count stays past the threshold

    done: list[object] = []
    runner.finished.connect(done.append)
    runner.submit(job)
    qtbot.waitUntil(lambda: bool(done), timeout=20_000)
    assert in_job == [[]], "the cycle was collected in the pool thread"
    qtbot.waitUntil(lambda: bool(seen), timeout=5 * collector.TICK_MS + 5_000)
    assert seen == [threading.get_ident()], "the cycle was not collected on the UI thread"


def test_collect_due_follows_the_thresholds(qtbot) -> None:
    Runner()
    gc.collect()
    seen: list[int] = []
    _Canary(seen)
    assert collector.collect_due() == 0 and not seen   # generation 0 below its threshold: nothing yet
    keep = [[i] for i in range(gc.get_threshold()[0] + 10)]
    assert collector.collect_due() > 0 and seen == [threading.get_ident()] and keep
