"""The optional extra `corpus` (HF `datasets`, Ray): imported only when a run asks for it.

Without the extra, the corpus readers and the local run work; a run that needs a missing package
raises `MissingExtra`, whose one sentence says how to get it.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

INSTALL = 'pip install "tokinspect[corpus]"'


class MissingExtra(Exception):
    """A package of the `corpus` extra is not installed (one sentence: what needs it, how to get it)."""


def missing(modules: tuple[str, ...] = ("datasets", "ray")) -> list[str]:
    """Which of the extra's packages are not installed (found without importing them)."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def hint() -> str:
    """One sentence for a user without the extra ("" with it)."""
    gone = missing()
    if not gone:
        return ""
    return (f"Corpora of real size: tokinspect languages --engine datasets / --ray ADDRESS need "
            f"{' and '.join(gone)}: {INSTALL}")


def need(module: str, what: str) -> ModuleType:
    """Imports `module` (e.g. "datasets", "ray", "pyarrow.parquet") or raises MissingExtra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise MissingExtra(f"{what} needs the Python package {top!r}, which is not installed: {INSTALL}") from None
