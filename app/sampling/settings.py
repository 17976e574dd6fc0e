"""What a sampler run is asked to do, as plain data: the engine presets and their stage order
(`PRESETS`), the stage names (`STAGES`), the engines whose rules a custom stage can follow
(`SEMANTICS`), and the settings of one run (`SamplerSettings`).

Does not: sample or check the settings (sampler.py does both, in the engine), or read logits.
"""

from __future__ import annotations

from dataclasses import dataclass

STAGES: tuple[str, ...] = ("temperature", "top_k", "top_p", "min_p")
SEMANTICS: tuple[str, ...] = ("ds4", "llama.cpp", "kestrel", "hf")


@dataclass(frozen=True)
class PresetInfo:
    name: str
    order: tuple[str, ...]      # stages after "input", in the engine's order
    reproducible: bool          # the draw matches the engine bit for bit
    summary: str


PRESETS: dict[str, PresetInfo] = {
    "ds4": PresetInfo(
        "ds4", ("top_k", "temperature", "min_p", "top_p"), True,
        "antirez/ds4: T<=0 argmax; top-k capped at 1024 (insertion sort, ties keep the lower id); "
        "float expf((v-max)/T); min-p relative to the top, then top-p on the running sum; xorshift64* "
        "whose state is the seed (the ds4 CLI: --seed S, S >= 1; it samples with top_k = 0)."),
    "llama.cpp": PresetInfo(
        "llama.cpp", ("top_k", "top_p", "min_p", "temperature"), True,
        "llama.cpp default chain: top-k, top-p, min-p on the untempered logits, temperature last; "
        "dist draws with std::mt19937 (two outputs per draw, also at T<=0)."),
    "kestrel": PresetInfo(
        "kestrel", ("temperature", "ban", "top_k", "min_p", "top_p"), True,
        "kestrel-llm (RK3588): greedy when T<=0 or top-p<=0; ids 0, 1, 3 banned; top-p on probabilities "
        "not renormalized after top-k/min-p; glibc rand(), which kestrel never seeds (seed 1 = a fresh "
        "engine process; seed S = srand(S))."),
    "hf": PresetInfo(
        "hf", ("temperature", "top_k", "top_p", "min_p"), False,
        "transformers: temperature, top-k, top-p, min-p, keeping at least one token; top-p ties follow "
        "torch.sort's ascending index order; the draw (torch.multinomial) is not reproducible."),
    "custom": PresetInfo(
        "custom", STAGES, False,
        "Your own order and per-stage rules; drawn with xorshift64* over the final probabilities."),
}


@dataclass(frozen=True)
class SamplerSettings:
    preset: str = "llama.cpp"
    temperature: float = 0.8
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    seed: int = 42
    order: tuple[str, ...] | None = None            # custom only (default: STAGES)
    semantics: dict[str, str] | None = None          # custom only: stage -> one of SEMANTICS (default llama.cpp)
