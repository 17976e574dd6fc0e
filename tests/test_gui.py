"""The window, driven for real (offscreen): open, type, select across panes,
step merges, compare, chat, a bad file, cancel."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QPoint, QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from tokinspect import Tokenizer  # noqa: E402
from tokinspect.analysis.compare import compare  # noqa: E402
from tokinspect.analysis.encoded import TokenSpans, byte_token_map, split_char_mask, utf16_spans  # noqa: E402
from tokinspect.formats.chat_template import ChatTemplate, find_template, render  # noqa: E402
from tokinspect.formats.vocab_search import VocabIndex, parse  # noqa: E402

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
    assert win.status_tok.text().startswith("Qwen3 (embedded default)  ·  ") and "151,669" in win.status_tok.text()
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


def test_status_bar_names_the_folder_and_the_three_sizes(qtbot, win, qwen3_json, tmp_path):
    """The status bar shows "folder/file" (many tokenizers are called tokenizer.json) and the three
    vocabulary sizes; a config.json with fewer embedding rows than ids is flagged, its note in the tooltip."""
    import json
    import shutil

    from tokenizers import Tokenizer as HF

    hf = HF.from_file(str(qwen3_json))
    model, total = hf.get_vocab_size(with_added_tokens=False), hf.get_vocab_size(with_added_tokens=True)
    d = tmp_path / "Qwen3-0.6B"
    d.mkdir()
    p = Path(shutil.copy(qwen3_json, d / "tokenizer.json"))
    (d / "config.json").write_text(json.dumps({"vocab_size": model}))
    win.open_tokenizer(p)
    qtbot.waitUntil(lambda: win.doc.tokenizer.path == p and not win.doc.busy, timeout=WAIT)
    text = win.status_tok.text()
    assert text.startswith("Qwen3-0.6B/tokenizer.json  ·  ")
    assert f"vocab {model:,} + {total - model:,} added = {total:,}  ·  embedding {model:,}" in text
    assert "⚠ embedding rows" in text and "have no embedding row" in win.status_tok.toolTip()


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
    win.compare.same_b.click()
    win.compare.encoder_b.setCurrentText("greedy")
    qtbot.waitUntil(lambda: cm.result is not None and cm.result.label_b.endswith("[greedy]") and not cm.busy,
                    timeout=WAIT)
    assert win.compare.table.model().rowCount() == len(cm.result.comparison.divergent)


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


def test_chat_prompt_goes_to_the_board_tab_whole(qtbot, win):
    win.tabs.setCurrentWidget(win.chat)
    win.chat.content.setText("Say hi.")
    win.chat.add.click()
    preview = win.chat.preview.text()
    win.chat.to_board.click()
    assert win.tabs.currentWidget() is win.board
    assert win.board.texts() == [preview] and "\n" in preview      # one text, line breaks kept
    assert "Chat tab" in win.board.pane.corpus_label.text()


def test_kestrel_encoder_in_the_window(qtbot, win):
    settle(qtbot, win)
    win.encoder_box.setCurrentText("kestrel-v2")
    win.set_text("a 1 b\tc  ")
    settle(qtbot, win, "a 1 b\tc  ")
    assert win.doc.analysis.encoding.ids.tolist() == win.doc.tokenizer.encode("a 1 b\tc  ", False, "kestrel-v2").ids.tolist()
    qtbot.waitUntil(lambda: win.doc.trace is not None and bool(win.doc.trace.kestrel_steps), timeout=WAIT)
    labels = [r.label for r in win.doc.chunks]
    assert any("no entry: id 0" in x for x in labels) and any("trailing spaces dropped" in x for x in labels)
    note, _ = win.doc.trace_note()
    assert "board-engine steps" in note and "spaces lost" in note
    v = win.doc.chunk_steps(1)
    assert "Ġ retry failed: the space is lost" in v.rows[v.current].result


def test_chat_mode_qwen3_template(qtbot, win, qwen3_json):
    win.open_tokenizer(qwen3_json)
    qtbot.waitUntil(lambda: win.doc.tokenizer.format == "hf" and not win.doc.busy, timeout=WAIT)
    assert win.doc.chat_template().source.endswith("tokenizer_config.json")
    win.tabs.setCurrentWidget(win.chat)
    while win.messages.rowCount():
        win.messages.remove(0)
    win.messages.append("system", "You are terse.")
    win.messages.append("user", "Hi, naïve?")
    assert win.chat.gen_prompt.isChecked()
    preview = win.chat.preview.text()
    assert "Template error" not in win.chat.source.text()
    # Qwen3's own template: no default system prompt, no <think> prefix unless enable_thinking=False
    assert preview == ("<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nHi, naïve?<|im_end|>\n"
                       "<|im_start|>assistant\n")
    win.chat.inspect.click()
    settle(qtbot, win, preview)
    m = win.table_model
    specials = [m.index(r, 2).data() for r in range(m.rowCount()) if m.index(r, 7).data() == "special"]
    assert specials == ["<|im_start|>", "<|im_end|>", "<|im_start|>", "<|im_end|>", "<|im_start|>"]


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


def test_cancelled_result_never_replaces_a_newer_one(qtbot, win):
    settle(qtbot, win)
    big = "Hello naïve café 你好, the quick brown fox. " * 120_000  # ~5.8 MB
    assert len(big.encode()) > 5_000_000
    runner = win.doc._encode
    win.doc.set_text(big, immediate=True)
    qtbot.waitUntil(lambda: win.cancel_button.isVisible(), timeout=WAIT)  # the busy bar shows after 150 ms
    qtbot.mouseClick(win.cancel_button, Qt.MouseButton.LeftButton)
    assert not win.doc.busy and not win.cancel_button.isVisible()
    win.set_text("after the cancel")
    settle(qtbot, win, "after the cancel")
    newer = win.doc.analysis
    qtbot.waitUntil(lambda: not runner._alive, timeout=WAIT)  # the cancelled 5 MB job has ended
    qtbot.wait(50)  # its queued signals, if any, are delivered
    assert win.doc.analysis is newer and win.doc.analysis.text == "after the cancel"
    assert win.text.text() == "after the cancel" and win.table.model().rowCount() == len(newer)


def test_export_menu_csv_and_json(qtbot, win, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog
    win.set_text("Hello naïve")
    settle(qtbot, win, "Hello naïve")
    act = next(a for a in win.menuBar().actions() if a.text() == "&File").menu().actions()
    export_action = next(a for a in act if a.text().startswith("&Export"))
    assert export_action is win.export_action
    answers = [(str(tmp_path / "out.csv"), "CSV (*.csv)"), (str(tmp_path / "out"), "JSON (*.json)")]
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: answers.pop(0)))
    export_action.trigger()
    export_action.trigger()
    csv_lines = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[0].startswith("index,id,piece,text,hex") and len(csv_lines) == 4
    assert csv_lines[2].startswith("1,94880,ĠnaÃ¯, naï,20 6e 61 c3 af")
    import json
    rows = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))  # the JSON filter added .json
    assert [r["id"] for r in rows] == [9707, 94880, 586] and rows[1]["byte_end"] == 10
    assert not win.errors


def test_drop_file_opens_it(qtbot, win, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    from tokinspect.formats import vocab_bin
    vb = tmp_path / "vocab.bin"
    vb.write_bytes(vocab_bin.compile_vocab_bin(Tokenizer.default()).data)
    txt = tmp_path / "notes.txt"
    txt.write_text("dropped text, 你好", encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(vb)), QUrl.fromLocalFile(str(txt))])
    enter = QDragEnterEvent(QPoint(200, 200), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(win, enter)  # Qt delivers a drop only after an accepted drag-enter
    assert enter.isAccepted()
    ev = QDropEvent(QPointF(200, 200), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(win, ev)
    assert ev.isAccepted()
    qtbot.waitUntil(lambda: win.doc.tokenizer.format == "vocab_bin" and not win.doc.busy, timeout=WAIT)
    settle(qtbot, win, "dropped text, 你好")
    assert win.tokenizer_path == vb.resolve() and "·  vocab.bin  ·" in win.status_tok.text()
    assert win.text_source == "notes.txt"


def test_reload_when_file_changes(qtbot, win, tmp_path, monkeypatch):
    from tokenizers import AddedToken, decoders, models, pre_tokenizers
    from tokenizers import Tokenizer as HF

    from tokinspect.core.pieces import gpt2_byte_chars

    def save(added: str) -> None:
        vocab = {c: i for i, c in enumerate(gpt2_byte_chars())}
        vocab["ab"] = 256
        hf = HF(models.BPE(vocab, [("a", "b")]))
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        hf.decoder = decoders.ByteLevel()
        hf.add_special_tokens([AddedToken(added, special=True, normalized=False)])
        hf.save(str(path))

    path = tmp_path / "tiny" / "tokenizer.json"
    path.parent.mkdir()
    save("<|one|>")
    asked: list[str] = []

    def yes(parent, title, text, *a, **k):
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", staticmethod(yes))
    win.open_tokenizer(path)
    qtbot.waitUntil(lambda: win.doc.tokenizer.vocab_size == 258 and not win.doc.busy, timeout=WAIT)
    first = win.doc.tokenizer
    assert first.token_to_id("<|one|>") == 257
    assert str(path.resolve()) in win._watcher.files()
    save("<|two|>")
    qtbot.waitUntil(lambda: win.doc.tokenizer is not first and not win.doc.busy, timeout=WAIT)
    assert asked and str(path.resolve()) in asked[0]
    assert win.doc.tokenizer.token_to_id("<|two|>") == 257 and win.doc.tokenizer.token_to_id("<|one|>") is None
    assert str(path.resolve()) in win._watcher.files()  # still watched after the reload


def test_vocab_bin_audit(qtbot, win, tmp_path):
    from tokinspect.formats import vocab_bin
    vb = tmp_path / "vocab.bin"
    vb.write_bytes(vocab_bin.compile_vocab_bin(Tokenizer.default()).data)
    win.tabs.setCurrentWidget(win.vocab)
    win.open_tokenizer(vb)
    am, pane = win.audit_model, win.vocab.audit
    qtbot.waitUntil(lambda: am.result is not None and not am.busy, timeout=WAIT)
    assert not am.result.compiled and am.result.source == "vocab.bin"
    assert not pane.run_button.isVisible()
    assert "33 identical-bytes groups" in pane.summary.text()
    assert pane.groups_label.text() == "Identical stored bytes: 33 groups"
    g = am.groups
    assert g.rowCount() == 33
    assert [g.index(r, 1).data() for r in (0, 32)] == ["188 = 145338", "220 = 144242"]
    assert g.index(32, 2).data() == "c4 a0"
    p = am.probes
    assert [p.index(r, 0).data() for r in range(p.rowCount())] == ["220", "198", "255", "221"]
    assert [p.index(0, c).data() for c in range(4)] == ["220", "c4 a0", "20", "Ġ"]
    classes = {am.classes.index(r, 0).data(): am.classes.index(r, 1).data() for r in range(am.classes.rowCount())}
    assert classes["raw 7F (DEL)"] == "1"
    # another format: audited on request, from a compiled copy
    win.open_default()
    qtbot.waitUntil(lambda: win.doc.tokenizer.format == "tiktoken" and not win.doc.busy, timeout=WAIT)
    assert am.result is None and pane.run_button.isVisible() and g.rowCount() == 0
    qtbot.mouseClick(pane.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: am.result is not None and not am.busy, timeout=WAIT)
    assert am.result.compiled and g.rowCount() == 33 and "compiled as vocab.bin" in pane.summary.text()


def test_greedy_trace_steps(qtbot, win):
    win.set_text("Hello naïve")
    settle(qtbot, win, "Hello naïve")
    win.encoder_box.setCurrentText("greedy")
    qtbot.waitUntil(lambda: win.doc.trace is not None and bool(win.doc.trace.greedy_steps)
                    and win.doc.analysis.encoder == "greedy", timeout=WAIT)
    steps = win.doc.trace.greedy_steps
    assert win.trace.chunk_list.model().rowCount() == len(steps) == len(win.doc.analysis)
    assert "greedy steps" in win.trace.norm_note.text()
    win.sel.select(1)
    tp, tok = win.trace, win.doc.tokenizer
    assert tp.chunk_list.currentIndex().row() == 1
    rows = tp.steps.rows
    assert len(rows) == len(steps) and tp.steps.current == 1 and tp.slider.value() == 1
    row = rows[1]
    cand = [128, 220, 144242, 308, 4317, 94880]  # every entry that is a prefix of " naïve" at byte 5
    assert row.label == "@5" and row.symbols == [tok.id_to_token(c) for c in cand]
    assert row.merged == 5 and row.span == 1 and row.result.startswith("ĠnaÃ¯ = 94880 (6 B)")
    assert [len(tok.id_to_bytes(c)) for c in cand] == sorted(len(tok.id_to_bytes(c)) for c in cand)
    assert tp.step_label.text() == "row 2/3" and "greedy step 2 of 3" in tp.chunk_title.text()
    qtbot.mouseClick(tp.fwd, Qt.MouseButton.LeftButton)
    assert tp.steps.current == 2 and tp.steps.rows[2].label == "@10"
    # choosing a step in the list selects its token everywhere
    tp.chunk_list.setCurrentIndex(tp.chunk_list.model().index(0, 0))
    assert win.sel.index == 0 and win.table.currentIndex().row() == 0
    # back to bpe: merge steps again
    win.encoder_box.setCurrentText("bpe")
    qtbot.waitUntil(lambda: win.doc.trace is not None and win.doc.analysis.encoder == "bpe", timeout=WAIT)
    win.sel.select(1)
    assert tp.steps.rows[-1].result == "= 94880 586" and not tp.greedy


def test_export_and_copy(qtbot, win, tmp_path):
    win.set_text("Hello naïve")
    settle(qtbot, win, "Hello naïve")
    from tokinspect.analysis import export
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


def test_closing_the_window_shuts_the_board_down(qtbot, win, monkeypatch) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(win.board_model, "shutdown", lambda: calls.append(True))
    win.close()
    assert calls == [True]
