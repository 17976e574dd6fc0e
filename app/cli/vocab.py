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
from ..core.tokenizer import ENCODERS, PRESETS, Tokenizer
from ..formats import vocab_bin
from .errors import EXIT_DIFFER, EXIT_OK, UsageError, terminal_hint


def _load(path: str | None, merges: str | None, preset: str | None, config: str | None) -> Tokenizer:
    if path is None:
        return Tokenizer.default()
    return Tokenizer.from_file(path, merges=merges, preset=preset, config=config)


def cmd_vocab_compile(args: argparse.Namespace) -> int:
    tok = _load(args.tokenizer, args.merges, args.preset, args.config)
    res = vocab_bin.compile_vocab_bin(tok)
    Path(args.output).write_bytes(res.data)
    print(f"total entries: {res.total}")
    print(f"converted: {res.changed}")
    print(f"kept: {res.kept}")
    print(f"special copied: {res.specials}")
    print(f"{len(res.data)} bytes, sha256 {res.sha256} -> {args.output}")
    return 0


def _hex_text(b: bytes | None) -> str:
    if b is None:
        return "(missing)"
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
    print(f"{a.path}: {a.size} bytes, sha256 {a.sha256}")
    print(f"entries {r['n']}, string bytes {r['string_bytes']}, trailing {r['trailing']}")
    for w in a.warnings:
        print(f"warning: {w}")
    print("entries per byte class:")
    for k, v in r["classes"].items():  # type: ignore[union-attr]
        print(f"  {k:<16} {v}")
    inv = r["invalid_utf8"]
    print(f"not valid UTF-8 alone: {inv['count']} (first ids {inv['first_ids']})")  # type: ignore[index]
    lo = r["longest"]
    print(f"longest entry: id {lo['id']}, {lo['len']} bytes")  # type: ignore[index]
    ident = r["identical"]
    print(f"entries with identical bytes: {ident['groups']} groups, {ident['entries']} entries")  # type: ignore[index]
    for g in ident["list"][: args.limit]:  # type: ignore[index]
        print(f"  ids {g}")
    print("probes:")
    print(f"  {'id':>7}  {'stored':<12} {'real':<8} mapped")
    for p in a.probes:
        print(f"  {p.id:>7}  {p.stored_hex:<12} {p.real_hex:<8} {p.mapped}")
    if cmp is not None:
        state = "identical" if cmp.identical else f"{len(cmp.differences)} entries differ"
        print(f"against {args.against}: sha256 {cmp.sha256_b}: {state}")
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
        terminal_hint("lines")
        lines = [line.rstrip("\n") for line in _read_utf8(None).splitlines()]
    if not any(lines):
        raise UsageError("compare: no text to compare (the input is empty)")
    rep = divergence(a, b, lines)
    print(f"A: {a.tokenizer.name} [{a.encoder}]   B: {b.tokenizer.name} [{b.encoder}]")
    print(f"lines {rep.lines}, identical {rep.agree} ({100 * rep.agree_share:.1f}%), tokens A {rep.tokens_a}, "
          f"B {rep.tokens_b}")
    print("most frequent divergent spans (count, text, A | B):")
    for (text, pa, pb), n in rep.most_common(args.top):
        print(f"  {n:>6}  {text!r:<16} {' '.join(map(repr, pa)) or '(none)'}  |  {' '.join(map(repr, pb)) or '(none)'}")
    return EXIT_OK if rep.agree == rep.lines else EXIT_DIFFER


def _read_utf8(path: Path | None) -> str:
    """A text file (or stdin) as str; not UTF-8 is one error naming the file and the byte."""
    data = path.read_bytes() if path is not None else sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path if path is not None else 'stdin'}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
                         "compare reads UTF-8 lines") from None


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    def load_opts(sp: argparse.ArgumentParser, positional: bool) -> None:
        if positional:
            sp.add_argument("tokenizer", nargs="?", help="tokenizer file (default: the embedded Qwen3)")
        else:
            sp.add_argument("--tokenizer", "-t", help="tokenizer file (default: the embedded Qwen3)")
        sp.add_argument("--merges", help="merges.txt for a vocab.json")
        sp.add_argument("--preset", choices=PRESETS, help="split pattern for .tiktoken / vocab.json / vocab.bin files")
        sp.add_argument("--config", help="tokenizer_config.json whose added tokens to add")

    v = sub.add_parser("vocab", help="compile or audit a vocab.bin")
    vs = v.add_subparsers(dest="vocab_command", required=True)
    c = vs.add_parser("compile", help="tokenizer -> vocab.bin")
    load_opts(c, True)
    c.add_argument("-o", "--output", required=True, help="the vocab.bin to write")
    c.set_defaults(func=cmd_vocab_compile)
    a = vs.add_parser("audit", help="byte classes, identical entries, probes; compare with another vocab.bin")
    a.add_argument("file", help="the vocab.bin to audit")
    a.add_argument("--probe", help="ids to show, comma-separated (default 220,198,255,221)")
    a.add_argument("--against", help="another vocab.bin to compare with (e.g. the board's)")
    a.add_argument("--limit", type=int, default=40, help="rows of lists to print")
    a.add_argument("--json", action="store_true", help="the audit as one JSON object")
    a.set_defaults(func=cmd_vocab_audit)
    from .vocab_diff import register as register_diff

    register_diff(vs)

    m = sub.add_parser("compare", help="where two encoders or tokenizers split a corpus differently")
    load_opts(m, False)
    m.add_argument("--encoder", choices=ENCODERS, default="bpe", help="side A's encoder")
    m.add_argument("--tokenizer-b", help="the other tokenizer (default: the same as A)")
    m.add_argument("--encoder-b", choices=ENCODERS, default=None,
                   help="side B's encoder (default: greedy, the board's longest match, when B is A's tokenizer; "
                        "bpe, B's own model, with --tokenizer-b)")
    m.add_argument("--top", type=int, default=20, help="divergent spans to list")
    m.add_argument("files", nargs="*", help="text files, one text per line (default: stdin lines)")
    m.set_defaults(func=cmd_compare)
