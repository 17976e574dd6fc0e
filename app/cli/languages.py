"""`tokinspect languages`: what a tokenizer costs each language, on parallel text.

  tokinspect languages [-t TOKENIZER ...] [--encoder E ...] [--reference eng] [--parity auto|document|lines]
                       [--workers N] [--engine local|datasets] [--ray ADDRESS] [--cache-dir DIR]
                       [--lang-column C] [--text-column C] [-o report.csv|.json|.html ...] CORPUS

Every tokenizer with every encoder is one series of the report. Without -o, the table is printed;
progress (rate, time left) goes to stderr when it is a terminal. Exit 0, or 2 with one line.
"""

from __future__ import annotations

import argparse
import sys

from ..core.tokenizer import DEFAULTS, ENCODERS, PRESETS
from ..languages.corpus import open_source
from ..languages.metrics import PARITY_MODES
from ..languages.progress import Progress
from ..languages.report import FORMATS, text_table, write
from ..languages.run import Options, build
from ..languages.series import Series, load, make_series
from .errors import UsageError
from .i18n import _, message


def _series(args: argparse.Namespace) -> list[Series]:
    out = []
    for t in args.tokenizer or ["qwen3"]:
        for e in args.encoder or ["bpe"]:
            s = make_series(t, e, args.preset)
            load(s)   # refused here, naming the file, before any worker starts
            out.append(s)
    return out


def _progress(args: argparse.Namespace) -> Progress | None:
    try:
        tty = sys.stderr is not None and sys.stderr.isatty()
    except (ValueError, OSError):
        tty = False
    if args.engine != "local" or args.ray or not (tty or args.progress):
        return None

    def show(p: Progress) -> None:
        print(f"\r{p.fraction:6.1%}  {p.line()}\033[K", end="", file=sys.stderr, flush=True)

    return Progress(0, show)


def cmd_languages(args: argparse.Namespace) -> int:
    for o in args.output or []:
        if not any(o.lower().endswith(f) for f in FORMATS):
            raise UsageError(_("languages: -o {path}: the suffix names the format: one of {formats}").format(
                path=o, formats=", ".join(FORMATS)))
    if args.workers < 1:
        raise UsageError(_("languages: --workers {n}: at least 1").format(n=args.workers))
    src = open_source(args.corpus, args.lang_column, args.text_column)
    series = _series(args)
    engine = "ray" if args.ray else args.engine
    opts = Options(args.reference, args.parity, engine, args.workers, args.ray, args.cache_dir)
    progress = _progress(args)
    rep = build(src, series, opts, progress)
    if progress is not None:
        print(file=sys.stderr)
    if rep.cache_hit:
        print(_("languages: served from the datasets cache"), file=sys.stderr)
    for o in args.output or []:
        for p in write(rep, o):
            print(_("wrote {path}").format(path=p), file=sys.stderr)
    if not args.output:
        # its column names and summary lines in the current language (the catalog's msgctxt "message")
        table = text_table(rep, args.first, message)
        sys.stdout.write("\n".join(message(line) for line in table.split("\n")))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("languages",
                       help=_("per language and script: tokens/char, p50/p95, parity against a reference"))
    p.add_argument("corpus", metavar="CORPUS",
                   help=_("a folder of <language>.txt files (e.g. UDHR's), a .txt, .jsonl, .parquet or .arrow file"))
    p.add_argument("-t", "--tokenizer", action="append", metavar="TOKENIZER",
                   help=_("a tokenizer file or an embedded one ({names}); repeat for more series; "
                          "none given: qwen3").format(names=", ".join(DEFAULTS)))
    p.add_argument("--encoder", action="append", choices=ENCODERS,
                   help=_("encoder of every tokenizer; repeat to compare (e.g. --encoder bpe --encoder kestrel-v2); "
                          "none given: bpe"))
    p.add_argument("--preset", choices=PRESETS, help=_("split pattern for .tiktoken / vocab.json / vocab.bin files"))
    p.add_argument("--reference", default="eng", help=_("the language parity is measured against (a file stem or "
                                                         "a value of the language column)"))
    p.add_argument("--parity", choices=PARITY_MODES, default="auto",
                   help=_("document: whole texts; lines: mean over aligned lines; auto: lines when line-aligned"))
    p.add_argument("--engine", choices=("local", "datasets"), default="local",
                   help=_("local: this machine's processes; datasets: HF datasets (Arrow, map(num_proc), its cache)"))
    p.add_argument("--workers", type=int, default=1,
                   help=_("worker processes (local, datasets) or Ray tasks (--ray)"))
    p.add_argument("--ray", metavar="ADDRESS", help=_("run on the Ray cluster at ADDRESS (e.g. 127.0.0.1:6379)"))
    p.add_argument("--cache-dir", help=_("--engine datasets: its cache folder (default: the datasets default)"))
    p.add_argument("--lang-column", default="lang", help=_("the language column of .jsonl/.parquet/.arrow corpora"))
    p.add_argument("--text-column", default="text", help=_("the text column of .jsonl/.parquet/.arrow corpora"))
    p.add_argument("-o", "--output", action="append", metavar="FILE",
                   help=_("write the report: .csv (and .scripts.csv), .json or .html (self-contained); repeatable"))
    p.add_argument("--first", type=int, default=None, help=_("printed table: only the N highest-parity languages"))
    p.add_argument("--progress", action="store_true", help=_("show progress even when stderr is not a terminal"))
    p.set_defaults(func=cmd_languages)
