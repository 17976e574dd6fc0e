"""Unigram encode throughput: tokinspect vs HF tokenizers, one thread, on a real SentencePiece model.

The tokenizer.json is converted at run time (tests/spm_convert.py, HF's converter rules) from a
Unigram model that the sentencepiece sdist ships (downloaded once into the test cache by
tests/pypi_files.py). First checks that both engines give the same ids on every text, then times
encode_batch over the whole corpus (best of --runs), offsets included on both sides.

    python bench/unigram.py [--model test_model|test_ja_model] [--corpus DIR_OR_FILE] [--runs 3] [--quick N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
import common  # noqa: E402

MODELS = {
    "test_model": ("test/test_model.model", "4884d27bf50494e080aa99dbb868f27b68b6a3b6bd128da37ad6057c5e3cf5a2"),
    "test_ja_model": ("test/test_ja_model.model", "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65"),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=sorted(MODELS), default="test_model")
    ap.add_argument("--corpus")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", type=int, default=None, help="only the first N texts")
    args = ap.parse_args()
    # HF's rayon pool: one thread, set before tokenizers is imported
    os.environ["RAYON_NUM_THREADS"] = "1"
    os.environ["RAYON_RS_NUM_CPUS"] = "1"
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    from pypi_files import pypi_file
    from spm_convert import build_hf, read_spm
    from tokenizers import Tokenizer as HF

    from tokinspect import Tokenizer

    corpus = common.load_corpus(args.corpus, args.quick)
    member, sha = MODELS[args.model]
    with tempfile.TemporaryDirectory() as td:
        path = build_hf(read_spm(pypi_file("sentencepiece", "0.2.1", member, sdist=True, sha256=sha)),
                        Path(td) / f"{args.model}.json")
        ours, hf = Tokenizer.from_file(path), HF.from_file(str(path))
    texts = corpus.texts
    got = [e.ids.tolist() for e in ours.encode_batch(texts, True)]
    want = [e.ids for e in hf.encode_batch(texts, add_special_tokens=True)]
    same = sum(a == b for a, b in zip(got, want))
    print(f"corpus: {corpus.source}, {len(texts)} texts, {corpus.n_bytes / 1e6:.2f} MB; model {args.model} "
          f"(sentencepiece 0.2.1 sdist {member})")
    print(f"ids equal HF on {same}/{len(texts)} texts")
    best = {}
    for name, run in (("tokinspect", lambda: ours.encode_batch(texts, True)),
                      ("tokenizers", lambda: hf.encode_batch(texts, add_special_tokens=True))):
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        best[name] = min(times)
    for name, t in best.items():
        print(f"{name:12s} {corpus.n_bytes / 1e6 / t:8.2f} MB/s  ({t:.2f} s best of {args.runs})")
    return 0 if same == len(texts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
