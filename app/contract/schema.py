"""contract.json: reading it, in every schema version, and saying where and why a file is malformed.

Version 2 is written (docs/contract.md lists every field). Version 1, the first layout, is still read:
it had no `engine` block (one `engine_version` string), named the sizes `base`/`total`/`rows`, and
its samples had no `piece_bytes` nor `offsets`; `upgrade` turns it into version 2 with those left
out, and verify skips the checks that need them.

Every error is a ContractError naming the JSON path (`$.samples[3].ids[2]`) or, for a file that is
not JSON, the line, column and byte offset, and the reason.

Does not: freeze or verify (freeze.py, verify.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

VERSION = 2
KIND = "tokinspect contract"
LAYERS = ("file", "pipeline", "normalization", "pieces", "ids", "specials", "template", "decode")
MAX_BYTES = 256 << 20
MAX_DEPTH = 64      # a contract nests 4 deep; Python's json stops near 1,000


class ContractError(ValueError):
    """A contract.json that cannot be read: where (a JSON path or a file position) and why."""


def _type_name(v: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


class _Checker:
    """Walks a parsed contract; each accessor raises ContractError with the path of what it looked at."""

    def fail(self, path: str, why: str) -> ContractError:
        return ContractError(f"{path}: {why}")

    def obj(self, v: object, path: str) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise self.fail(path, f"expected an object, got {_type_name(v)}")
        return v

    def arr(self, v: object, path: str) -> list[Any]:
        if not isinstance(v, list):
            raise self.fail(path, f"expected an array, got {_type_name(v)}")
        return v

    def key(self, o: dict[str, Any], k: str, path: str) -> Any:
        if k not in o:
            raise self.fail(path, f"missing member {k!r}")
        return o[k]

    def string(self, v: object, path: str, nullable: bool = False) -> str | None:
        if v is None and nullable:
            return None
        if not isinstance(v, str):
            raise self.fail(path, f"expected a string, got {_type_name(v)}")
        return v

    def integer(self, v: object, path: str, nullable: bool = False) -> int | None:
        if v is None and nullable:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(path, f"expected an integer, got {_type_name(v)}")
        if v < 0:
            raise self.fail(path, f"expected a non-negative integer, got {v}")
        return v

    def boolean(self, v: object, path: str) -> bool:
        if not isinstance(v, bool):
            raise self.fail(path, f"expected a boolean, got {_type_name(v)}")
        return v

    def sha(self, v: object, path: str) -> str:
        s = self.string(v, path)
        assert s is not None
        if len(s) != 64 or any(c not in "0123456789abcdef" for c in s):
            raise self.fail(path, "expected a sha256 (64 lowercase hex digits)")
        return s

    def each(self, v: object, path: str, item: Callable[[Any, str], object]) -> None:
        for i, x in enumerate(self.arr(v, path)):
            item(x, f"{path}[{i}]")


def _check_file(c: _Checker, v: object, path: str) -> None:
    o = c.obj(v, path)
    c.string(c.key(o, "role", path), f"{path}.role")
    c.string(c.key(o, "name", path), f"{path}.name")
    c.integer(c.key(o, "size", path), f"{path}.size")
    c.sha(c.key(o, "sha256", path), f"{path}.sha256")


def _check_added(c: _Checker, v: object, path: str) -> None:
    o = c.obj(v, path)
    c.integer(c.key(o, "id", path), f"{path}.id")
    c.string(c.key(o, "content", path), f"{path}.content")
    for flag in ("special", "lstrip", "rstrip", "single_word", "normalized"):
        c.boolean(c.key(o, flag, path), f"{path}.{flag}")


def _check_sample(c: _Checker, v: object, path: str, version: int) -> None:
    o = c.obj(v, path)
    c.string(c.key(o, "category", path), f"{path}.category")
    if "bytes_hex" in o:
        h = c.string(o["bytes_hex"], f"{path}.bytes_hex")
        try:
            bytes.fromhex(h or "")
        except ValueError as exc:
            raise c.fail(f"{path}.bytes_hex", f"not hex: {exc}") from exc
    else:
        c.string(c.key(o, "text", path), f"{path}.text")
    c.boolean(c.key(o, "add_special_tokens", path), f"{path}.add_special_tokens")
    c.string(c.key(o, "normalized", path), f"{path}.normalized")
    c.each(c.key(o, "pieces", path), f"{path}.pieces", lambda x, p: c.string(x, p))
    ids = c.arr(c.key(o, "ids", path), f"{path}.ids")
    c.each(ids, f"{path}.ids", lambda x, p: c.integer(x, p))
    if len(c.arr(o["pieces"], f"{path}.pieces")) != len(ids):
        raise c.fail(f"{path}.pieces", f"{len(o['pieces'])} pieces for {len(ids)} ids")
    c.string(c.key(o, "decode", path), f"{path}.decode")
    if version >= 2:
        pb = c.arr(c.key(o, "piece_bytes", path), f"{path}.piece_bytes")
        for i, x in enumerate(pb):
            s = c.string(x, f"{path}.piece_bytes[{i}]") or ""
            try:
                bytes.fromhex(s)
            except ValueError as exc:
                raise c.fail(f"{path}.piece_bytes[{i}]", f"not hex: {exc}") from exc
        offs = c.arr(c.key(o, "offsets", path), f"{path}.offsets")
        for i, x in enumerate(offs):
            pair = c.arr(x, f"{path}.offsets[{i}]")
            if len(pair) != 2:
                raise c.fail(f"{path}.offsets[{i}]", f"expected [start, end], got {len(pair)} numbers")
            c.integer(pair[0], f"{path}.offsets[{i}][0]")
            c.integer(pair[1], f"{path}.offsets[{i}][1]")
        if len(pb) != len(ids) or len(offs) != len(ids):
            raise c.fail(path, f"{len(ids)} ids, {len(pb)} piece_bytes and {len(offs)} offsets")


def check(data: object) -> dict[str, Any]:
    """Validates a parsed contract of any known version; returns it as version 2."""
    c = _Checker()
    o = c.obj(data, "$")
    if c.key(o, "kind", "$") != KIND:
        raise c.fail("$.kind", f"expected {KIND!r}, got {o['kind']!r}")
    version = c.integer(c.key(o, "version", "$"), "$.version")
    if version not in (1, VERSION):
        raise c.fail("$.version", f"version {version} is not one this tokinspect reads (1 to {VERSION})")
    assert version is not None
    c.each(c.key(o, "files", "$"), "$.files", lambda x, p: _check_file(c, x, p))
    c.obj(c.key(o, "pipeline", "$"), "$.pipeline")
    sizes = c.obj(c.key(o, "sizes", "$"), "$.sizes")
    names = ("model_vocab", "tokenizer", "embedding_rows") if version >= 2 else ("base", "total", "rows")
    for k in names:
        c.integer(c.key(sizes, k, "$.sizes"), f"$.sizes.{k}", nullable=True)
    c.each(c.key(o, "added_tokens", "$"), "$.added_tokens", lambda x, p: _check_added(c, x, p))
    tpl = c.key(o, "chat_template", "$")
    if tpl is not None:
        t = c.obj(tpl, "$.chat_template")
        c.sha(c.key(t, "sha256", "$.chat_template"), "$.chat_template.sha256")
        c.string(c.key(t, "rendering", "$.chat_template"), "$.chat_template.rendering", nullable=True)
    fp = c.obj(c.key(o, "fingerprint", "$"), "$.fingerprint")
    c.integer(c.key(fp, "probe_set", "$.fingerprint"), "$.fingerprint.probe_set")
    c.integer(c.key(fp, "probes", "$.fingerprint"), "$.fingerprint.probes")
    c.sha(c.key(fp, "sha256", "$.fingerprint"), "$.fingerprint.sha256")
    if version >= 2:
        eng = c.obj(c.key(o, "engine", "$"), "$.engine")
        c.string(c.key(eng, "tokinspect", "$.engine"), "$.engine.tokinspect")
    else:
        c.string(c.key(o, "engine_version", "$"), "$.engine_version")
    c.each(c.key(o, "samples", "$"), "$.samples", lambda x, p: _check_sample(c, x, p, version))
    return upgrade(o) if version < VERSION else o


def upgrade(o: dict[str, Any]) -> dict[str, Any]:
    """A version-1 contract as version 2 (what it lacks stays absent: verify skips those checks)."""
    out = dict(o)
    out["version"] = VERSION
    out["upgraded_from"] = o["version"]
    s = o["sizes"]
    out["sizes"] = {"model_vocab": s["base"], "tokenizer": s["total"], "embedding_rows": s["rows"]}
    out["engine"] = {"tokinspect": out.pop("engine_version")}
    return out


def _too_deep(raw: bytes) -> int:
    """The byte offset where arrays and objects nest deeper than MAX_DEPTH (strings skipped)."""
    depth, in_str, esc = 0, False, False
    for i, ch in enumerate(raw):
        if in_str:
            if esc:
                esc = False
            elif ch == 0x5C:
                esc = True
            elif ch == 0x22:
                in_str = False
        elif ch == 0x22:
            in_str = True
        elif ch in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_DEPTH:
                return i
        elif ch in (0x5D, 0x7D):
            depth -= 1
    return 0


def parse(raw: bytes, name: str = "contract.json") -> dict[str, Any]:
    """Parses and validates; a ContractError names `name` and the place."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ContractError(f"{name}: byte {exc.start}: not UTF-8 ({exc.reason})") from exc
    if not text.strip():
        raise ContractError(f"{name}: empty file: expected a JSON object")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        offset = len(text[: exc.pos].encode("utf-8"))
        raise ContractError(f"{name}: line {exc.lineno} column {exc.colno} (byte {offset}): {exc.msg}") from exc
    except RecursionError as exc:
        where = _too_deep(raw)
        raise ContractError(f"{name}: byte {where}: nested more than {MAX_DEPTH} deep: not a contract") from exc
    try:
        return check(data)
    except ContractError as exc:
        raise ContractError(f"{name}: {exc}") from None


def load(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    if p.stat().st_size > MAX_BYTES:
        raise ContractError(f"{p}: {p.stat().st_size:,} bytes: larger than any contract ({MAX_BYTES:,})")
    return parse(p.read_bytes(), str(p))


def dump(contract: dict[str, Any]) -> str:
    return json.dumps(contract, ensure_ascii=False, indent=1) + "\n"
