"""`tokinspect board ...`: encode a corpus on the board over SSH and diff it against the host.

  board diff      the checks, the board's ids against the host's, the summary
                  (exit 0: all texts agree, 1: they differ, 2: an error)
  board profile   list / save / delete saved connection profiles

Texts: one per line from FILE, or stdin (`-` or nothing). Secrets (a password,
a key passphrase) are asked on the terminal and never saved.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.tokenizer import ENCODERS, PRESETS, Tokenizer, TokenizerError
from .errors import said
from .i18n import _, finding_text, message

if TYPE_CHECKING:  # the board modules load paramiko (~0.25 s): only the board commands import them
    from ..board.causes import Finding
    from ..board.diff import Divergence
    from ..board.session import BoardRun
    from ..board.ssh import BoardConnection, Profile

EXIT_SAME, EXIT_DIFFER, EXIT_ERROR = 0, 1, 2


def board_said(exc: BaseException) -> str:
    """A failure in the command line's language: a board link's through its templates (board.messages:
    the lists of what was tried too), any other as the other commands say it."""
    from ..board import messages
    from ..board.ssh import BoardError

    return messages.translate(str(exc), message) if isinstance(exc, BoardError) else said(exc)


def finding_message(f: Finding) -> str:
    """A board rule's sentence in the command line's language (the catalog's msgctxt "finding")."""
    return f.text(finding_text)


def _ask(kind: str, prompt: str) -> str | None:
    try:
        return getpass.getpass(f"{prompt}: ")
    except (EOFError, OSError):
        return None


def profile_from_args(args: argparse.Namespace) -> Profile:
    from ..board.ssh import BoardError, Profile, ProfileStore

    if args.profile:
        p = ProfileStore(args.profiles).get(args.profile)
        if p is None:
            raise BoardError(_("no board profile named {name!r} in {path}").format(
                name=args.profile, path=ProfileStore(args.profiles).path))
    elif args.host:
        p = Profile(name=args.name or args.host, host=args.host)
    else:
        raise BoardError(_("say which board: --profile NAME, or --host H [--port P --user U --key K]"))
    for field, value in (("port", args.port), ("user", args.user), ("key_file", args.key), ("compiler", args.compiler),
                         ("run_prefix", args.run_prefix), ("deploy_root", args.deploy_root),
                         ("connect_timeout", args.connect_timeout), ("command_timeout", args.command_timeout)):
        if value is not None:
            setattr(p, field, value)
    if args.no_agent:
        p.use_agent = False
    p.validate()
    return p


def connect(args: argparse.Namespace, p: Profile) -> BoardConnection:
    from ..board.ssh import BoardConnection, BoardError, HostKeyUnknown, default_system_known_hosts

    known = [default_system_known_hosts()] + [Path(f) for f in args.known_hosts or []]
    conn = BoardConnection(p, _ask, known_hosts=known, app_known_hosts=args.app_known_hosts)
    try:
        conn.connect()
    except HostKeyUnknown as exc:
        if args.accept_host_key and args.accept_host_key == exc.fingerprint_sha256:
            where = exc.accept(args.app_known_hosts)
            print(_("accepted {kind} {fingerprint} for {host} (saved in {path})").format(
                kind=exc.key_type, fingerprint=exc.fingerprint_sha256, host=exc.host_entry, path=where),
                file=sys.stderr)
            conn.connect()
        else:
            raise BoardError(message(str(exc)) + "\n" + _("To trust it, run again with --accept-host-key {fingerprint}")
                             .format(fingerprint=exc.fingerprint_sha256)) from exc
    return conn


def _read_jsonl_texts(path: str) -> list[str]:
    """Texts from JSON Lines: each line a JSON string or {"text": ...}; blank lines skipped."""
    raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    out = []
    for k, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            v = json.loads(line)
        except ValueError as exc:
            raise ValueError(_("{path}:{line}: not a JSON line ({reason})").format(path=path, line=k,
                                                                                   reason=exc)) from exc
        if isinstance(v, dict) and isinstance(v.get("text"), str):
            v = v["text"]
        if not isinstance(v, str):
            raise ValueError(_("{path}:{line}: a JSON string or {{\"text\": ...}} was expected").format(
                path=path, line=k))
        out.append(v)
    return out


def _chat_text(path: str, tok: Tokenizer, config: str | None) -> str:
    """The messages file rendered through the tokenizer's chat template (tokenizer_config.json beside it,
    or --config; the built-in ChatML for the embedded default)."""
    from ..formats.chat_template import ChatTemplateError, find_template, load_config, render

    try:
        messages = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from exc
    if isinstance(messages, dict):
        messages = messages.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) and "role" in m and "content" in m
                                                 for m in messages):
        raise ValueError(_("{path}: a JSON list of {{\"role\", \"content\"}} messages was expected").format(path=path))
    try:
        tpl = load_config(Path(config)) if config else find_template(tok.path)
        return render(tpl, messages, add_generation_prompt=True)
    except ChatTemplateError as exc:
        raise ValueError(str(exc)) from exc


def _read_texts(path: str | None) -> list[str]:
    raw = sys.stdin.buffer.read() if path in (None, "-") else Path(str(path)).read_bytes()
    lines = raw.decode("utf-8", errors="surrogateescape").splitlines()
    return [line for line in lines if line]


def _pieces(v: Divergence, side: str) -> str:
    pieces = v.host_pieces if side == "host" else v.board_pieces
    return " ".join(f"{p.shown!r}({p.id})" for p in pieces) or _("(none)")


def _div_json(v: Divergence) -> dict[str, object]:
    return {"kind": v.kind, "reason": v.reason, "byte_span": list(v.byte_span), "rules": list(v.rules),
            "findings": [{"rule": f.rule, "sentence": f.sentence} for f in v.findings],
            "host": {"ids": [p.id for p in v.host_pieces], "pieces": [p.shown for p in v.host_pieces],
                     "bytes_hex": v.host_bytes.hex()},
            "board": {"ids": [p.id for p in v.board_pieces], "pieces": [p.shown for p in v.board_pieces],
                      "bytes_hex": v.board_bytes.hex()}}


def run_json(run: BoardRun, top: int, tok: Tokenizer | None = None) -> dict[str, object]:
    c, s = run.checks, run.summary
    facts = None if c.facts is None else {"uname_m": c.facts.uname_m, "compiler": c.facts.compiler_version,
                                          "target": c.facts.compiler_target, "char_signed": c.facts.char_signed}
    files = {side: None if f is None else {"what": f.what, "size": f.size, "sha256": f.sha256}
             for side, f in (("host", c.host), ("board", c.board))}
    vocab = None if c.vocab is None else {
        "entries_host": c.vocab.entries_a, "entries_board": c.vocab.entries_b,
        "differences": [{"id": e.id, "host_hex": None if e.a is None else e.a.hex(),
                         "board_hex": None if e.b is None else e.b.hex()} for e in c.vocab.differences[:top]],
        "differing": len(c.vocab.differences)}
    from ..board.printed import printed
    from ..board.session import specials_arrived

    texts = []
    for i, d in enumerate(run.diffs):
        row: dict[str, object] = {
            "index": i, "text": d.text, "identical": d.same, "board_error": d.board_error,
            "explained_by": d.explained_by,
            "host_ids": list(d.host_ids), "board_ids": None if d.board_ids is None else list(d.board_ids),
            "divergences": [_div_json(v) for v in d.divergences]}
        if tok is not None and d.board_ids is not None:
            row["board_prints"] = printed(tok, d.board_ids)
            row["specials"] = [{"token": t, "host": h, "board": b, "whole": b == h}
                               for t, h, b in specials_arrived(tok, list(d.host_ids), list(d.board_ids))]
        texts.append(row)
    return {
        "request": {"mode": run.request.mode, "remote_tokenizer": run.request.remote_tokenizer,
                    "encoder": run.request.encoder, "host_encoder": run.request.host_encoder},
        "checks": {"board": facts, "files": files, "same_file": c.same_file, "vocab": vocab, "notes": c.notes},
        "summary": {"texts": s.texts, "identical": s.identical, "missing": s.missing, "agree": s.agree,
                    "per_kind": dict(s.per_kind), "per_rule": dict(s.per_rule),
                    "explained_by": {k or "none": n for k, n in s.explained.items()},
                    "host_tokens": s.host_tokens, "board_tokens": s.board_tokens,
                    "most_frequent": [{"count": n, **_div_json(v)} for v, n in s.most_frequent(top)]},
        "texts": texts, "board_seconds": run.board_seconds, "host_seconds": run.host_seconds, "build": run.build,
        "error": run.error,
    }


def print_run(run: BoardRun, top: int, tok: Tokenizer | None = None) -> None:
    from ..board.diff import KIND_NAMES

    c, s = run.checks, run.summary
    if c.facts is not None:
        sign = {True: _("signed"), False: _("unsigned"), None: _("unknown")}[c.facts.char_signed]
        target = _(" (target {target})").format(target=c.facts.compiler_target) if c.facts.compiler_target else ""
        print(_("board: {machine}; compiler: {compiler}{target}; char is {sign}").format(
            machine=c.facts.uname_m, compiler=c.facts.compiler_version or _("not found"), target=target, sign=sign))
    for side, f in ((_("board file"), c.board), (_("host file"), c.host)):
        if f is not None:
            print(_("{side}: {what}: {size:,} bytes, sha256 {sha256}").format(side=side, what=message(f.what),
                                                                             size=f.size, sha256=f.sha256))
    if c.same_file is not None:
        print(_("tokenizer files: ") + (_("identical") if c.same_file else _("DIFFERENT")))
    if c.vocab is not None:
        print(_("vocab.bin entries: host {host:,}, board {board:,}, {differ:,} differ").format(
            host=c.vocab.entries_a, board=c.vocab.entries_b, differ=len(c.vocab.differences)))
        for e in c.vocab.differences[:top]:
            print(_("  id {id}: host {host} | board {board}").format(
                id=e.id, host=e.a.hex(" ") if e.a is not None else _("(none)"),
                board=e.b.hex(" ") if e.b is not None else _("(none)")))
    for note in c.notes:
        print(_("note: {note}").format(note=message(note)))
    print(_("texts: {texts:,}; identical: {identical:,}; without board ids: {missing:,}; "
            "tokens host {host:,}, board {board:,}").format(texts=s.texts, identical=s.identical, missing=s.missing,
                                                             host=s.host_tokens, board=s.board_tokens))
    print(_("time: board {board:.2f} s ({how}), host {host:.2f} s").format(
        board=run.board_seconds, how=run.request.label + (", " + run.build if run.build else ""),
        host=run.host_seconds))
    if s.per_kind:
        print(_("divergences: ") + "; ".join(f"{message(KIND_NAMES[k])}: {n:,}" for k, n in s.per_kind.most_common()))
        print(_("first divergence per text:"))
        for i, d in enumerate(run.diffs[: max(top * 10, 1)]):
            v = d.first
            if v is None:
                continue
            text = v.host_bytes.decode("utf-8", errors="backslashreplace")
            print(_("  #{n} at byte {at}: {kind} {text!r}: host {host} | board {board} ({reason})").format(
                n=i + 1, at=v.byte_span[0], kind=message(KIND_NAMES[v.kind]), text=text, host=_pieces(v, "host"),
                board=_pieces(v, "board"), reason=v.why.text(finding_text)))
            for f in v.findings:
                print(f"      {f.rule}: {finding_message(f)}")
        print(_("most frequent divergent spans:"))
        for v, n in s.most_frequent(top):
            print(_("  {n:>5}x {kind}: host {host} | board {board}").format(
                n=n, kind=message(KIND_NAMES[v.kind]), host=_pieces(v, "host"), board=_pieces(v, "board"))
                + (f" [{', '.join(v.rules)}]" if v.rules else ""))
    if s.per_rule:
        print(_("rules behind the board's side: ") + "; ".join(f"{k}: {n:,}" for k, n in s.per_rule.most_common()))
        print(_("explained by: ") + "; ".join(f"{k or _('no emulation')}: {n:,}" for k, n in s.explained.most_common()))
    if tok is not None:
        _print_texts(run, top, tok)
    for i, d in enumerate(run.diffs):
        if d.board_ids is None and d.board_error:
            print(f"  #{i + 1}: {message(d.board_error)}")
    if run.error:
        print(_("error: {reason} (results so far shown)").format(reason=message(run.error)))


def _print_texts(run: BoardRun, top: int, tok: Tokenizer) -> None:
    """Per differing text (up to top): what it is, what the board prints, the specials that did not arrive."""
    from ..board.printed import printed
    from ..board.session import specials_arrived

    shown = 0
    for i, d in enumerate(run.diffs):
        if d.board_ids is None or d.same or shown >= top:
            continue
        shown += 1
        print(_("text #{n}: {text!r}").format(n=i + 1, text=d.text[:200]))
        print(_("  the board prints: {text!r}").format(text=printed(tok, d.board_ids)[:200]))
        print(_("  explained by: {what}").format(what=d.explained_by or _("no emulation (see the rules per span)")))
        for t, h, b in specials_arrived(tok, list(d.host_ids), list(d.board_ids)):
            if b != h:
                print(_("  special {token}: {host} on the host, {board} whole on the board").format(
                    token=t, host=h, board=b))


def cmd_board_diff(args: argparse.Namespace) -> int:
    from ..board.session import run_diff
    from ..board.ssh import BoardError

    try:
        p = profile_from_args(args)
        tok = _host_tokenizer(args)
        if args.chat:
            texts = [_chat_text(args.chat, tok, args.config)]
        elif args.jsonl:
            texts = _read_jsonl_texts(args.jsonl)
        else:
            texts = _read_texts(args.file)
        req = _request(args, texts)
        if req.mode == "command" and req.parser == "regex" and not req.regex:
            raise BoardError(_("--parse regex needs --regex PATTERN (one group: the id)"))
        with connect(args, p) as conn:
            run = run_diff(conn, req, tok)
    except (BoardError, TokenizerError, OSError, ValueError) as exc:
        print(f"tokinspect board: {board_said(exc)}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print(json.dumps(run_json(run, args.top, tok), ensure_ascii=False))
    else:
        print_run(run, args.top, tok)
    if run.error or run.summary.missing:
        return EXIT_ERROR
    return EXIT_SAME if run.summary.agree else EXIT_DIFFER


def _host_tokenizer(args: argparse.Namespace) -> Tokenizer:
    """The host's tokenizer; --no-parse-special reads special tokens as text on the host too."""
    if args.tokenizer is None:
        return Tokenizer.default()
    return Tokenizer.from_file(args.tokenizer, merges=args.merges, preset=args.preset,
                               parse_special=not args.no_parse_special)


def _request(args: argparse.Namespace, texts: list[str]) -> object:
    from ..board.session import DiffRequest
    from ..board.ssh import BoardError

    mode = "command" if args.board_cmd else "llama-tokenize" if args.llama_tokenize else \
        "llama-server" if args.llama_server is not None else "deploy"
    req = DiffRequest(tuple(texts), args.remote_tokenizer, mode=mode,
                      encoder=args.encoder, host_encoder=getattr(args, "host_encoder", "bpe"),
                      add_special_tokens=getattr(args, "special", False), command=args.board_cmd or "",
                      parser=args.parse, regex=args.regex, input=args.input,
                      llama_tokenize=args.llama_tokenize or "", llama_port=args.llama_server or 0,
                      parse_special=not args.no_parse_special, gguf=args.gguf or "")
    if mode == "llama-server" and not 0 < req.llama_port < 65536:
        raise BoardError(_("--llama-server {port}: a TCP port (1-65535)").format(port=args.llama_server))
    if req.mode == "command" and req.parser == "regex" and not req.regex:
        raise BoardError(_("--parse regex needs --regex PATTERN (one group: the id)"))
    return req


def cmd_board_identify(args: argparse.Namespace) -> int:
    from ..board.session import run_identify
    from ..board.ssh import BoardError

    try:
        p = profile_from_args(args)
        tok = _host_tokenizer(args)
        req = _request(args, [])
        with connect(args, p) as conn:
            res = run_identify(conn, req, tok)  # type: ignore[arg-type]
    except (BoardError, TokenizerError, OSError, ValueError) as exc:
        print(f"tokinspect board: {board_said(exc)}", file=sys.stderr)
        return EXIT_ERROR
    ident = res.result
    if args.json:
        out: dict[str, object] = ident.as_json() if ident is not None else {"engine": None}
        out["error"] = res.error
        print(json.dumps(out, ensure_ascii=False))
    elif ident is not None:
        if ident.engine:
            print(_("the board runs {engine}: {n} of {n} probes reproduced").format(engine=ident.engine,
                                                                                    n=ident.probes))
        else:
            print(_("no emulation reproduces every probe; closest: {closest} ({agree} of {n})").format(
                closest=ident.closest, agree=ident.agree.get(ident.closest or "", 0), n=ident.probes))
            for text, board, host in ident.differ:
                print(_("  {text!r}: board {board} | {closest} {host}").format(text=text, board=board,
                                                                             closest=ident.closest, host=host))
        print(_("agreement: ") + ", ".join(f"{k} {n}/{ident.probes}" for k, n in ident.agree.items()))
    if res.error:
        print(_("error: {reason}").format(reason=message(res.error)), file=sys.stderr)
    if res.error or ident is None:
        return EXIT_ERROR
    return EXIT_SAME if ident.engine else EXIT_DIFFER


def cmd_board_profile(args: argparse.Namespace) -> int:
    from ..board.ssh import BoardError, ProfileStore

    store = ProfileStore(args.profiles)
    try:
        if args.action == "list":
            for p in store.load():
                key = p.key_file or ("ssh-agent" if p.use_agent else "password")
                print(f"{p.name}\t{p.label}\t{key}\tcompiler={p.compiler}\trun_prefix={p.run_prefix or '-'}")
        elif args.action == "save":
            if not args.name:
                raise BoardError(_("board profile save needs --name"))
            args.profile = None
            p = profile_from_args(args)
            p.name = args.name
            store.put(p)
            print(_("saved {name} ({label}) in {path}").format(name=p.name, label=p.label, path=store.path))
        else:
            if not args.name or not store.remove(args.name):
                raise BoardError(_("no board profile named {name!r}").format(name=args.name))
            print(_("deleted {name}").format(name=args.name))
    except BoardError as exc:
        print(f"tokinspect board: {board_said(exc)}", file=sys.stderr)
        return EXIT_ERROR
    return 0


def _connection_opts(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--profile", help=_("a saved profile (tokinspect board profile list)"))
    sp.add_argument("--profiles", help=_("the profile file (default: the app's)"))
    sp.add_argument("--host", help=_("the board's address (default: the profile's)"))
    sp.add_argument("--port", type=int, help=_("the board's SSH port (default: the profile's, else 22)"))
    sp.add_argument("--user", help=_("the SSH user on the board (default: the profile's)"))
    sp.add_argument("--key", help=_("private key file (default: ssh-agent, then a password)"))
    sp.add_argument("--no-agent", action="store_true", help=_("do not use the ssh-agent"))
    sp.add_argument("--compiler", help=_("the board's C compiler command (default cc)"))
    sp.add_argument("--run-prefix", help=_("put before the deployed binary, e.g. qemu-aarch64-static"))
    sp.add_argument("--deploy-root", help=_("where the engine is built on the board (default ~/.cache/tokinspect)"))
    sp.add_argument("--connect-timeout", type=float,
                    help=_("seconds to wait for the SSH connection (default: the profile's)"))
    sp.add_argument("--command-timeout", type=float,
                    help=_("seconds one board command may run (default: the profile's)"))


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    b = sub.add_parser("board", help=_("encode on the board over SSH and diff against the host"))
    bs = b.add_subparsers(dest="board_command", required=True)
    d = bs.add_parser("diff",
                      help=_("the board's ids against the host's, per text, with the rule behind each divergence"))
    _connection_opts(d)
    _board_tokenizer_opts(d)
    d.add_argument("--host-encoder", choices=ENCODERS, default="bpe",
                   help=_("the host's encoder (kestrel-v1/v2: the real board engine; greedy: the ideal longest match)"))
    d.add_argument("--special", action="store_true", help=_("add special tokens on both sides"))
    d.add_argument("--json", action="store_true", help=_("one JSON object: every text in order, with explained_by, "
                                                       "and each divergence with its rules"))
    d.add_argument("--top", type=int, default=10, help=_("rows of lists to print"))
    src = d.add_mutually_exclusive_group()
    src.add_argument("--jsonl", metavar="FILE",
                     help=_("texts from JSON Lines (a JSON string or {\"text\": ...} per line)"))
    src.add_argument("--chat", metavar="MESSAGES.json",
                     help=_("one text: the messages rendered through the tokenizer's chat template"))
    d.add_argument("--config", help=_("--chat: the tokenizer_config.json whose chat_template to use"))
    d.add_argument("file", nargs="?", help=_("texts, one per line (default: stdin)"))
    d.set_defaults(func=cmd_board_diff)
    i = bs.add_parser("identify", help=_("which engine the board runs: a probe set against every emulation"))
    _connection_opts(i)
    _board_tokenizer_opts(i)
    i.add_argument("--json", action="store_true",
                   help='{"engine": ..., "probes": N, "agree": {"kestrel-v1": n, ...}, ...}')
    i.set_defaults(func=cmd_board_identify)
    pr = bs.add_parser("profile", help=_("list, save or delete connection profiles"))
    pr.add_argument("action", choices=("list", "save", "delete"), help=_("what to do with the profiles"))
    _connection_opts(pr)
    pr.add_argument("--name", help=_("the profile's name (save, delete)"))
    pr.set_defaults(func=cmd_board_profile)


def _board_tokenizer_opts(d: argparse.ArgumentParser) -> None:
    """How to reach the board's tokenizer, and the host's tokenizer (board diff and board identify)."""
    d.add_argument("--name", help=argparse.SUPPRESS)
    d.add_argument("--known-hosts", action="append", help=_("another known_hosts file to trust (repeatable)"))
    d.add_argument("--app-known-hosts", help=_("the app's own known_hosts file (accepted keys go there)"))
    d.add_argument("--accept-host-key", metavar="SHA256:...", help=_("trust an unknown host key with this fingerprint"))
    d.add_argument("--remote-tokenizer", required=True, help=_("the tokenizer file on the board (vocab.bin, ...)"))
    mode = d.add_mutually_exclusive_group()
    mode.add_argument("--deploy", action="store_true", help=_("build and run our engine on the board (default)"))
    mode.add_argument("--command", dest="board_cmd",
                      help=_("the board's own tokenizer command: {tokenizer}, {input} (a file of texts, one per line; "
                           "without it the texts go to stdin)"))
    mode.add_argument("--llama-tokenize", metavar="BINARY",
                      help=_("the board runs llama.cpp: its llama-tokenize binary, with --remote-tokenizer the GGUF"))
    mode.add_argument("--llama-server", metavar="PORT", type=int,
                      help=_("the board runs llama.cpp's llama-server on its 127.0.0.1:PORT: /tokenize through the "
                           "SSH connection (a forwarded channel; no port is opened)"))
    d.add_argument("--gguf", metavar="FILE",
                   help=_("llama.cpp board and a host tokenizer of another format: the model's GGUF on the host, "
                        "llama.cpp's recipe (identify's candidate llama.cpp; the diff's llamacpp-recipe rule)"))
    d.add_argument("--no-parse-special", action="store_true",
                   help=_("llama.cpp: special tokens in the text are read as text (its --no-parse-special)"))
    d.add_argument("--encoder", choices=ENCODERS, default="bpe", help=_("the deployed engine's encoder"))
    d.add_argument("--parse", choices=("jsonl", "ints", "regex"), default="jsonl", help=_("--command's output"))
    d.add_argument("--regex", help=_("--parse regex: a pattern with one group, the id"))
    d.add_argument("--input", choices=("lines", "jsonl", "per-text"), default="lines",
                   help=_("--command: how texts travel: one per line (a text with a line break goes by itself), "
                        "one JSON string per line, or one exec per text"))
    d.add_argument("--tokenizer", "-t", help=_("the host's tokenizer (default: the embedded Qwen3)"))
    d.add_argument("--merges", help=_("merges.txt for a host vocab.json"))
    d.add_argument("--preset", choices=PRESETS, help=_("split pattern for a host .tiktoken / vocab.json / vocab.bin"))
