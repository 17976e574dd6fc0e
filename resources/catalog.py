"""The message catalogs' reader: resources/i18n/<domain>_<lang>.po (gettext's source format), and
`message(text, lang)`, which says a sentence made elsewhere (the engine's refusals, a loader's, the
standard library's) in `lang` by the catalog's msgctxt "message" patterns, its values kept verbatim.

Used by the command line (tokinspect.cli.i18n: its own messages and argparse's words) and by the window
(its error boxes show the engine's refusals through `message`), so both say the engine's sentences
with one catalog. A few hundred entries parse in about a millisecond: no compiled .mo to keep in step.

Does not: choose a language (the command line and the window each choose theirs), or import anything
of tokinspect beyond this package.
"""

from __future__ import annotations

import re
from functools import cache

from . import path

MAX_DEPTH = 4                        # message(): how deep a sentence's values are translated in turn
# message(): the values that are sentences themselves, or a GGUF value's kind ("an array of strings",
# "bool"): translated in turn; others stay verbatim
NESTED = ("reason", "what", "note", "want", "got")


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
    """i18n/<domain>_<lang>.po, read once."""
    p = path(f"i18n/{domain}_{lang}.po")
    return parse_po(p.read_bytes().decode("utf-8"), p.name)


@cache
def qt_catalog(lang: str) -> dict[tuple[str, str], str]:
    """(source, disambiguation) -> translation of the window's Qt catalog, i18n/tokinspect_<lang>.ts
    (the standard library's XML reader: the command line says the window's sentences without Qt);
    unfinished entries are left out, as lrelease leaves them out of the .qm."""
    import xml.etree.ElementTree as ET

    out: dict[tuple[str, str], str] = {}
    root = ET.fromstring(path(f"i18n/tokinspect_{lang}.ts").read_bytes())
    for m in root.iter("message"):
        src, tr, comment = m.find("source"), m.find("translation"), m.find("comment")
        if src is None or tr is None or tr.get("type") in ("unfinished", "obsolete", "vanished") or not tr.text:
            continue
        out[(src.text or "", comment.text or "" if comment is not None else "")] = tr.text
    return out


_FIELD = re.compile(r"\{(\w+)(?:![rsa])?(?::[^{}]*)?\}")


@cache
def patterns(lang: str) -> list[tuple[re.Pattern[str], str]]:
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
            # a value closing the sentence may be empty: the engine's optional suffixes ("...false%s" with "")
            name = m.group(1)
            if re.fullmatch(r"n\d", name):   # a figure of the engine's (%zu, %llu, %02x): digits, not the text after it
                parts.append(f"(?P<{name}>[-+]?[0-9A-Fa-f][0-9A-Fa-f.,]*)")
            else:
                parts.append(f"(?P<{name}>.*?)" if m.end() == len(msgid) else f"(?P<{name}>.+?)")
            pos = m.end()
        parts.append(re.escape(msgid[pos:]))
        first = _FIELD.search(msgid)
        lead = first.start() if first else len(msgid)
        out.append(((-lead, -len(_FIELD.sub("", msgid))), re.compile("".join(parts), re.S), strs[0]))
    out.sort(key=lambda t: t[0])
    return [(rx, tr) for _n, rx, tr in out]


def message(text: str, lang: str, depth: int = 0) -> str:
    """A sentence made elsewhere (the engine, a loader, the standard library) in `lang`: an exact
    catalog entry, or the first msgctxt "message" pattern it matches. Its values named in NESTED ({reason},
    {what}, {note}: a sentence inside a frame; {want}, {got}: a kind of value) are translated in turn; every
    other value (file names, offsets, JSON paths, pieces, ids) is kept verbatim. Unknown sentences stay as they are."""
    if lang == "en" or not text or depth > MAX_DEPTH:
        return text
    exact = catalog("cli", lang).get(("message", text)) or catalog("cli", lang).get(("", text))
    if exact:
        return exact[0]
    for rx, tr in patterns(lang):
        m = rx.fullmatch(text)
        if m is None:
            continue
        values = {k: message(v, lang, depth + 1) if k in NESTED else v for k, v in m.groupdict().items()}
        return _FIELD.sub(lambda f, vals=values: vals.get(f.group(1), f.group(0)), tr)  # type: ignore[misc]
    return text
