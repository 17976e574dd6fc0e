"""The Sampling tab's drag path (core: no data files): the plots made from a light run (the engine's
per-stage tops, no full-vocabulary arrays) are the plots made from the full run, for every preset on
rows with ties at the N-th bar and -inf masks; the engines table is refilled in place."""

from __future__ import annotations

import os
from dataclasses import replace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tokinspect.sampling import PRESETS, SamplerSettings, run_stages  # noqa: E402
from tokinspect.window.sampling import EnginesView, Fate, stage_plots  # noqa: E402


def _rows() -> list[np.ndarray]:
    rng = np.random.default_rng(21)
    masked = (rng.normal(size=20_000) * 2).astype(np.float32)
    masked[rng.random(20_000) < 0.7] = -np.inf
    counts = np.zeros(20_000, dtype=np.float32)                  # the bigram demo's shape: ties everywhere
    counts[rng.integers(0, 20_000, 30)] = rng.integers(1, 5, 30)
    return [(rng.normal(size=20_000) * 2.5).astype(np.float32), masked, np.log(counts + np.float32(0.01)),
            np.round(rng.normal(size=20_000)).astype(np.float32)]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_light_plots_equal_full_plots(preset: str) -> None:
    for x in _rows():
        for t in (0.0, 0.4, 1.0, 2.2):
            for top_n in (5, 16):
                s = SamplerSettings(preset=preset, temperature=t)
                res = run_stages(x, s)
                full = stage_plots(res, None, top_n)
                light = stage_plots(run_stages(x, s, top_n=top_n, light=True), None, top_n)
                assert len(full) == len(light)
                for k, b in enumerate(light[1:-1], 1):         # the kept marks, against the full stage's ids
                    assert b.kept.tolist() == np.isin(b.ids, res.stages[k].ids).tolist()
                for a, b in zip(full, light):
                    assert (a.name, a.title, a.cutoff) == (b.name, b.title, b.cutoff)
                    # the full path picks the top N with argpartition: among probabilities tied at the
                    # N-th place it may hold other ids; the engine keeps the lower ids (as lexsort orders)
                    assert a.probs.tolist() == b.probs.tolist()
                    ties = np.isin(a.probs, a.probs[-1:])
                    assert a.ids[~ties].tolist() == b.ids[~ties].tolist()
                    assert a.kept[~ties].tolist() == b.kept[~ties].tolist()
                    assert [lab for lab, t_ in zip(a.labels, ties) if not t_] == [
                        lab for lab, t_ in zip(b.labels, ties) if not t_]
                    # the engine's tops are the (probability desc, id asc) order, ties included
                    order = np.lexsort((b.ids, -b.probs))
                    assert order.tolist() == list(range(len(b.ids)))


def test_engines_table_refilled_in_place(qtbot: object) -> None:
    from tokinspect.widgets.sampling_pane import SamplingPane

    pane = SamplingPane()
    qtbot.addWidget(pane)  # type: ignore[attr-defined]
    cells = ("0.5000", "cut by top_k", "0.2500", "0.1000")
    fates = [Fate(7, "a", cells, True), Fate(9, "b", ("0.1",) * 4, False)]
    v = EnginesView(SamplerSettings(), fates, ("7 'a'",) * 4)
    pane.show_engines(v)
    items = [pane.engines.item(r, c) for r in range(4) for c in range(3)]
    v2 = replace(v, fates=[fates[0], Fate(9, "b", ("0.2",) * 4, True)])
    pane.show_engines(v2)
    assert [pane.engines.item(r, c) for r in range(4) for c in range(3)] == items   # the same items, new texts
    assert pane.engines.item(0, 2).text() == "0.2"
    assert pane.engines.item(0, 2).background() == pane.engines.item(0, 1).background()
