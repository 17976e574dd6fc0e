"""Files HF `tokenizers` (0.23.3) refuses but this engine loads: each one is
loaded with a compatibility note naming the JSON path ("HF tokenizers
refuses this file: ..."), shown by describe()/info, encode/trace (stderr),
tokcore info and the window's status bar. Every mutation is checked against
HF itself (Tokenizer.from_str must raise), and real files carry no note."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from tokenizers import AddedToken, Regex, decoders, models, normalizers, pre_tokenizers, processors  # noqa: E402
from tokenizers import Tokenizer as HF  # noqa: E402

from tokinspect import Tokenizer  # noqa: E402
from tokinspect.core.tokenizer import TokenizerError  # noqa: E402

PREFIX = "HF tokenizers refuses this file: "


def _base() -> dict:
    """A small tokenizer as HF saves it: Split regex, pair merges, one special."""
    tok = HF(models.BPE({"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4}, [("a", "b"), ("ab", "c")]))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"\w+|\s+"), behavior="isolated")
    tok.add_special_tokens([AddedToken("<s>", special=True, normalized=False)])
    return json.loads(tok.to_str())


def _rich() -> HF:
    """HF-saved file with most supported components (normalizer and decoder
    Replace with a (?<name>...) group, which HF accepts, TemplateProcessing)."""
    tok = HF(models.BPE({"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4, "▁": 5, "<s>": 6}, [("a", "b"), ("ab", "c")]))
    tok.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Replace(Regex(r"(?<q>x+)"), "y"),
                                           normalizers.Strip()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.Split(Regex(r"(?<w>\w+)|\s+"), behavior="isolated")])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 6)])
    tok.add_special_tokens([AddedToken("<s>", special=True, normalized=False)])
    tok.add_tokens([AddedToken("xyz", single_word=True, lstrip=True)])
    return tok


def _write(tmp_path: Path, text: str, name: str = "tokenizer.json") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def refused_here_loaded(tmp_path: Path, text: str, path_part: str, why_part: str) -> Tokenizer:
    """HF refuses text; ours loads it with a note naming path_part and why_part."""
    with pytest.raises(Exception):  # noqa: B017 - HF raises a plain Exception
        HF.from_str(text)
    ours = Tokenizer.from_file(_write(tmp_path, text))
    notes = ours.compat_notes
    hits = [n for n in notes if path_part in n and why_part in n]
    assert hits, notes
    assert all(n.startswith(PREFIX) and " at byte " in n for n in notes)
    assert ours.describe()["hf_compat"] == notes
    return ours


# ---- the constructs ---------------------------------------------------------


@pytest.mark.parametrize("field", ["single_word", "lstrip", "rstrip", "normalized", "special"])
def test_added_token_missing_field_is_noted(tmp_path, field):
    d = _base()
    del d["added_tokens"][0][field]
    refused_here_loaded(tmp_path, json.dumps(d), "$.added_tokens[0]", f'no "{field}"')


@pytest.mark.parametrize("field", ["single_word", "lstrip", "rstrip", "normalized", "special"])
def test_added_token_null_field_is_noted(tmp_path, field):
    d = _base()
    d["added_tokens"][0][field] = None
    refused_here_loaded(tmp_path, json.dumps(d), "$.added_tokens[0]", f'"{field}" is null')


@pytest.mark.parametrize("field", ["id", "content"])
def test_added_token_without_id_or_content_refused_by_both(tmp_path, field):
    d = _base()
    del d["added_tokens"][0][field]
    text = json.dumps(d)
    with pytest.raises(Exception, match=f"missing field `{field}`"):
        HF.from_str(text)
    with pytest.raises(TokenizerError, match=r"\$\.added_tokens\[0\]"):
        Tokenizer.from_file(_write(tmp_path, text))


@pytest.mark.parametrize("where", ["pre_tokenizer", "normalizer", "decoder"])
def test_python_named_group_is_noted(tmp_path, where):
    d = _base()
    if where == "pre_tokenizer":
        d["pre_tokenizer"]["pattern"]["Regex"] = r"(?P<word>\w+)|\s+"
        path = "$.pre_tokenizer.pattern.Regex"
    else:
        d[where] = {"type": "Replace", "pattern": {"Regex": "(?P<x>q)"}, "content": "c"}
        path = f"$.{where}.pattern.Regex"
    refused_here_loaded(tmp_path, json.dumps(d), path, "(?P<name>...)")


def test_oniguruma_named_group_and_look_alikes_are_not_noted(tmp_path):
    """(?<name>...) HF accepts; (?P< inside a class or after a backslash is no group."""
    for pat in (r"(?<word>\w+)|\s+", r"[(?P<]|\(?P<x>|\w+|\s+"):
        d = _base()
        d["pre_tokenizer"]["pattern"]["Regex"] = pat
        text = json.dumps(d)
        HF.from_str(text)
        assert Tokenizer.from_file(_write(tmp_path, text)).compat_notes == [], pat


@pytest.mark.parametrize("merges,at,kind", [
    ([["a", "b"], "ab c"], 1, "this one is a string"),
    (["a b", ["ab", "c"]], 1, "this one is a pair"),
])
def test_mixed_merge_list_is_noted(tmp_path, merges, at, kind):
    d = _base()
    d["model"]["merges"] = merges
    ours = refused_here_loaded(tmp_path, json.dumps(d), f"$.model.merges[{at}]", kind)
    assert ours.encode("abc", False).ids.tolist() == [4]


def test_uniform_string_merges_are_not_noted(tmp_path):
    d = _base()
    d["model"]["merges"] = ["a b", "ab c"]
    text = json.dumps(d)
    HF.from_str(text)
    assert Tokenizer.from_file(_write(tmp_path, text)).compat_notes == []


def test_negative_zero_ids_are_noted(tmp_path):
    text = json.dumps(_base())
    vocab = text.replace('"a": 0', '"a": -0')
    assert vocab != text
    refused_here_loaded(tmp_path, vocab, '$.model.vocab["a"]', "-0")
    added = text.replace('"id": 5', '"id": -0')
    assert added != text
    refused_here_loaded(tmp_path, added, "$.added_tokens[0].id", "-0")


def test_note_with_a_cut_key_stays_valid_json(tmp_path):
    """The path quotes 60 bytes of the key: a character cut there is U+FFFD, not broken UTF-8."""
    d = _base()
    key = "a" + "é" * 40
    d["model"]["vocab"][key] = 5
    d["added_tokens"][0]["id"] = 6
    text = json.dumps(d, ensure_ascii=False).replace(f'"{key}": 5', f'"{key}": -0').replace('"a": 0', '"a": 7')
    ours = refused_here_loaded(tmp_path, text, '$.model.vocab["a' + "é" * 29 + "\ufffd" + '"]', "-0")
    assert len(ours.compat_notes) == 1


@pytest.mark.parametrize("form", ["1.0", "1e0", "1E0", "-0.0"])
def test_float_ids_refused_by_both(tmp_path, form):
    text = json.dumps(_base()).replace('"b": 1', f'"b": {form}')
    with pytest.raises(Exception, match="floating point"):
        HF.from_str(text)
    with pytest.raises(TokenizerError, match=r"model\.vocab"):
        Tokenizer.from_file(_write(tmp_path, text))


def test_many_places_are_summed_up(tmp_path):
    d = _base()
    d["added_tokens"] = [{"id": 5 + i, "content": f"<t{i}>"} for i in range(10)]
    text = json.dumps(d)
    with pytest.raises(Exception):  # noqa: B017
        HF.from_str(text)
    ours = Tokenizer.from_file(_write(tmp_path, text))
    notes = ours.compat_notes
    assert len(notes) == 17 and notes[-1] == PREFIX + "and at 34 more places like these"


# ---- no false alarms --------------------------------------------------------


def test_real_files_have_no_notes(tmp_path, qwen3_json, cl100k_json):
    rich = _write(tmp_path, _rich().to_str(), "rich.json")
    base = _write(tmp_path, json.dumps(_base()), "base.json")
    for p in (qwen3_json, cl100k_json, rich, base):
        HF.from_file(str(p))
        ours = Tokenizer.from_file(p)
        assert ours.compat_notes == [], p
        assert ours.describe()["hf_compat"] == []
    assert Tokenizer.default().compat_notes == []


# ---- where they are shown ---------------------------------------------------


def _bad_file(tmp_path: Path) -> Path:
    d = _base()
    d["model"]["merges"] = [["a", "b"], "ab c"]
    del d["added_tokens"][0]["lstrip"]
    return _write(tmp_path, json.dumps(d), "bad.json")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tokinspect", *args], capture_output=True, text=True, timeout=120)


def test_cli_info_encode_trace_show_the_notes(tmp_path):
    bad = str(_bad_file(tmp_path))
    notes = Tokenizer.from_file(bad).compat_notes
    assert len(notes) == 2
    r = _cli("info", bad)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hf_compat"] == notes
    for cmd in ("encode", "trace"):
        r = _cli(cmd, "-t", bad, "abc")
        assert r.returncode == 0, r.stderr
        assert r.stderr.splitlines() == [f"warning: {n}" for n in notes], cmd
    good = str(_write(tmp_path, json.dumps(_base()), "good.json"))
    for cmd in ("encode", "trace"):
        r = _cli(cmd, "-t", good, "abc")
        assert r.returncode == 0 and r.stderr == "", r.stderr


def test_tokcore_info_shows_the_notes(tmp_path, tokcore):
    bad = str(_bad_file(tmp_path))
    r = subprocess.run([str(tokcore), "info", "--tokenizer", bad], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hf_compat"] == Tokenizer.from_file(bad).compat_notes
    good = str(_write(tmp_path, json.dumps(_base()), "good.json"))
    r = subprocess.run([str(tokcore), "info", "--tokenizer", good], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and json.loads(r.stdout)["hf_compat"] == []


def test_status_bar_warns(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from tokinspect.widgets.main_window import MainWindow

    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.show()
    w.open_default()
    qtbot.waitUntil(lambda: w.doc.tokenizer is not None and not w.doc.busy, timeout=15_000)
    assert "HF refuses" not in w.status_tok.text()
    bad = _bad_file(tmp_path)
    w.open_tokenizer(bad)
    qtbot.waitUntil(lambda: w.doc.tokenizer.path == bad and not w.doc.busy, timeout=15_000)
    assert w.status_tok.text().endswith("· ⚠ HF refuses this file")
    assert w.doc.compat_notes == w.doc.tokenizer.compat_notes and len(w.doc.compat_notes) == 2
    for n in w.doc.compat_notes:
        assert n in w.status_tok.toolTip()
    good = _write(tmp_path, json.dumps(_base()), "good.json")
    w.open_tokenizer(good)
    qtbot.waitUntil(lambda: w.doc.tokenizer.path == good and not w.doc.busy, timeout=15_000)
    assert "HF refuses" not in w.status_tok.text() and "HF tokenizers" not in w.status_tok.toolTip()


# ---- the notes in Chinese ---------------------------------------------------


def _noted_files() -> list[tuple[str, str]]:
    """(what, tokenizer.json text) for every kind of note load_hf.c writes."""
    out = []
    for field in ("lstrip", "special"):
        d = _base()
        del d["added_tokens"][0][field]
        out.append((f"no {field}", json.dumps(d)))
        d = _base()
        d["added_tokens"][0][field] = None
        out.append((f"null {field}", json.dumps(d)))
    d = _base()
    d["pre_tokenizer"]["pattern"]["Regex"] = r"(?P<word>\w+)|\s+"
    out.append(("named group", json.dumps(d)))
    for merges in ([["a", "b"], "ab c"], ["a b", ["ab", "c"]]):
        d = _base()
        d["model"]["merges"] = merges
        out.append((f"mixed merges {merges[1]!r}", json.dumps(d)))
    out.append(("-0 id", json.dumps(_base()).replace('"a": 0', '"a": -0')))
    d = _base()
    d["added_tokens"] = [{"id": 5 + i, "content": f"<t{i}>"} for i in range(10)]
    out.append(("many places", json.dumps(d)))
    return out


def test_notes_in_chinese(tmp_path, qapp):
    """Every kind of note, as the command line's warning and the window's tooltip say it under zh_CN:
    Chinese, with its JSON path, byte offset and HF's own quoted error kept; English as the engine wrote it."""
    from test_engine_messages import english

    from tokinspect.cli import i18n
    from tokinspect.window import i18n as window_i18n

    i18n.use("zh_CN")
    t = window_i18n.install(qapp, "zh_CN")
    try:
        for what, text in _noted_files():
            notes = Tokenizer.from_file(_write(tmp_path, text)).compat_notes
            assert notes, what
            for n in notes:
                values = re.findall(r"\$[^ ]*|\d+", n)
                for who, said in (("cli", i18n.message(n)), ("window", window_i18n.message(n))):
                    assert re.search(r"[\u4e00-\u9fff]", said) and all(v in said for v in values), (what, who, said)
                    # names kept as they are: the product, AddedToken's JSON members
                    names = ["(?P<name>...)", "(?<name>...)", "tokenizers", "content", "single_word", "lstrip", "rstrip", "normalized", "special"]
                    assert not english(said, values + names, n), (what, who, n, said)
    finally:
        i18n.use("en")
        qapp.removeTranslator(t)
    assert window_i18n.message(notes[0]) == notes[0]   # English again: the engine's words
