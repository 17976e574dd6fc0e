"""A board that runs llama.cpp (app/board/llamacpp.py): the real `llama-tokenize`, cross-built for aarch64 from
the llama-cpp-python 0.3.36 sdist (tests/llamacpp_build.py), runs on the test board under qemu through the
sshd fixture (tests/boardfix.py), with a vendored vocab GGUF uploaded there; the host has the same GGUF.

- parse_ids reads what the real tool prints (host build), with and without --show-count's extra line.
- encode_tokenize on the board equals our engine on the host for the same GGUF: batched (a special token
  between texts) and one process per text (BOS added; special parsing off).
- `tokinspect board identify --llama-tokenize` names the engine "llama.cpp"; `board diff --llama-tokenize`
  agrees text for text with a GGUF host tokenizer, and with a host tokenizer.json of another recipe it
  names what differs.
- llama-server's /tokenize through a forwarded channel: llama-server itself needs a model with weights
  (the vendored files are vocabulary only), so the endpoint here is a small HTTP server on the board's
  127.0.0.1 that answers the JSON of tools/server/server-context.cpp `post_tokenize` with the real
  llama-tokenize's ids: it tests the channel, the HTTP exchange (Content-Length and chunked bodies) and the
  request fields, not llama-server.
"""

from __future__ import annotations

import ast
import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from llamacpp_build import BOARD_MODELS, without_newer_than_llama
from test_gguf import gguf_file

from conftest import shared
from corpus import random_texts
from tokinspect import Tokenizer
from tokinspect.board import BoardError, llamacpp
from tokinspect.board.remote import OutputParseError
from tokinspect.board.session import DiffRequest, run_diff, run_identify
from tokinspect.cli import main

EXIT_SAME, EXIT_DIFFER = 0, 1
MODELS = BOARD_MODELS      # the board_llama fixture (tests/llamacpp_build.py) uploads their GGUFs


def host_tool(exe: Path, model: Path, text: str, *extra: str) -> str:
    r = subprocess.run([str(exe), "-m", str(model), "--stdin", "--ids", "--log-disable", "--no-escape", *extra],
                       input=text.encode(), capture_output=True, check=True, timeout=300)
    return r.stdout.decode()


def test_parse_ids_reads_the_real_output(llama_tokenize):
    path = gguf_file("qwen2")
    for text in ["Hello world", "", " ", "日本語 🦙 <|im_end|>x", "a\n\nb\t"]:
        out = host_tool(llama_tokenize, path, text, "--no-bos")
        assert llamacpp.parse_ids(out) == ast.literal_eval(out.strip())
        counted = host_tool(llama_tokenize, path, text, "--no-bos", "--show-count")
        assert "Total number of tokens" in counted
        assert llamacpp.parse_ids(counted) == ast.literal_eval(out.strip())


@pytest.mark.parametrize("out", ["", "1 2 3", "[1, 2, x]", "[1, 2]\n[3]", "tokens: 1, 2"])
def test_parse_ids_refuses_other_output(out):
    with pytest.raises(OutputParseError):
        llamacpp.parse_ids(out)


def texts(n: int, tok: Tokenizer, seed: int) -> list[str]:
    """Edge cases and seeded random strings with the file's special tokens glued to words, all but the one
    that will separate them."""
    first = llamacpp.separator(tok.added_tokens, [])  # type: ignore[arg-type]
    assert first is not None
    specials = [str(a["content"]) for a in tok.added_tokens  # type: ignore[call-overload]
                if a["special"] and a["content"] != first[0]][:16]
    return ["", " lead", "trail  ", "x\ty\r\nz", "NUL\x00x", *without_newer_than_llama(random_texts(seed, n, specials))]


@pytest.mark.parametrize("model", MODELS)
def test_board_llama_tokenize_equals_host_engine(board_conn, board_llama, model):
    tok = Tokenizer.from_file(gguf_file(model))
    sample = texts(150, tok, 160 + MODELS.index(model))
    sep = llamacpp.separator(tok.added_tokens, sample)  # type: ignore[arg-type]
    assert sep is not None
    r = llamacpp.encode_tokenize(board_conn, board_llama["exe"], board_llama["files"][model], sample, sep=sep)
    assert r.ok, (r.error, [e for e in r.errors if e][:2])
    want = [e.ids.tolist() for e in tok.encode_batch(sample, False)]
    bad = [(t, b, w) for t, b, w in zip(sample, r.ids, want) if b != w]
    assert not bad, f"{len(sample) - len(bad)}/{len(sample)} equal; first {bad[:2]}"


def test_board_llama_tokenize_one_process_per_text(board_conn, board_llama):
    """Without a separator (BOS asked for, or special parsing off) every text is its own llama-tokenize run."""
    path = gguf_file("llama-spm")
    tok = Tokenizer.from_file(path)
    plain = Tokenizer.from_file(path, parse_special=False)
    sample = ["Hello world", " two  spaces", "a</s>b", ""]
    exe, model = board_llama["exe"], board_llama["files"]["llama-spm"]
    bos = llamacpp.encode_tokenize(board_conn, exe, model, sample, add_special=True)
    assert bos.ok and bos.ids == [tok.encode(t, True).ids.tolist() for t in sample]
    raw = llamacpp.encode_tokenize(board_conn, exe, model, sample, parse_special=False)
    assert raw.ok and raw.ids == [plain.encode(t, False).ids.tolist() for t in sample]
    missing = llamacpp.encode_tokenize(board_conn, exe, model + ".missing", sample[:1])
    assert missing.ids == [None] and missing.errors[0] and "exit" in missing.errors[0]


def board_opts(board) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(board.port), "--user", board.user, "--key", str(board.user_key),
            "--no-agent", "--run-prefix", "qemu-aarch64-static", "--deploy-root", str(board.deploy_root),
            "--known-hosts", str(board.known_hosts), "--app-known-hosts", str(board.app_known_hosts)]


def cli_json(capsys, argv: list[str]) -> tuple[int, dict]:
    rc = main(argv)
    cap = capsys.readouterr()
    assert cap.out.strip(), (rc, cap.err)
    return rc, json.loads(cap.out)


def test_cli_identify_names_llama_cpp(board, board_llama, capsys):
    rc, out = cli_json(capsys, ["board", "identify", *board_opts(board), "--remote-tokenizer",
                                board_llama["files"]["qwen2"], "--llama-tokenize", board_llama["exe"],
                                "--tokenizer", str(gguf_file("qwen2")), "--json"])
    assert rc == EXIT_SAME, out
    assert out["engine"] == "llama.cpp" and out["agree"]["llama.cpp"] == out["probes"] and out["error"] is None


def test_cli_diff_agrees_with_the_gguf_host(board, board_llama, tmp_path, capsys):
    tok = Tokenizer.from_file(gguf_file("qwen2"))
    lines = [t for t in texts(40, tok, 7) if "\n" not in t and "\r" not in t and t]
    f = tmp_path / "texts.jsonl"
    f.write_text("".join(json.dumps(t) + "\n" for t in lines), encoding="utf-8")
    rc, r = cli_json(capsys, ["board", "diff", *board_opts(board), "--remote-tokenizer", board_llama["files"]["qwen2"],
                              "--llama-tokenize", board_llama["exe"], "--tokenizer", str(gguf_file("qwen2")),
                              "--jsonl", str(f), "--json"])
    assert rc == EXIT_SAME, r["error"]
    assert r["summary"]["texts"] == len(lines) == r["summary"]["identical"]
    assert r["checks"]["same_file"] is True


def test_cli_diff_names_llama_cpp_against_a_host_tokenizer_json(board, board_llama, tmp_path, capsys):
    """Host: Qwen2.5's tokenizer.json (NFC, HF's added-token rules); board: llama.cpp with the qwen2 GGUF
    (no normalizer, its own special handling). With --gguf the texts that differ are explained by
    llama.cpp, each divergence with the llamacpp-recipe rule; identify names llama.cpp too."""
    host_json = shared("qwen2.5", "tokenizer.json")
    gguf = gguf_file("qwen2")
    lines = ["café", "cafe\u0301 ok", "Hello world", "x<|im_end|>y", "e\u0301\u0302 ngstro\u0308m", " lead"]
    f = tmp_path / "texts.jsonl"
    f.write_text("".join(json.dumps(t) + "\n" for t in lines), encoding="utf-8")
    common = [*board_opts(board), "--remote-tokenizer", board_llama["files"]["qwen2"],
              "--llama-tokenize", board_llama["exe"], "--tokenizer", str(host_json), "--gguf", str(gguf)]
    rc, r = cli_json(capsys, ["board", "diff", *common, "--jsonl", str(f), "--json"])
    assert r["error"] is None
    host, recipe = Tokenizer.from_file(host_json), Tokenizer.from_file(gguf)
    differ = [t for t in lines if host.encode(t, False).ids.tolist() != recipe.encode(t, False).ids.tolist()]
    assert len(differ) >= 2 and rc == EXIT_DIFFER
    assert r["summary"]["identical"] == len(lines) - len(differ)
    for row in r["texts"]:
        assert row["board_ids"] == recipe.encode(row["text"], False).ids.tolist()
        if row["text"] in differ:
            assert row["explained_by"] == "llama.cpp", row
            assert all("llamacpp-recipe" in d["rules"] for d in row["divergences"]), row["divergences"]
    rc, out = cli_json(capsys, ["board", "identify", *common, "--json"])
    assert rc == EXIT_SAME and out["engine"] == "llama.cpp", out


# ---- /tokenize through a forwarded channel ----------------------------------------------------------------

class _Tokenize(BaseHTTPRequestHandler):
    """POST /tokenize as llama-server answers it, the ids from the real llama-tokenize; every second answer
    is sent chunked."""

    protocol_version = "HTTP/1.1"
    exe: Path
    model: Path
    seen: list[dict]
    count = 0

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        if self.path != "/tokenize":
            self._send(404, {"error": {"code": 404, "message": "File Not Found"}}, False)
            return
        extra = ([] if body.get("add_special") else ["--no-bos"]) + \
            ([] if body.get("parse_special", True) else ["--no-parse-special"])
        ids = ast.literal_eval(host_tool(self.exe, self.model, body["content"], *extra).strip())
        type(self).count += 1
        self._send(200, {"tokens": ids}, type(self).count % 2 == 0)

    def _send(self, status: int, obj: dict, chunked: bool) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for k in range(0, len(data), 7):
                part = data[k:k + 7]
                self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def tokenize_endpoint(llama_tokenize) -> Iterator[tuple[int, type[_Tokenize]]]:
    handler = type("Handler", (_Tokenize,), {"exe": llama_tokenize, "model": gguf_file("llama-spm"), "seen": []})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        yield srv.server_address[1], handler
    finally:
        srv.shutdown()
        srv.server_close()


def test_server_tokenize_through_a_forwarded_channel(board_conn, tokenize_endpoint):
    port, handler = tokenize_endpoint
    tok = Tokenizer.from_file(gguf_file("llama-spm"))
    plain = Tokenizer.from_file(gguf_file("llama-spm"), parse_special=False)
    sample = ["Hello world", "日本語 🦙", "a</s>b", "", "x\ny  z"]
    r = llamacpp.encode_server(board_conn, port, sample)
    assert r.ok and r.ids == [tok.encode(t, False).ids.tolist() for t in sample]
    r = llamacpp.encode_server(board_conn, port, sample, add_special=True, parse_special=False)
    assert r.ok and r.ids == [plain.encode(t, True).ids.tolist() for t in sample]
    assert handler.seen[-1] == {"content": sample[-1], "add_special": True, "parse_special": False}


def test_server_run_diff_and_errors(board_conn, board_llama, tokenize_endpoint):
    port, _ = tokenize_endpoint
    tok = Tokenizer.from_file(gguf_file("llama-spm"))
    req = DiffRequest(("Hello world", "a  b", "Zażółć gęślą jaźń"), board_llama["files"]["llama-spm"],
                      mode="llama-server", llama_port=port)
    run = run_diff(board_conn, req, tok)
    assert run.error is None and run.summary.identical == 3, run.error
    ident = run_identify(board_conn, req, tok)
    assert ident.result is not None and ident.result.engine == "llama.cpp", ident.error
    closed = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    free = closed.server_address[1]
    closed.server_close()
    with pytest.raises(BoardError, match=f"127.0.0.1:{free}"):
        llamacpp.post_tokenize(board_conn, free, "x")
    with pytest.raises(BoardError, match="not a TCP port"):
        board_conn.open_local_port(70000)


@pytest.mark.parametrize("raw,why", [
    (b"garbage", "no HTTP header"),
    (b"SMTP 220\r\n\r\n{}", "not an HTTP status line"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{}", "ended after 2 of 50"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"),
    (b"HTTP/1.1 500 Internal\r\nContent-Length: 34\r\n\r\n{\"error\": {\"message\": \"it broke\"}}  ",
     "HTTP 500: it broke"),
    (b"HTTP/1.1 200 OK\r\n\r\n{\"tokens\": [1, \"x\"]}", "not an id"),
    (b"HTTP/1.1 200 OK\r\n\r\n{\"content\": \"\"}", 'no "tokens" list'),
])
def test_bad_http_answers_are_named(raw, why):
    with pytest.raises(llamacpp.HttpError, match=why):
        llamacpp.server_ids(*llamacpp.parse_response(raw))
