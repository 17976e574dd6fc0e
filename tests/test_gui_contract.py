"""The Contract tab, driven for real (offscreen): a contract frozen from a changed tokenizer (an added
token's lstrip flipped) checked against the open one, failed samples first, one opened in the Inspect
panes at its first difference; a malformed contract is a message naming path and reason; the
vocabulary diff of the Compare tab's A and B, blockers first.

Core: the open tokenizer is the embedded default; the changed one is its tokenizer.json (qwen3_json).
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from tokinspect.contract import schema  # noqa: E402
from tokinspect.contract.bundle import open_bundle  # noqa: E402
from tokinspect.contract.freeze import freeze  # noqa: E402

WAIT = 30_000


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


def test_contract_tab_fails_the_changed_samples_and_opens_one(qtbot, win, tmp_path, qwen3_json) -> None:
    data = json.loads(qwen3_json.read_text(encoding="utf-8"))
    next(a for a in data["added_tokens"] if a["content"] == "<|im_end|>")["lstrip"] = True
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "tokenizer.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    path = tmp_path / "contract.json"
    path.write_text(schema.dump(freeze(open_bundle(tmp_path / "old" / "tokenizer.json"))), encoding="utf-8")
    win.tabs.setCurrentWidget(win.contract)
    win.contract_model.open(path)
    qtbot.waitUntil(lambda: win.contract_model.report is not None and not win.contract_model.busy, timeout=WAIT)
    rep = win.contract_model.report
    assert "specials" in rep.layers and "pieces" in rep.layers
    table = win.contract.samples
    failed = [s for s in table.rows if not s.ok]
    assert failed and table.rows[: len(failed)] == failed     # failed first
    assert table.data(table.index(0, 0)) == "✗" and "special" == table.data(table.index(0, 1))
    assert "changed" in win.contract.summary.text() and "specials" in win.contract.summary.text()
    assert any("lstrip True is now False" in line for line in win.contract.facts.toPlainText().splitlines())
    s = failed[0]
    win.contract._activated(table.index(0, 0))
    qtbot.waitUntil(lambda: win.doc.analysis is not None and win.doc.analysis.text == s.text and not win.doc.busy,
                    timeout=WAIT)
    assert win.tabs.currentIndex() == 0
    a = win.doc.analysis
    # the selected token is the sample's first differing token (the contract's token index s.token)
    now = win.doc.tokenizer.encode(s.text)
    k = win.sel.index
    assert 0 <= k < len(a)
    start = int(now.offsets[k][0])
    assert start <= s.char < max(int(now.offsets[k][1]), start + 1)


def test_malformed_contract_is_a_message(qtbot, win, tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "tokinspect contract", "version": 2, "files": 3}', encoding="utf-8")
    win.contract_model.open(bad)
    assert win.errors and win.errors[-1][0] == "Contract"
    assert f"{bad}: $: missing member" in win.errors[-1][1] or f"{bad}: $.files" in win.errors[-1][1]
    assert win.contract_model.contract is None


def test_vocabulary_diff_view_blockers_first(qtbot, win, tmp_path, qwen3_json) -> None:
    data = json.loads(qwen3_json.read_text(encoding="utf-8"))
    vocab = data["model"]["vocab"]
    by_id = {i: t for t, i in vocab.items()}
    # B: ids 418 and 419 swap pieces (two blockers), one added token more (appended)
    vocab[by_id[418]], vocab[by_id[419]] = 419, 418
    data["added_tokens"].append(dict(data["added_tokens"][-1], id=data["added_tokens"][-1]["id"] + 1,
                                     content="<|extra|>"))
    (tmp_path / "b.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    win.compare_model.load_b(str(tmp_path / "b.json"))
    qtbot.waitUntil(lambda: win.compare_model.tok_b is not None, timeout=WAIT)
    win.contract.diff_button.click()
    qtbot.waitUntil(lambda: win.vocab_diff_model.result is not None, timeout=WAIT)
    d = win.vocab_diff_model.result
    assert [i for i, _, _ in d.changed] == [418, 419]
    rows = win.contract.rows
    assert [rows.data(rows.index(r, 0)) for r in range(2)] == ["blocker", "blocker"]
    assert rows.data(rows.index(0, 1)) == "418"
    assert "<|extra|>" in [rows.data(rows.index(r, 3)) for r in range(rows.rowCount())]
    assert "2 blockers" in win.contract.diff_summary.text()
