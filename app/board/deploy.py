"""Deploy our engine to a board: upload the C sources, build them there.

Does: find the engine's sources (src/*.[ch], cli/*.[ch]: shipped inside the
installed package as tokinspect/native/, or the repository's native/ for
an editable install), hash them, upload them by SFTP to
<deploy_root>/<hash>/ on the board, build `tokcore` there with the
profile's compiler in one command (its output kept for BuildFailed), and
reuse that build while the hash and the compiler command are the same and
the binary runs. Every path put into a command is quoted; the compiler and
the run prefix are split like a shell would and each word quoted.

Does not: cross-compile on the host (the board's own compiler builds), or
delete old builds.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .ssh import BoardConnection, BoardError, RemoteFileMissing

BUILD_FLAGS = "-std=c11 -O2"
SOURCE_GLOBS = ("src/*.c", "src/*.h", "cli/*.c", "cli/*.h")
STAMP = "build.json"


class BuildFailed(BoardError):
    """The board's compiler failed; `output` is everything it printed."""

    def __init__(self, message: str, command: str, output: str) -> None:
        self.command, self.output = command, output
        tail = "\n".join(output.rstrip().splitlines()[-40:])
        super().__init__(f"{message}\n$ {command}\n{tail}")


class CompilerMissing(BoardError):
    """The profile's compiler command does not exist on the board."""


def native_dir() -> Path:
    """The engine sources: <package>/native (installed) or <repo>/native (editable)."""
    pkg = Path(__file__).resolve().parents[1]
    for cand in (pkg / "native", pkg.parent / "native"):
        if (cand / "src" / "tokcore.h").is_file() and (cand / "cli" / "tokcore.c").is_file():
            return cand
    raise BoardError(f"the engine's C sources are not installed ({pkg / 'native'} is missing): reinstall tokinspect")


def native_sources(root: Path | None = None) -> dict[str, bytes]:
    """{"src/bpe.c": contents, ...} in sorted order."""
    root = root or native_dir()
    files = sorted({p for g in SOURCE_GLOBS for p in root.glob(g)})
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files}


def source_hash(files: dict[str, bytes]) -> str:
    """16 hex digits of the sha256 over every (path, contents) pair."""
    h = hashlib.sha256()
    for name in sorted(files):
        data = files[name]
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:16]


def command_words(cmd: str) -> str:
    """A profile's compiler or run prefix, split like a shell and each word quoted."""
    try:
        return " ".join(shlex.quote(w) for w in shlex.split(cmd))
    except ValueError as e:
        raise BoardError(f"cannot parse the command {cmd!r}: {e}") from e


def run_prefix(conn: BoardConnection) -> str:
    """The profile's run prefix, quoted, with a trailing space (or "")."""
    pre = command_words(conn.profile.run_prefix)
    return pre + " " if pre else ""


@dataclass(frozen=True)
class Deployment:
    binary: str          # absolute path of tokcore on the board
    dir: str             # <deploy_root>/<hash>
    source_hash: str
    built: bool          # False: an earlier build was reused
    seconds: float       # upload + build (or the reuse check)
    build_output: str    # the compiler's output ("" when reused)


def _check_compiler(conn: BoardConnection) -> None:
    words = shlex.split(conn.profile.compiler)
    if not words:
        raise CompilerMissing("the profile has no compiler command")
    r = conn.run(f'command -v {shlex.quote(words[0])} >/dev/null 2>&1 || {{ printf %s "$PATH"; exit 127; }}')
    if r.rc != 0:
        raise CompilerMissing(f"the board has no C compiler {words[0]!r} (profile setting 'compiler' is "
                              f"{conn.profile.compiler!r}; PATH on the board: {r.text() or '?'})")


def _compile(conn: BoardConnection, workdir: str, out: str, sources: str, timeout: float | None) -> str:
    """Runs the compiler in workdir; returns its output or raises BuildFailed/CompilerMissing."""
    cc = command_words(conn.profile.compiler)
    o = shlex.quote(out)
    cmd = (f"cd {shlex.quote(workdir)} && {{ {cc} {BUILD_FLAGS} -o {o}.tmp.$$ {sources} -lm 2>&1; rc=$?; "
           f"if [ $rc = 0 ]; then mv -f {o}.tmp.$$ {o}; else rm -f {o}.tmp.$$; fi; exit $rc; }}")
    limit = timeout if timeout is not None else max(conn.profile.command_timeout, 600.0)
    r = conn.run(cmd, timeout=limit)
    output = r.stdout.decode("utf-8", "replace") + r.stderr.decode("utf-8", "replace")
    if r.rc == 127:
        raise CompilerMissing(f"the board could not run the compiler {conn.profile.compiler!r}: {output.strip()}")
    if r.rc != 0:
        raise BuildFailed(f"the build on {conn.profile.label} failed (exit {r.rc})", cmd, output)
    return output


def _runs(conn: BoardConnection, binary: str) -> tuple[bool, str]:
    r = conn.run(f"{run_prefix(conn)}{shlex.quote(binary)} version")
    return r.rc == 0, (r.stdout + r.stderr).decode("utf-8", "replace").strip()


def _stamp(conn: BoardConnection, d: str) -> dict[str, object] | None:
    try:
        data = json.loads(conn.get_bytes(f"{d}/{STAMP}", max_bytes=65536))
    except (RemoteFileMissing, ValueError):
        return None
    return data if isinstance(data, dict) else None


def ensure_built(conn: BoardConnection, *, force: bool = False, timeout: float | None = None,
                    progress: Callable[[str], None] | None = None) -> Deployment:
    """tokcore built on the board from our sources; an earlier build with the
    same source hash and compiler command is reused (built=False) when it runs.
    Raises CompilerMissing, BuildFailed, or the connection's errors."""
    say = progress or (lambda _msg: None)
    t0 = time.monotonic()
    files = native_sources()
    h = source_hash(files)
    d = conn.expand(conn.profile.deploy_root).rstrip("/") + "/" + h
    binary = d + "/tokcore"
    if not force:
        stamp = _stamp(conn, d)
        if stamp and stamp.get("compiler") == conn.profile.compiler and stamp.get("hash") == h:
            ok, _ = _runs(conn, binary)
            if ok:
                return Deployment(binary, d, h, False, time.monotonic() - t0, "")
    _check_compiler(conn)
    say(f"uploading {len(files)} source files to {d}")
    for sub in sorted({name.rsplit("/", 1)[0] for name in files}):
        conn.makedirs(f"{d}/{sub}")
    for name, data in files.items():
        conn.put_bytes(data, f"{d}/{name}")
    say(f"building with {conn.profile.compiler}")
    output = _compile(conn, d, "tokcore", "src/*.c cli/*.c", timeout)
    ok, msg = _runs(conn, binary)
    if not ok:
        raise BuildFailed(f"tokcore was built but does not run on {conn.profile.label} (run prefix "
                          f"{conn.profile.run_prefix!r})", f"{run_prefix(conn)}{binary} version", msg)
    conn.put_bytes(json.dumps({"hash": h, "compiler": conn.profile.compiler, "built": time.time()}).encode(),
                   f"{d}/{STAMP}")
    return Deployment(binary, d, h, True, time.monotonic() - t0, output)


def build_program(conn: BoardConnection, dep: Deployment, name: str, source: bytes,
                  timeout: float | None = None) -> str:
    """Builds one more C program on the board against the deployed engine
    (`#include "tokcore.h"` finds src/); returns its path. Reused while its
    source is unchanged."""
    if not name.replace("-", "").replace("_", "").isalnum():
        raise BoardError(f"program name {name!r}: use letters, digits, - and _")
    tag = hashlib.sha256(source).hexdigest()[:12]
    conn.makedirs(f"{dep.dir}/extra")
    out = f"extra/{name}-{tag}"
    path = f"{dep.dir}/{out}"
    if conn.exists(path):
        return path
    conn.put_bytes(source, f"{dep.dir}/{out}.c")
    _compile(conn, dep.dir, out, f"-I src {shlex.quote(out)}.c src/*.c", timeout)
    return path
