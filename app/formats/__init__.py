"""Files around a tokenizer, read and written in Python: the board's `vocab.bin` (compile, audit,
probe, compare; the byte rules live in the engine), the audit as rows, the vocabulary search, and
the chat template of a tokenizer_config.json (found, loaded, rendered in jinja2's sandbox).

Does not: load tokenizers or detect their format (the engine does, through core.Tokenizer), or
show anything.
"""
