"""One rule for every command: exit 0 on success, 1 when differences were found (compare, board
diff/identify, contract verify), 2 for bad usage or bad input; each failure is one line on stderr
that names the file or argument and the reason. No traceback reaches a user: `run` is the guard
around every command, `--debug` lets the traceback through.

Does not: decide what a command does (its module does) or import Qt.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import traceback
from collections.abc import Callable
from typing import NoReturn

from .columns import wrap_columns
from .i18n import _, current, message

EXIT_OK, EXIT_DIFFER, EXIT_BAD = 0, 1, 2


class UsageError(Exception):
    """A bad argument or input, said in one sentence (exit 2)."""


class DefaultsShown(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's default after its help, except where there is none to show (None, a flag's False)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == argparse.SUPPRESS:
            return action.help
        shown = super()._get_help_string(action)
        suffix = " (default: %(default)s)"   # argparse's ArgumentDefaultsHelpFormatter's own words
        if shown is not None and shown.endswith(suffix) and shown != action.help:
            return shown[: -len(suffix)] + _(" (default: %(default)s)")
        return shown

    def _split_lines(self, text: str, width: int) -> list[str]:
        """argparse wraps by characters; a CJK character takes two columns, so Chinese help is
        wrapped by terminal columns (English: argparse's own wrapping, unchanged)."""
        if all(ord(ch) < 0x2E80 for ch in text):
            return super()._split_lines(text, width)
        return wrap_columns(" ".join(text.split()), width)


class RawDescriptionDefaultsShown(DefaultsShown, argparse.RawDescriptionHelpFormatter):
    """DefaultsShown, with the description and epilog printed as written (the top-level --help)."""


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors ("tokinspect encode: --encoder: invalid choice ... (see --help)")
    and every option's default in its help."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", DefaultsShown)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        print(_("{prog}: {message} (see {prog} --help)").format(prog=self.prog, message=message), file=sys.stderr)
        raise SystemExit(EXIT_BAD)


def _quiet_stdout() -> None:
    """After a broken pipe: the rest of the output (and Python's flush at exit) goes nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def run(func: Callable[[], int], debug: bool = False, prog: str = "tokinspect") -> int:
    """Runs one command and turns every failure into (one stderr line, exit code)."""
    try:
        rc = int(func())
        sys.stdout.flush()
        return rc
    except SystemExit as exc:  # argparse inside a command, or an explicit exit
        return exc.code if isinstance(exc.code, int) else EXIT_BAD
    except KeyboardInterrupt:
        print(_("{prog}: interrupted").format(prog=prog), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`tokinspect info | head -1`): what it read is what it wanted
        _quiet_stdout()
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the guard: one line, never a traceback
        if debug:
            traceback.print_exc()
        print(f"{prog}: {describe(exc)}", file=sys.stderr)
        return EXIT_BAD


def describe(exc: BaseException) -> str:
    """The sentence a user reads for an exception, in the current language (a sentence the
    package's modules or the engine made goes through the catalog's patterns: i18n.message)."""
    if isinstance(exc, OSError) and exc.errno == errno.EBADF:
        return _("cannot write the output: standard output is closed")
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return _("{path}: {reason}").format(path=exc.filename, reason=message(exc.strerror.lower()))
    if isinstance(exc, UnicodeDecodeError):
        return _("not UTF-8 text ({reason} at byte {at})").format(reason=message(exc.reason), at=exc.start)
    if isinstance(exc, MemoryError):
        return _("out of memory")
    msg = str(exc).strip().splitlines()
    # the package's own errors (TokenizerError, BoardError, ...) and the standard library's input
    # errors carry a sentence for the user; anything else is a defect of ours, said as such
    ours = type(exc).__module__.startswith("tokinspect")
    if msg and (ours or isinstance(exc, (ValueError, OSError, OverflowError, LookupError))):
        return message(msg[0])
    return _("internal error: {kind}: {text} (run with --debug for the traceback)").format(
        kind=type(exc).__name__, text=msg[0] if msg else "")


def said(exc: BaseException) -> str:
    """What a command that prints `str(exc)` itself (board, contract, vocab diff, sample) prints:
    in English str(exc) as it always was; in another language the sentence translated (an OS
    error as describe() says it). Every line of a multi-line message is translated."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror and current() != "en":
        return describe(exc)
    return "\n".join(message(line) for line in str(exc).split("\n"))


def terminal_hint(what: str | None = None) -> None:
    """A command about to read a terminal says so, instead of waiting silently. `what`: "text"
    (the default), "ids" or "lines", already translated."""
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            print(_("(reading {what} from the terminal: end with Ctrl-D, or pass it as an argument)").format(
                what=what if what is not None else _("text")), file=sys.stderr)
    except (ValueError, OSError):
        pass

