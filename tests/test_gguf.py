"""GGUF tokenizer metadata (native/src/gguf.c) and llama.cpp's encoding of it (native/src/load_gguf.c).

Oracle and real data: llama-cpp-python 0.3.36's sdist (PyPI), which vendors llama.cpp with the vocab-only
files vendor/llama.cpp/models/ggml-vocab-*.gguf and their test-tokenizer-0 vectors (.inp/.out), fetched at
test time by tests/pypi_files.py with the sha256 below, never committed. The metadata is compared with the
same sdist's own GGUF reader (vendor/llama.cpp/gguf-py, gguf.GGUFReader).

Every file of the sdist loads, and the vectors of every file that has them pass. "bert" is llama.cpp's WPM
(native/src/wpm.c; its Unicode tables are checked in tests/test_gguf_wpm.py), "gemma4" its SentencePiece-style
BPE (pre type GEMMA4), "t5" its UGM (native/src/ugm.c). Files without vectors in the sdist: aquila, baichuan,
gpt-neox, nomic-bert-moe; nomic-bert-moe (the only "t5" file) is checked against llama.cpp itself instead: the
sdist's `llama-tokenize` (tests/llamacpp_build.py) on the vector inputs every other file shares, seeded random
strings, UDHR and War and Peace.
"""

from __future__ import annotations

import json
import random
import re
import struct
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from pypi_files import pypi_file

from tokinspect import Tokenizer, TokenizerError

PKG, VER = "llama-cpp-python", "0.3.36"
MODELS = "vendor/llama.cpp/models/"
SHA256 = {
    "ggml-vocab-aquila.gguf": "7c53c3c516ac67c7ca12977b9690fdea3d2ef13bbaed6378f98191a13ef5ca00",
    "ggml-vocab-baichuan.gguf": "4f5b955697f3bd3108070b1d5936c7eb9fc542b81c6932e59abddec75bca1963",
    "ggml-vocab-bert-bge.gguf": "fbcbe22278fb302694d5f4a41bfe48c5f90e8e3554eab1c0435387dff654a854",
    "ggml-vocab-bert-bge.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-bert-bge.gguf.out": "8f95b1d4e5680634af06ac5a1b19f15ddeb743d3a6240056625e4345a4b06917",
    "ggml-vocab-command-r.gguf": "a2f8cfea952ef7c391a6d92a1c309d0bd32e36384d9b9230569a7425732f27d9",
    "ggml-vocab-command-r.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-command-r.gguf.out": "d2a601336e422b60a264858c01b14c5d37575fe1f9adfcafc2f3b3707903903f",
    "ggml-vocab-deepseek-coder.gguf": "91cb1379f2e33af1c4866b194622b7a0e12e8f0c9dba7ba2f10d55978730bec1",
    "ggml-vocab-deepseek-coder.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-deepseek-coder.gguf.out": "c2cea4584b0487e67fbd81f491bb44f89238722062126120d2c412edb3dbd853",
    "ggml-vocab-deepseek-llm.gguf": "867f77537b54565f0d81d508c04edc41aa1d4ffc1a92745f225b4c1b02755f76",
    "ggml-vocab-deepseek-llm.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-deepseek-llm.gguf.out": "87cfc1a8a9a7ef25d04d28c26a67b6a620af7be938c9bd0feeb4d319b9302832",
    "ggml-vocab-falcon.gguf": "9f0bf8b0733680398b72e652e90f260f43782f326e75545fc0e49611a5ba35ad",
    "ggml-vocab-falcon.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-falcon.gguf.out": "f8c80a0483582ef195c2129b69bb2e4e421b0f31ed7b35d84b63511d7ebae7cd",
    "ggml-vocab-gemma-4.gguf": "58b1ba0b57f3b4d7c468ba4ffd91ad85190346a3d7ad7e71d1cabaae8a14bb65",
    "ggml-vocab-gemma-4.gguf.inp": "0528aa007b06965f980181d252b5dff7bb170a77af6157bd48bba56885374448",
    "ggml-vocab-gemma-4.gguf.out": "ba8c596bcd05e97e62566fa994b42eeaeffd6a4e4b4a4abe7b5b689aa6b43bf3",
    "ggml-vocab-gpt-2.gguf": "cedc56ca6e2e89f63e781696d1fd76b4b1d49e6720dee86463e915f6e90016ac",
    "ggml-vocab-gpt-2.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-gpt-2.gguf.out": "48e8c4cb3ad5c37915b225f872222567c1c4dd4d66951aa53460c8d152ff6d60",
    "ggml-vocab-gpt-neox.gguf": "ae593a7f9b8bb174ed4f5019e41530463e4dac7aa06e42dee8aa650d2bdac53d",
    "ggml-vocab-llama-bpe.gguf": "97272e430d53bc7688f52d5e0ad8ea8f163ede9f1bbd1694feaa504797d5d96e",
    "ggml-vocab-llama-bpe.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-llama-bpe.gguf.out": "118abf2034a197fc5c9dec5204dfdeee7004c7c70952ae577f66b99e212fab9b",
    "ggml-vocab-llama-spm.gguf": "16c3724582d59aa8bf84711894e833f916ee46a31d80e21312759c48bf8d0e69",
    "ggml-vocab-llama-spm.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-llama-spm.gguf.out": "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29",
    "ggml-vocab-mpt.gguf": "59dc382612866d1fc6c11ea531318d327598f3412d9c8f8600607cdf3030898f",
    "ggml-vocab-mpt.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-mpt.gguf.out": "9d0982a7e7950b81bc2e325fb61bb7e295d2238934ab889737494de2dc4d906b",
    "ggml-vocab-nomic-bert-moe.gguf": "90a6746926454784a98389ad36a36d89bc9cfc81db9cb0f33c941bcc959fe5f9",
    "ggml-vocab-phi-3.gguf": "967d7190d11c4842eab697079d98d56c2116e10eb617be355a2733bfc132e326",
    "ggml-vocab-phi-3.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-phi-3.gguf.out": "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29",
    "ggml-vocab-qwen2.gguf": "44c2f46b715f585c6ab513970e8a006bfa5badd6108560054921cf598d154d8c",
    "ggml-vocab-qwen2.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-qwen2.gguf.out": "de785bb305cc6fa9d43908ed5da337f853c0b79e971348fcfb9f0915a39c5363",
    "ggml-vocab-qwen35.gguf": "63ed952ff338996cf0bdf24a7b10015124273f75c6dc9bb427356aa3f67ec62c",
    "ggml-vocab-qwen35.gguf.inp": "0fc6547e7876cd5b2ef64a9d319c6e39040eb53986660bd4227ed7ddef017a94",
    "ggml-vocab-qwen35.gguf.out": "5efe225820325303857d0a087a8d59216f0d1e9a9e31133e7a5b44c3c4e1e9ca",
    "ggml-vocab-refact.gguf": "ac3ceda902fed91ccf74312b305d9b86c37e4f8e35fa9cc6ef3ce34fca7d4678",
    "ggml-vocab-refact.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-refact.gguf.out": "c7e5c1c5dc1dfd3e0d56576bf699d2aca0b760b80779523ea9d323aad6cd1b88",
    "ggml-vocab-starcoder.gguf": "fedb892b4e1bd3c1f2fcdae356440b14fb458f4264d586e5c987ed93df4e174d",
    "ggml-vocab-starcoder.gguf.inp": "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
    "ggml-vocab-starcoder.gguf.out": "3ef12183c57ad076f9defd8e5eb454f509f5f0865cad35646abb4c4b2d2c5764",
}
# the vocabulary types this engine encodes today, each with its vectors
SUPPORTED = ["bert-bge", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "llama-bpe", "llama-spm", "mpt",
             "phi-3", "qwen2", "qwen35", "refact", "starcoder"]
# files without vectors: they load (aquila, gpt-neox: gpt2 type; baichuan: llama type; nomic-bert-moe: t5 type)
NO_VECTORS = ["aquila", "baichuan", "gpt-neox", "nomic-bert-moe"]
SEP = "\n__ggml_vocab_test__\n"


def member(name: str) -> Path:
    return pypi_file(PKG, VER, MODELS + name, sdist=True, sha256=SHA256[name])


def gguf_file(model: str) -> Path:
    return member(f"ggml-vocab-{model}.gguf")


def vectors(model: str) -> list[tuple[str, list[int]]]:
    """test-tokenizer-0.cpp's reading: inputs separated by SEP, one line of ids per input (string_strip)."""
    raw = member(f"ggml-vocab-{model}.gguf.inp").read_bytes().decode("utf-8")
    out = member(f"ggml-vocab-{model}.gguf.out").read_text(encoding="utf-8").split("\n")
    pieces, pos = [], 0
    while pos < len(raw):
        nxt = raw.find(SEP, pos)
        if nxt < 0:
            pieces.append(raw[pos:])
            break
        pieces.append(raw[pos:nxt])
        pos = nxt + len(SEP)
    if out and out[-1] == "":
        out.pop()
    assert len(pieces) == len(out), (model, len(pieces), len(out))
    return [(t, [int(x) for x in o.split()]) for t, o in zip(pieces, out)]


def ids_of(tok: Tokenizer, text: str, add_special: bool = False) -> list[int]:
    return tok.encode(text, add_special_tokens=add_special).ids.tolist()


@pytest.mark.parametrize("model", SUPPORTED)
def test_llamacpp_vectors(model):
    """Every test-tokenizer-0 vector of the file: add_special = false, parse_special = false (its main)."""
    tok = Tokenizer.from_file(gguf_file(model), parse_special=False)
    cases = vectors(model)
    assert len(cases) >= 40
    bad = [(t, ids_of(tok, t), ids) for t, ids in cases if ids_of(tok, t) != ids]
    assert not bad, bad[:3]


GGUF_PY = ('__init__.py', 'constants.py', 'gguf.py', 'gguf_reader.py', 'gguf_writer.py', 'lazy.py', 'metadata.py', 'quants.py', 'tensor_mapping.py', 'utility.py', 'vocab.py')


def gguf_py():
    """The sdist's own GGUF reader (gguf-py), the oracle for the metadata."""
    for m in GGUF_PY:
        d = pypi_file(PKG, VER, "vendor/llama.cpp/gguf-py/gguf/" + m, sdist=True).parents[1]
    sys.path.insert(0, str(d))
    import gguf  # noqa: PLC0415  (from the sdist, not an installed package)
    return gguf


@pytest.mark.parametrize("model", ["gpt-2", "mpt", "starcoder", "refact"])   # GGUFReader takes ~10 s per 50k tokens
def test_metadata_equals_gguf_py(model):
    """info's gguf member: model, pre, special ids and add-bos/eos as the sdist's GGUFReader reads them."""
    path = gguf_file(model)
    r = gguf_py().GGUFReader(str(path))
    f = {k: v.contents() for k, v in r.fields.items() if k.startswith("tokenizer.ggml.")
         and not k.endswith((".tokens", ".scores", ".token_type", ".merges"))}
    d = Tokenizer.from_file(path).describe()["gguf"]
    assert isinstance(d, dict)
    assert d["model"] == f["tokenizer.ggml.model"]
    assert d["pre"] == f.get("tokenizer.ggml.pre")
    want = {k[len("tokenizer.ggml."):-len("_token_id")]: v for k, v in f.items() if k.endswith("_token_id")}
    assert d["special_ids"] == want
    if "tokenizer.ggml.add_bos_token" in f:
        assert d["add_bos"] == f["tokenizer.ggml.add_bos_token"]
    assert d["tensors"] == len(r.tensors)
    assert d["kv"] == r.fields["GGUF.kv_count"].contents()
    tok = Tokenizer.from_file(path)
    assert tok.vocab_size == len(r.fields["tokenizer.ggml.tokens"].data)


def test_add_bos_follows_llamacpp():
    """llama-bpe: add_bos by its pre type (load: LLAMA3 sets add_bos); gpt-2: none. parse_special=True
    matches a control token in the text, False leaves it text (tokenizer_st_partition)."""
    llama = Tokenizer.from_file(gguf_file("llama-bpe"))
    bos = llama.token_to_id("<|begin_of_text|>")
    assert ids_of(llama, "Hello", True)[0] == bos
    assert ids_of(llama, "Hello", False)[0] != bos
    assert ids_of(llama, "a<|begin_of_text|>") == ids_of(llama, "a") + [bos]
    plain = Tokenizer.from_file(gguf_file("llama-bpe"), parse_special=False)
    assert bos not in ids_of(plain, "a<|begin_of_text|>")
    gpt2 = Tokenizer.from_file(gguf_file("gpt-2"))
    assert ids_of(gpt2, "Hello", True) == ids_of(gpt2, "Hello", False)


@pytest.mark.parametrize("model", NO_VECTORS)
def test_files_without_vectors_load(model):
    tok = Tokenizer.from_file(gguf_file(model), parse_special=False)
    assert tok.vocab_size > 1000 and ids_of(tok, "Hello world")


def test_spm_space_prefix_and_bos():
    """llama-spm: add_bos from the file, the space prefix on each fragment even when it starts with a space
    (llama.cpp: text = ' ' + fragment; HF's Metaspace would not add a second U+2581)."""
    tok = Tokenizer.from_file(gguf_file("llama-spm"))
    by_text = dict(vectors("llama-spm"))
    assert ids_of(tok, " Hello", True) == [1] + by_text[" Hello"]
    pieces = [tok.id_to_token(i) for i in by_text[" Hello"]]
    assert "".join(pieces).startswith("\u2581\u2581"), pieces


def test_unsupported_model_is_refused(tmp_path):
    """A vocabulary type llama.cpp has and the engine does not (RWKV's) is named."""
    with pytest.raises(TokenizerError, match='tokenizer.ggml.model "rwkv" is not supported'):
        load(tmp_path, tiny().replace(s(b"gpt2"), s(b"rwkv")))


def test_random_strings_round_trip():
    """Seeded random strings: a byte-level GGUF vocabulary with all 256 bytes decodes its ids back to the text."""
    rng = random.Random(16)
    alphabet = "abc XYZ 123 \t\n\r'sll ü é ß 中文 日本 한국 🦙 ́ ‍ .,;!?()[]{}<>|$+^~`" + "".join(map(chr, range(0x20)))
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(1500)]
    for model in ("gpt-2", "llama-bpe", "qwen2", "qwen35", "command-r"):
        tok = Tokenizer.from_file(gguf_file(model), parse_special=False)
        for t in texts:
            assert tok.decode(ids_of(tok, t)) == t, (model, t)


ISSUE_FILES = ["qwen2", "qwen35", "llama-bpe", "llama-spm", "phi-3", "gemma-4", "bert-bge", "nomic-bert-moe", "command-r",
               "deepseek-coder", "deepseek-llm", "falcon", "gpt-2", "gpt-neox", "mpt", "starcoder", "refact", "aquila",
               "baichuan"]


def test_sdist_holds_the_issue_files():
    """The sdist's vocab files are the issue's 19; those with vectors are the ones test_llamacpp_vectors runs."""
    from pypi_files import pypi_members  # noqa: PLC0415
    names = [m[len(MODELS):] for m in pypi_members(PKG, VER, sdist=True) if m.startswith(MODELS + "ggml-vocab-")]
    ggufs = sorted(n[len("ggml-vocab-"):-len(".gguf")] for n in names if n.endswith(".gguf"))
    with_vectors = sorted(n[len("ggml-vocab-"):-len(".gguf.inp")] for n in names if n.endswith(".gguf.inp"))
    assert ggufs == sorted(ISSUE_FILES)
    assert with_vectors == sorted(SUPPORTED)
    assert sorted(SUPPORTED + NO_VECTORS) == ggufs


@pytest.mark.parametrize("model,kind,pre", [("bert-bge", "WPM (llama.cpp)", "bert-bge"), ("gemma-4", "BPE", None)])
def test_info_names_model_and_pre(model, kind, pre, tokcore):
    """info (Python and tokcore) names the GGUF model and pre type as for the other files."""
    path = gguf_file(model)
    d = Tokenizer.from_file(path).describe()
    g = d["gguf"]
    assert isinstance(g, dict)
    assert d["format"] == "gguf" and d["model"] == kind
    assert g["model"] == model.split("-")[0] + ("4" if model == "gemma-4" else "") and g["pre"] == pre
    info = json.loads(subprocess.run([str(tokcore), "info", "--tokenizer", str(path)], capture_output=True,
                                     check=True).stdout)
    assert info["gguf"]["model"] == g["model"] and info["gguf"]["pre"] == pre and info["model"] == kind
    py = json.loads(subprocess.run([sys.executable, "-m", "tokinspect", "info", str(path)], capture_output=True,
                                   check=True).stdout)
    assert py["gguf"]["model"] == g["model"] and py["gguf"]["pre"] == pre and py["model"] == kind


def test_wpm_special_tokens_follow_llamacpp():
    """bert: add_special puts BOS (default 101, [CLS]) before and SEP ([SEP]) after, whatever add_bos says
    (tokenize, LLAMA_VOCAB_TYPE_WPM); [CLS] in the text is a CONTROL token only with parse_special."""
    tok = Tokenizer.from_file(gguf_file("bert-bge"))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    by_text = dict(vectors("bert-bge"))
    assert ids_of(tok, "Hello world", True) == [cls] + by_text["Hello world"] + [sep]
    hello, hello_world = by_text["Hello"], by_text["Hello world"]
    assert hello_world[:len(hello)] == hello
    assert ids_of(tok, "Hello [SEP] world") == hello + [sep] + hello_world[len(hello):]
    plain = Tokenizer.from_file(gguf_file("bert-bge"), parse_special=False)
    assert sep not in ids_of(plain, "Hello [SEP] world")
    assert tok.decode(ids_of(tok, "Hello world")) == "hello world"


def test_wpm_unknown_word_is_unk():
    """A word with a char no piece covers is the unk token as a whole (tokenize: "discard all")."""
    tok = Tokenizer.from_file(gguf_file("bert-bge"), parse_special=False)
    unk = tok.token_to_id("[UNK]")
    e = tok.encode("ab\U0001f999cd ok", add_special_tokens=False)
    assert e.ids.tolist()[0] == unk and e.ids.tolist()[1:] == ids_of(tok, "ok")
    assert e.offsets.tolist()[0] == [0, 5]


def test_gemma4_special_tokens_follow_llamacpp():
    """gemma4: BOS always (load's Gemma 4 workaround); "<|tool_response>" is USER_DEFINED in the file but an
    end-of-generation text, so CONTROL (load): matched only with parse_special, while "<|tool_call>" stays
    USER_DEFINED and is matched always; "</s>" is a normal token beside "<|tool_response>"."""
    path = gguf_file("gemma-4")
    plain = Tokenizer.from_file(path, parse_special=False)
    bos = plain.token_to_id("<bos>")
    by_text = dict(vectors("gemma-4"))
    assert ids_of(plain, "Hello world", True) == [bos] + by_text["Hello world"]
    call, resp = plain.token_to_id("<|tool_call>"), plain.token_to_id("<|tool_response>")
    assert ids_of(plain, "a<|tool_call>b") == ids_of(plain, "a") + [call] + ids_of(plain, "b")
    assert resp not in ids_of(plain, "a<|tool_response>b")
    special = Tokenizer.from_file(path)
    assert ids_of(special, "a<|tool_response>b") == ids_of(special, "a") + [resp] + ids_of(special, "b")
    assert special.token_to_id("</s>") not in ids_of(special, "a</s>b")


def test_gemma4_newline_runs_and_bytes():
    """A run of newlines that is a token is one token; a char outside the vocabulary falls back to its
    "<0xNN>" bytes; decode gives the text back."""
    tok = Tokenizer.from_file(gguf_file("gemma-4"), parse_special=False)
    for k in range(1, 6):
        assert ids_of(tok, "a" + "\n" * k + "b")[1] == tok.token_to_id("\n" * k)
    rng = random.Random(4)
    alphabet = "ab \n\t中😁\x00\x7f\u0301é"
    for _ in range(300):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert tok.decode(ids_of(tok, t)) == t


# ---- malformed headers ---------------------------------------------------------------------------

def s(b: bytes) -> bytes:
    return struct.pack("<Q", len(b)) + b


def kv_str(key: str, val: str) -> bytes:
    return s(key.encode()) + struct.pack("<I", 8) + s(val.encode())


def kv_strs(key: str, vals: list[str]) -> bytes:
    return s(key.encode()) + struct.pack("<IIQ", 9, 8, len(vals)) + b"".join(s(v.encode()) for v in vals)


def header(kvs: list[bytes], version: int = 3, n_kv: int | None = None, n_tensors: int = 0) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, n_tensors, len(kvs) if n_kv is None else n_kv) + b"".join(kvs)


def tiny(extra: list[bytes] | None = None) -> bytes:
    """A valid BPE GGUF: the 256 byte-level characters as tokens, one merge."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    chars = [chr(c) for _, c in sorted(zip(bs, cs))]
    toks = chars + ["Ġt"]
    return header([kv_str("general.architecture", "gpt2"), kv_str("tokenizer.ggml.model", "gpt2"),
                   kv_str("tokenizer.ggml.pre", "gpt-2"), kv_strs("tokenizer.ggml.tokens", toks),
                   kv_strs("tokenizer.ggml.merges", ["Ġ t"])] + (extra or []))


def load(tmp_path: Path, data: bytes, name: str = "bad.gguf") -> Tokenizer:
    p = tmp_path / name
    p.write_bytes(data)
    return Tokenizer.from_file(p)


def test_tiny_gguf_loads(tmp_path):
    tok = load(tmp_path, tiny())
    assert ids_of(tok, " t") == [256]
    assert tok.decode(ids_of(tok, "a\x00 tb")) == "a\x00 tb"


@pytest.mark.parametrize("data,reason", [
    (header([], version=1), "version 1"),
    (header([], version=4), "unknown version 4"),
    (header([], n_kv=10 ** 12), "cannot fit"),
    (b"GGUF" + struct.pack("<I", 3) + b"\0" * 5, "the tensor count needs 8 bytes"),
    (header([s(b"k") + struct.pack("<I", 13) + b"\0" * 8]), "unknown value type 13"),
    (header([s(b"k") + struct.pack("<IIQ", 9, 9, 1) + b"\0" * 16]), "array of arrays"),
    (header([s(b"k") + struct.pack("<IIQ", 9, 77, 1) + b"\0" * 16]), "unknown array element type 77"),
    (header([s(b"k") + struct.pack("<IIQ", 9, 4, 1 << 40)]), "run past the end"),
    (header([s(b"k") + struct.pack("<IQ", 8, 1 << 40) + b"\0" * 8]), "string length 1099511627776 runs past the end"),
    (header([struct.pack("<Q", 1 << 50) + b"\0" * 8]), "runs past the end of the file"),
    (header([struct.pack("<Q", 0) + b"\0" * 8]), "is empty"),
    (header([kv_str("a", "x"), kv_str("a", "y")]), 'duplicate key "a"'),
    (header([s(b"tokenizer.ggml.model") + struct.pack("<I", 4) + b"\0" * 4]), 'key "tokenizer.ggml.model" must be a string'),
    (header([s(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 4, 1) + b"\0" * 4]), "must be an array of strings"),
    (header([s(b"tokenizer.ggml.bos_token_id") + struct.pack("<I", 6) + b"\0" * 4]), "must be an integer"),
    (header([kv_str("general.name", "x")]), "no tokenizer.ggml.model"),
    (header([kv_str("tokenizer.ggml.model", "gpt2")]), "no tokenizer.ggml.tokens"),
    (tiny([kv_str("tokenizer.ggml.pre", "x")]), 'duplicate key "tokenizer.ggml.pre"'),
])
def test_bad_header_names_offset_and_reason(tmp_path, data, reason):
    with pytest.raises(TokenizerError) as e:
        load(tmp_path, data)
    msg = str(e.value)
    assert reason in msg, msg
    assert "bad.gguf" in msg
    if "GGUF: at offset" not in msg:
        assert reason.startswith("no tokenizer"), msg


def kv_u32(key: str, val: int) -> bytes:
    return s(key.encode()) + struct.pack("<II", 4, val)


def kv_i32s(key: str, vals: list[int]) -> bytes:
    return s(key.encode()) + struct.pack("<IIQ", 9, 5, len(vals)) + struct.pack(f"<{len(vals)}i", *vals)


def tiny_model(model: str, toks: list[str], extra: list[bytes]) -> bytes:
    return header([kv_str("general.architecture", model), kv_str("tokenizer.ggml.model", model),
                   kv_strs("tokenizer.ggml.tokens", toks)] + extra)


WPM_TOKS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "\u2581hello", "\u2581world", "lo"]


def test_tiny_wpm_and_gemma4_load(tmp_path):
    """Valid small "bert" and "gemma4" files load and encode every seeded random string without error."""
    bert = load(tmp_path, tiny_model("bert", WPM_TOKS, [kv_u32("tokenizer.ggml.unknown_token_id", 1),
                                                        kv_u32("tokenizer.ggml.bos_token_id", 2),
                                                        kv_u32("tokenizer.ggml.seperator_token_id", 3)]), "b.gguf")
    gem = load(tmp_path, tiny_model("gemma4", ["<pad>", "<bos>", "\u2581", "a", "\u2581a"] + [f"<0x{b:02X}>" for b in range(256)],
                                    [kv_strs("tokenizer.ggml.merges", ["\u2581 a"]), kv_u32("tokenizer.ggml.bos_token_id", 1)]),
               "g.gguf")
    rng = random.Random(3)
    alphabet = "hello world HELLO Wörld \t\n.,!中\x00\u0301\ufffd\U0001f999 a"
    for _ in range(500):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        ids = ids_of(bert, t, True)
        assert ids[0] == 2 and ids[-1] == 3 and all(0 <= i < len(WPM_TOKS) for i in ids)
        assert gem.decode(ids_of(gem, t)) == t


@pytest.mark.parametrize("data,reason", [
    (tiny_model("bert", WPM_TOKS, []), "needs its unknown token, and tokenizer.ggml.unknown_token_id is missing"),
    (tiny_model("bert", WPM_TOKS, [kv_u32("tokenizer.ggml.unknown_token_id", 7)]), "unknown_token_id is out of range"),
    (tiny_model("bert", WPM_TOKS + ["lo"], [kv_u32("tokenizer.ggml.unknown_token_id", 1)]),
     "tokenizer.ggml.tokens[7] repeats tokenizer.ggml.tokens[6]"),
    (tiny_model("bert", WPM_TOKS, [kv_u32("tokenizer.ggml.unknown_token_id", 1), kv_i32s("tokenizer.ggml.token_type", [1] * 6)]),
     "token_type has 6 entries for 7 tokens"),
    (tiny_model("gemma4", ["<bos>", "a"], [kv_u32("tokenizer.ggml.bos_token_id", 0)]), "needs tokenizer.ggml.merges"),
    (tiny_model("gemma4", ["<bos>", "a"], [kv_strs("tokenizer.ggml.merges", ["a a"])]), "bos_token_id is missing"),
    (tiny_model("gemma4", ["<bos>", "a"], [kv_strs("tokenizer.ggml.merges", ["a a"]), kv_u32("tokenizer.ggml.bos_token_id", 2)]),
     "bos_token_id is out of range"),
    (tiny_model("gemma4", ["<bos>", "a"], [kv_strs("tokenizer.ggml.merges", ["aa"]), kv_u32("tokenizer.ggml.bos_token_id", 0)]),
     "tokenizer.ggml.merges[0]: no space"),
    (tiny_model("bert", WPM_TOKS, [s(b"tokenizer.ggml.normalizer.lowercase") + struct.pack("<I", 4) + b"\0" * 4]),
     "must be a bool"),
])
def test_bad_wpm_and_gemma4_headers(tmp_path, data, reason):
    """Missing members, ids out of range, duplicate tokens: the file, the key (or offset) and the reason."""
    with pytest.raises(TokenizerError) as e:
        load(tmp_path, data)
    msg = str(e.value)
    assert reason in msg and "bad.gguf" in msg, msg


def test_unknown_pre_is_refused(tmp_path):
    data = tiny().replace(s(b"gpt-2"), s(b"zzz-9"))
    with pytest.raises(TokenizerError, match='pre-tokenizer type "zzz-9" is not supported'):
        load(tmp_path, data)


def test_every_truncation_is_an_error(tmp_path):
    """A real file cut at 400 points of its metadata: an error naming an offset every time, never a crash."""
    data = gguf_file("gpt-2").read_bytes()
    rng = random.Random(7)
    cuts = sorted({4, 7, 8, 23, 24, 25} | {rng.randrange(4, len(data)) for _ in range(400)})
    for cut in cuts:
        with pytest.raises(TokenizerError) as e:
            load(tmp_path, data[:cut])
        # the file, then the offset first (an error inside an array names the entry after it)
        assert re.match(r".*bad\.gguf: GGUF: at offset \d+: ", str(e.value)), str(e.value)


def test_huge_model_file_reads_only_the_header(tmp_path):
    """The metadata of a real file followed by 5 GiB (sparse): above every whole-file read limit (1-2 GiB),
    so it opens only because nothing past the header is read."""
    data = gguf_file("qwen2").read_bytes()
    p = tmp_path / "big.gguf"
    with open(p, "wb") as fh:
        fh.write(data)
        fh.truncate(len(data) + (5 << 30))
    tok = Tokenizer.from_file(p, parse_special=False)
    assert ids_of(tok, "Hello world") == vectors("qwen2")[[t for t, _ in vectors("qwen2")].index("Hello world")][1]


def test_cli_info_and_encode(tokcore, tmp_path):
    path = gguf_file("llama-bpe")
    info = json.loads(subprocess.run([str(tokcore), "info", "--tokenizer", str(path)], capture_output=True,
                                     check=True).stdout)
    assert info["format"] == "gguf" and info["gguf"]["pre"] == "llama-bpe" and info["size"] == path.stat().st_size
    tok = Tokenizer.from_file(path, parse_special=False)
    for text, ids in vectors("llama-bpe")[:20]:
        r = subprocess.run([str(tokcore), "encode", "--no-special", "--no-parse-special", "--tokenizer", str(path),
                            "--jsonl"], input=(json.dumps(text) + "\n").encode(), capture_output=True, check=True)
        assert json.loads(r.stdout)["ids"] == ids == ids_of(tok, text)
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(tiny()[:40])
    r = subprocess.run([str(tokcore), "info", "--tokenizer", str(bad)], capture_output=True)
    assert r.returncode == 1 and b"GGUF: at offset" in r.stderr and b"bad.gguf" in r.stderr



# ---- "t5": llama.cpp's UGM (nomic-bert-moe; against llama-tokenize: tests/test_gguf_ugm.py) --------------

UGM = "nomic-bert-moe"


def test_ugm_loads_as_llamacpp_builds_it():
    """The special ids and flags as llama_vocab::impl::load reads them, the UGM model, the partition's tokens."""
    tok = Tokenizer.from_file(gguf_file(UGM))
    d = tok.describe()
    g = d["gguf"]
    assert isinstance(g, dict)
    assert d["model"] == "UGM (llama.cpp)" and g["model"] == "t5" and tok.vocab_size == 250048
    assert (g["add_bos"], g["add_eos"]) == (True, True)   # the file's flags over the type's false/true
    ids = tok.encode("Hello", add_special_tokens=True).ids.tolist()
    assert ids[0] == tok.token_to_id("<s>") and ids[-1] == tok.token_to_id("</s>")
    with pytest.raises(TokenizerError, match="llama.cpp's UGM vocabulary"):
        tok.encode("x", encoder="rank")


def kv_f32s(key: str, vals: list[float]) -> bytes:
    return s(key.encode()) + struct.pack("<IIQ", 9, 6, len(vals)) + struct.pack(f"<{len(vals)}f", *vals)


def kv_u8s(key: str, data: bytes) -> bytes:
    return s(key.encode()) + struct.pack("<IIQ", 9, 0, len(data)) + data


def kv_bool(key: str, val: bool) -> bytes:
    return s(key.encode()) + struct.pack("<I?", 7, val)


T5_TOKS = ["<pad>", "</s>", "<unk>", "\u2581", "a", "b", "\u2581a", "ab", "[X]", "zz"]
T5_TYPES = [3, 3, 2, 1, 1, 1, 1, 1, 4, 5]


def tiny_t5(extra: list[bytes], toks: list[str] | None = None, types: list[int] | None = None) -> bytes:
    toks = toks or T5_TOKS
    return tiny_model("t5", toks, [kv_f32s("tokenizer.ggml.scores", [-float(i) for i in range(len(toks))]),
                                   kv_i32s("tokenizer.ggml.token_type", types or T5_TYPES)] + extra)


def test_tiny_t5_loads(tmp_path):
    """A small valid "t5" file: the type's defaults (eos 1, unk 2, add_eos), the space prefix and merged spaces from
    its flags, USER_DEFINED text matched whole, unknown characters fused into one <unk>."""
    tok = load(tmp_path, tiny_t5([kv_bool("tokenizer.ggml.add_space_prefix", True),
                                  kv_bool("tokenizer.ggml.remove_extra_whitespaces", True)]), "t.gguf")
    assert tok.describe()["model"] == "UGM (llama.cpp)"
    assert ids_of(tok, "ab", True)[-1] == 1
    ids = ids_of(tok, "  a  [X]qqq zz")
    assert tok.token_to_id("[X]") in ids and ids.count(2) == 1   # the user-defined text whole; "qqq" one <unk>
    assert tok.decode(ids_of(tok, "a ab")) == "a ab"


@pytest.mark.parametrize("data,reason", [
    (tiny_t5([kv_u8s("tokenizer.ggml.precompiled_charsmap", b"\x01\x00")]), "2 bytes, too small for its 4-byte size header"),
    (tiny_t5([kv_u8s("tokenizer.ggml.precompiled_charsmap", struct.pack("<I", 4096) + b"\x00" * 100)]),
     "its double array of 4096 bytes runs past the charsmap's 104 bytes (cut short?"),
    (tiny_t5([kv_f32s("tokenizer.ggml.scores", [0.0] * 3)]), "duplicate key"),
    (tiny_model("t5", T5_TOKS, [kv_f32s("tokenizer.ggml.scores", [0.0] * 3)]), "tokenizer.ggml.scores has 3 entries for 10 tokens"),
    (tiny_model("t5", T5_TOKS, [kv_i32s("tokenizer.ggml.token_type", [1] * 4)]), "token_type has 4 entries for 10 tokens"),
])
def test_bad_t5_headers(tmp_path, data, reason):
    with pytest.raises(TokenizerError) as e:
        load(tmp_path, data)
    msg = str(e.value)
    assert reason in msg and "bad.gguf" in msg, msg


def test_t5_unk_id_out_of_range_keeps_the_default(tmp_path):
    """tokenizer.ggml.unknown_token_id past the vocabulary: llama.cpp warns "bad special token" and keeps the type's
    default (2); a text of unknown characters is that one token."""
    tok = load(tmp_path, tiny_t5([kv_u32("tokenizer.ggml.unknown_token_id", 999)]), "u.gguf")
    assert tok.describe()["gguf"]["special_ids"]["unknown"] == 2
    assert ids_of(tok, "qqq") == [2]


def test_ugm_offsets_cover_each_token_text():
    """Offsets are ours (llama.cpp reports none): each token spans the input units it came from, an inserted U+2581
    the unit that made it; spans are ordered and inside the text, and a token of plain letters spans them."""
    from corpus import random_texts  # noqa: PLC0415
    tok = Tokenizer.from_file(gguf_file(UGM))
    for text in random_texts(31, 1500) + ["Hello wörld", "  a  b  ", "x\u3000y"]:
        raw = text.encode("utf-8")
        e = tok.encode(text, add_special_tokens=False)
        last = 0
        for i, (a, b) in zip(e.ids.tolist(), e.byte_offsets.tolist()):
            assert last <= a <= b <= len(raw), (text, i, a, b)
            last = a
            piece = (tok.id_to_token(i) or "").removeprefix("\u2581")
            if piece.isascii() and piece.isalpha() and raw[a:b].isascii():
                # the charsmap deletes control characters: they stay inside the span of the token around them
                shown = "".join(c for c in raw[a:b].decode() if unicodedata.category(c)[0] != "C")
                assert shown == piece, (text, piece, a, b)
