"""What is derived from encodings for people to read: one text analyzed for the panes (`text`:
`analyze()` in a worker; `encoded`: the plain `Analysis` and `TokenSpans` records it returns), two
segmentations aligned by bytes (`compare`), their divergences over a corpus (`divergence`), counts
and ratios (`stats`), and the token table as CSV or JSON (`export`).

Does not: call Qt or draw (window/ and widgets/ do), or talk to a board (board/).
"""
