"""The native sampler's own sentences (each stage's cut-off, the run's notes) in another language.

The engine (native/src/sampler.c) writes them in English with its figures in place. Each sentence it
can write is listed here as a template, its printf conversions as {0}, {1}…; a sentence that matches one
is said with the caller's translation of the template and its figures put back where the translation
has them. A figure that is itself one of the engine's sub-phrases (" (non-finite left out)") is
translated too. The window passes its Qt tr(); the command line the same catalog's words read without Qt.

Does not: change what the engine says (the English is the engine's, word for word), translate a
sentence no template matches (it is shown as the engine wrote it), or choose a language.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

# native/src/sampler.c: the formats of stage_done/add_stage/snprintf(cut…) and note(), in file order
TEMPLATES: tuple[str, ...] = (
    "{0} finite logits{1}",
    "{0} NaN, {1} +inf, {2} -inf (first at id {3}): {4}",
    "ds4: top_p {0} outside (0, 1] is treated as 1 (off)",
    "ds4: the ds4 CLI (ds4_cli.c run_sampled_generation) always samples with top_k = 0; top_k > 0 follows "
    "ds4_sample_logits callers that pass k",
    "ds4: no finite logit: sample_argmax fallback, no RNG draw",
    "ds4: kept sum {0} is not positive and finite: returns the best id, no RNG draw",
    "ds4: sum {0} is not positive and finite: returns the best id, no RNG draw",
    "ds4: sum {0} is not positive and finite: returns ids[0], no RNG draw",
    "min_p={0} of the top prob (threshold prob {1}): {2} kept",
    "p={0}: running sum {1} at rank {2}{3}",
    "T={0} <= 0: argmax id {1} (lowest id among equal maxima), no RNG draw",
    "k={0} <= 0: full vocabulary ({1} finite)",
    "no finite logit: argmax id {0}",
    "T={0}: expf((v - max) / T) in float, id order",
    "min_p={0} of the top prob: {1} kept",
    "p=1: off (draw walks the ids in id order)",
    "T={0}: expf((v - max) / T) in float, sorted by logit",
    "k={0} (capped from {1} at {2})",
    "k={0}: {1} kept (insertion sort, ties keep the lower id)",
    "T={0}: expf((v - max) / T) in float",
    "llama.cpp: NaN logits make its std::sort comparator inconsistent; here NaN sorts last (not bit-exact)",
    "k={0} <= 0: no-op ({1} candidates, id order)",
    "k={0} (capped from {1} at the candidate count)",
    "k={0}, sorted by logit",
    "p={0} >= 1: no-op",
    "p={0} reached at rank {1} (cum {2}), threshold prob {3}",
    "min_p={0} <= 0: no-op",
    "min_p={0}: logit >= max + ln(min_p) = {1}, {2} kept",
    "T={0} <= 0: id {1} keeps its logit, the other {2} get -inf (dist still draws)",
    "llama.cpp: T <= 0 still consumes the RNG in dist (two mt19937 outputs per draw) unless one candidate is left",
    "T={0}: logit / T (temperature last)",
    "kestrel never calls srand (src/main.c main): a fresh engine process draws as after srand(1); seed S here "
    "means srand(S)",
    "{0} <= 0: argmax id {1} (first maximum, banned ids not applied), no rand() call",
    "kestrel: the softmax sum is NaN: every probability is NaN and the draw falls back to the argmax of the logits",
    "T={0}: softmax in float over the whole vocabulary, id order",
    "ids 0, 1, 3 set to 0 (mass {0} removed, not renormalized)",
    "k={0}: no-op (k <= 0 or k >= vocabulary {1})",
    "k={0}: {1} kept (min-heap on probabilities)",
    "min_p={0} of the top prob {1}: threshold {2}",
    "min_p={0} <= 0: off",
    "p={0}: {1} extracted, cum {2} (unrenormalized), last prob {3}{4}",
    "p={0} >= 1: off",
    "kestrel: no probability left (banned or cut): the sum is 0, so r = 0 <= cumsum and the draw returns id 0",
    "kestrel: the final sum is NaN, so r is NaN, no r <= cumsum holds and every draw is the engine's argmax "
    "fallback (best = 0; logits[i] > logits[best]): id {0}{1}{2}; the engine does the same "
    "(vllm_transformer.c sample_token_pk)",
    "no candidates",
    "T={0} <= 0: greedy, id {1}",
    "T={0}: scores / T ({1})",
    "k={0}: off ({1})",
    "k={0}: scores < the k-th largest {1} removed, {2} kept (hf keeps ties)",
    "k={0} (capped from {1}) ({2})",
    "k={0} ({1})",
    "p={0} >= 1: off ({1})",
    "p={0}: ascending cumulative <= {1} removed, {2} kept (hf)",
    "p={0}: {1} kept, cum {2} of the unrenormalized probs (kestrel)",
    "p={0} reached at rank {1}, threshold prob {2} ({3})",
    "min_p={0}: off ({1})",
    "min_p={0}: logit >= max + ln(min_p) = {1}, {2} kept (llama.cpp)",
    "min_p={0} of the top prob: threshold prob {1}, {2} kept ({3})",
    "hf: draw not reproducible (torch.multinomial); the draws shown use xorshift64* over the final probabilities",
    "hf: generate(do_sample=True) raises ValueError for temperature <= 0; shown as do_sample=False (argmax)",
    "hf: the warpers raise ValueError for top_k < 0, top_p < 0 or min_p outside [0, 1]; shown with the rules "
    "applied as is",
    "custom: no engine's draw; the draws use xorshift64* over the final probabilities (double)",
    # the generators' states before and after the draws (rng_state)
    "mt19937 seed {0}, outputs consumed: {1}",
    "glibc srand({0}), rand() calls: {1}",
)

# the engine's %s sub-phrases (filled into the templates above)
PHRASES: tuple[str, ...] = (
    " (non-finite left out)",
    " (min_p cut first)",
    " (p never reached)",
    "the vocabulary size",
    ", which is not a final candidate",
    " (logits[0] is NaN: no logit compares greater, so it stays at id 0)",
    "ds4 skips non-finite logits (isfinite), as sample_top_p_min_p does",
    "llama.cpp keeps them as they are (+inf makes expf(inf - inf) NaN downstream)",
    "kestrel does not filter them (the float arithmetic runs on them as is)",
    "NaN and -inf are dropped; +inf entries share all the mass",
)


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each template as a regex. subtle: a slot written right after a letter or another slot
    ("logits{1}", "{2}{3}") is one of the engine's optional sub-phrases, never a figure: it matches
    only those (or nothing), so the figure before it keeps its digits."""
    phrase = "((?:" + "|".join(re.escape(p) for p in PHRASES) + ")?)"
    out = []
    for t in TEMPLATES:
        body, at = "", 0
        for m in re.finditer(r"\{\d\}", t):
            body += re.escape(t[at:m.start()])
            before = t[m.start() - 1] if m.start() else " "
            body += phrase if before.isalpha() or before == "}" else "(.*?)"
            at = m.end()
        body += re.escape(t[at:])
        out.append((re.compile(body + r"\Z", re.DOTALL), t))
    return tuple(out)


def say(text: str, translate: Callable[[str], str]) -> str:
    """The engine's English sentence through `translate` (as written when no template fits)."""
    if text in PHRASES:
        return translate(text)
    for pat, template in _patterns():
        m = pat.match(text)
        if m is not None:
            values = [translate(v) if v in PHRASES else v for v in m.groups()]
            return translate(template).format(*values)
    return text
