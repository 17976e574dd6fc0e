"""The window's languages: `tr(text)` translates one user-visible string (Qt's translation system,
one context "tokinspect"), `install(app, lang)` loads the compiled catalog of a language, and
`chosen(arg, settings)` picks the language (--lang, then View → Language, then the system locale).

Catalogs: resources/i18n/tokinspect_<lang>.ts (the sources, written by hand) compiled to .qm by the
package build (setup.py runs pyside6-lrelease). English is the source language: no catalog.

`message(text)` says a sentence the engine or a loader made (a refusal shown in an error box) in the
installed language, through the message catalog the command line uses too (resources/i18n/cli_<lang>.po,
tokinspect.resources.catalog): its values (offsets, JSON paths, ids) kept verbatim.

Does not: translate the CLI's own messages, or switch a built window live (the language applies when
the window is next built: View → Language says so).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale, QSettings, QTranslator

from .. import resources
from ..resources import catalog as messages

CONTEXT = "tokinspect"
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}   # code -> the name the menu shows (in its own language)
SETTING = "view/language"
# the catalog's own language, as an entry of it: tr(SOURCE, LANGUAGE_ENTRY) is "zh_CN" while that catalog
# is installed and "en" once it is removed, so message() follows exactly what tr() speaks
SOURCE, LANGUAGE_ENTRY = "en", "the catalog's language code"


def tr(text: str, disambiguation: str | None = None) -> str:
    """The current language's `text` (the English source when no catalog has it). `disambiguation`
    (the .ts entry's <comment>) tells apart one English text read two ways: "special tokens" as a
    row of counts (特殊 token 数) and as an aspect of a tokenizer (特殊 token)."""
    return QCoreApplication.translate(CONTEXT, text, disambiguation)


def system_language() -> str:
    """zh_CN when the system locale is Chinese (any script or region), else English."""
    return "zh_CN" if QLocale.system().language() == QLocale.Language.Chinese else "en"


def chosen(arg: str | None, settings: QSettings) -> str:
    """--lang first, then the language chosen in View → Language, then the system locale."""
    if arg in LANGUAGES:
        return arg
    saved = str(settings.value(SETTING, "") or "")
    return saved if saved in LANGUAGES else system_language()


def catalog(lang: str) -> str:
    """The compiled catalog's path (tokinspect.resources i18n/tokinspect_<lang>.qm)."""
    return str(resources.path(f"i18n/tokinspect_{lang}.qm"))


def install(app: QCoreApplication, lang: str) -> QTranslator | None:
    """Loads `lang`'s catalog into `app` (English: nothing to load). Raises FileNotFoundError or
    ValueError when the catalog is missing or unreadable (a broken install)."""
    if lang == "en":
        return None
    path = catalog(lang)
    t = QTranslator(app)
    if not t.load(path):
        raise ValueError(f"{path}: not a Qt translation catalog (reinstall tokinspect)")
    app.installTranslator(t)
    return t


def message(text: str) -> str:
    """A sentence made outside the window (the engine's refusal, a loader's, the system's), line by
    line, in the installed language; a line no catalog pattern fits is shown as it was."""
    lang = tr(SOURCE, LANGUAGE_ENTRY)
    return "\n".join(messages.message(line, lang) for line in text.split("\n"))
