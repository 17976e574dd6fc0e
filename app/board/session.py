"""One board diff from start to end, the same for the CLI and the Board tab.

Given a connected board and a request (the texts, the board's tokenizer
path, deploy-or-command), it checks the board (facts, the tokenizer file's
size and sha256 next to the host's, the vocab.bin entries that differ when
the hashes do), encodes on the board in one exec, encodes on the host, and
diffs the two (diff.py). A failure part-way keeps what was done: the checks
made and the texts the board answered before the failure.

Does not: connect (ssh.py) or show anything; every call blocks (run it off
the UI thread).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..core.tokenizer import Tokenizer, TokenizerError
from ..formats import vocab_bin
from . import deploy, identify, llamacpp, remote
from .diff import Summary, TextDiff, diff_corpus
from .identify import Identification
from .ssh import BoardConnection, BoardError

# a board file above this is not fetched for the entry-by-entry comparison
FETCH_LIMIT = 64 << 20

Progress = Callable[[str, int, int], None]      # (phase, done, total)


@dataclass(frozen=True)
class DiffRequest:
    texts: tuple[str, ...]
    remote_tokenizer: str
    mode: str = "deploy"                # "deploy" (our tokcore) or "command" (the board's own)
    encoder: str = "bpe"                # the deployed tokcore's encoder
    host_encoder: str = "bpe"
    add_special_tokens: bool = False
    command: str = ""                   # mode "command": the template ({tokenizer}, {input})
    parser: str = "jsonl"               # mode "command": jsonl | ints | regex
    regex: str | None = None
    input: str = "lines"                # mode "command": how texts travel: lines | jsonl | per-text
    llama_tokenize: str = ""            # mode "llama-tokenize": the board's llama-tokenize binary
    llama_port: int = 0                 # mode "llama-server": its port on the board's 127.0.0.1
    parse_special: bool = True          # llama.cpp modes: special tokens in the text are matched (its default)
    gguf: str = ""                      # the host's GGUF as llama.cpp reads it, beside a host tokenizer.json

    @property
    def label(self) -> str:
        if self.mode == "deploy":
            return f"tokcore [{self.encoder}]"
        if self.mode == "llama-tokenize":
            return "llama.cpp [llama-tokenize]"
        if self.mode == "llama-server":
            return f"llama.cpp [llama-server 127.0.0.1:{self.llama_port}]"
        return f"command [{self.parser}]"


@dataclass(frozen=True)
class FileCheck:
    what: str           # the path, or "<tokenizer> compiled as vocab.bin"
    size: int
    sha256: str


@dataclass
class Checks:
    host: FileCheck | None = None
    board: FileCheck | None = None
    facts: remote.BoardFacts | None = None
    vocab: vocab_bin.VocabComparison | None = None      # when both are vocab.bin and differ
    notes: list[str] = field(default_factory=list)

    @property
    def same_file(self) -> bool | None:
        if self.host is None or self.board is None:
            return None
        return self.host.sha256 == self.board.sha256 and self.host.size == self.board.size


@dataclass
class BoardRun:
    request: DiffRequest
    checks: Checks
    diffs: list[TextDiff] = field(default_factory=list)
    summary: Summary = field(default_factory=Summary)
    board_seconds: float = 0.0
    host_seconds: float = 0.0
    build: str = ""                     # "built" / "reused" / "" (command mode)
    error: str | None = None            # what stopped the run (results so far are kept)

    @property
    def complete(self) -> bool:
        return self.error is None and self.summary.missing == 0 and self.summary.texts == len(self.request.texts)


def is_vocab_bin(path: str) -> bool:
    return path.rsplit("/", 1)[-1].lower().endswith(".bin")


def host_reference(tok: Tokenizer, remote_path: str) -> tuple[FileCheck, bytes | None]:
    """What the board's file should be: the host's own file, or, for a board vocab.bin and a host
    tokenizer that is not one, the host tokenizer compiled to vocab.bin (its bytes returned too)."""
    host_is_bin = tok.path is not None and tok.format == "vocab_bin"
    if is_vocab_bin(remote_path) and not host_is_bin:
        data = vocab_bin.compile_vocab_bin(tok).data
        return FileCheck(f"{tok.name} compiled as vocab.bin", len(data), hashlib.sha256(data).hexdigest()), data
    if tok.path is None:
        raise ValueError(f"the host tokenizer {tok.name} has no file to compare with {remote_path}")
    data = tok.path.read_bytes()
    return FileCheck(str(tok.path), len(data), hashlib.sha256(data).hexdigest()), data


def check_board(conn: BoardConnection, tok: Tokenizer, remote_path: str) -> Checks:
    """Board facts, and the board's tokenizer file against the host's (entries when vocab.bin differs)."""
    checks = Checks()
    checks.facts = remote.board_facts(conn)
    size, sha = remote.remote_file_info(conn, remote_path)
    checks.board = FileCheck(remote_path, size, sha)
    try:
        checks.host, host_data = host_reference(tok, remote_path)
    except ValueError as exc:
        checks.notes.append(str(exc))
        return checks
    if checks.same_file is False and host_data is not None and is_vocab_bin(remote_path):
        if size > FETCH_LIMIT:
            checks.notes.append(f"the board's file is {size:,} bytes: not fetched for the entry comparison")
        else:
            try:
                checks.vocab = vocab_bin.compare_bytes(host_data, remote.fetch_file(conn, remote_path))
            except ValueError as exc:   # the board's file is not a valid vocab.bin
                checks.notes.append(f"the board's vocab.bin does not load: {exc}")
    return checks


def board_encode(conn: BoardConnection, req: DiffRequest, texts: list[str], cancel: threading.Event,
                 say: Progress, tok: Tokenizer | None = None) -> tuple[remote.BatchResult, str]:
    """The texts encoded on the board in one exec (deploy, or the board's command), or by the board's
    llama.cpp (llamacpp.py; `tok`'s special tokens separate texts sent together); (batch, build)."""
    n = len(texts)
    if req.mode in ("llama-tokenize", "llama-server"):
        say("encoding with llama.cpp on the board", 0, n)
        def step(done: int) -> None:
            say("encoding with llama.cpp on the board", done, n)

        if req.mode == "llama-server":
            return llamacpp.encode_server(conn, req.llama_port, texts, add_special=req.add_special_tokens,
                                          parse_special=req.parse_special, cancel=cancel, progress=step), ""
        sep = llamacpp.separator(tok.added_tokens, texts) if tok is not None else None  # type: ignore[arg-type]
        return llamacpp.encode_tokenize(conn, req.llama_tokenize, req.remote_tokenizer, texts,
                                        add_special=req.add_special_tokens, parse_special=req.parse_special,
                                        sep=sep, cancel=cancel, progress=step), ""
    if req.mode == "deploy":
        say("deploying tokcore", 0, n)
        built = deploy.ensure_built(conn)
        say("encoding on the board", 0, n)
        batch = remote.encode_deployed(conn, built.binary, req.remote_tokenizer, texts, encoder=req.encoder,
                                       add_special_tokens=req.add_special_tokens, cancel=cancel,
                                       progress=lambda d: say("encoding on the board", d, n))
        return batch, ("built" if built.built else "reused")
    say("running the board's command", 0, n)
    mode = "file" if "{input}" in req.command else "stdin"
    batch = remote.encode_command(conn, req.command, texts, mode=mode, parser=req.parser, regex=req.regex,
                                  tokenizer=req.remote_tokenizer, input=req.input, cancel=cancel,
                                  progress=lambda d: say("running the board's command", d, n))
    return batch, ""


def run_diff(conn: BoardConnection, req: DiffRequest, tok: Tokenizer, *, cancel: threading.Event | None = None,
             progress: Progress | None = None) -> BoardRun:
    """Checks, board encode (one exec), host encode, diff. Board errors end up in `error`, never raised."""
    cancel = cancel or threading.Event()
    say = progress or (lambda _phase, _done, _total: None)
    run = BoardRun(req, Checks())
    n = len(req.texts)
    try:
        say("checking the board", 0, n)
        run.checks = check_board(conn, tok, req.remote_tokenizer)
        batch, run.build = board_encode(conn, req, list(req.texts), cancel, say, tok)
    except (BoardError, ValueError) as exc:   # ValueError: a bad template or regex
        run.error = str(exc)
        return run
    run.board_seconds = batch.seconds
    run.error = batch.error
    say("encoding on the host", n, n)
    t0 = time.perf_counter()
    host = [a.tolist() for a in tok.encode_batch_ids(req.texts, req.add_special_tokens, req.host_encoder)]
    run.host_seconds = time.perf_counter() - t0
    board = [ids if ids is not None else None for ids in batch.ids]
    try:
        recipe = llama_recipe(req)
    except TokenizerError as exc:
        run.error = str(exc)
        return run
    run.diffs, run.summary = diff_corpus(list(req.texts), host, board, tok, board_errors=batch.errors,
                                         host_encoder=req.host_encoder, recipe=recipe)
    return run


def llama_recipe(req: DiffRequest) -> Tokenizer | None:
    """The host GGUF that emulates a llama.cpp board (req.gguf), with the request's special parsing."""
    return Tokenizer.from_file(req.gguf, parse_special=req.parse_special) if req.gguf else None


@dataclass
class IdentifyRun:
    result: Identification | None = None
    error: str | None = None
    board_seconds: float = 0.0


def run_identify(conn: BoardConnection, req: DiffRequest, tok: Tokenizer, *,
                 cancel: threading.Event | None = None, progress: Progress | None = None) -> IdentifyRun:
    """The probe set through the board's tokenizer in one exec, compared with every emulation."""
    cancel = cancel or threading.Event()
    say = progress or (lambda _phase, _done, _total: None)
    out = IdentifyRun()
    texts = identify.probe_texts()
    probe_req = replace(req, add_special_tokens=False)
    try:
        batch, _ = board_encode(conn, probe_req, texts, cancel, say, tok)
    except (BoardError, ValueError) as exc:
        out.error = str(exc)
        return out
    out.board_seconds = batch.seconds
    out.error = batch.error
    try:
        recipe = llama_recipe(req)
    except TokenizerError as exc:
        out.error = str(exc)
        return out
    out.result = identify.identify(tok, batch.ids, recipe)
    return out


def specials_arrived(tok: Tokenizer, host_ids: list[int], board_ids: list[int] | None) -> list[tuple[str, int, int]]:
    """Per added token of the host's ids (a chat template's <|im_start|>, <|im_end|>, <think>...): its text,
    how often the host has it, how often the board has it whole."""
    added = {int(a["id"]): str(a["content"]) for a in tok.added_tokens}  # type: ignore[call-overload]
    out = []
    for tid in sorted({i for i in host_ids if i in added}):
        out.append((added[tid], host_ids.count(tid), (board_ids or []).count(tid)))
    return out
