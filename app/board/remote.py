"""Work on the board: its facts, its tokenizer file, and encoding texts there.

Two ways to encode on the board:

* encode_deployed: our engine, deployed by deploy.ensure_deployed, runs
  `tokcore encode --tokenizer FILE --encoder E --jsonl`; all texts of the
  batch go as JSON lines through one exec's stdin and the ids come back as
  JSON lines on its stdout, read as they arrive.
* encode_command: the board's own tokenizer, a command template. Texts go
  by stdin or by an uploaded file, never in the command line; `{input}`
  (the uploaded file) and `{tokenizer}` are replaced by quoted paths.

  How texts travel (`input`), by stdin (mode "stdin") or as one uploaded
  file whose path is `{input}` (mode "file"); no text is ever refused for
  its content:
  - "lines" (the default): ONE exec for the whole batch, the texts one per
    line (their exact bytes, each ended by "\n"); the command prints one
    result per text, in order. A text with a line break (LF or CR) cannot
    travel on one line: it goes by itself, as with "per-text".
  - "jsonl": ONE exec, each text as one JSON string per line (UTF-8; line
    breaks, tabs and NULs escaped), the input of `tokcore encode --jsonl`
    and of probes that read JSON Lines; multi-line texts and chat prompts
    go in the same batch.
  - "per-text": one exec per text, the text's exact bytes (no "\n" added)
    on stdin or as the whole uploaded file; the command's whole output is
    that text's result (one exec each is slower).

  Output parsers: "jsonl" (one JSON line per text: [ids...] or
  {"ids": [...]}, or {"error": "..."} for a text the tokenizer refused;
  blank lines ignored), "ints" (integers separated by whitespace and/or
  commas, one line per text, an empty line = no tokens), "regex" (a
  pattern with one group: each line where it matches is one text's result;
  the ids are the integers inside the group over all its matches on that
  line; lines where it does not match are ignored, e.g. log lines).

Results are never lost to a failure: BatchResult keeps the ids received
before a dropped connection, a timeout, a cancel or a failing command,
with the batch-level error in `error`.
"""

from __future__ import annotations

import json
import re
import shlex
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from .deploy import command_words, run_prefix
from .ssh import BoardConnection, BoardError, RemoteCommandFailed, RemoteFileMissing

ENCODERS = ("bpe", "rank", "greedy", "kestrel-v1", "kestrel-v2")
PARSERS = ("jsonl", "ints", "regex")
MODES = ("stdin", "file")
INPUTS = ("lines", "jsonl", "per-text")
Progress = Callable[[int], None]  # called with the number of texts done so far


# ---- facts --------------------------------------------------------------------
@dataclass(frozen=True)
class BoardFacts:
    uname_m: str              # machine of the board's kernel (`uname -m`)
    uname: str                # `uname -srm`
    compiler: str             # the profile's compiler command
    compiler_version: str     # first line of `<compiler> --version` ("" if it fails)
    compiler_target: str      # `<compiler> -dumpmachine`: what the binaries run on
    char_signed: bool | None  # plain `char` of the compiler (None: could not tell)
    run_prefix: str
    problems: list[str] = field(default_factory=list)


def board_facts(conn: BoardConnection) -> BoardFacts:
    """uname, compiler version and target, and `char` signedness (from the
    compiler's predefined macros: __CHAR_UNSIGNED__)."""
    problems: list[str] = []
    cc = command_words(conn.profile.compiler)
    r = conn.run("uname -m; uname -srm")
    lines = r.text().splitlines()
    uname_m = lines[0].strip() if lines else ""
    uname = lines[1].strip() if len(lines) > 1 else ""
    if r.rc != 0:
        problems.append(f"uname failed: {r.stderr.decode('utf-8', 'replace').strip()}")
    r = conn.run(f"{cc} --version 2>&1")
    version = r.text().strip().splitlines()[0] if r.rc == 0 and r.text().strip() else ""
    if r.rc != 0:
        problems.append(f"{conn.profile.compiler} --version failed (exit {r.rc}): {r.text().strip()[:300]}")
    r = conn.run(f"{cc} -dumpmachine 2>/dev/null")
    target = r.text().strip() if r.rc == 0 else ""
    r = conn.run(f"echo | {cc} -dM -E - 2>&1")
    macros = r.text()
    char_signed: bool | None
    if r.rc == 0 and "__CHAR_BIT__" in macros:
        char_signed = "__CHAR_UNSIGNED__" not in macros
    else:
        char_signed = None
        problems.append(f"cannot tell char signedness: {conn.profile.compiler} -dM -E failed: {macros.strip()[:300]}")
    return BoardFacts(uname_m, uname, conn.profile.compiler, version, target, char_signed, conn.profile.run_prefix,
                      problems)


# ---- files --------------------------------------------------------------------
class FileInfo(NamedTuple):
    size: int
    sha256: str


_HEX64 = re.compile(r"\b([0-9a-f]{64})\b")


def remote_file_info(conn: BoardConnection, path: str, tokcore: str | None = None) -> FileInfo:
    """Size and sha256 of a board file: `sha256sum`, else `openssl dgst`, else
    the deployed tokcore's `info` (pass its path). Raises RemoteFileMissing."""
    p = conn.expand(path)
    size = conn.stat(p).st_size or 0
    q = shlex.quote(p)
    tries = [("sum", f"sha256sum -- {q}"), ("sum", f"openssl dgst -sha256 -r {q}")]
    if tokcore:
        tries.append(("tokcore", f"{run_prefix(conn)}{shlex.quote(tokcore)} info --tokenizer {q}"))
    notes = []
    for kind, cmd in tries:
        r = conn.run(cmd)
        digest = ""
        if r.rc == 0 and kind == "tokcore":
            try:
                digest = str(json.loads(r.stdout)["sha256"]).lower()
            except (ValueError, KeyError, TypeError):
                digest = ""
        elif r.rc == 0:
            m = _HEX64.search(r.text().lower())
            digest = m.group(1) if m else ""
        if _HEX64.fullmatch(digest):
            return FileInfo(size, digest)
        notes.append(f"{cmd.split()[0]}: exit {r.rc} {r.stderr.decode('utf-8', 'replace').strip()[:200]}")
    raise BoardError(f"cannot compute the sha256 of {p} on {conn.profile.label}: {'; '.join(notes)}")


def fetch_file(conn: BoardConnection, path: str, max_bytes: int = 1 << 30) -> bytes:
    """A board file's bytes by SFTP (e.g. the board's vocab.bin for the audit diff)."""
    return conn.get_bytes(path, max_bytes=max_bytes)


# ---- batches --------------------------------------------------------------------
@dataclass
class BatchResult:
    ids: list[list[int] | None]   # one per text; None where no result came
    errors: list[str | None]      # per text: why it has no ids
    error: str | None             # batch level (connection lost after 37 of 100, ...)
    seconds: float
    failure: BoardError | None = None  # the exception behind `error`, to tell the kinds apart

    @property
    def received(self) -> int:
        return sum(x is not None for x in self.ids)

    @property
    def ok(self) -> bool:
        return self.error is None and all(e is None for e in self.errors)


class OutputParseError(BoardError):
    """A line of a board command's output is not in the expected format."""

    def __init__(self, lineno: int, line: str, expected: str, why: str = "") -> None:
        self.lineno, self.line = lineno, line
        shown = line if len(line) <= 200 else line[:200] + "..."
        super().__init__(f"output line {lineno} is not {expected}: {shown!r}" + (f" ({why})" if why else ""))


class TextRefused(BoardError):
    """The board's tokenizer answered with an error for one text."""


_INT = re.compile(r"\d+")
_SEP = re.compile(r"[\s,]+")


def parse_ints(line: str, lineno: int) -> list[int]:
    """"1 2 3", "1,2,3", "1, 2, 3" -> [1, 2, 3]; "" -> []."""
    out = []
    for word in _SEP.split(line.strip()):
        if not word:
            continue
        if not _INT.fullmatch(word):
            raise OutputParseError(lineno, line, "integers separated by spaces or commas", f"{word!r} is not one")
        out.append(int(word))
    return out


def _id_list(value: object, lineno: int, line: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                                              for x in value):
        raise OutputParseError(lineno, line, "a JSON list of ids", "expected [int, ...]")
    return list(value)


def parse_jsonl(line: str, lineno: int) -> list[int]:
    """[1, 2] or {"ids": [1, 2], ...} -> [1, 2]; {"error": "..."} raises TextRefused."""
    try:
        obj = json.loads(line)
    except ValueError as e:
        raise OutputParseError(lineno, line, "a JSON line", str(e)) from e
    if isinstance(obj, dict):
        if "ids" in obj:
            return _id_list(obj["ids"], lineno, line)
        if "error" in obj:
            raise TextRefused(f"the board's tokenizer refused the text: {obj['error']}")
        raise OutputParseError(lineno, line, 'a JSON line with "ids"', f"keys: {', '.join(map(str, obj))}")
    return _id_list(obj, lineno, line)


def compile_regex(regex: str | re.Pattern[str] | None) -> re.Pattern[str]:
    if regex is None:
        raise ValueError('parser "regex" needs regex=... with one group')
    try:
        rx = re.compile(regex) if isinstance(regex, str) else regex
    except re.error as e:
        raise ValueError(f"bad regex {regex!r}: {e}") from e
    if rx.groups != 1:
        raise ValueError(f"the regex {rx.pattern!r} must have exactly one group, it has {rx.groups}")
    return rx


def parse_regex(line: str, lineno: int, rx: re.Pattern[str]) -> list[int] | None:
    """The integers inside rx's group over all its matches; None if it does not match."""
    matches = list(rx.finditer(line))
    if not matches:
        return None
    out: list[int] = []
    for m in matches:
        group = m.group(1) or ""
        try:
            out += parse_ints(group, lineno)
        except OutputParseError as e:
            raise OutputParseError(lineno, line, f"ids inside the group of {rx.pattern!r}",
                                   f"group {group!r} holds a non-integer") from e
    return out


class _Collector:
    """Assigns output lines to the texts that were sent, in order."""

    def __init__(self, n: int, slots: list[int], parser: str, rx: re.Pattern[str] | None,
                 progress: Progress | None) -> None:
        self.ids: list[list[int] | None] = [None] * n
        self.errors: list[str | None] = [None] * n
        self.slots = slots          # indices of the texts sent, in order
        self.done = 0               # results received
        self.lineno = 0
        self.extra: str | None = None
        self.parser, self.rx, self.progress = parser, rx, progress

    def line(self, raw: bytes) -> None:
        self.lineno += 1
        text = raw.decode("utf-8", "replace").rstrip("\r")
        try:
            if self.parser == "jsonl":
                if not text.strip():
                    return
                result: list[int] | None = parse_jsonl(text, self.lineno)
            elif self.parser == "ints":
                result = parse_ints(text, self.lineno)
            else:
                assert self.rx is not None
                result = parse_regex(text, self.lineno, self.rx)
                if result is None:
                    return
            err = None
        except BoardError as e:
            result, err = None, str(e)
        if self.done >= len(self.slots):
            if self.extra is None:
                self.extra = f"the command printed more results than the {len(self.slots)} texts sent " \
                             f"(line {self.lineno}: {text[:200]!r})"
            return
        i = self.slots[self.done]
        self.ids[i], self.errors[i] = result, err
        self.done += 1
        if self.progress:
            self.progress(self.done)


def _fail(e: BoardError, done: int, sent: int) -> str:
    return f"{e} [{done} of {sent} results received before this]"


def _result(c: _Collector, error: str | None, t0: float, failure: BoardError | None) -> BatchResult:
    if error is None and c.extra is not None:
        error = c.extra
    return BatchResult(c.ids, c.errors, error, time.monotonic() - t0, failure)


def _finish(c: _Collector, cmd: str, rc: int, stderr: bytes, t0: float) -> BatchResult:
    sent = len(c.slots)
    if rc != 0:
        e = RemoteCommandFailed(cmd, rc, stderr)
        return _result(c, _fail(e, c.done, sent), t0, e)
    if c.done < sent:
        e = BoardError(f"the command printed {c.done} results for {sent} texts: {cmd}\n"
                       f"{stderr.decode('utf-8', 'replace').strip()[-2000:]}")
        return _result(c, str(e), t0, e)
    return _result(c, None, t0, None)


def encode_deployed(conn: BoardConnection, binary: str, remote_tokenizer: str, texts: Sequence[str],
                    encoder: str = "bpe", add_special_tokens: bool = True, cancel: threading.Event | None = None,
                    progress: Progress | None = None, timeout: float | None = None) -> BatchResult:
    """All texts through one `tokcore encode --jsonl` on the board. `timeout`:
    the longest silence allowed (default: the profile's command_timeout)."""
    if encoder not in ENCODERS:
        raise ValueError(f"encoder {encoder!r}: one of {', '.join(ENCODERS)}")
    t0 = time.monotonic()
    n = len(texts)
    c = _Collector(n, list(range(n)), "jsonl", None, progress)
    try:
        path = conn.stat(remote_tokenizer) and conn.expand(remote_tokenizer)
    except BoardError as e:
        msg = f"the board's tokenizer file: {e}" if isinstance(e, RemoteFileMissing) else str(e)
        return _result(c, msg, t0, e)
    cmd = (f"{run_prefix(conn)}{shlex.quote(binary)} encode --tokenizer {shlex.quote(path)} "
           f"--encoder {encoder} --jsonl" + ("" if add_special_tokens else " --no-special"))
    lines = ((json.dumps({"text": t, "add_special_tokens": add_special_tokens}) + "\n").encode("ascii")
             for t in texts)
    try:
        r = conn.run_lines(cmd, lines, c.line, cancel, timeout)
    except BoardError as e:
        return _result(c, _fail(e, c.done, n), t0, e)
    return _finish(c, cmd, r.rc, r.stderr, t0)


def _substitute(template: str, values: dict[str, str]) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in values:
            raise ValueError(f"the template uses {{{name}}} but no {name} was given")
        return shlex.quote(values[name])

    return re.sub(r"\{(input|tokenizer)\}", sub, template)


def _text_bytes(t: str) -> bytes:
    """A text's exact bytes: surrogate escapes (undecodable bytes of a corpus file) become those bytes again."""
    return t.encode("utf-8", errors="surrogateescape")


def encode_command(conn: BoardConnection, template: str, texts: Sequence[str], mode: str = "stdin",
                   parser: str = "jsonl", regex: str | re.Pattern[str] | None = None, tokenizer: str | None = None,
                   input: str = "lines", cancel: threading.Event | None = None, progress: Progress | None = None,
                   timeout: float | None = None, per_text: bool = False) -> BatchResult:
    """The board's own tokenizer: see the module docstring for the contract.
    `tokenizer` fills `{tokenizer}`; `{input}` is the uploaded file (mode "file"). per_text=True is
    input="per-text"."""
    if per_text:
        input = "per-text"
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: one of {', '.join(MODES)}")
    if parser not in PARSERS:
        raise ValueError(f"parser {parser!r}: one of {', '.join(PARSERS)}")
    if input not in INPUTS:
        raise ValueError(f"input {input!r}: one of {', '.join(INPUTS)}")
    rx = compile_regex(regex) if parser == "regex" else None
    has_input = "{input}" in template
    if mode == "file" and not has_input:
        raise ValueError('mode "file" needs {input} in the command template')
    if mode == "stdin" and has_input:
        raise ValueError('{input} is the uploaded file of mode "file"; mode "stdin" passes texts on stdin')
    t0 = time.monotonic()
    n = len(texts)
    values: dict[str, str] = {}
    if tokenizer is not None:
        values["tokenizer"] = conn.expand(tokenizer)
    encoded: list[bytes] = []
    for t in texts:
        if input == "jsonl":
            encoded.append(json.dumps(t, ensure_ascii=False).encode("utf-8", errors="surrogatepass"))
        else:
            encoded.append(_text_bytes(t))
    if input == "per-text":
        batch, alone = [], list(range(n))
    elif input == "jsonl":
        batch, alone = list(range(n)), []
    else:
        batch = [i for i, b in enumerate(encoded) if b"\n" not in b and b"\r" not in b]
        alone = [i for i, b in enumerate(encoded) if b"\n" in b or b"\r" in b]
    remote_dir = conn.expand(conn.profile.deploy_root).rstrip("/") + "/input"
    c = _Collector(n, batch, parser, rx, progress)
    res = _result(c, None, t0, None)
    if batch:
        res = _encode_batch(conn, template, values, encoded, c, mode, remote_dir, cancel, timeout, t0)
    if alone and res.error is None:
        done = len(batch)
        each = _Collector(n, alone, parser, rx, (lambda d: progress(done + d)) if progress else None)
        one = _encode_each(conn, template, values, encoded, each, mode, remote_dir, cancel, timeout, t0)
        for i in alone:
            res.ids[i], res.errors[i] = one.ids[i], one.errors[i]
        res = BatchResult(res.ids, res.errors, one.error, time.monotonic() - t0, one.failure)
    return res


def _encode_batch(conn: BoardConnection, template: str, values: dict[str, str], encoded: list[bytes],
                  c: _Collector, mode: str, remote_dir: str, cancel: threading.Event | None, timeout: float | None,
                  t0: float) -> BatchResult:
    """One exec for the texts in c.slots, one line each."""
    cmd = ""
    upload = None
    slots = c.slots
    try:
        if mode == "file":
            conn.makedirs(remote_dir)
            upload = f"{remote_dir}/{uuid.uuid4().hex}.txt"
            conn.put_bytes(b"".join(encoded[i] + b"\n" for i in slots), upload)
            values = {**values, "input": upload}
            cmd = _substitute(template, values)
            r = conn.run_lines(cmd, None, c.line, cancel, timeout)
        else:
            cmd = _substitute(template, values)
            r = conn.run_lines(cmd, (encoded[i] + b"\n" for i in slots), c.line, cancel, timeout)
    except BoardError as e:
        return _result(c, _fail(e, c.done, len(slots)), t0, e)
    finally:
        _remove_quietly(conn, upload)
    return _finish(c, cmd, r.rc, r.stderr, t0)


def _remove_quietly(conn: BoardConnection, path: str | None) -> None:
    """Removes an uploaded input file, if the connection still stands (a failure here changes nothing)."""
    if path is not None and conn.is_alive:
        try:
            conn.run(f"rm -f {shlex.quote(path)}", timeout=30)
        except BoardError:
            pass


def _encode_each(conn: BoardConnection, template: str, values: dict[str, str], encoded: list[bytes],
                 c: _Collector, mode: str, remote_dir: str, cancel: threading.Event | None, timeout: float | None,
                 t0: float) -> BatchResult:
    """per_text: one exec per text; the whole output is that text's result."""
    upload = None
    if mode == "file":
        try:
            conn.makedirs(remote_dir)
        except BoardError as e:
            return _result(c, str(e), t0, e)
        upload = f"{remote_dir}/{uuid.uuid4().hex}.txt"
        values = {**values, "input": upload}
    cmd = _substitute(template, values)
    try:
        for i in c.slots:
            data = encoded[i]
            if upload is not None:
                conn.put_bytes(data, upload)
            r = conn.run(cmd, None if upload is not None else data, timeout, cancel=cancel)
            if r.rc != 0:
                c.errors[i] = str(RemoteCommandFailed(cmd, r.rc, r.stderr))
            else:
                out = r.text()
                try:
                    c.ids[i] = _parse_whole(out, c.parser, c.rx)
                except BoardError as e:
                    c.errors[i] = str(e)
            c.done += 1
            if c.progress:
                c.progress(c.done)
    except BoardError as e:
        return _result(c, _fail(e, c.done, len(c.slots)), t0, e)
    finally:
        _remove_quietly(conn, upload)
    return _result(c, None, t0, None)


def _parse_whole(out: str, parser: str, rx: re.Pattern[str] | None) -> list[int]:
    lines = out.splitlines()
    if parser == "jsonl":
        body = [(k, x) for k, x in enumerate(lines, 1) if x.strip()]
        if len(body) != 1:
            raise OutputParseError(len(lines), out[:200], "exactly one JSON line", f"{len(body)} lines")
        return parse_jsonl(body[0][1], body[0][0])
    ids: list[int] = []
    for k, x in enumerate(lines, 1):
        if parser == "ints":
            ids += parse_ints(x, k)
        else:
            assert rx is not None
            got = parse_regex(x, k, rx)
            ids += got or []
    return ids
