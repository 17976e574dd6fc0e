"""Encoding on the aarch64 test board (sshd + aarch64-linux-gnu-gcc -static +
qemu-aarch64-static, tests/boardfix.py): deploy and build our engine, board
facts, the tokenizer file check, the board's own tokenizer (tests/board/probe.c:
greedy ids) with each output parser, and each failure with its error type, a
clear message and the results received before it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from conftest import shared
from tokinspect import Tokenizer
from tokinspect.board import deploy, remote
from tokinspect.board.deploy import BuildFailed, CompilerMissing
from tokinspect.board.remote import OutputParseError, TextRefused
from tokinspect.board.ssh import CommandTimeout, ConnectionLost, RemoteCommandFailed, RemoteFileMissing
from tokinspect.formats.vocab_bin import compare

INJECTIONS = ["'; rm -rf ~; echo '", "$(reboot)", "`reboot` \"$(shutdown -h now)\" ; | & > /tmp/x \\ end",
              "a'; rm -rf ~; echo '$(reboot) b"]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """UDHR lines in many scripts (every 40th translation, its first 3 non-empty lines)."""
    files = sorted(shared("udhr", "txt").glob("*.txt"))[::40]
    out = []
    for f in files:
        out += [x for x in f.read_text(encoding="utf-8").splitlines() if x.strip()][:3]
    return out


def host_ids(tok: Tokenizer, texts: list[str], encoder: str = "bpe", add_special_tokens: bool = True) -> list:
    return [tok.encode(t, add_special_tokens, encoder).ids.tolist() for t in texts]


def probe_cmd(board_conn, probe: str) -> str:
    return f"{deploy.run_prefix(board_conn)}{probe} {{tokenizer}}"


# ---- deploy --------------------------------------------------------------------
def test_deploy_builds_for_aarch64_and_reuses_by_hash(board, board_conn, deployed) -> None:
    assert deployed.built and "/" + deployed.source_hash in deployed.dir
    assert deployed.dir.startswith(str(board.deploy_root))  # never the real ~/.cache
    assert deployed.source_hash == deploy.source_hash(deploy.native_sources())
    elf = board_conn.get_bytes(deployed.binary)[:20]
    assert elf[:4] == b"\x7fELF" and int.from_bytes(elf[18:20], "little") == 183  # EM_AARCH64
    r = board_conn.run(f"qemu-aarch64-static {deployed.binary} version")
    assert r.rc == 0 and r.stdout.strip(), r
    again = deploy.ensure_built(board_conn)
    assert not again.built and again.binary == deployed.binary and again.build_output == ""
    assert again.seconds < deployed.seconds / 3, (again.seconds, deployed.seconds)


def test_native_sources_are_found() -> None:
    files = deploy.native_sources()
    assert "src/tokcore.h" in files and "cli/tokcore.c" in files and "cli/sha256.c" in files
    assert all(n.endswith((".c", ".h")) for n in files)


def test_board_facts(board_conn) -> None:
    facts = remote.board_facts(board_conn)
    assert facts.uname_m == os.uname().machine and facts.uname
    assert facts.compiler_target.startswith("aarch64"), facts
    assert facts.char_signed is False  # plain char is unsigned on aarch64
    assert "aarch64-linux-gnu-gcc" in facts.compiler_version, facts
    assert facts.problems == []


# ---- the tokenizer file --------------------------------------------------------------
def test_vocab_sha256_same_file(board_conn, vocab) -> None:
    data = vocab["host"].read_bytes()
    info = remote.remote_file_info(board_conn, vocab["board"])
    import hashlib

    assert info == (len(data), hashlib.sha256(data).hexdigest())
    size, sha = info
    assert size == len(data)


def test_vocab_sha256_one_changed_byte(board, board_conn, vocab, tmp_path: Path) -> None:
    data = bytearray(vocab["host"].read_bytes())
    data[-1] ^= 0x01  # the last byte of the last entry (a special token's text)
    changed = f"{board.dir}/board files/changed vocab.bin"
    board_conn.put_bytes(bytes(data), changed)
    import hashlib

    size, sha = remote.remote_file_info(board_conn, changed)
    assert size == len(data) and sha == hashlib.sha256(data).hexdigest()
    assert sha != hashlib.sha256(vocab["host"].read_bytes()).hexdigest()
    fetched = remote.fetch_file(board_conn, changed)
    assert fetched == bytes(data)
    (tmp_path / "board.bin").write_bytes(fetched)
    cmp = compare(vocab["host"], tmp_path / "board.bin")
    assert not cmp.identical and [d.id for d in cmp.differences] == [cmp.entries_a - 1]


def test_sha256_falls_back_to_the_deployed_tokcore(board, board_conn, deployed, vocab) -> None:
    # a board without sha256sum and openssl: PATH without them for this command
    import hashlib

    fake = board.dir / "nosum"
    fake.mkdir(exist_ok=True)
    for tool in ("sha256sum", "openssl"):
        (fake / tool).write_text("#!/bin/sh\nexit 127\n")
        (fake / tool).chmod(0o755)
    real_run = board_conn.run

    def run(cmd, *a, **kw):
        return real_run(f"PATH={fake}:$PATH; {cmd}", *a, **kw)

    board_conn.run = run
    try:
        with pytest.raises(remote.BoardError, match="cannot compute the sha256"):
            remote.remote_file_info(board_conn, vocab["board"])
        info = remote.remote_file_info(board_conn, vocab["board"], tokcore=deployed.binary)
    finally:
        del board_conn.run
    assert info.sha256 == hashlib.sha256(vocab["host"].read_bytes()).hexdigest()


# ---- encoding -------------------------------------------------------------------------
def test_deployed_bpe_equals_host_and_greedy_probe_diverges(board_conn, deployed, probe, vocab, texts) -> None:
    tok = vocab["tok"]
    batch = remote.encode_deployed(board_conn, deployed.binary, vocab["board"], texts, encoder="bpe")
    assert batch.ok, batch.error
    host_bpe = host_ids(tok, texts)
    assert batch.ids == host_bpe  # no divergence with our deployed engine
    greedy = remote.encode_command(board_conn, probe_cmd(board_conn, probe), texts, parser="ints",
                                   tokenizer=vocab["board"])
    assert greedy.ok, greedy.error
    assert greedy.ids == host_ids(tok, texts, "greedy", False)
    diverging = [i for i, (a, b) in enumerate(zip(greedy.ids, host_bpe)) if a != b]
    assert len(diverging) >= 3, "the board's greedy tokenizer should split some UDHR lines differently"
    deployed_greedy = remote.encode_deployed(board_conn, deployed.binary, vocab["board"], texts, encoder="greedy",
                                             add_special_tokens=False)
    assert deployed_greedy.ids == greedy.ids


def test_injection_texts_reach_the_board_as_data(board, board_conn, deployed, probe, vocab) -> None:
    tok = vocab["tok"]
    batch = remote.encode_deployed(board_conn, deployed.binary, vocab["board"], INJECTIONS)
    assert batch.ok and batch.ids == host_ids(tok, INJECTIONS)
    for mode in ("stdin", "file"):
        template = probe_cmd(board_conn, probe) + (" {input}" if mode == "file" else "")
        r = remote.encode_command(board_conn, template, INJECTIONS, mode=mode, parser="ints",
                                  tokenizer=vocab["board"])
        assert r.ok and r.ids == host_ids(tok, INJECTIONS, "greedy", False), (mode, r.error)
    # byte-exact on the board: the text comes back unchanged through `cat`
    echoed = remote.encode_command(board_conn, "od -An -tu1 -v | tr -s ' \\n' '  '", [INJECTIONS[3]],
                                   parser="ints", per_text=True)
    assert echoed.ids == [list(INJECTIONS[3].encode())]
    assert (board.home / "canary").exists()
    assert not board.fake_calls.exists(), board.fake_calls.read_text()


def test_custom_command_output_parsers(board_conn, deployed, probe, vocab, texts) -> None:
    tok = vocab["tok"]
    some = texts[:6]
    want = host_ids(tok, some, "greedy", False)
    base = probe_cmd(board_conn, probe)
    cases = {
        "ints": (f"{base} | tr ' ' ','", None),
        "jsonl": (f"{base} | sed 's/ /,/g; s/^/{{\"ids\":[/; s/$/]}}/'", None),
        "regex": (f"echo 'loading...'; {base} | sed 's/^/ids: </; s/$/> ok/'", r"ids: <([\d ]*)>"),
    }
    for parser, (template, rx) in cases.items():
        r = remote.encode_command(board_conn, template, some, parser=parser, regex=rx, tokenizer=vocab["board"])
        assert r.ok, (parser, r.error, r.errors)
        assert r.ids == want, parser
    # file mode, one exec per text (multi-line texts are fine there)
    multi = ["line one\nline two", some[0]]
    r = remote.encode_command(board_conn, f"{base} {{input}} | tr '\\n' ' '", multi, mode="file", parser="ints",
                              tokenizer=vocab["board"], per_text=True)
    assert r.ok, r.error
    assert r.ids == [host_ids(tok, ["line one"], "greedy", False)[0] + host_ids(tok, ["line two"], "greedy", False)[0],
                     want[0]]
    # a line break cannot travel in the one-text-per-line contract: that text goes by itself (the probe
    # reads it as two lines, two result lines, read as one result), the others in one batch
    r = remote.encode_command(board_conn, base, multi, parser="ints", tokenizer=vocab["board"])
    assert r.ok, (r.error, r.errors)
    assert r.ids == [host_ids(tok, ["line one"], "greedy", False)[0] + host_ids(tok, ["line two"], "greedy", False)[0],
                     want[0]]
    # as JSON Lines, multi-line texts travel in the batch: tokcore --jsonl as the board's command
    tokcore_cmd = f"{deploy.run_prefix(board_conn)}{deployed.binary} encode --tokenizer {{tokenizer}} --encoder greedy --no-special --jsonl"
    r = remote.encode_command(board_conn, tokcore_cmd, multi, parser="jsonl", tokenizer=vocab["board"], input="jsonl")
    assert r.ok, (r.error, r.errors)
    assert r.ids == host_ids(tok, multi, "greedy", False)


def test_output_parsers_reject_with_the_line_and_content() -> None:
    assert remote.parse_ints("1 2,3, 4", 1) == [1, 2, 3, 4] and remote.parse_ints("", 1) == []
    with pytest.raises(OutputParseError, match=r"output line 3 is not integers.*'1 2 x'.*'x' is not one"):
        remote.parse_ints("1 2 x", 3)
    assert remote.parse_jsonl('{"ids": [5, 6], "offsets": []}', 1) == [5, 6]
    assert remote.parse_jsonl("[7]", 1) == [7]
    with pytest.raises(OutputParseError, match=r"output line 2 is not a JSON line: 'nope'"):
        remote.parse_jsonl("nope", 2)
    with pytest.raises(OutputParseError, match=r"line 4 is not a JSON list of ids"):
        remote.parse_jsonl('["a"]', 4)
    with pytest.raises(TextRefused, match="bad text"):
        remote.parse_jsonl('{"error": "bad text"}', 1)
    rx = remote.compile_regex(r"ids=\[(.*)\]")
    assert remote.parse_regex("x ids=[1, 2] y", 1, rx) == [1, 2]
    assert remote.parse_regex("log line", 1, rx) is None
    with pytest.raises(OutputParseError, match=r"line 5 .*ids=\[1, b\]"):
        remote.parse_regex("ids=[1, b]", 5, rx)
    with pytest.raises(ValueError, match="exactly one group"):
        remote.compile_regex(r"(\d+) (\d+)")


# ---- failures: each keeps what came before ---------------------------------------------
def test_compiler_missing(board) -> None:
    conn = board.connection(board.profile(compiler="no-such-cc-tokinspect -static",
                                          deploy_root=str(board.dir / "cache-nocc")))
    with conn:
        with pytest.raises(CompilerMissing) as ei:
            deploy.ensure_built(conn)
    assert "no C compiler 'no-such-cc-tokinspect'" in str(ei.value) and "PATH" in str(ei.value)


def test_build_error_shows_the_compiler_output(board) -> None:
    conn = board.connection(board.profile(compiler="aarch64-linux-gnu-gcc -static -include tokinspect_no_such.h",
                                          deploy_root=str(board.dir / "cache-broken")))
    with conn:
        with pytest.raises(BuildFailed) as ei:
            deploy.ensure_built(conn)
        leftovers = conn.run(f"ls {board.dir}/cache-broken/*/").text()
    e = ei.value
    assert "tokinspect_no_such.h" in e.output and "tokinspect_no_such.h" in str(e)
    assert "build on" in str(e) and "failed" in str(e)
    assert "tokcore" not in leftovers.split() and ".tmp." not in leftovers


def test_remote_file_missing(board_conn, deployed) -> None:
    with pytest.raises(RemoteFileMissing, match="/no/such/vocab.bin does not exist"):
        remote.remote_file_info(board_conn, "/no/such/vocab.bin")
    with pytest.raises(RemoteFileMissing):
        remote.fetch_file(board_conn, "/no/such/vocab.bin")
    batch = remote.encode_deployed(board_conn, deployed.binary, "/no/such/vocab.bin", ["a", "b"])
    assert batch.ids == [None, None] and isinstance(batch.failure, RemoteFileMissing)
    assert "tokenizer file" in batch.error and "/no/such/vocab.bin" in batch.error


def test_remote_command_exits_non_zero_keeps_results(board_conn, probe, vocab, texts) -> None:
    some = texts[:5]
    r = remote.encode_command(board_conn, f"head -n 2 | {probe_cmd(board_conn, probe)}; echo 'board says no' >&2; exit 3",
                              some, parser="ints", tokenizer=vocab["board"])
    assert isinstance(r.failure, RemoteCommandFailed) and r.failure.rc == 3
    assert "status 3" in r.error and "board says no" in r.error and "2 of 5" in r.error, r.error
    assert r.ids[:2] == host_ids(vocab["tok"], some[:2], "greedy", False) and r.ids[2:] == [None] * 3


def test_connection_killed_mid_batch_keeps_results_then_reconnects(board, deployed, vocab, texts) -> None:
    conn = board.connection()
    conn.connect()
    session_pid = int(conn.run("echo $PPID").stdout)  # the sshd process of this connection
    many = [t * 40 for t in texts] * 3  # long enough that the board is still encoding at the kill
    seen: list[int] = []

    def progress(done: int) -> None:
        seen.append(done)
        if done == 5:
            os.kill(session_pid, signal.SIGKILL)

    batch = remote.encode_deployed(conn, deployed.binary, vocab["board"], many, progress=progress)
    assert isinstance(batch.failure, ConnectionLost), batch.error
    assert "was lost" in batch.error and f"of {len(many)} results received" in batch.error
    got = batch.received
    assert 5 <= got < len(many), got
    assert batch.ids[:got] == host_ids(vocab["tok"], many[:got]) and batch.ids[got:] == [None] * (len(many) - got)
    assert not conn.is_alive
    conn.reconnect()
    again = remote.encode_deployed(conn, deployed.binary, vocab["board"], many[:3])
    assert again.ok and again.ids == batch.ids[:3]
    conn.close()


def test_timeout_mid_batch_keeps_results(board_conn) -> None:
    t0 = time.monotonic()
    r = remote.encode_command(board_conn, "read -r l; echo 1 2 3; sleep 30", ["a", "b", "c"], parser="ints",
                              timeout=1.5)
    assert time.monotonic() - t0 < 6
    assert isinstance(r.failure, CommandTimeout)
    assert r.ids == [[1, 2, 3], None, None]
    assert "sent nothing for 1.5 s" in r.error and "1 of 3" in r.error, r.error


def test_output_that_does_not_parse(board_conn) -> None:
    r = remote.encode_command(board_conn, "cat >/dev/null; echo '1 2 x'; echo '4 5'", ["a", "b"], parser="ints")
    assert r.error is None and r.ids == [None, [4, 5]]
    assert r.errors[0] is not None and "output line 1" in r.errors[0] and "'1 2 x'" in r.errors[0]
    r = remote.encode_command(board_conn, "cat >/dev/null; echo '[1]'; echo 'oops {'", ["a", "b"], parser="jsonl")
    assert r.ids == [[1], None] and "output line 2 is not a JSON line: 'oops {'" in (r.errors[1] or "")
    r = remote.encode_command(board_conn, "cat >/dev/null; echo 'ids: 1 z'", ["a"], parser="regex",
                              regex=r"ids: (.*)")
    assert r.ids == [None] and "line 1" in (r.errors[0] or "") and "'ids: 1 z'" in (r.errors[0] or "")
    r = remote.encode_command(board_conn, "cat >/dev/null; echo 1; echo 2; echo 3", ["a", "b"], parser="ints")
    assert r.ids == [[1], [2]] and "more results than the 2 texts" in (r.error or "")
    r = remote.encode_command(board_conn, "cat >/dev/null; echo 1", ["a", "b"], parser="ints")
    assert r.ids == [[1], None] and "printed 1 results for 2 texts" in (r.error or "")
