"""The Sampling tab with a .npy that is re-saved smaller while open: run as a child pytest by
tests/test_file_shrinks.py::test_window_sampling_tab_on_a_truncated_npy (so a SIGBUS fails that test
instead of killing the whole run); not collected on its own (the name does not match test_*.py)."""

from __future__ import annotations

import os

import numpy as np


def test_child_window_truncated_npy(qtbot, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from tokinspect.widgets.main_window import MainWindow

    errors: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda parent, title, msg, *a, **k: errors.append(msg)))
    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.show()
    w.open_default()
    qtbot.waitUntil(lambda: w.doc.tokenizer is not None, timeout=20_000)
    w.tabs.setCurrentWidget(w.sampling)
    vocab = w.doc.tokenizer.vocab_size
    path = tmp_path / "steps.npy"
    np.save(path, np.random.default_rng(3).normal(size=(8, vocab)).astype(np.float32))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))
    pane, m = w.sampling.pane, w.sampling_model
    pane.open_button.click()
    qtbot.waitUntil(lambda: m.source is not None and m.source.steps == 8, timeout=20_000)
    qtbot.waitUntil(lambda: m.view is not None and not m.busy, timeout=20_000)
    os.truncate(path, 4096)                          # re-saved smaller while open
    pane.step.setValue(7)                            # the next recompute reads row 7
    qtbot.waitUntil(lambda: bool(errors), timeout=20_000)
    assert "changed while open" in errors[0] and "steps.npy" in errors[0]
    qtbot.waitUntil(lambda: not m.busy, timeout=20_000)
    # still usable: a good file opens and computes
    good = tmp_path / "good.npy"
    np.save(good, np.random.default_rng(4).normal(size=(2, vocab)).astype(np.float32))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(good), "")))
    pane.open_button.click()
    qtbot.waitUntil(lambda: m.source is not None and m.source.steps == 2, timeout=20_000)
    qtbot.waitUntil(lambda: m.view is not None and not m.busy and m.view.result.stages[0].kept == vocab, timeout=20_000)
    assert w.isVisible() and all("changed while open" in e for e in errors)
