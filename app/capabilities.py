"""What the installed engine API accepts, checked by signature, not by version.

The encoder selector (`bpe`, `rank`, `greedy`) is enabled only when
`Tokenizer.encode` and `Tokenizer.trace` take an `encoder=` argument;
callers pass `encoder=` only then.
"""

from __future__ import annotations

import inspect
from functools import lru_cache

from . import tokenizer as _tokenizer_module
from .tokenizer import Tokenizer

ENCODERS: tuple[str, ...] = tuple(getattr(_tokenizer_module, "ENCODERS", ("bpe", "rank", "greedy")))


@lru_cache(maxsize=1)
def encoders_supported() -> bool:
    """True when encode() and trace() both take `encoder=`."""
    for fn in (Tokenizer.encode, Tokenizer.trace):
        try:
            if "encoder" not in inspect.signature(fn).parameters:
                return False
        except (TypeError, ValueError):
            return False
    return True


def encode_kwargs(tok: Tokenizer, encoder: str) -> dict[str, str]:
    """{'encoder': encoder} when the API takes it and the choice is not the default; else {}."""
    del tok  # the capability is the class's, not the instance's
    if encoder == "bpe" or not encoders_supported():
        return {}
    return {"encoder": encoder}
