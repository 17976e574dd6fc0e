"""`info GGUF --against tokenizer.json`: where llama.cpp's recipe differs from the model's own file.

The GGUF is the llama-cpp-python 0.3.36 sdist's vendored ggml-vocab-qwen2.gguf (tests/test_gguf.py pins
its sha256); the tokenizer.json is Qwen3's (the conftest fixture: the shared file, else built from
qwen.tiktoken), same byte-level BPE with NFC in front. Every figure of the report is recomputed here from
the two tokenizers' own answers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_gguf import member

from tokinspect import Tokenizer
from tokinspect.analysis.recipe import compare_recipe
from tokinspect.contract.samples import GOLDEN, probes


@pytest.fixture(scope="module")
def qwen2_gguf() -> Path:
    return member("ggml-vocab-qwen2.gguf")


def test_report_against_the_two_tokenizers(qwen2_gguf: Path, qwen3_json: Path) -> None:
    gguf, hf = Tokenizer.from_file(qwen2_gguf), Tokenizer.from_file(qwen3_json)
    extra = ["cafe\u0301 and A\u030a", "plain ascii words only"]
    pool = [*probes(), *(t for _, t in GOLDEN), *extra]
    rep = compare_recipe(gguf, hf, pool)
    differ = [t for t in pool if gguf.encode(t, False).ids.tolist() != hf.encode(t, False).ids.tolist()]
    assert rep.texts == len(pool) and rep.differing == len(differ) > 0
    assert [e.text for e in rep.examples] == [t[:200] for t in differ[:len(rep.examples)]]
    assert "cafe\u0301 and A\u030a" in differ   # llama.cpp has no NFC step: the combining marks stay apart
    by = {a.name.split(" (")[0]: a for a in rep.aspects}
    assert by["normalizer"].gguf == "none" and by["normalizer"].json == "NFC" and not by["normalizer"].same
    assert "pre 'qwen2'" in next(a.name for a in rep.aspects if a.name.startswith("pre-tokenizer"))
    specials_g = {int(a["id"]) for a in gguf.added_tokens if a["special"]}
    specials_h = {int(a["id"]) for a in hf.added_tokens if a["special"]}
    assert by["special tokens"].same == (specials_g == specials_h)
    assert by["special tokens"].gguf.startswith(f"{len(specials_g)} special")
    assert by["vocabulary"].gguf.startswith(f"{gguf.vocab_size:,} ids")
    assert by["add_special_tokens adds"].gguf == "$A"   # qwen2's GGUF: add_bos false


def test_info_against_prints_it_and_refuses_two_of_a_kind(qwen2_gguf: Path, qwen3_json: Path,
                                                           tmp_path: Path) -> None:
    texts = tmp_path / "t.txt"
    texts.write_text("e\u0301\n\nsecond line\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "tokinspect", "info", str(qwen3_json), "--against", str(qwen2_gguf),
                        "--texts", str(texts)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    vs = json.loads(r.stdout)["llama_cpp_vs"]
    assert vs["gguf"] == str(qwen2_gguf) and vs["other"] == str(qwen3_json)
    assert vs["texts"] == len(probes()) + len(GOLDEN) + 2
    r = subprocess.run([sys.executable, "-m", "tokinspect", "info", str(qwen3_json), "--against", str(qwen3_json)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "GGUF" in r.stderr


def test_compare_tab_shows_where_llama_cpp_reads_the_gguf_differently(qtbot, qwen2_gguf: Path, qwen3_json: Path,
                                                                      tmp_path, monkeypatch) -> None:
    """A = the tokenizer.json, B = the GGUF: the Compare tab names the aspects llama.cpp's recipe changes
    (those compare_recipe reports as differing), and hides the line again when B is the same file kind."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMessageBox

    from tokinspect.widgets.main_window import MainWindow

    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda *a, **k: None))
    win = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    win.open_tokenizer(qwen3_json)
    qtbot.waitUntil(lambda: win.doc.tokenizer is not None and win.doc.tokenizer.format == "hf"
                    and not win.doc.busy, timeout=60_000)
    win.set_text("cafe\u0301 naïve 你好")
    qtbot.waitUntil(lambda: not win.doc.busy and win.doc.analysis.text == "cafe\u0301 naïve 你好", timeout=60_000)
    win.tabs.setCurrentWidget(win.compare)
    cm = win.compare_model
    cm.load_b(str(qwen2_gguf))
    qtbot.waitUntil(lambda: cm.tok_b is not None and cm.result is not None and cm.result.recipe is not None
                    and not cm.busy, timeout=60_000)
    want = [a.name for a in compare_recipe(cm.tok_b, win.doc.tokenizer, []).aspects if not a.same]
    shown = win.compare.recipe.text()
    assert win.compare.recipe.isVisibleTo(win) and want and all(f"{n}: llama.cpp " in shown for n in want)
    assert "normalizer: llama.cpp none · file NFC" in shown
    win.compare.same_b.click()   # B = A again: two files of one kind, no recipe line
    qtbot.waitUntil(lambda: cm.result is not None and cm.result.recipe is None and not cm.busy, timeout=60_000)
    assert not win.compare.recipe.isVisibleTo(win)
