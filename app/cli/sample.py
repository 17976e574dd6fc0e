"""`tokinspect sample`: the sampler of a preset on one row of a logits file.

  tokinspect sample --logits FILE [--format npy|f32|f16|bf16|text] [--vocab N | --tokenizer T]
                    [--step I] --preset ds4|llama.cpp|kestrel|hf|custom [--temperature T] [--top-k K]
                    [--top-p P] [--min-p M] [--seed S] [--draws N] [--order a,b,..]
                    [--semantics stage=engine,..] [--json]

Draws are streamed from the engine a million at a time: the text output prints every draw
without holding them (memory stays flat for --draws up to 2^32-1). --json lists "draws" up to
JSON_DRAWS_LIMIT; above it, "draws" is left out and "draw_counts" ({id: count} of the ids drawn),
"draws_first" (the first 1,000 draws) and "n_draws" say what was drawn.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from ..sampling.sampler import LOGITS_FORMATS, open_logits, sample, sample_counts
from ..sampling.settings import PRESETS, SamplerSettings
from .errors import said
from .i18n import _, message, sampler_text

JSON_DRAWS_LIMIT = 1_000_000   # --json: above this many draws, counts instead of the list
TEXT_STREAM_FROM = 100_000     # text: from this many draws, streamed (two passes of the engine's RNG)
FIRST_KEPT = 1000


def _settings(args: argparse.Namespace) -> SamplerSettings:
    order = tuple(x for x in args.order.split(",") if x) if args.order else None
    sem = dict(kv.split("=", 1) for kv in args.semantics.split(",") if kv) if args.semantics else None
    return SamplerSettings(preset=args.preset, temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
                           min_p=args.min_p, seed=args.seed, order=order, semantics=sem)


def cmd_sample(args: argparse.Namespace) -> int:
    try:
        return _sample(args)
    except (ValueError, IndexError) as exc:   # bad settings, a file that does not parse, a step out of range
        print(f"tokinspect sample: {said(exc)}", file=sys.stderr)
        return 2


def _listed(ids: np.ndarray, probs: np.ndarray, top: int) -> dict[str, object]:
    """A stage's candidates as --json lists them: its `top` most probable, most probable first, ties
    (and NaN, last) in the stage's order, as tokcore's --json-top does; top 0: all, in the stage's order."""
    if top == 0 or top >= len(ids):
        return {"ids": ids.tolist(), "probs": [None if not np.isfinite(p) else p for p in probs.tolist()],
                "listed": len(ids)}
    order = np.argsort(-probs, kind="stable")[:top]
    return {"ids": ids[order].tolist(), "probs": [None if not np.isfinite(p) else p for p in probs[order].tolist()],
            "listed": int(top)}


def _sample(args: argparse.Namespace) -> int:
    vocab = args.vocab
    if args.tokenizer:
        from ..core.tokenizer import Tokenizer

        vocab = Tokenizer.from_file(args.tokenizer).vocab_size
    src = open_logits(args.logits, vocab, args.format)
    row = np.array(src.row(args.step), dtype=np.float32)
    s = _settings(args)
    n = args.draws
    if n < 0:
        raise ValueError(_("--draws must be >= 0"))
    if args.json_top < 0:
        raise ValueError(_("--json-top must be >= 0"))
    if args.json:
        if n <= JSON_DRAWS_LIMIT:
            res, d = sample(row, s, n)
            draws: dict[str, object] = {"draws": d.ids.tolist()}
            before, after = d.rng_before, d.rng_after
        else:
            res, c = sample_counts(row, s, n, keep=FIRST_KEPT)
            draws = {"n_draws": n, "draws_first": c.first.tolist(),
                     "draw_counts": {str(int(i)): int(k) for i, k in zip(c.ids, c.counts)}}
            before, after = c.rng_before, c.rng_after
        out = {"preset": res.preset, "greedy": res.greedy,
               "stages": [{"name": st.name, **_listed(st.ids, st.probs, args.json_top), "kept": st.kept,
                           "kept_mass": st.kept_mass, "entropy_bits": st.entropy_bits, "cutoff": st.cutoff}
                          for st in res.stages],
               **draws, "rng_before": before, "rng_after": after, "notes": res.notes,
               "source": src.label, "step": args.step}
        print(json.dumps(out))
        return 0
    if n < TEXT_STREAM_FROM:
        res, d = sample(row, s, n)
        before, after = d.rng_before, d.rng_after
    else:   # the stages and the RNG's end state first (they print before the draws), then the draws again
        res, c = sample_counts(row, s, n, chunk=1 << 20)
        before, after = c.rng_before, c.rng_after
    info = PRESETS[res.preset]
    print(_("{source}, step {step}; preset {preset}").format(source=message(src.label), step=args.step,
                                                          preset=res.preset)
          + (_(" (greedy)") if res.greedy else "") + ("" if info.reproducible else _(" (draw not reproducible)")))
    for st in res.stages:
        print(_("{stage:<12} kept {kept:<7} mass {mass:.6f}  entropy {entropy:.4f} bits  {cutoff}").format(
            stage=st.name, kept=st.kept, mass=st.kept_mass, entropy=st.entropy_bits, cutoff=sampler_text(st.cutoff)))
        top = np.argsort(-st.probs, kind="stable")[:10]
        for i in top:
            print(f"    id {int(st.ids[i]):<8} p {st.probs[i]:.6f}")
        if st.kept > len(top):
            print(_("    ... {n} more").format(n=st.kept - len(top)))
    print(_("rng before: {before}\nrng after:  {after}").format(before=sampler_text(before), after=sampler_text(after)))
    if n < TEXT_STREAM_FROM:
        print(_("draws:"), " ".join(str(int(x)) for x in d.ids))
    else:
        out_w = sys.stdout
        out_w.write(_("draws:"))

        def put(ids: np.ndarray) -> None:
            out_w.write(" " + " ".join(map(str, ids.tolist())))

        sample_counts(row, s, n, on_chunk=put, chunk=1 << 16)
        out_w.write("\n")
    for note in res.notes:
        print(_("note: {note}").format(note=sampler_text(note)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    sp = sub.add_parser("sample", help=_("sampler stages and exact draws of an engine preset on a logits file"))
    sp.add_argument("--logits", required=True, help=_(".npy, raw f32/f16/bf16 or text (one value per line)"))
    sp.add_argument("--format", choices=LOGITS_FORMATS, help=_("default: detected (npy magic, text, file extension)"))
    g = sp.add_mutually_exclusive_group()
    g.add_argument("--vocab", type=int, help=_("vocabulary size (raw formats)"))
    g.add_argument("--tokenizer", "-t", help=_("tokenizer whose vocabulary size to use"))
    sp.add_argument("--step", type=int, default=0, help=_("row of a 2-D file (default 0)"))
    sp.add_argument("--preset", choices=list(PRESETS), required=True,
                    help=_("whose sampler: an engine's stage order and rules, or custom"))
    sp.add_argument("--temperature", type=float, default=0.8, help=_("the temperature stage's value"))
    sp.add_argument("--top-k", type=int, default=40, help=_("top-k's k"))
    sp.add_argument("--top-p", type=float, default=0.95, help=_("top-p's probability mass"))
    sp.add_argument("--min-p", type=float, default=0.05, help=_("min-p's share of the top probability"))
    sp.add_argument("--seed", type=int, default=42, help=_("the RNG seed of the draws"))
    sp.add_argument("--draws", type=int, default=1,
                    help=_("draws in a row from one RNG seeded once; streamed, so any count up to 2^32-1 runs in "
                           "flat memory; --json lists them up to {limit}, above that it gives draw_counts "
                           "({{id: count}}), draws_first (the first 1,000) and n_draws instead of draws").format(
                        limit=f"{JSON_DRAWS_LIMIT:,}"))
    sp.add_argument("--order", help=_("custom: stage order, e.g. temperature,top_k,top_p,min_p"))
    sp.add_argument("--semantics", help=_("custom: per-stage engine rule, e.g. top_p=llama.cpp,min_p=ds4"))
    sp.add_argument("--json", action="store_true", help=_("stages, final candidates and draws as one JSON object"))
    sp.add_argument("--json-top", type=int, default=256,
                    help=_("--json: each stage lists its K most probable candidates, most probable first "
                           "(\"listed\" says how many, \"kept\" how many the stage has); 0 lists all, in the "
                           "stage's order"))
    sp.set_defaults(func=cmd_sample)
