"""The Simplified Chinese window: every visible string translated, the catalog complete, the
language chosen by --lang, View → Language and the system locale.

The window is built twice on the same text, in English and in zh_CN; its widgets are walked in
the same order (tabs visited one by one, side tabs too) and every visible text (labels, buttons,
check boxes, group boxes, tab titles, menu actions, table headers, tool tips, placeholders, the
status bar) must differ between the two, except what is not a word of the interface: numbers and
units, names (encoders, presets, roles, modes, Qwen3), ids with their pieces, paths and file names.
Table cells are read too: a cell may hold the text's own pieces, so a cell fails when it has an English
word that is neither a word of the text nor a name.

Besides the tabs as opened, the tour visits the states whose strings come from app/ (not Qt): every
sampler preset chosen, a merge trace row selected, a Compare against a GGUF (llama.cpp's recipe line),
a Contract check and the vocabulary diff A → B, and Board failures (the message boxes are intercepted, their texts compared too).
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import socket
import xml.etree.ElementTree as ET
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pyqtgraph as pg  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QModelIndex, QSettings, Qt  # noqa: E402
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
from test_gguf import member  # noqa: E402

from tokinspect import Tokenizer  # noqa: E402
from tokinspect.board.causes import ARG_WORDS  # noqa: E402
from tokinspect.board.causes import TEMPLATES as CAUSE_TEMPLATES  # noqa: E402
from tokinspect.board.diff import KIND_NAMES  # noqa: E402
from tokinspect.board.remote import INPUTS  # noqa: E402
from tokinspect.contract.samples import golden  # noqa: E402
from tokinspect.core.tokenizer import ENCODERS  # noqa: E402
from tokinspect.formats.chat_template import ROLES  # noqa: E402
from tokinspect.gui import SAMPLE_TEXT  # noqa: E402
from tokinspect.sampling.demo import LABEL as BIGRAM_LABEL  # noqa: E402
from tokinspect.sampling.settings import PRESETS  # noqa: E402
from tokinspect.window import i18n  # noqa: E402
from tokinspect.window.document import DEFAULT_MESSAGES  # noqa: E402
from tokinspect.window.engine_text import PHRASES, TEMPLATES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "resources" / "i18n" / "tokinspect_zh_CN.ts"
# app/ modules outside the window whose texts come through a `translate` callable (t or translate)
TRANSLATED = [ROOT / "app" / "analysis" / "recipe.py", ROOT / "app" / "core" / "vocab_sizes.py"]
WAIT = 20_000
CELL_ROWS = 12
TEXT = "Hello world, naïve café 你好 1234\n"

# names, not words of the interface: they read the same in every language
NAMES = {*ENCODERS, *PRESETS, *ROLES, *INPUTS, "custom", "jsonl", "ints", "regex", "tokinspect", "English", "A", "B",
         "cc", "eng", "Qwen3", "temperature", "top_k", "top_p", "min_p",   # the sampler's stage names
         "Export..."}   # pyqtgraph's own context menu
NUMBER = re.compile(r"^[\s\d.,:;%+\-–×/()=]*(ms|MB/s|bits)?$")
ID_PIECE = re.compile(r"^\d+ \S")                         # a sampling table's header: "151643 <|endoftext|>"
PATH = re.compile(r"^(/|[A-Za-z]:\\|~)|site-packages")
FILE_NAME = re.compile(r"^[\w.\-]+\.(json|gguf|model|tiktoken|bin|txt)$")
# words a cell may hold without being a word of the interface: the text's own, names, units
# (the contract's golden samples and the chat's default messages are data the tables list, not interface)
SAMPLES = golden(True, [str(a["content"]) for a in Tokenizer.default().added_tokens])
DATA = [TEXT, SAMPLE_TEXT, *(m["content"] for m in DEFAULT_MESSAGES),
        *(f"{x.category} " + (x.text.decode("utf-8", "backslashreplace") if isinstance(x.text, bytes) else x.text)
          for x in SAMPLES)]
CELL_WORDS = {*(w for t in DATA for w in re.findall(r"[A-Za-z]+", t)),
              *(w for n in NAMES for w in re.findall(r"[A-Za-z]+", n)), "ms", "MB", "bits", "id", "ids",
              "PAD"}   # a GGUF's padding pieces ([PAD151646]) in the vocabulary diff
HEX = re.compile(r"^([0-9a-f]{2} )*[0-9a-f]{2}$")


def exempt(text: str) -> bool:
    return (text in NAMES or not re.search(r"[A-Za-z]", text) or bool(NUMBER.match(text))
            or bool(ID_PIECE.match(text)) or bool(PATH.search(text)) or bool(FILE_NAME.match(text))
            or bool(HEX.match(text)))


def english_words(cell: str) -> list[str]:
    """The words of a table cell that are English words of the interface (not the text's, not names)."""
    words = re.findall(r"[A-Za-z]{2,}", cell)
    if cell.endswith("…") and words and cell[:-1].endswith(words[-1]) \
            and any(w.startswith(words[-1]) for w in CELL_WORDS):
        words.pop()     # an elided cell: its last word is cut short
    return [w for w in words if w not in CELL_WORDS]


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
        if isinstance(o, QAbstractItemView) and o.model() is not None:
            m = o.model()
            if hasattr(o, "horizontalHeader"):
                for c in range(o.horizontalHeader().count()):
                    h = m.headerData(c, Qt.Orientation.Horizontal)
                    if isinstance(h, str) and h.strip():
                        out.append((f"{where}.header{c}", h))
            try:
                cols = m.columnCount(QModelIndex())
            except TypeError:      # a list model's columnCount is private: one column
                cols = 1
            for r in range(min(m.rowCount(QModelIndex()), CELL_ROWS)):
                for c in range(cols):
                    v = m.data(m.index(r, c))
                    if isinstance(v, str) and v.strip():
                        out.append((f"{where}.cell{r},{c}", v))
        if isinstance(o, pg.PlotWidget):      # the plots' axis labels (pyqtgraph items, not widgets)
            for side in ("left", "bottom"):
                label = o.getPlotItem().getAxis(side).labelText
                if label.strip():
                    out.append((f"{where}.axis-{side}", label))
    for a in win.findChildren(QAction):
        if a.text().strip() and not a.isSeparator():
            out.append(("action", a.text()))
    for m in win.menuBar().findChildren(QWidget):
        title = getattr(m, "title", None)
        if callable(title) and title():
            out.append((f"menu:{type(m).__name__}", title()))
    return out


def tour(qtbot, win, tmp_path) -> list[tuple[str, str]]:
    """Every tab visited (its model settled), then the states whose texts come from app/, the texts
    collected after each."""
    win.open_default()
    qtbot.waitUntil(lambda: win.doc.tokenizer is not None, timeout=WAIT)
    win.set_text(TEXT)
    qtbot.waitUntil(lambda: win.doc.analysis is not None and win.doc.analysis.text == TEXT and not win.doc.busy
                    and win.doc.trace is not None, timeout=WAIT)
    win.sel.select(1)
    out: list[tuple[str, str]] = []

    def collect(state: str) -> None:
        qtbot.wait(50)
        out.extend((f"{state}/{where}", t) for where, t in texts_of(win))

    for k in range(win.tabs.count()):
        win.tabs.setCurrentIndex(k)
        w = win.tabs.widget(k)
        if w is win.compare:
            qtbot.waitUntil(lambda: win.compare_model.result is not None and not win.compare_model.busy, timeout=WAIT)
        if w is win.vocab:
            qtbot.waitUntil(lambda: win.vocab_model.index_ is not None, timeout=WAIT)
        if w is win.sampling:
            qtbot.waitUntil(lambda: win.sampling_model.view is not None and not win.sampling_model.busy, timeout=WAIT)
        collect(f"tab{k}")
    win.tabs.setCurrentIndex(0)
    win.side.setCurrentIndex(1)
    collect("stats")
    # a merge trace row selected: its steps and the "N merges → M tokens" rows
    win.side.setCurrentIndex(0)
    lst = win.trace.chunk_list
    lst.setCurrentIndex(lst.model().index(min(1, lst.model().rowCount() - 1), 0))
    collect("trace")
    # every sampler preset: its note (the engine's rules) and the stages' titles and cut-offs
    win.tabs.setCurrentWidget(win.sampling)
    for name in PRESETS:
        win.sampling.pane.preset.setCurrentText(name)
        qtbot.waitUntil(lambda: win.sampling_model.view is not None and not win.sampling_model.busy, timeout=WAIT)
        collect(f"sampling-{name}")
    # Compare with another encoder on B over the screenshots' text (greedy splits it otherwise): the summary
    # of the divergent spans and their rows
    win.tabs.setCurrentWidget(win.compare)
    cm = win.compare_model
    win.set_text(SAMPLE_TEXT)
    win.compare.encoder_b.setCurrentText("greedy")
    qtbot.waitUntil(lambda: cm.result is not None and cm.result.a.text == SAMPLE_TEXT
                    and not cm.result.comparison.same and not cm.busy, timeout=WAIT)
    collect("compare-greedy")
    win.compare.encoder_b.setCurrentText("bpe")
    win.set_text(TEXT)
    qtbot.waitUntil(lambda: cm.result is not None and cm.result.a.text == TEXT and cm.result.comparison.same
                    and not cm.busy, timeout=WAIT)
    # Compare against a GGUF: llama.cpp's recipe line beside the tokenizer.json's
    cm.load_b(str(member("ggml-vocab-qwen2.gguf")))
    qtbot.waitUntil(lambda: cm.tok_b is not None and cm.result is not None and not cm.busy, timeout=WAIT)
    collect("compare-gguf")
    # a Contract check: the open tokenizer frozen, then checked against itself
    win.tabs.setCurrentWidget(win.contract)
    win.contract_model.freeze_open(tmp_path / "contract.json")
    qtbot.waitUntil(lambda: win.contract_model.report is not None and not win.contract_model.busy, timeout=WAIT)
    collect("contract")
    # the vocabulary diff A → B (B: the GGUF above): its summary and the rows' kinds
    win.vocab_diff()
    qtbot.waitUntil(lambda: win.vocab_diff_model.result is not None and not win.vocab_diff_model.busy, timeout=WAIT)
    collect("vocab-diff")
    # Board failures: each message box's text, and the status they leave
    win.tabs.setCurrentWidget(win.board)
    tab = win.board
    tab.pane.profile.host.setText("")
    tab.connect_board()                                  # no host
    tab.pane.encode.remote_tokenizer.setText("")
    tab.run()                                            # no board tokenizer path
    tab.pane.encode.remote_tokenizer.setText("/tmp/tokenizer.json")
    tab.run()                                            # not connected
    tab.identify()
    tab.load_corpus(str(tmp_path / "missing.txt"))       # unreadable corpus
    tab.pane.profile.host.setText("127.0.0.1")
    tab.pane.profile.port.setValue(closed_port())
    tab.connect_board()                                  # refused
    qtbot.waitUntil(lambda: len(win.boxes) >= 12 and not win.board_model.busy, timeout=WAIT)
    collect("board")
    out.extend((f"box{k}", t) for k, t in enumerate(win.boxes))
    return out


def closed_port() -> int:
    """A local TCP port with nothing listening (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build(qtbot, tmp_path, monkeypatch, lang: str):
    from tokinspect.widgets.main_window import MainWindow

    boxes: list[str] = []

    def box(_parent: object, title: str, text: str, *a: object, **k: object) -> QMessageBox.StandardButton:
        boxes.extend((title, text))
        return QMessageBox.StandardButton.No

    for kind in ("critical", "warning", "information", "question"):
        monkeypatch.setattr(QMessageBox, kind, staticmethod(box))
    app = QApplication.instance()
    t = i18n.install(app, lang)
    try:
        w = MainWindow(QSettings(str(tmp_path / f"{lang}.ini"), QSettings.Format.IniFormat), lang)
        qtbot.addWidget(w)
        w.boxes = boxes
        w.resize(1280, 800)
        w.show()
        (tmp_path / lang).mkdir()
        texts = tour(qtbot, w, tmp_path / lang)
        # every tab fits 1280x800 in both languages (the Board tab's forms once made the window 985 high)
        assert (w.width(), w.height()) == (1280, 800), (w.width(), w.height())
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
    pairs = [(en[b.a + j], zh[b.b + j][1]) for b in blocks for j in range(b.size)]
    assert len(pairs) > 300 and len(pairs) > 0.95 * len(en)
    untranslated = sorted({e for (w, e), z in pairs if e == z and not exempt(e)
                           and (".cell" not in w or english_words(e))})
    assert untranslated == [], "\n".join(untranslated)
    # the exemptions stay exemptions: most texts are words, and they were translated
    assert sum(1 for (_, e), z in pairs if e != z) > len(pairs) // 3
    assert any("分词器" in z for _, z in zh) and any("词表" in z for _, z in zh)
    # the divergent spans' summary was on screen (and so compared above)
    assert any("divergent span" in e for (w, e), _z in pairs if w.startswith("compare-greedy/"))
    # a failure is its reason, never a traceback (the Board's connection error carried one)
    assert not [t for _, t in en + zh if "Traceback" in t]
    # mixed texts: llama.cpp's recipe line beside the GGUF is words of the interface around the files' values
    recipe = [t for w, t in zh if w.startswith("compare-gguf/") and t.startswith("llama.cpp ")]
    assert recipe and not [w for t in recipe for w in re.findall(r"[A-Za-z_\-]{4,}", t)
                           if w in {"vocabulary", "special", "tokens", "normalizer", "tokenizer", "none", "only",
                                    "here", "more", "hold", "bytes", "adds", "model", "file"}]
    # one English text read two ways, each with its own entry: the recipe's aspect, the Statistics pane's count
    aspect, count = catalog()["special tokens"], catalog(disambiguations=True)[("special tokens", "count")]
    assert aspect != count
    lines = [ln for t in recipe for ln in t.split("\n")] + [t for w, t in zh if w.startswith("compare-gguf/")]
    assert any(ln.startswith(aspect + "：") for ln in lines) and not any(ln.startswith(count) for ln in lines), lines
    assert count in [t for w, t in zh if w.startswith("stats/")]


def disambiguated() -> set[tuple[str, str]]:
    """(source, disambiguation) of every tr(literal, disambiguation) in the widgets: a disambiguation
    is a literal or a module-level name bound to one (panes.COUNT)."""
    found: set[tuple[str, str]] = set()
    for p in ROOT.glob("widgets/*.py"):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        names = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                 for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value.value, str)}
        tuples = {t.id: [e.value for e in n.value.elts if isinstance(e, ast.Constant)] for n in tree.body
                  if isinstance(n, ast.Assign) and isinstance(n.value, ast.Tuple)
                  for t in n.targets if isinstance(t, ast.Name)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "tr" and len(n.args) == 2:
                a, d = n.args
                dis = d.value if isinstance(d, ast.Constant) else names.get(d.id) if isinstance(d, ast.Name) else None
                assert isinstance(dis, str), f"{p.name}:{n.lineno}: a disambiguation that is not a literal"
                if isinstance(a, ast.Constant):
                    found.add((a.value, dis))
                elif isinstance(a, ast.Name):     # tr(key, COUNT) if key in COUNTED: the tuple's texts
                    found |= {(v, dis) for v in tuples.get("COUNTED", [])}
    return found


def sources_of_tr() -> set[str]:
    """Every literal passed to tr() in the window's code, and the table headers it translates."""
    found: set[str] = set()
    files = [*ROOT.glob("widgets/*.py"), *ROOT.glob("app/window/*.py"), *TRANSLATED]
    for p in files:
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.args:
                a = n.args[0]
                if n.func.id in ("tr", "t", "translate") and isinstance(a, ast.Constant) and a.value:
                    found.add(a.value)
                if n.func.id == "RowsModel" and isinstance(a, ast.Tuple):
                    found |= {e.value for e in a.elts if isinstance(e, ast.Constant) and e.value}
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Tuple) and any(
                    isinstance(t, ast.Name) and t.id.endswith("COLUMNS") for t in n.targets):
                found |= {e.value for e in n.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value}
    # the texts app/ hands the window as data, translated there by tr(variable)
    found |= {*TEMPLATES, *PHRASES, *(p.summary for p in PRESETS.values()), BIGRAM_LABEL, *KIND_NAMES.values(),
              *CAUSE_TEMPLATES, *ARG_WORDS}
    return found


def catalog(disambiguations: bool = False) -> dict:
    """source -> translation of the .ts entries without a disambiguation (<comment>); with
    `disambiguations`: (source, comment or None) -> translation of every entry."""
    root = ET.parse(TS).getroot()
    assert root.get("language") == "zh_CN"
    out: dict = {}
    for ctx in root.iter("context"):
        assert ctx.findtext("name") == i18n.CONTEXT
        for m in ctx.iter("message"):
            tr_el = m.find("translation")
            assert tr_el is not None and tr_el.get("type") is None, m.findtext("source")   # none unfinished
            key = (m.findtext("source") or "", m.findtext("comment"))
            assert key not in out, f"two entries for {key}"
            out[key] = tr_el.text or ""
    return out if disambiguations else {src: zh for (src, c), zh in out.items() if c is None}


def test_catalog_has_every_source_and_keeps_placeholders():
    cat = catalog()
    missing = sorted(s for s in sources_of_tr() if s not in cat or not cat[s].strip())
    assert missing == []
    every = catalog(disambiguations=True)
    pairs = disambiguated()
    assert ("special tokens", "count") in pairs   # the scan found the Statistics pane's counted rows
    assert sorted(p for p in pairs if not every.get(p, "").strip()) == []
    for (src, _c), zh in every.items():
        assert sorted(re.findall(r"\{\w*\}", src)) == sorted(re.findall(r"\{\w*\}", zh)), src
        assert src.count("&") == zh.count("&"), src     # the menu's accelerators survive


def test_compiled_catalog_matches_the_source(qapp):
    """The installed .qm (built by setup.py from the .ts) translates what the .ts says."""
    t = i18n.install(qapp, "zh_CN")
    assert t is not None
    try:
        for (src, comment), zh in catalog(disambiguations=True).items():
            assert i18n.tr(src, comment) == zh, (src, comment)
        # one English text, two readings: a count in the Statistics pane, an aspect in Compare's recipe line
        assert i18n.tr("special tokens", "count") == "特殊 token 数" and i18n.tr("special tokens") == "特殊 token"
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
