"""The three vocabulary sizes (issue 16, seed 001): the model's vocabulary, with the added tokens, and
the embedding rows of the config.json beside the file; a note when they differ.

HF `tokenizers` is the reference for the first two (`get_vocab_size(with_added_tokens=False/True)`,
what transformers calls `tok.vocab_size` and `len(tok)`); the third is whatever the config.json the
test writes beside the file says, in the places real configs keep it (top level, or `text_config` for
multimodal models). Core: the Qwen3 tokenizer.json fixture is built when the shared data is absent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture()
def beside(qwen3_json: Path, tmp_path: Path) -> Path:
    """A copy of Qwen3's tokenizer.json in a folder of its own, for a config.json beside it."""
    d = tmp_path / "Qwen3-0.6B"
    d.mkdir()
    return Path(shutil.copy(qwen3_json, d / "tokenizer.json"))


def _hf(path: Path) -> tuple[int, int]:
    from tokenizers import Tokenizer as HF

    hf = HF.from_file(str(path))
    return hf.get_vocab_size(with_added_tokens=False), hf.get_vocab_size(with_added_tokens=True)


def test_sizes_equal_hf_without_a_config(beside: Path) -> None:
    from tokinspect import Tokenizer

    s = Tokenizer.from_file(beside).vocab_sizes()
    assert (s.model, s.with_added) == _hf(beside)
    assert s.model < s.with_added        # Qwen3 has added tokens: the two numbers differ
    assert s.embedding_rows is None and s.notes == []


@pytest.mark.parametrize("nested", [False, True])
def test_padding_rows_are_named(beside: Path, nested: bool) -> None:
    from tokinspect import Tokenizer

    model, total = _hf(beside)
    rows = (total + 127) // 128 * 128 + 128        # padded up, as released configs are
    cfg = {"text_config": {"vocab_size": rows}} if nested else {"vocab_size": rows, "hidden_size": 1024}
    (beside.parent / "config.json").write_text(json.dumps(cfg))
    s = Tokenizer.from_file(beside).vocab_sizes()
    assert (s.model, s.with_added, s.embedding_rows) == (model, total, rows)
    assert len(s.notes) == 1 and f"{rows - total:,} embedding rows have no token" in s.notes[0]
    assert s.summary() == f"vocab {model:,} + {total - model:,} added = {total:,}  ·  embedding {rows:,}"


def test_too_few_rows_name_the_ids_past_the_table(beside: Path) -> None:
    from tokinspect import Tokenizer

    model, total = _hf(beside)
    (beside.parent / "config.json").write_text(json.dumps({"vocab_size": model}))
    s = Tokenizer.from_file(beside).vocab_sizes()
    assert len(s.notes) == 1 and f"ids {model:,}..{total - 1:,} have no embedding row" in s.notes[0]


@pytest.mark.parametrize("text,why", [("{", "not readable JSON"), ("[1, 2]", "not a JSON object"),
                                      ('{"hidden_size": 8}', "has no vocab_size"),
                                      ('{"vocab_size": true}', "has no vocab_size"),
                                      (b"\xff\xfe{", "not readable JSON")])
def test_a_bad_config_is_a_note_not_an_error(beside: Path, text: str | bytes, why: str) -> None:
    from tokinspect import Tokenizer

    cfg = beside.parent / "config.json"
    cfg.write_bytes(text if isinstance(text, bytes) else text.encode())
    s = Tokenizer.from_file(beside).vocab_sizes()
    assert s.embedding_rows is None and len(s.notes) == 1 and why in s.notes[0] and str(cfg) in s.notes[0]


def test_info_prints_the_three_sizes(beside: Path) -> None:
    model, total = _hf(beside)
    (beside.parent / "config.json").write_text(json.dumps({"vocab_size": total + 3}))
    r = subprocess.run([sys.executable, "-m", "tokinspect", "info", str(beside)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sizes = json.loads(r.stdout)["vocab_sizes"]
    assert (sizes["model"], sizes["with_added"], sizes["embedding_rows"]) == (model, total, total + 3)
    assert sizes["config"] == str(beside.parent / "config.json") and "3 embedding rows" in sizes["notes"][0]


def test_the_notes_in_chinese(beside: Path, qapp) -> None:  # noqa: ANN001 - pytest-qt's QApplication
    """Each note (padding rows, too few rows, an unreadable / non-object / size-less config.json), as the
    window's status tooltip says it under zh_CN: Chinese, its figures and the config's path kept."""
    import re

    from test_engine_messages import english

    from tokinspect.core.vocab_sizes import vocab_sizes
    from tokinspect.window import i18n as window_i18n

    cfg = beside.parent / "config.json"
    model, total = _hf(beside)
    cases = [(json.dumps({"vocab_size": total + 267}), total), (json.dumps({"vocab_size": total - 5}), total),
             ("{not json", total), ("[1, 2]", total), (json.dumps({"hidden_size": 8}), total)]
    t = window_i18n.install(qapp, "zh_CN")
    try:
        for text, n in cases:
            cfg.write_text(text, encoding="utf-8")
            notes = vocab_sizes(model, n, beside).notes
            assert notes, text
            for note in notes:
                said = window_i18n.message(note)
                values = [str(cfg), *re.findall(r"[\d,]+\d", note), "JSONDecodeError", "vocab_size", "config.json"]
                assert re.search(r"[\u4e00-\u9fff]", said), (note, said)
                assert all(v in said for v in values if v in note), (note, said)
                assert not english(said, values, note), (note, said)
    finally:
        qapp.removeTranslator(t)
