"""ThreadSanitizer over the lazy encoder preparation: tests/native/tsan_prepare.c
(fresh handles, 4 pthreads running tc_prepare + tc_encode_ex for every
encoder at once, through the handle's shared chunk cache; each also ids-only, and through
tc_encode_batch's own native threads) built with -fsanitize=thread against native/src/*.c.
Any TSan report fails the test (before the atomic publication of the
indexes, the driver drew 69 data-race reports).

clang with its runtime (libclang-rt-14-dev) is what tests/run.sh installs;
gcc (libtsan) is used when clang is absent.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _compiler() -> str:
    for cc in ("clang", "clang-14", "gcc"):
        if shutil.which(cc):
            return cc
    raise AssertionError("a C compiler with -fsanitize=thread is needed (tests/run.sh installs clang)")


def test_lazy_prepare_from_threads_is_race_free(tmp_path):
    exe = tmp_path / "tsan_prepare"
    sources = sorted(str(p) for p in (ROOT / "native" / "src").glob("*.c"))
    cmd = [_compiler(), "-std=c11", "-g", "-O1", "-fsanitize=thread", "-Wall", "-Wextra", "-Werror",
           f"-I{ROOT / 'native' / 'src'}", f"-I{ROOT / 'tests' / 'native' / 'fuzz'}",
           "-o", str(exe), str(ROOT / "tests" / "native" / "tsan_prepare.c"), *sources, "-lm", "-pthread"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, f"build failed: {' '.join(cmd)}\n{r.stderr}"
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1")
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600, env=env)
    assert "ThreadSanitizer" not in r.stderr, r.stderr[:20000]
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[:5000])
    assert r.stdout.splitlines() == ["tokenizer.json: 0 wrong", "vocab.bin: 0 wrong",
                                     "tokenizer.json (load cache): 0 wrong"], r.stdout
