"""Files that shrink while open (an editor or a training script saving in place): a logits file
truncated after open_logits, under `tokinspect sample`, `tokcore sample` and the Sampling tab,
and a tokenizer.json truncated while it loads. Each used to be memory-mapped, and the next read
of a page past the new end raised SIGBUS (exit 135 / -7: the window died). Now: an error naming
the file ("the file changed while open") and the process goes on. The risky parts run in a
subprocess, so a SIGBUS fails the test instead of killing pytest."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
CC_LINE = "cc -std=c11 -O2 -o tokcore native/src/*.c native/cli/*.c -lm"


def _run_py(code: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def _big_npy(path: Path, steps: int = 64, vocab: int = 4096) -> np.ndarray:
    a = np.random.default_rng(1).standard_normal((steps, vocab)).astype(np.float32)
    np.save(path, a)
    return a


def test_open_logits_then_truncate_is_an_error_not_sigbus(tmp_path: Path) -> None:
    p = tmp_path / "l.npy"
    _big_npy(p)
    r = _run_py(f"""
        import os, numpy as np
        from tokinspect.sampling import FileChangedError, SamplerSettings, open_logits, sample
        src = open_logits({str(p)!r})
        row0 = np.array(src.row(0))
        os.truncate({str(p)!r}, 4096)              # saved smaller in place, while open
        for step in (60, 0):
            try:
                sample(src.row(step), SamplerSettings(preset="llama.cpp"), 10)
            except FileChangedError as exc:
                assert "changed" in str(exc) and {p.name!r} in str(exc), exc
            else:
                raise SystemExit("no error for a truncated file")
        np.save({str(p)!r}, np.zeros((2, 8), np.float32))   # rewritten with another shape
        try:
            src.row(1)
        except ValueError as exc:
            assert "changed" in str(exc)
        else:
            raise SystemExit("no error for a rewritten file")
        print("alive")
        """)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.strip() == "alive"


def test_tokinspect_sample_on_a_file_truncated_meanwhile(tmp_path: Path) -> None:
    p = tmp_path / "l.npy"
    _big_npy(p)
    # the CLI's own path, with the file truncated between the open and the row read
    r = _run_py(f"""
        import os, sys
        import tokinspect.cli.sample as cs
        real = cs.open_logits
        def opened_then_truncated(*a, **k):
            src = real(*a, **k)
            os.truncate({str(p)!r}, 100)
            return src
        cs.open_logits = opened_then_truncated
        from tokinspect.cli import main
        sys.exit(main(["sample", "--logits", {str(p)!r}, "--step", "63", "--preset", "ds4", "--draws", "5"]))
        """)
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "changed while open" in r.stderr and "l.npy" in r.stderr and "Traceback" not in r.stderr


@pytest.fixture(scope="module")
def tokcore(tmp_path_factory: pytest.TempPathFactory) -> str:
    assert shutil.which("cc"), "a C compiler (cc) is needed"
    out = tmp_path_factory.mktemp("tokcore_shrink") / "tokcore"
    r = subprocess.run(CC_LINE.replace("-o tokcore", f"-o {out}"), shell=True, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return str(out)


def test_tokcore_sample_while_the_file_shrinks(tmp_path: Path, tokcore: str) -> None:
    p = tmp_path / "l.npy"
    a = _big_npy(p, steps=256, vocab=8192)          # 8 MiB
    full = p.read_bytes()
    stop = threading.Event()

    def shrink_and_restore() -> None:
        with open(p, "r+b") as fh:
            while not stop.is_set():
                fh.truncate(4096)
                fh.seek(0)
                fh.write(full)
                fh.flush()

    t = threading.Thread(target=shrink_and_restore, daemon=True)
    t.start()
    codes: list[int] = []
    try:
        for _ in range(150):
            r = subprocess.run([tokcore, "sample", "--logits", str(p), "--step", "255", "--preset", "ds4", "--draws", "3"],
                               capture_output=True, text=True, timeout=60)
            codes.append(r.returncode)
            assert r.returncode in (0, 1, 2), (r.returncode, r.stderr)   # never a signal
    finally:
        stop.set()
        t.join()
    assert a.shape == (256, 8192) and len(codes) == 150


def test_window_sampling_tab_on_a_truncated_npy() -> None:
    # the window runs in a child pytest (a SIGBUS there fails this test instead of killing the run); the
    # child's module is not named test_*.py, so only this test runs it
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    child = Path(__file__).with_name("window_truncated_npy.py")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(child)],
                       capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert r.returncode == 0, (r.returncode, r.stdout[-3000:], r.stderr[-2000:])
    assert "1 passed" in r.stdout


def test_tokenizer_truncated_in_place_while_it_loads(tmp_path: Path, qwen3_json: Path) -> None:
    p = tmp_path / "tokenizer.json"
    shutil.copy(qwen3_json, p)
    r = _run_py(f"""
        import threading
        from tokinspect.core.tokenizer import Tokenizer, TokenizerError
        path = {str(p)!r}
        full = open(path, "rb").read()
        stop = threading.Event()
        def shrink_and_restore():
            with open(path, "r+b") as fh:
                k = 0
                while not stop.is_set():
                    k += 1
                    fh.truncate((k * 7919) % len(full))
                    fh.seek(0); fh.write(full); fh.flush()
        t = threading.Thread(target=shrink_and_restore, daemon=True)
        t.start()
        ok = bad = 0
        for _ in range(300):
            try:
                Tokenizer.from_file(path)
                ok += 1
            except (TokenizerError, ValueError, OSError):
                bad += 1
        stop.set(); t.join()
        print(ok, bad)
        """, timeout=600)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    ok, bad = map(int, r.stdout.split())
    assert ok + bad == 300


def test_big_tokenizer_file_truncated_while_it_loads(tmp_path: Path) -> None:
    # a file above 256 MiB was memory-mapped (so that a big file cost no memory), and one truncated
    # while it loaded raised SIGBUS; every tokenizer file is now read with read(): a short or changed
    # file is a parse error naming the offset, the process lives. (A truncated and regrown file reads as NUL bytes.)
    p = tmp_path / "tokenizer.json"
    size = 300 << 20
    with open(p, "wb") as fh:
        fh.write(b"{")
        block = b" " * (1 << 20)
        for _ in range(size >> 20):
            fh.write(block)  # JSON whitespace: the parser reads all 300 MiB before it finds no member
    r = _run_py(f"""
        import os, threading
        from tokinspect.core.tokenizer import Tokenizer, TokenizerError
        path, size = {str(p)!r}, {size}
        stop = threading.Event()
        def shrink_and_grow():
            k = 0
            while not stop.is_set():
                k += 1
                os.truncate(path, (k * 7919 * 4096) % size)
                os.truncate(path, size)
        t = threading.Thread(target=shrink_and_grow, daemon=True)
        t.start()
        errors = []
        for _ in range(12):
            try:
                Tokenizer.from_file(path)
            except (TokenizerError, ValueError, OSError) as e:
                errors.append(str(e))
        stop.set(); t.join()
        print(len(errors))
        print(errors[0])
        """, timeout=600)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    n, first = r.stdout.split("\n", 1)
    assert int(n) == 12, r.stdout          # the file is no tokenizer: every load is refused, none crashes
    assert "tokenizer.json: JSON error at byte" in first, first
