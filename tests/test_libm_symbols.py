"""The extension names libm when it is linked, so its math calls bind to glibc's current symbol
versions. Left unversioned (libm reached only through the interpreter), expf binds to
expf@GLIBC_2.2.5, the SVID compat wrapper that checks for errno around every call: 10% of the
kestrel sampler preset's time (setup.py BuildExt)."""

from __future__ import annotations

import re
import shutil
import subprocess

from tokinspect import _tokcore


def test_math_calls_bind_to_current_symbol_versions() -> None:
    objdump = shutil.which("objdump")
    assert objdump, "objdump (binutils, installed with gcc) is needed to read the dynamic symbols"
    out = subprocess.run([objdump, "-T", _tokcore.__file__], capture_output=True, text=True, check=True).stdout
    found: dict[str, str] = {}
    for line in out.splitlines():
        m = re.search(r"\*UND\*\s+\S+\s+(\(?[\w.]+\)?)\s+(expf|logf|log)$", line)
        if m:
            found[m.group(2)] = m.group(1)
    assert set(found) == {"expf", "logf", "log"}, out
    for name, version in found.items():
        assert version.startswith("(GLIBC_") or version.startswith("GLIBC_"), (name, version)
