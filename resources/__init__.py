"""The files tokinspect ships beside its code: the icon (tokinspect.svg), the desktop entry
(tokinspect.desktop) and the sample texts (samples/window.txt: the window's first text, which
--screenshot renders too; samples/chat.json: the Chat tab's first messages). Translations
(zh_CN) in i18n/ (tokinspect_zh_CN.ts, compiled to .qm by the build).

Installed as the package tokinspect.resources (package data), so `path()` and `text()` find the
files through importlib.resources in a wheel and an editable install alike.

catalog.py reads the message catalogs (i18n/*.po) for the command line and the window alike.

Does not: hold code beyond these look-ups and the catalogs' reader, or data users open (tokenizers,
corpora).
"""

from __future__ import annotations

from importlib import resources as _resources
from pathlib import Path


def path(name: str) -> Path:
    """The file's path on disk, e.g. path("samples/window.txt")."""
    p = Path(str(_resources.files(__name__).joinpath(name)))
    if not p.is_file():
        raise FileNotFoundError(f"{p} is missing from tokinspect's resources (reinstall tokinspect)")
    return p


def text(name: str) -> str:
    """The file's text, UTF-8 and byte for byte (no newline translation)."""
    return path(name).read_bytes().decode("utf-8")
