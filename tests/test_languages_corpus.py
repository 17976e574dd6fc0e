"""tokinspect languages on UDHR and through the corpus engines.

- UDHR (../shared/data/udhr/txt, 532 translations; languages named by udhr/MANIFEST.tsv) with
  Qwen3, the embedded default: five languages' figures equal figures computed here from HF
  `tokenizers` 0.23.3 ids of ../shared/data/qwen3/tokenizer.json; parity of eng is 1.
- HF `datasets`: the table equals the plain run's, on the generated corpus (core: as a folder of
  text files and as Parquet) and on UDHR as Parquet (written here from the text files); the
  second run is served from the fingerprint cache: its result's cache files all existed before it
  and were not rewritten (the same files, the same mtimes); another tokenizer, another build of
  the engine or an edited file is counted again.
- Ray: a local head on 127.0.0.1 only (2 CPUs, an 80 MB object store; one per module), the
  command run with --ray on UDHR as Parquet with two tasks: the same table as the plain run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_languages import generated_texts, oracle_rows
from tokenizers import Tokenizer as HF

from conftest import shared
from tokinspect.languages import hf_datasets
from tokinspect.languages.corpus import CorpusError, open_source
from tokinspect.languages.hf_datasets import run_datasets
from tokinspect.languages.run import Options, Report, build
from tokinspect.languages.series import make_series

FIVE = ("eng", "cmn_hans", "rus", "arb", "hin")


def write_parquet(texts: dict[str, str], path: Path, per_line: bool = False) -> Path:
    """A (lang, text) Parquet file: one row per language, or one per line (a longer, thinner table)."""
    if per_line:
        rows = [(lang, ln) for lang, text in texts.items() for ln in text.split("\n")]
    else:
        rows = list(texts.items())
    pq.write_table(pa.table({"lang": [r[0] for r in rows], "text": [r[1] for r in rows]}), str(path))
    return path


@pytest.fixture(scope="module")
def udhr() -> Path:
    return shared("udhr", "txt")


@pytest.fixture(scope="module")
def udhr_parquet(udhr: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("udhr_parquet")
    shutil.copy(udhr.parent / "MANIFEST.tsv", d / "MANIFEST.tsv")   # the language names, as beside the texts
    texts = {f.stem: f.read_text(encoding="utf-8") for f in sorted(udhr.glob("*.txt"))}
    return write_parquet(texts, d / "udhr.parquet", per_line=True)


@pytest.fixture(scope="module")
def udhr_plain(udhr: Path) -> Report:
    return build(open_source(udhr), [make_series("qwen3")], Options(reference="eng"))


def test_udhr_five_languages_equal_hf(udhr: Path, udhr_plain: Report) -> None:
    hf = HF.from_file(str(shared("qwen3", "tokenizer.json")))
    texts = {lang: (udhr / f"{lang}.txt").read_text(encoding="utf-8") for lang in FIVE}
    want = oracle_rows(hf, texts, "eng", "document")
    rep = udhr_plain
    assert rep.parity_mode == "document"          # UDHR's translations are not line-aligned
    got = {lang: rep.row(rep.series[0], lang) for lang in FIVE}
    bad = [(lang, k, getattr(got[lang], k), v) for lang in FIVE for k, v in want[lang].items()
           if getattr(got[lang], k) != v]
    assert not bad, bad[:5]
    assert got["eng"].parity == 1.0 and got["eng"].name == "English"
    assert len(rep.rows_of(rep.series[0])) == len(list(udhr.glob("*.txt"))) == 532
    assert {got[k].script for k in FIVE} == {"Latin", "Han", "Cyrillic", "Arabic", "Devanagari"}


# ---- HF datasets -----------------------------------------------------------------------------
def _stamps(files: tuple[str, ...]) -> dict[str, int]:
    return {f: os.stat(f).st_mtime_ns for f in files}


def _twice(src_path: Path, cache: Path, plain: Report, workers: int = 2) -> None:
    """The datasets run equals the plain one, and its second run is a cache hit."""
    src = open_source(src_path)
    series = [make_series("qwen3")]
    first = run_datasets(src, series, workers, str(cache))
    assert not first.cache_hit and first.cache_files, first
    stamps = _stamps(first.cache_files)
    again = build(src, series, Options(reference="eng", engine="datasets", workers=workers, cache_dir=str(cache)))
    assert again.cache_hit is True
    assert _stamps(again.cache_files) == stamps            # the same files, not rewritten
    assert again.languages == plain.languages and again.scripts == plain.scripts
    rows = build(src, series, Options(reference="eng", engine="datasets", workers=workers, cache_dir=str(cache)))
    assert rows.cache_hit is True
    # another tokenizer is another fingerprint: counted again, not served from the cache
    other = run_datasets(src, [make_series("qwen3.5")], workers, str(cache))
    assert not other.cache_hit and set(other.cache_files).isdisjoint(first.cache_files)


def test_datasets_on_the_generated_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = generated_texts()
    d = tmp_path / "txt"
    d.mkdir()
    for lang, text in texts.items():
        (d / f"{lang}.txt").write_text(text, encoding="utf-8")
    plain = build(open_source(d), [make_series("qwen3")], Options(reference="eng"))
    _twice(d, tmp_path / "cache-txt", plain)
    in_file_order = dict(sorted(texts.items()))        # the folder's order: by file name
    _twice(write_parquet(in_file_order, tmp_path / "gen.parquet"), tmp_path / "cache-pq", plain, workers=1)
    # another engine or package version (its code fingerprint) is counted again: datasets itself
    # names the map function only by its module and name
    monkeypatch.setattr(hf_datasets, "code_fingerprint", lambda: "another build")
    assert not run_datasets(open_source(d), [make_series("qwen3")], 1, str(tmp_path / "cache-txt")).cache_hit
    monkeypatch.undo()
    # a folder's text changed (same name): its dataset is built again, the figures follow
    (d / "eng.txt").write_text(texts["eng"] + "one more line\n", encoding="utf-8")
    changed = build(open_source(d), [make_series("qwen3")],
                    Options(reference="eng", engine="datasets", cache_dir=str(tmp_path / "cache-txt")))
    assert changed.cache_hit is False
    assert changed.row("Qwen3", "eng").lines == plain.row("Qwen3", "eng").lines + 1


@pytest.mark.parametrize("engine", ["local", "datasets"])
def test_bad_tables_are_one_sentence_naming_the_file(engine: str, tmp_path: Path) -> None:
    opts = Options(engine=engine, cache_dir=str(tmp_path / "cache"))
    series = [make_series("qwen3")]
    for name, data, needle in [("bad.parquet", b"garbage", "not a Parquet file"),
                               ("bad.arrow", b"garbage", "not an Arrow IPC file")]:
        (tmp_path / name).write_bytes(data)
        with pytest.raises(CorpusError, match=needle) as ei:
            build(open_source(tmp_path / name), series, opts)
        assert str(ei.value).startswith(str(tmp_path / name))
    pq.write_table(pa.table({"lang": ["eng"], "text": [5]}), str(tmp_path / "ints.parquet"))
    with pytest.raises(CorpusError, match="column 'text' is int64, not a string|column 'text' is int, not a string"):
        build(open_source(tmp_path / "ints.parquet"), series, opts)
    pq.write_table(pa.table({"language": ["eng"], "text": ["a"]}), str(tmp_path / "cols.parquet"))
    with pytest.raises(CorpusError, match=r"no column 'lang' \(columns: language, text\)"):
        build(open_source(tmp_path / "cols.parquet"), series, opts)
    (tmp_path / "bad.jsonl").write_text('{"lang": "eng", "text": "a"}\n{oops\n', encoding="utf-8")
    with pytest.raises(CorpusError, match="bad.jsonl: (line 2: not JSON|datasets could not read it)"):
        build(open_source(tmp_path / "bad.jsonl"), series, opts)


def test_datasets_on_udhr_parquet(udhr_parquet: Path, udhr_plain: Report, tmp_path: Path) -> None:
    src = open_source(udhr_parquet)
    rep = build(src, [make_series("qwen3")], Options(reference="eng", engine="datasets", workers=2,
                                                      cache_dir=str(tmp_path / "cache")))
    assert rep.cache_hit is False
    assert rep.languages == udhr_plain.languages and rep.scripts == udhr_plain.scripts


# ---- Ray -------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _descendants(root: int) -> list[int]:
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                parent[int(d)] = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += [c for c, pp in parent.items() if pp == p]
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


# Ray replaces 127.0.0.1 by the machine's address unless clustering is off (ray 2.60:
# ray/_private/services.py get_node_ip_address, ray_constants.ENABLE_RAY_CLUSTER): off, every
# process binds to the loopback address only
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    temp = Path("/tmp") / f"tokinspect-ray-{os.getpid()}"   # short: Ray's socket paths must fit 107 bytes
    env = dict(os.environ, **RAY_ENV)
    # the `ray` script beside this interpreter, else the PATH's (a venv over the system's site-packages)
    beside = Path(sys.executable).with_name("ray")
    ray = str(beside) if beside.is_file() else shutil.which("ray")
    assert ray, "the ray command is needed: pip install -e '.[test]' installs it"
    log = open(tmp_path_factory.mktemp("ray") / "head.log", "w")
    head = subprocess.Popen([ray, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
                             "--num-cpus=2", "--object-store-memory=80000000", "--include-dashboard=false",
                             "--disable-usage-stats", f"--temp-dir={temp}", "--block"],
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end and head.poll() is None:
            if "block forever" in Path(log.name).read_text(errors="replace"):
                break
            time.sleep(0.5)
        text = Path(log.name).read_text(errors="replace")
        assert head.poll() is None and "block forever" in text, text[-3000:]
        assert "Local node IP: 127.0.0.1" in text, text[-3000:]
        yield f"127.0.0.1:{port}"
    finally:
        tree = _descendants(head.pid)        # the head's processes, by id, before any of them exits
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for p in tree:
                if _alive(p):
                    os.kill(p, sig)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(_alive(p) for p in tree):
                time.sleep(0.2)
        head.wait(timeout=10)
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def test_ray_gives_the_plain_table(ray_head: str, udhr_parquet: Path, udhr_plain: Report, tmp_path: Path) -> None:
    out = tmp_path / "ray.json"
    r = subprocess.run([sys.executable, "-m", "tokinspect", "languages", str(udhr_parquet), "--ray", ray_head,
                        "--workers", "2", "-o", str(out)], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, **RAY_ENV))
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["engine"] == "ray" and got["workers"] == 2
    assert got["languages"] == [row.as_dict() for row in udhr_plain.languages]
    assert got["scripts"] == [row.as_dict() for row in udhr_plain.scripts]
