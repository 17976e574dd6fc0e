"""The `tokinspect` command line: the dispatcher (`main`, the console script) and one module per
command group: `tokens` (encode, decode, trace, info), `vocab` (vocab compile|audit|diff, compare),
`sample`, `board`, `contract` (freeze, verify).

No arguments, or a first argument that is an existing file, opens the
window instead (tokinspect.gui, imported only then, so the CLI works
without a display).

Does not: import Qt, or compute anything itself (each command calls the package's modules).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..core.tokenizer import TokenizerError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tokinspect", description="Inspect how a tokenizer splits text.")
    sub = p.add_subparsers(dest="command")

    from .board import register as register_board
    from .contract import register as register_contract
    from .sample import register as register_sample
    from .tokens import register as register_tokens
    from .vocab import register as register_vocab

    register_tokens(sub)
    register_vocab(sub)
    register_board(sub)
    register_sample(sub)
    register_contract(sub)
    return p


SUBCOMMANDS = ("encode", "decode", "trace", "info", "contract", "vocab")
GUI_FLAGS = ("--screenshot", "--text", "--dark", "--size", "--compare-with")


def wants_gui(argv: Sequence[str]) -> bool:
    """No arguments, a first argument that is an existing file, or a GUI flag: the window."""
    if not argv:
        return True
    first = argv[0]
    if first in SUBCOMMANDS or first in ("-h", "--help"):
        return False
    return os.path.isfile(first) or first.split("=")[0] in GUI_FLAGS


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if wants_gui(argv):
        from ..gui import main as gui_main  # Qt only here: the CLI works without a display

        return gui_main(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args))
    except (TokenizerError, OSError) as exc:
        print(f"tokinspect: {exc}", file=sys.stderr)
        return 1
