"""The GUI entry: `tokinspect [FILE...]`, `tokinspect --screenshot DIR`.

Qt is imported here, never by the CLI module, so `tokinspect encode` works
without a display. `--screenshot DIR` renders every tab on a fixed sample
to PNG and exits (works with QT_QPA_PLATFORM=offscreen). The sample text
and the window icon come from tokinspect.resources.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import resources

SAMPLE_TEXT = resources.text("samples/window.txt")   # the first text, and the one --screenshot renders


def window_size(text: str, _: Callable[[str], str] = str) -> tuple[int, int]:
    """--size WxH, e.g. 1280x800 (each side 200..10000 pixels); `_` says the refusal in the CLI's language."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(_("{value!r} is not WIDTHxHEIGHT (e.g. 1280x800)").format(value=text))
    w, h = int(parts[0]), int(parts[1])
    if not (200 <= w <= 10000 and 200 <= h <= 10000):
        raise argparse.ArgumentTypeError(_("{value!r}: each side must be 200..10000 pixels").format(value=text))
    return w, h


def build_parser(parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
                 _: Callable[[str], str] = str) -> argparse.ArgumentParser:
    """The window's options. `_` translates each help text (the command line passes its catalog's,
    tokinspect.cli.i18n._, so `tokinspect --lang zh_CN --screenshot DIR --help` is Chinese; argparse's
    own words follow the language the command line chose)."""
    from .window import ENCODERS  # the window's encoders (the engine's: bpe ... kestrel-v2); no Qt import

    def size(text: str) -> tuple[int, int]:
        return window_size(text, _)

    size.__name__ = "size"   # argparse names the type in "invalid size value"
    p = parser_class(prog="tokinspect", description=_("Token inspector window (no arguments: Qwen3 default)."))
    p.add_argument("files", nargs="*", help=_("tokenizer files (tokenizer.json, vocab.json, .tiktoken, vocab.bin); "
                                              ".txt/.md files open as text"))
    p.add_argument("--text", help=_("initial text"))
    p.add_argument("--screenshot", metavar="DIR",
                   help=_("render each tab to DIR/*.png and exit (offscreen when there is no display)"))
    p.add_argument("--size", default="1280x800", type=size, help=_("window size for --screenshot (WxH)"))
    p.add_argument("--dark", action="store_true", help=_("dark palette"))
    p.add_argument("--lang", choices=("en", "zh_CN"), help=_("the window's language (default: the one chosen in "
                                                            "View → Language, else the system locale's)"))
    p.add_argument("--compare-with", metavar="FILE", help=_("tokenizer B of the Compare tab"))
    p.add_argument("--contract", metavar="FILE", help=_("a contract.json to check in the Contract tab "
                                                        "(--screenshot without it: the open tokenizer frozen)"))
    p.add_argument("--encoder", choices=ENCODERS,
                   help=_("the Inspect tab's encoder (e.g. kestrel-v2: the real board)"))
    p.add_argument("--encoder-b", choices=ENCODERS, default="greedy",
                   help=_("--screenshot: the Compare tab's encoder B"))
    return p


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))


def no_display_reason() -> str | None:
    """Why the window cannot open here (no X11/Wayland display), or None."""
    if os.environ.get("QT_QPA_PLATFORM") or sys.platform in ("win32", "darwin"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return ("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); the commands "
            "(tokinspect encode ..., tokinspect --help) work without one, and --screenshot renders offscreen")


def run(args: argparse.Namespace) -> int:
    """Opens the window (or renders --screenshot) for parsed arguments."""
    if args.screenshot and no_display_reason():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a screenshot needs no screen
    elif no_display_reason():
        print(f"tokinspect: {no_display_reason()}", file=sys.stderr)
        return 2
    from PySide6.QtCore import QCoreApplication, QSettings
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    QCoreApplication.setOrganizationName("tokinspect")
    QCoreApplication.setApplicationName("tokinspect")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setWindowIcon(QIcon(str(resources.path("tokinspect.svg"))))
    from tokinspect.widgets import theme
    from tokinspect.widgets.main_window import MainWindow

    settings = QSettings("tokinspect", "tokinspect")
    from tokinspect.window import i18n

    lang = i18n.chosen(getattr(args, "lang", None), settings)
    try:
        i18n.install(app, lang)
    except (OSError, ValueError) as exc:
        print(f"tokinspect: {exc}; the window stays in English", file=sys.stderr)
        lang = "en"
    dark = args.dark or (not args.screenshot and bool(settings.value("view/dark", False, type=bool)))
    theme.apply(dark)
    if args.screenshot:
        return screenshot(Path(args.screenshot), args, dark, lang)
    win = MainWindow(settings, lang)
    win.dark_action.setChecked(dark)
    tokenizers = [f for f in args.files if Path(f).suffix.lower() not in (".txt", ".md")]
    if not tokenizers:
        win.open_default()
    win.open_paths(args.files)
    if args.encoder:
        win.encoder_box.setCurrentText(args.encoder)
    win.set_text(args.text if args.text is not None else str(settings.value("text/last", SAMPLE_TEXT)))
    if args.contract:
        win.contract_model.open(args.contract)
    win.show()
    rc = app.exec()
    settings.setValue("text/last", win.text.text()[:100_000])
    return int(rc)


def screenshot(out: Path, args: argparse.Namespace, dark: bool, lang: str = "en") -> int:
    """Renders each tab on SAMPLE_TEXT to out/NN-tab[-dark].png."""
    import tempfile

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from tokinspect.widgets.main_window import MainWindow

    w, h = args.size
    tmp = tempfile.mkdtemp(prefix="tokinspect-shot-")
    settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings, lang)
    win.quiet_errors = True
    win.resize(w, h)
    win.dark_action.setChecked(dark)
    if args.files:
        win.open_tokenizer(args.files[0])
    else:
        win.open_default()
    if args.encoder:
        win.encoder_box.setCurrentText(args.encoder)
    win.set_text(args.text or SAMPLE_TEXT)
    win.show()
    app = QApplication.instance()
    assert app is not None

    def wait(cond: object, ms: int = 20_000) -> None:
        import time
        end = time.monotonic() + ms / 1000
        while not cond() and time.monotonic() < end:  # type: ignore[operator]
            app.processEvents()
            time.sleep(0.01)

    # the trace too: it starts once the text rests (Document.TRACE_AFTER_MS)
    wait(lambda: win.doc.analysis is not None and win.doc.tokenizer is not None and not win.doc.busy
         and not win.doc.trace_pending)
    a = win.doc.analysis
    assert a is not None
    win.sel.select(min(len(a) - 1, _interesting_token(win)))
    out.mkdir(parents=True, exist_ok=True)
    suffix = f"-{w}x{h}" + ("" if lang == "en" else f"-{lang}") + ("-dark" if dark else "")
    if args.compare_with:
        win.compare_model.load_b(args.compare_with)
    else:
        win.compare.encoder_b.setCurrentText(args.encoder_b)
    names = ["inspect", "compare", "chat", "vocabulary", "sampling", "board", "contract", "languages"]
    for k, name in enumerate(names):
        win.tabs.setCurrentIndex(k)
        if name == "compare":
            wait(lambda: win.compare_model.result is not None and not win.compare_model.busy)
        if name == "vocabulary":
            win.vocab.query.setText("好")
            wait(lambda: win.vocab_model.index_ is not None)
        if name == "sampling":
            wait(lambda: win.sampling_model.view is not None and not win.sampling_model.busy)
        if name == "contract":
            if args.contract:
                win.contract_model.open(args.contract)
            else:
                win.contract_model.freeze_open(Path(tmp) / "contract.json")
            win.vocab_diff()
            wait(lambda: win.contract_model.report is not None and not win.contract_model.busy
                 and win.vocab_diff_model.result is not None)
        for _ in range(5):
            app.processEvents()
        path = out / f"{k + 1:02d}-{name}{suffix}.png"
        win.grab().save(str(path))
        print(path)
    win.side.setCurrentIndex(1)
    app.processEvents()
    win.tabs.setCurrentIndex(0)
    for _ in range(5):
        app.processEvents()
    path = out / f"{len(names) + 1:02d}-stats{suffix}.png"
    win.grab().save(str(path))
    print(path)
    win.close()
    return 0


def _interesting_token(win: object) -> int:
    """A token worth showing in screenshots: the one covering "naïve"."""
    a = win.doc.analysis  # type: ignore[attr-defined]
    k = a.text.find("naïve")
    return a.spans.at(k + 1) if k >= 0 else 0


if __name__ == "__main__":
    sys.exit(main())
