"""The Board tab with llama.cpp as the board's engine, driven for real (offscreen) against the test board
(sshd + aarch64 under qemu, tests/boardfix.py) running the real `llama-tokenize` cross-built from the
llama-cpp-python 0.3.36 sdist (tests/llamacpp_build.py; the board_llama fixture uploads it and the
vendored vocabulary GGUFs, as for tests/test_board_llamacpp.py).

The host tokenizer is Qwen2.5's tokenizer.json (NFC, HF's added-token rules) and the qwen2 GGUF sits beside
it as llama.cpp's recipe: the tab's tables equal `tokinspect board diff --llama-tokenize BINARY --gguf FILE
--json` on the same texts, row for row, each divergence tagged llamacpp-recipe; the tab's Identify names
llama.cpp; a missing llama-tokenize path or host GGUF is a message, not a run.
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402
from test_board_llamacpp import board_opts, cli_json  # noqa: E402
from test_gguf import gguf_file  # noqa: E402

from conftest import shared  # noqa: E402
from tokinspect import Tokenizer  # noqa: E402
from tokinspect.board.ssh import ProfileStore  # noqa: E402
from tokinspect.core.pieces import visible  # noqa: E402
from tokinspect.widgets.board_tab import BoardTab  # noqa: E402
from tokinspect.window.board import BoardModel  # noqa: E402

WAIT = 240_000
# NFC and combining marks (llama.cpp has no normalizer for BPE), a special token inside a word, plain text
LINES = ["café", "cafe\u0301 ok", "Hello world", "x<|im_end|>y", "e\u0301\u0302 ngstro\u0308m", " lead",
         "Everyone has the right to life, liberty and security of person.", "人人生而自由，在尊严和权利上一律平等。"]


@pytest.fixture(scope="module")
def host_json():
    return shared("qwen2.5", "tokenizer.json")


@pytest.fixture
def tab(qtbot, board, board_llama, host_json, tmp_path, monkeypatch):
    errors: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda parent, title, msg, *a, **k: errors.append(msg)))
    model = BoardModel(ProfileStore(tmp_path / "profiles.json"), known_hosts=[board.known_hosts],
                       app_known_hosts=tmp_path / "app_known_hosts")
    host = Tokenizer.from_file(host_json)
    t = BoardTab(model, lambda: host)
    t.errors = errors
    qtbot.addWidget(t)
    t.resize(1400, 900)
    t.show()
    f, p = t.pane.profile, board.profile()
    f.name.setText("qemu")
    f.host.setText(p.host)
    f.port.setValue(p.port)
    f.user.setText(p.user)
    f.key_file.setText(p.key_file)
    f.use_agent.setChecked(False)
    f.compiler.setText(p.compiler)
    f.run_prefix.setText(p.run_prefix)
    t._deploy_root = p.deploy_root
    e = t.pane.encode
    e.llama_tokenize_mode.setChecked(True)
    e.remote_tokenizer.setText(board_llama["files"]["qwen2"])
    e.llama_binary.setText(board_llama["exe"])
    e.gguf.setText(str(gguf_file("qwen2")))
    t.pane.input.setPlainText("\n".join(LINES))
    t.pane.profile.connect_button.click()
    qtbot.waitUntil(lambda: t.model.connected or bool(errors), timeout=WAIT)
    assert t.model.connected, errors
    return t


def cli_rows(r: dict) -> list[tuple[str, ...]]:
    """The texts table as the CLI's JSON says it: #, result, first divergence's rules, explained by, text."""
    out = []
    for k, row in enumerate(r["texts"]):
        divs = row["divergences"]
        result = "identical" if row["identical"] else f"{len(divs)} divergent"
        first = ", ".join(divs[0]["rules"]) if divs else ""
        out.append((str(k + 1), result, first, row["explained_by"] or "no emulation", visible(row["text"][:200])))
    return out


def test_tab_table_equals_the_cli_diff(qtbot, tab, board, board_llama, host_json, tmp_path, capsys):
    with qtbot.waitSignal(tab.model.runFinished, timeout=WAIT):
        tab.pane.run_button.click()
    assert not tab.errors, tab.errors
    run = tab.model.run
    assert run is not None and run.error is None and run.request.mode == "llama-tokenize"
    f = tmp_path / "texts.jsonl"
    f.write_text("".join(json.dumps(t) + "\n" for t in LINES), encoding="utf-8")
    _, r = cli_json(capsys, ["board", "diff", *board_opts(board), "--remote-tokenizer", board_llama["files"]["qwen2"],
                             "--llama-tokenize", board_llama["exe"], "--tokenizer", str(host_json),
                             "--gguf", str(gguf_file("qwen2")), "--jsonl", str(f), "--json"])
    assert r["error"] is None and [row["text"] for row in r["texts"]] == LINES
    assert tab.model.texts.rows == cli_rows(r)
    differ = [k for k, row in enumerate(r["texts"]) if not row["identical"]]
    assert len(differ) >= 2 and f"{r['summary']['identical']} of {len(LINES)} texts identical" in tab.pane.summary.text()
    for k, row in enumerate(r["texts"]):
        tab.pane.texts.selectRow(k)
        tab.show_text(k)
        shown = [(s, rules) for s, rules, *_ in tab.model.divergences.rows]
        assert shown == [(f"{a}–{b}", ", ".join(d["rules"])) for d in row["divergences"] for a, b in [d["byte_span"]]]
        assert tab.model.current is not None and list(tab.model.current.board_ids or []) == row["board_ids"]
        if k in differ:
            assert row["explained_by"] == "llama.cpp"
            assert all("llamacpp-recipe" in rules for _, rules in shown), shown


def test_identify_names_llama_cpp(qtbot, tab):
    with qtbot.waitSignal(tab.model.identifyFinished, timeout=WAIT):
        tab.pane.identify_button.click()
    assert not tab.errors, tab.errors
    assert tab.pane.summary.text().startswith("The board runs llama.cpp"), tab.pane.summary.text()


def test_missing_binary_or_gguf_is_a_message(qtbot, tab, tmp_path):
    e = tab.pane.encode
    e.llama_binary.setText("")
    tab.pane.run_button.click()
    assert tab.errors and "llama-tokenize" in tab.errors[-1] and tab.model.run is None
    e.llama_binary.setText("/bin/true")
    e.gguf.setText(str(tmp_path / "missing.gguf"))
    tab.pane.run_button.click()
    assert len(tab.errors) == 2 and "missing.gguf" in tab.errors[-1] and tab.model.run is None
