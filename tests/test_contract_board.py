"""contract verify --board: the golden samples through the board's tokenizer over the board link (the
test board: sshd on 127.0.0.1, our engine built for aarch64 and run under qemu). The same tokenizer on
both sides holds; the board's greedy encoder fails under pieces, labelled "board"; the CLI connects
with a saved profile and exits 0 / 1 accordingly.

Core: the board's file is Qwen3 compiled to vocab.bin on the host (the `vocab` fixture).
"""

from __future__ import annotations

import json
import subprocess
import sys

from tokinspect.board.ssh import ProfileStore
from tokinspect.contract import schema
from tokinspect.contract.board import board_samples, verify_on_board
from tokinspect.contract.bundle import open_bundle
from tokinspect.contract.freeze import freeze
from tokinspect.contract.verify import Report


def test_board_holds_then_fails_with_another_encoder(board_conn, vocab, deployed) -> None:
    c = schema.parse(schema.dump(freeze(open_bundle(vocab["host"]))).encode())
    assert len(board_samples(c)) == len(c["samples"]) - 1      # the malformed bytes stay on the host
    rep = Report()
    verify_on_board(c, vocab["tok"], board_conn, vocab["board"], "bpe", rep)
    assert rep.ok, rep.as_json()
    rep = Report()
    verify_on_board(c, vocab["tok"], board_conn, vocab["board"], "greedy", rep)
    assert "pieces" in rep.layers
    assert all(f.what.startswith("board, sample ") for f in rep.findings)
    # the host's own greedy encode gives the same findings: the board ran what it was asked to
    host_greedy = [vocab["tok"].encode(s["text"], s["add_special_tokens"], "greedy").ids.tolist()
                   for _, s in board_samples(c)]
    failing = {f.sample for f in rep.findings}
    assert failing == {i for (i, s), ids in zip(board_samples(c), host_greedy) if ids != s["ids"]}


def test_cli_verify_board_profile(board, vocab, deployed, tmp_path) -> None:
    profiles = tmp_path / "profiles.json"
    ProfileStore(profiles).save([board.profile(name="qemu")])
    contract = tmp_path / "contract.json"
    cli = [sys.executable, "-m", "tokinspect", "contract"]
    r = subprocess.run([*cli, "freeze", str(vocab["host"]), "-o", str(contract)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    base = [*cli, "verify", str(contract), str(vocab["host"]), "--board", "qemu", "--profiles", str(profiles),
            "--known-hosts", str(board.known_hosts), "--app-known-hosts", str(board.app_known_hosts),
            "--remote-tokenizer", vocab["board"], "--json"]
    r = subprocess.run(base, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["ok"] is True
    r = subprocess.run([*base, "--board-encoder", "greedy"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "pieces" in json.loads(r.stdout)["layers"]
    r = subprocess.run([*cli, "verify", str(contract), str(vocab["host"]), "--board", "nowhere", "--profiles",
                        str(profiles), "--remote-tokenizer", "x"], capture_output=True, text=True)
    assert r.returncode == 2 and "no board profile named 'nowhere'" in r.stderr and "Traceback" not in r.stderr
