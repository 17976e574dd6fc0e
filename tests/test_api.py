"""The Python API: loading, queries, trace, CLI, threads."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import numpy as np
import pytest

from conftest import pair
from corpus import random_texts
from tokinspect import Tokenizer
from tokinspect.cli import main


def test_default_tokenizer_facts():
    tok = Tokenizer.default()
    assert tok.vocab_size == 151669
    assert tok.token_to_id("Hello") == 9707 and tok.id_to_token(9707) == "Hello"
    assert tok.id_to_token(220) == "Ġ" and tok.id_to_bytes(220) == b" "
    assert tok.id_to_token(151644) == "<|im_start|>" and tok.is_special(151644)
    assert not tok.is_special(151657)          # <tool_call>: added, not special
    assert tok.id_to_token(10**9) is None and tok.token_to_id("no such token ☃☃☃") is None
    specials = [a for a in tok.added_tokens if a["special"]]
    assert len(tok.added_tokens) == 26 and len(specials) == 14


def test_added_tokens_match_qwen3_config(qwen3_json):
    """The embedded Qwen3 added tokens are those of Qwen3's tokenizer.json."""
    doc = json.loads(qwen3_json.read_text(encoding="utf-8"))
    want = [(a["id"], a["content"], a["special"]) for a in doc["added_tokens"]]
    got = [(a["id"], a["content"], a["special"]) for a in Tokenizer.default().added_tokens]
    assert got == want


def test_encoding_arrays():
    tok = Tokenizer.default()
    enc = tok.encode("Hello world<|im_end|>")
    assert enc.ids.dtype == np.uint32 and enc.offsets.shape == (3, 2)
    assert enc.tokens == ["Hello", "Ġworld", "<|im_end|>"]
    assert enc.token_bytes == [b"Hello", b" world", b"<|im_end|>"]
    assert enc.special_mask.tolist() == [0, 0, 1]
    assert enc.byte_offsets.tolist() == [[0, 5], [5, 11], [11, 21]]
    assert not enc.ids.flags.writeable        # a view on engine memory, not a copy per token


def test_offsets_in_chars_and_bytes():
    tok = Tokenizer.default()
    text = "中文 naïve 🦙"
    enc = tok.encode(text)
    for (cs, ce), (bs, be), raw in zip(enc.offsets.tolist(), enc.byte_offsets.tolist(), enc.token_bytes):
        assert text.encode()[bs:be].startswith(raw[:1]) or len(raw) < be - bs
        assert 0 <= cs <= ce <= len(text)


def test_decode():
    tok = Tokenizer.default()
    ids = tok.encode("<|im_start|>user\nhi<|im_end|>").ids
    assert tok.decode(ids) == "<|im_start|>user\nhi<|im_end|>"
    assert tok.decode(ids, skip_special_tokens=True) == "user\nhi"
    assert tok.decode([99, 10**9, -1]) == tok.decode([99])        # unknown ids are skipped, as HF
    assert tok.decode([16144]) == "\ufffd" or len(tok.decode_bytes([16144])) >= 1


# Every decoder HF chains, each alone and after Strip, on a vocabulary whose first token is "".
EMPTY_TOKEN_DECODERS = [
    {"type": "Strip", "content": " ", "start": 2, "stop": 0},   # stop > 0 on "" panics in HF (strip.rs)
    {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
    {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
    {"type": "Fuse"},
    {"type": "ByteFallback"},
    {"type": "WordPiece", "prefix": "##", "cleanup": True},
    {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True},
    {"type": "BPEDecoder", "suffix": "</w>"},
]


@pytest.mark.parametrize("step", EMPTY_TOKEN_DECODERS, ids=lambda d: d["type"])
def test_decode_chain_of_empty_tokens_equals_hf(step: dict, tmp_path) -> None:
    """Regression (fuzz_gguf, UBSan): a chain whose tokens were all "" read a token's start from the
    list's never-allocated pool (NULL + 0). Every decoder, alone and after Strip, equals HF on lists
    of empty tokens, with and without text around them."""
    from tokenizers import Tokenizer as HF

    for chain in ([{"type": "Strip", "content": " ", "start": 1, "stop": 0}, step],
                  [step, {"type": "Strip", "content": "a", "start": 1, "stop": 0}]):
        doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
               "pre_tokenizer": None, "post_processor": None,
               "decoder": {"type": "Sequence", "decoders": chain},
               "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                         "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                         "vocab": {"": 0, "a": 1, "\u2581b": 2, "<0x41>": 3}, "merges": []}}
        path = tmp_path / "tokenizer.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        ours, ref = Tokenizer.from_file(str(path)), HF.from_file(str(path))
        for ids in ([0], [0, 0, 0], [0, 1, 0], [2, 0, 3], [0, 3, 0, 2]):
            assert ours.decode(ids) == ref.decode(ids), (chain, ids)


def test_chunk_keys_at_the_text_end(qwen3_json):
    """The chunk loop keys every chunk from the 16 bytes at its start, whatever its length (pipeline.c
    key_pieces; pad_text gives the text 16 zero bytes past its end). Texts of 2^k - 1, 2^k and 2^k + 1
    bytes (the text buffer grows by doubling, so 2^k fills it) ending in chunks of 1-3 bytes, one call
    each in growing order, cold and cached, ids-only and full, equal HF; under ASan (test_sanitized)
    a key read past the text's buffer fails here."""
    ours, hf = pair(qwen3_json)
    tails = ("a", "a.", " x", "\n", "ab,", "é", "7")
    texts = []
    for k in range(3, 13):
        for n in (2 ** k - 1, 2 ** k, 2 ** k + 1):
            for tail in tails:
                body = ("Tok en, " * n)[: max(0, n - len(tail.encode()))]
                texts.append(body + tail)
    for rnd in range(2):   # the first pass fills the cache, the second is answered from it
        for t in texts:
            want = hf.encode(t, add_special_tokens=False)
            assert ours.encode_ids(t, add_special_tokens=False).tolist() == want.ids, (rnd, len(t), t[-8:])
            e = ours.encode(t, add_special_tokens=False)
            assert e.ids.tolist() == want.ids and e.offsets.tolist() == [list(o) for o in want.offsets], (rnd, t[-8:])


def test_trace_replays_to_the_encoding():
    tok = Tokenizer.default()
    for text in ["Hello naïve world", "e\u0301x 中文 <|im_start|>ok", "  \n\n tabs\tand 12345"]:
        tr = tok.trace(text)
        ids = tr.encoding.ids.tolist()
        assert ids == tok.encode(text).ids.tolist()
        rebuilt = []
        for ch in tr.chunks:
            if ch.added_id is not None:
                rebuilt.append(ch.added_id)
                continue
            steps = ch.steps()
            for st in steps:
                assert st.symbols[st.index] == st.left and st.symbols[st.index + 1] == st.right
            ranks = [st.rank for st in steps]
            assert all(r >= 0 for r in ranks)
            rebuilt += ch.final()
            a, b = ch.token_range
            assert ch.final() == ids[a:b]
        assert rebuilt == ids


def test_trace_reads_no_file(qwen3_json, monkeypatch):
    """A trace of a file's tokenizer does not hash the file (it did, through describe(): a board diff
    traces each differing text three times, and 47,543 UDHR lines spent 217 s re-reading it)."""
    import tokinspect.core.tokenizer as tk

    tok = Tokenizer.from_file(qwen3_json)
    assert tok.describe()["sha256"]

    def no_read(path):
        raise AssertionError(f"read {path}")

    monkeypatch.setattr(tk, "file_sha256", no_read)
    tr = tok.trace("Hello naïve world", encoder="kestrel-v2")
    assert tr.encoding.ids.tolist() == tok.encode("Hello naïve world", encoder="kestrel-v2").ids.tolist()
    assert tok.trace("Hello").chunks[0].model == "BPE"


def test_trace_normalization_alignment():
    tok = Tokenizer.default()
    tr = tok.trace("e\u0301 x")          # NFC composes e + U+0301
    assert tr.normalized_changed
    assert tr.normalized_text == "\u00e9 x"
    # é (2 bytes) aligns to the original 'e' (HF's alignment rule)
    assert tr.norm_align[:2].tolist() == [[0, 1], [0, 1]]


def test_threads_share_one_handle(qwen3_json):
    ours, _ = pair(qwen3_json)
    texts = random_texts(seed=31, n=400)
    want = [e.ids.tolist() for e in ours.encode_batch(texts)]
    errors = []

    def work(k: int) -> None:
        for i in range(k, len(texts), 4):
            if ours.encode(texts[i]).ids.tolist() != want[i]:
                errors.append(i)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_cli_encode_decode_info(capsys, qwen3_json):
    assert main(["encode", "-t", str(qwen3_json), "Hello world"]) == 0
    assert capsys.readouterr().out.strip() == "9707 1879"
    assert main(["encode", "--json", "Hello world"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ids"] == [9707, 1879] and out["tokens"] == ["Hello", "Ġworld"] and out["offsets"] == [[0, 5], [5, 11]]
    assert main(["decode", "9707", "1879"]) == 0
    assert capsys.readouterr().out == "Hello world"
    assert main(["info", str(qwen3_json)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["vocab_size"] == 151669 and len(info["sha256"]) == 64
    assert main(["trace", "Hello"]) == 0
    assert "rank" in capsys.readouterr().out


def test_cli_jsonl_and_errors(tmp_path):
    lines = ['"Hello world"', '{"text": "<|im_start|>x", "add_special_tokens": true}', "not json", '"a\\nb"']
    res = subprocess.run([sys.executable, "-m", "tokinspect", "encode", "--jsonl"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True)
    out = [json.loads(x) for x in res.stdout.splitlines()]
    assert out[0] == {"ids": [9707, 1879], "offsets": [[0, 5], [5, 11]]}
    assert out[1]["ids"][0] == 151644
    assert "error" in out[2]
    assert out[3]["ids"] == Tokenizer.default().encode("a\nb").ids.tolist()
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": ', encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "tokinspect", "encode", "-t", str(bad), "x"],
                         capture_output=True, text=True)
    assert res.returncode == 2 and "end of input" in res.stderr


def test_threads_stress_all_encoders_and_trace():
    """One handle, 8 threads at once: every encoder, traces, batches and
    decodes interleaved (the extension releases the GIL) give exactly the
    single-threaded results."""
    tok = Tokenizer.default()
    texts = random_texts(seed=47, n=120) + ["<|im_start|>user\n🦙 naïve e\u0301<|im_end|>", "", "\xff"]
    encoders = ("bpe", "rank", "greedy")
    want = {e: [tok.encode(t, encoder=e).ids.tolist() for t in texts] for e in encoders}
    want_trace = [tok.trace(t).encoding.ids.tolist() for t in texts[:30]]
    want_dec = [tok.decode(w) for w in want["bpe"]]
    errors: list[str] = []
    start = threading.Barrier(8)

    def work(k: int) -> None:
        start.wait()
        for rep in range(3):
            for i in range(k, len(texts), 3):
                e = encoders[(i + k + rep) % 3]
                if tok.encode(texts[i], encoder=e).ids.tolist() != want[e][i]:
                    errors.append(f"encode {e} {i}")
                if i < 30 and tok.trace(texts[i]).encoding.ids.tolist() != want_trace[i]:
                    errors.append(f"trace {i}")
                if tok.decode(want["bpe"][i]) != want_dec[i]:
                    errors.append(f"decode {i}")
            e = encoders[(k + rep) % 3]
            got = [x.ids.tolist() for x in tok.encode_batch(texts[k::8], encoder=e)]
            if got != want[e][k::8]:
                errors.append(f"batch {e} {k}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
