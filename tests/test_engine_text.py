"""The native sampler's sentences (stage cut-offs, notes) are translated in the window: every sentence
the engine writes over a grid of presets, settings and logits (finite, NaN, ±inf, ties, all banned) is
matched by one of tokinspect.window.engine_text's templates, and its figures land in the right slots.

The engine is the oracle of its own words: the sentences come from native/src/sampler.c through
tokinspect.sampling.sample, not from a copy here. A marking translator (every catalog lookup wrapped in
‹…›) shows whether a sentence went through the catalog and what it was filled with.
"""

from __future__ import annotations

import itertools
import random
import re

import numpy as np
import pytest

from tokinspect.sampling.sampler import run_stages, sample
from tokinspect.sampling.settings import PRESETS, SEMANTICS, STAGES, SamplerSettings
from tokinspect.window import engine_text as et


def mark(s: str) -> str:
    return f"‹{s}›"


@pytest.fixture
def marked(monkeypatch):
    monkeypatch.setattr(et, "tr", mark)
    return et.engine_text


def rows() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    base = rng.normal(0, 3, 500).astype(np.float32)
    ties = np.zeros(500, dtype=np.float32)
    nonfinite = base.copy()
    nonfinite[[3, 50, 70]] = [np.nan, np.inf, -np.inf]
    nan_only = np.full(8, np.nan, dtype=np.float32)
    few = np.array([0.0, 5.0, 1.0, 5.0], dtype=np.float32)     # kestrel bans ids 0, 1, 3: little is left
    return [base, ties, nonfinite, nan_only, few]


def settings() -> list[SamplerSettings]:
    out = []
    grid = itertools.product((0.0, 0.8), (0, 1, 40, 5000), (0.0, 0.9, 1.0), (0.0, 0.05))
    for preset, (t, k, p, mp) in itertools.product(PRESETS, grid):
        out.append(SamplerSettings(preset=preset, temperature=t, top_k=k, top_p=p, min_p=mp, seed=3))
    r = random.Random(5)
    for _ in range(40):   # custom chains: each stage after another engine's rules
        order = tuple(r.sample(STAGES, len(STAGES)))
        sem = {st: r.choice(SEMANTICS) for st in STAGES}
        out.append(SamplerSettings(preset="custom", temperature=r.choice((0.0, 0.7)), top_k=r.choice((0, 3, 40)),
                                   top_p=r.choice((0.5, 1.0)), min_p=r.choice((0.0, 0.1)), order=order, semantics=sem))
    return out


def engine_sentences() -> set[str]:
    said: set[str] = set()
    for row, s in itertools.product(rows(), settings()):
        try:
            r = run_stages(row, s)
        except ValueError:
            continue
        said |= {st.cutoff for st in r.stages if st.cutoff} | set(r.notes)
    for preset in PRESETS:   # the generators' states, before and after a few draws
        _r, d = sample(rows()[0], SamplerSettings(preset=preset, seed=11), 3)
        # "xorshift64* 0x…": a generator's name and its state, no words to translate
        said |= {x for x in (d.rng_before, d.rng_after) if not x.startswith("xorshift64* ")}
    return said


def test_every_sentence_the_engine_writes_has_a_template(marked):
    said = engine_sentences()
    assert len(said) > 40
    untranslated = sorted(x for x in said if not marked(x).startswith("‹"))
    assert untranslated == []


def test_figures_land_in_their_slots(marked):
    """Each template filled with distinct figures (and, in a sub-phrase slot, each of its phrases or
    nothing) comes back as the template's translation filled with the same figures in order."""
    phrase_slot = re.compile(r"(?<=[A-Za-z}])\{\d\}")
    for t in et.TEMPLATES:
        slots = re.findall(r"\{\d\}", t)
        phrase_at = {m.start() for m in phrase_slot.finditer(t)}
        starts = [m.start() for m in re.finditer(r"\{\d\}", t)]
        for choice in ("", *et.PHRASES):
            values = []
            for k, at in enumerate(starts):
                if at in phrase_at:
                    values.append(choice if choice in et.PHRASES[:6] or not choice else "")
                else:
                    values.append(f"{k + 1}.{k + 2}5e-0{k}")
            sentence = t.format(*values)
            want = mark(t).format(*(mark(v) if v in et.PHRASES else v for v in values))
            assert marked(sentence) == want, (t, sentence)
        assert len(slots) == len(starts)


def test_a_sentence_no_template_fits_is_shown_as_written(marked):
    assert marked("a sentence the engine never wrote") == "a sentence the engine never wrote"
    assert marked(" (min_p cut first)") == mark(" (min_p cut first)")


def test_the_command_line_says_them_as_the_window_does(qapp, tmp_path):  # noqa: ANN001
    """`tokinspect sample` under zh_CN: each of those sentences, through the command line's reader of
    the window's catalog (no Qt), is the window's own translation, and Chinese; and a real run of the
    command prints them so (its stage lines, notes and generator states)."""
    import os
    import subprocess
    import sys

    from tokinspect.cli import i18n
    from tokinspect.window import i18n as window_i18n

    said = sorted(engine_sentences())
    t = window_i18n.install(qapp, "zh_CN")
    i18n.use("zh_CN")
    try:
        for x in said:
            zh = et.engine_text(x)
            assert zh != x, x   # translated (some only in their punctuation: "T=0.7：scores / T（ds4）")
            assert i18n.sampler_text(x) == zh, x
    finally:
        i18n.use("en")
        qapp.removeTranslator(t)
    assert i18n.sampler_text(said[0]) == said[0]   # English: the engine's words
    row = tmp_path / "row.npy"
    np.save(row, rows()[2])
    env = {**os.environ, "LANG": "zh_CN.UTF-8"}
    for preset in PRESETS:
        r = subprocess.run([sys.executable, "-m", "tokinspect", "sample", "--logits", str(row), "--preset", preset,
                            "--draws", "3"], capture_output=True, text=True, timeout=120, env=env)
        assert r.returncode == 0, r.stderr
        en = subprocess.run([sys.executable, "-m", "tokinspect", "--lang", "en", "sample", "--logits", str(row),
                             "--preset", preset, "--draws", "3"], capture_output=True, text=True, timeout=120)
        sentences = [x for x in said if x in en.stdout]
        assert len(sentences) >= 3, (preset, en.stdout)   # cut-offs, a generator state at least
        i18n.use("zh_CN")
        try:
            for x in sentences:
                assert i18n.sampler_text(x) in r.stdout and x not in r.stdout, (preset, x, r.stdout)
        finally:
            i18n.use("en")
