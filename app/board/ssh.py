"""SSH link to a board (paramiko): profiles, host-key checks, commands, SFTP.

Does: keep board profiles in a plain JSON file (never a password or a
passphrase: those are asked for through a callback and kept in memory, in
the connection, for reconnects); check the server's host key against
~/.ssh/known_hosts and the app's own known_hosts file, refusing an unknown
key (HostKeyUnknown, with the SHA256 fingerprint as OpenSSH prints it, and
`accept()` to trust it) and a changed one (HostKeyChanged); run commands
with their stdin streamed in and their stdout streamed out, with timeouts,
keep-alive and clean errors; copy files by SFTP.

Does not: use paramiko's SSHClient, AutoAddPolicy or ~/.ssh/id_* keys
implicitly (only the profile's key file and, if enabled, the ssh-agent);
put text into a command line (callers pass texts through stdin or files);
touch Qt. Every call blocks: run it off the UI thread.

Timeouts: `connect_timeout` covers the TCP connect, the SSH banner,
handshake and authentication; `command_timeout` is the default of `run`
(whole command) and of `run_lines` (longest silence on stdout).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import errno
import getpass
import hashlib
import json
import logging
import os
import re
import select
import socket
import stat
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import paramiko

# paramiko's transport thread logs a failed handshake with its traceback through the root
# logger's last-resort handler (26 lines on stderr before our one-line message); the failure
# reaches the user as a BoardError instead
logging.getLogger("paramiko").addHandler(logging.NullHandler())

# kind ("password" or "passphrase"), prompt -> the secret, or None to give up
SecretsProvider = Callable[[str, str], "str | None"]

_READ = 65536


# ---- paths -------------------------------------------------------------------
def config_dir() -> Path:
    """$XDG_CONFIG_HOME/tokinspect, else ~/.config/tokinspect."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tokinspect"


def default_profiles_path() -> Path:
    return config_dir() / "board_profiles.json"


def default_app_known_hosts() -> Path:
    """The app's own known_hosts file (keys the user accepted in the app)."""
    return config_dir() / "known_hosts"


def default_system_known_hosts() -> Path:
    return Path.home() / ".ssh" / "known_hosts"


# ---- errors --------------------------------------------------------------------
class BoardError(Exception):
    """Base of every board-link failure; str() is a message for the user."""


class Unreachable(BoardError):
    """No SSH server answered (refused, no route, timeout, no SSH banner)."""


class AuthFailed(BoardError):
    """The server refused every authentication method tried."""


class HostKeyUnknown(BoardError):
    """The server's host key is in no known_hosts file. Show `fingerprint_sha256`
    to the user; `accept()` writes the key to the app's known_hosts file."""

    def __init__(self, host_entry: str, key: paramiko.PKey, known_hosts_file: Path) -> None:
        self.host_entry = host_entry
        self.key = key
        self.key_type = key.get_name()
        self.fingerprint_sha256 = fingerprint_sha256(key)
        self.known_hosts_file = known_hosts_file
        super().__init__(
            f"the host key of {host_entry} is not known: {self.key_type} {self.fingerprint_sha256}. "
            "Accept it only if it is the board's own key (on the board: ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub)")

    def known_hosts_line(self) -> str:
        return f"{self.host_entry} {self.key_type} {self.key.get_base64()}"

    def accept(self, path: str | Path | None = None) -> Path:
        """Appends the key to `path` (default: the app's known_hosts file) and returns that path."""
        return append_known_host(Path(path) if path else self.known_hosts_file, self.known_hosts_line())


class HostKeyChanged(BoardError):
    """The server's host key differs from the one on record (or is revoked): refused."""

    def __init__(self, host_entry: str, key: paramiko.PKey, known: Sequence[str], revoked: bool = False) -> None:
        self.host_entry = host_entry
        self.key_type = key.get_name()
        self.fingerprint_sha256 = fingerprint_sha256(key)
        self.known = list(known)  # "type fingerprint (file:line)" of the keys on record
        what = "is REVOKED" if revoked else "has CHANGED"
        super().__init__(
            f"WARNING: the host key of {host_entry} {what}: the server offers {self.key_type} "
            f"{self.fingerprint_sha256}, on record: {'; '.join(self.known)}. Someone may be intercepting the "
            "connection, or the board was reinstalled; connection refused. Remove the old entry only if you know why")


class CommandTimeout(BoardError):
    """A command ran past its timeout; `stdout`/`stderr` hold what it had sent."""

    def __init__(self, message: str, stdout: bytes = b"", stderr: bytes = b"") -> None:
        super().__init__(message)
        self.stdout, self.stderr = stdout, stderr


class ConnectionLost(BoardError):
    """The connection dropped (during a command: `stdout`/`stderr` hold what had arrived)."""

    def __init__(self, message: str, stdout: bytes = b"", stderr: bytes = b"") -> None:
        super().__init__(message)
        self.stdout, self.stderr = stdout, stderr


class Cancelled(BoardError):
    """The caller's cancel event was set; the command's channel was closed."""

    def __init__(self, message: str, stdout: bytes = b"", stderr: bytes = b"") -> None:
        super().__init__(message)
        self.stdout, self.stderr = stdout, stderr


class RemoteCommandFailed(BoardError):
    """A command exited with a non-zero status."""

    def __init__(self, command: str, rc: int, stderr: bytes, stdout: bytes = b"") -> None:
        self.command, self.rc, self.stderr, self.stdout = command, rc, stderr, stdout
        tail = _tail(stderr) or _tail(stdout) or "(no output)"
        super().__init__(f"command exited with status {rc}: {command}\n{tail}")


class RemoteFileMissing(BoardError):
    """A file on the board does not exist."""

    def __init__(self, path: str, host: str = "the board") -> None:
        self.path = path
        super().__init__(f"{path} does not exist on {host}")


def _b(secret: str | None) -> bytes | None:
    return None if secret is None else secret.encode("utf-8")


def _tail(data: bytes, lines: int = 30) -> str:
    text = data.decode("utf-8", "replace").rstrip()
    return "\n".join(text.splitlines()[-lines:])


# ---- host keys -------------------------------------------------------------------
def fingerprint_sha256(key: paramiko.PKey) -> str:
    """"SHA256:<base64 without padding>", as `ssh-keygen -l` prints it."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def host_entry(host: str, port: int) -> str:
    """The known_hosts name of a server: `host`, or `[host]:port` off port 22."""
    return host if port == 22 else f"[{host}]:{port}"


def append_known_host(path: Path, line: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = ""
    if path.exists() and path.stat().st_size:
        with path.open("rb") as f:
            f.seek(-1, os.SEEK_END)
            prefix = "" if f.read(1) == b"\n" else "\n"
    with path.open("a", encoding="utf-8") as f:
        f.write(prefix + line + "\n")
    with contextlib.suppress(OSError):
        path.chmod(0o600)
    return path


@dataclass(frozen=True)
class KnownKey:
    key: paramiko.PKey
    source: str  # "file:line"
    revoked: bool


def _wildcard(pattern: str, name: str) -> bool:
    """OpenSSH host pattern: `*` and `?` are wildcards, everything else (`[` too) literal."""
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, name, re.IGNORECASE) is not None


def _pattern_matches(patterns: Sequence[str], name: str) -> bool:
    hit = False
    for pat in patterns:
        if pat.startswith("|1|"):
            if paramiko.HostKeys.hash_host(name, pat) == pat:
                hit = True
        elif pat.startswith("!"):
            if _wildcard(pat[1:], name):
                return False
        elif _wildcard(pat, name):
            hit = True
    return hit


def known_keys(files: Iterable[Path], name: str) -> list[KnownKey]:
    """Every key recorded for `name` (a host_entry) in the known_hosts files;
    unreadable files and lines paramiko cannot parse are skipped."""
    found = []
    for path in files:
        try:
            lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for n, raw in enumerate(lines, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            revoked = False
            if line.startswith("@"):
                marker, _, line = line.partition(" ")
                if marker != "@revoked":
                    continue  # @cert-authority: certificates are not supported
                revoked = True
            try:
                entry = paramiko.hostkeys.HostKeyEntry.from_line(line.strip(), lineno=n)
            except Exception:  # malformed or unsupported key type: OpenSSH skips those too
                continue
            if entry is None or entry.key is None:
                continue
            if _pattern_matches(entry.hostnames, name):
                found.append(KnownKey(entry.key, f"{path}:{n}", revoked))
    return found


_ALGOS = {"ssh-rsa": ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"]}


# ---- profiles ----------------------------------------------------------------------
@dataclass
class Profile:
    """How to reach a board and build on it. Never holds a secret."""

    name: str
    host: str
    port: int = 22
    user: str = ""                 # "" = the local user name
    key_file: str | None = None    # private key; None: ssh-agent / password only
    use_agent: bool = True
    compiler: str = "cc"           # the board's C compiler command (may carry flags)
    run_prefix: str = ""           # put before every deployed binary (e.g. qemu-aarch64-static)
    deploy_root: str = "~/.cache/tokinspect"
    connect_timeout: float = 10.0
    command_timeout: float = 120.0
    keepalive: int = 15            # seconds between keep-alive packets; 0: off

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> Profile:
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        if not isinstance(kw.get("name"), str) or not isinstance(kw.get("host"), str):
            raise BoardError(f"a board profile needs a name and a host: {d!r}")
        p = cls(**kw)  # type: ignore[arg-type]
        p.validate()
        return p

    def validate(self) -> None:
        if not self.name.strip():
            raise BoardError("a board profile needs a name")
        if not self.host.strip():
            raise BoardError(f"profile {self.name!r}: no host")
        if not isinstance(self.port, int) or not 0 < self.port < 65536:
            raise BoardError(f"profile {self.name!r}: port {self.port!r} is not 1..65535")
        if not self.compiler.strip():
            raise BoardError(f"profile {self.name!r}: no compiler command")
        for f in ("connect_timeout", "command_timeout"):
            v = getattr(self, f)
            if not isinstance(v, (int, float)) or v < 0:
                raise BoardError(f"profile {self.name!r}: {f} {v!r} is not a number of seconds")

    @property
    def login(self) -> str:
        return self.user or getpass.getuser()

    @property
    def label(self) -> str:
        return f"{self.login}@{self.host}:{self.port}"


class ProfileStore:
    """Board profiles in a JSON file (default: config_dir()/board_profiles.json)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_profiles_path()

    def load(self) -> list[Profile]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as e:
            raise BoardError(f"cannot read board profiles {self.path}: {e.strerror or e}") from e
        try:
            data = json.loads(raw)
            items = data["profiles"] if isinstance(data, dict) else data
            return [Profile.from_dict(d) for d in items]
        except (ValueError, KeyError, TypeError) as e:
            raise BoardError(f"{self.path} is not a board profile file: {e}") from e

    def save(self, profiles: Sequence[Profile]) -> None:
        for p in profiles:
            p.validate()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        text = json.dumps({"profiles": [p.to_dict() for p in profiles]}, indent=2, ensure_ascii=False)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, self.path)

    def get(self, name: str) -> Profile | None:
        return next((p for p in self.load() if p.name == name), None)

    def put(self, profile: Profile) -> None:
        """Adds the profile or replaces the one with its name."""
        rest = [p for p in self.load() if p.name != profile.name]
        self.save([*rest, profile])

    def remove(self, name: str) -> bool:
        profiles = self.load()
        rest = [p for p in profiles if p.name != name]
        if len(rest) == len(profiles):
            return False
        self.save(rest)
        return True


# ---- the connection -------------------------------------------------------------------
@dataclass(frozen=True)
class RunResult:
    rc: int
    stdout: bytes
    stderr: bytes

    def text(self) -> str:
        return self.stdout.decode("utf-8", "replace")


class BoardConnection:
    """One SSH connection to a board. Thread-safe for concurrent commands.

    secrets(kind, prompt) is asked for a password or a key passphrase when
    one is needed (or pass them directly); answers are kept in this object
    only, so reconnect() does not ask again. known_hosts: files read for
    host keys (default ~/.ssh/known_hosts); app_known_hosts: the app's own
    file, also read, and where accepted keys are written.
    """

    def __init__(self, profile: Profile, secrets: SecretsProvider | None = None, *, password: str | None = None,
                 passphrase: str | None = None, known_hosts: Sequence[str | Path] | None = None,
                 app_known_hosts: str | Path | None = None) -> None:
        profile.validate()
        self.profile = profile
        self._secrets = secrets
        self._password = password
        self._passphrase = passphrase
        self.known_hosts = [Path(p) for p in known_hosts] if known_hosts is not None else [
            default_system_known_hosts()]
        self.app_known_hosts = Path(app_known_hosts) if app_known_hosts else default_app_known_hosts()
        self._transport: paramiko.Transport | None = None
        self._sftp: paramiko.SFTPClient | None = None
        self._home: str | None = None
        self._lock = threading.RLock()

    # -- lifecycle
    def __enter__(self) -> BoardConnection:
        if not self.is_alive:
            self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def host_entry(self) -> str:
        return host_entry(self.profile.host, self.profile.port)

    @property
    def is_alive(self) -> bool:
        t = self._transport
        return t is not None and t.is_active() and t.is_authenticated()

    def connect(self) -> None:
        """Connects, checks the host key and authenticates. Raises Unreachable,
        HostKeyUnknown, HostKeyChanged or AuthFailed."""
        with self._lock:
            self.close()
            p = self.profile
            try:
                sock = socket.create_connection((p.host, p.port), timeout=p.connect_timeout or None)
            except TimeoutError as e:
                raise Unreachable(f"cannot reach {p.host}:{p.port}: no answer within {p.connect_timeout:g} s") from e
            except OSError as e:
                raise Unreachable(f"cannot reach {p.host}:{p.port}: {e.strerror or e}") from e
            t = paramiko.Transport(sock)
            try:
                t.banner_timeout = t.handshake_timeout = t.auth_timeout = p.connect_timeout or None
                self._prefer_known_key_types(t)
                try:
                    t.start_client(timeout=p.connect_timeout or None)  # returns at the timeout, unfinished
                    key = t.get_remote_server_key()
                except (paramiko.SSHException, EOFError, OSError) as e:
                    raise Unreachable(f"no SSH server answered at {p.host}:{p.port} within "
                                      f"{p.connect_timeout:g} s (handshake: {e})") from e
                self._check_host_key(key)
                self._authenticate(t)
                if p.keepalive > 0:
                    t.set_keepalive(int(p.keepalive))
            except BaseException:
                t.close()
                raise
            self._transport = t

    def reconnect(self) -> None:
        """Drops the current connection (if any) and connects again with the
        secrets already given."""
        self.connect()

    def close(self) -> None:
        with self._lock:
            if self._sftp is not None:
                with contextlib.suppress(Exception):
                    self._sftp.close()
            self._sftp = None
            if self._transport is not None:
                with contextlib.suppress(Exception):
                    self._transport.close()
            self._transport = None

    # -- host key
    def _known(self, name: str) -> list[KnownKey]:
        return known_keys([*self.known_hosts, self.app_known_hosts], name)

    def _prefer_known_key_types(self, t: paramiko.Transport) -> None:
        """Asks the server first for a key type already on record (as OpenSSH does)."""
        types: list[str] = []
        for k in self._known(self.host_entry):
            for name in _ALGOS.get(k.key.get_name(), [k.key.get_name()]):
                if name not in types:
                    types.append(name)
        if types:
            opts = t.get_security_options()
            avail = list(opts.key_types)
            first = [x for x in types if x in avail]
            opts.key_types = first + [x for x in avail if x not in first]

    def _check_host_key(self, key: paramiko.PKey) -> None:
        name = self.host_entry
        known = self._known(name)
        blob = key.asbytes()
        if any(k.revoked and k.key.asbytes() == blob for k in known):
            raise HostKeyChanged(name, key, [f"revoked ({k.source})" for k in known if k.revoked], revoked=True)
        if any(not k.revoked and k.key.asbytes() == blob for k in known):
            return
        others = [k for k in known if not k.revoked]
        if others:
            raise HostKeyChanged(name, key, [f"{k.key.get_name()} {fingerprint_sha256(k.key)} ({k.source})"
                                             for k in others])
        raise HostKeyUnknown(name, key, self.app_known_hosts)

    # -- authentication
    def _ask(self, kind: str, prompt: str) -> str | None:
        return self._secrets(kind, prompt) if self._secrets else None

    def _load_key(self, path: Path) -> paramiko.PKey:
        try:
            return paramiko.PKey.from_path(path, password=_b(self._passphrase))
        except FileNotFoundError as e:
            raise AuthFailed(f"key file {path} does not exist") from e
        except (paramiko.PasswordRequiredException, TypeError):
            pass  # encrypted (cryptography raises TypeError for an OpenSSH-format key without one)
        except (paramiko.SSHException, ValueError) as e:
            if self._passphrase is None:
                raise AuthFailed(f"cannot read key file {path}: {e}") from e
            self._passphrase = None  # wrong one kept from before: ask again
        phrase = self._ask("passphrase", f"Passphrase for key {path}")
        if phrase is None:
            raise AuthFailed(f"key file {path} is encrypted and no passphrase was given")
        try:
            k = paramiko.PKey.from_path(path, password=_b(phrase))
        except (paramiko.SSHException, ValueError, TypeError) as e:
            raise AuthFailed(f"cannot decrypt key file {path} (wrong passphrase?): {e}") from e
        self._passphrase = phrase
        return k

    def _authenticate(self, t: paramiko.Transport) -> None:
        p = self.profile
        user = p.login
        try:
            t.auth_none(user)
            return
        except paramiko.BadAuthenticationType as e:
            allowed = set(e.allowed_types)
        except paramiko.AuthenticationException:
            allowed = {"publickey", "password", "keyboard-interactive"}
        except (paramiko.SSHException, EOFError, OSError) as e:
            raise AuthFailed(f"{p.label}: connection closed during authentication: {e}") from e
        tried: list[str] = []

        def attempt(what: str, fn: Callable[[], object]) -> bool:
            try:
                fn()
                return t.is_authenticated()
            except paramiko.AuthenticationException:
                tried.append(f"{what} refused")
            except (paramiko.SSHException, EOFError, OSError) as e:
                raise AuthFailed(f"{p.label}: connection closed during authentication ({what}): {e}") from e
            return False

        if "publickey" in allowed:
            if p.key_file:
                path = Path(p.key_file).expanduser()
                key = self._load_key(path)
                if attempt(f"key {path} ({fingerprint_sha256(key)})", lambda: t.auth_publickey(user, key)):
                    return
            if p.use_agent:
                agent = paramiko.Agent()
                try:
                    keys = agent.get_keys()
                    if not keys:
                        tried.append("ssh-agent: no keys")
                    for k in keys:
                        if attempt(f"agent key {fingerprint_sha256(k)}", lambda k=k: t.auth_publickey(user, k)):
                            return
                finally:
                    agent.close()
        password_ok = {"password", "keyboard-interactive"} & allowed
        if password_ok:
            pw = self._password if self._password is not None else self._ask("password", f"Password for {p.label}")
            if pw is not None:
                if "password" in allowed and attempt("password", lambda: t.auth_password(user, pw)):
                    self._password = pw
                    return
                if "keyboard-interactive" in allowed and attempt(
                        "keyboard-interactive", lambda: t.auth_interactive(user, lambda _t, _i, ps: [pw for _ in ps])):
                    self._password = pw
                    return
                self._password = None
            else:
                tried.append("password: none given")
        if not tried:
            tried.append("no usable method (no key file, no agent key, no password)")
        raise AuthFailed(f"{p.label} refused authentication: {'; '.join(tried)} "
                         f"(server accepts: {', '.join(sorted(allowed)) or 'nothing'})")

    # -- commands
    def _require(self) -> paramiko.Transport:
        t = self._transport
        if t is None:
            raise ConnectionLost(f"not connected to {self.profile.label}")
        if not t.is_active():
            raise ConnectionLost(f"the connection to {self.profile.label} was lost; reconnect")
        return t

    def _open(self, cmd: str) -> paramiko.Channel:
        t = self._require()
        try:
            chan = t.open_session(timeout=self.profile.connect_timeout or None)
            chan.exec_command(cmd)
        except (paramiko.SSHException, EOFError, OSError) as e:
            raise ConnectionLost(f"the connection to {self.profile.label} failed to start a command: {e}") from e
        return chan

    @staticmethod
    def _feed(chan: paramiko.Channel, stdin: bytes | Iterable[bytes] | None, errors: list[BaseException]) -> None:
        try:
            if isinstance(stdin, (bytes, bytearray, memoryview)):
                chan.sendall(bytes(stdin))
            elif stdin is not None:
                for piece in stdin:
                    chan.sendall(piece)
        except Exception as e:  # the command exited early, the link died, or the caller's iterable failed
            errors.append(e)
        finally:
            with contextlib.suppress(Exception):
                chan.shutdown_write()

    def _stop(self, chan: paramiko.Channel) -> None:
        """Asks the board to end the command (SIGTERM, RFC 4254 6.9; OpenSSH refuses it for
        root logins), then closes the channel (the command then sees its stdin end and
        its stdout break)."""
        with contextlib.suppress(Exception):
            m = paramiko.Message()
            m.add_byte(paramiko.common.cMSG_CHANNEL_REQUEST)
            m.add_int(chan.remote_chanid)
            m.add_string("signal")
            m.add_boolean(False)
            m.add_string("TERM")
            chan.transport._send_user_message(m)  # type: ignore[union-attr]
        with contextlib.suppress(Exception):
            chan.close()

    def _exec(self, cmd: str, stdin: bytes | Iterable[bytes] | None, timeout: float | None, idle: bool,
              on_data: Callable[[bytes], None], cancel: threading.Event | None,
              partial: Callable[[], bytes]) -> tuple[int, bytes]:
        limit = self.profile.command_timeout if timeout is None else timeout
        chan = self._open(cmd)
        t = chan.get_transport()
        err = bytearray()
        werrors: list[BaseException] = []
        writer = threading.Thread(target=self._feed, args=(chan, stdin, werrors), daemon=True,
                                  name="board-stdin")
        writer.start()
        fd = chan.fileno()
        deadline = time.monotonic() + limit if limit else None
        try:
            while True:
                if cancel is not None and cancel.is_set():
                    self._stop(chan)
                    raise Cancelled(f"cancelled: {cmd}", partial(), bytes(err))
                wait = 0.2
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self._stop(chan)
                        kind = "sent nothing for" if idle else "did not finish within"
                        raise CommandTimeout(f"the board command {kind} {limit:g} s and was stopped: {cmd}",
                                             partial(), bytes(err))
                    wait = min(wait, left)
                select.select([fd], [], [], wait)
                while chan.recv_stderr_ready():
                    err += chan.recv_stderr(_READ)
                if chan.recv_ready():
                    data = chan.recv(_READ)
                    if data:
                        on_data(data)
                        if idle and deadline is not None:
                            deadline = time.monotonic() + limit
                    continue
                if chan.eof_received or chan.closed:
                    while chan.recv_stderr_ready():
                        err += chan.recv_stderr(_READ)
                    break
            # exit status: paramiko keeps exit_status at -1 until "exit-status" arrives (a
            # channel closed without one also sets status_event)
            while chan.exit_status == -1 and not chan.closed and t.is_active():
                if deadline is not None and time.monotonic() >= deadline:
                    self._stop(chan)
                    raise CommandTimeout(f"the board command closed its output but did not exit within {limit:g} s: "
                                         f"{cmd}", partial(), bytes(err))
                chan.status_event.wait(0.1)
            if chan.exit_status == -1:
                # closed without a status: the link died (the transport goes inactive right
                # after it closes its channels), or the command was killed by a signal
                settle = time.monotonic() + 0.5
                while t.is_active() and time.monotonic() < settle:
                    time.sleep(0.02)
                if not t.is_active():
                    raise ConnectionLost(f"the connection to {self.profile.label} was lost while running: {cmd}",
                                         partial(), bytes(err))
            return chan.exit_status, bytes(err)
        finally:
            with contextlib.suppress(Exception):
                chan.close()
            writer.join(1.0)

    def run(self, cmd: str, stdin: bytes | Iterable[bytes] | None = None, timeout: float | None = None, *,
            check: bool = False, cancel: threading.Event | None = None) -> RunResult:
        """Runs a shell command on the board, stdin fed from bytes or an iterable
        of byte chunks, and waits for it (at most `timeout` s, default the
        profile's command_timeout; 0: no limit). rc is -1 when the command ended
        without an exit status (killed by a signal). check=True raises
        RemoteCommandFailed on a non-zero exit. Raises CommandTimeout,
        ConnectionLost or Cancelled with the output received so far."""
        out = bytearray()
        rc, err = self._exec(cmd, stdin, timeout, False, out.extend, cancel, lambda: bytes(out))
        if check and rc != 0:
            raise RemoteCommandFailed(cmd, rc, err, bytes(out))
        return RunResult(rc, bytes(out), err)

    def run_lines(self, cmd: str, stdin_lines: bytes | Iterable[bytes] | None, on_line: Callable[[bytes], None],
                  cancel: threading.Event | None = None, timeout: float | None = None) -> RunResult:
        """Like run, but stdout goes to on_line(line) line by line as it arrives
        (without the b"\\n"; a last unterminated line is delivered at the end).
        `timeout` is the longest silence allowed on stdout. RunResult.stdout is
        empty; on an error the exception's stdout holds an undelivered partial line."""
        buf = bytearray()

        def feed(data: bytes) -> None:
            buf.extend(data)
            while True:
                i = buf.find(b"\n")
                if i < 0:
                    return
                line = bytes(buf[:i])
                del buf[:i + 1]
                on_line(line)

        rc, err = self._exec(cmd, stdin_lines, timeout, True, feed, cancel, lambda: bytes(buf))
        if buf:
            line = bytes(buf)
            buf.clear()
            on_line(line)
        return RunResult(rc, b"", err)

    # -- a forwarded channel
    def open_local_port(self, port: int, timeout: float | None = None) -> paramiko.Channel:
        """A byte stream to 127.0.0.1:port as seen from the board (an SSH "direct-tcpip" channel, RFC 4254
        7.2): reaches a service that listens only on the board's loopback, without opening a port on the
        board or on the host. The target is always the board's own 127.0.0.1. Raises BoardError when
        nothing listens there or the server refuses forwarding."""
        if not 0 < port < 65536:
            raise BoardError(f"port {port} is not a TCP port (1-65535)")
        t = self._require()
        try:
            return t.open_channel("direct-tcpip", ("127.0.0.1", port), ("127.0.0.1", 0),
                                  timeout=timeout or self.profile.connect_timeout or None)
        except paramiko.ChannelException as e:
            raise BoardError(f"{self.profile.label}: cannot reach 127.0.0.1:{port} on the board "
                             f"({e.text or 'refused'}; is the service running, is TCP forwarding allowed?)") from e
        except (paramiko.SSHException, EOFError, OSError) as e:
            raise ConnectionLost(f"the connection to {self.profile.label} failed to open a channel: {e}") from e

    # -- files
    def sftp(self) -> paramiko.SFTPClient:
        with self._lock:
            t = self._require()
            chan = self._sftp.get_channel() if self._sftp is not None else None
            if chan is None or chan.get_transport() is not t or chan.closed:
                try:
                    self._sftp = paramiko.SFTPClient.from_transport(t)
                except (paramiko.SSHException, EOFError, OSError) as e:
                    raise BoardError(f"{self.profile.label}: cannot start SFTP: {e}") from e
                if self._sftp is None:
                    raise BoardError(f"{self.profile.label}: cannot start SFTP")
            return self._sftp

    def _sftp_error(self, e: BaseException, op: str, path: str) -> BoardError:
        if isinstance(e, FileNotFoundError) or getattr(e, "errno", None) == errno.ENOENT:
            return RemoteFileMissing(path, self.profile.label)
        if self._transport is None or not self._transport.is_active():
            return ConnectionLost(f"the connection to {self.profile.label} was lost during SFTP {op} {path}")
        return BoardError(f"SFTP {op} {path} on {self.profile.label} failed: {e}")

    def home(self) -> str:
        """The login's home directory on the board."""
        if self._home is None:
            try:
                self._home = self.sftp().normalize(".")
            except (OSError, paramiko.SSHException) as e:
                raise self._sftp_error(e, "normalize", ".") from e
        return self._home

    def expand(self, path: str) -> str:
        """`~` and `~/...` made absolute (SFTP and quoted paths do not expand `~`)."""
        if path == "~":
            return self.home()
        if path.startswith("~/"):
            return self.home().rstrip("/") + "/" + path[2:]
        return path

    def stat(self, path: str) -> paramiko.SFTPAttributes:
        p = self.expand(path)
        try:
            return self.sftp().stat(p)
        except (OSError, paramiko.SSHException) as e:
            raise self._sftp_error(e, "stat", p) from e

    def exists(self, path: str) -> bool:
        try:
            self.stat(path)
            return True
        except RemoteFileMissing:
            return False

    def makedirs(self, path: str) -> None:
        """mkdir -p over SFTP."""
        p = self.expand(path)
        parts = [x for x in p.split("/") if x]
        cur = "/" if p.startswith("/") else ""
        sftp = self.sftp()
        for part in parts:
            cur = cur.rstrip("/") + "/" + part if cur else part
            try:
                if stat.S_ISDIR(sftp.stat(cur).st_mode or 0):
                    continue
                raise BoardError(f"{cur} exists on {self.profile.label} and is not a directory")
            except FileNotFoundError:
                pass
            except (OSError, paramiko.SSHException) as e:
                raise self._sftp_error(e, "stat", cur) from e
            try:
                sftp.mkdir(cur)
            except (OSError, paramiko.SSHException) as e:
                raise self._sftp_error(e, "mkdir", cur) from e

    def put_bytes(self, data: bytes, path: str, mode: int | None = None) -> None:
        p = self.expand(path)
        try:
            with self.sftp().open(p, "wb") as f:
                f.set_pipelined(True)
                f.write(data)
            if mode is not None:
                self.sftp().chmod(p, mode)
        except (OSError, paramiko.SSHException) as e:
            raise self._sftp_error(e, "put", p) from e

    def put_file(self, local: str | Path, path: str, mode: int | None = None) -> None:
        self.put_bytes(Path(local).read_bytes(), path, mode)

    def get_bytes(self, path: str, max_bytes: int | None = None) -> bytes:
        """A board file's contents (RemoteFileMissing if absent; BoardError past max_bytes)."""
        p = self.expand(path)
        try:
            sftp = self.sftp()
            if max_bytes is not None:
                size = sftp.stat(p).st_size or 0
                if size > max_bytes:
                    raise BoardError(f"{p} on {self.profile.label} has {size} bytes, more than the {max_bytes} allowed")
            with sftp.open(p, "rb") as f:
                f.prefetch()
                return f.read()
        except (OSError, paramiko.SSHException) as e:
            raise self._sftp_error(e, "get", p) from e

    def get_file(self, path: str, local: str | Path) -> None:
        Path(local).write_bytes(self.get_bytes(path))
