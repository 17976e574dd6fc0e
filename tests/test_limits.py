"""Resource limits (native/README.md, "Limits"): inputs that would take
unbounded time or memory end with an error, fast."""

from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tokinspect import Tokenizer
from tokinspect.core.tokenizer import TokenizerError

REPO = Path(__file__).resolve().parents[1]
FAST = 10.0 if os.environ.get("TOKINSPECT_SANITIZED_RUN") else 3.0   # seconds


def _tiny_hf(pattern: str | None = None) -> dict:
    """A small valid tokenizer.json (bytes + a few merges), optionally with a Split regex."""
    from tokinspect.formats.vocab_bin import _mapped
    vocab = {_mapped(bytes([b])): b for b in range(256)}
    vocab["ab"] = 256
    pre = [{"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]
    if pattern is not None:
        pre.insert(0, {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False})
    return {"version": "1.0", "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre}, "post_processor": None,
            "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "vocab": vocab, "merges": [["a", "b"]]}}


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_1gb_file_named_vocab_bin_fails_fast(tmp_path: Path) -> None:
    big = tmp_path / "vocab.bin"
    with open(big, "wb") as fh:       # sparse: nothing is written but a plausible header
        fh.write(struct.pack("<I", 4_000_000) + struct.pack("<IH", 0, 3) + b"abc")
        fh.truncate(1 << 30)
    assert big.stat().st_size == 1 << 30
    before = _peak_rss_mb()
    t0 = time.monotonic()
    with pytest.raises((TokenizerError, ValueError)) as ei:
        Tokenizer.from_file(big)
    assert time.monotonic() - t0 < FAST, "a 1 GB non-vocab.bin must be refused fast"
    assert "vocab.bin" in str(ei.value) or "not a" in str(ei.value)
    assert _peak_rss_mb() - before < 512, "the file must not be read into memory"
    # all zeros (N = 0)
    zeros = tmp_path / "zeros" / "vocab.bin"
    zeros.parent.mkdir()
    with open(zeros, "wb") as fh:
        fh.truncate(1 << 30)
    t0 = time.monotonic()
    with pytest.raises((TokenizerError, ValueError)):
        Tokenizer.from_file(zeros)
    assert time.monotonic() - t0 < FAST


def _run_measured(cmd: list[str]) -> tuple[subprocess.CompletedProcess[str], float]:
    """Runs cmd from a fresh Python and returns its result and the child's peak RSS in MB."""
    wrap = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)")
    res = subprocess.run([sys.executable, "-c", wrap, *cmd], capture_output=True, text=True, timeout=60)
    *msg, rss = res.stderr.rstrip("\n").split("\n")
    res.stderr = "\n".join(msg) + "\n"
    return res, int(rss) / 1024


def test_1gb_file_through_the_cli(tmp_path: Path, tokcore_bin: Path) -> None:
    big = tmp_path / "vocab.bin"
    with open(big, "wb") as fh:
        fh.truncate((1 << 30) + 1)          # just above the CLI's 1 GiB file limit
    res, rss = _run_measured([str(tokcore_bin), "encode", "--tokenizer", str(big), "x"])
    assert res.returncode == 1 and "limit" in res.stderr and rss < 64, (res.stderr, rss)
    with open(big, "r+b") as fh:
        fh.truncate(1 << 30)                # at the limit: refused from its first MiB, never read whole
    res, rss = _run_measured([str(tokcore_bin), "encode", "--tokenizer", str(big), "x"])
    assert res.returncode == 1 and "not a tokenizer file" in res.stderr and "N = 0 at offset 0" in res.stderr, res.stderr
    assert rss < 64, f"a 1 GiB file refused from its head must not be read: peak {rss:.0f} MB"
    # a plausible vocab.bin header, then an entry the head already shows is wrong
    with open(big, "r+b") as fh:
        fh.write(struct.pack("<I", 1000) + struct.pack("<IH", 0, 3) + b"abc" + struct.pack("<IH", 5000, 1) + b"x")
    res, rss = _run_measured([str(tokcore_bin), "encode", "--tokenizer", str(big), "x"])
    assert res.returncode == 1 and "id 5000 >= N = 1000 at entry 1, offset 13" in res.stderr and rss < 64, res.stderr


@pytest.fixture(scope="module")
def tokcore_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tokcore_limits") / "tokcore"
    cmd = f"cc -std=c11 -O2 -o {out} native/src/*.c native/cli/*.c -lm"
    subprocess.run(cmd, shell=True, cwd=REPO, check=True, capture_output=True)
    return out


def test_json_nested_a_million_deep_is_refused_fast(tmp_path: Path, tokcore_bin: Path) -> None:
    deep = "[" * 1_000_000 + "]" * 1_000_000
    p = tmp_path / "tokenizer.json"
    p.write_text('{"version": "1.0", "model": ' + deep + "}")
    t0 = time.monotonic()
    with pytest.raises(TokenizerError) as ei:
        Tokenizer.from_file(p)
    assert time.monotonic() - t0 < FAST
    assert "nest" in str(ei.value).lower() or "depth" in str(ei.value).lower(), str(ei.value)
    # the same as a --jsonl request line: an error reply, the stream goes on
    tj = tmp_path / "tiny.json"
    tj.write_text(json.dumps(_tiny_hf()))
    t0 = time.monotonic()
    res = subprocess.run([str(tokcore_bin), "decode", "--tokenizer", str(tj), "--jsonl"], input=deep + "\n[97]\n",
                         capture_output=True, text=True, timeout=60)
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.returncode == 0 and time.monotonic() - t0 < FAST
    assert "error" in lines[0] and lines[1]["text"] == "a"


def test_catastrophic_regex_ends_with_step_limit_error(tmp_path: Path) -> None:
    p = tmp_path / "tokenizer.json"
    p.write_text(json.dumps(_tiny_hf("(a|aa)+$")))
    tok = Tokenizer.from_file(p)
    assert tok.encode("aaab").ids.tolist()       # fine on short text
    subject = "a" * 5000 + "!"
    t0 = time.monotonic()
    with pytest.raises(Exception) as ei:
        tok.encode(subject)
    elapsed = time.monotonic() - t0
    assert "step limit" in str(ei.value), str(ei.value)
    assert elapsed < 6 * FAST, f"took {elapsed:.1f} s"


def test_regex_step_limit_is_per_byte_not_a_hang(tmp_path: Path) -> None:
    """A long subject that needs little backtracking per byte still works."""
    p = tmp_path / "tokenizer.json"
    p.write_text(json.dumps(_tiny_hf(r"\s+(?!\S)|\s+|[^\s]+")))
    tok = Tokenizer.from_file(p)
    text = ("ab " * 200_000) + " " * 100_000 + "x"
    enc = tok.encode(text)
    assert enc.byte_offsets[-1, 1] == len(text)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_long_tokens_in_a_tiktoken_file_load_in_linear_time(tmp_path: Path) -> None:
    """Merge recovery of one token was quadratic in its length (a scan for
    the lowest-rank pair per step): 10 tokens of 64 KiB added ~10 s to a
    0.1 s load. The extra time must stay of the order of the base load."""
    import base64
    import random

    from conftest import cl100k_tiktoken_path

    src = cl100k_tiktoken_path().read_bytes()
    maxrank = max(int(line.split()[1]) for line in src.splitlines() if line)
    rng = random.Random(5)
    extra = b"".join(base64.b64encode(bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(65536)))
                     + b" %d\n" % (maxrank + 1 + i) for i in range(10))
    base, big = tmp_path / "base.tiktoken", tmp_path / "big.tiktoken"
    base.write_bytes(src)
    big.write_bytes(src + extra)

    def load_seconds(p: Path) -> float:
        t = time.perf_counter()
        # gpt2: a preset without added tokens or a fixed size (cl100k's specials would sit on the new ranks)
        tok = Tokenizer.from_file(p, preset="gpt2")
        dt = time.perf_counter() - t
        assert tok.vocab_size >= maxrank + 1
        return dt

    t_base = min(load_seconds(base) for _ in range(2))
    t_big = load_seconds(big)
    assert t_big - t_base < 5 * t_base + 1.0, f"10 tokens of 64 KiB: {t_big:.2f} s against {t_base:.2f} s without them"
    tok = Tokenizer.from_file(big, preset="gpt2")
    long_text = base64.b64decode(extra.split(b" ")[0]).decode()
    assert tok.decode(tok.encode(long_text).ids.tolist()) == long_text
