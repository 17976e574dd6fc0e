"""`tokinspect board diff` and `board profile` end to end over the test board
(sshd + aarch64 under qemu, tests/boardfix.py): the checks, the deployed
engine agreeing with the host, the board's own greedy tokenizer diverging
and classified, a vocab.bin with one changed byte, host-key trust, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import shared
from tokinspect.cli import main

EXIT_SAME, EXIT_DIFFER, EXIT_ERROR = 0, 1, 2


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A multilingual corpus: the first non-empty lines of every 25th UDHR translation."""
    lines = []
    for f in sorted(shared("udhr", "txt").glob("*.txt"))[::25]:
        lines += [x for x in f.read_text(encoding="utf-8").splitlines() if x.strip()][:2]
    path = tmp_path_factory.mktemp("corpus") / "udhr.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def board_opts(board) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(board.port), "--user", board.user, "--key", str(board.user_key),
            "--no-agent", "--compiler", "aarch64-linux-gnu-gcc -static", "--run-prefix", "qemu-aarch64-static",
            "--deploy-root", str(board.deploy_root)]


def conn_args(board, *extra: str) -> list[str]:
    return ["board", "diff", *board_opts(board), "--known-hosts", str(board.known_hosts), "--app-known-hosts",
            str(board.app_known_hosts), *extra]


def run_json(capsys, argv: list[str]) -> tuple[int, dict]:
    rc = main([*argv, "--json"])
    out = capsys.readouterr().out
    return rc, json.loads(out)


def test_deployed_bpe_agrees_with_the_host(board, vocab, corpus, capsys) -> None:
    rc, r = run_json(capsys, conn_args(board, "--remote-tokenizer", vocab["board"], "--deploy",
                                       "--tokenizer", str(vocab["host"]), str(corpus)))
    n = len(corpus.read_text(encoding="utf-8").splitlines())
    assert rc == EXIT_SAME, r["error"]
    s = r["summary"]
    assert s["texts"] == n > 20 and s["identical"] == n and s["agree"] and not s["per_kind"]
    assert r["checks"]["same_file"] is True and r["checks"]["vocab"] is None
    assert r["checks"]["board"]["char_signed"] is False and r["checks"]["board"]["compiler"]
    files = r["checks"]["files"]
    assert files["host"]["sha256"] == files["board"]["sha256"] and files["host"]["size"] == vocab["host"].stat().st_size
    assert all(t["host_ids"] == t["board_ids"] for t in r["texts"])


def test_board_greedy_command_diverges_and_is_classified(board, board_conn, deployed, probe, vocab, corpus,
                                                          capsys) -> None:
    cmd = f"qemu-aarch64-static {probe} {{tokenizer}}"
    rc, r = run_json(capsys, conn_args(board, "--remote-tokenizer", vocab["board"], "--command", cmd, "--parse", "ints",
                                       "--tokenizer", str(vocab["host"]), str(corpus)))
    assert rc == EXIT_DIFFER, r["error"]
    s = r["summary"]
    assert 0 < s["identical"] < s["texts"] and s["missing"] == 0
    assert s["per_kind"].get("same_bytes", 0) > 0
    host_tok = vocab["tok"]
    lines = corpus.read_text(encoding="utf-8").splitlines()
    for t in r["texts"]:
        greedy = host_tok.encode(lines[t["index"]], False, "greedy").ids.tolist()
        assert t["board_ids"] == greedy                      # the probe is the greedy encoder
        assert t["identical"] == (t["host_ids"] == t["board_ids"])
    reasons = [d["reason"] for t in r["texts"] for d in t["divergences"] if d["kind"] == "same_bytes"]
    assert any("board: greedy" in x for x in reasons)
    # the text report names the same things
    rc2 = main(conn_args(board, "--remote-tokenizer", vocab["board"], "--command", cmd, "--parse", "ints",
                         "--tokenizer", str(vocab["host"]), str(corpus)))
    out = capsys.readouterr().out
    assert rc2 == EXIT_DIFFER
    assert "same bytes, split differently" in out and "first divergence per text" in out and "tokenizer files: identical" in out


def test_changed_vocab_bin_is_reported_entry_by_entry(board, board_conn, vocab, tmp_path, capsys) -> None:
    data = bytearray(vocab["host"].read_bytes())
    data[-1] ^= 0x01
    changed = f"{board.dir}/board files/cli changed.bin"
    board_conn.put_bytes(bytes(data), changed)
    texts = tmp_path / "t.txt"
    texts.write_text("hello world\n", encoding="utf-8")
    rc, r = run_json(capsys, conn_args(board, "--remote-tokenizer", changed, "--tokenizer", str(vocab["host"]),
                                       str(texts)))
    assert r["checks"]["same_file"] is False
    v = r["checks"]["vocab"]
    assert v["differing"] == 1 and v["entries_host"] == v["entries_board"] == 151669
    (d,) = v["differences"]
    assert bytes.fromhex(d["board_hex"])[-1] == bytes.fromhex(d["host_hex"])[-1] ^ 0x01
    assert rc == EXIT_SAME   # hello world does not touch the changed entry


def test_default_host_tokenizer_is_compared_as_compiled_vocab_bin(board, vocab, tmp_path, capsys) -> None:
    """No --tokenizer: the embedded Qwen3; the board's vocab.bin is checked against it compiled."""
    texts = tmp_path / "t.txt"
    texts.write_text("naïve café 你好\n", encoding="utf-8")
    rc, r = run_json(capsys, conn_args(board, "--remote-tokenizer", vocab["board"], str(texts)))
    files = r["checks"]["files"]
    assert "compiled as vocab.bin" in files["host"]["what"] and r["checks"]["same_file"] is True
    assert rc == EXIT_SAME


def test_unknown_host_key_is_refused_then_accepted_by_fingerprint(board, vocab, tmp_path, capsys) -> None:
    texts = tmp_path / "t.txt"
    texts.write_text("hi\n", encoding="utf-8")
    app_known = tmp_path / "app_known_hosts"
    argv = conn_args(board, "--remote-tokenizer", vocab["board"], str(texts))
    argv[argv.index("--known-hosts") + 1] = str(tmp_path / "empty_known_hosts")
    argv[argv.index("--app-known-hosts") + 1] = str(app_known)
    assert main(argv) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "not known" in err and board.host_fingerprint in err and "--accept-host-key" in err
    assert not app_known.exists() or board.host_fingerprint not in app_known.read_text()
    assert main([*argv, "--accept-host-key", "SHA256:not-the-key"]) == EXIT_ERROR
    capsys.readouterr()
    assert main([*argv, "--accept-host-key", board.host_fingerprint]) == EXIT_SAME
    assert board.host_key_pub.split()[1] in app_known.read_text()
    capsys.readouterr()
    assert main(argv) == EXIT_SAME       # trusted from now on


def test_errors_exit_2_with_a_message(board, vocab, tmp_path, capsys) -> None:
    texts = tmp_path / "t.txt"
    texts.write_text("hi\n", encoding="utf-8")
    assert main(conn_args(board, "--remote-tokenizer", f"{board.dir}/no such.bin", str(texts))) == EXIT_ERROR
    out = capsys.readouterr()
    assert "no such.bin" in out.out + out.err
    argv = conn_args(board, "--remote-tokenizer", vocab["board"], str(texts))
    argv[argv.index("--port") + 1] = "1"
    assert main(argv) == EXIT_ERROR
    assert "cannot reach 127.0.0.1:1" in capsys.readouterr().err
    argv = conn_args(board, "--remote-tokenizer", vocab["board"], "--command", "false", "--parse", "regex",
                     str(texts))
    assert main(argv) == EXIT_ERROR
    assert "--regex" in capsys.readouterr().err


def test_profiles_save_list_and_use(board, vocab, tmp_path, capsys) -> None:
    profiles = tmp_path / "profiles.json"
    assert main(["board", "profile", "save", "--name", "rk3588-qemu", "--profiles", str(profiles),
                 *board_opts(board)]) == 0
    assert "rk3588-qemu" in capsys.readouterr().out
    data = json.loads(profiles.read_text())
    (p,) = data["profiles"]
    assert p["port"] == board.port and p["compiler"] == "aarch64-linux-gnu-gcc -static" and "password" not in p
    assert main(["board", "profile", "list", "--profiles", str(profiles)]) == 0
    assert f"127.0.0.1:{board.port}" in capsys.readouterr().out
    texts = tmp_path / "t.txt"
    texts.write_text("hello\n", encoding="utf-8")
    rc = main(["board", "diff", "--profile", "rk3588-qemu", "--profiles", str(profiles), "--known-hosts",
               str(board.known_hosts), "--app-known-hosts", str(board.app_known_hosts), "--remote-tokenizer",
               vocab["board"], "--tokenizer", str(vocab["host"]), str(texts)])
    assert rc == EXIT_SAME, capsys.readouterr()
    capsys.readouterr()
    assert main(["board", "profile", "delete", "--name", "rk3588-qemu", "--profiles", str(profiles)]) == 0
    assert json.loads(profiles.read_text())["profiles"] == []
