"""Threads sharing a FRESH tokenizer: the first encode with an encoder builds
its index lazily (tc_prepare), and every thread must get the same ids as a
single-threaded run. Before the fix a thread could see the index published
before it was filled (rank: 180 of 256 results wrong; bpe on a vocab.bin:
15 of 400).

Each encoder runs on a handle where its index is NOT built at load:
rank, greedy and kestrel-v2 on a tokenizer.json, bpe on a vocab.bin (whose
merges are recovered on first use).
"""
from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import refs  # noqa: E402
from tokinspect import Tokenizer  # noqa: E402

THREADS = 8
TEXTS = [
    "Hello, world! naïve café",
    "The quick brown fox jumps over the lazy dog. 12345 67890",
    "def f(x):\n    return x  # comment\n",
    "Всеобщая декларация прав человека",
    "人人生而自由，在尊严和权利上一律平等。",
    "emoji 🦙🦙 and tabs\tand  double  spaces",
    "<|im_start|>user\nhi<|im_end|>",
    "a longer line: " + "tokenizers split text into pieces and merge them; " * 8,
]
# rounds per encoder: enough that the unfixed engine failed every run
ROUNDS = {"rank": 12, "bpe": 12, "greedy": 6, "kestrel-v2": 6}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from tokinspect.formats.vocab_bin import compile_vocab_bin

    d = tmp_path_factory.mktemp("thread_prepare")
    qwen_json = Path(refs.build_qwen_reference(d))
    vb = d / "vocab.bin"
    vb.write_bytes(compile_vocab_bin(Tokenizer.default()).data)
    return {"rank": qwen_json, "greedy": qwen_json, "kestrel-v2": qwen_json, "bpe": vb}


def _threaded(tok: Tokenizer, encoder: str) -> list[list[list[int]]]:
    barrier = threading.Barrier(THREADS)
    results: list[list[list[int]] | BaseException] = [[] for _ in range(THREADS)]

    def work(k: int) -> None:
        try:
            barrier.wait()
            results[k] = [tok.encode(t, encoder=encoder).ids.tolist() for t in TEXTS]
        except BaseException as e:  # noqa: BLE001 - reported below
            results[k] = e

    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results  # type: ignore[return-value]


@pytest.mark.parametrize("encoder", list(ROUNDS))
def test_fresh_handle_shared_by_threads(files, encoder):
    path = files[encoder]
    reference = [Tokenizer.from_file(path).encode(t, encoder=encoder).ids.tolist() for t in TEXTS]
    wrong = total = 0
    for _ in range(ROUNDS[encoder]):
        tok = Tokenizer.from_file(path)   # fresh: the encoder's index is not built yet
        assert not tok._handle.is_prepared(encoder)
        for got in _threaded(tok, encoder):
            total += len(TEXTS)
            wrong += sum(g != r for g, r in zip(got, reference))
    assert wrong == 0, f"{encoder}: {wrong} of {total} results differ from the single-threaded reference"
