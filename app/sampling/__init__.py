"""The sampler, stage by stage: logits files memory-mapped, the engines' sampling chains (ds4,
llama.cpp, kestrel, hf, custom) run in the native engine with each stage's distribution, and
their exact draws for a seed (`sampler`); the presets and a run's settings as plain data
(`settings`); a bigram demo source of logits for a first run (`demo`).

The names below are the package's public face (`from tokinspect.sampling import ...`).

Does not: draw plots (window/ and widgets/ do), or tokenize (the demo asks core.Tokenizer).
"""

from .sampler import (
    LOGITS_FORMATS,
    DrawCounts,
    Draws,
    FileChangedError,
    LogitsSource,
    SampleResult,
    Stage,
    chi_square,
    draw,
    empirical,
    open_logits,
    run_stages,
    sample,
    sample_counts,
)
from .settings import PRESETS, SEMANTICS, STAGES, PresetInfo, SamplerSettings

__all__ = ["LOGITS_FORMATS", "PRESETS", "SEMANTICS", "STAGES", "DrawCounts", "Draws", "FileChangedError",
           "LogitsSource", "PresetInfo", "SampleResult", "SamplerSettings", "Stage", "chi_square", "draw", "empirical",
           "open_logits", "run_stages", "sample", "sample_counts"]
