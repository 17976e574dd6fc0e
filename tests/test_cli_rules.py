"""One rule for every command (tokinspect.cli.errors): exit 0 success, 1 differences found, 2 bad
usage or bad input, each failure one line on stderr naming the file or argument, never a
traceback; --version, --help naming the window's options, a help text for every option, a hint
when a command reads a terminal. Each defect found by trying the CLI as a new user is a case here."""

from __future__ import annotations

import argparse
import os
import pty
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tokinspect import Tokenizer, __version__
from tokinspect.cli import build_parser
from tokinspect.cli.tokens import display_width, ljust_display
from tokinspect.gui import build_parser as window_parser

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, stdin: bytes | None = b"", **kw: object) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "tokinspect", *args], input=stdin, capture_output=True,
                          timeout=120, env=env, **kw)  # type: ignore[call-overload]


def assert_one_line(r: subprocess.CompletedProcess[bytes], code: int = 2, *needles: str) -> str:
    err = r.stderr.decode("utf-8", errors="replace")
    assert r.returncode == code, (r.returncode, err[-2000:])
    assert "Traceback" not in err, err[-3000:]
    lines = [ln for ln in err.split("\n") if ln.strip()]
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("bad")
    (d / "empty.json").write_bytes(b"")
    (d / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(64))
    (d / "latin1.txt").write_bytes(b"ab\xff\xfecd\n")
    (d / "adir").mkdir()
    return {"missing": d / "missing.json", "directory": d / "adir", "empty": d / "empty.json",
            "png": d / "image.png", "invalid-utf8": d / "latin1.txt"}


# every subcommand that reads a file, with the place the file goes
COMMANDS = {
    "encode": ["encode", "-t", "{f}", "x"],
    "decode": ["decode", "-t", "{f}", "1"],
    "trace": ["trace", "-t", "{f}", "x"],
    "info": ["info", "{f}"],
    "compare": ["compare", "-t", "{f}", "{ok_text}"],
    "compare-text": ["compare", "{f}"],
    "vocab compile": ["vocab", "compile", "{f}", "-o", "{out}"],
    "vocab audit": ["vocab", "audit", "{f}"],
    "sample": ["sample", "--logits", "{f}", "--preset", "ds4"],
    "board diff": ["board", "diff", "-t", "{f}", "--host", "127.0.0.1", "--port", "1", "--remote-tokenizer", "x",
                   "{ok_text}"],
    "board identify": ["board", "identify", "-t", "{f}", "--host", "127.0.0.1", "--port", "1",
                       "--remote-tokenizer", "x"],
    "languages": ["languages", "-t", "{f}", "{ok_text}"],
    "languages-corpus": ["languages", "{f}"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_and_bad_file_is_exit_2_and_one_line(command: str, bad_inputs: dict[str, Path],
                                                           tmp_path: Path) -> None:
    ok_text = tmp_path / "ok.txt"
    ok_text.write_text("hello\n", encoding="utf-8")
    for kind, f in bad_inputs.items():
        if command == "compare-text" and kind in ("empty", "png"):
            continue  # an empty or binary text file is the text cases below
        args = [a.format(f=f, out=tmp_path / "o.bin", ok_text=ok_text) for a in COMMANDS[command]]
        line = assert_one_line(cli(*args))
        # the message names the file (or what it is not)
        assert f.name in line or "vocab.bin" in line or "logits" in line, (kind, line)


def test_compare_of_a_file_that_is_not_utf8_names_the_byte(bad_inputs: dict[str, Path]) -> None:
    assert_one_line(cli("compare", str(bad_inputs["invalid-utf8"])), 2, "latin1.txt", "not UTF-8", "at byte 2")


@pytest.mark.parametrize("ids, needle", [
    (["151669"], "id 151669 is not in the vocabulary (ids 0..151668)"),
    (["-1"], "id -1 is not"),
    (["4294967296", "9707"], "id 4294967296 is not"),
    (["99999999999999999999"], "id 99999999999999999999 is not"),
    (["12x"], "'12x' is not an id"),
])
def test_decode_refuses_ids_outside_the_vocabulary(ids: list[str], needle: str) -> None:
    # these printed nothing and exited 0, dropped 4294967296 silently, or raised OverflowError
    assert_one_line(cli("decode", *ids), 2, needle)


def test_decode_reads_a_json_list() -> None:
    want = Tokenizer.default().decode([9707, 11])
    r = cli("decode", stdin=b"[9707, 11]\n")
    assert r.returncode == 0 and r.stdout.decode() == want, r.stderr
    r = cli("decode", "[9707,", "11]")
    assert r.returncode == 0 and r.stdout.decode() == want, r.stderr


@pytest.mark.parametrize("how", ["argument", "stdin"])
def test_trace_takes_invalid_utf8_as_bytes(how: str) -> None:
    raw = b"ab\xff\xfecd"
    tok = Tokenizer.default()
    if how == "stdin":
        r = cli("trace", stdin=raw)
    else:
        r = subprocess.run([sys.executable, "-m", "tokinspect", "trace", os.fsdecode(raw)], capture_output=True,
                           timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    out = r.stdout.decode()
    final = [ln for ln in out.split("\n") if ln.strip().startswith("= ")]
    ids = [int(p.rsplit("(", 1)[1].rstrip(")")) for ln in final for p in ln.strip()[2:].split(" ")]
    assert ids == tok.encode(raw).ids.tolist()   # the same ids encode gives for those bytes


def test_compare_with_a_second_tokenizer_uses_its_own_model(tmp_path: Path) -> None:
    # --encoder-b defaulted to greedy, which refuses a SentencePiece-style tokenizer B
    phi3 = ROOT.parent / "shared" / "data" / "onnxruntime-extensions" / "phi-3-mini" / "tokenizer.json"
    if not phi3.is_file():
        from conftest import missing
        missing(str(phi3))
    text = tmp_path / "t.txt"
    text.write_text("Hello world\nnaïve café\n", encoding="utf-8")
    r = cli("compare", "--tokenizer-b", str(phi3), str(text))
    assert r.returncode == 1, r.stderr.decode()     # the two tokenizers split differently: exit 1
    assert "[bpe]   B:" in r.stdout.decode() and r.stdout.decode().count("[bpe]") == 2
    help_text = cli("compare", "--help").stdout.decode()
    assert "greedy" in " ".join(help_text.split()) and "with --tokenizer-b" in " ".join(help_text.split())


def test_compare_exit_codes(tmp_path: Path) -> None:
    same = tmp_path / "same.txt"
    same.write_text("hello\n", encoding="utf-8")
    r = cli("compare", "--encoder-b", "bpe", str(same))
    assert r.returncode == 0 and "identical 1 (100.0%)" in r.stdout.decode(), r.stderr
    # empty input said "identical 0 (100.0%)" and exited 0
    assert_one_line(cli("compare", stdin=b""), 2, "no text to compare")


def test_closed_and_broken_stdout() -> None:
    # `tokinspect info | head -1` sometimes ended with "[Errno 32] Broken pipe", exit 1
    for _ in range(5):
        p = subprocess.Popen([sys.executable, "-m", "tokinspect", "info"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        assert p.stdout is not None and p.stderr is not None
        p.stdout.readline()
        p.stdout.close()
        err = p.stderr.read().decode()
        assert p.wait(timeout=60) == 0 and err == "", err
    r = subprocess.run([sys.executable, "-m", "tokinspect", "info"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=60, preexec_fn=lambda: os.close(1))
    assert_one_line(r, 2, "standard output is closed")


def test_board_diff_to_a_host_that_hangs_up_is_one_line(tmp_path: Path) -> None:
    # paramiko's transport thread logged 26 lines of tracebacks before the one-line message
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    port = srv.getsockname()[1]

    def hang_up() -> None:
        for _ in range(4):
            try:
                c, _ = srv.accept()
            except OSError:
                return
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            c.close()

    threading.Thread(target=hang_up, daemon=True).start()
    text = tmp_path / "t.txt"
    text.write_text("hello\n", encoding="utf-8")
    try:
        r = cli("board", "diff", "--host", "127.0.0.1", "--port", str(port), "--user", "u", "--connect-timeout", "5",
                "--remote-tokenizer", "/x", "--command", "tokcore", str(text))
    finally:
        srv.close()
    assert_one_line(r, 2, "127.0.0.1")


def test_window_arguments() -> None:
    line = assert_one_line(cli("nonexistent.json"), 2, "nonexistent.json", "no such file")
    assert "invalid choice" not in line
    assert_one_line(cli("--screenshot", "/nonexistent-dir", "--size", "big"), 2, "--size", "'big'")
    help_text = cli("--help").stdout.decode()
    for opt in ("--screenshot", "--size", "--dark", "--text", "--compare-with", "files"):
        assert opt in help_text, opt
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.decode().strip() == f"tokinspect {__version__}"


def test_no_display_is_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    r = subprocess.run([sys.executable, "-m", "tokinspect"], capture_output=True, timeout=60, env=env)
    assert_one_line(r, 2, "no display")   # Qt aborted the process (exit 134) with a page of advice


def test_every_option_has_help() -> None:
    missing = []

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    walk(sp, f"{path} {name}")
            elif not a.help and not isinstance(a, argparse._HelpAction):
                missing.append(f"{path} {'/'.join(a.option_strings) or a.dest}")

    walk(build_parser(), "tokinspect")
    walk(window_parser(), "tokinspect (window)")
    assert not missing, missing
    help_text = " ".join(cli("encode", "--help").stdout.decode().split())
    assert "(default: bpe)" in help_text   # defaults shown
    assert "(default: None)" not in help_text and "(default: False)" not in help_text   # and only real ones


def test_reading_a_terminal_says_so() -> None:
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([sys.executable, "-m", "tokinspect", "encode"], stdin=slave, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        os.write(master, b"Hello\n\x04")   # a line, then Ctrl-D
        out, err = p.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    assert "reading text from the terminal" in err.decode(), err
    assert out.decode().split() == [str(i) for i in Tokenizer.default().encode("Hello\n").ids.tolist()]


def test_table_columns_line_up_after_cjk() -> None:
    assert display_width("好a") == 3 and display_width("e\u0301") == 1
    r = cli("encode", "--table", "你好 world")
    rows = r.stdout.decode().split("\n")[1:-2]
    # the chars column starts at the same terminal column on every row
    starts = {display_width(row[: row.index("[")]) for row in rows}
    assert len(starts) == 1, rows
    assert ljust_display("好", 4) == "好  "


def test_screenshot_of_a_tokenizer_greedy_refuses_finishes(tmp_path: Path) -> None:
    # the Compare tab's encoder B (greedy) refuses a SentencePiece-style tokenizer; the error was a
    # modal dialog, and --screenshot waited on it forever
    phi3 = ROOT.parent / "shared" / "data" / "onnxruntime-extensions" / "phi-3-mini" / "tokenizer.json"
    if not phi3.is_file():
        from conftest import missing
        missing(str(phi3))
    r = cli("--screenshot", str(tmp_path), str(phi3), stdin=None)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert "Compare failed: greedy" in r.stderr.decode()
    assert len(list(tmp_path.glob("*.png"))) == 9   # every tab (Languages too) and the Stats side tab
