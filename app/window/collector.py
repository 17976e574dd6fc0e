"""Python's cyclic garbage collection on the UI thread only, in a process that runs jobs on Qt's pool.

Why: CPython collects cycles in whichever thread allocates past generation 0's threshold. A window,
menu or dialog that was closed and dropped is often cyclic garbage (a lambda connected to one of its
signals holds it), and collected in a pool thread its C++ destructor runs there. PySide 6.11 then
takes the GIL inside ~QObject (shiboken's Sbk_GetPyOverride) while holding a Qt lock, and the UI
thread, holding the GIL, waits for that lock in its own ~QObject: both wait forever. Seen as a test
run that stopped at 0% CPU with gc_collect_main -> delete_garbage -> ~QObject in a pool thread (a
trace job allocating a list) and runDeletionInMainThread -> ~QAction -> QBasicMutex::lockInternal
in the UI thread.

So once a Runner exists (workers.py installs this), automatic collection is off and a UI-thread
timer collects a generation when its count passes its threshold, as CPython would have, so no other
thread ever runs the collector. Plain reference counting (most garbage) is untouched.

Does not: free anything by itself between ticks (cycles wait up to TICK_MS), nor run without an
event loop (`collect_due` is what the timer calls; a caller with no loop may call it too).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QThread, QTimer

TICK_MS = 250
_NAME = "tokinspect-main-thread-gc"


def collect_due() -> int:
    """Collects the oldest generation whose count passed its threshold (CPython's rule, gcmodule.c
    gc_collect_generations: the oldest such generation, younger ones with it); returns the objects
    found unreachable. Call on the UI thread."""
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if counts[0] <= thresholds[0]:
        return 0
    return gc.collect(max(g for g in range(3) if counts[g] > thresholds[g]))


def install() -> bool:
    """Turns automatic collection off and starts the UI-thread timer, once per application; returns
    whether it is installed. Called in the application's thread (a Runner is made there)."""
    app = QCoreApplication.instance()
    if app is None or QThread.currentThread() != app.thread():
        return False
    if app.findChild(QTimer, _NAME) is not None:
        return True
    timer = QTimer(app)
    timer.setObjectName(_NAME)
    timer.setInterval(TICK_MS)
    timer.timeout.connect(collect_due)
    timer.start()
    gc.disable()
    app.aboutToQuit.connect(gc.enable)   # the interpreter's own exit collects as usual
    return True


def installed() -> bool:
    """Whether install() took effect in this process (its timer runs, automatic collection is off)."""
    app = QCoreApplication.instance()
    return app is not None and app.findChild(QTimer, _NAME) is not None and not gc.isenabled()
