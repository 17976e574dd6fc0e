"""Host ids against board ids, aligned by their bytes, each divergence classified.

For every text the host's ids and the board's ids are turned into bytes
(each side's vocabulary: the host tokenizer, and for the board the same one
unless the board's own vocabulary was fetched). The two byte strings are
aligned (identical in the common case; otherwise a byte-level diff), token
edges that fall on the same aligned position on both sides are common
boundaries, and between two consecutive common boundaries the sides either
hold one identical token each or diverge. A divergent span gets a class:

- `same_bytes` — the same bytes split differently; the reason names the
  encoder that explains each side (e.g. the board is `greedy` longest match,
  the host is `bpe` merge ranks) by re-encoding the span on its own;
- `different_bytes` — the bytes differ; the reason lists the byte classes
  involved (markers for 0x00–0x20, 0x7F, 0x80–0xA0, 0xAD) and names a
  vocab.bin identical-stored-bytes pair when that is the cause;
- `special_split` — a special token on one side is pieces on the other;
- `unknown_id` — an id the decoding vocabulary does not have;
- `normalization` — the bytes differ only by Unicode normalization.

Each divergence also carries its `rules` (causes.py): the rule of the board engine that produced the
board's side, found by replaying the emulations (kestrel-v2, kestrel-v1, greedy) step by step; and each
text its `explained_by`, the emulation or host encoder that reproduces the board's ids exactly.

Does not: talk to the board (remote.py gets the ids), or show anything.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..core.tokenizer import Tokenizer
from . import causes
from .causes import Finding

KINDS = ("same_bytes", "different_bytes", "special_split", "unknown_id", "normalization")
KIND_NAMES = {
    "same_bytes": "same bytes, split differently",
    "different_bytes": "different bytes",
    "special_split": "special token split into pieces",
    "unknown_id": "unknown id",
    "normalization": "normalization",
}
# Every fallback reason a divergence can give (when no rule explains it, the why column shows this),
# as its template with the values as {0}, {1}… (what a translation catalog needs).
REASONS: tuple[str, ...] = (
    "id {0} is not in the vocabulary ({1} side)",
    "{0} (id {1}) is one special token on the {2} side only",
    "equal after {0}",
    "host {0} vs board {1}: {2}",
    "host: {0}; board: {1}",
    "neither side is an encoding of the span alone: the split depends on its context (pre-tokenization)",
    "vocab.bin stores id {0} (bytes {1}) as {2}, the UTF-8 of {3} (id {4}): the board read the marker, not the letter",
)
# Values that are words of the reason rather than data (translated too; a list of them joined by
# " = " or ", " is translated word by word).
REASON_WORDS: tuple[str, ...] = (
    "host", "board", "(none)", "no encoder of the span alone", "nothing on one side",
    "bpe (merge ranks)", "rank (lowest id first)", "greedy (longest match)",
    "markers (bytes 00-20)", "7F", "multi-byte UTF-8", "raw 80-A0", "raw AD", "raw A1-FF", "ASCII",
)
_JOINS = (" = ", ", ")


@dataclass(frozen=True)
class Reason:
    """Why a span differs when no rule says it: `sentence` in English; `template` (one of REASONS)
    and `args` its values, so that another language translates the template and puts them back."""

    template: str
    args: tuple[str, ...] = ()

    @property
    def sentence(self) -> str:
        return self.template.format(*self.args)

    def text(self, translate: Callable[[str], str]) -> str:
        """The reason in another language: the template translated, the values put back (the words
        among them, REASON_WORDS, translated too, one by one in a joined list)."""
        def value(a: str) -> str:
            if a in REASON_WORDS:
                return translate(a)
            parts = re.split("(" + "|".join(re.escape(j) for j in _JOINS) + ")", a)
            if len(parts) > 1 and all(p in REASON_WORDS for p in parts[::2]):
                return "".join(translate(p) for p in parts)
            return a
        return translate(self.template).format(*(value(a) for a in self.args))


def _reason(template: str, *args: object) -> Reason:
    return Reason(template, tuple(str(a) for a in args))


# above this many bytes a text whose sides' bytes differ is aligned by common prefix and suffix
# only (difflib's matcher is quadratic in the worst case)
FULL_ALIGN_LIMIT = 20_000


@dataclass(frozen=True)
class Piece:
    id: int
    data: bytes | None      # None: the vocabulary has no such id
    special: bool

    @property
    def shown(self) -> str:
        if self.data is None:
            return f"<unknown id {self.id}>"
        return self.data.decode("utf-8", errors="backslashreplace")


@dataclass(frozen=True)
class Divergence:
    host: tuple[int, int]           # token index range on the host
    board: tuple[int, int]          # token index range on the board
    host_pieces: tuple[Piece, ...]
    board_pieces: tuple[Piece, ...]
    host_bytes: bytes
    board_bytes: bytes
    byte_span: tuple[int, int]      # in the host's bytes
    kind: str
    why: Reason                     # the fallback reason (what differs, when no rule says why)
    findings: tuple[Finding, ...] = ()     # the board engine's rules behind the board's side

    @property
    def reason(self) -> str:
        return self.why.sentence

    @property
    def rules(self) -> tuple[str, ...]:
        out: list[str] = []
        for f in self.findings:
            if f.rule not in out:
                out.append(f.rule)
        return tuple(out)

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes two divergences 'the same span' in the corpus summary."""
        return (self.kind, " ".join(str(p.id) for p in self.host_pieces),
                " ".join(str(p.id) for p in self.board_pieces))


@dataclass(frozen=True)
class TextDiff:
    text: str
    host_ids: tuple[int, ...]
    board_ids: tuple[int, ...] | None   # None: the board gave no ids for this text
    divergences: tuple[Divergence, ...]
    board_error: str | None = None
    explained_by: str | None = None     # the encoder that reproduces the board's ids exactly

    @property
    def same(self) -> bool:
        return self.board_ids is not None and not self.divergences

    @property
    def first(self) -> Divergence | None:
        return self.divergences[0] if self.divergences else None


@dataclass
class Summary:
    texts: int = 0
    identical: int = 0
    missing: int = 0                        # texts without board ids (errors, lost connection)
    host_tokens: int = 0
    board_tokens: int = 0
    per_kind: Counter[str] = field(default_factory=Counter)
    per_rule: Counter[str] = field(default_factory=Counter)
    explained: Counter[str] = field(default_factory=Counter)   # texts per explaining encoder ("" = none)
    spans: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    examples: dict[tuple[str, str, str], Divergence] = field(default_factory=dict)
    first_divergence: list[tuple[int, int]] = field(default_factory=list)   # (text index, host byte offset)

    @property
    def agree(self) -> bool:
        return self.identical == self.texts

    def most_frequent(self, n: int = 20) -> list[tuple[Divergence, int]]:
        return [(self.examples[k], c) for k, c in self.spans.most_common(n)]


# ---- one text -------------------------------------------------------------------------------------------

def pieces_of(tok: Tokenizer, ids: Sequence[int]) -> list[Piece]:
    """Each id with its bytes in tok's vocabulary (None for an id it does not have)."""
    n = tok.vocab_size
    out = []
    for i in ids:
        data = tok.id_to_bytes(i) if 0 <= i < n else None
        out.append(Piece(int(i), data, data is not None and tok.is_special(int(i))))
    return out


def byte_starts(pieces: Sequence[Piece]) -> np.ndarray:
    """Byte offset of every piece in the concatenation, and the total at the end."""
    lens = np.fromiter((len(p.data or b"") for p in pieces), dtype=np.int64, count=len(pieces))
    out = np.zeros(len(pieces) + 1, dtype=np.int64)
    np.cumsum(lens, out=out[1:])
    return out


def _matching_blocks(a: bytes, b: bytes) -> list[tuple[int, int, int]]:
    if a == b:
        return [(0, 0, len(a))]
    if max(len(a), len(b)) > FULL_ALIGN_LIMIT:
        pre = 0
        while pre < min(len(a), len(b)) and a[pre] == b[pre]:
            pre += 1
        suf = 0
        while suf < min(len(a), len(b)) - pre and a[-1 - suf] == b[-1 - suf]:
            suf += 1
        return [(0, 0, pre), (len(a) - suf, len(b) - suf, suf)]
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [(m.a, m.b, m.size) for m in sm.get_matching_blocks() if m.size]


def _common_boundaries(pos_h: np.ndarray, pos_b: np.ndarray, blocks: list[tuple[int, int, int]],
                       end_h: int, end_b: int) -> list[tuple[int, int]]:
    """(host, board) byte positions that are token edges on both sides and aligned."""
    board_edges = set(pos_b.tolist())
    out = [(0, 0)]
    for i, j, n in blocks:
        lo, hi = np.searchsorted(pos_h, i, "left"), np.searchsorted(pos_h, i + n, "right")
        for p in pos_h[lo:hi].tolist():
            q = j + (p - i)
            if q in board_edges and p >= out[-1][0] and q >= out[-1][1] and (p, q) != out[-1]:
                out.append((p, q))
    if out[-1] != (end_h, end_b):
        out.append((end_h, end_b))
    return out


def _differing_runs(a: bytes, b: bytes) -> list[bytes]:
    """The runs of a and of b outside their common runs."""
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    runs = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op != "equal":
            runs += [r for r in (a[i1:i2], b[j1:j2]) if r]
    return runs


def byte_classes(run: bytes) -> list[str]:
    """What a run of bytes is, in the audit's classes: whole UTF-8 characters, or raw bytes by range."""
    out = []
    if any(x <= 0x20 for x in run):
        out.append("markers (bytes 00-20)")
    if 0x7F in run:
        out.append("7F")
    if any(x >= 0x80 for x in run):
        try:
            run.decode("utf-8")
            out.append("multi-byte UTF-8")
        except UnicodeDecodeError:
            for name, lo, hi in (("raw 80-A0", 0x80, 0xA0), ("raw AD", 0xAD, 0xAD), ("raw A1-FF", 0xA1, 0xFF)):
                if any(lo <= x <= hi and (name != "raw A1-FF" or x != 0xAD) for x in run):
                    out.append(name)
    if any(0x21 <= x <= 0x7E for x in run):
        out.append("ASCII")
    return out


def stored_form(real: bytes) -> bytes:
    """A token's bytes as vocab.bin stores them: 0x00-0x20 as their markers C4 80..C4 A0."""
    return b"".join(b"\xc4" + bytes([0x80 + x]) if x <= 0x20 else bytes([x]) for x in real)


def _marker_collision(host: Sequence[Piece], board: Sequence[Piece]) -> Reason | None:
    """A board token whose vocab.bin stored bytes are a host token's real bytes (the identical-bytes pairs)."""
    for bp in board:
        if bp.data is None or bp.special:
            continue
        stored = stored_form(bp.data)
        if stored == bp.data:
            continue
        for hp in host:
            if hp.data == stored and hp.id != bp.id:
                return _reason(REASONS[6], bp.id, bp.data.hex(" "), stored.hex(" "), repr(hp.shown), hp.id)
    return None


def _explain_split(tok: Tokenizer, data: bytes, host: Sequence[Piece], board: Sequence[Piece]) -> Reason:
    """Which encoder, run on the span alone, gives each side's pieces."""
    found: dict[str, list[str]] = {"host": [], "board": []}
    want = {"host": [p.id for p in host], "board": [p.id for p in board]}
    for enc in ("bpe", "rank", "greedy"):
        try:
            ids = tok.encode_ids(data, add_special_tokens=False, encoder=enc).tolist()
        except (ValueError, RuntimeError):
            continue
        for side in found:
            if ids == want[side]:
                found[side].append(enc)
    label = {"bpe": "bpe (merge ranks)", "rank": "rank (lowest id first)", "greedy": "greedy (longest match)"}

    def who(side: str) -> str:
        return " = ".join(label[e] for e in found[side]) if found[side] else "no encoder of the span alone"

    if not found["host"] and not found["board"]:
        return _reason(REASONS[5])
    return _reason(REASONS[4], who("host"), who("board"))


def _classify(tok: Tokenizer, host: Sequence[Piece], board: Sequence[Piece], hb: bytes,
              bb: bytes) -> tuple[str, Reason]:
    unknown = [p.id for p in (*host, *board) if p.data is None]
    if unknown:
        side = "board" if any(p.data is None for p in board) else "host"
        return "unknown_id", _reason(REASONS[0], unknown[0], side)
    for one, other, name in ((host, board, "host"), (board, host, "board")):
        specials = [p for p in one if p.special]
        if specials and not any(p.special for p in other) and len(other) > len(specials):
            sp = specials[0]
            return "special_split", _reason(REASONS[1], repr(sp.shown), sp.id, name)
    if hb == bb:
        return "same_bytes", _explain_split(tok, hb, host, board)
    collision = _marker_collision(host, board)
    if collision:
        return "different_bytes", collision
    th, tb = hb.decode("utf-8", errors="replace"), bb.decode("utf-8", errors="replace")
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        if unicodedata.normalize(form, th) == unicodedata.normalize(form, tb) and th != tb:
            return "normalization", _reason(REASONS[2], form)
    classes: list[str] = []
    for run in _differing_runs(hb, bb):
        classes += [c for c in byte_classes(run) if c not in classes]
    what = ", ".join(classes) or "nothing on one side"
    return "different_bytes", _reason(REASONS[3], hb.hex(" ") or "(none)", bb.hex(" ") or "(none)", what)


def diff_text(text: str, host_ids: Sequence[int], board_ids: Sequence[int] | None, host_tok: Tokenizer,
              board_tok: Tokenizer | None = None, board_error: str | None = None,
              host_encoder: str = "bpe", prefer: Sequence[str] = (), recipe: Tokenizer | None = None) -> TextDiff:
    """One text: the host's ids against the board's, aligned by bytes, classified, and each divergence's
    rules found by replaying the emulations. `recipe`: a GGUF as llama.cpp reads it (a llama.cpp board
    next to a host tokenizer.json): when its ids are the board's, the text is explained by "llama.cpp"
    and each divergence names the llamacpp-recipe rule."""
    hids = tuple(int(i) for i in host_ids)
    if board_ids is None:
        return TextDiff(text, hids, None, (), board_error or "no ids from the board")
    bids = tuple(int(i) for i in board_ids)
    if hids == bids and board_tok is None:
        return TextDiff(text, hids, bids, (), board_error, host_encoder)
    hp, bp = pieces_of(host_tok, hids), pieces_of(board_tok or host_tok, bids)
    hbytes = b"".join(p.data or b"" for p in hp)
    bbytes = b"".join(p.data or b"" for p in bp)
    pos_h, pos_b = byte_starts(hp), byte_starts(bp)
    blocks = _matching_blocks(hbytes, bbytes)
    edges = _common_boundaries(pos_h, pos_b, blocks, len(hbytes), len(bbytes))
    out: list[Divergence] = []
    hs, bs = pos_h[:-1], pos_b[:-1]
    for k, ((p0, q0), (p1, q1)) in enumerate(zip(edges, edges[1:])):
        last = k == len(edges) - 2
        h0, h1 = int(np.searchsorted(hs, p0, "left")), len(hp) if last else int(np.searchsorted(hs, p1, "left"))
        b0, b1 = int(np.searchsorted(bs, q0, "left")), len(bp) if last else int(np.searchsorted(bs, q1, "left"))
        hseg, bseg = hp[h0:h1], bp[b0:b1]
        if len(hseg) == 1 and len(bseg) == 1 and hseg[0].id == bseg[0].id and hseg[0].data == bseg[0].data:
            continue
        if not hseg and not bseg:
            continue
        hb, bb = hbytes[p0:p1], bbytes[q0:q1]
        if (len(hseg) == len(bseg) and all(a.id == b.id and a.data == b.data for a, b in zip(hseg, bseg))):
            continue
        kind, reason = _classify(host_tok, hseg, bseg, hb, bb)
        out.append(Divergence((h0, h1), (b0, b1), tuple(hseg), tuple(bseg), hb, bb, (p0, p1), kind, reason))
    runs = causes.replays(host_tok, text)
    # the GGUF the user named for the board comes first: an emulation that happens to agree on this text
    # does not name a llama.cpp board
    if recipe is not None and recipe.encode_ids(text, False).tolist() == list(bids):
        explained: str | None = causes.LLAMA_CPP
    else:
        explained = causes.explained_by(host_tok, text, bids, runs, prefer)
    text_bytes = text.encode("utf-8", errors="surrogatepass")
    lossless = hbytes == text_bytes
    with_rules = []
    for d in out:
        span = d.byte_span if lossless else _text_span(text_bytes, d.host_bytes, d.byte_span)
        run = causes.local_replay(runs, span, [p.id for p in d.board_pieces], explained)
        found = causes.span_findings(host_tok, text_bytes, span, [p.id for p in d.host_pieces],
                                     [p.id for p in d.board_pieces], run, normalized=d.kind == "normalization",
                                     unknown=d.kind == "unknown_id")
        if explained == causes.LLAMA_CPP and recipe is not None:
            found.insert(0, causes.recipe_finding(recipe, _shown(d.board_pieces), _shown(d.host_pieces)))
        with_rules.append(replace(d, findings=tuple(found)))
    return TextDiff(text, hids, bids, tuple(with_rules), board_error, explained)


def _shown(pieces: Sequence[Piece]) -> str:
    return " ".join(f"{p.shown!r}" for p in pieces) or "nothing"


def _text_span(text_bytes: bytes, host_bytes: bytes, span: tuple[int, int]) -> tuple[int, int]:
    """The span in the text when the host's bytes are not the text's (a normalizer changed them): the
    host's bytes found in the text, else the same offsets clipped to the text."""
    k = text_bytes.find(host_bytes) if host_bytes else -1
    if k >= 0:
        return k, k + len(host_bytes)
    return min(span[0], len(text_bytes)), min(span[1], len(text_bytes))


# ---- a corpus --------------------------------------------------------------------------------------------

def summarize(diffs: Iterable[TextDiff]) -> Summary:
    s = Summary()
    for i, d in enumerate(diffs):
        s.texts += 1
        s.host_tokens += len(d.host_ids)
        if d.board_ids is None:
            s.missing += 1
            continue
        s.board_tokens += len(d.board_ids)
        s.explained[d.explained_by or ""] += 1
        if d.same:
            s.identical += 1
            continue
        first = d.divergences[0]
        s.first_divergence.append((i, first.byte_span[0]))
        for v in d.divergences:
            s.per_kind[v.kind] += 1
            for r in v.rules:
                s.per_rule[r] += 1
            s.spans[v.key] += 1
            s.examples.setdefault(v.key, v)
    return s


def diff_corpus(texts: Sequence[str], host_ids: Sequence[Sequence[int]], board_ids: Sequence[Sequence[int] | None],
                host_tok: Tokenizer, board_tok: Tokenizer | None = None,
                board_errors: Sequence[str | None] | None = None,
                host_encoder: str = "bpe", recipe: Tokenizer | None = None) -> tuple[list[TextDiff], Summary]:
    errors = board_errors if board_errors is not None else [None] * len(texts)
    # which encoders reproduce the board, counted over the texts that differ from the host: the most
    # frequent names the board on every text it explains (a greedy board is not called kestrel-v2 on the
    # lines where the two agree)
    counts: Counter[str] = Counter()
    for t, h, b in zip(texts, host_ids, board_ids):
        if b is not None and list(h) != list(b):
            counts.update(causes.reproducing(host_tok, t, b))
    prefer = causes.preference(counts)
    diffs = [diff_text(t, h, b, host_tok, board_tok, e, host_encoder, prefer, recipe)
             for t, h, b, e in zip(texts, host_ids, board_ids, errors)]
    return diffs, summarize(diffs)
