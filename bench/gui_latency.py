"""Keystroke-to-repaint latency of the text pane (a reported figure, not a test).

For each text size and typing position (the end, the middle): load the text, wait until it is
tokenized, then type one character (QTest.keyClick) and time until the text pane has repainted
with the new tokens (the end of its viewport's first paint after the new analysis landed).
Reports the median and p90 over the keystrokes, also to the end of the whole frame (the token
table's, byte pane's and merge view's paints after the text pane's), and the split of the median
keystroke's time:

- wait: keystroke -> the encode job starts (0 unless an earlier job still runs: edits coalesce);
- worker: the job itself (Analysis.seconds: the region re-encode or full encode, the derived arrays);
- queue: the job's end -> its result handled on the UI thread;
- fan-out: the UI thread's updates of every pane (the token table's rows, the text pane's spans,
  the byte pane, the status bar, the selection), measured around Document.analysisChanged;
- paint: the text pane's paint event itself.

    QT_QPA_PLATFORM=offscreen python bench/gui_latency.py [--rounds N] [--sizes 2000,100000,1000000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtGui import QPaintEvent  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

SHARED = Path(os.environ.get("TOKINSPECT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
WAR_AND_PEACE = SHARED / "ollama" / "war-and-peace.txt"


def sample(n: int) -> str:
    base = WAR_AND_PEACE.read_text(encoding="utf-8") if WAR_AND_PEACE.exists() else (
        "Hello naïve café, the quick brown fox jumps over the lazy dog. 你好，世界！ 3.14159\n" * 2000)
    while len(base) < n:
        base += base
    return base[:n]


def wait(app: QApplication, cond: object, timeout: float = 60.0) -> None:
    """Runs the event loop until cond() holds. It sleeps between events (as the window's own loop
    does) instead of spinning: a spinning loop holds the GIL the worker needs between its steps."""
    end = time.perf_counter() + timeout
    tick = QTimer()
    tick.start(2)   # wakes the loop to check cond() even when no event comes
    while not cond() and time.perf_counter() < end:  # type: ignore[operator]
        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    tick.stop()


def p90(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(0.9 * (len(s) - 1)))]


class Marks:
    """Time stamps of one keystroke's path, set by slots and wrappers."""

    def __init__(self) -> None:
        self.started = self.landed = self.fanned = self.paint_start = self.paint_end = self.frame_end = 0.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--sizes", default="2000,100000,1000000")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from tokinspect.widgets.main_window import MainWindow

    win = MainWindow(QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat))
    win.resize(1280, 800)
    win.show()
    win.open_default()
    wait(app, lambda: win.doc.tokenizer is not None)
    m = Marks()
    doc = win.doc
    # the worker's start: the Runner's submit; the result on the UI thread: busy(False) fires before
    # Document's handler; the fan-out's end: a slot connected after every pane's
    submit = doc._encode.submit

    def timed_submit(fn: object) -> int:
        m.started = time.perf_counter()
        return submit(fn)  # type: ignore[arg-type]

    doc._encode.submit = timed_submit  # type: ignore[method-assign]
    doc._encode.busy.connect(lambda on: setattr(m, "landed", time.perf_counter()) if not on else None)
    doc.analysisChanged.connect(lambda: setattr(m, "fanned", time.perf_counter()))
    def timed(widget: object, text_pane: bool) -> None:
        paint = widget.paintEvent  # type: ignore[attr-defined]

        def timed_paint(e: QPaintEvent) -> None:
            t = time.perf_counter()
            paint(e)
            if text_pane:
                m.paint_start, m.paint_end = t, time.perf_counter()
            m.frame_end = time.perf_counter()

        widget.paintEvent = timed_paint  # type: ignore[attr-defined]

    timed(win.text, True)
    for pane in (win.table, win.bytes, win.trace.steps):
        timed(pane, False)
    with open("/proc/loadavg") if Path("/proc/loadavg").exists() else open(os.devnull) as fh:
        load = fh.read().split()[:3]
    print(f"platform {app.platformName()}, load average {' '.join(load)}, {args.rounds} keystrokes per case")
    print(f"{'':>26} | {'text pane painted':>15} | {'whole frame':>15} | split of the median (ms)")
    print(f"{'chars':>9} {'at':>6} {'tokens':>8} | {'median':>7} {'p90':>7} | {'median':>7} {'p90':>7} | "
          f"{'wait':>6} {'worker':>6} {'queue':>6} {'fan-out':>6} {'paint':>6}")
    for n in (int(x) for x in args.sizes.split(",")):
        text = sample(n)
        for where in ("end", "middle"):
            win.set_text(text)
            wait(app, lambda text=text: doc.analysis is not None and doc.analysis.text == text and not doc.busy)
            win.text.setFocus()
            c = win.text.textCursor()
            if where == "end":
                c.movePosition(c.MoveOperation.End)
            else:
                c.setPosition(len(text.encode("utf-16-le")) // 4)
            win.text.setTextCursor(c)
            rows, frames = [], []
            for k in range(args.rounds):
                wait(app, lambda: not doc.busy and not doc.trace_pending)   # each keystroke from idle
                app.processEvents()
                before = doc.analysis
                t0 = time.perf_counter()
                QTest.keyClick(win.text, Qt.Key.Key_A if k % 2 == 0 else Qt.Key.Key_Space)
                wait(app, lambda before=before: doc.analysis is not before)
                wait(app, lambda: m.paint_end >= m.fanned)
                for _ in range(3):   # the other panes' paints of the same frame
                    app.processEvents()
                a = doc.analysis
                assert a is not None
                total = (m.paint_end - t0) * 1000
                worker = a.seconds * 1000
                frames.append((max(m.frame_end, m.paint_end) - t0) * 1000)
                rows.append((total, (m.started - t0) * 1000, worker, (m.landed - m.started) * 1000 - worker,
                             (m.fanned - m.landed) * 1000, (m.paint_end - m.paint_start) * 1000))
            totals = [r[0] for r in rows]
            mid = sorted(rows)[len(rows) // 2]
            print(f"{n:>9,} {where:>6} {len(doc.analysis or []):>8,} | {statistics.median(totals):7.1f} "
                  f"{p90(totals):7.1f} | {statistics.median(frames):7.1f} {p90(frames):7.1f} | "
                  + " ".join(f"{x:6.1f}" for x in mid[1:]))
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
