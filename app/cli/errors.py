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

EXIT_OK, EXIT_DIFFER, EXIT_BAD = 0, 1, 2


class UsageError(Exception):
    """A bad argument or input, said in one sentence (exit 2)."""


class DefaultsShown(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's default after its help, except where there is none to show (None, a flag's False)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors ("tokinspect encode: --encoder: invalid choice ... (see --help)")
    and every option's default in its help."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", DefaultsShown)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
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
        print(f"{prog}: interrupted", file=sys.stderr)
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
    """The sentence a user reads for an exception."""
    if isinstance(exc, OSError) and exc.errno == errno.EBADF:
        return "cannot write the output: standard output is closed"
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror.lower()}"
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text ({exc.reason} at byte {exc.start})"
    if isinstance(exc, MemoryError):
        return "out of memory"
    msg = str(exc).strip().splitlines()
    # the package's own errors (TokenizerError, BoardError, ...) and the standard library's input
    # errors carry a sentence for the user; anything else is a defect of ours, said as such
    ours = type(exc).__module__.startswith("tokinspect")
    if msg and (ours or isinstance(exc, (ValueError, OSError, OverflowError, LookupError))):
        return msg[0]
    return f"internal error: {type(exc).__name__}: {msg[0] if msg else ''} (run with --debug for the traceback)"


def terminal_hint(what: str = "text") -> None:
    """A command about to read a terminal says so, instead of waiting silently."""
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            print(f"(reading {what} from the terminal: end with Ctrl-D, or pass it as an argument)", file=sys.stderr)
    except (ValueError, OSError):
        pass
