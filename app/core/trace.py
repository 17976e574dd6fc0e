"""The trace of one encode: what the normalizer, the pre-tokenizer and the
model (BPE merges, WordPiece's longest matches, or a Unigram lattice) did, in plain arrays.

Merge steps are stored compactly (initial symbols + one record per merge,
the position being the index of the left symbol in the chunk's initial
list); `TraceChunk.steps()` replays them into the symbol list before each
step, so a GUI can step back and forth.

Does not: call the engine. `Tokenizer.trace` builds a Trace from the
engine's buffers; this module depends on core/encoding.py alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .encoding import Encoding, Vocabulary

_STEP = np.dtype([("pos", "<u4"), ("rank", "<u4"), ("left", "<u4"), ("right", "<u4"), ("new_id", "<u4")])


@dataclass(frozen=True)
class MergeStep:
    symbols: list[int]   # the symbol ids before this step
    index: int           # index in `symbols` of the left symbol of the pair
    left: int
    right: int
    rank: int
    new_id: int


@dataclass(frozen=True)
class WordPieceStep:
    """One longest-match step of WordPiece in a word (native/src/wordpiece.h): the piece found at
    `pos`, after `tried` longer candidates were not in the vocabulary; or the unk token for the word."""

    pos: int            # byte offset of the piece in the chunk
    length: int         # its bytes in the chunk (without the "##" prefix); 0 for the unk token
    tried: int          # longer candidates looked up first, one char shorter each time
    continuing: bool    # looked up with the continuing-subword prefix ("##")
    id: int
    unk: bool           # the whole word became the unk token


@dataclass(frozen=True)
class LatticeNode:
    """A Unigram lattice node: a piece (or an unknown char) starting at byte `start` of the chunk."""

    start: int                # bytes in the chunk's normalized text
    len: int
    id: int | None            # the piece; for an unknown char the unk id (None: the model has none)
    score: float              # the piece's score (unknown: min score - 10)
    path_score: float         # the best path that ends with this node
    unk: bool
    best: bool                # on the best path


_LATTICE = np.dtype([("start", "<u4"), ("len", "<u4"), ("id", "<u4"), ("score", "<f8"), ("path_score", "<f8"),
                     ("unk", "u1"), ("best", "u1"), ("pad", "u1", (2,))], align=True)


def lattice_nodes(raw: Mapping[str, object]) -> np.ndarray:
    """A raw trace's lattice nodes (every chunk's, in one structured array)."""
    if raw.get("lattice_node_size", _LATTICE.itemsize) != _LATTICE.itemsize:
        raise RuntimeError(f"the engine's lattice node is {raw['lattice_node_size']} bytes, not {_LATTICE.itemsize}")
    return np.frombuffer(raw.get("lattice", b""), dtype=_LATTICE)  # type: ignore[call-overload]


@dataclass(frozen=True)
class TraceChunk:
    norm_span: tuple[int, int]     # bytes in Trace.normalized
    orig_span: tuple[int, int]     # bytes in the original text
    added_id: int | None           # an added-token match
    prefix_space: bool             # ByteLevel add_prefix_space added a space
    initial: list[int]             # initial symbol ids
    raw_steps: np.ndarray          # structured array (pos, rank, left, right, new_id)
    token_range: tuple[int, int]   # tokens of the encoding from this chunk
    lattice: list[LatticeNode] = field(default_factory=list)   # Unigram: every candidate piece
    model: str = "BPE"             # the model's name in describe(): "BPE", "WordPiece", "WordLevel"...

    def wordpiece_steps(self) -> list[WordPieceStep]:
        """WordPiece's steps in this word (empty for other models)."""
        if self.model != "WordPiece":
            return []
        return [WordPieceStep(int(s["pos"]), int(s["rank"]), int(s["left"]), bool(s["right"]), int(s["new_id"]),
                              int(s["rank"]) == 0) for s in self.raw_steps]

    def steps(self) -> list[MergeStep]:
        """Replays the merges: the symbol list before each step (none for a model without merges)."""
        if not self.model.startswith("BPE"):
            return []
        alive = list(range(len(self.initial)))
        ids = list(self.initial)
        out: list[MergeStep] = []
        for st in self.raw_steps:
            pos = int(st["pos"])
            k = alive.index(pos)
            out.append(MergeStep([ids[i] for i in alive], k, int(st["left"]), int(st["right"]),
                                 int(st["rank"]), int(st["new_id"])))
            ids[pos] = int(st["new_id"])
            del alive[k + 1]
        return out

    def final(self) -> list[int]:
        if self.added_id is not None and not self.model.startswith("BPE"):
            return [self.added_id]
        if self.model == "WordPiece":
            wp = self.wordpiece_steps()
            return [wp[-1].id] if wp and wp[-1].unk else [s.id for s in wp]
        steps = self.steps()
        if not steps:
            return list(self.initial)
        last = steps[-1]
        syms = list(last.symbols)
        syms[last.index : last.index + 2] = [last.new_id]
        return syms


@dataclass(frozen=True)
class GreedyStep:
    pos: int                  # original byte offset where the step starts
    chosen: int | None        # the id taken (None: the byte was dropped)
    chosen_len: int           # stored bytes consumed
    candidates: list[int]     # every entry that was a prefix there, shortest first


# kestrel step rules and retry outcomes (native/src/kestrel.h: tc_kestrel_rule, tc_kestrel_retry)
KESTREL_RULES = ("match", "space-retry", "special", "newline", "byte", "unk", "trailing", "nul")
KESTREL_RETRIES = ("none", "taken", "only-space", "guarded")


@dataclass(frozen=True)
class KestrelStep:
    """One step of a kestrel encoder: the spaces it skipped, the token and the rule that chose it."""

    pos: int                  # original byte offset where the step began (before skipped spaces)
    at: int                   # after the skipped spaces
    spaces: int               # spaces skipped
    limit: int                # bytes an ordinary token may take (v2: up to the next special start)
    id: int | None            # the token (None: trailing spaces or a NUL, no token)
    consumed: int             # text bytes after `at` the token covers
    retry_id: int | None      # the "Ġ" retry's longest match (None: not tried, or no match)
    retry_len: int            # its stored length, "Ġ" included
    unguarded: int            # the longest plain match without the limit
    rule: str                 # one of KESTREL_RULES
    retry: str                # one of KESTREL_RETRIES


_KSTEP = np.dtype([("pos", "<u4"), ("at", "<u4"), ("spaces", "<u4"), ("limit", "<u4"), ("id", "<u4"),
                   ("consumed", "<u4"), ("retry_id", "<u4"), ("retry_len", "<u4"), ("unguarded", "<u4"),
                   ("rule", "u1"), ("retry", "u1"), ("pad", "u1", (2,))])
_NONE = 0xFFFFFFFF

_GSTEP = np.dtype([("pos", "<u4"), ("chosen", "<u4"), ("chosen_len", "<u4"), ("cand_first", "<u4"),
                   ("cand_count", "<u4")])


@dataclass(frozen=True)
class Trace:
    encoding: Encoding
    normalized: bytes               # normalized text of all segments, concatenated
    norm_align: np.ndarray          # (len(normalized), 2) original byte span per normalized byte
    normalized_changed: bool
    chunks: list[TraceChunk]
    # the engine's step records, made into GreedyStep / KestrelStep objects on first use: a board diff
    # traces each differing text with every emulation and reads the steps of one (the 47,543 UDHR
    # lines spent 47 s building KestrelSteps nobody read)
    _greedy_raw: np.ndarray = field(repr=False, compare=False)
    _greedy_cands: np.ndarray = field(repr=False, compare=False)
    _kestrel_raw: np.ndarray = field(repr=False, compare=False)

    @cached_property
    def greedy_steps(self) -> list[GreedyStep]:
        """The greedy encoder's steps (empty for the others)."""
        cands = self._greedy_cands.tolist()
        return [GreedyStep(pos, None if chosen == _NONE else chosen, n, cands[first:first + count])
                for pos, chosen, n, first, count in self._greedy_raw.tolist()]

    @cached_property
    def kestrel_steps(self) -> list[KestrelStep]:
        """A kestrel encoder's steps (empty for the others)."""
        return [KestrelStep(pos, at, spaces, limit, None if tid == _NONE else tid, consumed,
                            None if rid == _NONE else rid, rlen, unguarded, KESTREL_RULES[rule], KESTREL_RETRIES[retry])
                for pos, at, spaces, limit, tid, consumed, rid, rlen, unguarded, rule, retry, _pad
                in self._kestrel_raw.tolist()]

    @property
    def normalized_text(self) -> str:
        return self.normalized.decode("utf-8", errors="replace")

    @classmethod
    def from_native(cls, tok: Vocabulary, raw: dict[str, object], model: str = "BPE") -> Trace:
        enc = Encoding.from_native(raw["encoding"], tok)  # type: ignore[arg-type]
        syms = np.frombuffer(raw["syms"], dtype="<u4")  # type: ignore[arg-type]
        steps = np.frombuffer(raw["steps"], dtype=_STEP)  # type: ignore[arg-type]
        lat = lattice_nodes(raw)
        chunks = []
        for c in raw["chunks"]:  # type: ignore[attr-defined]
            lf, lc = c.get("lat_first", 0), c.get("lat_count", 0)
            sf, sc, tf, tc = c["step_first"], c["step_count"], c["tok_first"], c["tok_count"]
            chunks.append(TraceChunk(
                norm_span=(c["norm_start"], c["norm_end"]),
                orig_span=(c["orig_start"], c["orig_end"]),
                added_id=None if c["added_id"] < 0 else int(c["added_id"]),
                prefix_space=bool(c["prefix_space"]),
                initial=[int(x) for x in syms[c["sym_first"] : c["sym_first"] + c["sym_count"]]],
                raw_steps=steps[sf : sf + sc],
                token_range=(tf, tf + tc),
                lattice=[LatticeNode(int(n["start"]), int(n["len"]), None if int(n["id"]) == _NONE else int(n["id"]),
                                     float(n["score"]), float(n["path_score"]), bool(n["unk"]), bool(n["best"]))
                         for n in lat[lf : lf + lc]],
                model=model,
            ))
        align = np.frombuffer(raw["norm_align"], dtype="<u4").reshape(-1, 2)  # type: ignore[arg-type]
        gsteps = np.frombuffer(raw["greedy_steps"], dtype=_GSTEP)  # type: ignore[arg-type]
        gcands = np.frombuffer(raw["greedy_cands"], dtype="<u4")  # type: ignore[arg-type]
        ksteps = np.frombuffer(raw.get("kestrel_steps", b""), dtype=_KSTEP)  # type: ignore[call-overload]
        return cls(enc, bytes(raw["normalized"]), align, bool(raw["normalized_changed"]), chunks,  # type: ignore[arg-type]
                   gsteps, gcands, ksteps)
