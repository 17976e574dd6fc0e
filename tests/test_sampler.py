"""The sampler (native/src/sampler.c through tokinspect.sampling): RNG known
answers computed independently here (xorshift64* in Python, glibc rand() via
ctypes, libstdc++'s uniform_real_distribution<double> from a g++-built
oracle), per-preset rules on hand-built logits, and a seeded chi-square test
of 100,000 draws against the final probabilities."""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tokinspect import _tokcore
from tokinspect.sampling import PRESETS, SamplerSettings, chi_square, draw, empirical, run_stages

M64 = (1 << 64) - 1


def xorshift64s(seed: int, n: int) -> list[int]:
    x, out = seed, []
    for _ in range(n):
        if x == 0:
            x = 0x9E3779B97F4A7C15
        x ^= x >> 12
        x ^= (x << 25) & M64
        x ^= x >> 27
        out.append((x * 0x2545F4914F6CDD1D) & M64)
    return out


@pytest.mark.parametrize("seed", [0, 1, 42, 2**63, M64])
def test_xorshift_known_answers(seed: int) -> None:
    assert _tokcore.rng_outputs("xorshift64*", seed, 500) == xorshift64s(seed, 500)
    floats = _tokcore.rng_outputs("xorshift64*-f32", seed, 50)
    assert floats == [float(np.float32((v >> 40) & 0xFFFFFF) / np.float32(16777216.0)) for v in xorshift64s(seed, 50)]


def test_mt19937_known_answers() -> None:
    out = _tokcore.rng_outputs("mt19937", 5489, 10000)
    assert out[0] == 3499211612
    assert out[-1] == 4123659995


def test_canonical_matches_libstdcxx(tmp_path: Path) -> None:
    gxx = shutil.which("g++")
    assert gxx, "g++ is needed for the libstdc++ oracle"
    src = tmp_path / "o.cpp"
    src.write_text("#include <random>\n#include <cstdio>\n#include <cstdlib>\n"
                   "int main(int c, char **v) { std::mt19937 g((unsigned)std::strtoul(v[1], 0, 10));"
                   " std::uniform_real_distribution<double> d(0.0f, 1.0f);"
                   " for (int i = 0; i < 2000; i++) std::printf(\"%a\\n\", d(g)); }\n")
    exe = tmp_path / "o"
    subprocess.run([gxx, "-O1", "-o", str(exe), str(src)], check=True)
    for seed in (0, 5, 42, 5489, 4294967295):
        want = [float.fromhex(x) for x in subprocess.run([str(exe), str(seed)], capture_output=True, text=True,
                                                          check=True).stdout.split()]
        assert _tokcore.rng_outputs("canonical", seed, 2000) == want


def test_glibc_rand_known_answers() -> None:
    assert _tokcore.rng_outputs("glibc", 1, 3) == [1804289383, 846930886, 1681692777]
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    for seed in (0, 1, 7, 2**31 - 1, 2**31, 2**32 - 1):
        libc.srand(ctypes.c_uint(seed))
        want = [libc.rand() for _ in range(1000)]
        assert _tokcore.rng_outputs("glibc", seed, 1000) == want


# ---- per-preset rules --------------------------------------------------------------

def S(preset: str, **kw: object) -> SamplerSettings:
    base: dict[str, object] = {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 0.0, "seed": 1}
    base.update(kw)
    return SamplerSettings(preset=preset, **base)  # type: ignore[arg-type]


def test_stage_names_follow_presets() -> None:
    x = np.linspace(-2, 2, 50).astype(np.float32)
    for name, info in PRESETS.items():
        res = run_stages(x, S(name, top_k=10, top_p=0.9, min_p=0.05))
        assert [s.name for s in res.stages] == ["input", *info.order]
        assert res.stages[0].kept == 50


def test_ds4_ties_greedy_and_caps() -> None:
    x = np.array([1, 5, 2, 5, np.nan, -np.inf], dtype=np.float32)
    res = run_stages(x, S("ds4", temperature=0.0))
    assert res.greedy and res.stages[-1].ids.tolist() == [1]
    d = draw(x, S("ds4", temperature=0.0), 5)
    assert d.ids.tolist() == [1] * 5 and d.rng_before == d.rng_after
    r = run_stages(x, S("ds4", top_k=2))
    assert r.stages[1].ids.tolist() == [1, 3]
    big = np.random.default_rng(0).standard_normal(3000).astype(np.float32)
    r = run_stages(big, S("ds4", top_k=5000))
    assert r.stages[1].kept == 1024 and "capped from 5000 at 1024" in r.stages[1].cutoff
    r = run_stages(big[:20], S("ds4", top_k=100))
    assert r.stages[1].kept == 20
    # top_p = 0 is "off" in ds4 (treated as 1)
    r = run_stages(big[:20], S("ds4", top_k=10, top_p=0.0))
    assert r.stages[-1].kept == 10 and any("treated as 1" in n for n in r.notes)


def test_ds4_min_p_then_top_p() -> None:
    x = np.log(np.array([0.5, 0.3, 0.15, 0.05], dtype=np.float64)).astype(np.float32)
    r = run_stages(x, S("ds4", top_k=4, min_p=0.2, top_p=0.7))
    assert r.stages[3].ids.tolist() == [0, 1, 2]          # 0.05 < 0.2 * 0.5
    assert r.stages[4].ids.tolist() == [0, 1]             # 0.5 + 0.3 >= 0.7
    assert r.stages[4].kept_mass == pytest.approx(0.8 / 0.95)


def test_llama_order_and_rng_at_t0() -> None:
    x = np.array([1, 3, 2, 3, 0, -1], dtype=np.float32)
    d = draw(x, S("llama.cpp", temperature=0.0), 3)
    assert d.ids.tolist() == [1, 1, 1] and d.rng_after.endswith("consumed: 6")
    d = draw(x, S("llama.cpp", top_k=1), 3)
    assert d.rng_after.endswith("consumed: 0")
    # min-p before temperature: cut on the untempered logits (2 < 3 + ln 0.5) even at T = 10
    r = run_stages(x, S("llama.cpp", temperature=10.0, min_p=0.5))
    assert sorted(r.stages[-1].ids.tolist()) == [1, 3]
    # top-k above the vocabulary is the vocabulary
    assert run_stages(x, S("llama.cpp", top_k=100)).stages[1].kept == 6


def test_kestrel_rules() -> None:
    x = np.array([9, 8, 1, 7, 2, 2], dtype=np.float32)
    assert draw(x, S("kestrel", top_p=0.0), 2).ids.tolist() == [0, 0]
    assert draw(x, S("kestrel", temperature=-1.0), 1).rng_after.endswith("calls: 0")
    r = run_stages(x, S("kestrel"))
    assert sorted(r.stages[-1].ids.tolist()) == [2, 4, 5]      # 0, 1, 3 banned
    d = draw(x, S("kestrel"), 200)
    assert set(d.ids.tolist()) <= {2, 4, 5} and d.rng_after.endswith("calls: 200")


def test_hf_rules() -> None:
    x = np.array([1, 3, 2, 2, 2, 0], dtype=np.float32)
    assert run_stages(x, S("hf", top_k=2)).stages[2].kept == 4   # ties at the k-th value stay
    r = run_stages(x, S("hf", top_p=0.0))
    assert r.stages[3].ids.tolist() == [1]
    assert any("not reproducible" in n for n in r.notes)


def test_hf_top_p_ties_follow_stable_ascending_sort() -> None:
    # transformers TopPLogitsWarper: torch.sort ascending keeps index order among equal
    # scores, so the cumulative sum meets the lower ids first. Logits [3, 1, 1, 1]:
    # p = e^3/(e^3+3e), e/(e^3+3e) x3 = 0.7112, 0.0963 x3; ascending order ids 1, 2, 3, 0
    # with cumulative 0.0963, 0.1925, 0.2888, 1; top_p = 0.8 removes cumulative <= 0.2:
    # ids 1 and 2. The scores keep their vocabulary order: [0, 3].
    x = np.array([3, 1, 1, 1], dtype=np.float32)
    r = run_stages(x, S("hf", temperature=1.0, top_k=0, top_p=0.8, min_p=0.0))
    assert r.stages[3].name == "top_p" and r.stages[3].ids.tolist() == [0, 3]
    # two equal maxima and top_p = 0.3: ascending [id 0, id 1], cumulative 0.5, 1.0;
    # 0.5 <= 0.7 removes id 0; min_tokens_to_keep keeps the last sorted entry, id 1
    y = np.array([5, 5], dtype=np.float32)
    r = run_stages(y, S("hf", temperature=1.0, top_k=0, top_p=0.3, min_p=0.0))
    assert r.stages[3].ids.tolist() == [1]
    assert draw(y, S("hf", temperature=1.0, top_k=0, top_p=0.3, min_p=0.0), 4).ids.tolist() == [1] * 4


def test_hf_invalid_settings_are_noted() -> None:
    x = np.array([3, 1, 2], dtype=np.float32)
    r = run_stages(x, S("hf", temperature=0.0))
    assert r.greedy and r.stages[-1].ids.tolist() == [0]
    assert any("raises ValueError for temperature <= 0" in n for n in r.notes)
    assert any("ValueError for top_k < 0" in n for n in run_stages(x, S("hf", top_k=-1)).notes)


def test_seeding_notes() -> None:
    x = np.array([9, 8, 1, 7, 2, 2], dtype=np.float32)
    # kestrel-llm's main() never calls srand: rand() starts as after srand(1), which glibc
    # also uses for srand(0), so seeds 0 and 1 draw alike
    r = run_stages(x, S("kestrel"))
    assert any("never calls srand" in n for n in r.notes)
    assert draw(x, S("kestrel", seed=0), 50).ids.tolist() == draw(x, S("kestrel", seed=1), 50).ids.tolist()
    # ds4's CLI samples with top_k = 0; a top_k > 0 run says so
    assert any("top_k = 0" in n for n in run_stages(x, S("ds4", top_k=3)).notes)
    assert not any("top_k = 0" in n for n in run_stages(x, S("ds4", top_k=0)).notes)
    # the ds4 CLI seeds the xorshift64* state with the seed itself: the first draw over
    # [0, 0] (two equal weights 1, sum 2) is id 0 iff u * 2 - 1 <= 0, u = top 24 bits / 2^24
    z = np.zeros(2, dtype=np.float32)
    for seed in (1, 42, 2**40 + 3):
        u = (xorshift64s(seed, 1)[0] >> 40) / 2**24
        want = 0 if np.float32(u) * np.float32(2) - np.float32(1) <= 0 else 1
        assert draw(z, S("ds4", top_k=0, top_p=1.0, min_p=0.0, seed=seed), 1).ids.tolist() == [want]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_all_equal_single_finite_nonfinite(preset: str) -> None:
    eq = np.full(16, 0.5, dtype=np.float32)
    r = run_stages(eq, S(preset, temperature=0.7))
    final = r.stages[-1]
    if preset != "kestrel":
        assert final.kept == 16 and np.allclose(final.probs, 1 / 16)
    one = np.array([-np.inf, np.nan, 2.0, -np.inf, -np.inf], dtype=np.float32)
    if preset != "kestrel":   # kestrel runs its float arithmetic on NaN/inf as is
        assert set(draw(one, S(preset, top_k=3, top_p=0.5), 20).ids.tolist()) == {2}
    assert any("NaN" in n for n in run_stages(one, S(preset)).notes)


def test_custom_order_and_semantics() -> None:
    x = np.array([1, 3, 2, 2, 2, 0], dtype=np.float32)
    s = SamplerSettings(preset="custom", temperature=1.0, top_k=2, top_p=1.0, min_p=0.0,
                        order=("min_p", "top_k"), semantics={"top_k": "hf"})
    r = run_stages(x, s)
    assert [st.name for st in r.stages] == ["input", "min_p", "top_k"] and r.stages[-1].kept == 4
    with pytest.raises(ValueError):
        run_stages(x, SamplerSettings(preset="custom", order=("top_k", "top_k")))
    with pytest.raises(ValueError):
        run_stages(x, SamplerSettings(preset="nope"))


# ---- empirical ------------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["ds4", "llama.cpp", "kestrel", "hf"])
def test_chi_square_100k_draws(preset: str) -> None:
    x = np.random.default_rng(1234).standard_normal(2000).astype(np.float32) * 2
    s = S(preset, temperature=0.9, top_k=30, top_p=0.9, min_p=0.02, seed=2024)
    final = run_stages(x, s).stages[-1]
    d = draw(x, s, 100_000)
    counts = empirical(d.ids, final)
    stat, dof, p = chi_square(counts, final.probs)
    assert dof == final.kept - 1 > 5
    assert p > 1e-4, (stat, dof, p)
    # the test can fail: a distribution that is not the final one is rejected
    wrong = np.roll(final.probs, 1)
    assert chi_square(counts, wrong)[2] < 1e-6


def test_chi_square_p_value() -> None:
    # known values of the chi-square survival function
    assert chi_square(np.array([50, 50]), np.array([0.5, 0.5]))[2] == pytest.approx(1.0)
    stat, dof, p = chi_square(np.array([60, 40]), np.array([0.5, 0.5]))
    assert (stat, dof) == (4.0, 1) and p == pytest.approx(0.0455002638963, rel=1e-9)
    stat, dof, p = chi_square(np.array([30, 20, 50]), np.array([0.25, 0.25, 0.5]))
    assert p == pytest.approx(math.exp(-stat / 2), rel=1e-9)   # dof 2: Q = exp(-x/2)
