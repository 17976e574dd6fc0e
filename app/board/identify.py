"""Which engine is the board running? A fixed probe set, encoded on the board in one exec, against every emulation.

The probes are texts on which the engines' rules give different ids (seed 000's probe idea: a handful of
texts that pin the tokenizer; llama.cpp's pre-tokenizer fingerprint idea: a known text's ids identify the
recipe): a space before a digit, a tab, runs of newlines, a special token right after a letter, leading
and trailing spaces, letters whose vocab.bin bytes equal a marker's, a NUL, and ordinary text. Each
emulation (`kestrel-v2`, `kestrel-v1`, `greedy`, `bpe`; with a GGUF on the host, `llama.cpp`: its own
encoder, llama.cpp's recipe for the file, in place of `bpe`) encodes them on the host; the engine is the one
that reproduces every probe, or None with the closest and the probes where it differs.

Does not: talk to the board (session.py runs the probes there) or decide anything from one probe alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.tokenizer import Tokenizer, TokenizerError
from .causes import LLAMA_CPP

CANDIDATES = ("kestrel-v2", "kestrel-v1", "greedy", "bpe")
# a GGUF host tokenizer's own encoder is llama.cpp's recipe for the file (native/src/load_gguf.c): the
# candidate is named for the engine, LLAMA_CPP


def candidates(tok: Tokenizer) -> tuple[tuple[str, str], ...]:
    """(name, encoder) of every candidate engine for the host tokenizer."""
    if tok.format == "gguf":
        return ((LLAMA_CPP, "bpe"), *((e, e) for e in CANDIDATES if e != "bpe"))
    return tuple((e, e) for e in CANDIDATES)

# (text, what it separates)
PROBES: tuple[tuple[str, str], ...] = (
    ("Hello world", "ordinary text: every engine agrees"),
    ("a 1 b", "Ġ1 is no entry: kestrel drops the space, greedy and bpe keep it"),
    ("x\ty", "a raw tab: kestrel writes id 0, greedy its marker, bpe merges it"),
    ("a\n\nb", "two newlines: kestrel-v1 one Ċ each, kestrel-v2 and greedy ĊĊ"),
    ("ok.<|im_end|>", "'.<' runs into the special on kestrel-v1 only"),
    ("<think>\n\n</think>\n\n", "the empty thinking block"),
    (" lead", "a leading space: kestrel drops it"),
    ("end  ", "trailing spaces: kestrel drops them"),
    ("a   b", "three spaces: kestrel one Ġ, the others keep them"),
    ("Zażółć gęślą jaźń", "letters stored as markers' bytes: the longest matchers take the marker ids"),
    ("don't stop, 12345 times!", "contractions and digits: bpe's pre-tokenizer against the longest match"),
    ("x.<tool_call>y", "an added token kestrel-v2 does not list among its 15"),
    ("abc\x00def", "a NUL: kestrel stops there (strlen)"),
    ("你好，世界。", "CJK text"),
    ("line one\r\nline two", "CRLF: kestrel writes id 0 for the CR"),
    ("x \ny", "a space before a newline"),
)


@dataclass
class Identification:
    engine: str | None                      # the candidate that reproduces every probe
    probes: int
    agree: dict[str, int]                   # candidate -> probes reproduced
    closest: str | None                     # the candidate with the most agreement
    differ: list[tuple[str, list[int] | None, list[int]]] = field(default_factory=list)  # (probe, board, closest's)
    missing: int = 0                        # probes the board gave no ids for

    def as_json(self) -> dict[str, object]:
        return {"engine": self.engine, "probes": self.probes, "agree": self.agree, "closest": self.closest,
                "missing": self.missing,
                "differ": [{"probe": p, "board": b, "closest": c} for p, b, c in self.differ]}


def probe_texts() -> list[str]:
    return [t for t, _ in PROBES]


def identify(tok: Tokenizer, board_ids: Sequence[Sequence[int] | None],
             recipe: Tokenizer | None = None) -> Identification:
    """Compares the board's ids of PROBES (in order; None: no result) with every candidate's. `recipe`: a
    GGUF beside a host tokenizer of another format, as llama.cpp reads it: the candidate `llama.cpp`."""
    texts = probe_texts()
    if len(board_ids) != len(texts):
        raise ValueError(f"{len(board_ids)} results for {len(texts)} probes")
    host: dict[str, list[list[int]]] = {}
    order = candidates(tok)
    for name, enc in order:
        try:
            host[name] = [a.tolist() for a in tok.encode_batch_ids(texts, False, enc)]
        except (ValueError, TokenizerError):
            continue   # e.g. no longest-match emulation on a SentencePiece vocabulary
    if recipe is not None and LLAMA_CPP not in host:
        host = {LLAMA_CPP: [a.tolist() for a in recipe.encode_batch_ids(texts, False)], **host}
        order = ((LLAMA_CPP, "bpe"), *order)
    got = [None if b is None else [int(i) for i in b] for b in board_ids]
    agree = {enc: sum(g is not None and g == h for g, h in zip(got, ids)) for enc, ids in host.items()}
    answered = sum(g is not None for g in got)
    full = [enc for enc in host if agree[enc] == len(texts)]
    names = [name for name, _ in order]
    closest = max(host, key=lambda e: (agree[e], -names.index(e))) if host else None
    engine = full[0] if full else None
    differ = []
    if engine is None and closest is not None:
        differ = [(t, g, h) for t, g, h in zip(texts, got, host[closest]) if g != h]
    return Identification(engine, len(texts), agree, closest, differ, len(texts) - answered)
