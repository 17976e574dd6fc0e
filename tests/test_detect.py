"""Detection by content: every file gets a clear name, in Python and in the tokcore CLI alike.

Real tokenizer files come from PyPI packages (tests/pypi_files.py, sha256 checked):
  mistral-common 1.13.1 wheel: mistral_common/data/tokenizer.model.v1 (SentencePiece, the file that was read
    as "vocab.bin: N = 84545034"), .../mistral_instruct_tokenizer_241114.model.v7, .../tekken_240718.json
    (was "$.config: unknown top-level member"), .../tekken_240911.json
  cn-clip 1.6.0 wheel: cn_clip/clip/vocab.txt (a BERT WordPiece vocab.txt, was "not a tokenizer.json")
  werkzeug 3.1.8 wheel: werkzeug/debug/shared/console.png (a PNG, was read as a vocab.bin)
  llama-cpp-python 0.3.36 sdist: vendor/llama.cpp/models/ggml-vocab-qwen2.gguf
The other non-tokenizer files are written by their own writers (Pillow, numpy, zipfile, gzip) or are
real files of this machine (the Python interpreter, an ELF), so each magic number is the real one.

A format whose loader is not wired yet is refused with its name ("a SentencePiece model: not
supported yet"); once a loader lands the file loads, so these tests accept either, never a
misreading: what they check is the name the file gets.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pypi_files import pypi_file

from tokinspect import Tokenizer, TokenizerError
from tokinspect.core.detect import identify

MISTRAL = ("mistral-common", "1.13.1")
SPM_FILES = {
    "mistral_common/data/tokenizer.model.v1": "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
    "mistral_common/data/mistral_instruct_tokenizer_241114.model.v7":
        "1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a",
}
TEKKEN_FILES = {
    "mistral_common/data/tekken_240718.json": "eccd1665d2e477697c33cb7f0daa6f6dfefc57a0a6bceb66d4be52952f827516",
    "mistral_common/data/tekken_240911.json": "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
}


def bert_vocab() -> Path:
    return pypi_file("cn-clip", "1.6.0", "cn_clip/clip/vocab.txt",
                     sha256="45bbac6b341c319adc98a532532882e91a9cefc0329aa57bac9ae761c27b291c")


def png() -> Path:
    return pypi_file("werkzeug", "3.1.8", "werkzeug/debug/shared/console.png",
                     sha256="6f16b1e915d796f3a28ff29eaaf48d5f4a2325ff3761b9d9ee6cbedc6c7dc360")


def gguf() -> Path:
    return pypi_file("llama-cpp-python", "0.3.36", "vendor/llama.cpp/models/ggml-vocab-qwen2.gguf", sdist=True,
                     sha256="44c2f46b715f585c6ab513970e8a006bfa5badd6108560054921cf598d154d8c")


def cli(tokcore: Path, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(tokcore), "info", "--tokenizer", str(path)], capture_output=True, text=True,
                          timeout=120)


def refused(path: Path) -> str:
    with pytest.raises(TokenizerError) as ei:
        Tokenizer.from_file(path)
    return str(ei.value)


def loads_or_names(path: Path, name: str, tokcore: Path) -> None:
    """Either the file loads (its loader is wired) or the refusal names the file and its format; in
    Python and in the CLI, and never as a vocab.bin or a tokenizer.json."""
    try:
        Tokenizer.from_file(path)
    except TokenizerError as e:
        assert str(e) == f"{path}: {name}: not supported yet"
    r = cli(tokcore, path)
    if r.returncode != 0:
        assert r.stderr == f"tokcore: {path}: {name}: not supported yet\n"


@pytest.mark.parametrize("member", sorted(SPM_FILES))
def test_sentencepiece_model_by_its_protobuf(member: str, tokcore: Path, tmp_path: Path) -> None:
    path = pypi_file(*MISTRAL, member, sha256=SPM_FILES[member])
    assert identify(path) == ("spm_model", "a SentencePiece model")
    loads_or_names(path, "a SentencePiece model", tokcore)
    # the name does not matter: the same bytes as "vocab.bin" are still a SentencePiece model
    renamed = tmp_path / "vocab.bin"
    renamed.write_bytes(path.read_bytes())
    assert identify(renamed)[0] == "spm_model"
    # cut short (a download stopped): still named for what it is, by the pieces that are whole
    cut = tmp_path / "cut.model"
    cut.write_bytes(path.read_bytes()[:5000])
    assert identify(cut)[0] == "spm_model"


@pytest.mark.parametrize("member", sorted(TEKKEN_FILES))
def test_tekken_json_by_its_members(member: str, tokcore: Path) -> None:
    path = pypi_file(*MISTRAL, member, sha256=TEKKEN_FILES[member])
    assert identify(path) == ("tekken", "a Mistral Tekken tokenizer")
    loads_or_names(path, "a Mistral Tekken tokenizer", tokcore)


def test_bert_vocab_txt(tokcore: Path) -> None:
    path = bert_vocab()
    assert identify(path) == ("wordpiece_txt", "a WordPiece vocab.txt")
    loads_or_names(path, "a WordPiece vocab.txt", tokcore)


def test_gguf_by_its_magic(tokcore: Path) -> None:
    path = gguf()
    assert identify(path) == ("gguf", "a GGUF model file")
    loads_or_names(path, "a GGUF model file", tokcore)


def test_known_formats_keep_their_names(qwen3_json: Path, tmp_path: Path) -> None:
    """The new checks take nothing from the formats that loaded before."""
    import refs
    from tokinspect.formats.vocab_bin import compile_vocab_bin

    assert identify(qwen3_json)[0] == "hf"
    assert identify(refs.qwen_tiktoken_path()) == ("tiktoken", "a tiktoken rank file")
    vb = tmp_path / "vocab.bin"
    vb.write_bytes(compile_vocab_bin(Tokenizer.from_file(qwen3_json)).data)
    assert identify(vb) == ("vocab_bin", "a vocab.bin")


def test_png_is_named(tokcore: Path) -> None:
    path = png()
    assert refused(path) == f"{path}: a PNG image, not a tokenizer"
    r = cli(tokcore, path)
    assert r.returncode == 1 and r.stderr == f"tokcore: {path}: a PNG image, not a tokenizer\n"


def _image(tmp_path: Path, fmt: str, name: str) -> Path:
    p = tmp_path / name
    Image.new("RGB", (8, 8), (200, 30, 30)).save(p, format=fmt)
    return p


def _torch_zip(tmp_path: Path) -> Path:
    """The layout torch.save writes (PyTorch >= 1.6): <name>/data.pkl, <name>/byteorder, <name>/data/0, ..."""
    p = tmp_path / "pytorch_model.bin"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("pytorch_model/data.pkl", b"\x80\x02}q\x00.")
        z.writestr("pytorch_model/byteorder", b"little")
        z.writestr("pytorch_model/data/0", b"\x00" * 64)
        z.writestr("pytorch_model/version", b"3\n")
    return p


def _safetensors(tmp_path: Path) -> Path:
    """The safetensors layout: u64 little-endian header size, the JSON header, the tensor bytes."""
    header = b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    p = tmp_path / "model.safetensors"
    p.write_bytes(len(header).to_bytes(8, "little") + header + np.zeros(2, np.float32).tobytes())
    return p


def _others(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    text = "All human beings are born free and equal in dignity and rights.\n" * 4
    files: dict[str, tuple[Path, str]] = {
        "jpeg": (_image(tmp_path, "JPEG", "a.jpg"), "a JPEG image"),
        "gif": (_image(tmp_path, "GIF", "a.gif"), "a GIF image"),
        "pdf": (_image(tmp_path, "PDF", "a.pdf"), "a PDF document"),
        "torch": (_torch_zip(tmp_path), "a PyTorch checkpoint (a ZIP archive)"),
        "safetensors": (_safetensors(tmp_path), "a safetensors file (model weights)"),
        "elf": (Path(sys.executable).resolve(), "an ELF executable or library"),
    }
    npy = tmp_path / "logits.npy"
    np.save(npy, np.arange(10, dtype=np.float32))
    files["npy"] = (npy, "a numpy .npy array")
    npz = tmp_path / "logits.npz"
    np.savez(npz, logits=np.arange(10, dtype=np.float32))
    files["npz"] = (npz, "a numpy .npz archive")
    zp = tmp_path / "tokenizer.zip"
    with zipfile.ZipFile(zp, "w") as z:
        z.writestr("tokenizer.json", "{}")
    files["zip"] = (zp, "a ZIP archive")
    gz = tmp_path / "tokenizer.json.gz"
    gz.write_bytes(gzip.compress(b'{"version": "1.0"}'))
    files["gzip"] = (gz, "gzip-compressed data (decompress it first)")
    empty = tmp_path / "tokenizer.json"
    empty.write_bytes(b"")
    files["empty"] = (empty, "an empty file")
    for enc in ("utf-16", "utf-16-le", "utf-16-be"):   # with its BOM, and without (either byte order)
        u = tmp_path / f"vocab-{enc}.txt"
        u.write_bytes(text.encode(enc))
        files[enc] = (u, "UTF-16 text (save it as UTF-8)")
    return files


def test_other_files_are_named(tmp_path: Path, tokcore: Path) -> None:
    for _, (path, what) in _others(tmp_path).items():
        assert identify(path) == ("unknown", what), path
        assert refused(path) == f"{path}: {what}, not a tokenizer"
        r = cli(tokcore, path)
        assert r.returncode == 1 and r.stderr == f"tokcore: {path}: {what}, not a tokenizer\n", (path, r.stderr)


def test_configs_beside_a_tokenizer_are_named(tmp_path: Path, tokcore: Path) -> None:
    """tokenizer_config.json and config.json are the files users open by mistake next to tokenizer.json."""
    from conftest import shared

    cases = [(shared("qwen3", "tokenizer_config.json"), "a tokenizer_config.json (the settings beside a tokenizer.json)")]
    cfg = tmp_path / "config.json"
    cfg.write_text('{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 151936}')
    cases.append((cfg, "a model config.json"))
    for path, what in cases:
        assert refused(path) == f"{path}: {what}, not a tokenizer"
        r = cli(tokcore, path)
        assert r.returncode == 1 and r.stderr == f"tokcore: {path}: {what}, not a tokenizer\n"


def test_directory(tmp_path: Path, tokcore: Path, qwen3_json: Path) -> None:
    d = tmp_path / "Qwen3-0.6B"
    d.mkdir()
    assert refused(d) == f"{d}: a directory, not a tokenizer file"
    (d / "tokenizer.json").write_bytes(qwen3_json.read_bytes())
    assert refused(d) == f"{d}: a directory, not a tokenizer file (it holds tokenizer.json: open one of those)"
    r = cli(tokcore, d)
    assert r.returncode == 1 and r.stderr == f"tokcore: {d}: a directory, not a tokenizer file\n"


def test_unknown_text_and_binary_say_what_they_are_not(tmp_path: Path, tokcore: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("These are my notes about tokenizers.\nNothing here is a vocabulary.\n")
    msg = refused(text)
    assert msg.startswith(f"{text}: not a tokenizer file: none of tokenizer.json, ")
    assert "SentencePiece model, Tekken JSON, WordPiece vocab.txt or GGUF" in msg
    binary = tmp_path / "blob.dat"
    rng = np.random.default_rng(16)
    binary.write_bytes(b"\x05\x00\x00\x00" + rng.integers(0, 256, 4000, dtype=np.uint8).tobytes())
    msg = refused(binary)
    assert msg.startswith(f"{binary}: not a tokenizer file (binary data; read as a vocab.bin: vocab.bin: "), msg
    for path in (text, binary):
        r = cli(tokcore, path)
        assert r.returncode == 1 and r.stderr == f"tokcore: {refused(path)}\n"


def test_refusals_name_the_file_for_every_prefix(tmp_path: Path) -> None:
    """Cut real files at many lengths: detection never crashes, and a refusal always names the file
    (the prefixes of a protobuf, a PNG or a JSON file are the misreadings waiting to happen)."""
    srcs = [png().read_bytes(), pypi_file(*MISTRAL, "mistral_common/data/tokenizer.model.v1").read_bytes()[:20000],
            bert_vocab().read_bytes()[:20000]]
    p = tmp_path / "cut"
    for data in srcs:
        for n in list(range(0, 64)) + list(range(64, len(data), 997)):
            p.write_bytes(data[:n])
            try:
                Tokenizer.from_file(p)
            except TokenizerError as e:
                assert str(e).startswith(str(p)), (n, str(e))


def test_cut_wordpiece_is_not_merges(tmp_path: Path) -> None:
    """A BERT vocab.txt never reads as merges.txt (no line has a space), even cut mid-line."""
    data = bert_vocab().read_bytes()
    p = tmp_path / "vocab.txt"
    for n in (2000, 4097, 65536, 100001):
        p.write_bytes(data[:n])
        assert identify(p)[0] == "wordpiece_txt", n
