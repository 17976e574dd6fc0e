"""CLI commands for vocab.bin and corpus comparisons:

  tokinspect vocab compile TOKENIZER -o vocab.bin
  tokinspect vocab audit FILE [--probe 220,198,255,221] [--against OTHER.bin] [--json]
  tokinspect vocab diff OLD NEW ... (vocab_diff.py)
  tokinspect compare [-t A] [--encoder E] [--tokenizer-b B] [--encoder-b E] [FILE...]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from ..analysis.divergence import Side, divergence
from ..core.tokenizer import DEFAULTS, ENCODERS, PRESETS, Tokenizer
from ..formats import vocab_bin
from .columns import ljust_display, rjust_display
from .errors import EXIT_DIFFER, EXIT_OK, UsageError, terminal_hint
from .i18n import _, message


def _shown_name(tok: Tokenizer) -> str:
    """A tokenizer's name in the current language: the embedded defaults' names are words ("Qwen3
    (embedded default)"), a file's name is its file's."""
    return message(tok.name) if tok.name in {name for name, _pre in DEFAULTS.values()} else tok.name


def _load(path: str | None, merges: str | None, preset: str | None, config: str | None) -> Tokenizer:
    if path is None:
        return Tokenizer.default()
    return Tokenizer.from_file(path, merges=merges, preset=preset, config=config)


def cmd_vocab_compile(args: argparse.Namespace) -> int:
    tok = _load(args.tokenizer, args.merges, args.preset, args.config)
    res = vocab_bin.compile_vocab_bin(tok)
    Path(args.output).write_bytes(res.data)
    print(_("total entries: {n}").format(n=res.total))
    print(_("converted: {n}").format(n=res.changed))
    print(_("kept: {n}").format(n=res.kept))
    print(_("special copied: {n}").format(n=res.specials))
    print(_("{size} bytes, sha256 {sha256} -> {path}").format(size=len(res.data), sha256=res.sha256, path=args.output))
    return 0


def _hex_text(b: bytes | None) -> str:
    if b is None:
        return _("(missing)")
    return f"{b.hex(' ')}  {b.decode('utf-8', errors='backslashreplace')!r}"


def cmd_vocab_audit(args: argparse.Namespace) -> int:
    probes = tuple(int(x) for x in args.probe.split(",") if x.strip()) if args.probe else vocab_bin.DEFAULT_PROBES
    a = vocab_bin.audit(args.file, probes)
    cmp = vocab_bin.compare(args.file, args.against) if args.against else None
    if args.json:
        out: dict[str, object] = dataclasses.asdict(a)
        if cmp is not None:
            out["against"] = {"sha256_a": cmp.sha256_a, "sha256_b": cmp.sha256_b, "identical": cmp.identical,
                              "differences": [{"id": d.id, "a": d.a.hex() if d.a is not None else None,
                                               "b": d.b.hex() if d.b is not None else None} for d in cmp.differences]}
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    r = a.report
    print(_("{path}: {size} bytes, sha256 {sha256}").format(path=a.path, size=a.size, sha256=a.sha256))
    print(_("entries {n}, string bytes {string_bytes}, trailing {trailing}").format(
        n=r["n"], string_bytes=r["string_bytes"], trailing=r["trailing"]))
    for w in a.warnings:
        print(_("warning: {note}").format(note=message(w)))
    print(_("entries per byte class:"))
    for k, v in r["classes"].items():  # type: ignore[union-attr]
        print(f"  {k:<16} {v}")
    inv = r["invalid_utf8"]
    print(_("not valid UTF-8 alone: {n} (first ids {ids})").format(n=inv["count"], ids=inv["first_ids"]))  # type: ignore[index]
    lo = r["longest"]
    print(_("longest entry: id {id}, {n} bytes").format(id=lo["id"], n=lo["len"]))  # type: ignore[index]
    ident = r["identical"]
    print(_("entries with identical bytes: {groups} groups, {entries} entries").format(
        groups=ident["groups"], entries=ident["entries"]))  # type: ignore[index]
    for g in ident["list"][: args.limit]:  # type: ignore[index]
        print(_("  ids {ids}").format(ids=g))
    print(_("probes:"))
    print(f"  {rjust_display(_('id'), 7)}  {ljust_display(_('stored'), 12)} {ljust_display(_('real'), 8)} "
          f"{_('mapped')}")
    for p in a.probes:
        print(f"  {p.id:>7}  {p.stored_hex:<12} {p.real_hex:<8} {p.mapped}")
    if cmp is not None:
        state = _("identical") if cmp.identical else _("{n} entries differ").format(n=len(cmp.differences))
        print(_("against {path}: sha256 {sha256}: {state}").format(path=args.against, sha256=cmp.sha256_b,
                                                                     state=state))
        for d in cmp.differences[: args.limit]:
            print(f"  id {d.id}: {_hex_text(d.a)}  |  {_hex_text(d.b)}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    a = Side(_load(args.tokenizer, args.merges, args.preset, args.config), args.encoder)
    b_tok = _load(args.tokenizer_b, None, args.preset, None) if args.tokenizer_b else a.tokenizer
    # B's encoder: the board's longest match when both sides share the tokenizer, else B's own model
    b = Side(b_tok, args.encoder_b or ("bpe" if args.tokenizer_b else "greedy"))
    if args.files:
        lines = [line for f in args.files for line in _read_utf8(Path(f)).split("\n")]
    else:
        terminal_hint(_("lines"))
        lines = [line.rstrip("\n") for line in _read_utf8(None).splitlines()]
    if not any(lines):
        raise UsageError(_("compare: no text to compare (the input is empty)"))
    rep = divergence(a, b, lines)
    print(f"A: {_shown_name(a.tokenizer)} [{a.encoder}]   B: {_shown_name(b.tokenizer)} [{b.encoder}]")
    print(_("lines {lines}, identical {agree} ({share:.1f}%), tokens A {tokens_a}, B {tokens_b}").format(
        lines=rep.lines, agree=rep.agree, share=100 * rep.agree_share, tokens_a=rep.tokens_a, tokens_b=rep.tokens_b))
    print(_("most frequent divergent spans (count, text, A | B):"))
    none = _("(none)")
    for (text, pa, pb), n in rep.most_common(args.top):
        print(f"  {n:>6}  {text!r:<16} {' '.join(map(repr, pa)) or none}  |  {' '.join(map(repr, pb)) or none}")
    return EXIT_OK if rep.agree == rep.lines else EXIT_DIFFER


def _read_utf8(path: Path | None) -> str:
    """A text file (or stdin) as str; not UTF-8 is one error naming the file and the byte."""
    data = path.read_bytes() if path is not None else sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(_("{path}: not UTF-8 text ({reason} at byte {at}); compare reads UTF-8 lines").format(
            path=path if path is not None else _("stdin"), reason=message(exc.reason), at=exc.start)) from None


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    def load_opts(sp: argparse.ArgumentParser, positional: bool) -> None:
        if positional:
            sp.add_argument("tokenizer", nargs="?", help=_("tokenizer file (default: the embedded Qwen3)"))
        else:
            sp.add_argument("--tokenizer", "-t", help=_("tokenizer file (default: the embedded Qwen3)"))
        sp.add_argument("--merges", help=_("merges.txt for a vocab.json"))
        sp.add_argument("--preset", choices=PRESETS,
                        help=_("split pattern for .tiktoken / vocab.json / vocab.bin files"))
        sp.add_argument("--config", help=_("tokenizer_config.json whose added tokens to add"))

    v = sub.add_parser("vocab", help=_("compile or audit a vocab.bin"))
    vs = v.add_subparsers(dest="vocab_command", required=True)
    c = vs.add_parser("compile", help=_("tokenizer -> vocab.bin"))
    load_opts(c, True)
    c.add_argument("-o", "--output", required=True, help=_("the vocab.bin to write"))
    c.set_defaults(func=cmd_vocab_compile)
    a = vs.add_parser("audit", help=_("byte classes, identical entries, probes; compare with another vocab.bin"))
    a.add_argument("file", help=_("the vocab.bin to audit"))
    a.add_argument("--probe", help=_("ids to show, comma-separated (default 220,198,255,221)"))
    a.add_argument("--against", help=_("another vocab.bin to compare with (e.g. the board's)"))
    a.add_argument("--limit", type=int, default=40, help=_("rows of lists to print"))
    a.add_argument("--json", action="store_true", help=_("the audit as one JSON object"))
    a.set_defaults(func=cmd_vocab_audit)
    from .vocab_diff import register as register_diff

    register_diff(vs)

    m = sub.add_parser("compare", help=_("where two encoders or tokenizers split a corpus differently"))
    load_opts(m, False)
    m.add_argument("--encoder", choices=ENCODERS, default="bpe", help=_("side A's encoder"))
    m.add_argument("--tokenizer-b", help=_("the other tokenizer (default: the same as A)"))
    m.add_argument("--encoder-b", choices=ENCODERS, default=None,
                   help=_("side B's encoder (default: greedy, the board's longest match, when B is A's tokenizer; "
                          "bpe, B's own model, with --tokenizer-b)"))
    m.add_argument("--top", type=int, default=20, help=_("divergent spans to list"))
    m.add_argument("files", nargs="*", help=_("text files, one text per line (default: stdin lines)"))
    m.set_defaults(func=cmd_compare)
