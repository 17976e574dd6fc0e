"""A tiktoken rank file read as it is: {rank: token bytes}, nothing added.

`vocab diff --ranks-only` compares two rank files' ranks without loading them as tokenizers (a
preset's added tokens would sit on ids that a larger rank file uses for ordinary pieces). The line
format is tiktoken's (tiktoken 0.14, load.py `load_tiktoken_bpe`): base64 of the token, a space, the
rank; blank lines skipped.

Does not: check that the ranks make a usable BPE (the engine's loader does).
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path


def read_ranks(path: str | Path) -> dict[int, bytes]:
    """{rank: bytes}; a malformed line is a ValueError naming the file and line."""
    out: dict[int, bytes] = {}
    with open(path, "rb") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or not parts[1].isdigit():
                raise ValueError(f"{path}:{n}: expected 'BASE64 RANK'")
            try:
                token = base64.b64decode(parts[0], validate=True)
            except binascii.Error as exc:
                raise ValueError(f"{path}:{n}: not base64: {exc}") from exc
            rank = int(parts[1])
            if rank in out:
                raise ValueError(f"{path}:{n}: rank {rank} appears twice")
            out[rank] = token
    return out
