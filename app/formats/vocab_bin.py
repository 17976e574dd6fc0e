"""vocab.bin, the board's vocabulary file: compile, audit, probe, compare.

Layout and byte rules: ../DESIGN.md and native/src/vocabbin.h. Compiling
and parsing happen in the engine; this module turns the results into
plain data for the CLI and the GUI.

Does not: encode (Tokenizer.encode(..., encoder="greedy") does).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from .. import _tokcore
from ..core.tokenizer import Tokenizer

# The probes of the seed's section 3.3: space, newline, 0xAD, 0x7F
DEFAULT_PROBES = (220, 198, 255, 221)


@dataclass(frozen=True)
class CompileResult:
    data: bytes
    total: int       # entries written
    changed: int     # model entries whose stored bytes differ from their UTF-8 string
    kept: int        # model entries stored as their UTF-8 string
    specials: int    # added tokens written as their content

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def compile_vocab_bin(tok: Tokenizer) -> CompileResult:
    """Compiles a loaded byte-level tokenizer to vocab.bin bytes."""
    data, st = tok._handle.compile_vocab_bin()
    return CompileResult(bytes(data), st["total"], st["changed"], st["kept"], st["specials"])


def _mapped(real: bytes) -> str:
    """The GPT-2 byte-level string of real bytes (what HF shows)."""
    out = []
    for b in real:
        if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF:
            out.append(chr(b))
        else:
            rank = b if b <= 0x20 else (33 + b - 0x7F if b <= 0xA0 else 67)
            out.append(chr(0x100 + rank))
    return "".join(out)


def real_bytes(stored: bytes) -> bytes:
    """Markers C4 80..C4 A0 back to the bytes 0x00..0x20 (the board cannot
    tell them from the letters with the same UTF-8; neither can this)."""
    out = bytearray()
    i = 0
    while i < len(stored):
        if stored[i] == 0xC4 and i + 1 < len(stored) and 0x80 <= stored[i + 1] <= 0xA0:
            out.append(stored[i + 1] - 0x80)
            i += 2
        else:
            out.append(stored[i])
            i += 1
    return bytes(out)


@dataclass(frozen=True)
class Probe:
    id: int
    stored_hex: str
    real_hex: str
    mapped: str


@dataclass(frozen=True)
class Audit:
    path: str
    sha256: str
    size: int
    report: dict[str, object]     # the engine's audit (classes, invalid UTF-8, longest, identical groups)
    probes: list[Probe]
    warnings: list[str]


def read_entries(data: bytes) -> list[bytes]:
    """Stored bytes of every entry, by id. Raises TokenizerError on a malformed file."""
    entries, _trailing = _tokcore.vocab_bin_entries(data)
    return list(entries)


def audit(path: str | Path, probes: tuple[int, ...] = DEFAULT_PROBES) -> Audit:
    p = Path(path)
    data = p.read_bytes()
    report: dict[str, object] = json.loads(_tokcore.vocab_bin_audit(data))
    entries, trailing = _tokcore.vocab_bin_entries(data)
    rows = []
    for i in probes:
        if 0 <= i < len(entries):
            stored = bytes(entries[i])
            real = real_bytes(stored)
            rows.append(Probe(i, stored.hex(" "), real.hex(" "), _mapped(real)))
    warnings = [f"{trailing} bytes after the last entry"] if trailing else []
    return Audit(str(p), hashlib.sha256(data).hexdigest(), len(data), report, rows, warnings)


@dataclass(frozen=True)
class EntryDiff:
    id: int
    a: bytes | None      # None: the id is missing on that side
    b: bytes | None


@dataclass(frozen=True)
class VocabComparison:
    sha256_a: str
    sha256_b: str
    entries_a: int
    entries_b: int
    differences: list[EntryDiff]

    @property
    def identical(self) -> bool:
        return self.sha256_a == self.sha256_b


def compare(a: str | Path, b: str | Path) -> VocabComparison:
    """Two vocab.bin files (e.g. the board's and the host-compiled one)."""
    return compare_bytes(Path(a).read_bytes(), Path(b).read_bytes())


def compare_bytes(da: bytes, db: bytes) -> VocabComparison:
    """Two vocab.bin contents, entry by entry."""
    ea, eb = read_entries(da), read_entries(db)
    diffs = []
    for i in range(max(len(ea), len(eb))):
        x = ea[i] if i < len(ea) else None
        y = eb[i] if i < len(eb) else None
        if x != y:
            diffs.append(EntryDiff(i, x, y))
    return VocabComparison(hashlib.sha256(da).hexdigest(), hashlib.sha256(db).hexdigest(), len(ea), len(eb), diffs)
