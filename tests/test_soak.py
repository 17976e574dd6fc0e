"""A bounded soak: for TOKINSPECT_SOAK_SECONDS of wall time (default 120) the loop cycles through
encode and trace with every encoder on a rotating set of UDHR lines and adversarial texts, the
sampler (open_logits on a .npy, run_stages + draw for every preset), loading and freeing
tokenizers (the embedded default, a compiled vocab.bin), and every BOARD_EVERY iterations a
`board diff` of the host's kestrel-v2 against the test board's probe run as `-e kestrel-v2`.

Every answer is checked against the first one for the same input (same ids, same trace, same
draws for the same seed), and RSS (VmRSS) must not grow by more than RSS_BOUND_MIB between the
end of the warm-up and the end of the run. One summary line is printed (see it with -s) and,
when TOKINSPECT_SOAK_REPORT names a file, written there."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import time
from collections import Counter
from pathlib import Path

import numpy as np

from conftest import shared
from tokinspect import Tokenizer
from tokinspect.board import deploy
from tokinspect.cli import main
from tokinspect.core.tokenizer import ENCODERS
from tokinspect.sampling import PRESETS, SamplerSettings, draw, open_logits, run_stages

SECONDS = float(os.environ.get("TOKINSPECT_SOAK_SECONDS", "120"))
BOARD_EVERY = 10       # iterations between two board diffs (iteration 0 has one: it is part of the warm-up)
WARMUP = 2             # iterations before the first RSS sample: every path, board diff included, has run once
# Measured on clean runs: +8.5 MiB after 30 s (15 iterations), +12.2 MiB after 120 s (66 iterations),
# most of it early (allocator arenas, the reference answers kept in `first`), so growth flattens.
# A leak of one 200 KB text's trace per iteration, or of the two tokenizers loaded per iteration,
# would pass 64 MiB within the default budget; 64 MiB is 5x the clean figure, room for noise.
RSS_BOUND_MIB = 64.0
UDHR_PER_ITER = 6      # UDHR lines taken per iteration, rotating through the pool


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    raise AssertionError("no VmRSS in /proc/self/status")


def udhr_pool() -> list[str]:
    lines: list[str] = []
    for f in sorted(shared("udhr", "txt").glob("*.txt"))[::7]:
        lines += [x for x in f.read_text(encoding="utf-8").splitlines() if x.strip()][:3]
    return lines


ADVERSARIAL: list[str | bytes] = [
    "a" * 200_000,                                                   # 200 KB of one repeated char
    "漢字かなカナ한국어 😀👩‍👩‍👧‍👦🏳️‍🌈 e\u0301\u0302\u0323 Z\u0351\u0352\u0353 \u200d\ufeff",  # CJK, emoji, combining
    "nul\x00in\x00the\x00middle\x00\x00",                           # NULs
    b"lone \xed\xa0\x80 high and \xed\xb0\x80 low surrogate, \xff\xfe bad bytes \xc0\xaf",  # invalid UTF-8
    "\r\n\t  <|im_start|>user\nhi<|im_end|>  ",
]


def digest(tr) -> str:
    """A trace's answer: its ids, normalized bytes and chunk layout."""
    h = hashlib.sha256(np.asarray(tr.encoding.ids, dtype=np.int64).tobytes())
    h.update(tr.normalized)
    h.update(repr([(c.norm_span, c.orig_span, c.token_range) for c in tr.chunks]).encode())
    h.update(repr(len(tr.greedy_steps) + len(tr.kestrel_steps)).encode())
    return h.hexdigest()


def test_soak(board, board_conn, probe, vocab, tmp_path: Path, capsys) -> None:
    pool = udhr_pool()
    assert len(pool) > 100
    logits_path = tmp_path / "logits.npy"
    np.save(logits_path, np.random.default_rng(7).normal(0.0, 3.0, size=(4, 4096)).astype(np.float32))
    diff_path = tmp_path / "diff.txt"
    diff_path.write_text("\n".join(pool[::40][:12]) + "\n", encoding="utf-8")
    diff_argv = ["board", "diff", "--host", "127.0.0.1", "--port", str(board.port), "--user", board.user,
                 "--key", str(board.user_key), "--no-agent", "--compiler", "aarch64-linux-gnu-gcc -static",
                 "--run-prefix", "qemu-aarch64-static", "--deploy-root", str(board.deploy_root),
                 "--known-hosts", str(board.known_hosts), "--app-known-hosts", str(board.app_known_hosts),
                 "--remote-tokenizer", vocab["board"],
                 "--command", f"{deploy.run_prefix(board_conn)}{probe} -e kestrel-v2 {{tokenizer}}",
                 "--parse", "ints", "--tokenizer", str(vocab["host"]), "--host-encoder", "kestrel-v2",
                 str(diff_path), "--json"]

    first: dict[tuple, object] = {}
    ops: Counter[str] = Counter()

    def same(key: tuple, value: object) -> None:
        if key not in first:
            first[key] = value
        else:
            assert first[key] == value, f"answer changed for {key!r}"

    tok = Tokenizer.default()
    start = time.monotonic()
    rss_start = None
    it = 0
    while it < WARMUP or time.monotonic() - start < SECONDS:
        if it == WARMUP:
            gc.collect()
            rss_start = rss_mib()
        # encode and trace, every encoder, adversarial texts and a rotating window of UDHR lines
        k = (it * UDHR_PER_ITER) % len(pool)
        texts: list[tuple[str, str | bytes]] = [(f"adv{i}", t) for i, t in enumerate(ADVERSARIAL)]
        texts += [(f"udhr{(k + j) % len(pool)}", pool[(k + j) % len(pool)]) for j in range(UDHR_PER_ITER)]
        for name, text in texts:
            for enc in ENCODERS:
                ids = tok.encode(text, False, enc).ids.tolist()
                same(("encode", name, enc), ids)
                tr = tok.trace(text, False, enc)
                assert tr.encoding.ids.tolist() == ids, (name, enc)
                same(("trace", name, enc), digest(tr))
                ops["encode"] += 1
                ops["trace"] += 1
                del tr
        # the sampler: a memory-mapped .npy, every preset's stages and draws for a seed
        src = open_logits(logits_path)
        for step in range(src.steps):
            row = src.row(step)
            for preset in PRESETS:
                s = SamplerSettings(preset=preset, seed=1 + step)
                res = run_stages(row, s)
                same(("stages", step, preset), [(st.name, st.kept, st.ids.tobytes(), st.probs.tobytes())
                                                 for st in res.stages])
                d = draw(row, s, 64)
                same(("draw", step, preset), (d.ids.tolist(), d.rng_before, d.rng_after))
                ops["sample"] += 1
        del src
        # load and free tokenizers: the embedded default and the compiled vocab.bin
        probe_text = pool[k]
        for what, load in (("default", Tokenizer.default), ("vocab.bin", lambda: Tokenizer.from_file(vocab["host"]))):
            t2 = load()
            same(("load", what), t2.vocab_size)
            same(("load-enc", what, k), [t2.encode(probe_text, False, e).ids.tolist() for e in ("bpe", "kestrel-v2")])
            del t2
            ops["load"] += 1
        # the board: host kestrel-v2 against the probe's -e kestrel-v2, which must agree
        if it % BOARD_EVERY == 0:
            rc = main(diff_argv)
            out = capsys.readouterr().out
            r = json.loads(out)
            assert rc == 0 and r["summary"]["agree"], r.get("error")
            same(("board",), [(t["host_ids"], t["board_ids"]) for t in r["texts"]])
            ops["board_diff"] += 1
        it += 1

    gc.collect()
    rss_end = rss_mib()
    minutes = (time.monotonic() - start) / 60.0
    assert rss_start is not None
    line = (f"soak: {it} iterations in {minutes:.2f} min; ops " + " ".join(f"{k}={v}" for k, v in sorted(ops.items()))
            + f"; RSS start {rss_start:.1f} MiB end {rss_end:.1f} MiB growth {rss_end - rss_start:+.1f} MiB"
            + f" (bound {RSS_BOUND_MIB:.0f})")
    with capsys.disabled():
        print("\n" + line)
    report = os.environ.get("TOKINSPECT_SOAK_REPORT")
    if report:
        Path(report).write_text(line + "\n", encoding="utf-8")
    assert ops["board_diff"] >= 1 and it > WARMUP
    assert rss_end - rss_start < RSS_BOUND_MIB, line
