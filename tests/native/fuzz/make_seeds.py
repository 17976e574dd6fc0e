"""Regenerates the seed corpora corpus/<harness>/ from the real files
(../shared/data: Qwen3 tokenizer.json, qwen.tiktoken, Qwen2 vocab.json +
merges.txt, the llama.cpp test vectors) and the tiny tokenizers of
make_tiny.py: truncated and mutated, each seed at most a few KiB.

    python3 tests/native/fuzz/make_seeds.py     (needs tokinspect installed)
"""

from __future__ import annotations

import base64
import json
import random
import shutil
import struct
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(HERE))

from make_tiny import build  # noqa: E402

SEP = b"\n#MERGES\n"
PATTERNS = [
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}",
    r"(a+)+$", r"(?:x*)*y", r"[^\x{0}-\x{7f}]{2,5}?", r"(?=\d)\w+\b|\A\s|\z", r"[\u00e9-\u00ff&&]|\P{Lu}",
]


def vectors() -> list[bytes]:
    out = []
    for f in sorted((DATA / "llama.cpp" / "models").glob("*.inp")):
        out += [t.encode() for t in f.read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")]
    return [t for t in dict.fromkeys(out) if t][:60]


def fastpat_seeds(texts: list[bytes]) -> list[bytes]:
    """fuzz_fastpat: the test vectors, this repository's C and Python heads and War and Peace's, and
    texts made for the 64-byte blocks (contractions, whitespace runs with \r\n, digit runs, cut by
    non-ASCII bytes), each at most 4 KiB"""
    own = [(REPO / "native" / "src" / "fastpat.c").read_bytes()[:4096], (REPO / "app" / "gui.py").read_bytes()[:4096],
           (DATA / "ollama" / "war-and-peace.txt").read_bytes()[20000:24096]]
    made = [b"x's y'RE z'll  'd\t'm " * 8, b"a.\n\n  b. \n c\t.d  .e..f\n" * 6, b"1 12 123 1234 12345 x9 " * 6,
            "caf\u00e9 na\u00efve \u4e2d\u6587\u3000x\u00a0y\u0085 \U0001F600 ".encode() * 4 + b"\xff\xc3 tail" * 3,
            b"    if x:\r\n        return (y)\r\n\r\n" * 4]
    return texts + own + made


def contract_seeds() -> list[bytes]:
    """contract.json (docs/contract.md): the committed version-1 fixture cut to a few KiB, its head, and
    a cut in the middle of a sample"""
    c = (REPO / "tests" / "data" / "contract_v1.json").read_bytes()
    return [c[:3000], c[:700], c[5000:7000], c[:3000].replace(b'"version": 1', b'"version": 2')]


def mutate(rng: random.Random, b: bytes, n: int = 3) -> bytes:
    b = bytearray(b)
    for _ in range(n):
        if not b:
            break
        i = rng.randrange(len(b))
        op = rng.randrange(3)
        if op == 0:
            b[i] = rng.randrange(256)
        elif op == 1:
            del b[i:i + rng.randrange(1, 8)]
        else:
            b[i:i] = b[rng.randrange(len(b)):][:rng.randrange(1, 8)]
    return bytes(b)


def wordpiece_tokenizers() -> list[bytes]:
    """Synthetic WordPiece / WordLevel tokenizer.json files with every BERT-side component (normalizers,
    pre-tokenizers, processors, decoders), so the fuzzer starts from loadable files of those kinds."""
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##aff", "##able", "a", "##b", "##c", "hello",
             "world", "!", ",", ".", "'", "##s", "na", "##ive", "\u4e2d", "\u6587", "|", "<pad>", "##", "##ing"]
    vocab = {json.loads(f'"{w}"'): i for i, w in enumerate(words)}
    added = [{"id": i, "content": w, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
              "special": True} for i, w in enumerate(words[:5])]
    base = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": vocab}}
    other = dict(base)
    other["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "Nmt"}, {"type": "StripAccents"},
                                                               {"type": "ByteLevel"}]}
    other["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "CharDelimiterSplit", "delimiter": " "}, {"type": "Punctuation", "behavior": "MergedWithNext"},
        {"type": "FixedLength", "length": 3}]}
    other["post_processor"] = {"type": "RobertaProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2],
                               "trim_offsets": True, "add_prefix_space": False}
    other["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True},
        {"type": "BPEDecoder", "suffix": "##"}]}
    other["model"] = dict(base["model"], max_input_chars_per_word=4)
    level = dict(base, model={"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"})
    out = [json.dumps(d, ensure_ascii=False).encode() for d in (base, other, level)]
    rng = random.Random(15)
    return out + [mutate(rng, b, 2) for b in out for _ in range(2)] + [out[0][:700]]


def unigram_json() -> bytes:
    """A small Unigram model with a Precompiled charsmap (tests/charsmap.py) and byte fallback."""
    sys.path.insert(0, str(REPO / "tests"))
    from charsmap import build_charsmap

    blob = build_charsmap({"\r\n": " ", "\t": " ", "\u00ad": "", "\uff21": "A", "\ufb01": "fi", "e\u0301": "\u00e9"})
    pieces = ["<unk>", "\u2581", "a", "b", "ab", "\u2581a", "fi", "\u00e9", "e"] + [f"<0x{b:02X}>" for b in range(256)]
    cfg = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [
               {"id": 0, "content": "<unk>", "single_word": False, "lstrip": False, "rstrip": False,
                "normalized": False, "special": True}],
           "normalizer": {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(blob).decode()},
           "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
           "post_processor": None,
           "decoder": {"type": "Sequence", "decoders": [
               {"type": "ByteFallback"}, {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                                          "split": True}]},
           "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": True,
                     "vocab": [[p, -float(i % 5) - 0.5] for i, p in enumerate(pieces)]}}
    return json.dumps(cfg, ensure_ascii=False).encode()


LOAD_CACHE_KEY = b"tokinspect fuzz load cache key!\0"  # KEY of fuzz_load_cache.c


def load_cache_seeds(qwen_b: bytes) -> list[bytes]:
    """fuzz_load_cache: a seal byte (odd: the harness recomputes the checksum) + the engine's own cache of the
    tiny Qwen tokenizer (whole, cut, mutated), so mutations start from real tables."""
    from tokinspect import _tokcore

    _, _, blob = _tokcore.load_hf_cached(qwen_b, LOAD_CACHE_KEY, None)
    rng = random.Random(23)
    seeds = [b"\x00" + blob, b"\x01" + blob, b"\x01" + blob[:200], b"\x01" + blob[:len(blob) // 2]]
    seeds += [b"\x01" + mutate(rng, blob, 2) for _ in range(6)] + [b"\x00" + mutate(rng, blob[:128], 2)]
    return seeds


def write(name: str, seeds: list[bytes]) -> None:
    d = HERE / "corpus" / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    for i, s in enumerate(dict.fromkeys(seeds)):
        (d / f"seed{i:03d}").write_bytes(s)


def main() -> None:
    rng = random.Random(7)
    qwen, other, tiktoken = build()
    qwen_b = json.dumps(qwen, ensure_ascii=False).encode()
    other_b = json.dumps(other, ensure_ascii=False).encode()
    real_json = (DATA / "qwen3" / "tokenizer.json").read_bytes()
    texts = vectors()

    # json
    seeds = [real_json[:2048], (DATA / "qwen3" / "tokenizer_config.json").read_bytes()[:3000], qwen_b[:1500],
             b'{"a":[1,-2.5e+3,true,false,null,"\\u00e9\\ud83e\\udd99"],"b":{}}', b"[[[[[[]]]]]]", b'"\\"x\\n"']
    seeds += [mutate(rng, s) for s in list(seeds)]
    seeds += contract_seeds()
    write("json", seeds)

    # hf_json: the tiny tokenizers whole (so the fuzzer starts from loadable files), cut, mutated
    small = dict(qwen, model=dict(qwen["model"], vocab=dict(list(qwen["model"]["vocab"].items())[:300]), merges=[]))
    small_b = json.dumps(small, ensure_ascii=False).encode()
    seeds = [qwen_b, other_b, small_b, small_b[:800], real_json[:4000]]
    seeds += [mutate(rng, small_b, 2) for _ in range(6)]
    # a Unigram + Precompiled file, whole, cut inside its charsmap and mutated (its own rng: the
    # seeds of the other harnesses stay as they were)
    uni, urng = unigram_json(), random.Random(15)
    seeds += [uni, uni[:400], uni[:len(uni) // 2]] + [mutate(urng, uni, 2) for _ in range(4)]
    write("hf_json", seeds + wordpiece_tokenizers())

    # vocab_merges: preset byte, vocab.json, SEP, merges.txt
    vocab = json.dumps(qwen["model"]["vocab"], ensure_ascii=False).encode()
    merges = ("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in qwen["model"]["merges"])).encode()
    rv = (DATA / "rtp-llm" / "qwen2_tokenizer" / "vocab.json").read_bytes()[:1500]
    rm = (DATA / "rtp-llm" / "qwen2_tokenizer" / "merges.txt").read_bytes()[:1500]
    seeds = [bytes([p]) + vocab + SEP + merges for p in range(5)]
    seeds += [b"\x04" + rv + SEP + rm, b"\x00" + vocab[:2000] + SEP + merges[:300]]
    seeds += [b"\x01" + mutate(rng, vocab, 2) + SEP + mutate(rng, merges, 2) for _ in range(4)]
    write("vocab_merges", seeds)

    # tiktoken: preset byte + rank file
    real_tt = b"".join((DATA / "qwen-agent" / "qwen.tiktoken").read_bytes().splitlines(keepends=True)[:200])
    seeds = [bytes([p]) + tiktoken for p in range(5)] + [b"\x00" + real_tt, b"\x02" + tiktoken[:1000]]
    seeds += [b"\x01" + mutate(rng, tiktoken, 3) for _ in range(4)]
    write("tiktoken", seeds)

    # vocabbin: preset byte + a vocab.bin compiled from the tiny Qwen tokenizer
    from tokinspect import Tokenizer
    from tokinspect.vocab_bin import compile_vocab_bin
    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / "tokenizer.json"
        p.write_bytes(qwen_b)
        vb = compile_vocab_bin(Tokenizer.from_file(p)).data
    seeds = [b"\x00" + vb, b"\x01" + vb, b"\x00" + vb[:3000], b"\x00" + struct.pack("<I", 3) + b"".join(
        struct.pack("<IH", i, 1) + bytes([0x61 + i]) for i in range(3)), b"\x00" + struct.pack("<I", 1) + b"\x00" * 6]
    seeds += [b"\x00" + mutate(rng, vb, 2) for _ in range(4)]
    write("vocabbin", seeds)

    # regex: pattern, NUL, subject
    seeds = [p.encode() + b"\x00" + t[:300] for p in PATTERNS for t in texts[::12]]
    seeds += [b"(a+)+$\x00" + b"a" * 40 + b"!"]
    write("regex", seeds)

    # encode: selector byte + text
    seeds = [bytes([rng.randrange(64)]) + t[:1000] for t in texts]
    seeds += [b"\x13<|im_start|>user\nhi<|im_end|>", b"\x22\xff\xfe\xc4\xa0 \xc3\xa9e\xcc\x81 123 ABC-def"]
    write("encode", seeds)

    # decode: selector byte + u32 ids
    seeds = [bytes([t]) + b"".join(struct.pack("<I", rng.randrange(720)) for _ in range(rng.randrange(1, 24)))
             for t in range(8)]
    write("decode", seeds)

    # jsonl: selector byte + request line
    lines = [json.dumps(t.decode(errors="replace")).encode() for t in texts[:20]]
    lines += [b'{"text": "<|im_start|>x", "add_special_tokens": true}', b"[9707, 1879]", b'{"ids": [1,2,700],'
              b' "skip_special_tokens": true}', b"[1,-2]", b"oops", b"", b'{"text": 1}', b'"a\\u0000b\\ud83e\\udd99"\r']
    seeds = [bytes([0x10 if ln.startswith((b"[", b'{"ids')) else rng.randrange(16)]) + ln for ln in lines]
    write("jsonl", seeds)

    write("fastpat", fastpat_seeds(texts))
    write("load_cache", load_cache_seeds(qwen_b))
    write("detect", detect_seeds())
    write("gguf", gguf_seeds())


def _gs(b: bytes) -> bytes:
    return struct.pack("<Q", len(b)) + b


def _gkv(key: str, typ: int, payload: bytes) -> bytes:
    return _gs(key.encode()) + struct.pack("<I", typ) + payload


def _gstrs(key: str, vals: list[str]) -> bytes:
    return _gkv(key, 9, struct.pack("<IQ", 8, len(vals)) + b"".join(_gs(v.encode()) for v in vals))


def _gguf(kvs: list[bytes], version: int = 3) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, 0, len(kvs)) + b"".join(kvs)


def gguf_seeds() -> list[bytes]:
    """Small synthetic GGUFs (the fuzz_gguf harness; its first byte picks parse_special): a byte-level
    vocabulary of the 256 GPT-2 characters, a few merges and added tokens, each `pre` family, flags and
    special ids of several integer types, then truncated and mutated copies."""
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    chars = [chr(c) for _, c in sorted(zip(bs, cs))]
    toks = chars + ["\u0120t", "\u0120th", "he", "<|endoftext|>", "<s>", "  "]
    types = [6] * 256 + [1, 1, 1, 3, 3, 4]
    base = [_gkv("general.architecture", 8, _gs(b"gpt2")), _gkv("tokenizer.ggml.model", 8, _gs(b"gpt2")),
            _gstrs("tokenizer.ggml.tokens", toks),
            _gkv("tokenizer.ggml.token_type", 9, struct.pack("<IQ", 5, len(types)) + struct.pack(f"<{len(types)}i", *types)),
            _gkv("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, len(toks)) + struct.pack(f"<{len(toks)}f", *range(len(toks)))),
            _gstrs("tokenizer.ggml.merges", ["\u0120 t", "\u0120t h", "h e"]),
            _gkv("tokenizer.ggml.bos_token_id", 4, struct.pack("<I", 260)),
            _gkv("tokenizer.ggml.eos_token_id", 10, struct.pack("<Q", 259)),
            _gkv("tokenizer.ggml.add_bos_token", 7, b"\x01"),
            _gkv("tokenizer.chat_template", 8, _gs(b"{{ messages }}"))]
    seeds = []
    for pre in (b"gpt-2", b"llama-bpe", b"qwen2", b"qwen35", b"deepseek-llm", b"deepseek-coder", b"falcon",
                b"starcoder", b"default", b"nope"):
        g = _gguf(base + [_gkv("tokenizer.ggml.pre", 8, _gs(pre))])
        seeds += [b"\x00" + g, b"\x01" + g]
    g = seeds[0][1:]
    seeds += [b"\x00" + _gguf(base, version=2), b"\x00" + _gguf(base, version=1),
              b"\x00" + _gguf([_gkv("tokenizer.ggml.model", 8, _gs(b"llama"))] + base[2:])]
    rng = random.Random(16)
    for cut in sorted(rng.sample(range(4, len(g)), 24)):
        seeds.append(b"\x00" + g[:cut])
    for _ in range(24):
        seeds.append(bytes([rng.randrange(2)]) + mutate(rng, g, 4))
    for w in wpm_gemma4_seeds() + t5_seeds():
        seeds += [b"\x00" + w, b"\x01" + w]
        for cut in sorted(rng.sample(range(4, len(w)), 8)):
            seeds.append(b"\x00" + w[:cut])
        for _ in range(8):
            seeds.append(bytes([rng.randrange(2)]) + mutate(rng, w, 4))
    return seeds


def t5_seeds() -> list[bytes]:
    """GGUF "t5" (llama.cpp's UGM): pieces with scores, CONTROL/UNKNOWN/USER_DEFINED/UNUSED types, the space
    flags, a small precompiled charsmap (a one-rule XOR-compressed double array: "A" -> "a"), then a charsmap
    cut short, one without its size header, and one whose replacement offset is past its end."""
    def ints(key: str, typ: int, fmt: str, vals: list) -> bytes:
        return _gkv(key, 9, struct.pack("<IQ", typ, len(vals)) + struct.pack(f"<{len(vals)}{fmt}", *vals))

    def charsmap(value: int) -> bytes:
        # xcda_array_view: root BASE 1; "A" (0x41) at 1 ^ 0x41 = 0x40 is a leaf whose BASE leads to the value node
        units = [0] * 256
        units[0] = 1 << 10
        units[0x40] = 0x41 | (1 << 8) | ((0x40 ^ 0x80) << 10)
        units[0x80] = (1 << 31) | value
        blob = struct.pack(f"<{len(units)}I", *units)
        return struct.pack("<I", len(blob)) + blob + b"a\x00"

    toks = ["<pad>", "</s>", "<unk>", "\u2581", "a", "b", "\u2581a", "ab", "[X]", "zz", "\u2581the"]
    types = [3, 3, 2, 1, 1, 1, 1, 1, 4, 5, 1]
    t5 = [_gkv("general.architecture", 8, _gs(b"t5")), _gkv("tokenizer.ggml.model", 8, _gs(b"t5")),
          _gstrs("tokenizer.ggml.tokens", toks), ints("tokenizer.ggml.token_type", 5, "i", types),
          ints("tokenizer.ggml.scores", 6, "f", [-float(i) for i in range(len(toks))]),
          _gkv("tokenizer.ggml.add_space_prefix", 7, b"\x01"), _gkv("tokenizer.ggml.remove_extra_whitespaces", 7, b"\x01")]
    cm = lambda b: _gkv("tokenizer.ggml.precompiled_charsmap", 9, struct.pack("<IQ", 0, len(b)) + b)  # noqa: E731
    full = charsmap(0)
    return [_gguf(t5), _gguf(t5 + [cm(full)]), _gguf(t5[:5] + [cm(full)]), _gguf(t5 + [cm(full[:300])]),
            _gguf(t5 + [cm(b"\x04\x00")]), _gguf(t5 + [cm(charsmap(99))]),
            _gguf(t5 + [_gkv("tokenizer.ggml.unknown_token_id", 4, struct.pack("<I", 99))])]


def wpm_gemma4_seeds() -> list[bytes]:
    """GGUF "bert" (llama.cpp's WPM: U+2581 word starts, bare continuations, [UNK], its normalizer flags) and
    "gemma4" (SentencePiece-style BPE: U+2581, '\\n' runs, "<0xNN>" bytes, a USER_DEFINED end-of-generation
    text) vocabularies, valid, then with the unk id out of range and a repeated token."""
    def ints(key: str, typ: int, fmt: str, vals: list[int]) -> bytes:
        return _gkv(key, 9, struct.pack("<IQ", typ, len(vals)) + struct.pack(f"<{len(vals)}{fmt}", *vals))

    wtoks = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "\u2581hello", "\u2581world", "lo", "\u2581", "\u2581\u4e2d",
             "\u2581!", "\u2581na", "ive", "s"]
    bert = [_gkv("general.architecture", 8, _gs(b"bert")), _gkv("tokenizer.ggml.model", 8, _gs(b"bert")),
            _gkv("tokenizer.ggml.pre", 8, _gs(b"bert-bge")), _gstrs("tokenizer.ggml.tokens", wtoks),
            ints("tokenizer.ggml.token_type", 5, "i", [3, 3, 3, 3, 3] + [1] * (len(wtoks) - 5)),
            _gkv("tokenizer.ggml.unknown_token_id", 4, struct.pack("<I", 1)),
            _gkv("tokenizer.ggml.bos_token_id", 4, struct.pack("<I", 2)),
            _gkv("tokenizer.ggml.seperator_token_id", 4, struct.pack("<I", 3)),
            _gkv("tokenizer.ggml.normalizer.lowercase", 7, b"\x01")]
    gtoks = ["<pad>", "<eos>", "<bos>", "<unk>", "\u2581", "\n", "\n\n", "a", "\u2581a", "\u2581H", "ello", "<|tool_response>",
             "</s>", "<|tool_call>"] + [f"<0x{b:02X}>" for b in range(256)]
    gtypes = [3, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 4, 1, 4] + [6] * 256
    gemma = [_gkv("general.architecture", 8, _gs(b"gemma4")), _gkv("tokenizer.ggml.model", 8, _gs(b"gemma4")),
             _gstrs("tokenizer.ggml.tokens", gtoks), ints("tokenizer.ggml.token_type", 5, "i", gtypes),
             ints("tokenizer.ggml.scores", 6, "f", list(range(len(gtoks)))),
             _gstrs("tokenizer.ggml.merges", ["\u2581 a", "\n \n", "\u2581 H", "e l"]),
             _gkv("tokenizer.ggml.bos_token_id", 4, struct.pack("<I", 2)),
             _gkv("tokenizer.ggml.add_bos_token", 7, b"\x00")]
    bad_unk = bert[:5] + [_gkv("tokenizer.ggml.unknown_token_id", 4, struct.pack("<I", 99))] + bert[6:]
    repeated = bert[:3] + [_gstrs("tokenizer.ggml.tokens", wtoks + ["lo"])] + bert[4:]
    return [_gguf(bert), _gguf(gemma), _gguf(bad_unk), _gguf(repeated), _gguf(gemma[:5] + gemma[6:])]


def spm_unigram_seeds(piece) -> list[bytes]:
    """SentencePiece .model files of model type Unigram (the default when trainer_spec says none): normal,
    USER_DEFINED, CONTROL, UNUSED and BYTE pieces with byte_fallback; normalizer flags off; then a NaN score, a
    charsmap too short for its header and one whose trie runs past its end, no UNKNOWN piece."""
    def msg(field: int, body: bytes) -> bytes:
        return bytes([field << 3 | 2, len(body)]) + body

    words = [b"<unk>", b"<s>", b"</s>", "\u2581the".encode(), b"ing", b"ed", b"a", b"b", "\u2581".encode()]
    base = b"".join(piece(s, -float(i), 2 if i == 0 else 3 if i < 3 else 1) for i, s in enumerate(words))
    extra = piece(b"[X]", 0.0, 4) + piece(b"zz", -1.0, 5)
    bytes_ = b"".join(piece(f"<0x{b:02X}>".encode(), 0.0, 6) for b in range(256))
    unigram = msg(2, b"\x18\x01")                       # trainer_spec.model_type = UNIGRAM
    fallback = msg(2, b"\x18\x01\x98\x02\x01")           # ... and byte_fallback (field 35)
    norm_off = msg(3, b"\x18\x00\x20\x00\x28\x00")       # add_dummy_prefix, remove_extra_ws, escape_ws false
    nan = base + b"\x0a\x0a\x0a\x01q\x15" + struct.pack("<f", float("nan")) + b"\x18\x01"
    short_map = msg(3, b"\x12\x03\x00\x04\x00")
    past_map = msg(3, b"\x12\x08" + struct.pack("<I", 4096) + b"abcd")
    no_unk = b"".join(piece(s, -float(i), 1) for i, s in enumerate(words))
    return [base + extra + unigram, base + extra + bytes_ + fallback, base + norm_off + unigram, nan + unigram,
            base + short_map, base + past_map, no_unk + unigram, (base + extra + bytes_ + fallback)[:700]]


def detect_seeds() -> list[bytes]:
    """detect: the shapes detect.c tells apart, each a few hundred bytes: a SentencePiece protobuf
    (pieces as sentencepiece_model.proto lays them out), a Tekken head, a BERT vocab.txt, GGUF,
    PNG, ZIP (a PyTorch layout and an .npz), numpy .npy, UTF-16, configs."""
    def piece(s: bytes, score: float, kind: int) -> bytes:
        body = b"\x0a" + bytes([len(s)]) + s + b"\x15" + struct.pack("<f", score) + b"\x18" + bytes([kind])
        return b"\x0a" + bytes([len(body)]) + body

    spm = b"".join(piece(s, -float(i), 2 if i < 3 else 1) for i, s in
                   enumerate([b"<unk>", b"<s>", b"</s>", "\u2581the".encode(), b"ing", b"ed"]))
    tekken = (b'{"config": {"pattern": "\\\\p{N}", "num_vocab_tokens": 3, "default_vocab_size": 131072, '
              b'"default_num_special_tokens": 1000, "version": "v3"}, "vocab": [{"rank": 0, "token_bytes": "AA==", '
              b'"token_str": "\\u0000"}, {"rank": 1, "token_bytes": "AQ=="')
    zip_torch = (b"PK\x03\x04\x14\x00\x00\x00\x00\x00" + b"\x00" * 16 + struct.pack("<HH", 16, 0)
                 + b"archive/data.pkl" + b"\x80\x02}q\x00.")
    zip_npz = (b"PK\x03\x04\x14\x00\x00\x00\x00\x00" + b"\x00" * 16 + struct.pack("<HH", 10, 0) + b"logits.npy"
               + b"\x93NUMPY\x01\x00")
    # a whole Tekken file: the 256 bytes, two merges, 10 special tokens (4 listed, 6 fillers)
    vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None} for i in range(256)]
    vocab += [{"rank": 256 + k, "token_bytes": base64.b64encode(t).decode(), "token_str": t.decode()}
              for k, t in enumerate([b"he", b"hel"])]
    whole = json.dumps({"config": {"pattern": r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+|\s+",
                                   "num_vocab_tokens": 258, "default_vocab_size": 268,
                                   "default_num_special_tokens": 10, "version": "v7"},
                        "vocab": vocab, "special_tokens": [{"rank": i, "token_str": s, "is_control": True}
                                                           for i, s in enumerate(["<unk>", "<s>", "</s>", "[INST]"])]})
    return [
        whole.encode(),
        spm + b"\x12\x04\x08\x01\x10\x02", spm[:40],
        tekken,
        b"[PAD]\n[unused1]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n##s\n##ing\n",
        b"GGUF\x03\x00\x00\x00" + struct.pack("<QQ", 0, 1),
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", zip_torch, zip_npz,
        b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
        "hello world\n".encode("utf-16"), "hello world\n".encode("utf-16-be"),
        b'{"architectures": ["Qwen3ForCausalLM"], "vocab_size": 151936}',
        b'{"added_tokens_decoder": {"151643": {"content": "<|endoftext|>"}}}',
        b"\x80\x02}q\x00.", b"MZ" + b"\x00" * 58 + struct.pack("<I", 64) + b"PE\x00\x00",
        b"", b"   \n", b"\x05\x00\x00\x00garbage",
        *spm_unigram_seeds(piece),
    ]


if __name__ == "__main__":
    main()
