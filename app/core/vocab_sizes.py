"""The three vocabulary sizes a tokenizer has, and what it means when they differ.

A model's tokenizer has three numbers that newcomers mix up (seed 001's example is Qwen2.5-0.5B:
151,643 / 151,665 / 151,936): the model's own vocabulary (HF `tok.vocab_size`: the BPE/Unigram/
WordPiece entries), that plus the added tokens (HF `len(tok)`: what encode can return), and the
`vocab_size` of the `config.json` beside the file, the rows of the embedding table and the LM head.
More rows than ids is padding (a multiple of 64 or 128); fewer means ids past the table.

Does not: load or encode; a config.json that is not there or not readable is a note, never an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

CONFIG_NAME = "config.json"
# multimodal configs keep the language model's size one level down (Qwen3.5, Qwen2-VL, LLaVA...)
NESTED = ("text_config", "language_config", "llm_config")


@dataclass(frozen=True)
class VocabSizes:
    model: int                      # the model's own vocabulary
    with_added: int                 # with the added tokens (HF len(tok))
    embedding_rows: int | None      # config.json's vocab_size, when there is one
    config: Path | None = None      # the config.json read
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"model": self.model, "with_added": self.with_added, "embedding_rows": self.embedding_rows,
                "config": str(self.config) if self.config else None, "notes": list(self.notes)}

    def summary(self) -> str:
        """One line for the status bar: "vocab 151,643 + 26 added = 151,669 · embedding 151,936"."""
        return sizes_line(self.as_dict(), self.with_added)


def _same(text: str) -> str:
    return text


def sizes_line(sizes: object, total: int, translate: Callable[[str], str] = _same) -> str:
    """VocabSizes.as_dict() (as describe() carries it) as one line; "vocab N" when it is missing.
    `translate` maps each English template to the interface's language (the window passes its tr)."""
    if not isinstance(sizes, dict) or not isinstance(sizes.get("model"), int):
        return translate("vocab {model}").format(model=f"{total:,}")
    model, total = int(sizes["model"]), int(sizes.get("with_added", total))
    s = (translate("vocab {model} + {added} added = {total}").format(model=f"{model:,}", added=f"{total - model:,}",
                                                                   total=f"{total:,}")
         if total != model else translate("vocab {model}").format(model=f"{model:,}"))
    rows = sizes.get("embedding_rows")
    return s + (translate("  ·  embedding {rows}").format(rows=f"{rows:,}") if isinstance(rows, int) else "")


def config_vocab_size(config: Path) -> tuple[int | None, str | None]:
    """(vocab_size, None), or (None, why not) for a config.json that has none or cannot be read."""
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        return None, f"{config} is not readable JSON ({e.__class__.__name__}): no embedding size"
    if not isinstance(data, dict):
        return None, f"{config} is not a JSON object: no embedding size"
    for where in (data, *(data.get(k) for k in NESTED)):
        if isinstance(where, dict):
            v = where.get("vocab_size")
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                return v, None
    return None, f"{config} has no vocab_size: no embedding size"


def vocab_sizes(model: int, with_added: int, path: Path | None) -> VocabSizes:
    """The sizes of a tokenizer loaded from `path` (None: embedded), with the config.json beside it."""
    config = path.parent / CONFIG_NAME if path is not None else None
    if config is None or not config.is_file():
        return VocabSizes(model, with_added, None)
    rows, why = config_vocab_size(config)
    notes = [why] if why else []
    if rows is not None and rows > with_added:
        notes.append(f"{rows - with_added:,} embedding rows have no token (config.json vocab_size {rows:,} > "
                     f"{with_added:,} ids): padding, room for tokens added later without resizing")
    elif rows is not None and rows < with_added:
        notes.append(f"ids {rows:,}..{with_added - 1:,} have no embedding row: config.json vocab_size is {rows:,} "
                     f"but the tokenizer has {with_added:,} ids (resize the embeddings, or this config is "
                     f"not this tokenizer's model)")
    return VocabSizes(model, with_added, rows, config, notes)
