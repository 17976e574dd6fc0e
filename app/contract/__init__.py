"""The tokenizer as a frozen contract (seed 003): `freeze` writes the manifest of a tokenizer bundle
(file hashes, the pipeline as the engine loaded it, the three vocabulary sizes, added tokens, the chat
template, a behaviour fingerprint, golden samples), `verify` checks a tokenizer against it and names
the layer that changed, `schema` reads contract.json (every version) and says where and why a file is
malformed, `board` runs the golden samples through the board's tokenizer.

Does not: show anything (window/contract.py, widgets/contract_tab.py), or compare two vocabularies
(analysis/vocab_diff.py).
"""
