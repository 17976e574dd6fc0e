"""Our GGUF encoders against llama.cpp itself: `llama-tokenize` built from the llama-cpp-python 0.3.36 sdist.

The oracle is the real tool (tests/llamacpp_build.py builds it from the sdist's vendor/llama.cpp); the
files are the sdist's vendored vocab-only GGUFs (tests/test_gguf.py: member paths and sha256). Every
text goes through `llama-tokenize -m FILE --stdin --ids --log-disable --no-escape` (tools/tokenize/
tokenize.cpp: --stdin reads the bytes as they are, --no-escape keeps a backslash a backslash, --ids prints
`[1, 2, 3]`), against our `Tokenizer.encode` of the same file.

llama-tokenize reads one prompt per process. To keep the process count low, a batch of texts goes as one
prompt with a special token of the file between them (the separator): with special parsing on,
llama.cpp cuts the prompt at special tokens first (llama-vocab.cpp, llama-cpp-python 0.3.36 vendor,
`tokenizer_st_partition`) and encodes every text fragment by itself (`llama_vocab::impl::tokenize`:
one session per raw fragment; SPM adds its space prefix after a special token as at the start), so
the ids between two separators are the text's own ids. The separator is a special token without
lstrip/rstrip (which would eat the texts' edge spaces), no text contains it, and a batch must come back
with exactly one separator between texts. test_batching_equals_single_calls checks the scheme itself:
texts one per process against the same texts batched.

Files: every vendored vocab the loader opens (test_gguf's SUPPORTED and NO_VECTORS). Not here yet:
nomic-bert-moe ("t5"), which the loader refuses today (test_gguf.test_unsupported_models_are_refused).
"""

from __future__ import annotations

import ast
import random
import re
import subprocess
from pathlib import Path

import pytest
from llamacpp_build import HOT, without_newer_than_llama
from test_gguf import NO_VECTORS, SUPPORTED, gguf_file

from conftest import shared
from corpus import random_texts
from tokinspect import Tokenizer

MODELS = sorted(SUPPORTED + NO_VECTORS)
N_RANDOM = 5000
BATCH = 1000
CONTROL = [chr(c) for c in [*range(0x00, 0x20), 0x7F]]


def tool_ids(exe: Path, model: Path, text: str, bos: bool = False, parse_special: bool = True) -> list[int]:
    """One llama-tokenize process: the ids it prints for text (bos: the file's add_bos as the tool applies it)."""
    cmd = [str(exe), "-m", str(model), "--stdin", "--ids", "--log-disable", "--no-escape"]
    cmd += [] if bos else ["--no-bos"]
    cmd += [] if parse_special else ["--no-parse-special"]
    r = subprocess.run(cmd, input=text.encode("utf-8"), capture_output=True, timeout=600)
    assert r.returncode == 0, (cmd, r.stderr.decode("utf-8", "replace")[-2000:])
    lines = [x for x in r.stdout.decode("utf-8").splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("["), r.stdout[:400]
    ids = ast.literal_eval(lines[0])
    assert isinstance(ids, list) and all(isinstance(i, int) for i in ids), lines[0][:400]
    return ids


def separators(tok: Tokenizer) -> list[tuple[str, int]]:
    """The file's special tokens without lstrip/rstrip or edge spaces, longest first: (content, id)."""
    out = []
    for a in sorted(tok.added_tokens, key=lambda a: (-len(str(a["content"])), int(a["id"]))):  # type: ignore[call-overload]
        content = str(a["content"])
        if a["special"] and not a["lstrip"] and not a["rstrip"] and len(content) >= 3 and content.strip() == content:
            out.append((content, int(a["id"])))
    return out


def separator(tok: Tokenizer, texts: list[str]) -> tuple[str, int]:
    """The first of `separators` that no text contains."""
    for content, tid in separators(tok):
        if not any(content in t for t in texts):
            return content, tid
    raise AssertionError(f"{tok.name}: no special token can separate the texts")


def batched_ids(exe: Path, model: Path, tok: Tokenizer, texts: list[str]) -> list[list[int]]:
    """The tool's ids of every text (no BOS, special parsing on), BATCH texts per process."""
    sep, sep_id = separator(tok, texts)
    out: list[list[int]] = []
    for k in range(0, len(texts), BATCH):
        chunk = texts[k:k + BATCH]
        ids = tool_ids(exe, model, sep.join(chunk))
        parts: list[list[int]] = [[]]
        for i in ids:
            if i == sep_id:
                parts.append([])
            else:
                parts[-1].append(i)
        assert len(parts) == len(chunk), f"{model.name}: {len(parts)} segments for {len(chunk)} texts"
        out += parts
    return out


def with_controls(texts: list[str], seed: int) -> list[str]:
    """Every fourth text gets control characters (NUL, tab, CR, ESC, DEL...) at random places."""
    rng = random.Random(seed)
    out = []
    for i, t in enumerate(texts):
        if i % 4 == 0:
            for _ in range(rng.randint(1, 3)):
                p = rng.randint(0, len(t))
                t = t[:p] + rng.choice(CONTROL) * rng.randint(1, 2) + t[p:]
        out.append(t)
    return out


def texts_for(tok: Tokenizer, seed: int) -> list[str]:
    """N_RANDOM seeded strings: scripts, emoji, combining marks, whitespace runs, control characters, and
    the file's special tokens glued to words."""
    sep = separators(tok)[0][0]     # kept out of the texts: it separates them
    specials = [str(a["content"]) for a in tok.added_tokens if a["special"] and a["content"] != sep][:64]  # type: ignore[call-overload]
    glued = specials + [x for x in ("<s>", "</s>", "<|endoftext|>") if x != sep]
    return without_newer_than_llama(with_controls(random_texts(seed, N_RANDOM, glued), seed))


def compare(model: str, exe: Path, texts: list[str]) -> None:
    path = gguf_file(model)
    tok = Tokenizer.from_file(path, parse_special=True)
    want = batched_ids(exe, path, tok, texts)
    got = [e.ids.tolist() for e in tok.encode_batch(texts, False)]
    bad = [(t, g, w) for t, g, w in zip(texts, got, want) if g != w]
    assert not bad, f"{model}: {len(texts) - len(bad)}/{len(texts)} equal; first: " + \
        "; ".join(f"{t!r}: ours {g} llama.cpp {w}" for t, g, w in bad[:3])


@pytest.mark.parametrize("model", MODELS)
def test_random_strings_equal_llama_tokenize(model, llama_tokenize):
    """≥ 5,000 seeded random strings per file: ids equal llama-tokenize's (special parsing on, no BOS)."""
    tok = Tokenizer.from_file(gguf_file(model), parse_special=True)
    compare(model, llama_tokenize, texts_for(tok, 1600 + MODELS.index(model)))


def corpus() -> list[str]:
    """2,000 UDHR lines (seeded, over all translations) and 400 War and Peace paragraphs."""
    rng = random.Random(16)
    lines = [x for p in sorted(shared("udhr", "txt").glob("*.txt"))
             for x in p.read_text(encoding="utf-8", errors="replace").splitlines() if x.strip()]
    paras = [p for p in shared("ollama", "war-and-peace.txt").read_text(encoding="utf-8").split("\n\n") if p.strip()]
    return rng.sample(lines, 2000) + rng.sample(paras, 400)


@pytest.mark.parametrize("model", MODELS)
def test_udhr_and_war_and_peace_equal_llama_tokenize(model, llama_tokenize):
    compare(model, llama_tokenize, corpus())


SINGLE = ["", " ", "Hello world", " Hello", "  two  spaces  ", "\n\nlines\n", "tab\there", "NUL\x00byte",
          "x<|endoftext|>y", "a<s>b</s> c", "日本語のテキスト 🦙", "e\u0301\u0302 ", "don't STOP 12345!"]
# one of each kind: BPE with many specials, SPM, SPM with phi-3's rstrip, a BPE with fullwidth specials
BATCH_CHECK = ["qwen2", "llama-spm", "phi-3", "deepseek-llm"]


@pytest.mark.parametrize("model", BATCH_CHECK)
def test_batching_equals_single_calls(model, llama_tokenize):
    """The separator scheme itself: each text in its own process gives the ids the batch gave."""
    path = gguf_file(model)
    tok = Tokenizer.from_file(path, parse_special=True)
    texts = SINGLE + texts_for(tok, 99)[:4]
    assert batched_ids(llama_tokenize, path, tok, texts) == [tool_ids(llama_tokenize, path, t) for t in texts]


@pytest.mark.parametrize("model", MODELS)
def test_bos_and_no_parse_special_one_call_each(model, llama_tokenize):
    """The file's BOS (the tool adds it unless --no-bos), and special tokens read as text (--no-parse-special),
    one process per text, against ours with add_special_tokens = the file's add_bos and parse_special=False."""
    path = gguf_file(model)
    tok = Tokenizer.from_file(path, parse_special=True)
    plain = Tokenizer.from_file(path, parse_special=False)
    bos = bool(tok.describe()["gguf"]["add_bos"])  # type: ignore[index]
    for t in ["Hello world", " lead", "a<s>b</s>c<|endoftext|>", ""]:
        assert tok.encode(t, bos).ids.tolist() == tool_ids(llama_tokenize, path, t, bos=True), (model, t)
        assert plain.encode(t, False).ids.tolist() == tool_ids(llama_tokenize, path, t, parse_special=False), \
            (model, t)


# each rule the differential test found, on the text that shows it (llama-cpp-python 0.3.36's llama.cpp):
RULES = [
    # llama_vocab::impl::load, EOG texts: an ordinary "</s>" becomes CONTROL (native/src/gguf_vocab.c)
    ("qwen2", "a</s>b </s>"),
    # tokenizer_st_partition: phi-3's rstrip removes ASCII whitespace only (isspace on bytes), not U+2028/U+00A0
    ("phi-3", "x[PAD32039]\u2028y[PAD32060]\u00a0z<|end|> \u3000w"),
    # llm_tokenizer_bpe_session::tokenize: a char without a token (falcon has none for 0x0B) keeps its
    # neighbours from merging
    ("falcon", "a \x0b +b \x0b\x0b  c"),
    # unicode_regex_split: a regex without \p{..} sees non-ASCII whitespace as 0x0B, outside literal ranges
    ("deepseek-llm", "  \u3000１２３ x\u3000_ 中\u2003文\u3000"),
    ("deepseek-coder", "中\u3000文\u2028字 한\u205f국"),
]


@pytest.mark.parametrize("model,text", RULES)
def test_llama_cpp_rules(model, text, llama_tokenize):
    path = gguf_file(model)
    tok = Tokenizer.from_file(path, parse_special=True)
    assert tok.encode(text, False).ids.tolist() == tool_ids(llama_tokenize, path, text)


def compile_levels(build_dir: Path) -> dict[str, str]:
    """Each compiled source of the build (path under vendor/llama.cpp) -> the -O level its command ends with
    or the build dir (gcc takes the last -O), read from the build's build.ninja."""
    out = {}
    for block in (build_dir / "build.ninja").read_text().split("\nbuild ")[1:]:
        head, *rest = block.split("\n")
        src = re.search(r"\.o: \S*COMPILER\S* (\S+)", head)
        flags = next((x for x in rest if x.startswith("  FLAGS = ")), None)
        if src and flags:
            levels = re.findall(r"(?:^|\s)(-O\w*)", flags)
            path = src.group(1)
            key = path.split("/vendor/llama.cpp/", 1)[1] if "/vendor/llama.cpp/" in path else \
                path.split(f"/{build_dir.name}/", 1)[1]  # the unity sources CMake writes into the build
            out[key] = levels[-1] if levels else "none"
    return out


def test_build_optimises_what_a_tokenize_call_runs(llama_tokenize):
    """llamacpp_build's profile reached the compiler: the tokenizer, Unicode and GGUF sources at -O2, every
    other source (llama-common, cpp-httplib, the model graphs, ggml-cpu) at -O0."""
    levels = compile_levels(llama_tokenize.parent.parent)
    assert {f: levels.get(f) for f in HOT} == dict.fromkeys(HOT, "-O2")
    rest = {f: lv for f, lv in levels.items() if f not in HOT}
    assert len(rest) > 100 and set(rest.values()) == {"-O0"}, sorted(set(rest.values()))
