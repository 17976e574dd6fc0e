"""The engine's Python face: `Tokenizer` (one native handle: load, encode, decode, trace), the
plain data it returns (`Encoding`, `Trace`), how pieces are written (`pieces`), and the embedded
default tokenizer (`defaults`).

Imports flow one way inside: tokenizer -> trace -> encoding; the data modules (encoding, trace,
pieces) call no engine and import nothing above them, so views may hold them.

Does not: read board files (formats/), derive what the panes show (analysis/), or touch Qt.
"""
