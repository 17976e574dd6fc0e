"""What a packager gets: the sdist's metadata and contents (issue 18's packaging part).

The sdist is built from this checkout with setuptools' PEP 517 backend (no compiler needed), then read:
the license is an SPDX expression (Core Metadata 2.4 `License-Expression`, not the deprecated table or a
classifier), the version is the one pyproject.toml states and `tokinspect --version` prints, and the archive
carries what a packager needs to build and test: the engine sources, tests, bench, docs and the license.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_sdist_metadata_and_contents(tmp_path: Path) -> None:
    code = ("import sys; from setuptools import build_meta as b; "
            "print(b.build_sdist(sys.argv[1]))")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    sdist = tmp_path / r.stdout.strip().splitlines()[-1]
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")   # (tomllib is 3.11+; we support 3.10)
    lic = re.search(r'^license\s*=\s*(.+)$', text, re.M)
    ver = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    assert lic and ver
    assert lic.group(1).startswith('"'), f"license must be an SPDX string, not {lic.group(1)}"
    assert "License ::" not in text, "no license classifier next to an SPDX expression"
    project = {"license": lic.group(1).strip('"'), "version": ver.group(1)}
    with tarfile.open(sdist) as tf:
        names = tf.getnames()
        top = names[0].split("/")[0]
        pkg_info = tf.extractfile(f"{top}/PKG-INFO").read().decode()  # type: ignore[union-attr]
    fields = dict(line.split(": ", 1) for line in pkg_info.splitlines() if ": " in line and not line.startswith(" "))
    assert fields["License-Expression"] == project["license"] == "MIT"
    assert fields["Version"] == project["version"]
    have = {n.split("/", 1)[1] for n in names if "/" in n}
    for need in ("LICENSE", "README.md", "README.zh-CN.md", "pyproject.toml", "setup.py", "native/README.md",
                 "native/src/pipeline.c", "native/python/pymodule.c", "tests/run.sh", "tests/conftest.py",
                 "bench/throughput.py", "docs/contract.md", "resources/tokinspect.desktop",
                 "resources/i18n/cli_zh_CN.po", "resources/i18n/argparse_zh_CN.po"):   # the CLI's catalogs
        assert need in have, f"the sdist lacks {need}"
    v = subprocess.run([sys.executable, "-m", "tokinspect", "--version"], capture_output=True, text=True)
    assert v.returncode == 0 and project["version"] in v.stdout
