"""The window, driven for real (offscreen): open, type, select across panes,
step merges, compare, chat, a bad file, cancel."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QPoint, QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from tokinspect import Tokenizer  # noqa: E402
from tokinspect.analysis import TokenSpans, byte_token_map, split_char_mask, utf16_spans  # noqa: E402
from tokinspect.capabilities import encoders_supported  # noqa: E402
from tokinspect.chat import ChatTemplate, find_template, render  # noqa: E402
from tokinspect.compare import compare  # noqa: E402
from tokinspect.vocab import VocabIndex, parse  # noqa: E402

WAIT = 15_000


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
    qtbot.waitUntil(lambda: w.doc.tokenizer is not None, timeout=WAIT)
    return w


def settle(qtbot, w, text=None):
    if text is not None:
        qtbot.waitUntil(lambda: w.doc.analysis is not None and w.doc.analysis.text == text and not w.doc.busy,
                        timeout=WAIT)
    else:
        qtbot.waitUntil(lambda: w.doc.analysis is not None and not w.doc.busy, timeout=WAIT)


def test_default_opens_and_typing_retokenizes(qtbot, win):
    assert "Qwen3" in win.status_tok.text() and "151,669" in win.status_tok.text()
    win.text.setFocus()
    qtbot.keyClicks(win.text, "Hello na")  # QTest types ASCII only
    win.text.insertPlainText("ï")
    qtbot.keyClicks(win.text, "ve")
    settle(qtbot, win, "Hello naïve")
    assert win.doc.analysis.encoding.ids.tolist() == [9707, 94880, 586]
    assert win.table.model().rowCount() == 3
    assert win.table.model().index(1, 2).data() == "ĠnaÃ¯"
    assert win.table.model().index(1, 4).data() == "20 6e 61 c3 af"
    assert not win.doc.analysis.spans.split.any()
    # 鿔 is two tokens of one character: both are marked, and the byte pane gives each its own bytes
    win.set_text("a鿔")
    settle(qtbot, win, "a鿔")
    a = win.doc.analysis
    assert a.spans.split.tolist() == [False, True, True]
    assert "splits a UTF-8 character" in win.doc.token_tooltip(1)
    assert a.byte_token.tolist() == [0, 1, 1, 2] or a.byte_token.tolist() == [0, 1, 2, 2]


def test_selection_follows_across_panes(qtbot, win):
    win.set_text("Hello world, 你好 <|im_start|>")
    settle(qtbot, win, "Hello world, 你好 <|im_start|>")
    a = win.doc.analysis
    # table -> text and bytes
    win.table.setFocus()
    win.table.selectRow(1)
    assert win.sel.index == 1
    assert win.text.selected == 1 and win.bytes.selected == 1
    assert win.text.textCursor().position() == int(a.spans.u16[1, 0])
    # text -> table and bytes
    c = win.text.textCursor()
    c.setPosition(len("Hello world, 你"))
    win.text.setTextCursor(c)
    k = a.spans.at(len("Hello world, 你"))
    assert win.sel.index == k and win.table.currentIndex().row() == k and win.bytes.selected == k
    # bytes -> all (click on the first byte of the special token)
    last = len(a) - 1
    b0 = int(a.encoding.byte_offsets[last, 0])
    bv = win.bytes
    from tokinspect.widgets.byte_view import BYTES_PER_ROW
    bv.verticalScrollBar().setValue(0)
    row, col = divmod(b0, BYTES_PER_ROW)
    pos = QPoint(bv.gutter + col * bv.cell_w + 3, row * bv.row_h + 5)
    qtbot.mouseClick(bv.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert win.sel.index == last
    assert win.table.currentIndex().row() == last and win.text.selected == last
    assert a.encoding.special_mask[last] == 1
    # hovering a byte highlights its token in the text pane
    qtbot.mouseMove(bv.viewport(), pos)
    qtbot.waitUntil(lambda: win.text.hover == last, timeout=2000)


def test_merge_steps(qtbot, win):
    win.set_text("Hello naïve")
    settle(qtbot, win, "Hello naïve")
    qtbot.waitUntil(lambda: win.doc.trace is not None)
    win.sel.select(1)
    tp = win.trace
    assert tp.chunk_list.currentIndex().row() == 1
    rows = tp.steps.rows
    assert [r.rank for r in rows[:-1]] == [308, 586, 4317, 37572, 94880]
    assert rows[-1].result == "= 94880 586"
    assert tp.slider.value() == 5
    qtbot.mouseClick(tp.back, Qt.MouseButton.LeftButton)
    assert tp.slider.value() == 4 and tp.steps.current == 4
    tp.slider.setValue(0)
    assert not tp.back.isEnabled() and tp.step_label.text() == "step 0/5"
    qtbot.mouseClick(tp.fwd, Qt.MouseButton.LeftButton)
    assert tp.steps.current == 1
    # choosing a chunk selects its first token everywhere
    tp.chunk_list.setCurrentIndex(tp.chunk_list.model().index(0, 0))
    assert win.sel.index == 0 and win.table.currentIndex().row() == 0


def test_open_tokenizer_json_and_bad_file(qtbot, win, qwen3_json, tmp_path):
    win.set_text("Hello naïve")
    win.open_tokenizer(qwen3_json)
    qtbot.waitUntil(lambda: win.doc.tokenizer.format == "hf" and not win.doc.busy, timeout=WAIT)
    settle(qtbot, win, "Hello naïve")
    assert win.doc.analysis.encoding.ids.tolist() == [9707, 94880, 586]
    assert "sha256" in win.status_tok.text() and str(qwen3_json.resolve()) in win.recent_files()
    good = win.doc.tokenizer
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [')
    win.open_tokenizer(bad)
    qtbot.waitUntil(lambda: bool(win.errors), timeout=WAIT)
    assert "Could not open" in win.errors[0][0] and str(bad) in win.errors[0][1]
    assert win.doc.tokenizer is good


def test_compare_two_encoders_or_tokenizers(qtbot, win, qwen3_json):
    text = "Hello naïve café, 你好"
    win.set_text(text)
    settle(qtbot, win, text)
    win.tabs.setCurrentWidget(win.compare)
    cm = win.compare_model
    qtbot.waitUntil(lambda: cm.result is not None and not cm.busy, timeout=WAIT)
    assert cm.result.comparison.same  # same tokenizer, same encoder
    assert "Same segmentation" in win.compare.summary.text()
    cm.load_b(str(qwen3_json))
    qtbot.waitUntil(lambda: cm.tok_b is not None and cm.result is not None and cm.result.b.encoding._tokenizer is cm.tok_b
                    and not cm.busy, timeout=WAIT)
    assert cm.result.comparison.same  # tokenizer.json and the embedded default agree
    if encoders_supported():
        win.compare.same_b.click()
        win.compare.encoder_b.setCurrentText("greedy")
        qtbot.waitUntil(lambda: cm.result is not None and cm.result.label_b.endswith("[greedy]") and not cm.busy,
                        timeout=WAIT)
        assert win.compare.table.model().rowCount() == len(cm.result.comparison.divergent)
    else:
        assert not win.compare.encoder_b.isEnabled() and not win.encoder_box.isEnabled()


def test_chat_mode(qtbot, win):
    win.tabs.setCurrentWidget(win.chat)
    win.chat.content.setText("Hi there")
    win.chat.add.click()
    preview = win.chat.preview.text()
    assert preview.endswith("<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n")
    win.chat.inspect.click()
    assert win.tabs.currentIndex() == 0
    settle(qtbot, win, preview)
    assert int(win.doc.analysis.encoding.special_mask.sum()) == 7  # 3 messages x 2 + generation prompt


def test_cancel_long_encode(qtbot, win):
    settle(qtbot, win)
    before = win.doc.analysis
    big = "Hello naïve café 你好, the quick brown fox. " * 60_000  # ~2.6 MB
    win.doc.set_text(big, immediate=True)
    assert win.doc.busy
    win.cancel()
    assert not win.doc.busy
    qtbot.wait(300)
    assert win.doc.analysis is before  # the cancelled result never landed


def test_export_and_copy(qtbot, win, tmp_path):
    win.set_text("Hello naïve")
    settle(qtbot, win, "Hello naïve")
    from tokinspect import export
    export.write(win.doc.analysis.encoding, tmp_path / "t.json")
    export.write(win.doc.analysis.encoding, tmp_path / "t.csv")
    assert '"piece": "ĠnaÃ¯"' in (tmp_path / "t.json").read_text(encoding="utf-8")
    assert (tmp_path / "t.csv").read_text(encoding="utf-8").splitlines()[2].startswith("1,94880,ĠnaÃ¯")
    win.copy_ids()
    from PySide6.QtGui import QGuiApplication
    assert QGuiApplication.clipboard().text() == "[9707, 94880, 586]"


def test_vocab_search(qtbot, win):
    win.tabs.setCurrentWidget(win.vocab)
    m = win.vocab_model
    qtbot.waitUntil(lambda: m.index_ is not None, timeout=WAIT)
    win.vocab.query.setText("9707")
    assert m.rowCount() == 1 and m.index(0, 1).data() == "Hello"
    win.vocab.query.setText("e4 bd a0")
    assert m.rowCount() > 0 and all("e4 bd a0" in m.index(r, 3).data() for r in range(m.rowCount()))
    win.vocab.query.setText("ello")
    assert m.index(0, 1).data() == "ello" and any(m.index(r, 1).data() == "Hello" for r in range(m.rowCount()))


def test_settings_persist(qtbot, win, tmp_path):
    win.ws_action.trigger()
    win.save_settings()
    assert win.settings.value("view/whitespace", type=bool) is True


# ---- the app-side pieces, without a window ------------------------------------------

def test_spans_and_maps():
    tok = Tokenizer.default()
    text = "a😀b"
    enc = tok.encode(text)
    u16 = utf16_spans(text, enc.offsets)
    assert u16[-1, 1] == 4  # the emoji counts twice in UTF-16
    data = text.encode()
    assert byte_token_map(len(data), enc.byte_offsets).min() >= 0
    spans = TokenSpans(u16, enc.special_mask, split_char_mask(data, enc.byte_offsets))
    assert spans.at(0) == 0 and spans.at(3) == len(enc) - 1


def test_compare_alignment():
    tok = Tokenizer.default()
    a = tok.encode("Hello world")
    assert compare(a, a).same
    b = tok.encode("Hello world", add_special_tokens=True)
    assert compare(a, b).tokens_b == len(b)


def test_chat_template_sandbox(tmp_path):
    tpl = ChatTemplate("t", "{{ messages[0].content.__class__ }}")
    assert "class" not in render(tpl, [{"role": "user", "content": "x"}])  # the sandbox hides dunders
    assert find_template(None).source == "built-in ChatML"


def test_vocab_query_parse():
    assert parse("123").kind == "id" and parse("#5").value == 5
    assert parse("e4 bd a0").value == b"\xe4\xbd\xa0" and parse("0x20").value == b" "
    assert parse("hello").kind == "text"
    idx = VocabIndex(Tokenizer.default())
    assert idx.search("Hello")[0] == 9707
