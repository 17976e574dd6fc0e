"""A tokenizer bundle as a contract sees it: the tokenizer file (and its merges.txt), the
tokenizer_config.json (added tokens, chat template), the model's config.json (embedding rows).

The config is the one given, else the tokenizer_config.json beside the tokenizer file, else none.
The chat template is rendered once on fixed messages (MESSAGES) so a contract holds one rendering.

Does not: encode anything (freeze.py, verify.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.tokenizer import Tokenizer, file_sha256
from ..formats.chat_template import ChatTemplateError, load_config, render

MESSAGES = (
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "低碳模型 — what is 418?"},
    {"role": "assistant", "content": "An id: a row of the embedding."},
    {"role": "user", "content": "And <|im_end|> inside a message?"},
)


@dataclass
class Bundle:
    tokenizer: Tokenizer
    files: list[dict[str, Any]] = field(default_factory=list)     # {role, name, size, sha256}
    chat_template: dict[str, Any] | None = None                   # {sha256, source, rendering}
    embedding_rows: int | None = None                             # config.json's vocab_size
    notes: list[str] = field(default_factory=list)


sha256_file = file_sha256   # one reader of a file's sha256: the tokenizer's


def file_entry(role: str, path: Path) -> dict[str, Any]:
    return {"role": role, "name": path.name, "size": path.stat().st_size, "sha256": sha256_file(path)}


def _template(cfg: Path) -> tuple[dict[str, Any] | None, str | None]:
    try:
        tpl = load_config(cfg)
    except ChatTemplateError as exc:
        return None, f"no chat template: {exc}"
    out: dict[str, Any] = {"sha256": hashlib.sha256(tpl.template.encode("utf-8")).hexdigest(),
                           "source": cfg.name, "rendering": None}
    try:
        out["rendering"] = render(tpl, [dict(m) for m in MESSAGES], add_generation_prompt=True)
    except ChatTemplateError as exc:
        return out, f"the chat template does not render: {exc}"
    return out, None


def _rows(model_config: Path) -> int | None:
    try:
        data = json.loads(model_config.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{model_config}: not JSON: {exc}") from exc
    rows = data.get("vocab_size") if isinstance(data, dict) else None
    if rows is None and isinstance(data, dict) and isinstance(data.get("text_config"), dict):
        rows = data["text_config"].get("vocab_size")      # multimodal configs nest the text model's
    if rows is not None and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 0):
        raise ValueError(f"{model_config}: vocab_size is {rows!r}, not a row count")
    return rows


def open_bundle(path: str | Path | None, *, preset: str | None = None, config: str | Path | None = None,
                merges: str | Path | None = None, model_config: str | Path | None = None) -> Bundle:
    """Loads the tokenizer (None: the embedded Qwen3 default) and hashes every file of the bundle."""
    if path is None:
        tok = Tokenizer.default()
    else:
        tok = Tokenizer.from_file(path, merges=merges, preset=preset)
    return bundle_for(tok, config=config, merges=merges, model_config=model_config, beside=path is not None)


def bundle_for(tok: Tokenizer, *, config: str | Path | None = None, merges: str | Path | None = None,
               model_config: str | Path | None = None, beside: bool = True) -> Bundle:
    """The bundle of a loaded tokenizer; `beside`: take the tokenizer_config.json next to its file."""
    b = Bundle(tok)
    if tok.path is None:
        raise ValueError(f"{tok.name}: no file behind this tokenizer to hash")
    b.files.append(file_entry("tokenizer", tok.path))
    if merges is not None:
        b.files.append(file_entry("merges", Path(merges)))
    cfg = Path(config) if config is not None else None
    if cfg is None and beside and tok.path.with_name("tokenizer_config.json").is_file():
        cfg = tok.path.with_name("tokenizer_config.json")
    if cfg is not None:
        b.files.append(file_entry("config", cfg))
        try:
            tok.add_tokens_from_config(cfg)
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{cfg}: added_tokens_decoder is malformed: {exc!r}") from exc
        b.chat_template, note = _template(cfg)
        if note:
            b.notes.append(note)
    if model_config is not None:
        mc = Path(model_config)
        b.files.append(file_entry("model_config", mc))
        b.embedding_rows = _rows(mc)
    return b
