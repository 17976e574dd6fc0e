"""Why the board's ids differ, rule by rule: every divergent span replayed through the emulations.

For one text the emulations of board engines run on the host tokenizer with their step traces:
`kestrel-v2` and `kestrel-v1` (the real RK3588 engine, native/src/kestrel.h) and `greedy` (the ideal
longest-prefix match). `explained_by` is the first of them (in EMULATIONS order, then the host's own
`bpe`/`rank`) whose ids are the board's ids exactly, or None. For each divergent span found by diff.py,
the emulation whose tokens over that span are the board's tokens there (the explaining one first) is
replayed step by step over the span, and every step that made the board's side what it is names its
rule from RULES, with a sentence that says what happened in this text ("the board skipped the space:
no entry longer than Ġ starts with Ġ1").

Does not: align bytes or classify spans by byte classes (diff.py), talk to the board, or guess a rule
from bytes alone: a span no emulation reproduces gets no rule (its diff kind still says what differs).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from ..core.tokenizer import Encoding, Tokenizer, TokenizerError
from ..core.trace import KestrelStep, Trace

EMULATIONS = ("kestrel-v2", "kestrel-v1", "greedy")
HOST_ENCODERS = ("bpe", "rank")

# the fixed vocabulary of causes, each with what it means
RULES = {
    "space-dropped": "a space before a word was skipped and not re-added (no entry starts with Ġ and the word)",
    "spaces-collapsed": "a run of spaces became one Ġ",
    "leading-space-dropped": "spaces at the start of the text are skipped (no token before them)",
    "trailing-space-dropped": "spaces at the end of the text are skipped",
    "control-byte-unk": "a control byte (tab, CR, 0x01-0x1F) matched no entry: id 0",
    "nul-truncated": "the text ends at a NUL byte (strlen): the rest never reached the board's tokenizer",
    "newline-fallback": "a newline matched nothing and became the Ċ entry",
    "newline-run-split": "a run of newlines was split into separate Ċ tokens (v1: one each; v2: at most 8)",
    "special-first": "a special string was matched first, before any ordinary token",
    "special-guard": "an ordinary token was cut short so as not to run into the next special token",
    "special-not-listed": "a special token the engine does not list (only 15 are matched first) was split",
    "equal-bytes-lower-id": "two entries store the same bytes in vocab.bin and the board took the lower id",
    "longest-match-split": "the longest entry at each position, not the merges, chose the split",
    "normalization": "the host normalizes the text; the board does not",
    "special-split": "a special token was split into ordinary tokens (matched as plain text)",
    "unknown-id": "an id outside the vocabulary",
    "llamacpp-recipe": "llama.cpp's own recipe for the GGUF (its pre-tokenizer for the file's pre type, its special "
                       "token and space handling, no normalizer) gives the board's split; the host's tokenizer differs",
}
# the name of the board engine a GGUF's own encoder emulates (explained_by, identify's candidate)
LLAMA_CPP = "llama.cpp"

_CONTROL_NAMES = {0x09: "tab", 0x0D: "CR", 0x0B: "vertical tab", 0x0C: "form feed", 0x1B: "escape"}


@dataclass(frozen=True)
class Finding:
    """One rule met in one text: `sentence` says what happened, in English; `template` is that
    sentence with its values as {0}, {1}… (one of TEMPLATES) and `args` the values, so that a window
    in another language can translate the template and put the values back."""

    rule: str                   # a key of RULES
    template: str               # one of TEMPLATES
    args: tuple[str, ...] = ()  # the values, already written out (ids, pieces, byte counts)

    @property
    def sentence(self) -> str:
        return self.template.format(*self.args)

    def text(self, translate: Callable[[str], str]) -> str:
        """The sentence in another language: the template translated, the values put back (the words
        among them, ARG_WORDS and an unnamed control byte's "byte", translated too)."""
        def value(a: str) -> str:
            if a in ARG_WORDS:
                return translate(a)
            if a.startswith("byte 0x"):
                return translate("byte") + a[4:]
            return a
        return translate(self.template).format(*(value(a) for a in self.args))


def _finding(rule: str, template: str, *args: object) -> Finding:
    return Finding(rule, template, tuple(str(a) for a in args))


# Every sentence a Finding can say, as its template (what a translation catalog needs).
TEMPLATES: tuple[str, ...] = (
    "the board skipped {0} space(s) at the end of the text",
    "the text ends at the NUL byte at offset {0}: {1} byte(s) after it never reached the board's tokenizer",
    "the board skipped the space before {0}: special strings are matched first, without Ġ",
    "the board skipped {0} space(s) at the start of the text",
    "the board skipped the space: no entry longer than Ġ starts with Ġ{0}",
    "the board skipped the space before {0}: its Ġ match {1} runs into the next special token",
    "the Ġ match {0} would end past the special token {1} byte(s) ahead, so it was refused",
    "{0} spaces before {1} became one Ġ in {2}",
    "{0} (0x{1}) has no entry as a raw byte (vocab.bin stores it as a marker): the board wrote id 0 {2}",
    "{0} newlines in a row: the board took one Ċ per newline, {1} for {2}",
    "{0} newlines in a row: the board took the longest Ċ run of at most 8, {1} for {2}",
    "the newline matched nothing as a raw byte: the board fell back to {0}",
    "{0} was matched first, as a whole",
    "the board stopped {0} after {1} byte(s): the longest entry ({2} bytes) would run into the special token ahead",
    "ids {0} and {1} are both stored as {2}: the board took {3} {4}, the host has {5} {6}",
    "id {0} is not in the host's vocabulary",
    "the host's normalizer changed these bytes; the board reads them raw",
    "{0} is not among the 15 special strings the engine matches first: it was read as text",
    "{0} was read as plain text and split",
    "the board took the longest entry at each position ({0}); the host's merges split it otherwise",
    "llama.cpp reads {0} as model {1}, pre {2} and splits this as {3}; the host's tokenizer as {4}",
)
# Values that are words of the sentence rather than data (a window translates them too; an unnamed
# control byte is "byte 0xNN").
ARG_WORDS: tuple[str, ...] = ("nothing", "tab", "CR", "vertical tab", "form feed", "escape", "byte")


@dataclass(frozen=True)
class Replay:
    """One emulation run on one text."""

    encoder: str
    encoding: Encoding
    trace: Trace

    @property
    def ids(self) -> list[int]:
        return self.encoding.ids.tolist()

    @cached_property
    def step_regions(self) -> tuple[list[int], list[int]] | None:
        """The kestrel steps' regions as (starts, ends), when both are in order (steps follow the text,
        so they are); None otherwise, and a span then looks at every step."""
        regions = [_kestrel_region(st) for st in self.trace.kestrel_steps]
        starts, ends = [a for a, _ in regions], [b for _, b in regions]
        ordered = all(x <= y for x, y in zip(starts, starts[1:])) and all(x <= y for x, y in zip(ends, ends[1:]))
        return (starts, ends) if ordered else None

    def steps_touching(self, span: tuple[int, int]) -> list[KestrelStep]:
        """The kestrel steps whose region overlaps span (`_overlaps`), in order. A step can overlap only
        if it starts at or before the span's end and ends at or after its start: with both in order that
        is a slice found by bisection (a board diff of 47,543 UDHR lines tested 40 M pairs in 14 s)."""
        steps = self.trace.kestrel_steps
        rg = self.step_regions
        if rg is not None:
            lo, hi = bisect_left(rg[1], span[0]), bisect_right(rg[0], span[1])
            steps = steps[lo:hi]
        return [st for st in steps if _overlaps(_kestrel_region(st), span)]


def replay(tok: Tokenizer, text: str | bytes, encoder: str) -> Replay | None:
    """The emulation's encoding and trace of text, or None when the tokenizer cannot run it."""
    try:
        tr = tok.trace(text, add_special_tokens=False, encoder=encoder)
    except (ValueError, TokenizerError):
        return None
    return Replay(encoder, tr.encoding, tr)


def replays(tok: Tokenizer, text: str | bytes) -> list[Replay]:
    return [r for r in (replay(tok, text, e) for e in EMULATIONS) if r is not None]


def reproducing(tok: Tokenizer, text: str | bytes, board_ids: Sequence[int],
                runs: Sequence[Replay] | None = None) -> list[str]:
    """Every emulation and host encoder (EMULATIONS, then HOST_ENCODERS) whose ids are board_ids exactly."""
    want = [int(i) for i in board_ids]
    if runs is not None:
        out = [r.encoder for r in runs if r.ids == want]
        rest: Sequence[str] = HOST_ENCODERS
    else:
        out, rest = [], (*EMULATIONS, *HOST_ENCODERS)
    for enc in rest:
        try:
            if tok.encode_ids(text, False, enc).tolist() == want:   # ids only: no offsets computed
                out.append(enc)
        except (ValueError, TokenizerError):
            continue
    return out


def explained_by(tok: Tokenizer, text: str | bytes, board_ids: Sequence[int], runs: Sequence[Replay] | None = None,
                 prefer: Sequence[str] = ()) -> str | None:
    """The encoder whose ids are board_ids exactly: the first of `prefer` that does (a corpus passes the
    encoders that explain most of its texts first, so one board is named one way on every text), else
    the first of EMULATIONS, then HOST_ENCODERS."""
    found = reproducing(tok, text, board_ids, runs)
    for enc in prefer:
        if enc in found:
            return enc
    return found[0] if found else None


def preference(counts: dict[str, int]) -> list[str]:
    """Encoders ordered by how many texts of a corpus they explain (ties: EMULATIONS, HOST_ENCODERS order)."""
    order = list(EMULATIONS) + list(HOST_ENCODERS)
    return sorted(order, key=lambda e: (-counts.get(e, 0), order.index(e)))


# ---- rules of one span ------------------------------------------------------------------------------------

def _word(data: bytes, at: int, n: int = 12) -> str:
    """A short readable excerpt of data from byte `at` (up to the next space or newline)."""
    out = data[at : at + n]
    for stop in (b" ", b"\n"):
        k = out.find(stop)
        if k > 0:
            out = out[:k]
    return out.decode("utf-8", errors="backslashreplace")


def _piece(tok: Tokenizer, tid: int | None) -> str:
    if tid is None:
        return "nothing"
    data = tok.id_to_bytes(tid)
    return f"{(data or b'').decode('utf-8', errors='backslashreplace')!r} ({tid})"


def _kestrel_findings(tok: Tokenizer, data: bytes, st: KestrelStep, version: int) -> list[Finding]:
    out: list[Finding] = []
    word = _word(data, st.at)
    if st.rule == "trailing":
        out.append(_finding("trailing-space-dropped", TEMPLATES[0], st.spaces))
        return out
    if st.rule == "nul":
        out.append(_finding("nul-truncated", TEMPLATES[1], st.at, st.consumed))
        return out
    if st.spaces:
        if st.rule == "special":
            out.append(_finding("space-dropped", TEMPLATES[2], repr(word)))
        elif st.retry == "none":
            out.append(_finding("leading-space-dropped", TEMPLATES[3], st.spaces))
        elif st.retry == "only-space":
            out.append(_finding("space-dropped", TEMPLATES[4], word))
        elif st.retry == "guarded":
            out.append(_finding("space-dropped", TEMPLATES[5], repr(word), _piece(tok, st.retry_id)))
            out.append(_finding("special-guard", TEMPLATES[6], _piece(tok, st.retry_id), st.limit))
        if st.spaces > 1 and st.retry == "taken":
            out.append(_finding("spaces-collapsed", TEMPLATES[7], st.spaces, repr(word), _piece(tok, st.id)))
    if st.rule == "unk":
        b = data[st.at] if st.at < len(data) else 0
        name = _CONTROL_NAMES.get(b, f"byte 0x{b:02X}")
        out.append(_finding("control-byte-unk", TEMPLATES[8], name, f"{b:02X}", _piece(tok, 0)))
    elif st.rule == "newline":
        run = len(data[st.at :]) - len(data[st.at :].lstrip(b"\n"))
        if run > st.consumed:
            out.append(_finding("newline-run-split", TEMPLATES[9] if version == 1 else TEMPLATES[10], run,
                                _piece(tok, st.id), st.consumed))
        else:
            out.append(_finding("newline-fallback", TEMPLATES[11], _piece(tok, st.id)))
    elif st.rule == "special":
        out.append(_finding("special-first", TEMPLATES[12], _piece(tok, st.id)))
    elif st.rule == "match" and st.unguarded > st.consumed:
        out.append(_finding("special-guard", TEMPLATES[13], _piece(tok, st.id), st.consumed, st.unguarded))
    return out


def _kestrel_region(st: KestrelStep) -> tuple[int, int]:
    return st.pos, st.at + st.consumed


def _overlaps(region: tuple[int, int], span: tuple[int, int]) -> bool:
    a, b = region
    s, e = span
    if a == b:
        return s <= a <= e
    return a < e and s < b


def _stored(data: bytes) -> bytes:
    return b"".join(b"\xc4" + bytes([0x80 + x]) if x <= 0x20 else bytes([x]) for x in data)


def _equal_bytes(tok: Tokenizer, host_ids: Sequence[int], board_ids: Sequence[int]) -> list[Finding]:
    out = []
    n = tok.vocab_size
    for b in board_ids:
        bdata = tok.id_to_bytes(b) if 0 <= b < n else None
        if bdata is None or tok.is_special(b):
            continue
        for h in host_ids:
            hdata = tok.id_to_bytes(h) if 0 <= h < n else None
            if h != b and hdata is not None and not tok.is_special(h) and _stored(hdata) == _stored(bdata):
                out.append(_finding("equal-bytes-lower-id", TEMPLATES[14], min(b, h), max(b, h),
                                    _stored(bdata).hex(" "), b, _piece(tok, b), h, _piece(tok, h)))
    return out


def _added(tok: Tokenizer, ids: Sequence[int]) -> list[int]:
    """The added tokens (special or not: `<think>` and `<tool_call>` are not special in Qwen3) among ids."""
    added = {int(a["id"]) for a in tok.added_tokens}  # type: ignore[call-overload]
    return [i for i in ids if i in added]


# native/src/kestrel.c SPECIALS: the 15 strings kestrel-v2 matches first (kestrel-llm QWEN_SPECIAL_STR)
KESTREL_SPECIALS = tuple(s.encode() for s in (
    "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
    "<|video_pad|>", "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>", "<|box_end|>",
    "<|quad_start|>", "<|quad_end|>", "<think>", "</think>"))


def span_findings(tok: Tokenizer, text_bytes: bytes, span: tuple[int, int], host_ids: Sequence[int],
                  board_ids: Sequence[int], run: Replay | None, normalized: bool = False,
                  unknown: bool = False) -> list[Finding]:
    """The rules of one divergent span: text bytes [span), the host's and the board's ids there, and
    the emulation that reproduces the board's side (None: none does)."""
    found: list[Finding] = []
    if unknown:
        bad = [i for i in board_ids if not 0 <= i < tok.vocab_size or tok.id_to_bytes(i) is None]
        found.append(_finding("unknown-id", TEMPLATES[15], bad[0] if bad else "?"))
    if normalized:
        found.append(_finding("normalization", TEMPLATES[16]))
    found += _equal_bytes(tok, host_ids, board_ids)
    if run is not None and run.trace.kestrel_steps:
        version = 1 if run.encoder == "kestrel-v1" else 2
        for st in run.steps_touching(span):
            found += _kestrel_findings(tok, text_bytes, st, version)
    on_board = set(board_ids)
    for sid in _added(tok, host_ids):
        if sid not in on_board:
            content = tok.id_to_bytes(sid) or b""
            if run is not None and run.encoder == "kestrel-v2" and content not in KESTREL_SPECIALS:
                found.append(_finding("special-not-listed", TEMPLATES[17], _piece(tok, sid)))
            else:
                found.append(_finding("special-split", TEMPLATES[18], _piece(tok, sid)))
    if run is not None and not found:
        found.append(_finding("longest-match-split", TEMPLATES[19], run.encoder))
    # one finding per (rule, sentence), in order
    seen: set[tuple[str, str]] = set()
    out = []
    for f in found:
        if (f.rule, f.sentence) not in seen:
            seen.add((f.rule, f.sentence))
            out.append(f)
    return out


def local_replay(runs: Sequence[Replay], span: tuple[int, int], board_ids: Sequence[int],
                 first: str | None) -> Replay | None:
    """The emulation whose tokens inside the text span are exactly the board's tokens there (the
    explaining one first)."""
    ordered = sorted(runs, key=lambda r: r.encoder != first)
    want = [int(i) for i in board_ids]
    s, e = span
    for r in ordered:
        if first is not None and r.encoder == first:
            return r
        offs = r.encoding.byte_offsets
        inside = [int(i) for i, (a, b) in zip(r.encoding.ids.tolist(), offs.tolist()) if a < e and b > s or a == b == s]
        if inside == want:
            return r
    return None


def recipe_finding(recipe: Tokenizer, board_pieces: str, host_pieces: str) -> Finding:
    """The llamacpp-recipe rule of one span: the GGUF's model and pre type, both sides' pieces."""
    g = recipe.describe().get("gguf")
    model = g.get("model") if isinstance(g, dict) else "?"
    pre = g.get("pre") if isinstance(g, dict) else None
    return _finding("llamacpp-recipe", TEMPLATES[20], recipe.name, repr(model), repr(pre or "default"),
                    board_pieces, host_pieces)
