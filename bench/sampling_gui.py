"""Sampling tab update rate while a slider is dragged (a reported figure, not a test).

151,936 random-normal logits (Qwen2.5's padded vocabulary size), each preset:
the temperature slider is stepped 60 times; each step waits until the tab has
the new view and has painted it (drag-and-wait: one update per step), and the
figure is updates per second = steps / wall time, with the parts: the worker's
time (all stages of the chosen preset + the four engines side by side +
top-N labels) and the UI-thread time to redraw the plots and the table. A
second run moves the slider as fast as events allow (a real fast drag): the
worker supersedes stale requests, so the figure there is frames shown per
second and how many requests were dropped.

    QT_QPA_PLATFORM=offscreen python bench/sampling_gui.py [--steps N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

VOCAB = 151_936


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--demo", action="store_true", help="also drag over the bigram demo's row (ties almost everywhere)")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication([])

    def report(*a: object, **k: object) -> None:  # a modal box would stall the run: print instead
        raise SystemExit(f"error shown by the window: {a[2] if len(a) > 2 else a}")

    QMessageBox.critical = staticmethod(report)  # type: ignore[method-assign]
    from tokinspect.sampling import LogitsSource
    from tokinspect.widgets.main_window import MainWindow

    tmp = Path(tempfile.mkdtemp(prefix="tokinspect-bench-"))
    win = MainWindow(QSettings(str(tmp / "s.ini"), QSettings.Format.IniFormat))
    win.resize(1600, 1000)
    win.show()
    win.open_default()

    def wait(cond: object, limit: float = 60.0) -> None:
        end = time.monotonic() + limit
        while not cond() and time.monotonic() < end:  # type: ignore[operator]
            app.processEvents()
            time.sleep(0.0005)  # an idle event loop sleeps: a busy one would starve the worker of the GIL
        if not cond():  # type: ignore[operator]
            raise SystemExit("timed out")

    wait(lambda: win.doc.tokenizer is not None)
    win.set_text("the cat sat on the mat")
    m, pane = win.sampling_model, win.sampling.pane
    win.tabs.setCurrentWidget(win.sampling)
    # the first visit starts the bigram demo in the background: let it land first, or it would
    # replace the logits below halfway through (the demo's rows are ties almost everywhere)
    wait(lambda: m.source is not None and not m.busy)
    demo = m.source
    logits = np.random.default_rng(0).normal(size=VOCAB).astype(np.float32) * 2.5
    sources = [LogitsSource.from_array(logits, "random normal x2.5")]
    if args.demo:
        sources.append(demo)
    views: list[float] = []
    m.changed.connect(lambda: views.append(m.view.seconds if m.view else 0.0))
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    for src in sources:
        m.set_source(src)
        run_source(app, m, pane, views, wait, args.steps, src.label, src.vocab)
    win.close()
    return 0


def run_source(app: QApplication, m: object, pane: object, views: list[float], wait: object, steps: int,
               label: str, vocab: int) -> None:
    print(f"\nSampling tab, {label} ({vocab:,} logits), temperature slider, {steps} steps "
          f"(drag-and-wait) / as fast as events go")
    print(f"{'preset':<10} {'updates/s':>10} {'worker ms':>10} {'UI ms':>7}   {'fast drag: frames/s':>20} "
          f"{'dropped':>8} {'table ms':>9}")
    for preset in ("ds4", "llama.cpp", "kestrel", "hf", "custom"):
        pane.preset.setCurrentText(preset)
        wait(lambda p=preset: m.view is not None and m.view.result.preset == p and not m.busy)
        views.clear()
        ui: list[float] = []
        t0 = time.perf_counter()
        for k in range(steps):
            before = len(views)
            pane.t_slider.setValue(40 + 2 * k)                  # a drag: T 0.40, 0.42, ... one step each
            wait(lambda b=before: len(views) > b and not m._runner.running)
            u0 = time.perf_counter()
            app.processEvents()                                 # the repaint
            ui.append(time.perf_counter() - u0)
        wall = time.perf_counter() - t0
        worker = statistics.median(views) * 1000
        # fast drag: as many slider moves as events allow for 2 s; count the views that arrive
        views.clear()
        moves = 0
        t1 = time.perf_counter()
        while time.perf_counter() - t1 < 2.0:
            pane.t_slider.setValue(10 + moves % 200)
            moves += 1
            app.processEvents()
        fast = time.perf_counter() - t1
        wait(lambda: not m.busy)
        # the engines table follows once the plots rest: its latency after the last move
        t2 = time.perf_counter()
        pane.t_slider.setValue(pane.t_slider.value() + 1)
        wait(lambda: m.engines is not None and m.engines.settings == m.settings and not m.busy)
        table = (time.perf_counter() - t2) * 1000
        print(f"{preset:<10} {steps / wall:>10.1f} {worker:>10.1f} {statistics.median(ui) * 1000:>7.1f}   "
              f"{len(views) / fast:>20.1f} {moves - len(views):>8} {table:>9.0f}")


if __name__ == "__main__":
    raise SystemExit(main())
