"""Logits sources: .npy (1-D/2-D, v1/v2), raw f32/f16/bf16, text, errors naming sizes, the bigram demo."""

from __future__ import annotations

import struct
import time
from pathlib import Path

import numpy as np
import pytest

from tokinspect import _tokcore
from tokinspect.core.tokenizer import Tokenizer
from tokinspect.sampling import LogitsSource, SamplerSettings, open_logits, run_stages
from tokinspect.sampling.demo import bigram_counts, bigram_logits


def test_npy_1d_2d_dtypes(tmp_path: Path) -> None:
    a = np.random.default_rng(0).standard_normal((3, 50)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    src = open_logits(tmp_path / "a.npy")
    assert (src.steps, src.vocab) == (3, 50) and np.array_equal(src.row(2), a[2])
    assert src._data is None  # rows are read from the file on demand (no map: a shrunk file must not SIGBUS)
    np.save(tmp_path / "b.npy", a[0].astype(np.float16))
    assert np.array_equal(open_logits(tmp_path / "b.npy").row(0), a[0].astype(np.float16).astype(np.float32))
    np.save(tmp_path / "c.npy", a[1].astype(np.float64))
    assert np.array_equal(open_logits(tmp_path / "c.npy").row(0), a[1])
    with pytest.raises(IndexError):
        src.row(3)


def test_npy_v2_and_rejections(tmp_path: Path) -> None:
    a = np.arange(6, dtype=np.float32)
    p = tmp_path / "v2.npy"
    with open(p, "wb") as f:
        np.lib.format.write_array(f, a, version=(2, 0))
    assert np.array_equal(open_logits(p).row(0), a)
    np.save(tmp_path / "be.npy", a.astype(">f4"))
    with pytest.raises(ValueError, match="big-endian"):
        open_logits(tmp_path / "be.npy")
    np.save(tmp_path / "f.npy", np.asfortranarray(np.ones((2, 3), dtype=np.float32)))
    with pytest.raises(ValueError, match="fortran_order"):
        open_logits(tmp_path / "f.npy")
    np.save(tmp_path / "i.npy", np.arange(4))
    with pytest.raises(ValueError, match="not a float"):
        open_logits(tmp_path / "i.npy")
    np.save(tmp_path / "d3.npy", np.ones((1, 2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="dimensions"):
        open_logits(tmp_path / "d3.npy")
    with pytest.raises(ValueError, match="6 values.*vocabulary size is 5"):
        open_logits(p, vocab_size=5)
    data = (tmp_path / "v2.npy").read_bytes()
    (tmp_path / "cut.npy").write_bytes(data[:-2])
    with pytest.raises(ValueError, match="data bytes"):
        open_logits(tmp_path / "cut.npy")


def test_raw_formats(tmp_path: Path) -> None:
    a = np.array([[1.5, -2, np.inf], [0, np.nan, 3]], dtype=np.float32)
    (tmp_path / "x.f32").write_bytes(a.astype("<f4").tobytes())
    src = open_logits(tmp_path / "x.f32", vocab_size=3)
    assert src.steps == 2 and np.array_equal(src.row(0), a[0]) and np.isnan(src.row(1)[1])
    (tmp_path / "x.f16").write_bytes(a.astype("<f2").tobytes())
    assert np.array_equal(open_logits(tmp_path / "x.f16", 3).row(1)[[0, 2]], [0, 3])
    bf = (a.view(np.uint32) >> 16).astype("<u2")
    (tmp_path / "x.bf16").write_bytes(bf.tobytes())
    assert open_logits(tmp_path / "x.bf16", 3).row(0).tolist()[:2] == [1.5, -2.0]
    with pytest.raises(ValueError, match=r"24 bytes.*vocabulary size 4"):
        open_logits(tmp_path / "x.f32", vocab_size=4)
    with pytest.raises(ValueError, match="vocabulary size"):
        open_logits(tmp_path / "x.f32")


def test_text(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("1.5\n-inf\nnan\n\n  2e3 \ninf\n-1\n")
    src = open_logits(tmp_path / "t.txt")
    r = src.row(0)
    assert src.vocab == 6 and r[0] == 1.5 and np.isneginf(r[1]) and np.isnan(r[2]) and r[3] == 2000
    assert open_logits(tmp_path / "t.txt", vocab_size=3).steps == 2
    with pytest.raises(ValueError, match="6 values.*vocabulary size 4"):
        open_logits(tmp_path / "t.txt", vocab_size=4)
    (tmp_path / "bad.txt").write_text("1\n2\nabc\n")
    with pytest.raises(ValueError, match="line 3"):
        open_logits(tmp_path / "bad.txt")


def test_large_file_opens_at_once(tmp_path: Path) -> None:
    p = tmp_path / "big.npy"
    steps, vocab = 1800, 151936       # ~1.1 GB, sparse on disk
    header = np.lib.format.header_data_from_array_1_0(np.zeros((0,), dtype=np.float32))
    header.update(shape=(steps, vocab))
    with open(p, "wb") as f:
        np.lib.format.write_array_header_1_0(f, header)
        f.seek(steps * vocab * 4 - 4, 1)
        f.write(struct.pack("<f", 7.0))
    t0 = time.perf_counter()
    src = open_logits(p)
    assert time.perf_counter() - t0 < 1.0
    assert src.steps == steps and src.row(steps - 1)[-1] == 7.0


def test_bigram_demo() -> None:
    tok = Tokenizer.default()
    text = "the cat sat on the mat. the cat ran. the dog sat."
    src = bigram_logits(tok, text)
    assert "bigram demo" in src.label and src.vocab == tok.vocab_size and src.steps == 1
    ids = np.asarray(tok.encode(text, add_special_tokens=False).ids)
    the = tok.token_to_id("Ġthe")
    assert int((ids[:-1] == the).sum()) == 3               # " the": the default context, most followers
    assert np.array_equal(src.row(0), bigram_logits(tok, text, context_id=the).row(0))
    counts = bigram_counts(ids, the, tok.vocab_size)
    assert counts.sum() == int((ids[:-1] == the).sum())
    row = bigram_logits(tok, text, context_id=the).row(0)
    assert np.argmax(row) == int(np.argmax(counts))
    res = run_stages(row, SamplerSettings(preset="llama.cpp"))
    assert set(res.stages[-1].ids.tolist()) <= set(np.nonzero(counts)[0].tolist())
    with pytest.raises(ValueError):
        bigram_logits(tok, "")
    assert LogitsSource.from_array(np.zeros(3), "x").vocab == 3


def test_native_logits_open_errors_name_path(tmp_path: Path) -> None:
    (tmp_path / "e.bin").write_bytes(b"\x00\x01\x02")
    with pytest.raises(ValueError, match="e.bin"):
        _tokcore.logits_open(str(tmp_path / "e.bin"), "f32", 2)
