"""Long single chunks: ids and char offsets equal the reference's on words of 10-200 KB.

A chunk of 4 KiB or more goes to the backtracking encoder (native/src/bpe_bt.c) when the vocabulary
qualifies and the handle has built its tables (after 1 MiB of such chunks), or when it repeats one byte
(a table of that byte's runs alone), else to the heap; each must give HF `tokenizers`' tokens (the rank
encoder, tiktoken's rule, always runs the heap: tiktoken's ids). The words: concatenations of a real vocabulary's own tokens, repetitions of short units,
CJK runs, mixed scripts, runs of one char (the worst cases: 200,000 `x` and spaces at full size), on
Qwen3 (core: the shared file or its rebuild from qwen.tiktoken), cl100k (HF's conversion of tiktoken's
file, and the file itself with the rank encoder), Llama-3.2 and SentencePiece-style Phi-3 (shared data);
plus vocabularies trained here and two built to fail the encoder's conditions (a merge ranked before
its part's merge, a token made by two merges), where the heap must answer.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from conftest import assert_same, cl100k_tiktoken_path, pair, shared


def _letter_tokens(hf, rng: random.Random, k: int) -> list[str]:
    """k random tokens of hf's vocabulary that decode to letters only (so a concatenation stays one
    chunk under the split patterns here), the space-marked ones with their marker dropped."""
    words = []
    vocab = list(hf.get_vocab())
    while len(words) < k:
        s = hf.decode([hf.token_to_id(rng.choice(vocab))])
        s = s.strip()
        if s.isalpha() and s.isprintable():
            words.append(s)
    return words


def _long_words(hf, seed: int) -> list[str]:
    rng = random.Random(seed)
    toks = _letter_tokens(hf, rng, 4000)
    texts = []
    for n in (10_000, 60_000):
        s = ""
        while len(s) < n:
            s += rng.choice(toks)
        texts.append(s)
    unit_pool = toks[:200]
    for n in (3_000, 20_000):
        u = rng.choice(unit_pool)[: rng.randint(1, 4)]
        texts.append(u * (n // len(u)))
        texts.append("".join(rng.choice(unit_pool[:3]) for _ in range(n // 4)))   # few units, mixed
    cjk = [chr(c) for c in range(0x4E00, 0x4E00 + 300)]
    texts.append("".join(rng.choices(cjk, k=20_000)))
    texts.append("".join(rng.choices(cjk[:4], k=20_000)))
    mixed = list(string.ascii_letters) + list("éüñßøåçΩλжшщあいうアイウ가나다") + ["\u0301", "\u0308"]
    texts.append("".join(rng.choices(mixed, k=30_000)))
    for ch in (" ", "\n", "=", "x", "ab", "\t"):
        texts.append(ch * rng.randint(300, 20_000))
    texts.append("".join(rng.choices("ab", k=50_000)))
    return texts


# a handle builds the backtracking tables once its chunks of 4 KiB or more add up to 1 MiB (bpe.c); until
# then the heap encodes them. One chunk of that size builds them at once.
WARM = "x" * (1 << 20)


def _warm(ours):
    ours.encode_ids(WARM, False)
    return ours


@pytest.fixture(scope="module")
def qwen3_pair(qwen3_json: Path):
    ours, hf = pair(qwen3_json)
    return _warm(ours), hf


@pytest.fixture(scope="module")
def cl100k_pair(cl100k_json: Path):
    ours, hf = pair(cl100k_json)
    return _warm(ours), hf


class _Answers:
    """HF's encodings of a list of texts, computed once, for assert_same."""

    def __init__(self, hf, texts: list[str]) -> None:
        self.texts = texts
        self.encs = hf.encode_batch(texts, add_special_tokens=False)

    def encode_batch(self, texts, add_special_tokens: bool = False):
        assert texts == self.texts and not add_special_tokens
        return self.encs


def _check(path: Path, seed: int, label: str, hf=None) -> None:
    """A fresh handle (the heap, and runs of one byte through their own table) and the same handle warmed
    (the backtracking encoder's whole table) both equal HF;
    a fresh handle encoding the warm-up and the words on two threads at once answers the same."""
    from tokinspect import Tokenizer

    if hf is None:
        _, hf = pair(path)
    texts = _long_words(hf, seed)
    ref = _Answers(hf, texts)
    ours = Tokenizer.from_file(path)
    assert_same(ours, ref, texts, label=f"{label} (fresh handle)")
    assert_same(_warm(ours), ref, texts, label=f"{label} (warmed)")
    fresh = Tokenizer.from_file(path)
    encs = fresh.encode_batch([WARM, *texts], False, threads=2)[1:]
    assert [e.ids.tolist() for e in encs] == [list(h.ids) for h in ref.encs], label


def test_qwen3_long_words(qwen3_json: Path, qwen3_pair) -> None:
    _check(qwen3_json, 1, "qwen3", qwen3_pair[1])


def test_cl100k_long_words(cl100k_json: Path, cl100k_pair) -> None:
    _check(cl100k_json, 2, "cl100k", cl100k_pair[1])


def test_llama3_long_words(llama3_json: Path) -> None:
    _check(llama3_json, 3, "llama3")


def test_sentencepiece_bpe_long_words() -> None:
    """Phi-3 (Llama-2 vocabulary, byte fallback, no byte-level): the heap's path on long chunks."""
    _check(shared("onnxruntime-extensions", "phi-3-mini", "tokenizer.json"), 4, "phi3")


@pytest.mark.parametrize("case", ["200k x", "200k spaces"])
def test_worst_cases_full_size(qwen3_json: Path, cl100k_json: Path, qwen3_pair, cl100k_pair, case: str) -> None:
    """On a warmed handle (the whole table) and on a fresh one (a table of that byte's runs alone)."""
    from tokinspect import Tokenizer

    text = ("x" if case == "200k x" else " ") * 200_000
    for name, path, (ours, hf) in (("qwen3", qwen3_json, qwen3_pair), ("cl100k", cl100k_json, cl100k_pair)):
        texts = [text, "y" + text]
        ref = _Answers(hf, texts)
        assert_same(ours, ref, texts, label=f"{name} {case}")
        assert_same(Tokenizer.from_file(path), ref, texts, label=f"{name} {case} (fresh handle)")


@pytest.mark.parametrize("ch", ["x", " ", "0", "\n", "\u00e9", "\u4e00"])
def test_runs_of_every_length(qwen3_json: Path, cl100k_json: Path, qwen3_pair, cl100k_pair, ch: str) -> None:
    """Runs of one char of every length from 4,096 bytes on, 160 lengths, on a fresh handle: each goes to
    a table of that byte's runs, whose encoder looks each pair of run tokens up once (bpe_bt.c's memo)
    and asks the same pairs again at every length; a multi-byte char's run repeats several bytes, so it
    takes the heap. On cl100k a run is also looked up whole first (ignore_merges, the chunk mapped to
    the stored form)."""
    from tokinspect import Tokenizer

    width = len(ch.encode())
    texts = [ch * (4096 // width + k) for k in range(160)]
    for name, path, (_, hf) in (("qwen3", qwen3_json, qwen3_pair), ("cl100k", cl100k_json, cl100k_pair)):
        assert_same(Tokenizer.from_file(path), _Answers(hf, texts), texts, label=f"{name} runs of {ch!r}")


def test_random_letter_word(qwen3_pair) -> None:
    """A 400 KB word of random letters (the benchmark's 10 MB worst case, a 25th of it)."""
    rng = random.Random(17)
    ours, hf = qwen3_pair
    assert_same(ours, hf, ["".join(rng.choices(string.ascii_letters, k=400_000))], label="qwen3 400 KB word")


def test_rank_encoder_long_words() -> None:
    """cl100k's own file (rank BPE, the cl100k preset) on long words: tiktoken's ids. tiktoken's merge
    loop is quadratic in a piece, so these words stay at a few KB."""
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    from conftest import CL100K_PATTERN
    from tokinspect import Tokenizer

    path = cl100k_tiktoken_path()
    ranks = load_tiktoken_bpe(str(path))
    tt = tiktoken.Encoding("cl100k_file", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens={})
    ours = _warm(Tokenizer.from_file(path, preset="cl100k"))
    rng = random.Random(5)
    toks = [t.decode("utf-8", "replace") for t in rng.sample(sorted(ranks), 20_000)]
    toks = [t for t in toks if t.isalpha()]
    texts = ["".join(rng.choices(toks, k=n)) for n in (100, 400, 900)]
    texts += ["x" * 5000, "ab" * 2500, "".join(rng.choices("abc", k=5000)), " " * 5000]
    for t in texts:
        for encoder in ("bpe", "rank"):
            assert ours.encode(t, False, encoder=encoder).ids.tolist() == tt.encode_ordinary(t), \
                (encoder, t[:60], len(t))


@pytest.mark.parametrize("seed", [11, 12])
def test_trained_small_vocabularies(tmp_path: Path, seed: int) -> None:
    """BPE vocabularies trained by HF on seeded text over a few letters (deep merges, many tokens of
    one alphabet): every long word over those letters equals HF."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    rng = random.Random(seed)
    alphabet = "abcde"[: 2 + seed % 3]
    corpus = ["".join(rng.choices(alphabet, weights=range(len(alphabet), 0, -1), k=rng.randint(5, 400)))
              for _ in range(3000)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=1500, show_progress=False,
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path / "trained.json"
    tok.save(str(path))
    ours, hf = pair(path)
    _warm(ours)
    texts = ["".join(rng.choices(alphabet, k=n)) for n in (300, 3000, 30_000, 60_000)]
    texts += [c * 5000 for c in alphabet] + [alphabet * 3000]
    assert_same(ours, hf, texts, label=f"trained {alphabet}")


def _byte_level_file(tmp_path: Path, extra: list[str], merges: list[tuple[str, str]]) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {c: i for i, c in enumerate(sorted(alphabet))}
    for s in extra:
        vocab[s] = len(vocab)
    tok = Tokenizer(models.BPE(vocab, merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    path = tmp_path / "built.json"
    tok.save(str(path))
    return path


@pytest.mark.parametrize("kind", ["merge before its part", "two merges make one token", "two merges make one run"])
def test_vocabularies_the_encoder_refuses(tmp_path: Path, kind: str) -> None:
    """Files outside the backtracking encoder's conditions: the heap answers, as HF (on a fresh handle, whose
    runs of one byte get their own table, and warmed)."""
    from tokinspect import Tokenizer

    if kind == "two merges make one run":
        # "xxx" from "xx x" and from "x xx"
        path = _byte_level_file(tmp_path, ["xx", "xxx", "xxxx"], [("x", "x"), ("xx", "x"), ("x", "xx"), ("xx", "xx")])
        texts = ["x" * n for n in (4096, 4097, 10_001, 30_000)]
        _, hf = pair(path)
        ref = _Answers(hf, texts)
        assert_same(Tokenizer.from_file(path), ref, texts, label=f"{kind} (fresh handle)")
        assert_same(_warm(Tokenizer.from_file(path)), ref, texts, label=kind)
        return
    if kind == "merge before its part":
        # "ab b" ranks before "a b": "abb" is made only after "ab", out of rank order
        path = _byte_level_file(tmp_path, ["ab", "abb", "bb"], [("ab", "b"), ("a", "b"), ("b", "b")])
        units = ["a", "b", "ab", "abb"]
    else:
        # "abc" from "ab c" and from "a bc"
        path = _byte_level_file(tmp_path, ["ab", "bc", "abc"], [("b", "c"), ("a", "bc"), ("a", "b"), ("ab", "c")])
        units = ["a", "b", "c", "ab", "bc"]
    ours, hf = pair(path)
    _warm(ours)
    rng = random.Random(7)
    texts = ["".join(rng.choices(units, k=n)) for n in (200, 2000, 20_000)]
    assert_same(ours, hf, texts, label=kind)


def test_ignore_merges_whole_chunk_of_every_length(tmp_path: Path) -> None:
    """ignore_merges looks a chunk up whole before merging; bpe.c skips the lookup for a chunk longer than the
    vocabulary's longest string (none can match). Tokens no merge makes, of 3 to 300 bytes (past the skip's
    64-byte floor and past the longest when the chunk is one byte longer): each is one token, as HF makes it,
    and one byte more, or less, is not."""
    import json

    from tokenizers import Tokenizer as HF

    lengths = [3, 63, 64, 65, 66, 100, 200, 299, 300]
    path = _byte_level_file(tmp_path, ["x" * n for n in lengths] + ["y" * 150], [])
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["model"]["ignore_merges"] = True
    path.write_text(json.dumps(doc), encoding="utf-8")
    from tokinspect import Tokenizer

    ours, hf = Tokenizer.from_file(path), HF.from_file(str(path))
    texts = [c * n for n in sorted({k + d for k in lengths for d in (-1, 0, 1)} | {150, 301, 5000}) for c in "xy"]
    assert_same(ours, hf, texts, label="ignore_merges")
    for n in lengths:
        assert ours.encode("x" * n).ids.tolist() == [hf.token_to_id("x" * n)], n
