"""The UDHR languages report's wall time: 1 and 2 local worker processes, HF datasets (2 map
processes: first run, then served from its cache), Ray (2 tasks), side by side.

Each run is the command a user types, in a fresh interpreter (`tokinspect languages UDHR -o
report.json`), so the time includes start-up, reading and writing; the tables are checked equal
across runs. The reference is HF `tokenizers` 0.23.3 (one thread) encoding the same lines with
the same Qwen3 tokenizer.json, in-process (the encode alone).

    python bench/languages.py [--corpus DIR] [--ray ADDRESS] [--runs 1]

Without --ray it starts a local head on 127.0.0.1 (2 CPUs, an 80 MB object store) and ends its
processes (by id) afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}   # 127.0.0.1 only


def run(args: list[str], env: dict[str, str] | None = None) -> float:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "tokinspect", "languages", *args], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    if r.returncode != 0:
        raise SystemExit(f"failed: tokinspect languages {' '.join(args)}\n{r.stderr[-2000:]}")
    return time.perf_counter() - t


def descendants(root: int) -> list[int]:
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                parent[int(d)] = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += [c for c, pp in parent.items() if pp == p]
    return out


def start_head(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp / "ray-head.log"
    head = subprocess.Popen([str(Path(sys.executable).with_name("ray")), "start", "--head",
                             "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2",
                             "--object-store-memory=80000000", "--include-dashboard=false", "--disable-usage-stats",
                             f"--temp-dir=/tmp/tokinspect-ray-bench-{os.getpid()}", "--block"],
                            env=dict(os.environ, **RAY_ENV), stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    end = time.monotonic() + 120
    while "block forever" not in log.read_text(errors="replace"):
        if time.monotonic() > end or head.poll() is not None:
            raise SystemExit(f"the Ray head did not start:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.5)
    return head, f"127.0.0.1:{port}"


def stop_head(head: subprocess.Popen[bytes]) -> None:
    tree = descendants(head.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in tree:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        time.sleep(2)
    head.wait(timeout=10)


def hf_reference(corpus: Path) -> tuple[float, int, int]:
    """HF tokenizers, one thread: every line of every file (the report's rule), encode only."""
    from tokenizers import Tokenizer

    tok_json = common.qwen3_tokenizer_json()
    if tok_json is None:
        raise SystemExit("needs ../shared/data/qwen3/tokenizer.json (the reference)")
    hf = Tokenizer.from_file(str(tok_json))
    lines = [ln[:-1] if ln.endswith("\r") else ln for f in sorted(corpus.glob("*.txt"))
             for ln in f.read_text(encoding="utf-8").split("\n") if ln not in ("", "\r")]
    t = time.perf_counter()
    n = sum(len(hf.encode(ln, add_special_tokens=False).ids) for ln in lines)
    return time.perf_counter() - t, n, sum(len(ln.encode()) for ln in lines)


def in_process(corpus: Path) -> float:
    """The same report built in this process (no interpreter start-up, nothing written)."""
    from tokinspect.languages.corpus import open_source
    from tokinspect.languages.run import Options, build
    from tokinspect.languages.series import load, make_series

    series = [make_series("qwen3")]
    load(series[0])
    t = time.perf_counter()
    build(open_source(corpus), series, Options())
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(common.shared_data() / "udhr" / "txt"), help="the corpus folder")
    ap.add_argument("--ray", help="a running Ray cluster (default: start a local head)")
    ap.add_argument("--runs", type=int, default=1, help="runs of each case (best is shown)")
    args = ap.parse_args()
    corpus = Path(args.corpus)
    common.print_header("tokinspect languages: the UDHR report's wall time", ["tokinspect", "tokenizers",
                                                                              "datasets", "ray"])
    tmp = Path(tempfile.mkdtemp(prefix="tokinspect-bench-languages-"))
    head = None
    address = args.ray
    if address is None:
        head, address = start_head(tmp)
    cases = [("local, 1 process", ["--workers", "1"], None),
             ("local, 2 processes", ["--workers", "2"], None),
             ("datasets, 2 processes (first run)", ["--engine", "datasets", "--workers", "2", "--cache-dir",
                                                    "{cache}"], None),
             ("datasets, 2 processes (cached)", ["--engine", "datasets", "--workers", "2", "--cache-dir",
                                                 "{cache}"], None),
             ("ray, 2 tasks", ["--ray", address, "--workers", "2"], RAY_ENV)]
    rows, tables = [], []
    try:
        for name, extra, env in cases:
            best = None
            for k in range(args.runs):
                out = tmp / f"{len(rows)}-{k}.json"
                cache = tmp / (f"cache-{k}" if "first" in name else f"cache-{args.runs - 1}")
                t = run([str(corpus), "-o", str(out), *[a.format(cache=cache) for a in extra]], env)
                best = t if best is None else min(best, t)
                tables.append(json.loads(out.read_text(encoding="utf-8"))["languages"])
            rows.append((name, f"{best:.2f} s"))
    finally:
        if head is not None:
            stop_head(head)
    rows.insert(0, ("in-process build, 1 thread (no start-up, no output)", f"{in_process(corpus):.2f} s"))
    same = all(t == tables[0] for t in tables)
    ref_t, ref_n, ref_bytes = hf_reference(corpus)
    langs = len(tables[0])
    tokens = sum(r["tokens"] for r in tables[0])
    common.print_table(["run", "wall time"], rows)
    print(f"\n{langs} languages, {tokens:,} tokens, tables equal across runs: {same}")
    print(f"reference: HF tokenizers 0.23.3, one thread, the same {ref_bytes / 1e6:.2f} MB of lines: "
          f"{ref_t:.2f} s for the encode alone ({ref_bytes / 1e6 / ref_t:.2f} MB/s), {ref_n:,} tokens "
          f"({'equal' if ref_n == tokens else 'NOT equal'} to the report's)")


if __name__ == "__main__":
    main()
