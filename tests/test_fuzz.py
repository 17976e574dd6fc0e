"""The libFuzzer harnesses of tests/native/fuzz, in the test command.

Every harness (tests/native/fuzz/fuzz_*.c) is built with clang's
-fsanitize=fuzzer,address,undefined (tests/native/fuzz/build.sh), replayed
on its crash regressions (tests/native/fuzz/regressions/<harness>/: every
crash found so far, fixed) and then fuzzed for a bounded time from its seed
corpus (tests/native/fuzz/corpus/<harness>/, copied: the committed corpus is
not changed) with its dictionary. Harnesses run side by side, one per core.
A crash fails the test with the reproducer's path (kept after the run) and
the sanitizer report.

TOKINSPECT_FUZZ_SECONDS sets the time per harness (default 30). clang with
libFuzzer is required (tests/run.sh installs it). Longer local runs:
tests/native/fuzz/run_long.sh SECONDS.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FUZZ = REPO / "tests" / "native" / "fuzz"
HARNESSES = sorted(p.stem.removeprefix("fuzz_") for p in FUZZ.glob("fuzz_*.c"))
# harnesses with recorded crash inputs (each fixed), replayed every run
WITH_REGRESSIONS = [h for h in HARNESSES
                    if (FUZZ / "regressions" / h).is_dir() and any((FUZZ / "regressions" / h).iterdir())]
SECONDS = int(os.environ.get("TOKINSPECT_FUZZ_SECONDS", "30"))


def _clang() -> str | None:
    for name in (os.environ.get("CLANG"), "clang", "clang-16", "clang-15", "clang-14"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


@pytest.fixture(scope="session")
def fuzz_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    clang = _clang()
    assert clang is not None, "clang with libFuzzer is needed: tests/run.sh installs it"
    out = tmp_path_factory.mktemp("fuzz_bin")
    res = subprocess.run(["bash", str(FUZZ / "build.sh"), str(out)], capture_output=True, text=True,
                         env=dict(os.environ, CLANG=clang), timeout=900)
    assert res.returncode == 0, f"fuzz build failed:\n{res.stdout[-3000:]}\n{res.stderr[-5000:]}"
    return out


def _fuzz_one(binary: Path, harness: str, work: Path) -> dict:
    corpus = work / "corpus"
    shutil.copytree(FUZZ / "corpus" / harness, corpus)
    artifacts = work / "artifacts"
    artifacts.mkdir()
    # subtle: libFuzzer's RSS limit reads its peak RSS (getrusage), and a child exec'd from this process
    # starts with this process's peak (Linux keeps the old mm's high-water mark across fork/vfork + exec):
    # the limit is 2 GiB on top of what the test process already peaked at
    inherited = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    cmd = [str(binary), f"-max_total_time={SECONDS}", "-timeout=20", f"-rss_limit_mb={2048 + inherited}",
           "-malloc_limit_mb=2048", "-print_final_stats=1",
           f"-artifact_prefix={artifacts}/", str(corpus)]
    d = FUZZ / "dict" / f"{harness}.dict"
    if d.exists():
        cmd.insert(1, f"-dict={d}")
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=SECONDS + 300,
                         env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1"))
    return {"rc": res.returncode, "log": res.stderr, "secs": time.monotonic() - t0,
            "artifacts": sorted(str(p) for p in artifacts.iterdir())}


@pytest.fixture(scope="session")
def fuzz_runs(fuzz_bin: Path) -> dict[str, dict]:
    """All harnesses fuzzed at once, one per core."""
    base = Path(tempfile.mkdtemp(prefix="tokinspect-fuzz-"))   # kept: reproducers must outlive the run
    jobs = max(1, min(len(HARNESSES), os.cpu_count() or 2))
    with ThreadPoolExecutor(jobs) as pool:
        futs = {h: pool.submit(_fuzz_one, fuzz_bin / f"fuzz_{h}", h, base / h) for h in HARNESSES}
        return {h: f.result() for h, f in futs.items()}


def test_every_harness_has_seeds_and_is_built() -> None:
    assert len(HARNESSES) >= 9
    for h in HARNESSES:
        assert any((FUZZ / "corpus" / h).iterdir()), f"no seeds for {h}"


@pytest.mark.parametrize("harness", WITH_REGRESSIONS)
def test_crash_regressions(harness: str, fuzz_bin: Path) -> None:
    """Every crash found so far (each fixed) replays cleanly."""
    cases = sorted((FUZZ / "regressions" / harness).glob("*"))
    assert cases
    res = subprocess.run([str(fuzz_bin / f"fuzz_{harness}"), *map(str, cases)], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-6000:]


@pytest.mark.parametrize("harness", HARNESSES)
def test_fuzz(harness: str, fuzz_runs: dict[str, dict]) -> None:
    r = fuzz_runs[harness]
    stats = [ln for ln in r["log"].splitlines() if ln.startswith(("#", "stat::number_of_executed_units"))]
    print(f"{harness}: {r['secs']:.0f} s; {stats[-1] if stats else ''}")
    if r["rc"] != 0:
        pytest.fail(f"fuzz_{harness} failed (exit {r['rc']}); reproducer(s): {r['artifacts'] or 'none written'}\n"
                    f"replay: tests/native/fuzz/build.sh DIR && DIR/fuzz_{harness} REPRODUCER\n"
                    f"{r['log'][-6000:]}")
