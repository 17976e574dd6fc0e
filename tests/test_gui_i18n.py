"""The Simplified Chinese window: every visible string translated, the catalog complete, the
language chosen by --lang, View → Language and the system locale.

The window is built twice on the same text, in English and in zh_CN; its widgets are walked in
the same order (tabs visited one by one, side tabs too) and every visible text (labels, buttons,
check boxes, group boxes, tab titles, menu actions, table headers, tool tips, placeholders, the
status bar) must differ between the two, except what is not a word of the interface: numbers and
units, names (encoders, presets, roles, modes, Qwen3), ids with their pieces, paths, and the
sampler's own notes (formulas and preset rules quoted from the engines, not window strings).
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QAction  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from tokinspect.board.remote import INPUTS  # noqa: E402
from tokinspect.core.tokenizer import ENCODERS  # noqa: E402
from tokinspect.formats.chat_template import ROLES  # noqa: E402
from tokinspect.sampling.settings import PRESETS  # noqa: E402
from tokinspect.window import i18n  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "resources" / "i18n" / "tokinspect_zh_CN.ts"
WAIT = 20_000
TEXT = "Hello world, naïve café 你好 1234\n"

# names, not words of the interface: they read the same in every language
NAMES = {*ENCODERS, *PRESETS, *ROLES, *INPUTS, "custom", "jsonl", "ints", "regex", "tokinspect", "English", "A", "B",
         "cc", "eng", "Qwen3", "temperature", "top_k", "top_p", "min_p",   # the sampler's stage names
         "Export..."}   # pyqtgraph's own context menu
NUMBER = re.compile(r"^[\s\d.,:;%+\-–×/()=]*(ms|MB/s|bits)?$")
ID_PIECE = re.compile(r"^\d+ \S")                         # a sampling table's header: "151643 <|endoftext|>"
PATH = re.compile(r"^(/|[A-Za-z]:\\|~)|site-packages")
# the sampler's notes (tokinspect.sampling: preset rules, stage formulas, the demo's description of its logits)
ENGINE_NOTE = re.compile(r"^(<b>[\w.\-]+</b>: |[\w.\-]+: the |T=|k=\d|p=|min_p=|\d+ finite logits|bigram demo \(not)")


def exempt(text: str) -> bool:
    return (text in NAMES or not re.search(r"[A-Za-z]", text) or bool(NUMBER.match(text))
            or bool(ID_PIECE.match(text)) or bool(PATH.search(text)) or bool(ENGINE_NOTE.match(text)))


def texts_of(win: QWidget) -> list[tuple[str, str]]:
    """(where, text) for every visible text of win, in a fixed order."""
    out: list[tuple[str, str]] = []
    for o in win.findChildren(QWidget):
        if not o.isVisibleTo(win):
            continue
        where = type(o).__name__
        user_text = isinstance(o, (QLineEdit, QAbstractSpinBox, QTextEdit, QPlainTextEdit, QComboBox))
        for attr in ("title", "toolTip", "placeholderText", *(() if user_text else ("text",))):
            f = getattr(o, attr, None)
            if callable(f):
                try:
                    t = f()
                except TypeError:
                    continue
                if isinstance(t, str) and t.strip():
                    out.append((f"{where}.{attr}", t))
        if isinstance(o, QTabWidget):
            out += [(f"{where}.tab{j}", o.tabText(j)) for j in range(o.count())]
        if isinstance(o, QComboBox):
            out += [(f"{where}.item{j}", o.itemText(j)) for j in range(o.count())]
        if isinstance(o, QAbstractItemView) and o.model() is not None and hasattr(o, "horizontalHeader"):
            m = o.model()
            for c in range(o.horizontalHeader().count()):
                h = m.headerData(c, Qt.Orientation.Horizontal)
                if isinstance(h, str) and h.strip():
                    out.append((f"{where}.header{c}", h))
    for a in win.findChildren(QAction):
        if a.text().strip() and not a.isSeparator():
            out.append(("action", a.text()))
    for m in win.menuBar().findChildren(QWidget):
        title = getattr(m, "title", None)
        if callable(title) and title():
            out.append((f"menu:{type(m).__name__}", title()))
    return out


def tour(qtbot, win) -> list[tuple[str, str]]:
    """Every tab visited (its model settled), the texts collected after each."""
    win.open_default()
    qtbot.waitUntil(lambda: win.doc.tokenizer is not None, timeout=WAIT)
    win.set_text(TEXT)
    qtbot.waitUntil(lambda: win.doc.analysis is not None and win.doc.analysis.text == TEXT and not win.doc.busy
                    and win.doc.trace is not None, timeout=WAIT)
    win.sel.select(1)
    out: list[tuple[str, str]] = []
    for k in range(win.tabs.count()):
        win.tabs.setCurrentIndex(k)
        w = win.tabs.widget(k)
        if w is win.compare:
            qtbot.waitUntil(lambda: win.compare_model.result is not None and not win.compare_model.busy, timeout=WAIT)
        if w is win.vocab:
            qtbot.waitUntil(lambda: win.vocab_model.index_ is not None, timeout=WAIT)
        if w is win.sampling:
            qtbot.waitUntil(lambda: win.sampling_model.view is not None and not win.sampling_model.busy, timeout=WAIT)
        qtbot.wait(50)
        out += [(f"tab{k}/{where}", t) for where, t in texts_of(win)]
    win.tabs.setCurrentIndex(0)
    win.side.setCurrentIndex(1)
    qtbot.wait(50)
    out += [(f"stats/{where}", t) for where, t in texts_of(win)]
    return out


def build(qtbot, tmp_path, monkeypatch, lang: str):
    from tokinspect.widgets.main_window import MainWindow

    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda *a, **k: None))
    app = QApplication.instance()
    t = i18n.install(app, lang)
    try:
        w = MainWindow(QSettings(str(tmp_path / f"{lang}.ini"), QSettings.Format.IniFormat), lang)
        qtbot.addWidget(w)
        w.quiet_errors = True
        w.resize(1280, 800)
        w.show()
        texts = tour(qtbot, w)
    finally:
        if t is not None:
            app.removeTranslator(t)
    w.close()
    return texts


def test_every_visible_string_is_translated(qtbot, tmp_path, monkeypatch):
    en = build(qtbot, tmp_path, monkeypatch, "en")
    zh = build(qtbot, tmp_path, monkeypatch, "zh_CN")
    # the same widgets in the same order (a table may hold a row more or less): pair them where they match
    blocks = difflib.SequenceMatcher(None, [w for w, _ in en], [w for w, _ in zh], autojunk=False).get_matching_blocks()
    pairs = [(en[b.a + j][1], zh[b.b + j][1]) for b in blocks for j in range(b.size)]
    assert len(pairs) > 300 and len(pairs) > 0.95 * len(en)
    untranslated = sorted({e for e, z in pairs if e == z and not exempt(e)})
    assert untranslated == [], "\n".join(untranslated)
    # the exemptions stay exemptions: most texts are words, and they were translated
    assert sum(1 for e, z in pairs if e != z) > len(pairs) // 2
    assert any("分词器" in z for _, z in zh) and any("词表" in z for _, z in zh)


def sources_of_tr() -> set[str]:
    """Every literal passed to tr() in the window's code, and the table headers it translates."""
    found: set[str] = set()
    files = [*ROOT.glob("widgets/*.py"), *ROOT.glob("app/window/*.py")]
    for p in files:
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.args:
                a = n.args[0]
                if n.func.id == "tr" and isinstance(a, ast.Constant) and a.value:
                    found.add(a.value)
                if n.func.id == "RowsModel" and isinstance(a, ast.Tuple):
                    found |= {e.value for e in a.elts if isinstance(e, ast.Constant) and e.value}
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Tuple) and any(
                    isinstance(t, ast.Name) and t.id.endswith("COLUMNS") for t in n.targets):
                found |= {e.value for e in n.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value}
    return found


def catalog() -> dict[str, str]:
    root = ET.parse(TS).getroot()
    assert root.get("language") == "zh_CN"
    out = {}
    for ctx in root.iter("context"):
        assert ctx.findtext("name") == i18n.CONTEXT
        for m in ctx.iter("message"):
            tr_el = m.find("translation")
            assert tr_el is not None and tr_el.get("type") is None, m.findtext("source")   # none unfinished
            out[m.findtext("source") or ""] = tr_el.text or ""
    return out


def test_catalog_has_every_source_and_keeps_placeholders():
    cat = catalog()
    missing = sorted(s for s in sources_of_tr() if s not in cat or not cat[s].strip())
    assert missing == []
    for src, zh in cat.items():
        assert sorted(re.findall(r"\{\w*\}", src)) == sorted(re.findall(r"\{\w*\}", zh)), src
        assert src.count("&") == zh.count("&"), src     # the menu's accelerators survive


def test_compiled_catalog_matches_the_source(qapp):
    """The installed .qm (built by setup.py from the .ts) translates what the .ts says."""
    t = i18n.install(qapp, "zh_CN")
    assert t is not None
    try:
        for src, zh in catalog().items():
            assert i18n.tr(src) == zh, src
    finally:
        qapp.removeTranslator(t)
    assert i18n.tr("Vocabulary") == "Vocabulary"


def test_language_choice(tmp_path, monkeypatch):
    s = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    monkeypatch.setattr(i18n, "system_language", lambda: "zh_CN")
    assert i18n.chosen(None, s) == "zh_CN"
    s.setValue(i18n.SETTING, "en")
    assert i18n.chosen(None, s) == "en"
    assert i18n.chosen("zh_CN", s) == "zh_CN"
    s.setValue(i18n.SETTING, "xx")
    assert i18n.chosen(None, s) == "zh_CN"


def test_view_language_menu_remembers(qtbot, tmp_path):
    from tokinspect.widgets.main_window import MainWindow

    s = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(s, "en")
    qtbot.addWidget(w)
    assert set(w.language_actions) == set(i18n.LANGUAGES)
    assert w.language_actions["en"].isChecked() and not w.language_actions["zh_CN"].isChecked()
    w.language_actions["zh_CN"].trigger()
    assert s.value(i18n.SETTING) == "zh_CN" and i18n.chosen(None, s) == "zh_CN"
    assert w.language_actions["zh_CN"].isChecked() and not w.language_actions["en"].isChecked()
    assert "restart" in w.language_menu.title()


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_lang_option(lang):
    from tokinspect.gui import build_parser

    assert build_parser().parse_args(["--lang", lang]).lang == lang
