"""The board link's transport over a real OpenSSH sshd (tests/boardfix.py):
host keys, authentication, commands, streaming, SFTP, and each failure with
its error type, a clear message and the output received so far."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from tokinspect.board import ssh
from tokinspect.board.ssh import (
    AuthFailed,
    Cancelled,
    CommandTimeout,
    ConnectionLost,
    HostKeyChanged,
    HostKeyUnknown,
    Profile,
    ProfileStore,
    RemoteCommandFailed,
    RemoteFileMissing,
    Unreachable,
)

INJECTION = "'; rm -rf ~; echo '\n$(reboot)\n`reboot`; \"$(shutdown -h now)\" \\ \x00 end"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- profiles -----------------------------------------------------------------
def test_profile_store_round_trip_keeps_no_secret(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path / "cfg" / "profiles.json")
    assert store.load() == []
    p = Profile(name="rk3588", host="10.0.0.7", port=2222, user="radxa", key_file="~/.ssh/id_ed25519",
                use_agent=False, compiler="gcc", run_prefix="", deploy_root="/data/tokinspect")
    store.put(p)
    store.put(Profile(name="other", host="b"))
    store.put(Profile(name="rk3588", host="10.0.0.8"))  # replaces by name
    loaded = {x.name: x for x in store.load()}
    assert loaded["rk3588"].host == "10.0.0.8" and loaded["other"].host == "b"
    store.put(p)
    assert store.get("rk3588") == p
    raw = store.path.read_text()
    assert "password" not in raw and "passphrase" not in raw
    assert oct(store.path.stat().st_mode & 0o777) == "0o600"
    # a stored secret (hand-edited file) is ignored, never loaded
    data = json.loads(raw)
    data["profiles"][0]["password"] = "hunter2"
    store.path.write_text(json.dumps(data))
    assert "hunter2" not in repr(store.load())
    assert store.remove("other") and not store.remove("other")
    with pytest.raises(ssh.BoardError, match="port"):
        Profile(name="x", host="h", port=70000).validate()


def test_profile_store_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "profiles.json"
    path.write_text("{not json")
    with pytest.raises(ssh.BoardError, match="not a board profile file"):
        ProfileStore(path).load()


# ---- connecting ------------------------------------------------------------------
def test_connect_run_and_streams(board_conn) -> None:
    r = board_conn.run("echo out; echo err >&2; exit 3")
    assert (r.rc, r.stdout, r.stderr) == (3, b"out\n", b"err\n")
    assert board_conn.run("cat", stdin=b"abc").stdout == b"abc"
    assert board_conn.run("cat", stdin=iter([b"a", b"b\n", b"c"])).stdout == b"ab\nc"
    big = os.urandom(3 << 20)
    assert board_conn.run("cat", stdin=big).stdout == big  # past paramiko's 2 MB window both ways
    assert board_conn.is_alive


def test_run_lines_delivers_lines_as_they_arrive(board_conn) -> None:
    seen: list[tuple[bytes, float]] = []
    t0 = time.monotonic()
    r = board_conn.run_lines("for i in 1 2 3; do echo line$i; sleep 0.4; done; printf tail",
                             None, lambda line: seen.append((line, time.monotonic() - t0)))
    assert r.rc == 0
    assert [x for x, _ in seen] == [b"line1", b"line2", b"line3", b"tail"]
    assert seen[0][1] < seen[2][1] - 0.5, seen  # the first line came before the command ended


def test_injection_text_reaches_the_board_as_data(board, board_conn) -> None:
    data = INJECTION.encode()
    assert board_conn.run("cat", stdin=data).stdout == data
    target = f"{board.dir}/it's a $(reboot) dir/x.txt"
    board_conn.makedirs(target.rsplit("/", 1)[0])
    board_conn.put_bytes(data, target)
    assert Path(target).read_bytes() == data
    assert board_conn.get_bytes(target) == data
    assert (board.home / "canary").exists()
    assert not board.fake_calls.exists(), board.fake_calls.read_text()


def test_sftp_and_home(board, board_conn) -> None:
    assert board_conn.expand("~/x") == board_conn.home().rstrip("/") + "/x"
    assert board_conn.expand("/abs") == "/abs"
    d = f"{board.dir}/sftp/a/b"
    board_conn.makedirs(d)
    board_conn.put_bytes(b"hello", d + "/f", mode=0o600)
    assert board_conn.stat(d + "/f").st_size == 5 and board_conn.exists(d + "/f")
    assert board_conn.get_bytes(d + "/f") == b"hello"
    with pytest.raises(RemoteFileMissing, match="/no/such/file does not exist"):
        board_conn.get_bytes("/no/such/file")
    with pytest.raises(ssh.BoardError, match="more than the 2 allowed"):
        board_conn.get_bytes(d + "/f", max_bytes=2)


def test_unknown_host_key_is_refused_until_accepted(board, tmp_path: Path) -> None:
    app_known = tmp_path / "app_known_hosts"
    conn = board.connection(known_hosts=[tmp_path / "empty_known_hosts"], app_known_hosts=app_known)
    with pytest.raises(HostKeyUnknown) as ei:
        conn.connect()
    e = ei.value
    assert e.fingerprint_sha256 == board.host_fingerprint  # as ssh-keygen -l prints it
    assert e.key_type == "ssh-ed25519" and e.host_entry == board.host_entry
    assert board.host_fingerprint in str(e) and "not known" in str(e)
    assert not conn.is_alive and not app_known.exists()
    assert e.accept() == app_known
    assert app_known.read_text() == f"{board.host_entry} {board.host_key_pub}\n"
    conn.connect()
    assert conn.run("echo ok").stdout == b"ok\n"
    conn.close()


def test_changed_host_key_is_refused_with_a_warning(board, tmp_path: Path) -> None:
    other = board.keygen("impostor_host_key")
    known = tmp_path / "known_hosts"
    pub = " ".join(other.with_suffix(".pub").read_text().split()[:2])
    known.write_text(f"# comment\n[127.0.0.1]:{board.port} {pub}\n")
    conn = board.connection(known_hosts=[known], app_known_hosts=tmp_path / "app")
    with pytest.raises(HostKeyChanged) as ei:
        conn.connect()
    msg = str(ei.value)
    assert "CHANGED" in msg and board.host_fingerprint in msg and f"{known}:2" in msg, msg
    assert not conn.is_alive
    # hashed entries (ssh-keygen -H) are understood too
    hashed = ssh.paramiko.HostKeys.hash_host(board.host_entry)
    known.write_text(f"{hashed} {board.host_key_pub}\n")
    conn.connect()
    conn.close()


def test_wrong_user_key_fails_authentication(board) -> None:
    stranger = board.keygen("stranger_key")
    conn = board.connection(board.profile(key_file=str(stranger)))
    with pytest.raises(AuthFailed) as ei:
        conn.connect()
    msg = str(ei.value)
    assert "refused authentication" in msg and "stranger_key" in msg and "publickey" in msg, msg
    assert not conn.is_alive


def test_missing_key_file(board, tmp_path: Path) -> None:
    conn = board.connection(board.profile(key_file=str(tmp_path / "nope")))
    with pytest.raises(AuthFailed, match="does not exist"):
        conn.connect()


def test_key_passphrase_is_asked_once_and_kept_in_memory(board, tmp_path: Path) -> None:
    key = board.keygen("locked_key", passphrase="s3cret phrase")
    board.authorize(key)
    asked: list[tuple[str, str]] = []

    def secrets(kind: str, prompt: str) -> str:
        asked.append((kind, prompt))
        return "s3cret phrase"

    profile = board.profile(key_file=str(key))
    conn = board.connection(profile, secrets=secrets)
    conn.connect()
    conn.reconnect()
    assert conn.run("echo ok").stdout == b"ok\n"
    assert [k for k, _ in asked] == ["passphrase"] and "locked_key" in asked[0][1]
    store = ProfileStore(tmp_path / "p.json")
    store.put(profile)
    assert "s3cret" not in store.path.read_text()
    conn.close()
    bad = board.connection(profile, secrets=lambda kind, prompt: "wrong")
    with pytest.raises(AuthFailed, match="wrong passphrase"):
        bad.connect()
    none = board.connection(profile, secrets=lambda kind, prompt: None)
    with pytest.raises(AuthFailed, match="no passphrase was given"):
        none.connect()


def test_unreachable_port(board) -> None:
    port = _free_port()
    conn = board.connection(board.profile(port=port, connect_timeout=3))
    t0 = time.monotonic()
    with pytest.raises(Unreachable) as ei:
        conn.connect()
    assert time.monotonic() - t0 < 3
    assert f"127.0.0.1:{port}" in str(ei.value) and "refused" in str(ei.value).lower(), str(ei.value)


def test_connect_timeout_on_a_silent_server(board) -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    conn = board.connection(board.profile(port=port, connect_timeout=1.0))
    t0 = time.monotonic()
    try:
        with pytest.raises(Unreachable) as ei:
            conn.connect()
    finally:
        srv.close()
    assert time.monotonic() - t0 < 5
    assert "no SSH server answered" in str(ei.value) and "1 s" in str(ei.value), str(ei.value)


# ---- commands: failures ---------------------------------------------------------------
def test_command_timeout_keeps_the_output(board_conn) -> None:
    t0 = time.monotonic()
    with pytest.raises(CommandTimeout) as ei:
        board_conn.run("echo started; sleep 30", timeout=1.0)
    assert time.monotonic() - t0 < 5
    assert ei.value.stdout == b"started\n"
    assert "did not finish within 1 s" in str(ei.value) and "sleep 30" in str(ei.value)
    assert board_conn.run("echo still usable").rc == 0


def test_command_exit_status_non_zero(board_conn) -> None:
    with pytest.raises(RemoteCommandFailed) as ei:
        board_conn.run("echo partial; echo 'no such thing' >&2; exit 7", check=True)
    e = ei.value
    assert (e.rc, e.stdout, e.stderr) == (7, b"partial\n", b"no such thing\n")
    assert "status 7" in str(e) and "no such thing" in str(e)


def test_cancel_stops_a_streaming_command(board_conn) -> None:
    cancel = threading.Event()
    lines: list[bytes] = []

    def on_line(line: bytes) -> None:
        lines.append(line)
        cancel.set()

    with pytest.raises(Cancelled):
        board_conn.run_lines("while true; do echo x; sleep 0.1; done", None, on_line, cancel)
    assert lines[:1] == [b"x"]


def test_connection_killed_mid_command_then_reconnect(board) -> None:
    conn = board.connection()
    conn.connect()
    session_pid = int(conn.run("echo $PPID").stdout)  # this connection's sshd process
    lines: list[bytes] = []

    def on_line(line: bytes) -> None:
        lines.append(line)
        if len(lines) == 3:
            os.kill(session_pid, signal.SIGKILL)

    with pytest.raises(ConnectionLost) as ei:
        conn.run_lines("i=0; while [ $i -lt 100 ]; do echo n$i; i=$((i+1)); sleep 0.05; done", None, on_line)
    assert lines[:3] == [b"n0", b"n1", b"n2"] and len(lines) < 100
    assert "was lost" in str(ei.value)
    assert not conn.is_alive
    with pytest.raises(ConnectionLost, match="reconnect"):
        conn.run("true")
    conn.reconnect()
    assert conn.is_alive and conn.run("echo back").stdout == b"back\n"
    conn.close()


def test_no_auto_add_policy_anywhere() -> None:
    root = Path(__file__).resolve().parents[1]
    files = [*root.glob("app/board/*.py"), root / "tests" / "boardfix.py", root / "bench" / "board.py"]
    for f in files:
        if f.exists():
            assert not re.search(r"AutoAddPolicy\(|WarningPolicy\(|set_missing_host_key_policy", f.read_text()), f
