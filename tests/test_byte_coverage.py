"""Byte-level vocabularies must have a token for each of the 256 bytes: a
byte without one was dropped from the ids with exit 0 (a rank file missing
"e" and 0xC3 encoded and decoded "Hello, world! naïve" as "Hllo, world!
naïv"). Every loader refuses such a file, naming the bytes, on the host
(the extension) and in tokcore alike.

Also a vocab.bin whose N is smaller than its entries: the host loaded it (a
cut vocabulary) while tokcore called it an unknown format; both now refuse
it with the loader's one message.
"""
from __future__ import annotations

import base64
import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tokinspect import Tokenizer
from tokinspect._tokcore import vocab_bin_entries
from tokinspect.core.tokenizer import TokenizerError, qwen_tiktoken_path
from tokinspect.formats.vocab_bin import _mapped, compile_vocab_bin

ROOT = Path(__file__).resolve().parents[1]
CC_LINE = "cc -std=c11 -O2 -o tokcore native/src/*.c native/cli/*.c -lm"
MISSING = "no token for the bytes 0x65 'e', 0xC3: text with them would be lost"


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    assert shutil.which("cc"), "a C compiler (cc) is needed: tests/run.sh installs gcc"
    out = tmp_path_factory.mktemp("tokcore_cov") / "tokcore"
    r = subprocess.run(CC_LINE.replace("-o tokcore", f"-o {out}"), shell=True, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return str(out)


def _refused(cli: str, path: Path, message: str, *extra: str) -> None:
    with pytest.raises(TokenizerError, match=message.replace("(", r"\(")) as e:
        Tokenizer.from_file(path, **({"merges": Path(extra[1])} if extra else {}))
    r = subprocess.run([cli, "encode", "--tokenizer", str(path), *extra, "Hello, world! naïve"],
                       capture_output=True, timeout=120)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert message in r.stderr.decode(), r.stderr.decode()
    assert r.stdout == b""
    return e


def test_tiktoken_without_e_and_c3(tmp_path, cli):
    lines = [ln for ln in qwen_tiktoken_path().read_bytes().splitlines()
             if base64.b64decode(ln.split()[0]) not in (b"e", b"\xc3")]
    p = tmp_path / "cut.tiktoken"
    p.write_bytes(b"\n".join(lines) + b"\n")
    _refused(cli, p, MISSING)


def _byte_vocab(skip: set[int]) -> dict[str, int]:
    return {_mapped(bytes([b])): b for b in range(256) if b not in skip}


def test_vocab_json_and_merges_without_e_and_c3(tmp_path, cli):
    vocab, merges = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vocab.write_text(json.dumps(_byte_vocab({0x65, 0xC3})), encoding="utf-8")
    merges.write_text("#version: 0.2\n", encoding="utf-8")
    _refused(cli, vocab, MISSING, "--merges", str(merges))


def _tokenizer_json(vocab: dict[str, int], byte_fallback: bool) -> dict:
    bl = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True}
    return {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": bl, "post_processor": None,
            "decoder": bl, "model": {"type": "BPE", "dropout": None, "unk_token": None, "byte_fallback": byte_fallback,
                                     "vocab": vocab, "merges": []}}


def test_byte_level_tokenizer_json_without_e_and_c3(tmp_path, cli):
    p = tmp_path / "tokenizer.json"
    p.write_text(json.dumps(_tokenizer_json(_byte_vocab({0x65, 0xC3}), False)), encoding="utf-8")
    _refused(cli, p, MISSING)
    full = tmp_path / "full.json"
    full.write_text(json.dumps(_tokenizer_json(_byte_vocab(set()), False)), encoding="utf-8")
    tok = Tokenizer.from_file(full)
    assert tok.decode(tok.encode("Hello, world! naïve").ids.tolist()) == "Hello, world! naïve"


def test_many_missing_bytes_are_counted(tmp_path):
    p = tmp_path / "tokenizer.json"
    p.write_text(json.dumps(_tokenizer_json(_byte_vocab(set(range(0x80, 0x100))), False)), encoding="utf-8")
    with pytest.raises(TokenizerError, match=r"no token for the bytes 0x80, 0x81, .*0x8B and 116 more: text"):
        Tokenizer.from_file(p)


def _vocab_bin(entries: list[bytes], n: int | None = None) -> bytes:
    out = [struct.pack("<I", len(entries) if n is None else n)]
    out += [struct.pack("<IH", i, len(e)) + e for i, e in enumerate(entries)]
    return b"".join(out)


@pytest.fixture(scope="module")
def qwen_entries() -> list[bytes]:
    entries, trailing = vocab_bin_entries(compile_vocab_bin(Tokenizer.default()).data)
    assert trailing == 0 and entries[68] == b"e"
    return entries


def test_vocab_bin_without_e(tmp_path, cli, qwen_entries):
    entries = list(qwen_entries)
    entries[68] = b"qzqzqzqzqzqzqzqzqz"   # no longer the single byte "e"
    p = tmp_path / "cut.bin"
    p.write_bytes(_vocab_bin(entries))
    _refused(cli, p, "no token for the byte 0x65 'e': text with it would be lost")


def test_vocab_bin_with_n_smaller_than_its_entries(tmp_path, cli, qwen_entries):
    p = tmp_path / "short_n.bin"
    data = _vocab_bin(qwen_entries, n=1000)
    p.write_bytes(data)
    _refused(cli, p, "vocab.bin: N = 1000 at offset 0, but ")
    _refused(cli, p, "the file holds more entries than N says")
    # a few trailing bytes stay a warning (vocab_bin audit), on both sides
    ok = tmp_path / "junk.bin"
    ok.write_bytes(_vocab_bin(qwen_entries) + b"junk")
    assert Tokenizer.from_file(ok).vocab_size == len(qwen_entries)
