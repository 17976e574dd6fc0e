"""How often the real board engine (kestrel-v1, kestrel-v2) gives the host's ids, line by line.

Every non-empty line of the UDHR translations (../shared/data/udhr/txt, 532 files) is encoded with
Qwen3 by `bpe` (HF-exact), `greedy` (the ideal longest match) and the two kestrel emulations; the table
gives, per kestrel version, the share of lines whose ids equal each other encoder's, the token totals,
and the encode speed of each encoder over all lines (MB/s, best of --runs) with the ratio to greedy.
Then the rules the board diff names, counted over the lines where kestrel-v2 and bpe differ.

    python bench/board_agreement.py [--limit N] [--runs 3]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

ENCODERS = ("bpe", "greedy", "kestrel-v1", "kestrel-v2")


def udhr_lines(limit: int | None) -> list[str]:
    root = common.shared_data() / "udhr" / "txt"
    files = sorted(root.glob("*.txt"))
    if not files:
        raise SystemExit(f"no UDHR texts under {root}")
    lines = [ln for p in files for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return lines[:limit] if limit else lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, help="only the first N lines")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rules", type=int, default=3000, help="lines whose divergences get their rules counted")
    args = ap.parse_args(argv)
    from tokinspect import Tokenizer
    from tokinspect.board.diff import diff_text

    common.print_header("board engine agreement (Qwen3, UDHR lines)", ("tokinspect",))
    tok_json = common.qwen3_tokenizer_json()
    tok = Tokenizer.from_file(tok_json) if tok_json else Tokenizer.default()
    lines = udhr_lines(args.limit)
    mb = sum(len(x.encode()) for x in lines) / 1e6
    ids: dict[str, list[list[int]]] = {}
    speed: dict[str, float] = {}
    for enc in ENCODERS:
        tok.encode("warm up", False, enc)
        t = common.best_of(lambda enc=enc: [tok.encode(x, False, enc) for x in lines], args.runs)
        speed[enc] = mb / t.best
        ids[enc] = [tok.encode(x, False, enc).ids.tolist() for x in lines]
    n = len(lines)
    rows = []
    for k in ("kestrel-v1", "kestrel-v2"):
        for other in ("bpe", "greedy", "kestrel-v1", "kestrel-v2"):
            if other == k:
                continue
            same = sum(a == b for a, b in zip(ids[k], ids[other]))
            rows.append([k, other, f"{same:,} / {n:,}", f"{100 * same / n:.1f}%"])
    print(f"\n## agreement, {n:,} lines, {mb:.2f} MB")
    common.print_table(["board engine", "equal to", "lines", "share"], rows)
    print(f"\n## tokens and speed (best of {args.runs})")
    common.print_table(["encoder", "tokens", "MB/s", "vs greedy"],
                       [[e, f"{sum(map(len, ids[e])):,}", f"{speed[e]:.1f}", f"{speed[e] / speed['greedy']:.2f}x"]
                        for e in ENCODERS])
    rules: Counter[str] = Counter()
    explained: Counter[str] = Counter()
    differing = [i for i in range(n) if ids["kestrel-v2"][i] != ids["bpe"][i]][: args.rules]
    for i in differing:
        d = diff_text(lines[i], ids["bpe"][i], ids["kestrel-v2"][i], tok)
        explained[d.explained_by or "none"] += 1
        for v in d.divergences:
            for r in v.rules:
                rules[r] += 1
    print(f"\n## board diff of kestrel-v2 against bpe, first {len(differing):,} differing lines")
    common.print_table(["explained by", "lines"], [[k, f"{c:,}"] for k, c in explained.most_common()])
    common.print_table(["rule", "divergent spans"], [[k, f"{c:,}"] for k, c in rules.most_common()])


if __name__ == "__main__":
    main()
