"""A kestrel-like board (the test board's probe run as `-e kestrel-v1` / `-e kestrel-v2`, our own program
behaving as the real engine) end to end: `board identify` names the engine, every UDHR line and
multi-line texts (CRLF, tabs, chat templates) diff, and the rules named are the true ones on a table of
cases whose causes are known by construction."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared
from tokinspect.board import deploy
from tokinspect.cli import main

EXIT_SAME, EXIT_DIFFER, EXIT_ERROR = 0, 1, 2


def base_args(board) -> list[str]:
    return ["--host", "127.0.0.1", "--port", str(board.port), "--user", board.user, "--key", str(board.user_key),
            "--no-agent", "--compiler", "aarch64-linux-gnu-gcc -static", "--run-prefix", "qemu-aarch64-static",
            "--deploy-root", str(board.deploy_root), "--known-hosts", str(board.known_hosts),
            "--app-known-hosts", str(board.app_known_hosts)]


def probe_cmd(board_conn, probe: str, encoder: str, whole: bool = False) -> str:
    return f"{deploy.run_prefix(board_conn)}{probe} -e {encoder}{' --whole' if whole else ''} {{tokenizer}}"


def run_json(capsys, argv: list[str]) -> tuple[int, dict]:
    rc = main([*argv, "--json"])
    cap = capsys.readouterr()
    assert cap.out.strip(), cap.err
    return rc, json.loads(cap.out)


@pytest.mark.parametrize("engine", ["kestrel-v1", "kestrel-v2", "greedy"])
def test_identify_names_the_engine(board, board_conn, probe, vocab, capsys, engine: str) -> None:
    # the probes hold newlines: one exec per probe, the probe reading its whole input as the text
    rc, r = run_json(capsys, ["board", "identify", *base_args(board), "--remote-tokenizer", vocab["board"],
                              "--command", probe_cmd(board_conn, probe, engine, whole=True), "--parse", "ints",
                              "--input", "per-text", "--tokenizer", str(vocab["host"])])
    assert rc == EXIT_SAME, r
    assert r["engine"] == engine and r["agree"][engine] == r["probes"] >= 12
    assert all(n < r["probes"] for k, n in r["agree"].items() if k != engine)


def test_identify_deployed_bpe_and_an_unknown_engine(board, board_conn, probe, vocab, capsys) -> None:
    rc, r = run_json(capsys, ["board", "identify", *base_args(board), "--remote-tokenizer", vocab["board"],
                              "--deploy", "--tokenizer", str(vocab["host"])])
    assert rc == EXIT_SAME and r["engine"] == "bpe"
    # an engine none of the emulations is: kestrel-v2 whose output loses its last id
    cmd = probe_cmd(board_conn, probe, "kestrel-v2", whole=True) + " | sed 's/ [0-9]*$//'"
    rc, r = run_json(capsys, ["board", "identify", *base_args(board), "--remote-tokenizer", vocab["board"],
                              "--command", cmd, "--parse", "ints", "--input", "per-text",
                              "--tokenizer", str(vocab["host"])])
    assert rc == EXIT_DIFFER and r["engine"] is None and r["closest"] == "kestrel-v2" and r["differ"]
    main(["board", "identify", *base_args(board), "--remote-tokenizer", vocab["board"], "--command", cmd,
          "--parse", "ints", "--input", "per-text", "--tokenizer", str(vocab["host"])])
    assert "closest: kestrel-v2" in capsys.readouterr().out


# text -> (the version, the rules the board's side must carry), each cause known by construction
RULE_CASES = [
    ("a 1 b", "kestrel-v2", {"space-dropped"}),
    ("x\ty", "kestrel-v2", {"control-byte-unk"}),
    ("end  ", "kestrel-v2", {"trailing-space-dropped"}),
    (" lead", "kestrel-v2", {"leading-space-dropped"}),
    ("a   b", "kestrel-v2", {"spaces-collapsed"}),
    ("a\n\nb", "kestrel-v1", {"newline-run-split"}),
    ("ok.<|im_end|>", "kestrel-v1", {"special-split"}),
    ("x.<tool_call>y", "kestrel-v2", {"special-not-listed"}),
    ("gęś", "kestrel-v2", {"equal-bytes-lower-id"}),
    ("abc\x00def", "kestrel-v2", {"nul-truncated"}),
    ("a <|im_end|>", "kestrel-v2", {"space-dropped"}),
]


@pytest.mark.parametrize("version", ["kestrel-v1", "kestrel-v2"])
def test_rules_are_the_true_ones(board, board_conn, probe, vocab, tmp_path, capsys, version: str) -> None:
    cases = [c for c in RULE_CASES if c[1] == version]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t, _, _ in cases), encoding="utf-8")
    rc, r = run_json(capsys, ["board", "diff", *base_args(board), "--remote-tokenizer", vocab["board"],
                              "--command", probe_cmd(board_conn, probe, version, whole=True), "--parse", "ints",
                              "--input", "per-text", "--tokenizer", str(vocab["host"]), "--jsonl", str(path)])
    assert rc == EXIT_DIFFER, r["error"]
    assert [t["text"] for t in r["texts"]] == [t for t, _, _ in cases]
    for t, (text, _, want) in zip(r["texts"], cases):
        assert t["explained_by"] == version, text
        got = {rule for d in t["divergences"] for rule in d["rules"]}
        assert want <= got, (text, got)
        assert all(d["rules"] and all(f["sentence"] for f in d["findings"]) for d in t["divergences"]), text


# run in a child process: the report of 47,543 texts is large, and a peak of several GB in the test
# process would be inherited (as peak RSS) by every later child, the fuzzers' RSS limit among them
_UDHR_CHECK = """
import json, sys
from tokinspect.cli import main
argv, out = json.loads(sys.argv[1]), sys.argv[2]
with open(out, "w", encoding="utf-8") as f:
    sys.stdout = f
    rc = main(argv)
    sys.stdout = sys.__stdout__
r = json.load(open(out, encoding="utf-8"))
s = r["summary"]
differing = [t for t in r["texts"] if not t["identical"]]
print(json.dumps({
    "rc": rc, "error": r["error"], "texts": s["texts"], "missing": s["missing"],
    "in_order": [t["index"] for t in r["texts"]] == list(range(s["texts"])),
    "differing": len(differing),
    "explained": sorted({t["explained_by"] or "none" for t in differing}),
    "all_ruled": all(d["rules"] for t in differing for d in t["divergences"]),
    "per_rule": s["per_rule"]}))
"""


def test_every_udhr_line_diffs(board, board_conn, probe, vocab, tmp_path) -> None:
    lines = [x for f in sorted(shared("udhr", "txt").glob("*.txt"))
             for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
    path = tmp_path / "udhr.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["board", "diff", *base_args(board), "--remote-tokenizer", vocab["board"],
            "--command", probe_cmd(board_conn, probe, "kestrel-v2"), "--parse", "ints",
            "--tokenizer", str(vocab["host"]), "--top", "3", "--json", str(path)]
    res = subprocess.run([sys.executable, "-c", _UDHR_CHECK, json.dumps(argv), str(tmp_path / "report.json")],
                         capture_output=True, text=True, timeout=1800, cwd=str(Path(__file__).resolve().parent))
    assert res.returncode == 0, res.stderr[-3000:]
    r = json.loads(res.stdout.strip().splitlines()[-1])
    assert r["rc"] == EXIT_DIFFER, r["error"]
    assert r["texts"] == len(lines) > 40_000 and r["missing"] == 0 and r["in_order"]
    assert r["differing"] > len(lines) // 2
    assert r["explained"] == ["kestrel-v2"] and r["all_ruled"]
    assert r["per_rule"]["longest-match-split"] > 0 and r["per_rule"]["space-dropped"] > 0


MULTI = ["first line\r\nsecond line", "tab\tseparated\tcolumns", "para one\n\npara two\n", "  indented\n\tcode()"]


@pytest.mark.parametrize("how", ["per-text", "lines", "jsonl"])
def test_multi_line_texts_diff(board, board_conn, deployed, probe, vocab, tmp_path, capsys, how: str) -> None:
    path = tmp_path / "multi.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in MULTI), encoding="utf-8")
    if how == "jsonl":   # tokcore as the board's command reads JSON Lines
        cmd = (f"{deploy.run_prefix(board_conn)}{deployed.binary} encode --tokenizer {{tokenizer}} "
               "--encoder kestrel-v1 --no-special --jsonl")
        parse, want = "jsonl", "kestrel-v1"
    else:                # the probe: each text by itself (--whole reads all its input as one text)
        cmd, parse, want = probe_cmd(board_conn, probe, "kestrel-v1", whole=True), "ints", "kestrel-v1"
    rc, r = run_json(capsys, ["board", "diff", *base_args(board), "--remote-tokenizer", vocab["board"],
                              "--command", cmd, "--parse", parse, "--input", how, "--tokenizer", str(vocab["host"]),
                              "--jsonl", str(path)])
    assert r["error"] is None and r["summary"]["missing"] == 0, r
    tok = vocab["tok"]
    for t, text in zip(r["texts"], MULTI):
        if how == "lines" and "\n" not in text and "\r" not in text:
            continue   # sent as one line: the whole-input probe still reads it whole
        assert t["board_ids"] == tok.encode(text, False, want).ids.tolist(), text
        # the first emulation that reproduces the board (kestrel-v2 before v1 where both give these ids)
        assert tok.encode(text, False, t["explained_by"]).ids.tolist() == t["board_ids"], text
    crlf = r["texts"][0]
    assert "control-byte-unk" in {x for d in crlf["divergences"] for x in d["rules"]}   # the CR is id 0
    assert "\r" not in crlf["board_prints"] and "!" in crlf["board_prints"]


@pytest.mark.parametrize("version", ["kestrel-v1", "kestrel-v2"])
def test_chat_prompt_specials_arrive_whole_only_on_v2(board, board_conn, probe, vocab, tmp_path, capsys,
                                                      version: str) -> None:
    msgs = tmp_path / "messages.json"
    msgs.write_text(json.dumps([{"role": "system", "content": "You are terse."},
                                {"role": "user", "content": "Say hi."}]), encoding="utf-8")
    rc, r = run_json(capsys, ["board", "diff", *base_args(board), "--remote-tokenizer", vocab["board"],
                              "--command", probe_cmd(board_conn, probe, version, whole=True), "--parse", "ints",
                              "--tokenizer", str(vocab["host"]), "--chat", str(msgs)])
    (t,) = r["texts"]
    assert t["text"].startswith("<|im_start|>system\nYou are terse.<|im_end|>")
    specials = {s["token"]: s for s in t["specials"]}
    assert specials["<|im_end|>"]["host"] == 2
    if version == "kestrel-v1":
        # '.<' runs into <|im_end|> after "terse." and "hi.": it never arrives whole
        assert specials["<|im_end|>"]["board"] == 0 and not specials["<|im_end|>"]["whole"]
        assert "special-split" in {x for d in t["divergences"] for x in d["rules"]}
    else:
        assert all(s["whole"] for s in t["specials"]), t["specials"]
    main(["board", "diff", *base_args(board), "--remote-tokenizer", vocab["board"],
          "--command", probe_cmd(board_conn, probe, version, whole=True), "--parse", "ints",
          "--tokenizer", str(vocab["host"]), "--chat", str(msgs)])
    out = capsys.readouterr().out
    if version == "kestrel-v1":
        assert "the board prints" in out and "special <|im_end|>: 2 on the host, 0 whole on the board" in out


def test_jsonl_texts_file_errors_name_the_line(board, vocab, tmp_path, capsys) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('"ok"\n{"nope": 1}\n', encoding="utf-8")
    assert main(["board", "diff", *base_args(board), "--remote-tokenizer", vocab["board"], "--jsonl", str(bad)]) \
        == EXIT_ERROR
    assert f"{bad}:2" in capsys.readouterr().err


def test_host_encoder_kestrel_agrees_with_a_kestrel_board(board, board_conn, probe, vocab, tmp_path,
                                                         capsys) -> None:
    path = tmp_path / "t.txt"
    path.write_text("a 1 b\nx\ty\nHello world  \n", encoding="utf-8")
    rc, r = run_json(capsys, ["board", "diff", *base_args(board), "--remote-tokenizer", vocab["board"],
                              "--command", probe_cmd(board_conn, probe, "kestrel-v2"), "--parse", "ints",
                              "--tokenizer", str(vocab["host"]), "--host-encoder", "kestrel-v2", str(path)])
    assert rc == EXIT_SAME and r["summary"]["agree"], r["error"]


def test_readme_names_the_commands() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "board identify" in readme and "kestrel-v2" in readme
