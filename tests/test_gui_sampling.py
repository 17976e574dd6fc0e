"""The Sampling tab driven for real (offscreen): the bigram demo on first
visit, every control (preset, T and its slider, top-k, top-p, min-p, seed,
bars, log scale, custom order and rules), a 2-D .npy with its steps slider,
Draw and Draw N with the chi-square verdict, and the engines side by side."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QFileDialog, QMessageBox  # noqa: E402

from tokinspect.sampling import PRESETS, SamplerSettings, run_stages  # noqa: E402

WAIT = 20_000
TEXT = "the cat sat on the mat. the cat ran to the dog. the cat sat on the cat. the end of the story."


@pytest.fixture
def win(qtbot, tmp_path, monkeypatch):
    from tokinspect.widgets.main_window import MainWindow

    errors: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda parent, title, msg, *a, **k: errors.append(msg)))
    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    w.errors = errors
    qtbot.addWidget(w)
    w.resize(1500, 950)
    w.show()
    w.open_default()
    qtbot.waitUntil(lambda: w.doc.tokenizer is not None, timeout=WAIT)
    w.set_text(TEXT)
    qtbot.waitUntil(lambda: w.doc.analysis is not None and not w.doc.busy, timeout=WAIT)
    w.tabs.setCurrentWidget(w.sampling)
    qtbot.waitUntil(lambda: w.sampling_model.view is not None and not w.sampling_model.busy, timeout=WAIT)
    return w


def settle(qtbot, w) -> None:
    qtbot.waitUntil(lambda: not w.sampling_model.busy, timeout=WAIT)
    qtbot.waitUntil(lambda: w.sampling_model.view is not None
                    and w.sampling_model.view.result.preset == w.sampling_model.settings.preset, timeout=WAIT)


def titles(w) -> list[str]:
    return [p.title for p in w.sampling_model.view.plots]


def test_first_visit_shows_the_bigram_demo(qtbot, win) -> None:
    m, pane = win.sampling_model, win.sampling.pane
    assert m.source is not None and "bigram demo (not a model)" in m.source.label and "'Ġthe'" not in m.source.label
    assert "the Inspect tab's text" in pane.source_label.text()
    v = m.view
    assert v.plots[0].name == "input" and v.plots[-1].name == "final"
    assert [p.name for p in v.plots[1:-1]] == [st.name for st in v.result.stages[1:]]
    shown = [w for w in pane._plots if w.isVisible()]
    assert len(shown) == len(v.plots)
    # the demo's top token is the most frequent follower of " the" in TEXT: " cat" (3 of 7)
    assert v.plots[0].labels[0] == "·cat"
    assert not win.errors


def test_controls_reach_the_sampler(qtbot, win) -> None:
    pane, m = win.sampling.pane, win.sampling_model
    for name in PRESETS:
        if name == "custom":
            continue
        pane.preset.setCurrentText(name)
        settle(qtbot, win)
        assert m.view.result.preset == name
        assert [p.name for p in m.view.plots[1:-1]] == list(PRESETS[name].order)
    pane.preset.setCurrentText("llama.cpp")
    pane.top_k.setValue(3)
    settle(qtbot, win)
    qtbot.waitUntil(lambda: m.settings.top_k == 3 and "top_k: kept 3 " in " ".join(titles(win)), timeout=WAIT)
    top_k_plot = next(p for p in m.view.plots if p.name == "top_k")
    assert int(top_k_plot.kept.sum()) == 3 and not top_k_plot.kept[3:].any()
    pane.t_slider.setValue(0)                          # the slider drives T
    qtbot.waitUntil(lambda: m.settings.temperature == 0.0, timeout=WAIT)
    settle(qtbot, win)
    # llama.cpp at T = 0: the maximum keeps its logit, the others get -inf but stay candidates (dist still draws)
    qtbot.waitUntil(lambda: m.view.result.greedy and sorted(m.view.result.stages[-1].probs.tolist())[-2:] == [0.0, 1.0],
                    timeout=WAIT)
    pane.temperature.setValue(1.5)
    assert pane.t_slider.value() == 150
    pane.top_p.setValue(0.5)
    pane.min_p.setValue(0.2)
    pane.seed.setValue(7)
    qtbot.waitUntil(lambda: m.settings == SamplerSettings("llama.cpp", 1.5, 3, 0.5, 0.2, 7), timeout=WAIT)
    settle(qtbot, win)
    expect = run_stages(m.row(), m.settings)
    qtbot.waitUntil(lambda: [s.kept for s in m.view.result.stages] == [s.kept for s in expect.stages], timeout=WAIT)
    pane.top_n.setValue(8)
    qtbot.waitUntil(lambda: len(m.view.plots[0].labels) == 8, timeout=WAIT)
    pane.log_box.setChecked(True)
    ticks = pane._plots[0].getAxis("left")._tickLevels
    assert ticks and ticks[0][0][1].startswith("1e")


def test_custom_order_and_rules(qtbot, win) -> None:
    pane, m = win.sampling.pane, win.sampling_model
    pane.preset.setCurrentText("custom")
    assert pane.custom.isVisibleTo(pane)
    item = pane.order.takeItem(0)                       # temperature to the end, as llama.cpp does
    pane.order.addItem(item)
    pane.order.model().rowsMoved.emit(pane.order.model().index(0, 0).parent(), 0, 0,
                                      pane.order.model().index(0, 0).parent(), 4)
    pane.semantics["top_p"].setCurrentText("ds4")
    qtbot.waitUntil(lambda: m.settings.order == ("top_k", "top_p", "min_p", "temperature")
                    and (m.settings.semantics or {}).get("top_p") == "ds4", timeout=WAIT)
    settle(qtbot, win)
    qtbot.waitUntil(lambda: [p.name for p in m.view.plots[1:-1]] == ["top_k", "top_p", "min_p", "temperature"],
                    timeout=WAIT)
    pane.preset.setCurrentText("ds4")
    assert not pane.custom.isVisibleTo(pane)


def test_npy_steps_slider_and_draws(qtbot, win, tmp_path, monkeypatch) -> None:
    rng = np.random.default_rng(3)
    vocab = win.doc.tokenizer.vocab_size
    logits = rng.normal(size=(3, vocab)).astype(np.float32) * 3
    logits[1, 42] = 30.0                                # step 1: one token dominates
    path = tmp_path / "steps.npy"
    np.save(path, logits)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))
    pane, m = win.sampling.pane, win.sampling_model
    pane.open_button.click()
    qtbot.waitUntil(lambda: m.source is not None and m.source.steps == 3, timeout=WAIT)
    assert pane.step.isEnabled() and pane.step.maximum() == 2 and "steps.npy" in pane.source_label.text()
    pane.step.setValue(1)
    qtbot.waitUntil(lambda: m.step == 1, timeout=WAIT)
    settle(qtbot, win)
    qtbot.waitUntil(lambda: int(m.view.plots[0].ids[0]) == 42, timeout=WAIT)
    pane.step.setValue(2)
    settle(qtbot, win)
    qtbot.waitUntil(lambda: int(m.view.plots[0].ids[0]) == int(np.argmax(logits[2])), timeout=WAIT)
    # Draw: the engine's token and RNG state
    pane.preset.setCurrentText("ds4")
    settle(qtbot, win)
    with qtbot.waitSignal(m.drew, timeout=WAIT):
        pane.draw_button.click()
    assert pane.draw_label.text().startswith("Drew ") and "xorshift64*" in pane.draw_label.text()
    # Draw N: empirical shares against the final probabilities
    pane.draw_n.setValue(50_000)
    with qtbot.waitSignal(m.drew, timeout=WAIT):
        pane.draw_n_button.click()
    d = m.draw_view
    assert d.n == 50_000 and int(d.draws.ids.shape[0]) == 50_000
    assert abs(float(d.observed.sum()) - float(d.expected.sum())) < 0.05
    assert d.p_value > 0.001 and "consistent with the final probabilities" in pane.draw_label.text()


def test_engines_side_by_side_flag_different_fates(qtbot, win, tmp_path, monkeypatch) -> None:
    """High temperature: hf tempers before top-p and keeps more tokens than llama.cpp, which cuts untempered."""
    vocab = win.doc.tokenizer.vocab_size
    logits = np.full(vocab, -20.0, dtype=np.float32)
    logits[[100, 200, 300, 400, 500]] = [5.0, 4.0, 3.0, 2.0, 1.0]
    path = tmp_path / "five.npy"
    np.save(path, logits)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))
    pane, m = win.sampling.pane, win.sampling_model
    pane.open_button.click()
    qtbot.waitUntil(lambda: m.source is not None and m.source.path is not None, timeout=WAIT)
    pane.preset.setCurrentText("llama.cpp")
    pane.top_k.setValue(0)
    pane.min_p.setValue(0.0)
    pane.top_p.setValue(0.8)
    pane.temperature.setValue(3.0)
    settle(qtbot, win)
    qtbot.waitUntil(lambda: m.settings.temperature == 3.0 and m.engines is not None
                    and m.engines.settings == m.settings and any(f.differs for f in m.engines.fates), timeout=WAIT)
    # one row per engine: the draw, then a column per top token
    t = pane.engines
    assert t.rowCount() == 4 and [t.verticalHeaderItem(r).text() for r in range(4)] == ["ds4", "llama.cpp",
                                                                                        "kestrel", "hf"]
    diff_cols = [k for k, f in enumerate(m.engines.fates) if f.differs]
    llama, hf = t.item(1, diff_cols[0] + 1), t.item(3, diff_cols[0] + 1)
    assert llama.text().startswith("cut by top_p") and not hf.text().startswith("cut")
    assert llama.background().color().alpha() > 0
    same = next(k for k, f in enumerate(m.engines.fates) if not f.differs)
    assert t.item(0, same + 1).background().style() == Qt.BrushStyle.NoBrush
    assert t.columnCount() == len(m.engines.fates) + 1 and t.horizontalHeaderItem(0).text().startswith("draw (seed")
    assert "not reproducible" in t.item(3, 0).text() and "not reproducible" not in t.item(0, 0).text()
