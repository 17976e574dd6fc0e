"""Keystroke-to-repaint latency of the text pane (a reported figure, not a test).

For each text size: load the text, wait until it is tokenized, then type one
character at the end (QTest.keyClick) and time until the text pane has
repainted with the new tokens (the first Paint event of its viewport after
the new analysis landed). Also reports the parts: the worker's encode +
derived arrays (Analysis.seconds) and the UI-thread fan-out to all panes.

    QT_QPA_PLATFORM=offscreen python bench/gui_latency.py [--rounds N]
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

from PySide6.QtCore import QEvent, QObject, QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "ollama" / "war-and-peace.txt"


class PaintClock(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.last = 0.0

    def eventFilter(self, obj: QObject, e: QEvent) -> bool:
        if e.type() == QEvent.Type.Paint:
            self.last = time.perf_counter()
        return False


def sample(n: int) -> str:
    base = SHARED.read_text(encoding="utf-8") if SHARED.exists() else (
        "Hello naïve café, the quick brown fox jumps over the lazy dog. 你好，世界！ 3.14159\n" * 2000)
    while len(base) < n:
        base += base
    return base[:n]


def wait(app: QApplication, cond: object, timeout: float = 30.0) -> None:
    end = time.perf_counter() + timeout
    while not cond() and time.perf_counter() < end:  # type: ignore[operator]
        app.processEvents()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--sizes", default="2000,100000")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from tokinspect.widgets.main_window import MainWindow

    win = MainWindow(QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat))
    win.resize(1280, 800)
    win.show()
    win.open_default()
    wait(app, lambda: win.doc.tokenizer is not None)
    clock = PaintClock()
    win.text.viewport().installEventFilter(clock)
    print(f"platform {app.platformName()}, {args.rounds} keystrokes per size (median, max)")
    for n in (int(x) for x in args.sizes.split(",")):
        text = sample(n)
        win.set_text(text)
        wait(app, lambda text=text: win.doc.analysis is not None and win.doc.analysis.text == text)
        win.text.setFocus()
        c = win.text.textCursor()
        c.movePosition(c.MoveOperation.End)
        win.text.setTextCursor(c)
        totals, workers = [], []
        for k in range(args.rounds):
            app.processEvents()
            before = win.doc.analysis
            t0 = time.perf_counter()
            QTest.keyClick(win.text, Qt.Key.Key_A if k % 2 == 0 else Qt.Key.Key_Space)
            wait(app, lambda before=before: win.doc.analysis is not before)
            t_landed = time.perf_counter()
            wait(app, lambda t=t_landed: clock.last >= t)
            totals.append((clock.last - t0) * 1000)
            workers.append(win.doc.analysis.seconds * 1000)
        print(f"{n:>7,} chars, {len(win.doc.analysis):>6,} tokens: keystroke->repaint "
              f"{statistics.median(totals):6.1f} ms (max {max(totals):6.1f}); worker encode+arrays "
              f"{statistics.median(workers):6.1f} ms")
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
