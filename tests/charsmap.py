"""Builds a SentencePiece precompiled_charsmap blob from a {key: replacement} map, for tests.

The layout is the one spm_precompiled reads (huggingface/spm_precompiled src/lib.rs): a
little-endian u32 byte size of the trie, the trie's u32 units, then the replacement strings, each
ended by a NUL. The trie is a double array: a node at position p keeps its label (bits 0-7), has_leaf
(bit 8) and the XOR offset to its children's base (bits 10-31); the child for byte c sits at
base ^ c, and a node with a leaf keeps its value (the replacement's index, bit 31 set) at base
itself. Bases are placed first-fit, breadth first; no suffix sharing (darts-clone's DAWG merging
is an optimisation the reader does not depend on).
"""

from __future__ import annotations

import struct


def build_charsmap(rules: dict[str, str]) -> bytes:
    keys = sorted(k.encode("utf-8") for k in rules if k and "\0" not in k)
    norm = bytearray()
    index: dict[bytes, int] = {}
    for k in keys:
        index[k] = len(norm)
        norm += rules[k.decode("utf-8")].encode("utf-8") + b"\0"
    # the trie: node -> {byte: child}, leaf values
    children: list[dict[int, int]] = [{}]
    value: list[int | None] = [None]
    for k in keys:
        n = 0
        for c in k:
            if c not in children[n]:
                children[n][c] = len(children)
                children.append({})
                value.append(None)
            n = children[n][c]
        value[n] = index[k]
    units: dict[int, int] = {0: 0}
    used = {0}
    pos = {0: 0}
    queue = [0]
    nxt = 1
    while queue:
        node = queue.pop(0)
        p = pos[node]
        labels = sorted(children[node])
        need = labels + ([0] if value[node] is not None else [])
        base = nxt
        while any((base ^ c) in used for c in need) or (p ^ base) >= 1 << 21:
            base += 1
        off = p ^ base
        units[p] = units.get(p, 0) | (off << 10) | ((1 << 8) if value[node] is not None else 0)
        if value[node] is not None:
            units[base] = value[node] | (1 << 31)
            used.add(base)
        for c in labels:
            q = base ^ c
            used.add(q)
            units[q] = c
            pos[children[node][c]] = q
            queue.append(children[node][c])
        while nxt in used:
            nxt += 1
    n = (max(units) // 256 + 1) * 256   # whole blocks: base ^ c never leaves the array (HF does not check)
    trie = b"".join(struct.pack("<I", units.get(i, 0)) for i in range(n))
    return struct.pack("<I", len(trie)) + trie + bytes(norm)
