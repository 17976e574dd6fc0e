"""Chat messages rendered through a tokenizer's chat template.

The template comes from the `tokenizer_config.json` beside the tokenizer
file (its `chat_template`, a string or HF's list of named templates). It is
rendered in jinja2's immutable sandbox with what transformers provides
(`raise_exception`, `tojson`, `strftime_now`, `bos_token`, `eos_token`).
Without a config, the embedded Qwen3 default uses the plain ChatML template
below (Qwen3's own one also handles tools and reasoning; open its
tokenizer.json beside its config to get it).

Does not handle: tools and documents arguments (passed empty).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

CHATML_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

ROLES = ("system", "user", "assistant", "tool")


class ChatTemplateError(Exception):
    """The template could not be found, parsed or rendered."""


@dataclass(frozen=True)
class ChatTemplate:
    source: str                 # where it came from (a path, or "built-in ChatML")
    template: str
    bos_token: str = ""
    eos_token: str = ""


def _token_text(value: object) -> str:
    if isinstance(value, dict):
        return str(value.get("content", ""))
    return "" if value is None else str(value)


def find_template(tokenizer_path: Path | None) -> ChatTemplate:
    """The chat template of a tokenizer: tokenizer_config.json beside it, else built-in ChatML."""
    if tokenizer_path is not None:
        cfg = tokenizer_path.with_name("tokenizer_config.json")
        if cfg.is_file():
            return load_config(cfg)
    return ChatTemplate("built-in ChatML", CHATML_TEMPLATE)


def load_config(cfg: Path) -> ChatTemplate:
    try:
        data = json.loads(cfg.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ChatTemplateError(f"{cfg}: {exc}") from exc
    tpl = data.get("chat_template")
    if isinstance(tpl, list):  # HF: [{"name": "default", "template": ...}, ...]
        named = {t.get("name"): t.get("template") for t in tpl if isinstance(t, dict)}
        tpl = named.get("default") or next(iter(named.values()), None)
    if not isinstance(tpl, str):
        raise ChatTemplateError(f"{cfg}: no chat_template")
    return ChatTemplate(str(cfg), tpl, _token_text(data.get("bos_token")), _token_text(data.get("eos_token")))


def render(tpl: ChatTemplate, messages: list[dict[str, str]], add_generation_prompt: bool = True,
           **extra: Any) -> str:
    """Renders messages [{"role", "content"}] in jinja2's immutable sandbox."""
    from jinja2 import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise ChatTemplateError(message)

    def tojson(x: object, ensure_ascii: bool = False, indent: int | None = None, separators: Any = None,
               sort_keys: bool = False) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    try:
        return env.from_string(tpl.template).render(
            messages=messages, add_generation_prompt=add_generation_prompt,
            bos_token=tpl.bos_token, eos_token=tpl.eos_token, tools=None, documents=None, **extra)
    except TemplateError as exc:
        raise ChatTemplateError(f"{type(exc).__name__}: {exc}") from exc
