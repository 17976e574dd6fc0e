"""`tokcore sample` (the board CLI, built with the one-line board command) and
`tokinspect sample`: the same stages and draws, JSON shape, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tokinspect.sampling import SamplerSettings, draw, run_stages

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def logits(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("logits") / "l.npy"
    a = np.random.default_rng(5).standard_normal((2, 500)).astype(np.float32) * 3
    a[1, 7] = np.nan
    np.save(p, a)
    return p


ARGS = ["--temperature", "0.7", "--top-k", "50", "--top-p", "0.9", "--min-p", "0.02", "--seed", "99", "--draws", "20"]


@pytest.mark.parametrize("preset", ["ds4", "llama.cpp", "kestrel", "hf", "custom"])
@pytest.mark.parametrize("step", [0, 1])
def test_both_clis_agree_with_the_api(tokcore: Path, logits: Path, preset: str, step: int) -> None:
    a = subprocess.run([str(tokcore), "sample", "--logits", str(logits), "--step", str(step), "--preset", preset,
                        *ARGS, "--json"], capture_output=True, text=True, check=True)
    b = subprocess.run([sys.executable, "-m", "tokinspect", "sample", "--logits", str(logits), "--step", str(step),
                        "--preset", preset, *ARGS, "--json"], capture_output=True, text=True, check=True)
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert ja["preset"] == jb["preset"] == preset
    assert [s["name"] for s in ja["stages"]] == [s["name"] for s in jb["stages"]]
    for sa, sb in zip(ja["stages"], jb["stages"]):
        assert sa["ids"] == sb["ids"]
        assert np.allclose(sa["probs"], sb["probs"], rtol=1e-12, atol=0)
    assert ja["draws"] == jb["draws"] and len(ja["draws"]) == 20
    row = np.load(logits)[step]
    s = SamplerSettings(preset=preset, temperature=0.7, top_k=50, top_p=0.9, min_p=0.02, seed=99)
    assert draw(row, s, 20).ids.tolist() == ja["draws"]
    assert run_stages(row, s).stages[-1].ids.tolist() == ja["stages"][-1]["ids"]
    if preset == "kestrel" and step == 1:
        # kestrel runs expf on the NaN: every probability is NaN, r is NaN, the draw
        # falls back to the argmax of the logits (first maximum by >)
        assert set(ja["draws"]) == {int(np.nanargmax(row))}
        assert any("NaN" in n for n in run_stages(row, s).notes)
    else:
        assert set(ja["draws"]) <= set(ja["stages"][-1]["ids"])


def test_text_output_and_errors(tokcore: Path, logits: Path, tmp_path: Path) -> None:
    out = subprocess.run([str(tokcore), "sample", "--logits", str(logits), "--preset", "ds4"], capture_output=True,
                         text=True, check=True).stdout
    assert "top_k" in out and "draws:" in out and "xorshift64*" in out
    out = subprocess.run([sys.executable, "-m", "tokinspect", "sample", "--logits", str(logits), "--preset", "hf"],
                         capture_output=True, text=True, check=True).stdout
    assert "not reproducible" in out
    raw = tmp_path / "r.f32"
    raw.write_bytes(np.zeros(10, dtype="<f4").tobytes())
    for cmd in ([str(tokcore), "sample"], [sys.executable, "-m", "tokinspect", "sample"]):
        r = subprocess.run([*cmd, "--logits", str(raw), "--format", "f32", "--vocab", "3", "--preset", "ds4"],
                           capture_output=True, text=True)
        assert r.returncode != 0 and "40 bytes" in r.stderr and "3" in r.stderr
        r = subprocess.run([*cmd, "--logits", str(logits), "--step", "5", "--preset", "ds4"], capture_output=True, text=True)
        assert r.returncode == 2
    r = subprocess.run([str(tokcore), "sample", "--logits", str(logits), "--preset", "nope"], capture_output=True, text=True)
    assert r.returncode == 2 and "preset" in r.stderr
    r = subprocess.run([str(tokcore), "sample", "--logits", str(raw), "--format", "f32", "--vocab", "5", "--preset",
                        "custom", "--order", "min_p,temperature", "--semantics", "min_p=kestrel", "--json"],
                       capture_output=True, text=True, check=True)
    assert [s["name"] for s in json.loads(r.stdout)["stages"]] == ["input", "min_p", "temperature"]


@pytest.mark.parametrize("top", [None, "0", "7", "1"])
def test_json_top_lists_the_most_probable_in_both_clis(tokcore: Path, tmp_path: Path, top: str | None) -> None:
    """--json lists each stage's K most probable candidates (default 256), most probable first, ties in the
    stage's order; both CLIs the same, and equal to the API's full stage sorted the same way."""
    p = tmp_path / "ties.npy"
    row = np.round(np.random.default_rng(9).standard_normal(3000) * 2, 1).astype(np.float32)   # many ties
    np.save(p, row[None, :])
    extra = [] if top is None else ["--json-top", top]
    args = ["--logits", str(p), "--preset", "hf", "--top-k", "0", "--top-p", "1.0", "--min-p", "0", "--json", *extra]
    a = json.loads(subprocess.run([str(tokcore), "sample", *args], capture_output=True, text=True, check=True).stdout)
    b = json.loads(subprocess.run([sys.executable, "-m", "tokinspect", "sample", *args], capture_output=True,
                                  text=True, check=True).stdout)
    k = 256 if top is None else int(top)
    full = run_stages(row, SamplerSettings(preset="hf", top_k=0, top_p=1.0, min_p=0.0)).stages
    for sa, sb, st in zip(a["stages"], b["stages"], full, strict=True):
        assert sa["ids"] == sb["ids"] and sa["listed"] == sb["listed"] and sa["kept"] == sb["kept"] == st.kept
        assert np.allclose(sa["probs"], sb["probs"], rtol=1e-12, atol=0)
        if k == 0 or k >= st.kept:
            assert sa["ids"] == st.ids.tolist() and sa["listed"] == st.kept
        else:
            order = np.argsort(-st.probs, kind="stable")[:k]
            assert sa["ids"] == st.ids[order].tolist() and sa["listed"] == k
    assert len(a["stages"][0]["ids"]) == (3000 if k == 0 else k)


def test_json_of_a_full_vocabulary_is_small_by_default(tmp_path: Path) -> None:
    """151,669 logits: the default --json was one 4.65 MB line (every input probability); now each stage
    lists 256 candidates."""
    p = tmp_path / "big.npy"
    np.save(p, np.random.default_rng(2).standard_normal((1, 151_669)).astype(np.float32))
    r = subprocess.run([sys.executable, "-m", "tokinspect", "sample", "--logits", str(p), "--preset", "ds4", "--json"],
                       capture_output=True, text=True, check=True)
    j = json.loads(r.stdout)
    assert len(r.stdout) < 100_000 and j["stages"][0]["kept"] == 151_669 and j["stages"][0]["listed"] == 256
