"""Sampler benchmark (not a test): every stage of each preset on 151,936
random-normal logits (the Qwen vocabulary size), median of --runs, in ms:

  C          the native run alone on a reused workspace (every stage's record,
             no Python result), what the issue's "in C" figure means; the same
             row each run, as a slider drag (the workspace keeps its input stage)
  C new row  the same, a different row each run (two rows in turn): the input
             stage is computed afresh (a step of a .npy, another text)
  before     the same figure measured before the workspace (commit 131f893,
             this machine, quiet): fresh arrays per run, libm exp/log per id
  light      the Sampling tab's call: the run, each stage's top 16 and the
             full arrays of the small stages only, one draw
  full       the Python call with every stage's full arrays, one draw
  numpy      a numpy implementation of the same chain (no torch here: the
             transformers LogitsProcessors cannot run on this machine)

    python bench/sampler.py [--runs 30] [--vocab 151936]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from tokinspect import _tokcore  # noqa: E402
from tokinspect.sampling import SamplerSettings, run_stages, sample  # noqa: E402

T, K, P, MINP, SEED = 0.8, 40, 0.95, 0.05, 42
# C ms per run before the workspace (commit 131f893), 151,936 ids, the settings above, quiet machine
REPS = 10   # C runs per timed call
BEFORE_MS = {"ds4": 1.99, "llama.cpp": 1.67, "kestrel": 4.20, "hf": 3.23, "custom": 3.28}


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


def np_topk(ids: np.ndarray, lg: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    if 0 < k < len(lg):
        part = np.argpartition(-lg, k - 1)[:k]
        order = part[np.lexsort((ids[part], -lg[part]))]
        return ids[order], lg[order]
    order = np.lexsort((ids, -lg))
    return ids[order], lg[order]


def np_topp(ids: np.ndarray, lg: np.ndarray, p: float) -> tuple[np.ndarray, np.ndarray]:
    cum = np.cumsum(_softmax(lg))
    n = min(int(np.searchsorted(cum, p)) + 1, len(lg))
    return ids[:n], lg[:n]


def np_minp(ids: np.ndarray, lg: np.ndarray, m: float) -> tuple[np.ndarray, np.ndarray]:
    keep = lg >= lg.max() + np.log(m)
    return ids[keep], lg[keep]


def numpy_chain(order: tuple[str, ...]) -> Callable[[np.ndarray, np.random.Generator], int]:
    def run(x: np.ndarray, rng: np.random.Generator) -> int:
        _softmax(x.astype(np.float64))  # the input stage
        ids = np.arange(len(x), dtype=np.int32)
        lg = x.astype(np.float64)
        for st in order:
            if st == "temperature":
                lg = lg / T
                _softmax(lg)
            elif st == "top_k":
                ids, lg = np_topk(ids, lg, K)
            elif st == "top_p":
                ids, lg = np_topp(ids, lg, P)
            elif st == "min_p":
                ids, lg = np_minp(ids, lg, MINP)
        p = _softmax(lg)
        return int(ids[int(np.searchsorted(np.cumsum(p), rng.random() * p.sum()))]) if len(ids) else -1
    return run


ORDERS = {
    "ds4": ("top_k", "temperature", "min_p", "top_p"),
    "llama.cpp": ("top_k", "top_p", "min_p", "temperature"),
    "kestrel": ("temperature", "top_k", "min_p", "top_p"),
    "hf": ("temperature", "top_k", "top_p", "min_p"),
    "custom": ("temperature", "top_k", "top_p", "min_p"),
}


def median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--vocab", type=int, default=151936)
    args = ap.parse_args()
    common.print_header("sampler: all stages, one row of logits", ["tokinspect", "numpy"])
    x = np.random.default_rng(0).standard_normal(args.vocab).astype(np.float32)
    x2 = np.random.default_rng(1).standard_normal(args.vocab).astype(np.float32)
    print(f"logits    {args.vocab} random-normal float32; T={T} top_k={K} top_p={P} min_p={MINP}; "
          f"median of {args.runs} runs\n")
    rows = []
    ws = _tokcore.sampler_workspace(args.vocab)
    for preset, order in ORDERS.items():
        order_s = ",".join(("temperature", "top_k", "top_p", "min_p")) if preset == "custom" else ""
        c = median_ms(lambda p=preset, o=order_s: _tokcore.sampler_repeat(x, p, T, K, P, MINP, SEED, o, "", REPS, ws),
                      args.runs) / REPS
        def cold(p: str = preset, o: str = order_s) -> None:
            for _ in range(REPS // 2):
                for row in (x, x2):
                    _tokcore.sampler_repeat(row, p, T, K, P, MINP, SEED, o, "", 1, ws)
        c_new = median_ms(cold, args.runs) / (2 * (REPS // 2))
        st = SamplerSettings(preset=preset, temperature=T, top_k=K, top_p=P, min_p=MINP, seed=SEED)
        light = median_ms(lambda s_=st: run_stages(x, s_, top_n=16, light=True), args.runs)
        full = median_ms(lambda s_=st: sample(x, s_, 1), args.runs)
        rng = np.random.default_rng(SEED)
        chain = numpy_chain(order)
        n = median_ms(lambda ch=chain, g=rng: ch(x, g), args.runs)
        rows.append([preset, " > ".join(order), f"{c:.2f}", f"{c_new:.2f}", f"{BEFORE_MS[preset]:.2f}",
                     f"{light:.2f}", f"{full:.2f}", f"{n:.2f}", f"{n / c:.1f}"])
    common.print_table(["preset", "stages", "C ms", "C new row", "before", "light ms", "full ms", "numpy ms",
                        "numpy / C"], rows, left=2)
    print(f"\nC ms: every stage's record (the input stage holds all {args.vocab} candidates), on one reused "
          f"workspace ({_tokcore.sampler_workspace_bytes(ws) / 2**20:.1f} MiB).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
