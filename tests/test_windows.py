"""Windows hosts: tokcore.exe cross-compiled with mingw-w64 at -Wall -Wextra -Werror and run under
wine, answering the JSON Lines protocol byte for byte as the Linux build does (the same ids for
every text, the same error lines for bad requests, CRLF and Ctrl-Z bytes in texts kept as bytes,
not turned into line ends or end of file by a text-mode stdio).

tests/run.sh installs gcc-mingw-w64-x86-64 and wine64."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from corpus import random_texts

REPO = Path(__file__).resolve().parents[1]


def _wine() -> str:
    for name in ("wine64", "wine", "/usr/lib/wine/wine64"):
        found = shutil.which(name) or (name if os.path.isfile(name) else None)
        if found:
            return found
    raise AssertionError("wine is needed (Debian package wine64: tests/run.sh installs it)")


@pytest.fixture(scope="module")
def tokcore_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("x86_64-w64-mingw32-gcc")
    assert cc, "x86_64-w64-mingw32-gcc is needed (Debian package gcc-mingw-w64-x86-64: tests/run.sh installs it)"
    exe = tmp_path_factory.mktemp("win") / "tokcore.exe"
    srcs = sorted(str(p) for p in (REPO / "native" / "src").glob("*.c")) + \
        sorted(str(p) for p in (REPO / "native" / "cli").glob("*.c"))
    r = subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(exe), *srcs, "-lm"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    return exe


@pytest.fixture(scope="module")
def wine_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    prefix = tmp_path_factory.mktemp("wineprefix")
    env = dict(os.environ, WINEPREFIX=str(prefix), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=")
    env.pop("DISPLAY", None)
    # the first start creates the prefix (several seconds); later runs reuse it
    subprocess.run([_wine(), "cmd", "/c", "exit"], env=env, capture_output=True, timeout=300)
    return env


def _win_path(p: Path) -> str:
    return "Z:" + str(p).replace("/", "\\")


def _requests() -> bytes:
    texts = ["Hello, world!", "naïve café", "你好，世界", "emoji 👍🏽 and ZWJ 👨‍👩‍👧", "tabs\tand\r\nCRLF",
             "a Ctrl-Z \x1a inside", "<|im_start|>user\nhi<|im_end|>", " leading spaces", ""]
    texts += random_texts(7, 300)
    lines = [json.dumps(t, ensure_ascii=False).encode("utf-8") for t in texts]
    lines += [b'{"text": "with special", "add_special_tokens": false}', b"not json", b'{"text": 5}', b"[1, 2",
              b'"\xff\xfe invalid UTF-8"', b'{"text": "crlf line"}\r']
    return b"\n".join(lines) + b"\n"


def test_tokcore_exe_answers_like_the_linux_build(tokcore: Path, tokcore_exe: Path, wine_env: dict[str, str],
                                                  qwen3_json: Path) -> None:
    req = _requests()
    linux = subprocess.run([str(tokcore), "encode", "--tokenizer", str(qwen3_json), "--jsonl"], input=req,
                           capture_output=True, timeout=300)
    assert linux.returncode == 0, linux.stderr
    win = subprocess.run([_wine(), str(tokcore_exe), "encode", "--tokenizer", _win_path(qwen3_json), "--jsonl"],
                         input=req, capture_output=True, timeout=600, env=wine_env)
    assert win.returncode == 0, win.stderr[-3000:]
    a, b = linux.stdout.split(b"\n"), win.stdout.split(b"\n")
    assert len(a) == len(b) == req.count(b"\n") + 1, (len(a), len(b))
    for i, (x, y) in enumerate(zip(a, b)):
        assert x == y, (i, x[:300], y[:300])
    # not JSON, a text that is a number, a cut array, invalid UTF-8 inside the JSON: one error line each
    assert sum(b'"error"' in x for x in a) == 4


def test_tokcore_exe_errors_name_the_file(tokcore_exe: Path, wine_env: dict[str, str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": ', encoding="utf-8")
    r = subprocess.run([_wine(), str(tokcore_exe), "encode", "--tokenizer", _win_path(bad), "x"],
                       capture_output=True, timeout=300, env=wine_env)
    assert r.returncode != 0 and b"bad.json" in r.stderr and b"end of input" in r.stderr, r.stderr[-2000:]
    missing = tmp_path / "missing.json"
    r = subprocess.run([_wine(), str(tokcore_exe), "encode", "--tokenizer", _win_path(missing), "x"],
                       capture_output=True, timeout=300, env=wine_env)
    assert r.returncode != 0 and b"missing.json" in r.stderr and b"cannot open" in r.stderr, r.stderr[-2000:]
