"""The C unit tests of native/ (tests/native/test_*.c), built twice: with
-Werror at -O2, and with AddressSanitizer + UndefinedBehaviorSanitizer."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "native" / "src"

UNITS = {
    # test file -> engine sources it links (test_json.c includes json.c itself)
    "test_json.c": ["common.c"],
    "test_unicode.c": ["*"],   # normalize.c reaches the BERT and byte-level steps: the whole engine
    "test_regex.c": ["regex.c", "common.c", "unicode.c"],
    "test_greedy.c": ["greedy.c", "common.c"],
    "test_kestrel.c": ["kestrel.c", "greedy.c", "common.c"],
    "test_vocabbin.c": ["*"],   # compiles tokenizers: the whole engine
    "test_sampler.c": ["sampler.c", "logits.c", "platform.c", "common.c"],
    "test_platform_hint.c": ["platform.c", "common.c"],
    "test_batch_cut.c": ["*"],   # loads a small tokenizer.json: the whole engine
    # test_fastpat*.c include fastpat.c itself (its static block_starts)
    "test_fastpat.c": ["regex.c", "unicode.c", "common.c"],
    "test_fastpat_portable.c": ["regex.c", "unicode.c", "common.c"],
}

FLAGS = {
    "plain": ["-O2", "-Wall", "-Wextra", "-Werror"],
    "sanitized": ["-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"],
}


@pytest.mark.parametrize("flavor", sorted(FLAGS))
@pytest.mark.parametrize("unit", sorted(UNITS))
def test_c_unit(unit: str, flavor: str, tmp_path: Path) -> None:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler is needed"
    exe = tmp_path / unit.replace(".c", "")
    sources = sorted(str(p) for p in SRC.glob("*.c")) if UNITS[unit] == ["*"] else [str(SRC / s) for s in UNITS[unit]]
    cmd = [cc, "-std=c11", *FLAGS[flavor], f"-I{SRC}", str(REPO / "tests" / "native" / unit), *sources, "-lm",
           "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1", UBSAN_OPTIONS="print_stacktrace=1")
    args = [str(exe)]
    if unit == "test_json.c":
        qwen = REPO.parent / "shared" / "data" / "qwen3" / "tokenizer.json"
        if qwen.exists():
            args.append(str(qwen))
    res = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-3000:]
    m = re.search(r"(\d+) passed, (\d+) failed", out)
    assert m and int(m.group(1)) > 0 and m.group(2) == "0", out[-3000:]
