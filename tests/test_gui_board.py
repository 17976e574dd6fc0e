"""The Board tab driven for real (offscreen) against the test board (sshd +
aarch64 under qemu, tests/boardfix.py): a profile saved and loaded, an
unknown host key asked about and trusted, deploy + diff, the board's own
greedy command, a cancelled batch keeping its results, a dropped connection
reconnected, the side-by-side view jumping to the first divergence, and the
connection closed when the window shuts the board down."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from tokinspect.board.ssh import ProfileStore  # noqa: E402
from tokinspect.core.pieces import visible  # noqa: E402
from tokinspect.widgets.board_tab import BoardTab  # noqa: E402
from tokinspect.window.board import BoardModel  # noqa: E402

WAIT = 120_000
TEXTS = ["Everyone has the right to life, liberty and security of person.",
         "Ничто в настоящей Декларации не может быть истолковано",
         "Zażółć gęślą jaźń",
         "'; rm -rf ~; echo '",
         "$(reboot)",
         "人人生而自由，在尊严和权利上一律平等。"]


@pytest.fixture
def tab(qtbot, board, vocab, tmp_path, monkeypatch):
    errors: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda parent, title, msg, *a, **k: errors.append(msg)))
    model = BoardModel(ProfileStore(tmp_path / "profiles.json"), known_hosts=[board.known_hosts],
                       app_known_hosts=tmp_path / "app_known_hosts")
    t = BoardTab(model, lambda: vocab["tok"])
    t.errors = errors
    qtbot.addWidget(t)
    t.resize(1400, 900)
    t.show()
    f = t.pane.profile
    p = board.profile()
    f.name.setText("qemu")
    f.host.setText(p.host)
    f.port.setValue(p.port)
    f.user.setText(p.user)
    f.key_file.setText(p.key_file)
    f.use_agent.setChecked(False)
    f.compiler.setText(p.compiler)
    f.run_prefix.setText(p.run_prefix)
    t._deploy_root = p.deploy_root
    t.pane.encode.remote_tokenizer.setText(vocab["board"])
    t.pane.input.setPlainText("\n".join(TEXTS))
    return t


def connect(qtbot, t) -> None:
    t.pane.profile.connect_button.click()
    qtbot.waitUntil(lambda: t.model.connected or bool(t.errors), timeout=WAIT)
    assert t.model.connected, t.errors
    assert "connected to" in t.pane.profile.status.text()


def run(qtbot, t) -> None:
    with qtbot.waitSignal(t.model.runFinished, timeout=WAIT):
        t.pane.run_button.click()
    assert not t.errors, t.errors


def test_profile_saved_without_secrets_and_loaded(qtbot, tab, tmp_path) -> None:
    tab.pane.profile.save.click()
    assert tab.pane.profile.profiles.findText("qemu") >= 0
    data = (tmp_path / "profiles.json").read_text()
    assert "qemu-aarch64-static" in data and "password" not in data.lower()
    tab.pane.profile.host.setText("elsewhere")
    tab.show_profile("qemu")
    assert tab.pane.profile.host.text() == "127.0.0.1"


def test_deploy_and_diff_agree(qtbot, tab) -> None:
    connect(qtbot, tab)
    run(qtbot, tab)
    r = tab.model.run
    assert r is not None and r.error is None and r.summary.identical == len(TEXTS) and r.build in ("built", "reused")
    assert f"{len(TEXTS)} of {len(TEXTS)} texts identical" in tab.pane.summary.text()
    assert "✔ the board's tokenizer file is the host's" in tab.pane.checks.text()
    assert "aarch64" in tab.pane.checks.text() and "char unsigned" in tab.pane.checks.text()
    assert tab.model.texts.rowCount() == len(TEXTS) and tab.model.texts.rows[3][4] == visible(TEXTS[3])
    assert tab.pane.progress.value() == len(TEXTS)


def test_board_command_diverges_and_view_jumps_to_first(qtbot, tab, probe) -> None:
    e = tab.pane.encode
    e.command_mode.setChecked(True)
    e.command.setText(f"qemu-aarch64-static {probe} {{tokenizer}}")
    e.parser.setCurrentText("ints")
    connect(qtbot, tab)
    run(qtbot, tab)
    r = tab.model.run
    assert r is not None and r.error is None and 0 < r.summary.identical < len(TEXTS)
    first = next(i for i, d in enumerate(r.diffs) if not d.same)
    assert tab.pane.texts.currentIndex().row() == first
    d = tab.model.current
    assert d is r.diffs[first] and tab.model.divergences.rowCount() == len(d.divergences)
    assert tab.pane.text_host.text() == TEXTS[first]           # host side spells the text
    assert tab.pane.text_host.spans is not None and len(tab.pane.text_host.spans.marks) == len(d.divergences)
    assert tab.pane.text_host.selected == d.divergences[0].host[0]
    assert tab.pane.text_board.selected == d.divergences[0].board[0]
    labels = [row[0] for row in tab.model.kinds.rows]
    assert any("same bytes" in x or "different bytes" in x for x in labels)
    assert "rule longest-match-split" in labels                 # the greedy probe's rule, by replay
    named = {d.explained_by for d in r.diffs if not d.same}
    assert len(named) == 1 and None not in named          # one board, one name on every text it explains
    tok = tab.host_tokenizer()
    assert all(tok.encode(d.text, False, d.explained_by).ids.tolist() == list(d.board_ids)
               for d in r.diffs if not d.same)
    # another text: the views follow
    other = next(i for i, x in enumerate(r.diffs) if x.same)
    tab.pane.texts.selectRow(other)
    assert tab.model.current is r.diffs[other] and tab.model.divergences.rowCount() == 0


def test_unknown_host_key_is_asked_and_trusted(qtbot, tab, board, tmp_path, monkeypatch) -> None:
    tab.model.known_hosts = [tmp_path / "empty"]
    asked: list[str] = []

    def answer(parent, title, text, *a, **k):
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", staticmethod(answer))
    tab.pane.profile.connect_button.click()
    qtbot.waitUntil(lambda: tab.model.connected, timeout=WAIT)
    assert asked and board.host_fingerprint in asked[0]
    assert board.host_key_pub.split()[1] in Path(tab.model.app_known_hosts).read_text()


def test_unknown_host_key_declined_stays_disconnected(qtbot, tab, board, tmp_path, monkeypatch) -> None:
    tab.model.known_hosts = [tmp_path / "empty"]
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.No))
    with qtbot.waitSignal(tab.model.hostKeyUnknown, timeout=WAIT):
        tab.pane.profile.connect_button.click()
    qtbot.wait(200)
    assert not tab.model.connected and "refused" in tab.pane.profile.status.text()


def test_cancel_keeps_answered_texts_and_drop_reconnects(qtbot, tab, board, probe) -> None:
    e = tab.pane.encode
    e.command_mode.setChecked(True)
    # answers two texts, then stalls: cancel must end it and keep the two
    e.command.setText(f"head -n 2 | qemu-aarch64-static {probe} {{tokenizer}}; sleep 60")
    e.parser.setCurrentText("ints")
    connect(qtbot, tab)
    tab.pane.run_button.click()
    qtbot.waitUntil(lambda: tab.pane.progress.value() >= 2, timeout=WAIT)
    assert tab.pane.cancel_button.isEnabled()
    with qtbot.waitSignal(tab.model.runFinished, timeout=WAIT):
        tab.pane.cancel_button.click()
    r = tab.model.run
    assert r is not None and r.error and r.summary.texts == len(TEXTS)
    assert r.summary.missing == len(TEXTS) - 2 and r.diffs[0].board_ids is not None
    assert "the results so far are shown" in tab.pane.summary.text()
    # the connection drops (sshd kills it): the next run reconnects on its own
    tab.model.conn._transport.close()
    e.deploy.setChecked(True)
    run(qtbot, tab)
    assert tab.model.run.error is None and tab.model.run.summary.identical == len(TEXTS)


def test_kestrel_board_identified_rules_and_what_it_prints(qtbot, tab, probe) -> None:
    e = tab.pane.encode
    e.command_mode.setChecked(True)
    e.command.setText(f"qemu-aarch64-static {probe} -e kestrel-v1 --whole {{tokenizer}}")
    e.parser.setCurrentText("ints")
    e.input_format.setCurrentText("per-text")
    connect(qtbot, tab)
    with qtbot.waitSignal(tab.model.identifyFinished, timeout=WAIT):
        tab.pane.identify_button.click()
    assert tab.pane.summary.text().startswith("The board runs kestrel-v1")
    tab.pane.input.setPlainText("a 1 b\nok.<|im_end|>\nZażółć gęślą jaźń\nx\ty  z\n  Hello world  \n" + "\n".join(TEXTS))
    run(qtbot, tab)
    r = tab.model.run
    assert r is not None and r.error is None and r.summary.identical < r.summary.texts
    assert all(d.explained_by == "kestrel-v1" or d.same for d in r.diffs[:5])
    tab.pane.texts.selectRow(0)
    rules = [row[1] for row in tab.model.divergences.rows]
    assert "space-dropped" in rules and "no entry longer than Ġ starts with Ġ1" in tab.model.divergences.rows[0][4]
    assert "the board prints:  a1·b" in tab.pane.prints.text()
    tab.pane.texts.selectRow(1)
    assert "special-split" in [row[1] for row in tab.model.divergences.rows]
    tab.pane.texts.selectRow(2)
    assert "equal-bytes-lower-id" in " ".join(row[1] for row in tab.model.divergences.rows)
    shots = os.environ.get("TOKINSPECT_SHOTS")   # set to render the README's screenshot of this view
    if shots:
        tab.pane.texts.selectRow(0)
        tab.resize(1500, 940)
        qtbot.wait(300)
        tab.grab().save(str(Path(shots) / "board-kestrel.png"))


def test_shutdown_closes_the_connection(qtbot, tab) -> None:
    connect(qtbot, tab)
    conn = tab.model.conn
    tab.model.shutdown()
    assert tab.model.conn is None and not tab.model.connected
    qtbot.waitUntil(lambda: not conn.is_alive, timeout=WAIT)
