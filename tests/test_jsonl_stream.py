"""`tokinspect encode --jsonl` on a stream of valid and malformed lines: one reply per line, in
order, no traceback (a 100,000-deep line used to raise RecursionError and end the stream), the
valid replies equal to tokcore's; and the reader function on arbitrary byte lines."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokinspect.cli.tokens import jsonl_reply
from tokinspect.core.tokenizer import Tokenizer

ROOT = Path(__file__).resolve().parent.parent
CC_LINE = "cc -std=c11 -O2 -o tokcore native/src/*.c native/cli/*.c -lm"

BAD: list[bytes] = [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"text": ' * 50_000 + b'"x"' + b"}" * 50_000,
    b"\xff\xfe not utf-8 \xc3",
    b'"\xed\xa0\x80 surrogate bytes"',
    b"1" * 100_000,
    b'{"text": 1' + b"0" * 5000 + b"}",
    b"12345",
    b"null",
    b'{"text": null}',
    b'{"text": ["a"]}',
    b"{}",
    b'{"ids": [1, 2]}',
    b'{"text": "a", "add_special_tokens": "yes"}',
    b'"\\ud800 lone surrogate"',
    b"not json",
    b"",
    b'{"text": "x"',
]
GOOD: list[str] = ["Hello world", "line\nbreak", "emoji 🦙 中文", "", "   ", "numbers 123 3.14"]


@pytest.fixture(scope="module")
def tokcore(tmp_path_factory: pytest.TempPathFactory) -> str:
    assert shutil.which("cc"), "a C compiler (cc) is needed"
    out = tmp_path_factory.mktemp("tokcore_jsonl") / "tokcore"
    r = subprocess.run(CC_LINE.replace("-o tokcore", f"-o {out}"), shell=True, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return str(out)


def _lines(n: int) -> tuple[list[bytes], list[bool]]:
    rnd = random.Random(7)
    lines, valid = [], []
    for i in range(n):
        if i % 3 == 0:
            lines.append(BAD[(i // 3) % len(BAD)])
            valid.append(False)
        else:
            t = rnd.choice(GOOD) + f" {i}"
            req = json.dumps(t) if i % 2 else json.dumps({"text": t, "add_special_tokens": bool(i % 4)})
            lines.append(req.encode("utf-8"))
            valid.append(True)
    return lines, valid


def test_jsonl_stream_survives_every_bad_line(tokcore: str, qwen3_json: Path) -> None:
    lines, valid = _lines(2000)
    data = b"".join(x + b"\n" for x in lines)
    ours = subprocess.run([sys.executable, "-m", "tokinspect", "encode", "--jsonl", "-t", str(qwen3_json)], input=data,
                          capture_output=True, timeout=600)
    assert ours.returncode == 0, ours.stderr.decode(errors="replace")[-2000:]
    assert b"Traceback" not in ours.stderr
    theirs = subprocess.run([tokcore, "encode", "--jsonl", "--tokenizer", str(qwen3_json)], input=data,
                            capture_output=True, timeout=600)
    assert theirs.returncode == 0, theirs.stderr.decode(errors="replace")
    a, b = ours.stdout.decode("utf-8").splitlines(), theirs.stdout.decode("utf-8").splitlines()
    assert len(a) == len(lines) == len(b)
    for i, (x, y, ok) in enumerate(zip(a, b, valid)):
        rx, ry = json.loads(x), json.loads(y)
        if ok:
            assert rx == ry, (i, lines[i][:80])
        else:
            assert set(rx) == {"error"} or "ids" in rx, (i, rx)
    assert "error" in json.loads(a[0])  # the 100,000-deep line


@pytest.fixture(scope="module")
def default_tok() -> Tokenizer:
    return Tokenizer.default()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.binary(max_size=64), st.text(max_size=40).map(lambda t: json.dumps(t).encode()),
                          st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                                       lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c,
                                                                                          max_size=3),
                                       max_leaves=10).map(lambda v: json.dumps(v).encode())),
                max_size=8))
def test_jsonl_reply_never_raises(default_tok: Tokenizer, lines: list[bytes]) -> None:
    import io

    from tokinspect.cli.tokens import _jsonl

    for line in lines:
        r = jsonl_reply(default_tok, True, "bpe", line)
        assert set(r) in ({"error"}, {"ids", "offsets"})
    lines = [x.replace(b"\n", b" ") for x in lines]
    out = io.StringIO()
    _jsonl(default_tok, True, "bpe", io.BytesIO(b"".join(x + b"\n" for x in lines)), out)
    assert len(out.getvalue().splitlines()) == len(lines)
