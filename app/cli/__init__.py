"""The `tokinspect` command line: the dispatcher (`main`, the console script) and one module per
command group: `tokens` (encode, decode, trace, info), `vocab` (vocab compile|audit|diff, compare),
`sample`, `board`, `contract` (freeze, verify), `languages`.

No arguments, or a first argument that is an existing file, opens the
window instead (tokinspect.gui, imported only then, so the CLI works
without a display).

Does not: import Qt, or compute anything itself (each command calls the package's modules).
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Sequence

from .errors import EXIT_BAD, OneLineParser, RawDescriptionDefaultsShown, run
from .i18n import LANGUAGES, _, choose, lang_argument, use


def _version() -> str:
    from importlib.metadata import version  # the one version: pyproject.toml's, as installed

    return version("tokinspect")


def build_parser() -> argparse.ArgumentParser:
    from ..gui import build_parser as window_parser  # Qt-free: only the window's options

    wp = window_parser(OneLineParser, _)
    fmt = wp._get_formatter()
    fmt.add_usage(wp.usage, wp._actions, wp._mutually_exclusive_groups, prefix="")  # no "usage: " in any language
    usage = " ".join(fmt.format_help().replace("[-h] ", "").split())
    window = textwrap.fill(usage, 100, subsequent_indent="      ", break_on_hyphens=False)  # keep --compare-with whole
    opts = wp._get_formatter()   # each window option with its help and default, as the window's --help has them
    opts._indent()
    opts.add_arguments([a for a in wp._actions if a.option_strings and a.dest != "help"])
    p = OneLineParser(
        prog="tokinspect", description=_("Inspect how a tokenizer splits text: on the host, and on the board."),
        epilog=_("the window (no arguments: the embedded Qwen3 tokenizer):") + "\n  "
        + window.strip().replace("\n", "\n  ")
        + "\n  " + _("FILE: tokenizer files (tokenizer.json, vocab.json, .tiktoken, vocab.bin); .txt/.md files open "
                     "as text")
        + "\n" + opts.format_help().rstrip(),
        formatter_class=RawDescriptionDefaultsShown)
    p.add_argument("--version", action="version", version=f"tokinspect {_version()}",
                   help=_("show program's version number and exit"))
    p.add_argument("--debug", action="store_true", help=_("on an error, print the traceback too"))
    p.add_argument("--lang", choices=LANGUAGES,
                   help=_("the language of messages, help and reports, before the command (default: the "
                          "environment's LANGUAGE, LC_ALL, LC_MESSAGES or LANG, else English); the window's --lang "
                          "is the same option"))
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    from .board import register as register_board
    from .contract import register as register_contract
    from .languages import register as register_languages
    from .sample import register as register_sample
    from .tokens import register as register_tokens
    from .vocab import register as register_vocab

    register_tokens(sub)
    register_vocab(sub)
    register_board(sub)
    register_sample(sub)
    register_contract(sub)
    register_languages(sub)
    return p


SUBCOMMANDS = ("encode", "decode", "trace", "info", "vocab", "compare", "board", "sample", "contract",
               "languages")
GUI_FLAGS = ("--screenshot", "--text", "--dark", "--size", "--compare-with", "--encoder", "--encoder-b",
             "--contract", "--lang")


def wants_gui(argv: Sequence[str]) -> bool:
    """No arguments, a first argument that is an existing file, or a GUI flag: the window."""
    if not argv:
        return True
    first = argv[0]
    if first in SUBCOMMANDS or first.startswith("-") and first.split("=")[0] not in GUI_FLAGS:
        return False
    return os.path.isfile(first) or first.split("=")[0] in GUI_FLAGS


def _looks_like_a_path(arg: str) -> bool:
    if arg.startswith("-") or arg in SUBCOMMANDS:
        return False
    return os.path.isdir(arg) or "." in arg or os.sep in arg or "/" in arg


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    use(choose(argv))   # --lang before the command, else the environment (the window decides its own)
    lang_arg, rest = lang_argument(argv)
    if wants_gui(rest if lang_arg is not None else argv):
        from ..gui import build_parser as window_parser
        from ..gui import run as run_window  # Qt only once the window opens: the CLI works without a display

        args = window_parser(OneLineParser, _).parse_args(argv)
        return run(lambda: run_window(args), debug)
    if rest and _looks_like_a_path(rest[0]):
        what = _("is a directory") if os.path.isdir(rest[0]) else _("no such file")
        print(_("tokinspect: {path}: {what} (tokinspect FILE opens a tokenizer or text file in the window; "
                "see tokinspect --help)").format(path=rest[0], what=what), file=sys.stderr)
        return EXIT_BAD
    if sys.stdout is None:  # started with stdout closed (`tokinspect info >&-`)
        print(_("tokinspect: cannot write the output: standard output is closed"), file=sys.stderr)
        return EXIT_BAD
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_BAD
    if args.command is None:
        parser.print_help()
        return 0
    return run(lambda: int(args.func(args)), debug)
