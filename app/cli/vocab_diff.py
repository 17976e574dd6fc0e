"""CLI command: the migration report of one vocabulary to another.

  tokinspect vocab diff OLD NEW [--corpus FILE ...] [--hidden-size D --dtype bf16 --tied|--untied]
                        [--rows N] [--ranks-only] [--json]

Exit code 0 when only ids were appended (every old id keeps its piece, every added token its id),
1 when there are blockers, 2 when it cannot run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..analysis.vocab_diff import DTYPES, CorpusShift, Cost, VocabDiff, VocabTable, corpus_shift, diff, embedding_cost
from ..core.pieces import visible
from ..core.tokenizer import PRESETS, Tokenizer, TokenizerError
from ..formats.rank_file import read_ranks
from .errors import said
from .i18n import _


def _piece(b: bytes) -> str:
    return visible(b.decode("utf-8", errors="backslashreplace"))


def _open(path: str, preset: str | None, config: str | None) -> Tokenizer:
    return Tokenizer.from_file(path, preset=preset, config=config)


def _json(d: VocabDiff, cost: Cost | None, shift: CorpusShift | None, limit: int, top: int) -> dict[str, Any]:
    def cut(xs: list[Any]) -> list[Any]:
        return xs if limit == 0 else xs[:limit]

    out: dict[str, Any] = {
        "old": {"name": d.old, "size": d.old_size}, "new": {"name": d.new, "size": d.new_size},
        "compatible": d.compatible,
        "kept": {"count": len(d.kept), "ids": cut(d.kept)},
        "changed": {"count": len(d.changed), "items": cut([{"id": i, "old": _piece(a), "new": _piece(b)}
                                                          for i, a, b in d.changed])},
        "moved": {"count": len(d.moved), "items": cut([{"old_id": i, "new_id": j, "piece": _piece(b)}
                                                      for i, j, b in d.moved])},
        "removed": {"count": len(d.removed), "items": cut([{"id": i, "piece": _piece(b)} for i, b in d.removed])},
        "appended": {"count": len(d.appended), "items": cut([{"id": i, "piece": _piece(b)} for i, b in d.appended])},
        "specials_moved": {"count": len(d.specials_moved),
                           "items": [{"content": c, "old": i, "new": j} for c, i, j in d.specials_moved]},
    }
    if cost is not None:
        out["rows_to_add"] = cost.rows
        out["parameters_to_add"] = cost.parameters
        out["bytes_to_add"] = cost.bytes
        out["dtype"], out["hidden_size"], out["tied"] = cost.dtype, cost.hidden, cost.tied
    if shift is not None:
        out["corpus"] = {"lines": shift.lines, "changed_lines": shift.changed_lines, "share": shift.share,
                         "every_old_id_kept": not d.changed,
                         "most_frequent": [{"text": t, "old": list(a), "new": list(b), "count": n}
                                           for (t, a, b), n in shift.divergence.most_common(top)]}
    return out


def _print(d: VocabDiff, cost: Cost | None, shift: CorpusShift | None, limit: int, top: int) -> None:
    n = limit or 10**9
    print(_("OLD: {old} ({old_size:,} ids)   NEW: {new} ({new_size:,} ids)").format(
        old=d.old, old_size=d.old_size, new=d.new, new_size=d.new_size))
    print(_("BLOCKERS: {n:,} ids whose piece changed meaning").format(n=len(d.changed)))
    for i, a, b in d.changed[:n]:
        print(_("  id {id}: was {old!r}, now {new!r}").format(id=i, old=_piece(a), new=_piece(b)))
    print(_("special ids moved: {n}").format(n=len(d.specials_moved)))
    for c, i, j in d.specials_moved[:n]:
        print(f"  {c!r}: {i} -> {_('gone') if j is None else j}")
    print(_("pieces kept with their id: {n:,}").format(n=len(d.kept)))
    print(_("pieces moved to another id: {n:,}").format(n=len(d.moved)))
    for i, j, b in d.moved[:min(n, 5)]:
        print(f"  {_piece(b)!r}: {i} -> {j}")
    print(_("pieces removed: {n:,}").format(n=len(d.removed)))
    for i, b in d.removed[:min(n, 5)]:
        print(f"  id {i}: {_piece(b)!r}")
    span = f" ({d.appended[0][0]}..{d.appended[-1][0]})" if d.appended else ""
    print(_("ids appended: {n:,}{span}").format(n=len(d.appended), span=span))
    print(_("size: {old:,} -> {new:,} ({delta:+,})").format(old=d.old_size, new=d.new_size,
                                                            delta=d.new_size - d.old_size))
    if cost is not None:
        print(_("rows to add: {rows:,} x {hidden:,} = {per:,} parameters per matrix, {tied}: {parameters:,} "
                "parameters, {bytes:,} bytes ({mib:,.1f} MiB) in {dtype}").format(
            rows=cost.rows, hidden=cost.hidden, per=cost.rows * cost.hidden,
            tied=_("tied: one matrix") if cost.tied else _("untied: embedding and LM head"),
            parameters=cost.parameters, bytes=cost.bytes, mib=cost.mib, dtype=cost.dtype))
    if shift is not None:
        print(_("corpus: {changed:,} of {lines:,} lines ({share:.1f}%) split differently").format(
            changed=shift.changed_lines, lines=shift.lines, share=100 * shift.share)
            + (_(" although every old id kept its piece") if not d.changed else ""))
        for (t, a, b), k in shift.divergence.most_common(top):
            print(f"  {k:>6}  {t!r:<16} {' '.join(map(repr, a))}  ->  {' '.join(map(repr, b))}")


def cmd_vocab_diff(args: argparse.Namespace) -> int:
    try:
        if args.ranks_only:
            old = VocabTable.from_ranks(Path(args.old).name, read_ranks(args.old))
            new = VocabTable.from_ranks(Path(args.new).name, read_ranks(args.new))
            if args.corpus:
                raise ValueError(_("--corpus needs the tokenizers themselves, not --ranks-only"))
            tok_old = tok_new = None
        else:
            tok_old = _open(args.old, args.preset, args.config)
            tok_new = _open(args.new, args.preset_new or args.preset, args.config_new)
            old, new = VocabTable.from_tokenizer(tok_old), VocabTable.from_tokenizer(tok_new)
        d = diff(old, new)
        cost = None
        if args.hidden_size is not None:
            rows = args.rows if args.rows is not None else d.old_size
            cost = embedding_cost(max(0, d.new_size - rows), args.hidden_size, args.dtype, args.tied)
        shift = None
        if args.corpus and tok_old is not None and tok_new is not None:
            lines = (line for f in args.corpus for line in Path(f).read_text(encoding="utf-8").split("\n"))
            shift = corpus_shift(tok_old, tok_new, lines)
    except (TokenizerError, OSError, ValueError) as exc:
        print(f"tokinspect vocab diff: {said(exc)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(_json(d, cost, shift, args.limit, args.top), ensure_ascii=False))
    else:
        _print(d, cost, shift, args.limit, args.top)
    return 0 if d.compatible else 1


def register(vs: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    d = vs.add_parser("diff", help=_("migration report: kept, changed (blockers), removed, appended, rows to add"))
    d.add_argument("old", help=_("the old tokenizer file"))
    d.add_argument("new", help=_("the new tokenizer file"))
    d.add_argument("--preset", choices=PRESETS, help=_("split pattern for .tiktoken/vocab.bin (both sides)"))
    d.add_argument("--preset-new", choices=PRESETS, help=_("NEW's preset, when it differs"))
    d.add_argument("--config", help=_("OLD's tokenizer_config.json (added tokens)"))
    d.add_argument("--config-new", help=_("NEW's tokenizer_config.json"))
    d.add_argument("--ranks-only", action="store_true", help=_("compare two .tiktoken files' ranks, nothing added"))
    d.add_argument("--corpus", nargs="+", metavar="FILE", help=_("text files: lines whose split changes"))
    d.add_argument("--hidden-size", type=int, help=_("the model's hidden size: rows to add in parameters and bytes"))
    d.add_argument("--dtype", choices=sorted(DTYPES), default="bf16",
                   help=_("the weights' type (bytes per parameter)"))
    t = d.add_mutually_exclusive_group()
    t.add_argument("--tied", dest="tied", action="store_true", default=True,
                   help=_("input embedding and LM head share weights (default): one matrix"))
    t.add_argument("--untied", dest="tied", action="store_false", help=_("two matrices to extend"))
    d.add_argument("--rows", type=int, help=_("rows the embedding has now (default: OLD's size; e.g. config.json "
                                              "vocab_size when padded)"))
    d.add_argument("--limit", type=int, default=20, help=_("rows of each list (0: all)"))
    d.add_argument("--top", type=int, default=10, help=_("most frequent corpus changes shown"))
    d.add_argument("--json", action="store_true", help=_("counts and lists as one JSON object"))
    d.set_defaults(func=cmd_vocab_diff)
