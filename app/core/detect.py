"""What a file is, by its content: the engine's detection (native/src/detect.c) read from Python.

`identify(path)` gives the format's key ("hf", "tiktoken", "spm_model", "tekken",
"wordpiece_txt", "gguf", ... or "unknown") and a noun phrase for it ("a SentencePiece model",
or for a file that is no tokenizer what its magic number says: "a PNG image"). `refusal(path)`
is the sentence that refuses a file of no format the engine loads; every sentence names the file.

Does not: load anything (tokenizer.py does), or trust a file name: a `.model` that holds JSON is JSON.
"""

from __future__ import annotations

from pathlib import Path

from .. import _tokcore

# the detector looks at most at this much of a text format (TC_DETECT_SCAN_BYTES in detect.c)
HEAD_BYTES = 1 << 18
# a vocab.bin is recognized by walking all its entries: files up to this size are read whole for it
WALK_LIMIT = 256 << 20
# file names worth pointing at when a directory is opened
_INSIDE = ("tokenizer.json", "tekken.json", "tokenizer.model", "vocab.json", "vocab.txt", "vocab.bin")


def _read(p: Path) -> bytes:
    with open(p, "rb") as fh:
        head = fh.read(HEAD_BYTES)
        kind, _ = _tokcore.identify(head)
        if kind == "unknown" and p.stat().st_size <= WALK_LIMIT:
            head += fh.read()
    return head


def directory_sentence(p: Path) -> str:
    inside = [n for n in _INSIDE if (p / n).is_file()]
    hint = f" (it holds {', '.join(inside)}: open one of those)" if inside else ""
    return f"{p}: a directory, not a tokenizer file{hint}"


def identify(path: str | Path) -> tuple[str, str | None]:
    """(format key, what the file is) from its content; OSError when it cannot be read."""
    p = Path(path)
    if p.is_dir():
        return "directory", directory_sentence(p)
    kind, what = _tokcore.identify(_read(p))
    return str(kind), None if what is None else str(what)


def refusal(path: str | Path) -> str:
    """The sentence refusing a file of no format the engine loads (names the file)."""
    p = Path(path)
    if p.is_dir():
        return directory_sentence(p)
    return str(_tokcore.refusal(str(p), _read(p)))
