"""The token commands: `tokinspect encode`, `decode`, `trace` and `info`.

Text comes from the argument or stdin; `--jsonl` reads one JSON string (or
{"text": ..., "add_special_tokens": ...}) per line and writes one JSON
object per line, the protocol the board agent `tokcore` speaks too.
Without --tokenizer the embedded default (Qwen3) is used.

Does not: dispatch (cli/__init__.py does) or open the window.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO, TextIO

from ..core.encoding import Encoding
from ..core.tokenizer import ENCODER_HELP, ENCODERS, PRESETS, Tokenizer
from ..core.trace import KestrelStep
from .columns import display_width as display_width  # re-exported: the table code and its tests use both
from .columns import ljust_display, rjust_display
from .errors import UsageError, terminal_hint
from .i18n import _, message


def _load(args: argparse.Namespace) -> Tokenizer:
    if args.tokenizer is None:
        return Tokenizer.default()
    return Tokenizer.from_file(args.tokenizer, merges=args.merges, preset=args.preset, config=args.config)


def _warn_compat(tok: Tokenizer) -> None:
    """One stderr line per thing HF tokenizers refuses in the file: it loads
    here, but the runtime would reject it."""
    for n in tok.compat_notes:
        print(_("warning: {note}").format(note=message(n)), file=sys.stderr)


def _read_text(args: argparse.Namespace) -> str:
    """The text argument or stdin; bytes that are not UTF-8 are kept as surrogate escapes (see _raw)."""
    if args.text is not None:
        return str(args.text)
    terminal_hint()
    return sys.stdin.buffer.read().decode("utf-8", errors="surrogateescape")


def _raw(text: str) -> bytes:
    """The bytes a text came from: invalid UTF-8 (an argument or stdin) goes to the engine as it
    was, through the byte-level path, instead of failing to encode."""
    return text.encode("utf-8", errors="surrogateescape")


def parse_ids(raw: str | Sequence[str], vocab_size: int) -> list[int]:
    """ids from arguments or text: integers separated by spaces or commas, or a JSON list
    ("[9707, 11]"); each must be an id of the vocabulary (0..vocab_size-1)."""
    if not isinstance(raw, str) and " ".join(raw).lstrip().startswith("["):
        raw = " ".join(raw)
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith("["):
            try:
                items = json.loads(text)
            except ValueError as exc:
                raise UsageError(_("decode: the input starts with '[' but is not a JSON list of ids ({reason})").format(
                    reason=exc)) from None
            if not isinstance(items, list):
                raise UsageError(_("decode: expected a JSON list of ids"))
            words = [str(x) if isinstance(x, int) and not isinstance(x, bool) else repr(x) for x in items]
        else:
            words = text.replace(",", " ").split()
    else:
        words = [w for item in raw for w in item.replace(",", " ").split()]
    ids = []
    for w in words:
        try:
            i = int(w)
        except ValueError:
            raise UsageError(_("decode: {word!r} is not an id (ids are integers)").format(word=w[:40])) from None
        if not 0 <= i < vocab_size:
            shown = w if len(w) <= 24 else w[:20] + "..."
            raise UsageError(_("decode: id {id} is not in the vocabulary (ids 0..{last})").format(
                id=shown, last=vocab_size - 1))
        ids.append(i)
    if not ids:
        raise UsageError(_("decode: no ids given (arguments, or stdin)"))
    return ids


def _enc_json(enc: Encoding, full: bool) -> dict[str, object]:
    out: dict[str, object] = {"ids": enc.ids.tolist(), "offsets": enc.offsets.tolist()}
    if full:
        out["tokens"] = enc.tokens
        out["byte_offsets"] = enc.byte_offsets.tolist()
        out["special_mask"] = enc.special_mask.tolist()
    return out


def _request(line: bytes, add_special: bool) -> tuple[str, bool]:
    """(text, add_special_tokens) of one --jsonl request line; raises on a bad line."""
    req = json.loads(line.rstrip(b"\r\n").decode("utf-8", errors="replace"))
    if isinstance(req, dict):
        unknown = [k for k in req if k not in ("text", "add_special_tokens")]
        if unknown:
            raise ValueError(f"unknown key {unknown[0][:60]!r} (expected text, add_special_tokens)")
        if "text" not in req:
            raise ValueError('missing "text"')
        text, special = req["text"], req.get("add_special_tokens", add_special)
        if not isinstance(special, bool):
            raise ValueError('"add_special_tokens" must be true or false')
    else:
        text, special = req, add_special
    if not isinstance(text, str):
        raise ValueError('expected a JSON string or {"text": ...}')
    return text, special


def _guarded(step: Callable[[], dict[str, object]]) -> dict[str, object]:
    """A reply, or the error object of what went wrong making it; never raises."""
    try:
        return step()
    except RecursionError:
        return {"error": "the JSON is nested too deeply"}
    except MemoryError:
        return {"error": "out of memory"}
    except Exception as exc:  # noqa: BLE001 - one bad line answers an error; the stream goes on
        return {"error": str(exc) or type(exc).__name__}


def jsonl_reply(tok: Tokenizer, add_special: bool, encoder: str, line: bytes,
                ids_only: bool = False) -> dict[str, object]:
    """The reply to one --jsonl request line: {"ids", "offsets"} (ids_only: {"ids"}, the engine
    computing no offsets) or {"error": ...}; never raises.

    A line that is not UTF-8 is decoded as tokcore does (each ill-formed part one U+FFFD); a line
    nested too deep for the JSON parser, with a number too long to convert, a text that is not a
    string, keys that are missing or unknown, or a text the engine refuses gets one error object."""
    def reply() -> dict[str, object]:
        text, special = _request(line, add_special)
        if ids_only:
            return {"ids": tok.encode_ids(text, special, encoder).tolist()}
        return _enc_json(tok.encode(text, special, encoder), False)
    return _guarded(reply)


def jsonl_replies(tok: Tokenizer, add_special: bool, encoder: str, lines: Sequence[bytes], ids_only: bool,
                  threads: int) -> list[dict[str, object]]:
    """The replies to many request lines at once, in order: the good requests go to the engine as one
    batch per add_special_tokens value, on `threads` threads; a batch the engine refuses (one of its
    texts) is answered line by line, so each bad line gets its own error and the others their ids."""
    replies: list[dict[str, object] | None] = [None] * len(lines)
    groups: dict[bool, list[tuple[int, str]]] = {True: [], False: []}
    for i, line in enumerate(lines):
        try:
            text, special = _request(line, add_special)
        except Exception:  # noqa: BLE001 - a bad line: its error object, as a single line gets it
            replies[i] = jsonl_reply(tok, add_special, encoder, line, ids_only)
            continue
        groups[special].append((i, text))
    for special, items in groups.items():
        if not items:
            continue
        texts = [t for _i, t in items]
        try:
            if ids_only:
                done = [{"ids": a.tolist()} for a in tok.encode_batch_ids(texts, special, encoder, threads)]
            else:
                done = [_enc_json(e, False) for e in tok.encode_batch(texts, special, encoder, threads)]
        except Exception:  # noqa: BLE001 - the engine refused one text: each line answers for itself
            done = [jsonl_reply(tok, special, encoder, lines[i], ids_only) for i, _text in items]
        for (i, _text), r in zip(items, done):
            replies[i] = r
    return [r if r is not None else {"error": "no reply"} for r in replies]


def _write_reply(res: dict[str, object], out: TextIO) -> None:
    try:
        text = json.dumps(res, ensure_ascii=False)
        text.encode("utf-8")
    except (ValueError, UnicodeError):  # a message quoting a lone surrogate
        text = json.dumps(res, ensure_ascii=True)
    out.write(text + "\n")
    out.flush()


def _jsonl(tok: Tokenizer, add_special: bool, encoder: str, inp: BinaryIO, out: TextIO, ids_only: bool = False,
           threads: int = 1) -> None:
    if threads > 1:   # the whole of stdin as one batch, then the replies in order
        for res in jsonl_replies(tok, add_special, encoder, inp.read().splitlines(keepends=True), ids_only,
                                 threads):
            _write_reply(res, out)
        return
    for line in inp:
        _write_reply(jsonl_reply(tok, add_special, encoder, line, ids_only), out)


def cmd_encode(args: argparse.Namespace) -> int:
    tok = _load(args)
    _warn_compat(tok)
    special = not args.no_special
    if args.ids and (args.json or args.table):
        raise UsageError(_("encode: --ids prints ids alone; it goes with the plain output or --jsonl, not "
                           "--{option}").format(option="json" if args.json else "table"))
    if args.threads > 1 and not args.jsonl:
        raise UsageError(_("encode: --threads needs --jsonl (one text is encoded on one thread)"))
    if args.jsonl:
        _jsonl(tok, special, args.encoder, sys.stdin.buffer, sys.stdout, args.ids, args.threads)
        return 0
    text = _read_text(args)
    if not (args.json or args.table):   # the ids alone: the engine computes no offsets
        print(" ".join(str(i) for i in tok.encode_ids(_raw(text), special, args.encoder).tolist()))
        return 0
    enc = tok.encode(_raw(text), special, args.encoder)
    if args.json:
        print(json.dumps(_enc_json(enc, True), ensure_ascii=False))
    elif args.table:
        print(f"{rjust_display(_('#'), 5)} {rjust_display(_('id'), 7)}  {ljust_display(_('token'), 20)} "
              f"{ljust_display(_('chars'), 12)} {ljust_display(_('bytes'), 12)} {_('hex')}")
        for i, (tid, piece, raw) in enumerate(zip(enc.ids.tolist(), enc.tokens, enc.token_bytes)):
            c, b = enc.offsets[i].tolist(), enc.byte_offsets[i].tolist()
            print(f"{i:>5} {tid:>7}  {ljust_display(repr(piece), 20)} {str(c):<12} {str(b):<12} {raw.hex(' ')}")
        print(_("{tokens} tokens, {chars} characters, {bytes} bytes").format(
            tokens=len(enc), chars=len(text), bytes=len(text.encode("utf-8", "surrogateescape"))))
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    tok = _load(args)
    if args.ids:
        ids = parse_ids(args.ids, tok.vocab_size)
    else:
        terminal_hint(_("ids"))
        ids = parse_ids(sys.stdin.read(), tok.vocab_size)
    sys.stdout.write(tok.decode(ids, skip_special_tokens=args.skip_special))
    if sys.stdout.isatty():
        sys.stdout.write("\n")
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    tok = _load(args)
    _warn_compat(tok)
    tr = tok.trace(_raw(_read_text(args)), not args.no_special, args.encoder)
    name = tok.id_to_token
    if tr.normalized_changed:
        print(_("normalized: {text!r}").format(text=tr.normalized_text))
    for st in tr.kestrel_steps:
        print(kestrel_step_line(tok, st))
    for g in tr.greedy_steps:
        took = f"{name(g.chosen)}({g.chosen})" if g.chosen is not None else _("nothing: one unit dropped")
        cands = " ".join(f"{name(c)}({c})" for c in g.candidates)
        print(_("at byte {pos}: {took}   [prefixes: {candidates}]").format(pos=g.pos, took=took, candidates=cands))
    for ch in tr.chunks:
        a, b = ch.norm_span
        text = tr.normalized[a:b].decode("utf-8", errors="replace")
        if ch.added_id is not None:
            print(_("added token {text!r} -> {id}").format(text=text, id=ch.added_id))
            continue
        print(_("chunk {text!r} at bytes {span}").format(text=(" " if ch.prefix_space else "") + text,
                                                         span=ch.orig_span))
        for st in ch.steps():
            syms = " ".join(name(s) or "?" for s in st.symbols)
            print(_("    rank {rank:>6}: {left!s} + {right!s} -> {new}   [{symbols}]").format(
                rank=st.rank, left=name(st.left), right=name(st.right), new=name(st.new_id), symbols=syms))
        print("    = " + " ".join(f"{name(t)}({t})" for t in ch.final()))
    return 0


def kestrel_step_line(tok: Tokenizer, st: KestrelStep) -> str:
    """One step of a kestrel encoder as a line: where, the spaces skipped, the Ġ retry, the rule, the token."""
    name = tok.id_to_token
    parts = [_("at byte {at}").format(at=st.at)]
    if st.spaces:
        parts.append(_("skipped {n} space(s)").format(n=st.spaces))
    retry = {"taken": _("Ġ retry taken"), "only-space": _("Ġ retry: no entry longer than Ġ (the space is lost)"),
             "guarded": _("Ġ retry {token} refused: it runs into the next special").format(
                 token=name(st.retry_id) if st.retry_id is not None else "?"), "none": ""}[st.retry]
    if retry:
        parts.append(retry)
    if st.limit < st.unguarded:
        parts.append(_("limit {limit} byte(s) before a special (longest entry: {longest})").format(
            limit=st.limit, longest=st.unguarded))
    what = {"match": _("longest entry"), "space-retry": _("Ġ + word"), "special": _("special first"),
            "newline": _("newline fallback"), "byte": _("single byte"), "unk": _("no entry: id 0"),
            "trailing": _("trailing spaces dropped"),
            "nul": _("NUL: {n} byte(s) after it never read").format(n=st.consumed)}[st.rule]
    tok_s = f" -> {name(st.id)}({st.id})" if st.id is not None else ""
    return _("; ").join(parts) + _(": {rule}{token}").format(rule=what, token=tok_s)


def cmd_info(args: argparse.Namespace) -> int:
    if args.path is not None:
        args.tokenizer = args.path
    tok = _load(args)
    info = tok.describe()
    if args.against:
        from ..analysis.recipe import compare_recipe
        from ..contract.samples import GOLDEN, probes

        other = Tokenizer.from_file(args.against)
        gguf, hf = (tok, other) if tok.format == "gguf" else (other, tok)
        if gguf.format != "gguf" or hf.format == "gguf":
            raise UsageError(_("info --against compares a GGUF with a tokenizer file of another kind "
                               "(here: {a} and {b})").format(a=tok.format, b=other.format))
        texts = [*probes(), *(t for _name, t in GOLDEN)]
        if args.texts:
            texts += [ln for ln in Path(args.texts).read_text(encoding="utf-8").splitlines() if ln.strip()]
        info["llama_cpp_vs"] = {"gguf": str(gguf.path), "other": str(hf.path),
                                **compare_recipe(gguf, hf, texts).as_dict()}
    print(json.dumps(info, ensure_ascii=False, indent=2))
    return 0


def positive_int(value: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(_("{value!r} is not an integer").format(value=value)) from None
    if n < 1:
        raise argparse.ArgumentTypeError(_("{n} is not a positive integer").format(n=n))
    return n


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--tokenizer", "-t", help=_("tokenizer.json, vocab.json or .tiktoken (default: Qwen3)"))
        sp.add_argument("--merges", help=_("merges.txt for a vocab.json"))
        sp.add_argument("--preset", choices=PRESETS, help=_("split pattern for .tiktoken / vocab.json files"))
        sp.add_argument("--config", help=_("tokenizer_config.json whose added tokens to add"))

    e = sub.add_parser("encode", help=_("text -> ids"))
    common(e)
    e.add_argument("text", nargs="?", help=_("text (default: stdin)"))
    g = e.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help=_("ids, tokens, offsets as one JSON object"))
    g.add_argument("--jsonl", action="store_true", help=_("one JSON string per stdin line -> one object per line"))
    g.add_argument("--table", action="store_true", help=_("one row per token"))
    e.add_argument("--no-special", action="store_true", help=_("add_special_tokens=False"))
    e.add_argument("--encoder", choices=ENCODERS, default="bpe",
                   help="; ".join(f"{k}: {message(v)}" for k, v in ENCODER_HELP.items()))
    e.add_argument("--ids", action="store_true",
                   help=_("ids only, no offsets computed: the plain output (which is ids already), or --jsonl "
                          'replies {"ids": [...]} without "offsets"'))
    e.add_argument("--threads", type=positive_int, default=1, metavar="N",
                   help=_("--jsonl: read all of stdin, encode it as one batch on N threads, then reply in order; "
                          "1 answers each line as it comes"))
    e.set_defaults(func=cmd_encode)

    d = sub.add_parser("decode", help=_("ids -> text"))
    common(d)
    d.add_argument("ids", nargs="*", help=_("ids (default: stdin)"))
    d.add_argument("--skip-special", action="store_true", help=_("leave special tokens out of the text"))
    d.set_defaults(func=cmd_decode)

    t = sub.add_parser("trace", help=_("chunks and merge steps"))
    common(t)
    t.add_argument("text", nargs="?", help=_("text (default: stdin)"))
    t.add_argument("--no-special", action="store_true", help=_("add_special_tokens=False"))
    t.add_argument("--encoder", choices=ENCODERS, default="bpe", help=_("whose steps to show (see encode --help)"))
    t.set_defaults(func=cmd_trace)

    i = sub.add_parser("info", help=_("components, vocab size, specials, sha256"))
    common(i)
    i.add_argument("path", nargs="?", help=_("tokenizer file (same as --tokenizer)"))
    i.add_argument("--against", metavar="FILE",
                   help=_("with a GGUF: the model's own tokenizer.json (or the other way round): where llama.cpp's "
                          "recipe differs from it, aspect by aspect and on probe texts (llama_cpp_vs in the output)"))
    i.add_argument("--texts", metavar="FILE", help=_("--against: more texts to compare on, one per line (UTF-8)"))
    i.set_defaults(func=cmd_info)
