"""`vocab diff`: the migration report of one vocabulary to another (seed 003, "Token ID 是模型矩阵的
行号，词表与权重必须联合迁移").

Pieces are compared by their real bytes (so a tokenizer.json, a .tiktoken and a vocab.bin of the same
vocabulary are the same), id by id:
- kept: the id holds the same piece;
- changed: the id holds another piece — a blocker (seed 003's "418 was 低碳, now 数据库": the
  embedding row and the LM-head column keep the old meaning), listed first;
- moved: an old piece lives on under another id (also a blocker for its old row);
- removed: an old piece found nowhere in the new vocabulary;
- appended: new ids the old vocabulary did not have;
- specials moved: an added token whose id changed or that is gone.
The rows to add are the new ids past the embedding's rows, in parameters and bytes for a hidden size
and dtype, once (tied input/output weights) or twice (untied); an output bias is not counted.

Over a corpus, the share of lines whose pieces change although every old id kept its piece: new
pieces "steal" text that old pieces covered, with the most frequent changes.

Does not: load files (the CLI does), or touch weights.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..core.tokenizer import Tokenizer
from .divergence import Report as Divergence
from .divergence import Side, divergence

# bytes per parameter
DTYPES = {"fp32": 4, "f32": 4, "float32": 4, "fp16": 2, "f16": 2, "float16": 2, "bf16": 2, "bfloat16": 2,
          "fp8": 1, "int8": 1}
MIB = 1 << 20


@dataclass(frozen=True)
class VocabTable:
    name: str
    pieces: dict[int, bytes]        # id -> real bytes
    added: dict[str, int]           # added token content -> id
    size: int                       # ids 0 .. size-1

    @classmethod
    def from_tokenizer(cls, tok: Tokenizer) -> VocabTable:
        n = tok.vocab_size
        pieces = {}
        for i in range(n):
            b = tok.id_to_bytes(i)
            if b is not None:
                pieces[i] = b
        added = {str(a["content"]): int(a["id"]) for a in tok.added_tokens}  # type: ignore[call-overload]
        return cls(tok.name, pieces, added, n)

    @classmethod
    def from_ranks(cls, name: str, ranks: dict[int, bytes]) -> VocabTable:
        return cls(name, dict(ranks), {}, max(ranks, default=-1) + 1)


@dataclass(frozen=True)
class Cost:
    rows: int
    hidden: int
    dtype: str
    tied: bool

    @property
    def matrices(self) -> int:
        return 1 if self.tied else 2

    @property
    def parameters(self) -> int:
        return self.rows * self.hidden * self.matrices

    @property
    def bytes(self) -> int:
        return self.parameters * DTYPES[self.dtype]

    @property
    def mib(self) -> float:
        return self.bytes / MIB


def embedding_cost(rows: int, hidden: int, dtype: str, tied: bool) -> Cost:
    """rows x hidden parameters per matrix (seed 003: 32,000 x 4,096 = 131,072,000, 250 MiB in BF16)."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; one of {', '.join(DTYPES)}")
    if rows < 0 or hidden <= 0:
        raise ValueError(f"rows must be >= 0 and the hidden size > 0 (got {rows}, {hidden})")
    return Cost(rows, hidden, dtype, tied)


@dataclass
class VocabDiff:
    old: str
    new: str
    old_size: int
    new_size: int
    kept: list[int] = field(default_factory=list)
    changed: list[tuple[int, bytes, bytes]] = field(default_factory=list)      # id, old piece, new piece
    moved: list[tuple[int, int, bytes]] = field(default_factory=list)          # old id, new id, piece
    removed: list[tuple[int, bytes]] = field(default_factory=list)             # old id, piece
    appended: list[tuple[int, bytes]] = field(default_factory=list)            # new id, piece
    specials_moved: list[tuple[str, int, int | None]] = field(default_factory=list)  # content, old, new

    @property
    def blockers(self) -> int:
        return len(self.changed)

    @property
    def compatible(self) -> bool:
        """Every old id keeps its piece and every added token its id: only appended ids."""
        return not self.changed and not self.removed and not self.moved and not self.specials_moved


def diff(old: VocabTable, new: VocabTable) -> VocabDiff:
    out = VocabDiff(old.name, new.name, old.size, new.size)
    where: dict[bytes, int] = {}
    for i in sorted(new.pieces, reverse=True):   # equal bytes -> the lowest id
        where[new.pieces[i]] = i
    for i in sorted(old.pieces):
        b = old.pieces[i]
        nb = new.pieces.get(i)
        if nb == b:
            out.kept.append(i)
            continue
        if nb is not None:
            out.changed.append((i, b, nb))
        j = where.get(b)
        if j is None:
            out.removed.append((i, b))
        elif j != i:
            out.moved.append((i, j, b))
    out.appended = [(i, new.pieces[i]) for i in sorted(new.pieces) if i not in old.pieces]
    for content, i in sorted(old.added.items(), key=lambda kv: kv[1]):
        j = new.added.get(content)
        if j is None:
            j = where.get(content.encode("utf-8")) if new.added == {} else None
        if j != i:
            out.specials_moved.append((content, i, j))
    return out


@dataclass
class CorpusShift:
    lines: int
    changed_lines: int
    divergence: Divergence

    @property
    def share(self) -> float:
        return self.changed_lines / self.lines if self.lines else 0.0


def corpus_shift(old: Tokenizer, new: Tokenizer, lines: Iterable[str]) -> CorpusShift:
    """Lines whose pieces (bytes) differ between the two tokenizers, and the most frequent changes."""
    rep = divergence(Side(old), Side(new), lines)
    return CorpusShift(rep.lines, rep.lines - rep.agree, rep)
