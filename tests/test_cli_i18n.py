"""The command line in Simplified Chinese (tokinspect.cli.i18n, resources/i18n/cli_zh_CN.po and
argparse_zh_CN.po): every marked message in the catalog with its placeholders, every bad input of
every subcommand said in one Chinese line (under --lang zh_CN and under LANG=zh_CN.UTF-8), every
option's help translated, argparse's own words too, the language chosen as gettext chooses it, and
machine-readable output the same in every language.

Oracles: polib (a .po reader of its own) for the catalog reader; the standard library's gettext
(gettext.find over the same environment, GNUTranslations over the compiled catalog) for the
language choice and the lookups; the English run of the same command for the machine output.
"""

from __future__ import annotations

import argparse
import ast
import gettext
import os
import pty
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import polib
import pytest
from test_cli_rules import COMMANDS, bad_inputs  # noqa: F401 - the same commands and bad-input classes

from tokinspect.cli import build_parser, i18n
from tokinspect.cli.errors import OneLineParser
from tokinspect.gui import build_parser as window_parser

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "resources" / "i18n" / "cli_zh_CN.po"
ARGPARSE_CATALOG = ROOT / "resources" / "i18n" / "argparse_zh_CN.po"

# names a Chinese line keeps in Latin letters: formats, encodings, protocols, products, the
# commands a user types, and "token", which the window's catalog keeps untranslated too
ALLOWED = {
    "json", "utf", "bpe", "gguf", "ssh", "png", "npy", "sentencepiece", "tekken", "wordpiece", "qwen", "hf",
    "tokinspect", "tokcore", "llama", "cpp", "token", "logits", "nul", "rng", "sha", "tcp", "ray", "mib",
    "encode", "decode", "trace", "info", "vocab", "compare", "board", "sample", "contract", "languages", "diff",
    "audit", "compile", "freeze", "verify", "identify", "profile", "ctrl",
    "int", "float",   # argparse's "invalid int value": the Python type an option takes
}


def cli(*args: str, env: dict[str, str] | None = None, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    base = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run([sys.executable, "-m", "tokinspect", *args], input=stdin, capture_output=True,
                          timeout=120, env={**base, "QT_QPA_PLATFORM": "offscreen", **(env or {})})


@pytest.fixture
def zh() -> Iterator[None]:
    i18n.use("zh_CN")
    try:
        yield
    finally:
        i18n.use("en")


# ---- (a) the catalog: every marked literal, its placeholders, read as a .po reader reads it ------

def marked() -> dict[str, str]:
    """Every `_("...")` literal in tokinspect.cli and in the window's options (tokinspect.gui, handed
    the CLI's `_`) -> where it is; an `_()` of anything but a literal (an f-string, a variable) is a
    defect, the catalog could not hold it."""
    out: dict[str, str] = {}
    bad = []
    for f in [*sorted((ROOT / "app" / "cli").glob("*.py")), ROOT / "app" / "gui.py"]:
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_":
                arg = node.args[0] if node.args else None
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.setdefault(arg.value, f"{f.name}:{node.lineno}")
                else:
                    bad.append(f"{f.name}:{node.lineno}")
    assert not bad, f"_() of something other than a string literal: {bad}"
    return out


def test_every_marked_message_is_translated_with_its_placeholders() -> None:
    msgs = marked()
    assert len(msgs) > 250, len(msgs)   # the scan found the CLI's messages
    cat = i18n.parse_po(CATALOG.read_text(encoding="utf-8"))
    missing = [f"{where}: {m!r}" for m, where in msgs.items() if ("", m) not in cat]
    assert not missing, "not in cli_zh_CN.po:\n" + "\n".join(missing)
    wrong = [f"{m!r}: {i18n.fields(m)} vs {i18n.fields(cat[('', m)][0])}" for m in msgs
             if i18n.fields(m) != i18n.fields(cat[("", m)][0])]
    assert not wrong, "placeholders differ:\n" + "\n".join(wrong)
    stale = [m for (ctx, m) in cat if ctx == "" and m not in msgs]
    assert not stale, f"catalog entries no code marks: {stale}"
    for (ctx, m), (tr, *_rest) in cat.items():   # the patterns (msgctxt "message") keep theirs too
        assert i18n.fields(m) == i18n.fields(tr), (ctx, m, tr)
        assert tr != m or m in ALLOWED or not re.search(r"[a-z]{3}", i18n._FIELD.sub("", m)), ("untranslated", m)
        assert "%" not in tr or "%" in m or "{share" in m, ("a bare % breaks argparse's help", m)


def test_the_catalog_reader_agrees_with_polib_and_gettext(tmp_path: Path) -> None:
    for path in (CATALOG, ARGPARSE_CATALOG):
        ours = i18n.parse_po(path.read_text(encoding="utf-8"), path.name)
        po = polib.pofile(str(path))
        theirs = {(e.msgctxt or "", e.msgid): [e.msgstr] if not e.msgid_plural else
                  [e.msgstr_plural[k] for k in sorted(e.msgstr_plural)] for e in po if e.msgid and e.translated()}
        assert ours == theirs, path.name
        assert not po.untranslated_entries() and not po.fuzzy_entries(), path.name
        # the standard library's reader of the compiled catalog gives the same translations
        mo = tmp_path / (path.stem + ".mo")
        po.save_as_mofile(str(mo))
        with mo.open("rb") as fh:
            t = gettext.GNUTranslations(fh)
        for (ctx, msgid), strs in ours.items():
            assert (t.pgettext(ctx, msgid) if ctx else t.gettext(msgid)) == strs[0], msgid


def test_argparse_words_are_argparse_s_own() -> None:
    """Each argparse msgid is a string argparse itself looks up; the ones a user meets are all there."""
    used = {n.args[0].value for n in ast.walk(ast.parse(Path(argparse.__file__).read_text(encoding="utf-8")))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("_", "ngettext")
            and n.args and isinstance(n.args[0], ast.Constant)}
    cat = i18n.parse_po(ARGPARSE_CATALOG.read_text(encoding="utf-8"))
    ours = {m for _c, m in cat}
    assert ours <= used, ours - used
    for need in ("usage: ", "options", "positional arguments", "show this help message and exit",
                 "the following arguments are required: %s", "unrecognized arguments: %s",
                 "invalid choice: %(value)r (choose from %(choices)s)", "argument %(argument_name)s: %(message)s",
                 "expected one argument", "invalid %(type)s value: %(value)r", "not allowed with argument %s"):
        assert need in ours, need
    for (_c, m), (tr, *_r) in cat.items():
        assert i18n.fields(m) == i18n.fields(tr), m


def test_a_sentence_from_elsewhere_keeps_its_values(zh: None) -> None:
    # the engine's message: the file offset and the limit stay, the frame is translated
    said = i18n.message("vocab.bin: N = 4278149729 at offset 0 is above the limit of 4000000 entries")
    assert "4278149729" in said and "偏移 0" in said and "4000000" in said and "above" not in said
    # a frame around a reason: both translated, the path kept as it was
    said = i18n.message("a: b.json: cannot open: No such file or directory")
    assert said.startswith("a: b.json：") and "无法打开" in said and "文件或目录不存在" in said
    said = i18n.message("HF tokenizers refuses this file: t.json at byte 812: a sentence nobody wrote down")
    assert said == "HF tokenizers 会拒绝加载此文件：t.json 字节 812 处：a sentence nobody wrote down", said
    assert i18n.message("a sentence nobody wrote down") == "a sentence nobody wrote down"
    i18n.use("en")
    assert i18n.message("vocab.bin: empty file (0 bytes)") == "vocab.bin: empty file (0 bytes)"


# ---- (b) every bad input of every subcommand: one Chinese line, exit 2 --------------------------

def english_words(line: str, names: tuple[str, ...] = ()) -> list[str]:
    """The English words (3+ letters) of a line's prose: quoted text, file names and paths, numbers,
    option names and the command's own prefix ("tokinspect vocab diff: ") taken out first."""
    prose = re.sub(r"^tokinspect(?: [a-z]+)*: ", "", line)
    for n in names:
        prose = prose.replace(n, " ")
    prose = re.sub(r"'[^']*'|\"[^\"]*\"", " ", prose)   # quoted values
    prose = re.sub(r"(?<![\w-])--?[\w-]+", " ", prose)   # option names
    words = re.findall(r"[\w.+/-]*[A-Za-z][\w.+/-]*", prose)   # a word with what sticks to it (".tiktoken")
    plain = [w for w in words if not re.search(r"[\d._/]", w)]   # file names, paths, versions: names
    return [w for w in plain if len(w) >= 3 and w.lower() not in ALLOWED]


def assert_chinese_line(r: subprocess.CompletedProcess[bytes], names: tuple[str, ...] = ()) -> str:
    err = r.stderr.decode("utf-8", errors="replace")
    assert r.returncode == 2, (r.returncode, err[-2000:])
    assert "Traceback" not in err, err[-3000:]
    lines = [ln for ln in err.split("\n") if ln.strip()]
    assert len(lines) == 1, err
    assert re.search(r"[\u4e00-\u9fff]", lines[0]), lines[0]
    assert not english_words(lines[0], names), (english_words(lines[0], names), lines[0])
    return lines[0]


def test_the_english_word_check_can_fail() -> None:
    assert english_words("tokinspect: a.json: no such file or directory") == ["such", "file", "directory"]
    assert english_words("tokinspect board: a.json：文件或目录不存在") == []
    assert english_words("tokinspect: x：不是 UTF-8 文本（--encoder 'greedy'）、.tiktoken") == []


MODES = {"--lang": (["--lang", "zh_CN"], {}), "LANG": ([], {"LANG": "zh_CN.UTF-8"})}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_and_bad_input_in_chinese(command: str, mode: str, bad_inputs: dict[str, Path],  # noqa: F811
                                                tmp_path: Path) -> None:
    ok_text = tmp_path / "ok.txt"
    ok_text.write_text("hello\n", encoding="utf-8")
    pre, env = MODES[mode]
    for kind, f in bad_inputs.items():
        if command == "compare-text" and kind in ("empty", "png"):
            continue  # an empty or binary text file is the text cases of test_cli_rules
        args = [a.format(f=f, out=tmp_path / "o.bin", ok_text=ok_text) for a in COMMANDS[command]]
        line = assert_chinese_line(cli(*pre, *args, env=env), names=(str(f),))
        assert f.name in line or "vocab.bin" in line or "logits" in line, (kind, line)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_usage_errors_and_ids_in_chinese(mode: str) -> None:
    pre, env = MODES[mode]
    for args in (["decode", "151669"], ["decode", "-1"], ["decode", "4294967296", "9707"],
                 ["decode", "99999999999999999999"], ["decode", "12x"], ["encode", "--encoder", "nope", "x"],
                 ["encode", "--bogus"], ["sample"], ["vocab"], ["encode", "--json", "--table", "x"],
                 ["sample", "--logits", "x", "--preset", "ds4", "--top-k", "many"], ["nonexistent.json"],
                 ["board", "diff", "--host", "127.0.0.1", "--port", "1", "--remote-tokenizer", "x", "-"]):
        assert_chinese_line(cli(*pre, *args, env=env), names=("vocab_command", "nonexistent.json"))
    assert_chinese_line(cli(*pre, "compare", env=env, stdin=b""))   # empty input


def test_closed_stdout_in_chinese() -> None:
    r = subprocess.run([sys.executable, "-m", "tokinspect", "--lang", "zh_CN", "info"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=60, preexec_fn=lambda: os.close(1))
    assert_chinese_line(r)


def test_reading_a_terminal_says_so_in_chinese() -> None:
    master, slave = pty.openpty()
    try:
        env = {**{k: v for k, v in os.environ.items() if k not in i18n.ENV}, "LANG": "zh_CN.UTF-8"}
        p = subprocess.Popen([sys.executable, "-m", "tokinspect", "decode"], stdin=slave, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
        os.write(master, b"9707\n\x04")   # a line, then Ctrl-D
        out, err = p.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    i18n.use("zh_CN")
    try:
        want = i18n._("(reading {what} from the terminal: end with Ctrl-D, or pass it as an argument)").format(
            what=i18n._("ids"))
    finally:
        i18n.use("en")
    assert err.decode().strip() == want and "终端" in want, err.decode()
    assert p.returncode == 0 and out.decode().startswith("Hello")


# ---- (c) every option's help, and argparse's own words ------------------------------------------

def walk(p: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, p
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sp in a.choices.items():
                yield from walk(sp, f"{path} {name}")


def test_every_option_help_is_translated(zh: None) -> None:
    english = dict(walk(_english_parser(), "tokinspect"))
    english["tokinspect (window)"] = _english_parser(window=True)
    untranslated = []
    parsers = [*walk(build_parser(), "tokinspect"), ("tokinspect (window)", window_parser(OneLineParser, i18n._))]
    for path, p in parsers:
        en = {a.dest: a.help for a in english[path]._actions}
        for a in p._actions:
            if a.help in (None, argparse.SUPPRESS) or isinstance(a, argparse._SubParsersAction):
                continue
            if str(a.help).startswith("{"):   # the shape of the JSON --json prints, not prose
                continue
            if not re.search(r"[\u4e00-\u9fff]", str(a.help)) or a.help == en.get(a.dest):
                untranslated.append(f"{path} {'/'.join(a.option_strings) or a.dest}: {a.help}")
        text = p.format_help()
        assert text.startswith("用法："), (path, text[:80])
        assert "选项:" in text and "显示此帮助信息并退出" in text, path
    assert not untranslated, "\n".join(untranslated)


def test_the_window_options_in_chinese() -> None:
    """`tokinspect --lang zh_CN --help` lists each window option with its Chinese help, and the
    window's own --help and its --size refusals are Chinese (argparse's words and ours)."""
    english = {a.dest: str(a.help) for a in window_parser(OneLineParser)._actions if a.help}
    i18n.use("zh_CN")
    try:
        chinese = {a.dest: str(a.help) for a in window_parser(OneLineParser, i18n._)._actions if a.help}
    finally:
        i18n.use("en")
    top = cli("--lang", "zh_CN", "--help", env={"COLUMNS": "200"}).stdout.decode()
    window_part = top[top.index("窗口（"):]
    for dest, zh in chinese.items():
        if dest not in ("help", "files"):
            assert zh in window_part and english[dest] not in window_part, (dest, window_part)
    for pre, env in MODES.values():
        r = cli(*pre, "--screenshot", "shots", "--help", env={**env, "COLUMNS": "200"})
        out = r.stdout.decode()
        assert r.returncode == 0 and out.startswith("用法：tokinspect"), out[:200]
        assert all(zh in out for zh in chinese.values()) and "位置参数" in out and "（默认：greedy）" in out, out
        assert not [w for en in english.values() for w in english_words(en)
                    if w in english_words(out) and w != "files"], out   # "files": the positional's name
        for size in ("big", "10x10"):
            line = assert_chinese_line(cli(*pre, "--screenshot", "shots", "--size", size, env=env))
            assert size in line, line


def _english_parser(window: bool = False) -> argparse.ArgumentParser:
    saved = i18n.current()
    i18n.use("en")
    try:
        return window_parser(OneLineParser) if window else build_parser()
    finally:
        i18n.use(saved)


def test_help_in_chinese_from_the_environment_and_wrapped_to_the_terminal() -> None:
    r = cli("compare", "--help", env={"LANG": "zh_CN.UTF-8", "COLUMNS": "80"})
    out = r.stdout.decode()
    assert r.returncode == 0 and out.startswith("用法：tokinspect compare"), out[:200]
    assert "B 侧的编码器" in out and "（默认：20）" in out
    from tokinspect.cli.columns import display_width
    prose = [ln for ln in out.splitlines() if not ln.lstrip().startswith(("[", "-"))]   # not usage, not options
    assert max(display_width(ln) for ln in prose) <= 80, prose


# ---- the language choice ------------------------------------------------------------------------

ENVS = [
    {"LANG": "zh_CN.UTF-8"}, {"LANG": "en_US.UTF-8"}, {"LANG": "fr_FR.UTF-8"}, {"LANG": "C"}, {},
    {"LANGUAGE": "fr:zh_CN", "LANG": "en_US.UTF-8"}, {"LANGUAGE": "en:zh_CN"}, {"LANGUAGE": "zh_CN:en"},
    {"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, {"LC_ALL": "", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "C"},
    {"LC_MESSAGES": "en_GB.UTF-8", "LANG": "zh_CN.UTF-8"}, {"LANGUAGE": "", "LANG": "zh_CN.GB18030"},
]


@pytest.mark.parametrize("env", ENVS, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()) or "empty")
def test_the_environment_is_read_as_gettext_reads_it(env: dict[str, str], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for lang in ("zh_CN", "en"):   # a catalog for each language we speak: gettext picks among them
        d = tmp_path / lang / "LC_MESSAGES"
        d.mkdir(parents=True)
        (d / "x.mo").write_bytes(b"")
    for var in i18n.ENV:
        monkeypatch.delenv(var, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    found = gettext.find("x", str(tmp_path))
    want = "en" if found is None else Path(found).parts[-3]
    assert i18n.from_environment(os.environ) == want


def test_simplified_chinese_locales_and_the_option() -> None:
    for code in ("zh", "zh_CN", "zh_SG", "zh_Hans", "zh-Hans", "zh_Hans_CN", "zh_CN.UTF-8", "zh_SG.GBK@x"):
        assert i18n.normalize(code) == "zh_CN", code
    for code in ("zh_TW", "zh_HK", "zh_Hant", "ja_JP", "fr"):
        assert i18n.normalize(code) is None, code
    assert i18n.choose(["--lang", "zh_CN", "encode"], {"LANG": "en_US"}) == "zh_CN"
    assert i18n.choose(["--lang=en", "encode"], {"LANG": "zh_CN"}) == "en"
    assert i18n.choose(["encode", "--lang", "zh_CN"], {}) == "en"   # the global option goes first
    assert set(i18n.LANGUAGES) == set(next(a for a in __import__("tokinspect.gui", fromlist=["x"]).build_parser()
                                           ._actions if a.dest == "lang").choices)   # the window's --lang


def test_the_cli_does_not_import_qt() -> None:
    code = "import sys; from tokinspect.cli import main; main(['--lang', 'zh_CN', '--version']); " \
           "print([m for m in sys.modules if m.startswith('PySide6')])"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip().endswith("[]"), r.stdout + r.stderr


# ---- machine-readable output and reports --------------------------------------------------------

def test_machine_output_is_the_same_in_every_language(tmp_path: Path) -> None:
    lines = tmp_path / "t.txt"
    lines.write_text("hello world\nnaïve 你好\n", encoding="utf-8")
    for args, stdin in ((["encode", "--json", "Hello 你好"], b""), (["encode", "Hello"], b""),
                        (["encode", "--jsonl"], b'"a b"\n{"text": 1}\n'), (["decode", "9707", "11"], b""),
                        (["info"], b""), (["vocab", "audit", "--json", "{vb}"], b"")):
        if "{vb}" in args:
            vb = tmp_path / "q.bin"
            assert cli("vocab", "compile", "-o", str(vb)).returncode == 0
            args = [str(vb) if a == "{vb}" else a for a in args]
        en = cli(*args, stdin=stdin)
        assert en.returncode == 0, en.stderr
        for pre, env in MODES.values():
            r = cli(*pre, *args, env=env, stdin=stdin)
            assert r.returncode == 0 and r.stdout == en.stdout, (args, r.stderr)


def test_reports_in_chinese(tmp_path: Path) -> None:
    text = tmp_path / "t.txt"
    text.write_text("hello\nworld  x\n", encoding="utf-8")
    r = cli("--lang", "zh_CN", "compare", "--encoder-b", "bpe", str(text))
    assert r.returncode == 0 and "完全一致 2（100.0%）" in r.stdout.decode(), r.stdout
    r = cli("--lang", "zh_CN", "encode", "--table", "你好 world")
    rows = r.stdout.decode().split("\n")
    from tokinspect.cli.columns import display_width
    assert "token" in rows[0] and "字节" in rows[0] and "十六进制" in rows[0], rows[0]
    # the header's columns start where the rows' do, after CJK in both
    assert display_width(rows[0][: rows[0].index("字符")]) == display_width(rows[1][: rows[1].index("[")])
    assert "个 token" in rows[-2]
    en = cli("encode", "--table", "你好 world").stdout.decode().split("\n")
    assert [ln.split()[:2] for ln in rows[1:-2]] == [ln.split()[:2] for ln in en[1:-2]]   # the same ids


def test_english_is_untouched_without_a_language() -> None:
    assert i18n.current() == "en" and i18n._("decode: no ids given (arguments, or stdin)") == \
        "decode: no ids given (arguments, or stdin)"
    assert argparse._ is gettext.gettext   # type: ignore[attr-defined]
    r_c = cli("encode", "--help", env={"LANG": "C"})
    for env in ({"LANG": "zh_TW.UTF-8"}, {"LANGUAGE": "fr", "LANG": "en_US.UTF-8"}, {}):
        assert cli("encode", "--help", env=env).stdout == r_c.stdout, env
    assert r_c.stdout.decode().startswith("usage: tokinspect encode")


def test_contract_findings_in_chinese(zh: None, capsys: pytest.CaptureFixture[str]) -> None:
    """verify's findings (made in tokinspect.contract, English) printed in Chinese, their values kept."""
    from tokinspect.cli.contract import print_report
    from tokinspect.contract.bundle import open_bundle
    from tokinspect.contract.freeze import freeze
    from tokinspect.contract.verify import verify

    bundle = open_bundle(None)
    c = freeze(bundle)
    c["pipeline"]["vocab_size"] = 12345                 # a pipeline fact
    c["added_tokens"][0]["id"] += 1                     # a special's id
    c["samples"][0]["ids"][0] += 1                      # a sample's first id
    c["samples"][1]["decode"] = "not what it decodes to"
    rep = verify(c, bundle)
    print_report(rep, 5)
    zh_lines = capsys.readouterr().out.splitlines()
    i18n.use("en")
    print_report(rep, 5)
    en_lines = capsys.readouterr().out.splitlines()
    assert len(zh_lines) == len(en_lines) and len(zh_lines) >= 8, (zh_lines, en_lines)
    for z, e in zip(zh_lines, en_lines):
        assert re.search(r"[\u4e00-\u9fff]", z), (z, e)
        categories = tuple(s["category"] for s in c["samples"])   # the samples' own labels
        assert not english_words(z, categories), (english_words(z, categories), z, e)
        for number in re.findall(r"\d+", e):   # every id, size and position the English line names
            assert number in z, (number, z, e)


def test_a_malformed_tokenizer_json_in_chinese(tmp_path: Path) -> None:
    """The engine's JSON error: its frame in Chinese, its byte, line, column and JSON path as it said them."""
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [')
    en = cli("encode", "-t", str(bad), "x").stderr.decode()
    assert "JSON error at byte" in en and "$.model.merges" in en, en
    line = assert_chinese_line(cli("--lang", "zh_CN", "encode", "-t", str(bad), "x"), names=(str(bad),))
    for kept in re.findall(r"\$[\w.\[\]]+|\d+", en.split(str(bad), 1)[1]):
        assert kept in line, (kept, line)


def test_compare_names_the_embedded_default_in_chinese(tmp_path: Path) -> None:
    """compare's header names each side: the embedded default by its translated name under zh_CN, a
    file by its file name in both languages."""
    from tokinspect.core.tokenizer import DEFAULTS

    text = tmp_path / "t.txt"
    text.write_text("Hello world 你好\n", encoding="utf-8")
    name = DEFAULTS["qwen3"][0]
    en = cli("--lang", "en", "compare", "--encoder-b", "greedy", str(text))
    zh = cli("--lang", "zh_CN", "compare", "--encoder-b", "greedy", str(text))
    assert en.returncode == zh.returncode == 0, (en.stderr, zh.stderr)
    head_en, head_zh = en.stdout.decode().splitlines()[0], zh.stdout.decode().splitlines()[0]
    assert head_en == f"A: {name} [bpe]   B: {name} [greedy]", head_en
    said = i18n.catalog("cli", "zh_CN")[("message", name)][0]
    assert head_zh == f"A: {said} [bpe]   B: {said} [greedy]" and not english_words(head_zh, ("[greedy]",)), head_zh
