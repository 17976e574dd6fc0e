"""The package's layering, read from the sources with `ast` (nothing here imports the package's code).

Data flows one way: the engine's face (core) -> formats, analysis, sampling -> board -> the window's
models (window) -> views (widgets); the CLI and the GUI entry sit on top. Every import of every file
under app/, widgets/ and resources/ is checked, lazy and TYPE_CHECKING imports included:

- each part imports only the parts listed for it in PARTS (itself included);
- Qt (PySide6, shiboken6, pyqtgraph) only in the window's models, the views and the GUI entry;
- the views import only the window's models, each other and the plain data modules (PLAIN), and of
  other libraries only the standard library, numpy and Qt;
- a plain data module imports no other module of the package than plain ones, and no Qt;
- no import cycle among the package's modules;
- every subpackage opens with a docstring, and is listed in pyproject.toml (the wheel holds only the
  listed packages); every file under resources/ is package data.

A failure lists every offending import as `file:line: module imports target: rule`.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOTS = {"app": "tokinspect", "widgets": "tokinspect.widgets", "resources": "tokinspect.resources"}
ENGINE = "tokinspect._tokcore"          # the C extension, built from native/
ALIASES = {"tokinspect.tokenizer": "tokinspect.core.tokenizer", "tokinspect.trace": "tokinspect.core.trace"}
QT = ("PySide6", "shiboken6", "pyqtgraph")

# part -> the parts it may import. A module belongs to the longest part that prefixes its name.
PARTS: dict[str, set[str]] = {
    "tokinspect": {"tokinspect.core"},                              # the public face: Tokenizer, Encoding, Trace
    "tokinspect.__main__": {"tokinspect.cli"},
    "tokinspect.tokenizer": {"tokinspect.core"},                    # old paths, aliases of core's modules
    "tokinspect.trace": {"tokinspect.core"},
    "tokinspect.core": {ENGINE},
    "tokinspect.formats": {ENGINE, "tokinspect.core"},
    "tokinspect.analysis": {"tokinspect.core"},
    "tokinspect.sampling": {ENGINE, "tokinspect.core"},
    "tokinspect.board": {"tokinspect.core", "tokinspect.formats"},
    "tokinspect.contract": {ENGINE, "tokinspect.core", "tokinspect.formats", "tokinspect.board"},
    "tokinspect.languages": {ENGINE, "tokinspect.core"},                # corpora, per-language figures, reports
    "tokinspect.window": {"tokinspect.core", "tokinspect.formats", "tokinspect.analysis", "tokinspect.sampling",
                          "tokinspect.board", "tokinspect.contract", "tokinspect.languages", "tokinspect.resources"},
    "tokinspect.cli": {"tokinspect.core", "tokinspect.formats", "tokinspect.analysis", "tokinspect.sampling",
                       "tokinspect.board", "tokinspect.contract", "tokinspect.languages", "tokinspect.gui",
                       "tokinspect.resources"},   # resources: the CLI's message catalogs (i18n/cli_*.po)
    "tokinspect.gui": {"tokinspect.window", "tokinspect.widgets", "tokinspect.resources"},   # the GUI entry
    "tokinspect.widgets": {"tokinspect.window"},                    # + PLAIN
    "tokinspect.resources": set(),
}
QT_PARTS = {"tokinspect.window", "tokinspect.widgets", "tokinspect.gui"}
# plain data: records and pure functions the views may hold (no engine, no Qt, no I/O)
PLAIN = {"tokinspect.core.encoding", "tokinspect.core.trace", "tokinspect.core.pieces",
         "tokinspect.analysis.encoded", "tokinspect.analysis.stats", "tokinspect.sampling.settings"}
VIEW_LIBRARIES = {"numpy", *QT}


@dataclass(frozen=True)
class Import:
    file: str
    line: int
    module: str         # the importing module
    target: str         # what it imports: a module of the package (aliases resolved) or a top-level library


def module_name(rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([ROOTS[parts[0]], *parts[1:]])


def source_files(repo: Path) -> dict[str, Path]:
    """Every .py file under the package's roots, by module name (walked with os.walk, caches skipped)."""
    out = {}
    for root in ROOTS:
        for dirpath, dirnames, filenames in os.walk(repo / root):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                if name.endswith(".py"):
                    rel = (Path(dirpath) / name).relative_to(repo)
                    out[module_name(rel)] = rel
    return out


def imports_of(module: str, rel: Path, source: str, known: set[str]) -> list[Import]:
    """All imports in one file, resolved to absolute names; names the package does not have are kept
    as they are (so a missing module shows up as one)."""
    is_pkg = rel.name == "__init__.py"
    package = module if is_pkg else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source, str(rel))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                frm = ".".join(base + ([node.module] if node.module else []))
            else:
                frm = node.module or ""
            frm = ALIASES.get(frm, frm)
            targets = []
            for a in node.names:
                sub = ALIASES.get(f"{frm}.{a.name}", f"{frm}.{a.name}")
                targets.append(sub if sub in known else frm)
        else:
            continue
        for t in targets:
            t = ALIASES.get(t, t)
            if not t.startswith("tokinspect"):
                t = t.split(".")[0]
            out.append(Import(str(rel), node.lineno, module, t))
    return out


def part_of(module: str) -> str | None:
    """The longest part that is the module or a package holding it (the root part is its __init__ alone)."""
    best = None
    for p in PARTS:
        inside = module == p or (p != "tokinspect" and module.startswith(p + "."))
        if inside and (best is None or len(p) > len(best)):
            best = p
    return best


def is_stdlib(name: str) -> bool:
    return name in sys.stdlib_module_names or name == "__future__"


def violations(imports: list[Import], known: set[str]) -> list[str]:
    out = []
    for im in imports:
        part = part_of(im.module)
        where = f"{im.file}:{im.line}: {im.module} imports {im.target}"
        if part is None:
            out.append(f"{where}: {im.module} is in no part of PARTS (place it)")
            continue
        if im.target.split(".")[0] in QT and part not in QT_PARTS:
            out.append(f"{where}: Qt only in the window's models, the views and the GUI entry")
            continue
        if im.module in PLAIN and (im.target.split(".")[0] in QT or im.target.startswith("tokinspect")
                                   and im.target not in PLAIN):
            out.append(f"{where}: a plain data module imports only plain data modules")
            continue
        if part == "tokinspect.widgets" and not im.target.startswith("tokinspect"):
            if not is_stdlib(im.target) and im.target not in VIEW_LIBRARIES:
                out.append(f"{where}: the views use the standard library, numpy and Qt only")
            continue
        if not im.target.startswith("tokinspect"):
            continue
        if im.target not in known:
            out.append(f"{where}: no such module")
            continue
        tpart = part_of(im.target)
        if im.target == ENGINE:
            tpart = ENGINE
        if tpart == part or tpart in PARTS[part]:
            continue
        if part == "tokinspect.widgets" and im.target in PLAIN:
            continue
        rule = ("the views import the window's models and plain data only" if part == "tokinspect.widgets"
                else f"{part} may import {', '.join(sorted(PARTS[part])) or 'nothing of the package'}")
        out.append(f"{where}: {rule}")
    return out


def cycles(imports: list[Import]) -> list[list[str]]:
    graph: dict[str, set[str]] = {}
    for im in imports:
        if im.target.startswith("tokinspect") and im.target != im.module:
            graph.setdefault(im.module, set()).add(im.target)
    found, state, stack = [], {}, []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                found.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return found


def read_all(repo: Path) -> tuple[dict[str, Path], list[Import]]:
    files = source_files(repo)
    known = set(files) | {ENGINE}
    imports = [im for m, rel in files.items() for im in imports_of(m, rel, (repo / rel).read_text("utf-8"), known)]
    return files, imports


def test_every_file_is_read() -> None:
    files, imports = read_all(REPO)
    on_disk = {p.relative_to(REPO) for root in ROOTS for p in (REPO / root).rglob("*.py")
               if "__pycache__" not in p.parts}
    assert set(files.values()) == on_disk
    assert len(files) >= 50, sorted(files)
    for must in ("tokinspect.core.tokenizer", "tokinspect.window.document", "tokinspect.widgets.main_window",
                 "tokinspect.board.ssh", "tokinspect.resources"):
        assert must in files, must
    assert len({im.file for im in imports}) >= 50   # every file with an import statement is in `imports`


def test_every_module_has_its_part() -> None:
    files, _ = read_all(REPO)
    assert not [m for m in files if part_of(m) is None], "modules in no part of PARTS"
    assert PLAIN <= set(files), sorted(PLAIN - set(files))


def test_layering() -> None:
    files, imports = read_all(REPO)
    bad = violations(imports, set(files) | {ENGINE})
    assert not bad, f"{len(bad)} imports break the layering:\n" + "\n".join(bad)


def test_no_import_cycles() -> None:
    _, imports = read_all(REPO)
    found = cycles(imports)
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A tree with one offence of each kind: every one is named, with its file and line."""
    bad = {
        "app/__init__.py": '"""x"""\n',
        "app/core/__init__.py": '"""x"""\n',
        "app/core/encoding.py": "import numpy\nfrom .tokenizer import Tokenizer\n",
        "app/core/tokenizer.py": "from .. import _tokcore\nfrom .encoding import Encoding\nfrom PySide6 import QtCore\n",
        "app/sampling/__init__.py": '"""x"""\n',
        "app/sampling/sampler.py": "from ..core.tokenizer import Tokenizer\n",
        "app/window/__init__.py": '"""x"""\n',
        "app/window/document.py": "from PySide6.QtCore import QObject\nfrom tokinspect.widgets import theme\n",
        "app/nowhere.py": "import json\n",
        "widgets/__init__.py": "",
        "widgets/theme.py": "import paramiko\n",
        "widgets/pane.py": ("from tokinspect.window.document import Document\nfrom tokinspect.core.encoding import "
                            "Encoding\n\ndef f():\n    from tokinspect.sampling.sampler import draw\n"),
    }
    for rel, text in bad.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    files, imports = read_all(tmp_path)
    found = violations(imports, set(files) | {ENGINE})
    text = "\n".join(found)
    assert "app/core/encoding.py:2: tokinspect.core.encoding imports tokinspect.core.tokenizer: a plain" in text
    assert "app/core/tokenizer.py:3: tokinspect.core.tokenizer imports PySide6: Qt only" in text
    assert "app/window/document.py:2: tokinspect.window.document imports tokinspect.widgets.theme" in text
    assert "app/nowhere.py:1: tokinspect.nowhere imports json: tokinspect.nowhere is in no part" in text
    assert "widgets/theme.py:1: tokinspect.widgets.theme imports paramiko: the views use" in text
    assert "widgets/pane.py:5: tokinspect.widgets.pane imports tokinspect.sampling.sampler: the views" in text
    assert len(found) == 6, text
    assert cycles(imports) == [["tokinspect.core.encoding", "tokinspect.core.tokenizer", "tokinspect.core.encoding"]]


def test_subpackages_open_with_a_docstring() -> None:
    files, _ = read_all(REPO)
    missing = [str(rel) for m, rel in files.items() if rel.name == "__init__.py" and rel.parts[0] != "widgets"
               and ast.get_docstring(ast.parse((REPO / rel).read_text("utf-8"))) is None]
    assert not missing, f"subpackages without a docstring: {missing}"


def _pyproject_list(key: str) -> str:
    text = (REPO / "pyproject.toml").read_text("utf-8")
    m = re.search(rf"^{re.escape(key)}\s*=\s*(\[[^\]]*\]|\{{[^}}]*\}})", text, re.M)
    assert m, f"pyproject.toml has no {key}"
    return m.group(1)


def test_every_package_ships_in_the_wheel() -> None:
    files, _ = read_all(REPO)
    packages = {m for m, rel in files.items() if rel.name == "__init__.py"}
    listed = set(re.findall(r'"([^"]+)"', _pyproject_list("packages")))
    assert packages == listed, f"not listed in pyproject.toml: {sorted(packages - listed)}; " \
                               f"listed but absent: {sorted(listed - packages)}"


def test_every_resource_is_package_data() -> None:
    import fnmatch
    from importlib import resources

    globs = re.findall(r'"([^"]+)"', _pyproject_list('"tokinspect.resources"'))
    shipped = [p.relative_to(REPO / "resources").as_posix() for p in (REPO / "resources").rglob("*")
               if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert shipped, "resources/ holds no files"
    assert not [f for f in shipped if not any(fnmatch.fnmatch(f, g) for g in globs)], (shipped, globs)
    root = resources.files("tokinspect.resources")
    assert all(root.joinpath(f).is_file() for f in shipped), f"not found through importlib.resources: {root}"
