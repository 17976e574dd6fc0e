"""What the board prints for a list of ids: the engine's own way from stored vocab.bin bytes to text.

The board engine's `qwen_tokenizer_decode` (kestrel-llm, src/model/vllm_tokenizer_qwen.c) returns a
token's bytes as vocab.bin stores them: bytes 0x00-0x20 as their markers C4 80..C4 A0, special tokens
as their text. What reaches the user depends on the path that prints them:

- `server` (the default; kestrel-llm src/serve/vllm_server.c, `emit_token` with `gj_replace`, the same
  at 63cba683 and d91c18df): every C4 80..C4 BF pair becomes the byte (second byte - 0x80) when that is
  a newline, a space or >= 0x21, and is dropped otherwise. So "Ġ" prints a space and "Ċ" a newline, a
  tab's or CR's marker (and the letter "ę", whose UTF-8 is the marker of 0x19) vanishes, and C4 A1..C4 BF
  (real letters such as "ı") print as ASCII 0x21..0x3F; C5 80..C5 83 stay as stored.
- `batch` (src/serve/vllm_batch.c, `vllm_batch_run` with `vb_gj_replace`): only "Ġ" -> space and
  "Ċ" -> newline; every other marker prints as stored.
- `raw`: the stored bytes as they are (src/main.c's benchmark copies them so).

Does not: join UTF-8 sequences split across tokens the way the server's streaming does (the
concatenation of all tokens is mapped at once, which gives the same text for a whole reply).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.tokenizer import Tokenizer

PATHS = ("server", "batch", "raw")


def stored_bytes(tok: Tokenizer, tid: int) -> bytes:
    """The token's bytes as vocab.bin stores them (b"" for an id the vocabulary lacks)."""
    if not 0 <= tid < tok.vocab_size:
        return b""
    data = tok.id_to_bytes(tid)
    if data is None:
        return b""
    if tid in _added_ids(tok):
        return data
    return b"".join(b"\xc4" + bytes([0x80 + x]) if x <= 0x20 else bytes([x]) for x in data)


def _added_ids(tok: Tokenizer) -> frozenset[int]:
    cached = getattr(tok, "_printed_added_ids", None)
    if cached is None:
        cached = frozenset(int(a["id"]) for a in tok.added_tokens)  # type: ignore[call-overload]
        try:
            tok._printed_added_ids = cached  # type: ignore[attr-defined]
        except AttributeError:
            pass
    return cached


def _server_map(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data):
        if data[i] == 0xC4 and i + 1 < len(data) and 0x80 <= data[i + 1] <= 0xBF:
            b = data[i + 1] - 0x80
            if b in (0x0A, 0x20) or b >= 0x21:
                out.append(b)
            i += 2
            continue
        out.append(data[i])
        i += 1
    return bytes(out)


def _batch_map(data: bytes) -> bytes:
    return data.replace(b"\xc4\xa0", b" ").replace(b"\xc4\x8a", b"\n")


def printed_bytes(tok: Tokenizer, ids: Iterable[int], path: str = "server") -> bytes:
    if path not in PATHS:
        raise ValueError(f"unknown print path {path!r}; one of {', '.join(PATHS)}")
    data = b"".join(stored_bytes(tok, int(i)) for i in ids)
    if path == "server":
        return _server_map(data)
    if path == "batch":
        return _batch_map(data)
    return data


def printed(tok: Tokenizer, ids: Iterable[int], path: str = "server") -> str:
    """What the board prints for ids, as text (invalid UTF-8 shown as U+FFFD, as a terminal would)."""
    return printed_bytes(tok, ids, path).decode("utf-8", errors="replace")
