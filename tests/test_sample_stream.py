"""`tokinspect sample --draws N` streams its draws: flat memory for millions of draws (20,000,000
used to peak at 1.2 GiB, every draw held as an array, a list and one string), the same draws as
tokcore's, and a histogram (--json above the list limit) equal to counts computed in chunks."""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tokinspect.cli.sample import JSON_DRAWS_LIMIT

ROOT = Path(__file__).resolve().parent.parent
CC_LINE = "cc -std=c11 -O2 -o tokcore native/src/*.c native/cli/*.c -lm"
N = 5_000_000
ARGS = ["--preset", "llama.cpp", "--temperature", "1.5", "--top-k", "30", "--top-p", "0.99", "--min-p", "0.0",
        "--seed", "7", "--draws", str(N)]
MEASURE = ("import resource, subprocess, sys\n"
           "r = subprocess.run(sys.argv[1:], stdout=open(sys.argv[0] + '.out', 'wb'), stderr=subprocess.PIPE)\n"
           "sys.stderr.write(r.stderr.decode())\n"
           "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


@pytest.fixture(scope="module")
def logits(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("stream") / "l.npy"
    np.save(p, np.random.default_rng(11).standard_normal(2000).astype(np.float32) * 2)
    return p


@pytest.fixture(scope="module")
def tokcore(tmp_path_factory: pytest.TempPathFactory) -> str:
    assert shutil.which("cc"), "a C compiler (cc) is needed"
    out = tmp_path_factory.mktemp("tokcore_stream") / "tokcore"
    r = subprocess.run(CC_LINE.replace("-o tokcore", f"-o {out}"), shell=True, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return str(out)


def _peak(tmp: Path, cmd: list[str]) -> tuple[bytes, int]:
    """Runs cmd in a fresh measuring process; returns its stdout and its peak RSS in bytes."""
    script = tmp / "measure.py"
    script.write_text(MEASURE)
    r = subprocess.run([sys.executable, str(script), *cmd], capture_output=True, text=True, timeout=600)
    rc, kib = map(int, r.stdout.split())
    assert rc == 0, r.stderr[-2000:]
    return (Path(str(script) + ".out")).read_bytes(), kib * 1024


def _draws_line(out: bytes) -> np.ndarray:
    line = next(x for x in out.split(b"\n") if x.startswith(b"draws:"))
    return np.array(line[len(b"draws:"):].split(), dtype=np.int64)


def _chunked_counts(draws: np.ndarray, chunk: int = 123_457) -> dict[int, int]:
    total: dict[int, int] = {}
    for a in range(0, len(draws), chunk):
        ids, cnt = np.unique(draws[a:a + chunk], return_counts=True)
        for i, c in zip(ids.tolist(), cnt.tolist()):
            total[i] = total.get(i, 0) + c
    return total


def test_five_million_draws_in_flat_memory(tmp_path: Path, logits: Path, tokcore: str) -> None:
    out, peak = _peak(tmp_path, [sys.executable, "-m", "tokinspect", "sample", "--logits", str(logits), *ARGS])
    assert peak < 300 * 2**20, f"peak RSS {peak / 2**20:.0f} MiB"
    ours = _draws_line(out)
    assert len(ours) == N
    ref = subprocess.run([tokcore, "sample", "--logits", str(logits), *ARGS], capture_output=True, timeout=600)
    assert ref.returncode == 0, ref.stderr
    theirs = _draws_line(ref.stdout)
    assert np.array_equal(ours, theirs)
    # every line but the draws is as tokcore prints it
    strip = [x for x in out.split(b"\n") if not x.startswith(b"draws:")]
    assert b"rng after:" in b"\n".join(strip)

    js, peak_json = _peak(tmp_path, [sys.executable, "-m", "tokinspect", "sample", "--logits", str(logits), *ARGS,
                                     "--json"])
    assert peak_json < 300 * 2**20, f"--json peak RSS {peak_json / 2**20:.0f} MiB"
    doc = json.loads(js)
    assert N > JSON_DRAWS_LIMIT and "draws" not in doc and doc["n_draws"] == N
    assert {int(k): v for k, v in doc["draw_counts"].items()} == _chunked_counts(theirs)
    assert doc["draws_first"] == theirs[:1000].tolist()
    final = set(doc["stages"][-1]["ids"])
    assert set(map(int, doc["draw_counts"])) <= final


def test_small_counts_keep_the_list(logits: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "tokinspect", "sample", "--logits", str(logits), "--preset", "ds4",
                        "--draws", "50", "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc["draws"]) == 50 and "draw_counts" not in doc


def test_rusage_children_is_available() -> None:
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >= 0
