"""Host vs board: 1,000 UDHR lines encoded on the host (in process) and on the
test board (our engine deployed over SSH to 127.0.0.1, built with
aarch64-linux-gnu-gcc -static, run under qemu-aarch64-static), all lines in
one exec. Starts its own sshd with tests/boardfix.py's sshd_board.

Usage: python3 bench/board.py [--lines 1000] [--runs 3] [--tokenizer PATH] [--encoder bpe]

Board seconds include the exec, loading the tokenizer under qemu, encoding
and the JSON lines over SSH; "startup" is the same exec with no texts.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


def load_boardfix():
    path = common.REPO / "tests" / "boardfix.py"
    spec = importlib.util.spec_from_file_location("boardfix", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["boardfix"] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def udhr_lines(n: int) -> list[str]:
    files = sorted((common.shared_data() / "udhr" / "txt").glob("*.txt"))
    if not files:
        raise SystemExit(f"no UDHR corpus under {common.shared_data()} (see shared/data/SOURCES.md)")
    lines = [x for f in files for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
    return random.Random(0).sample(lines, n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tokenizer", default=None, help="default: shared qwen3/tokenizer.json")
    ap.add_argument("--encoder", default="bpe", choices=["bpe", "rank", "greedy"])
    args = ap.parse_args()

    from tokinspect import Tokenizer
    from tokinspect.board import deploy, remote

    tok_path = Path(args.tokenizer) if args.tokenizer else common.qwen3_tokenizer_json()
    if tok_path is None:
        raise SystemExit("no tokenizer: pass --tokenizer (the shared qwen3/tokenizer.json is absent)")
    texts = udhr_lines(args.lines)
    n_bytes = sum(len(t.encode()) for t in texts)
    common.print_header("board: host vs deployed board (loopback sshd + qemu-aarch64)", ["tokinspect", "paramiko"])
    print(f"corpus    {len(texts)} UDHR lines (random.Random(0) sample), {n_bytes:,} bytes; tokenizer {tok_path}; "
          f"encoder {args.encoder}")

    tok = Tokenizer.from_file(tok_path)
    host_ids: list[list[int]] = []

    def host() -> None:
        host_ids[:] = [tok.encode(t, True, args.encoder).ids.tolist() for t in texts]

    host_t = common.best_of(host, args.runs)

    boardfix = load_boardfix()
    with tempfile.TemporaryDirectory() as tmp, boardfix.sshd_board(Path(tmp)) as board:
        conn = board.connection()
        conn.connect()
        t0 = time.perf_counter()
        dep = deploy.ensure_built(conn)
        build_s = time.perf_counter() - t0
        board_tok = f"{tmp}/board/{tok_path.name}"
        conn.makedirs(f"{tmp}/board")
        conn.put_file(tok_path, board_tok)
        startup = min(remote.encode_deployed(conn, dep.binary, board_tok, [], encoder=args.encoder).seconds
                      for _ in range(args.runs))
        results = [remote.encode_deployed(conn, dep.binary, board_tok, texts, encoder=args.encoder)
                   for _ in range(args.runs)]
        conn.close()
    bad = [r.error for r in results if not r.ok]
    if bad:
        raise SystemExit(f"board batch failed: {bad[0]}")
    same = all(r.ids == host_ids for r in results)
    board_s = min(r.seconds for r in results)
    print(f"build     {build_s:.1f} s (upload + aarch64 build on the board, {'built' if dep.built else 'reused'})\n")
    common.print_table(
        ["side", "seconds (best)", "lines/s", "note"],
        [["host (in process)", f"{host_t.best:.3f}", f"{len(texts) / host_t.best:,.0f}", "Tokenizer.encode per line"],
         ["board (one exec)", f"{board_s:.3f}", f"{len(texts) / board_s:,.0f}", "exec + load + encode + SSH"],
         ["board startup only", f"{startup:.3f}", "", "same exec, no texts (load under qemu)"],
         ["board minus startup", f"{board_s - startup:.3f}", f"{len(texts) / max(board_s - startup, 1e-9):,.0f}",
          ""]])
    print(f"\nratio board / host: {board_s / host_t.best:.1f}x (encode only: {(board_s - startup) / host_t.best:.1f}x)")
    print(f"ids identical on host and board: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
