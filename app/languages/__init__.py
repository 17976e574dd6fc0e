"""What a tokenizer costs each language, measured on parallel text.

`corpus` reads a corpus (a folder of text files, one language each; a text file; JSON Lines, Parquet
or Arrow with a language and a text column) into `Row`s; `counting` encodes each row's lines with
each series (a tokenizer and an encoder) into `RowCounts`; `metrics` folds them per language and
per script (Unicode script property, `scripts`) into the report's figures: tokens/char,
tokens/byte, per-line p50/p95, byte-fallback and `<unk>` share, parity against a reference
language and its square (the attention cost); `report` writes CSV, JSON and a self-contained
HTML page. Three ways to run the counting give the same table: `local` (this process, or N
worker processes), `hf_datasets` (HF `datasets`: memory-mapped Arrow, `map(batched, num_proc)`,
its fingerprint cache) and `ray_job` (Ray Data on a cluster); the last two are the optional
extra `corpus`.

Does not: import Qt, or print (the CLI and the window show what this computes).
"""
