"""The vocab.bin audit as the Vocabulary tab shows it: plain rows, built off the UI thread.

A tokenizer loaded from a vocab.bin is audited as is (`vocab_bin.audit`);
any other byte-level tokenizer can be audited "as vocab.bin": it is compiled
with `vocab_bin.compile_vocab_bin` to a temporary file, which is audited and
removed. Identical-bytes groups carry each member's stored bytes, so the tab
can show the ids side by side with what the board would see.

Does not: compare two vocab.bin files (`vocab_bin.compare`, CLI `vocab diff`).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..core.pieces import visible
from ..core.tokenizer import Tokenizer
from . import vocab_bin

# the engine's class keys, in the order and with the names the tab shows
CLASS_NAMES: dict[str, str] = {
    "ascii": "ASCII",
    "multibyte_utf8": "multi-byte UTF-8",
    "markers": "markers C4 80..C4 A0 (bytes 00..20)",
    "del_7f": "raw 7F (DEL)",
    "raw_80_a0": "raw 80..A0",
    "raw_ad": "raw AD",
    "raw_a1_ff": "raw A1..FF",
}


@dataclass(frozen=True)
class GroupMember:
    id: int
    stored_hex: str
    shown: str          # the stored bytes as text, whitespace visible (invalid UTF-8 as U+FFFD)


@dataclass(frozen=True)
class AuditRows:
    source: str                         # what was audited: the file, or "<name> compiled as vocab.bin"
    compiled: bool                      # True: computed from a compiled copy, not a file on disk
    sha256: str
    size: int
    entries: int
    classes: list[tuple[str, int]]      # (name, count)
    invalid_utf8: int
    longest: tuple[int, int]            # (id, stored length)
    groups: list[list[GroupMember]]     # entries with identical stored bytes
    probes: list[vocab_bin.Probe]
    warnings: list[str]

    @property
    def summary(self) -> str:
        what = "compiled as vocab.bin" if self.compiled else "vocab.bin"
        return (f"{self.source} ({what}): {self.entries:,} entries, {self.size:,} bytes, sha256 {self.sha256[:12]}; "
                f"{len(self.groups)} identical-bytes groups, {self.invalid_utf8:,} entries not valid UTF-8, "
                f"longest id {self.longest[0]} ({self.longest[1]} bytes)")


def _int(value: object) -> int:
    return int(value) if isinstance(value, (int, float, str)) else 0


def rows_from_audit(a: vocab_bin.Audit, source: str, compiled: bool, entries: list[bytes]) -> AuditRows:
    rep = a.report
    raw_classes = rep.get("classes")
    classes_d: dict[str, object] = raw_classes if isinstance(raw_classes, dict) else {}
    classes = [(CLASS_NAMES.get(k, k), _int(v)) for k, v in classes_d.items()]
    order = list(CLASS_NAMES.values())
    classes.sort(key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
    inv = rep.get("invalid_utf8")
    invalid = _int(inv.get("count")) if isinstance(inv, dict) else 0
    lon = rep.get("longest")
    longest = (_int(lon.get("id")), _int(lon.get("len"))) if isinstance(lon, dict) else (0, 0)
    ident = rep.get("identical")
    lists = ident.get("list") if isinstance(ident, dict) else None
    groups: list[list[GroupMember]] = []
    for g in lists if isinstance(lists, list) else []:
        members = []
        for i in g:
            b = entries[i] if 0 <= int(i) < len(entries) else b""
            members.append(GroupMember(int(i), b.hex(" "), visible(b.decode("utf-8", errors="replace"))))
        groups.append(members)
    return AuditRows(source, compiled, a.sha256, a.size, _int(rep.get("n")), classes, invalid, longest, groups,
                     list(a.probes), list(a.warnings))


def audit_tokenizer(tok: Tokenizer) -> AuditRows:
    """The audit of tok's vocab.bin: its own file when it is one, else a compiled temporary copy."""
    if tok.format == "vocab_bin" and tok.path is not None:
        a = vocab_bin.audit(tok.path)
        return rows_from_audit(a, tok.path.name, False, vocab_bin.read_entries(tok.path.read_bytes()))
    compiled = vocab_bin.compile_vocab_bin(tok)
    fd, name = tempfile.mkstemp(prefix="tokinspect-", suffix=".vocab.bin")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(compiled.data)
        a = vocab_bin.audit(name)
    finally:
        Path(name).unlink(missing_ok=True)
    return rows_from_audit(a, tok.name, True, vocab_bin.read_entries(compiled.data))
