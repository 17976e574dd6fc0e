"""The window defects of the first-touch review, each checked on a widget property: the trace names
the selected token's chunk from the start, a vocab.bin is audited without a click, the token table's
columns hold their cells, the Sampling tab's description has its own row and its tick labels fit,
the draw plot waits for a draw, the Board tab shows no unlabeled box beside Cancel."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QFont, QFontMetrics  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from tokinspect import Tokenizer  # noqa: E402
from tokinspect.gui import SAMPLE_TEXT  # noqa: E402

WAIT = 20_000


@pytest.fixture
def win(qtbot, tmp_path, monkeypatch):
    from tokinspect.widgets.main_window import MainWindow

    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda *a, **k: None))
    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(1280, 800)
    # the order of tokinspect.gui.run: the tokenizer and the text asked for before the window shows
    w.open_default()
    w.set_text(SAMPLE_TEXT)
    w.show()
    qtbot.waitUntil(lambda: w.doc.analysis is not None and w.doc.analysis.text == SAMPLE_TEXT and not w.doc.busy
                    and w.doc.trace is not None, timeout=WAIT)
    return w


def test_row_zero_selected_shows_its_chunk(qtbot, win):
    qtbot.waitUntil(lambda: win.sel.index == 0, timeout=WAIT)
    assert win.table.currentIndex().row() == 0
    title = win.trace.chunk_title.text()
    assert "select a token" not in title and title.startswith("chunk 0: "), title


def test_vocab_bin_is_audited_on_opening_the_tab(qtbot, win, tmp_path):
    from tokinspect.formats import vocab_bin

    vb = tmp_path / "vocab.bin"
    vb.write_bytes(vocab_bin.compile_vocab_bin(Tokenizer.default()).data)
    win.open_tokenizer(vb)      # opened on the Inspect tab
    qtbot.waitUntil(lambda: win.doc.tokenizer.format == "vocab_bin" and not win.doc.busy, timeout=WAIT)
    win.tabs.setCurrentWidget(win.vocab)
    am = win.audit_model
    qtbot.waitUntil(lambda: am.result is not None and not am.busy, timeout=WAIT)
    assert am.groups.rowCount() > 0 and am.classes.rowCount() > 0 and am.probes.rowCount() > 0
    assert not win.vocab.audit.run_button.isVisible()


def test_token_table_columns_hold_their_cells(qtbot, win):
    t, m = win.table, win.table.model()
    assert m.rowCount() > 50
    for col in (2, 3, 4):   # piece, text, hex bytes: "3c 7c 69 6d 5f 73 74 61 72 74 7c 3e" of <|im_start|>
        font = m.index(0, col).data(Qt.ItemDataRole.FontRole)      # the hex column is drawn in a fixed font
        fm = QFontMetrics(font) if isinstance(font, QFont) else t.fontMetrics()
        widest = max(fm.horizontalAdvance(str(m.index(r, col).data())) for r in range(m.rowCount()))
        assert t.columnWidth(col) >= widest + 8, (m.headerData(col, 1), t.columnWidth(col), widest)


@pytest.fixture
def sampling(qtbot, win):
    win.tabs.setCurrentWidget(win.sampling)
    qtbot.waitUntil(lambda: win.sampling_model.view is not None and not win.sampling_model.busy, timeout=WAIT)
    qtbot.wait(50)
    return win.sampling.pane


def test_sampling_description_has_its_own_row(qtbot, sampling):
    lab = sampling.source_label
    assert lab.text().startswith("bigram demo")
    assert not lab.geometry().intersects(sampling.step_label.geometry())
    assert not lab.geometry().intersects(sampling.step.geometry())
    assert lab.height() >= lab.heightForWidth(lab.width())      # every wrapped line shown


def test_sampling_tick_labels_do_not_overlap(qtbot, sampling):
    plots = [p for p in sampling._plots if p.isVisible()]
    assert plots
    for p in plots:
        ticks = p._ticks(p._labels)
        assert ticks
        fm = p.fontMetrics()
        room = max(p.width() - 60, 50) / max(len(p._labels), 1)
        step = ticks[1][0] - ticks[0][0] if len(ticks) > 1 else 1
        for _, text in ticks:
            assert fm.horizontalAdvance(text) <= room * step, (text, room * step)


def test_draw_plot_waits_for_the_first_draw(qtbot, win, sampling):
    assert not sampling.hist.isVisibleTo(win)
    qtbot.mouseClick(sampling.draw_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.sampling_model.draw_view is not None, timeout=WAIT)
    assert sampling.hist.isVisibleTo(win)


def test_engines_table_fits_its_pane(qtbot, win, sampling):
    t = sampling.engines
    qtbot.waitUntil(lambda: win.sampling_model.engines is not None, timeout=WAIT)
    # the table ends inside the window: what does not fit scrolls, nothing is cut at the window's edge
    right = t.mapTo(win, t.rect().topRight()).x()
    assert right <= win.width()


def test_board_has_no_unlabeled_box_beside_cancel(qtbot, win):
    win.tabs.setCurrentWidget(win.board)
    pane = win.board.pane
    assert pane.cancel_button.isVisibleTo(win) and not pane.progress.isVisibleTo(win)
    pane.set_running(True)
    assert pane.progress.isVisibleTo(win)
    pane.set_running(False)
    assert not pane.progress.isVisibleTo(win)

