"""The native sampler's own sentences (each stage's cut-off, the run's notes) in the window's language:
tokinspect.sampling.sentences' templates through the window's tr().

Does not: hold the templates (the command line says the same sentences without Qt).
"""

from __future__ import annotations

from ..sampling.sentences import PHRASES, TEMPLATES, say
from .i18n import tr

__all__ = ["PHRASES", "TEMPLATES", "engine_text"]


def engine_text(text: str) -> str:
    """The engine's English sentence in the window's language (as written when no template fits)."""
    return say(text, tr)
