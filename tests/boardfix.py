"""The test board: a real OpenSSH sshd on 127.0.0.1 with temporary keys.

`sshd_board(workdir)` (a context manager, also used by bench/board.py)
generates an ed25519 host key and user key with ssh-keygen, writes
authorized_keys, a known_hosts file with the host key and an sshd_config,
starts `/usr/sbin/sshd -D` on a free port and stops it (its whole process
group) on exit. The board is aarch64: its Profile builds with
`aarch64-linux-gnu-gcc -static` and runs binaries under `qemu-aarch64-static`;
its deploy root is inside workdir, never the real ~/.cache.

Fixtures (module scope, so sshd starts once per test module): `board`,
`board_conn` (a connected BoardConnection), `vocab` (Qwen3 compiled to
vocab.bin on the host and uploaded), `deployed` (our engine built on the
board), `probe` (the board's own tokenizer, tests/board/probe.c: greedy ids).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"
BOARD_COMPILER = "aarch64-linux-gnu-gcc -static"
BOARD_RUN_PREFIX = "qemu-aarch64-static"
TOOLS = ("ssh-keygen", "aarch64-linux-gnu-gcc", "qemu-aarch64-static")


@dataclass
class Board:
    dir: Path
    port: int
    user: str
    host_key_pub: str        # "ssh-ed25519 AAAA..." of the server
    host_fingerprint: str    # as `ssh-keygen -l` prints it ("SHA256:...")
    user_key: Path
    known_hosts: Path        # holds the host key for [127.0.0.1]:port
    app_known_hosts: Path    # empty; where accepted keys go
    log: Path
    proc: subprocess.Popen
    deploy_root: Path
    home: Path               # HOME of the board's shell (holds `canary`)
    fake_calls: Path         # written by the fake reboot/shutdown/poweroff

    @property
    def host_entry(self) -> str:
        return f"[127.0.0.1]:{self.port}"

    def profile(self, **kw: object):
        from tokinspect.board.ssh import Profile

        base = Profile(name="qemu-aarch64", host="127.0.0.1", port=self.port, user=self.user,
                       key_file=str(self.user_key), use_agent=False, compiler=BOARD_COMPILER,
                       run_prefix=BOARD_RUN_PREFIX, deploy_root=str(self.deploy_root), connect_timeout=10.0,
                       command_timeout=120.0, keepalive=5)
        return replace(base, **kw)

    def connection(self, profile=None, **kw: object):
        from tokinspect.board.ssh import BoardConnection

        kw.setdefault("known_hosts", [self.known_hosts])
        kw.setdefault("app_known_hosts", self.app_known_hosts)
        return BoardConnection(profile or self.profile(), **kw)

    def keygen(self, name: str, passphrase: str = "") -> Path:
        """A new ed25519 key pair in the board dir (not authorized)."""
        key = self.dir / name
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", name, "-f", str(key)],
                       check=True, capture_output=True)
        return key

    def authorize(self, key: Path) -> None:
        with (self.dir / "authorized_keys").open("a") as f:
            f.write(key.with_suffix(".pub").read_text())

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _check_tools() -> None:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if not os.path.exists(SSHD):
        missing.append(SSHD)
    if missing:
        raise RuntimeError(f"the test board needs {', '.join(missing)} (tests/run.sh installs them)")


def _wait_banner(port: int, proc: subprocess.Popen, log: Path, seconds: float = 15.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"sshd exited with {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                if s.recv(64).startswith(b"SSH-"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"sshd did not answer on port {port} within {seconds} s")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


@contextlib.contextmanager
def sshd_board(workdir: Path) -> Iterator[Board]:
    _check_tools()
    workdir.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # privilege separation directory
    host_key = workdir / "host_ed25519"
    user_key = workdir / "user_ed25519"
    for key in (host_key, user_key):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", key.name, "-f", str(key)],
                       check=True, capture_output=True)
    host_pub = " ".join(host_key.with_suffix(".pub").read_text().split()[:2])
    fp = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f", str(host_key.with_suffix(".pub"))],
                        check=True, capture_output=True, text=True).stdout.split()[1]
    (workdir / "authorized_keys").write_text(user_key.with_suffix(".pub").read_text())
    app_known = workdir / "app_known_hosts"
    app_known.write_text("")
    deploy_root = workdir / "board-cache"
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    (home / "canary").write_text("still here\n")
    fakebin = workdir / "fakebin"
    fakebin.mkdir(exist_ok=True)
    for cmd in ("reboot", "shutdown", "poweroff"):
        fake = fakebin / cmd
        fake.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {workdir / 'fake-calls.log'}\n")
        fake.chmod(0o755)
    log = workdir / "sshd.log"
    user = os.environ.get("USER") or __import__("getpass").getuser()
    proc = None
    for _attempt in range(5):
        port = _free_port()
        cfg = workdir / "sshd_config"
        cfg.write_text("\n".join([
            f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {host_key}", f"PidFile {workdir / 'sshd.pid'}",
            f"AuthorizedKeysFile {workdir / 'authorized_keys'}", "StrictModes no", "UsePAM no",
            "PermitRootLogin prohibit-password", "PubkeyAuthentication yes", "PasswordAuthentication no",
            "KbdInteractiveAuthentication no", "Subsystem sftp internal-sftp", "LogLevel VERBOSE",
            "MaxSessions 64", "MaxStartups 64", "PrintMotd no", "ClientAliveInterval 0",
            # a sandbox: `~` of the board's shell is a scratch home with a canary file, and a fake
            # `reboot` first in PATH records any call, so an injection test cannot hurt the machine
            f"SetEnv HOME={home} PATH={fakebin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", ""]))
        log.write_text("")
        proc = subprocess.Popen([SSHD, "-D", "-f", str(cfg), "-E", str(log)], stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            _wait_banner(port, proc, log)
            break
        except RuntimeError:
            _stop(proc)
            if "Address already in use" not in log.read_text(errors="replace"):
                raise
    assert proc is not None
    (workdir / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_pub}\n")
    board = Board(workdir, port, user, host_pub, fp, user_key, workdir / "known_hosts", app_known, log, proc,
                  deploy_root, home, workdir / "fake-calls.log")
    try:
        yield board
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Board]:
    with sshd_board(tmp_path_factory.mktemp("board")) as b:
        yield b


@pytest.fixture(scope="module")
def board_conn(board: Board):
    conn = board.connection()
    conn.connect()
    yield conn
    conn.close()


PROBE_C = Path(__file__).with_name("board") / "probe.c"


@pytest.fixture(scope="module")
def vocab(board, board_conn, qwen3_json: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A vocab.bin compiled on the host from Qwen3, uploaded to a board path with a
    space and a quote in it; the host tokenizer loaded from the same file."""
    from tokinspect import Tokenizer
    from tokinspect.formats.vocab_bin import compile_vocab_bin

    host = tmp_path_factory.mktemp("vocab") / "vocab.bin"
    host.write_bytes(compile_vocab_bin(Tokenizer.from_file(qwen3_json)).data)
    board_path = f"{board.dir}/board files/it's vocab.bin"
    board_conn.makedirs(board_path.rsplit("/", 1)[0])
    board_conn.put_file(host, board_path)
    return {"host": host, "board": board_path, "tok": Tokenizer.from_file(host)}


@pytest.fixture(scope="module")
def deployed(board_conn):
    from tokinspect.board import deploy

    return deploy.ensure_built(board_conn)


@pytest.fixture(scope="module")
def probe(board_conn, deployed) -> str:
    """The board's own tokenizer: probe.c built on the board against the deployed engine."""
    from tokinspect.board import deploy

    return deploy.build_program(board_conn, deployed, "probe", PROBE_C.read_bytes())
