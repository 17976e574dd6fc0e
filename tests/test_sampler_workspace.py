"""The sampler's reused workspace and its fast display arithmetic (core: no data files).

A caller-owned workspace is reused by every run of a thread: a run on it must give exactly what a
run on a fresh workspace gives, whatever ran before (larger and smaller rows, every preset, ties,
-inf masks, NaN, k >= vocab, p = 1, T = 0), and it must stop growing once warm (no allocation per
run). The display probabilities and entropies (inline exp/log2, the kept-subset shortcut of
kestrel's stages) are checked against numpy's float64 softmax and -sum(p log2 p); the per-stage
top N and kept flags of a light run against numpy on the full stages.
"""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import pytest

from tokinspect import _tokcore
from tokinspect.sampling import PRESETS, SEMANTICS, STAGES, SamplerSettings, run_stages
from tokinspect.sampling.sampler import LIGHT_MAX

ORDER = ",".join(STAGES)


def _raw(x: np.ndarray, s: SamplerSettings, ws: object, top_n: int = 0) -> dict:
    order = ORDER if s.preset == "custom" else ""
    sem = "top_p=kestrel,min_p=ds4" if s.preset == "custom" else ""
    return _tokcore.sampler_run(x, s.preset, s.temperature, s.top_k, s.top_p, s.min_p, s.seed, order, sem, 3, 0,
                                None, ws, top_n)


def _rows(rng: np.random.Generator) -> list[np.ndarray]:
    """Rows that stress the stage rules: ties, -inf masks, NaN, +inf, one value, sizes up and down."""
    rows = [rng.normal(size=5000).astype(np.float32) * 3,
            np.round(rng.normal(size=3000) * 2).astype(np.float32),            # many exact ties
            np.zeros(700, dtype=np.float32),                                    # a row full of ties
            rng.normal(size=20000).astype(np.float32),
            np.array([1.5], dtype=np.float32)]
    masked = rng.normal(size=4000).astype(np.float32)
    masked[rng.random(4000) < 0.9] = -np.inf                                   # a -inf mask (grammar)
    rows.append(masked)
    odd = rng.normal(size=1000).astype(np.float32)
    odd[[3, 10, 500]] = [np.nan, np.inf, -np.inf]
    rows.append(odd)
    return rows


SETTINGS = [SamplerSettings(temperature=0.8, top_k=40, top_p=0.95, min_p=0.05),
            SamplerSettings(temperature=0.0, top_k=0, top_p=1.0, min_p=0.0),       # greedy, everything off
            SamplerSettings(temperature=1.3, top_k=10**6, top_p=1.0, min_p=0.0),   # k >= vocab, p = 1
            SamplerSettings(temperature=0.5, top_k=0, top_p=0.5, min_p=0.2),
            SamplerSettings(temperature=2.0, top_k=1, top_p=0.01, min_p=0.9)]


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k] == b[k], k


def test_reused_workspace_equals_fresh_runs() -> None:
    rng = np.random.default_rng(7)
    ws = _tokcore.sampler_workspace(64)          # too small on purpose: it grows
    checked = 0
    for x in _rows(rng):
        for base in SETTINGS:
            for preset in PRESETS:
                s = replace(base, preset=preset, seed=int(rng.integers(1, 2**31)))
                if preset in ("hf", "custom") and not (np.isfinite(x) | (x == np.inf)).any():
                    continue
                _same(_raw(x, s, ws, 8), _raw(x, s, None, 8))
                checked += 1
    assert checked > 150


def test_workspace_stops_growing() -> None:
    """Once every chain has run, the workspace holds still: no run allocates (a growth shows in its size)."""
    x = np.random.default_rng(1).normal(size=151_936).astype(np.float32)
    ws = _tokcore.sampler_workspace(x.size)
    runs = [replace(SamplerSettings(), preset=list(PRESETS)[i % len(PRESETS)], temperature=0.3 + 0.1 * i,
                    top_k=0 if i % 3 == 0 else 40, top_p=1.0 if i % 4 == 0 else 0.9) for i in range(20)]
    for s in runs:                                # warm: each chain once (a growth folds in at the next run)
        _raw(x, s, ws)
    _raw(x, runs[0], ws)
    held = _tokcore.sampler_workspace_bytes(ws)
    assert held < 40 * 151_936 * 8                # a few full-vocabulary arrays, not one per run
    for s in runs:
        _raw(x, s, ws)
        assert _tokcore.sampler_workspace_bytes(ws) == held


def test_one_workspace_two_threads() -> None:
    """Two threads on one workspace: the second run takes its own, both results are right."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=50_000).astype(np.float32)
    ws = _tokcore.sampler_workspace(x.size)
    s = [replace(SamplerSettings(), preset=p) for p in ("kestrel", "hf")]
    want = [_raw(x, v, None, 16) for v in s]
    bad: list[str] = []

    def run(k: int) -> None:
        for _ in range(30):
            if _raw(x, s[k], ws, 16) != want[k]:
                bad.append(s[k].preset)

    threads = [threading.Thread(target=run, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


def _softmax(v: np.ndarray) -> np.ndarray:
    e = np.exp(v - v.max())
    return e / e.sum()


def _entropy(p: np.ndarray) -> float:
    q = p[p > 0]
    return float(-(q * np.log2(q)).sum())


@pytest.mark.parametrize("preset", ["hf", "custom"])
def test_display_probs_of_logit_stages(preset: str) -> None:
    """The input and temperature stages of hf/custom are softmaxes of the (tempered) logits in double."""
    rng = np.random.default_rng(11)
    for scale in (0.1, 3.0, 40.0):
        x = (rng.normal(size=30_000) * scale).astype(np.float32)
        for t in (0.05, 0.7, 2.5):
            s = SamplerSettings(preset=preset, temperature=t, top_k=0, top_p=1.0, min_p=0.0,
                                order=("temperature",) if preset == "custom" else None)
            r = run_stages(x, s)
            inp, temp = r.stages[0], r.stages[1]
            ref = _softmax(x.astype(np.float64))
            assert np.allclose(inp.probs, ref[inp.ids], rtol=1e-12, atol=1e-300)
            ref_t = _softmax(x.astype(np.float64) / np.float64(np.float32(t)))
            assert np.allclose(temp.probs, ref_t[temp.ids], rtol=1e-12, atol=1e-300)
            for st in (inp, temp):
                assert abs(st.entropy_bits - _entropy(st.probs)) < 1e-9 * max(1.0, st.entropy_bits)


def test_kestrel_stage_probs_and_entropy() -> None:
    """kestrel's stages hold its float softmax renormalized; the ban stage is computed from the
    temperature stage's sums (the kept-subset shortcut): both against numpy on the same floats."""
    rng = np.random.default_rng(5)
    for t in (0.3, 0.8, 1.7):
        x = (rng.normal(size=40_000) * 2.5).astype(np.float32)
        r = run_stages(x, SamplerSettings(preset="kestrel", temperature=t, top_k=0, top_p=1.0, min_p=0.0))
        names = [st.name for st in r.stages]
        assert names[:3] == ["input", "temperature", "ban"]
        temp, ban = r.stages[1], r.stages[2]
        assert ban.ids.tolist() == [i for i in temp.ids.tolist() if i not in (0, 1, 3)]
        w = temp.probs[np.isin(temp.ids, ban.ids)]
        assert np.allclose(ban.probs, w / w.sum(), rtol=1e-12)
        for st in (temp, ban):
            assert abs(st.probs.sum() - 1) < 1e-12
            assert abs(st.entropy_bits - _entropy(st.probs)) < 1e-9 * max(1.0, st.entropy_bits)
        assert abs(ban.kept_mass - w.sum()) < 1e-12


@pytest.mark.parametrize("top_k", [0, 300])
def test_kestrel_cut_stages_renormalize_the_kept(top_k: int) -> None:
    """Each kestrel stage after its softmax keeps some of the previous stage's weights unchanged (ban,
    top-k, min-p, top-p only zero entries): its display is those weights renormalized, its kept mass
    their share and its entropy theirs, whether the stage's pass summed the removed entries itself
    (the shortcut) or the display was recomputed (half the mass or more removed)."""
    rng = np.random.default_rng(17)
    for scale, t, mp, tp in ((2.5, 0.8, 0.05, 0.95), (1.0, 1.3, 0.0, 0.5), (4.0, 0.6, 0.2, 0.99)):
        x = (rng.normal(size=30_000) * scale).astype(np.float32)
        r = run_stages(x, SamplerSettings(preset="kestrel", temperature=t, top_k=top_k, top_p=tp, min_p=mp))
        assert [st.name for st in r.stages] == ["input", "temperature", "ban", "top_k", "min_p", "top_p"]
        for prev, st in zip(r.stages[1:], r.stages[2:]):
            keep = np.isin(prev.ids, st.ids)
            assert prev.ids[keep].tolist() == st.ids.tolist()
            w = prev.probs[keep]
            assert np.allclose(st.probs, w / w.sum(), rtol=1e-11), st.name
            assert abs(st.kept_mass - w.sum()) < 1e-12, st.name
            assert abs(st.entropy_bits - _entropy(st.probs)) < 1e-9 * max(1.0, st.entropy_bits), st.name


@pytest.mark.parametrize("where", ["scattered", "head", "tail"])
def test_kestrel_stages_where_the_softmax_underflows(where: str) -> None:
    """Logits 200 below the rest give expf(...) == 0 in kestrel's float softmax: the temperature
    stage keeps exactly the others (its pass over every id makes its own ids at the first zero), and
    the later stages still hold the previous weights renormalized, with their mass and entropy."""
    rng = np.random.default_rng(23)
    n = 20_000
    x = rng.normal(size=n).astype(np.float32) * 2
    low = {"scattered": rng.random(n) < 0.3, "head": np.arange(n) < 7, "tail": np.arange(n) >= n - 500}[where]
    x[low] -= 200
    r = run_stages(x, SamplerSettings(preset="kestrel", temperature=0.8, top_k=0, top_p=0.9, min_p=0.01))
    temp, ban = r.stages[1], r.stages[2]
    assert temp.ids.tolist() == np.flatnonzero(~low).tolist()
    assert ban.ids.tolist() == [i for i in temp.ids.tolist() if i not in (0, 1, 3)]
    assert abs(temp.probs.sum() - 1) < 1e-12
    assert abs(temp.entropy_bits - _entropy(temp.probs)) < 1e-9 * max(1.0, temp.entropy_bits)
    for prev, st in zip(r.stages[1:], r.stages[2:]):
        keep = np.isin(prev.ids, st.ids)
        assert prev.ids[keep].tolist() == st.ids.tolist(), st.name
        w = prev.probs[keep]
        assert np.allclose(st.probs, w / w.sum(), rtol=1e-11), st.name
        assert abs(st.kept_mass - w.sum()) < 1e-12, st.name
        assert abs(st.entropy_bits - _entropy(st.probs)) < 1e-9 * max(1.0, st.entropy_bits), st.name


def _top(ids: np.ndarray, probs: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.lexsort((ids, -probs))[:n]
    return ids[order], probs[order]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_tops_and_light_runs(preset: str) -> None:
    rng = np.random.default_rng(13)
    rows = [rng.normal(size=9000).astype(np.float32) * 2,
            np.round(rng.normal(size=9000)).astype(np.float32)]             # ties at the N-th place
    for x in rows:
        for base in SETTINGS:
            s = replace(base, preset=preset,
                        semantics={k: SEMANTICS[i % 4] for i, k in enumerate(STAGES)} if preset == "custom" else None)
            full = run_stages(x, s)
            light = run_stages(x, s, top_n=12, light=True)
            assert [st.name for st in light.stages] == [st.name for st in full.stages]
            prev = None
            for k, (f, li) in enumerate(zip(full.stages, light.stages)):
                assert (li.kept, li.kept_mass, li.entropy_bits, li.cutoff) == (f.kept, f.kept_mass, f.entropy_bits,
                                                                              f.cutoff)
                big = f.kept > LIGHT_MAX and k + 1 < len(full.stages)
                assert li.complete == (not big)
                if not big:
                    assert li.ids.tolist() == f.ids.tolist() and li.probs.tolist() == f.probs.tolist()
                ids, probs = _top(f.ids, f.probs, 12)
                assert li.top_ids is not None and li.top_probs is not None and li.kept_of_prev_top is not None
                assert li.top_ids.tolist() == ids.tolist() and li.top_probs.tolist() == probs.tolist()
                if prev is None:
                    assert li.kept_of_prev_top.size == 0
                else:
                    assert li.kept_of_prev_top.tolist() == np.isin(prev, f.ids).tolist()
                prev = ids


def test_light_needs_top_n() -> None:
    with pytest.raises(ValueError, match="top_n"):
        run_stages(np.zeros(4, dtype=np.float32), SamplerSettings(), light=True)


def _desc_order(x: np.ndarray) -> np.ndarray:
    """(logit descending, lower id first among equal ones, NaN after every number, -0 equal to +0)."""
    v = x.astype(np.float64) + 0.0          # -0.0 + 0.0 is +0.0
    nan = np.isnan(v)
    return np.lexsort((np.arange(len(x)), np.where(nan, 0.0, -v), nan))


@pytest.mark.parametrize("kind", ["ties", "zeros", "nonfinite", "normal"])
def test_full_vocabulary_sorts_keep_the_comparator_order(kind: str) -> None:
    """llama.cpp's top-p without top-k and ds4's full-vocabulary path sort every candidate (a radix
    sort now): the order must be the comparator's, ties, signed zeros, NaN and infinities included."""
    rng = np.random.default_rng(17)
    n = 30_000
    if kind == "ties":
        x = np.round(rng.normal(size=n) * 3).astype(np.float32)
    elif kind == "zeros":
        x = rng.choice(np.array([0.0, -0.0, 1.0, -1.0], dtype=np.float32), size=n)
    elif kind == "nonfinite":
        x = rng.normal(size=n).astype(np.float32)
        x[rng.integers(0, n, 300)] = rng.choice(np.array([np.nan, np.inf, -np.inf], dtype=np.float32), size=300)
    else:
        x = (rng.normal(size=n) * 2.5).astype(np.float32)
    want = _desc_order(x)
    # llama.cpp: top_k off, top_p < 1: the top_p stage is a prefix of the full order
    r = run_stages(x, SamplerSettings(preset="llama.cpp", temperature=1.0, top_k=0, top_p=0.999999, min_p=0.0))
    st = next(s for s in r.stages if s.name == "top_p")
    assert st.ids.tolist() == want[: st.kept].tolist()
    # ds4, full vocabulary with top_p < 1: the temperature stage holds every finite candidate, sorted
    r = run_stages(x, SamplerSettings(preset="ds4", temperature=1.0, top_k=0, top_p=0.9, min_p=0.0))
    st = next(s for s in r.stages if s.name == "temperature")
    finite = want[np.isfinite(x[want])]
    assert st.ids.tolist() == finite.tolist()


def test_kept_input_stage_follows_the_row() -> None:
    """The workspace keeps the last row's input stage for the next run on the same row (a slider drag):
    a row changed anywhere (one logit at either end, -0.0 for 0.0, a NaN for a value; the same buffer
    written in place) or of another length is computed afresh: every result equals a fresh workspace's."""
    rng = np.random.default_rng(11)
    x = rng.normal(size=6000).astype(np.float32)
    x[100] = 0.0
    ws = _tokcore.sampler_workspace(x.size)
    s = [replace(SamplerSettings(top_k=50, top_p=0.9), preset=p) for p in PRESETS]
    rows = [x.copy()]
    for i, v in ((0, 9.0), (x.size - 1, 9.0), (100, -0.0), (7, np.nan), (x.size - 1, -np.inf)):
        y = rows[-1].copy()
        y[i] = v
        rows.append(y)
    rows.append(rows[-1][:-1].copy())             # one logit shorter: the same prefix
    buf = x.copy()
    checked = 0
    for y in rows:
        for st in s:
            _same(_raw(y, st, ws, 8), _raw(y, st, None, 8))   # a miss, then hits for the other presets
            checked += 1
        buf[:] = y if y.size == buf.size else buf
        for st in s[:2]:                            # one buffer rewritten in place between runs
            _same(_raw(buf, st, ws, 8), _raw(buf.copy(), st, None, 8))
    assert checked == len(rows) * len(PRESETS)
