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
them). They are read at run time by the small .po reader below: a few hundred entries parse in about
a millisecond, so there is no compiled .mo to keep in step with its source, and no build step.

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
from functools import cache

LANGUAGES = ("en", "zh_CN")          # the window's --lang choices too (tokinspect.gui)
SIMPLIFIED = {"zh", "zh_cn", "zh_sg", "zh_hans", "zh_hans_cn", "zh_hans_sg"}
ENV = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")   # gettext.find's order (CPython Lib/gettext.py)
MAX_DEPTH = 4                        # message(): how deep a sentence's values are translated in turn
NESTED = ("reason", "what", "note")  # message(): the values that are sentences themselves; others stay verbatim

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


# ---- the .po reader ----------------------------------------------------------------------------

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}


def _unquote(s: str, where: str) -> str:
    s = s.strip()
    if len(s) < 2 or s[0] != '"' or s[-1] != '"':
        raise ValueError(f"{where}: a quoted string was expected")
    return re.sub(r'\\(.)', lambda m: _ESCAPES.get(m.group(1), m.group(0)), s[1:-1])


def parse_po(text: str, name: str = "catalog") -> dict[tuple[str, str], list[str]]:
    """(msgctxt, msgid) -> [msgstr] or [msgstr[0], ...] of a .po file; the header (msgid "") and
    entries with an empty translation are left out. Raises ValueError naming the line."""
    out: dict[tuple[str, str], list[str]] = {}
    entry: dict[str, str] = {}
    key = ""

    def flush() -> None:
        if "msgid" in entry and entry["msgid"]:
            strs = [entry[k] for k in sorted(entry) if k.startswith("msgstr")]
            if strs and all(strs):
                out[(entry.get("msgctxt", ""), entry["msgid"])] = strs
        entry.clear()

    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{name}:{no}"
        if not line or line.startswith("#"):
            if not line:
                flush()
            continue
        if line.startswith('"'):
            if not key:
                raise ValueError(f"{where}: a continued string without a keyword")
            entry[key] += _unquote(line, where)
            continue
        word, _sep, rest = line.partition(" ")
        if word == "msgctxt" and "msgid" in entry:
            flush()
        if word not in ("msgctxt", "msgid", "msgid_plural", "msgstr") and not re.fullmatch(r"msgstr\[\d\]", word):
            raise ValueError(f"{where}: unknown keyword {word!r}")
        key = word
        entry[key] = _unquote(rest, where)
    flush()
    return out


@cache
def catalog(domain: str, lang: str) -> dict[tuple[str, str], list[str]]:
    """resources/i18n/<domain>_<lang>.po, read once."""
    from .. import resources

    p = resources.path(f"i18n/{domain}_{lang}.po")
    return parse_po(p.read_bytes().decode("utf-8"), p.name)


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


_FIELD = re.compile(r"\{(\w+)(?:![rsa])?(?::[^{}]*)?\}")


@cache
def _patterns(lang: str) -> list[tuple[re.Pattern[str], str]]:
    """The catalog's msgctxt "message" entries as (regex of the English sentence, translation),
    the most specific first: the longest literal start ("sample {i} ...: {what}" before
    "{token}: id {was} is now {now}", which would take the whole "sample ..." as its token), then
    the longest literal text."""
    out = []
    for (ctxt, msgid), strs in catalog("cli", lang).items():
        if ctxt != "message":
            continue
        parts, pos = [], 0
        for m in _FIELD.finditer(msgid):
            parts.append(re.escape(msgid[pos:m.start()]))
            parts.append(f"(?P<{m.group(1)}>.+?)")
            pos = m.end()
        parts.append(re.escape(msgid[pos:]))
        first = _FIELD.search(msgid)
        lead = first.start() if first else len(msgid)
        out.append(((-lead, -len(_FIELD.sub("", msgid))), re.compile("".join(parts), re.S), strs[0]))
    out.sort(key=lambda t: t[0])
    return [(rx, tr) for _n, rx, tr in out]


def message(text: str, depth: int = 0) -> str:
    """A sentence made outside tokinspect.cli, in the current language: an exact catalog entry, or
    the first msgctxt "message" pattern it matches. Its values named in NESTED ({reason}, {what},
    {note}: a sentence inside a frame) are translated in turn; every other value (file names,
    offsets, JSON paths, pieces, ids) is kept verbatim. Unknown sentences stay as they are."""
    if _current == "en" or not text or depth > MAX_DEPTH:
        return text
    exact = catalog("cli", _current).get(("message", text)) or catalog("cli", _current).get(("", text))
    if exact:
        return exact[0]
    for rx, tr in _patterns(_current):
        m = rx.fullmatch(text)
        if m is None:
            continue
        values = {k: message(v, depth + 1) if k in NESTED else v for k, v in m.groupdict().items()}
        return _FIELD.sub(lambda f, vals=values: vals.get(f.group(1), f.group(0)), tr)  # type: ignore[misc]
    return text


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
    out = [f"{{{name}{'!' + conv if conv else ''}{':' + spec if spec else ''}}}"
           for _lit, name, spec, conv in string.Formatter().parse(text) if name is not None]
    out += re.findall(r"%(?:\(\w+\))?[sdr]", text)
    return sorted(out)

