"""kestrel with NaN logits: the draw is the engine's argmax fallback, which can be outside the
final candidates (id 0 when logits[0] is NaN). Checked against the engine's sample_token_pk
(m13253246268-ship-it/kestrel-llm src/core/vllm_transformer.c at commit
fe0b3fe9b2ba53cd1f2127bf57c74f1aa6353f39): the NaN sum makes r NaN, no "r <= cumsum" holds, and
the fallback `best = 0; logits[i] > logits[best]` never moves off a NaN logits[0]. The emulation
draws the same on purpose, and its notes (printed by `tokinspect sample`, the Sampling tab's
tooltips) say why."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from tokinspect.sampling import SamplerSettings, sample

S = SamplerSettings(preset="kestrel", temperature=0.8, top_k=1, top_p=0.9, min_p=0.05, seed=3)


def _engine_fallback_argmax(logits: np.ndarray) -> int:
    """sample_token_pk's fallback, replayed with the same comparisons."""
    best = 0
    for i in range(1, len(logits)):
        if logits[i] > logits[best]:
            best = i
    return best


def _row(nan_at: int) -> np.ndarray:
    x = np.full(100, -5.0, dtype=np.float32)
    x[42] = 3.0
    x[nan_at] = np.nan
    return x


def test_nan_at_id_0_draws_id_0_like_the_engine() -> None:
    x = _row(0)
    res, d = sample(x, S, 50)
    final = res.stages[-1].ids.tolist()
    assert 0 not in final
    assert set(d.ids.tolist()) == {_engine_fallback_argmax(x)} == {0}
    note = next(n for n in res.notes if "final sum is NaN" in n)
    assert "not a final candidate" in note and "logits[0] is NaN" in note and "id 0" in note


def test_nan_elsewhere_draws_the_argmax_of_the_logits() -> None:
    x = _row(7)
    res, d = sample(x, S, 50)
    assert set(d.ids.tolist()) == {_engine_fallback_argmax(x)} == {42}
    note = next(n for n in res.notes if "final sum is NaN" in n)
    assert "id 42" in note and "logits[0] is NaN" not in note


def test_finite_logits_have_no_fallback_note() -> None:
    x = _row(5)
    x[5] = -5.0
    res, d = sample(x, S, 20)
    assert not any("final sum is NaN" in n for n in res.notes)
    assert set(d.ids.tolist()) <= set(res.stages[-1].ids.tolist())


def test_sample_command_says_why(tmp_path: Path) -> None:
    p = tmp_path / "nan0.npy"
    np.save(p, _row(0))
    r = subprocess.run([sys.executable, "-m", "tokinspect", "sample", "--logits", str(p), "--preset", "kestrel",
                        "--top-k", "1", "--draws", "3"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "draws: 0 0 0" in r.stdout
    assert "note: kestrel: the final sum is NaN" in r.stdout and "not a final candidate" in r.stdout


def test_sampling_tab_draws_the_fallback_and_says_why(qtbot, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
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
    x = np.full(w.doc.tokenizer.vocab_size, -5.0, dtype=np.float32)
    x[42], x[0] = 3.0, np.nan
    path = tmp_path / "nan0.npy"
    np.save(path, x)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))
    pane, m = w.sampling.pane, w.sampling_model
    pane.open_button.click()
    qtbot.waitUntil(lambda: m.source is not None and "nan0.npy" in m.source.label and not m.busy, timeout=20_000)
    pane.preset.setCurrentText("kestrel")
    pane.top_k.setValue(1)
    qtbot.waitUntil(lambda: m.view is not None and m.view.result.preset == "kestrel" and not m.busy, timeout=20_000)
    pane.draw_n.setValue(100)
    with qtbot.waitSignal(m.drew, timeout=20_000):
        pane.draw_n_button.click()
    d = m.draw_view
    assert set(d.draws.ids.tolist()) == {0} and not errors
    assert "outside the final candidates" in pane.draw_label.text() and "fallback" in pane.draw_label.text()
