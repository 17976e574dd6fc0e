"""The command line's languages: English (the source language, no catalog) and Simplified Chinese.

  choose(argv)   the language: a global `--lang en|zh_CN` before the command, else the environment
                 as gettext reads it (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), else English
  use(lang)      makes `lang` the one `_()`, `message()` and argparse's own words speak
  _(text)        one marked message (a literal with str.format placeholders: "{path}: ...")
  message(text)  a sentence made elsewhere (the engine, a loader, the standard library) said in the
                 current language: matched against the catalog's patterns, its values kept verbatim

Catalogs (resources/i18n/, shipped as package data): `cli_<lang>.po` (the messages marked in
tokinspect.cli, and msgctxt "message" patterns for sentences the engine and the package's modules
make) and `argparse_<lang>.po` (argparse's own words, msgids exactly as the standard library writes
them). They are read at run time by tokinspect.resources.catalog (shared with the window): a few
hundred entries parse in about a millisecond, so there is no compiled .mo to keep in step with its
source, and no build step.

argparse looks its words up with `gettext.gettext` bound at import as its module globals `_` and
`ngettext` (CPython 3.10-3.13 Lib/argparse.py: `from gettext import gettext as _, ngettext`): `use`
binds those two to the argparse catalog (and back to the originals for English), so "usage:",
"error:", "options", "the following arguments are required" follow the language.

Does not: import Qt (the window has its own catalog, app/window/i18n.py), translate machine-readable
output (--json, JSON Lines, ids, CSV), or translate the native tokcore driver (the engine's own,
English, also run on the board).
"""

from __future__ import annotations

import argparse
import os
import re
import string
from collections.abc import Mapping, Sequence

from ..resources import catalog as _catalog
from ..resources.catalog import _FIELD, catalog, parse_po  # noqa: F401 - the reader, shared with the window
from ..sampling.sentences import say

LANGUAGES = ("en", "zh_CN")          # the window's --lang choices too (tokinspect.gui)
SIMPLIFIED = {"zh", "zh_cn", "zh_sg", "zh_hans", "zh_hans_cn", "zh_hans_sg"}
ENV = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")   # gettext.find's order (CPython Lib/gettext.py)

_ORIGINAL = (argparse._, argparse.ngettext)   # type: ignore[attr-defined]
_current = "en"


def normalize(code: str) -> str | None:
    """A locale name (zh_CN.UTF-8, zh-Hans, en_US@euro, C) as one of LANGUAGES, or None when it is
    another language (zh_TW, zh_Hant: traditional script, no catalog)."""
    base = code.split(".", 1)[0].split("@", 1)[0].replace("-", "_").lower()
    if base in SIMPLIFIED:
        return "zh_CN"
    if base in ("c", "posix") or base == "en" or base.startswith("en_"):
        return "en"
    return None


def from_environment(env: Mapping[str, str]) -> str:
    """The language gettext would pick: the first of LANGUAGE, LC_ALL, LC_MESSAGES, LANG that is
    set, read as a colon-separated list (CPython Lib/gettext.py, find()); its first entry we have a
    catalog for, or English (the source language) first, wins. "C" stops the search, as in gettext."""
    for var in ENV:
        val = env.get(var, "")
        if not val:
            continue
        for code in val.split(":"):
            lang = normalize(code) if code else None
            if lang is not None:
                return lang
        return "en"
    return "en"


def lang_argument(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """A leading `--lang X` / `--lang=X` (the global option, before the command), and the rest."""
    args = list(argv)
    if args and args[0] == "--lang" and len(args) > 1:
        return args[1], args[2:]
    if args and args[0].startswith("--lang="):
        return args[0].split("=", 1)[1], args[1:]
    return None, args


def choose(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """--lang first (an unknown value is left to the parser's error), then the environment."""
    arg, _rest = lang_argument(argv)
    if arg in LANGUAGES:
        return str(arg)
    return from_environment(os.environ if env is None else env)


# ---- looking messages up -----------------------------------------------------------------------

def current() -> str:
    return _current


def _(text: str) -> str:
    """`text` in the current language (itself in English, or when the catalog lacks it)."""
    if _current == "en":
        return text
    found = catalog("cli", _current).get(("", text))
    return found[0] if found else text


def _argparse_gettext(text: str) -> str:
    found = catalog("argparse", _current).get(("", text))
    return found[0] if found else text


def _argparse_ngettext(singular: str, plural: str, n: int) -> str:
    found = catalog("argparse", _current).get(("", singular))
    if found:
        return found[0]   # zh_CN: one plural form (Plural-Forms: nplurals=1)
    return singular if n == 1 else plural


def use(lang: str) -> None:
    """Makes `lang` the language of `_()`, `message()` and argparse's own words."""
    global _current
    _current = lang if lang in LANGUAGES else "en"
    if _current == "en":
        argparse._, argparse.ngettext = _ORIGINAL   # type: ignore[attr-defined]
    else:
        catalog("cli", _current)   # a broken install fails here, before any command runs
        argparse._, argparse.ngettext = _argparse_gettext, _argparse_ngettext   # type: ignore[attr-defined]


def message(text: str) -> str:
    """A sentence made outside tokinspect.cli (the engine, a loader, the standard library) in the
    current language: the catalog's msgctxt "message" patterns (tokinspect.resources.catalog.message),
    its values (file names, offsets, JSON paths, pieces, ids) kept verbatim."""
    return _catalog.message(text, _current)


def sampler_text(text: str) -> str:
    """One of the native sampler's sentences (a stage's cut-off, a run's note) in the current language:
    tokinspect.sampling.sentences' templates with the window's words for them (its Qt catalog, read
    as XML), so `sample` and the Sampling tab say the same; a sentence no template fits goes through
    `message`."""
    if _current == "en":
        return text
    words = _catalog.qt_catalog(_current)
    said = say(text, lambda t: words.get((t, ""), t))
    return said if said != text else message(text)


def finding_text(text: str) -> str:
    """A board rule's sentence template (or one of its words) in the current language: the catalog's
    msgctxt "finding" entry, looked up whole (its {0}, {1}… are filled by the caller)."""
    if _current == "en":
        return text
    got = catalog("cli", _current).get(("finding", text))
    return got[0] if got else text


def fields(text: str) -> list[str]:
    """The placeholders of a message, sorted: str.format's fields ("{name!r:>6}" as "{name!r:>6}",
    escaped braces left out) and %-style ones ("%(default)s", "%s"): a translation keeps them all."""
    try:
        out = [f"{{{name}{'!' + conv if conv else ''}{':' + spec if spec else ''}}}"
               for _lit, name, spec, conv in string.Formatter().parse(text) if name is not None]
    except ValueError:   # a literal brace ("expected ',' or '}'", '{"Regex": ...}'): a message pattern's fields
        out = [m.group(0) for m in _FIELD.finditer(text)]
    out += re.findall(r"%(?:\(\w+\))?[sdr]", text)
    return sorted(out)

