"""A board that runs llama.cpp: its `llama-tokenize` tool, or a `llama-server`'s /tokenize endpoint.

Two ways in, both giving a remote.BatchResult (ids per text, errors kept per text):

* `encode_tokenize`: the board's `llama-tokenize` binary (llama.cpp tools/tokenize/tokenize.cpp) with
  `-m MODEL --stdin --ids --log-disable --no-escape` (the text's exact bytes on stdin, never in the command
  line; `--no-escape`: a backslash stays a backslash), `--no-bos` unless special tokens are asked for,
  `--no-parse-special` when special tokens are to be read as text. The tool prints `[1, 2, 3]` (`--ids`:
  "[" then the ids joined by ", " then "]\\n"); `parse_ids` reads it. It tokenizes one prompt per process;
  to keep the count of processes (each loads the vocabulary: seconds on a slow board) low, texts may go
  several per process with a special token between them (`separator`): llama.cpp cuts a prompt at special
  tokens first and encodes each text fragment by itself (llama-cpp-python 0.3.36's vendored llama.cpp,
  src/llama-vocab.cpp, `tokenizer_st_partition` and `llama_vocab::impl::tokenize`), so the ids between two
  separators are the text's own. That needs special parsing on, no BOS/EOS, and a special token without
  lstrip/rstrip that no text contains; a batch that does not come back with one separator between texts
  is redone one text per process.
* `encode_server`: a running `llama-server`, `POST /tokenize` with `{"content": TEXT, "add_special": B,
  "parse_special": B}` answered by `{"tokens": [ids]}` (tools/server/server-context.cpp, `post_tokenize`),
  reached through the SSH connection as a forwarded channel to the board's own 127.0.0.1:PORT (nothing
  else is ever a target; no port is opened on either side). HTTP/1.1, one request per channel
  (`Connection: close`); a body with Content-Length or chunked.

Does not: start llama-server, or upload the model (the board's own GGUF is named by path); decide what a
divergence means (diff.py / causes.py do, with the host's GGUF encoders as llama.cpp's emulation).
"""

from __future__ import annotations

import json
import re
import shlex
import threading
import time
from collections.abc import Callable, Sequence

from .causes import LLAMA_CPP
from .deploy import run_prefix
from .remote import BatchResult, OutputParseError
from .ssh import BoardConnection, BoardError, RemoteCommandFailed

ENGINE = LLAMA_CPP
Progress = Callable[[int], None]

# the longest HTTP answer read for one text (ids of a long text with pieces stay far below this)
MAX_RESPONSE = 64 << 20
_IDS_LINE = re.compile(r"\[\s*((?:\d+\s*,\s*)*\d+)?\s*\]")


# ---- llama-tokenize ----------------------------------------------------------------------------------

def parse_ids(out: str) -> list[int]:
    """The ids of `llama-tokenize --ids` output: exactly one line `[1, 2, 3]` (`[]` for no tokens); other
    lines (e.g. "Total number of tokens: N" of --show-count) are not ids and are left aside."""
    found = [(k, m) for k, line in enumerate(out.splitlines(), 1) if (m := _IDS_LINE.fullmatch(line.strip()))]
    if len(found) != 1:
        first = out.strip().splitlines()[0] if out.strip() else ""
        raise OutputParseError(1, first, "llama-tokenize --ids output",
                               f"{len(found)} lines of the form [1, 2, 3] in {len(out)} characters")
    body = found[0][1].group(1)
    return [int(x) for x in body.split(",")] if body else []


def tokenize_command(conn: BoardConnection, binary: str, model: str, add_special: bool = False,
                     parse_special: bool = True) -> str:
    """The shell command of one llama-tokenize run; the text goes on stdin."""
    cmd = (f"{run_prefix(conn)}{shlex.quote(conn.expand(binary))} -m {shlex.quote(conn.expand(model))} "
           "--stdin --ids --log-disable --no-escape")
    if not add_special:
        cmd += " --no-bos"
    if not parse_special:
        cmd += " --no-parse-special"
    return cmd


def separator(added_tokens: Sequence[dict[str, object]], texts: Sequence[str]) -> tuple[str, int] | None:
    """A special token that can stand between texts (no lstrip/rstrip, no edge spaces, in no text), or None.
    `added_tokens`: the host tokenizer's (the same GGUF as the board's, or one with its specials)."""
    for a in sorted(added_tokens, key=lambda a: (-len(str(a["content"])), int(a["id"]))):  # type: ignore[call-overload]
        content = str(a["content"])
        if a.get("special") and not a.get("lstrip") and not a.get("rstrip") and len(content) >= 3 \
                and content.strip() == content and not any(content in t for t in texts):
            return content, int(a["id"])  # type: ignore[call-overload]
    return None


def _split(ids: list[int], sep_id: int, n: int) -> list[list[int]] | None:
    parts: list[list[int]] = [[]]
    for i in ids:
        if i == sep_id:
            parts.append([])
        else:
            parts[-1].append(i)
    return parts if len(parts) == n else None


def encode_tokenize(conn: BoardConnection, binary: str, model: str, texts: Sequence[str], *,
                    add_special: bool = False, parse_special: bool = True,
                    sep: tuple[str, int] | None = None, batch: int = 256,
                    cancel: threading.Event | None = None, progress: Progress | None = None,
                    timeout: float | None = None) -> BatchResult:
    """The texts through the board's llama-tokenize. With `sep` (see `separator`), special parsing on and
    no specials added, `batch` texts go per process; otherwise one process per text."""
    t0 = time.monotonic()
    n = len(texts)
    ids: list[list[int] | None] = [None] * n
    errors: list[str | None] = [None] * n
    done = 0
    together = sep is not None and parse_special and not add_special
    cmd = tokenize_command(conn, binary, model, add_special, parse_special)
    try:
        k = 0
        while k < n:
            if cancel is not None and cancel.is_set():
                raise BoardError(f"cancelled after {done} of {n} texts")
            chunk = list(range(k, min(n, k + batch))) if together else [k]
            k = chunk[-1] + 1
            parts = None
            if together and len(chunk) > 1:
                assert sep is not None
                joined = sep[0].join(texts[i] for i in chunk).encode("utf-8", errors="surrogateescape")
                r = conn.run(cmd, joined, timeout, cancel=cancel)
                if r.rc == 0:
                    try:
                        parts = _split(parse_ids(r.text()), sep[1], len(chunk))
                    except OutputParseError:
                        parts = None
            if parts is not None:
                for i, p in zip(chunk, parts):
                    ids[i] = p
            else:
                for i in chunk:
                    ids[i], errors[i] = _one(conn, cmd, texts[i], timeout, cancel)
            done += len(chunk)
            if progress:
                progress(done)
    except BoardError as e:
        return BatchResult(ids, errors, f"{e} [{done} of {n} results received before this]",
                           time.monotonic() - t0, e)
    return BatchResult(ids, errors, None, time.monotonic() - t0)


def _one(conn: BoardConnection, cmd: str, text: str, timeout: float | None,
         cancel: threading.Event | None) -> tuple[list[int] | None, str | None]:
    r = conn.run(cmd, text.encode("utf-8", errors="surrogateescape"), timeout, cancel=cancel)
    if r.rc != 0:
        return None, str(RemoteCommandFailed(cmd, r.rc, r.stderr))
    try:
        return parse_ids(r.text()), None
    except OutputParseError as e:
        return None, f"{e}; stderr: {r.stderr.decode('utf-8', 'replace').strip()[-300:]}"


# ---- llama-server ------------------------------------------------------------------------------------

class HttpError(BoardError):
    """The server's answer is not a usable HTTP response, or not 200."""


def tokenize_request(text: str, add_special: bool, parse_special: bool, port: int) -> bytes:
    body = json.dumps({"content": text, "add_special": add_special, "parse_special": parse_special},
                      ensure_ascii=False).encode("utf-8", errors="surrogatepass")
    head = (f"POST /tokenize HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n")
    return head.encode("ascii") + body


def _dechunk(data: bytes) -> bytes:
    out = bytearray()
    pos = 0
    while True:
        eol = data.find(b"\r\n", pos)
        if eol < 0:
            raise HttpError("a chunked body ends inside a chunk header")
        size_field = data[pos:eol].split(b";", 1)[0].strip()
        try:
            size = int(size_field, 16)
        except ValueError:
            raise HttpError(f"bad chunk size {size_field[:20]!r}") from None
        if size == 0:
            return bytes(out)
        start = eol + 2
        if start + size > len(data):
            raise HttpError(f"a chunk of {size} bytes runs past the end of the answer")
        out += data[start:start + size]
        pos = start + size + 2


def parse_response(raw: bytes) -> tuple[int, bytes]:
    """(status, body) of one HTTP/1.x response read to its end."""
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        raise HttpError(f"no HTTP header in the answer ({len(raw)} bytes: {raw[:80]!r})")
    head = raw[:end].decode("latin-1").split("\r\n")
    m = re.fullmatch(r"HTTP/1\.[01] (\d{3})(?: .*)?", head[0])
    if m is None:
        raise HttpError(f"not an HTTP status line: {head[0][:120]!r}")
    headers = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = raw[end + 4:]
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _dechunk(body)
    elif "content-length" in headers:
        try:
            length = int(headers["content-length"])
        except ValueError:
            raise HttpError(f"bad Content-Length {headers['content-length'][:40]!r}") from None
        if length > len(body):
            raise HttpError(f"the answer ended after {len(body)} of {length} body bytes")
        body = body[:length]
    return int(m.group(1)), body


def server_ids(status: int, body: bytes) -> list[int]:
    """The ids of a /tokenize answer: {"tokens": [ids]} or, with with_pieces, [{"id": i, "piece": ...}]."""
    try:
        obj = json.loads(body)
    except ValueError as e:
        raise HttpError(f"HTTP {status}: the body is not JSON ({e}): {body[:200]!r}") from e
    if status != 200:
        err = obj.get("error") if isinstance(obj, dict) else None
        msg = err.get("message") if isinstance(err, dict) else err
        raise HttpError(f"HTTP {status}: {msg if msg else repr(body[:200])}")
    tokens = obj.get("tokens") if isinstance(obj, dict) else None
    if not isinstance(tokens, list):
        raise HttpError(f'the answer has no "tokens" list: {body[:200]!r}')
    out = []
    for t in tokens:
        tid = t.get("id") if isinstance(t, dict) else t
        if not isinstance(tid, int) or isinstance(tid, bool) or tid < 0:
            raise HttpError(f"a token of the answer is not an id: {t!r}")
        out.append(tid)
    return out


def post_tokenize(conn: BoardConnection, port: int, text: str, add_special: bool = False,
                  parse_special: bool = True, timeout: float | None = None) -> list[int]:
    """One /tokenize request through a forwarded channel to the board's 127.0.0.1:port."""
    limit = timeout or conn.profile.command_timeout or None
    chan = conn.open_local_port(port)
    try:
        chan.settimeout(limit)
        chan.sendall(tokenize_request(text, add_special, parse_special, port))
        raw = bytearray()
        while True:
            data = chan.recv(65536)
            if not data:
                break
            raw += data
            if len(raw) > MAX_RESPONSE:
                raise HttpError(f"the answer is above {MAX_RESPONSE} bytes")
    except TimeoutError as e:
        raise HttpError(f"127.0.0.1:{port} on the board did not answer within {limit} s") from e
    except OSError as e:
        raise HttpError(f"the channel to 127.0.0.1:{port} broke: {e}") from e
    finally:
        chan.close()
    return server_ids(*parse_response(bytes(raw)))


def encode_server(conn: BoardConnection, port: int, texts: Sequence[str], *, add_special: bool = False,
                  parse_special: bool = True, cancel: threading.Event | None = None,
                  progress: Progress | None = None, timeout: float | None = None) -> BatchResult:
    """Every text through the board's llama-server /tokenize; an HTTP error is that text's error, a lost
    connection ends the batch (results so far kept)."""
    t0 = time.monotonic()
    n = len(texts)
    ids: list[list[int] | None] = [None] * n
    errors: list[str | None] = [None] * n
    for k, text in enumerate(texts):
        if cancel is not None and cancel.is_set():
            e = BoardError(f"cancelled after {k} of {n} texts")
            return BatchResult(ids, errors, str(e), time.monotonic() - t0, e)
        try:
            ids[k] = post_tokenize(conn, port, text, add_special, parse_special, timeout)
        except HttpError as e:
            errors[k] = str(e)
        except BoardError as e:
            return BatchResult(ids, errors, f"{e} [{k} of {n} results received before this]",
                               time.monotonic() - t0, e)
        if progress:
            progress(k + 1)
    return BatchResult(ids, errors, None, time.monotonic() - t0)
