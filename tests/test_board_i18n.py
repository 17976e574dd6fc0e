"""The board and languages reports in Chinese: the board diff's fallback reasons (board.diff.REASONS),
the board link's failures (board.messages: every BoardError and batch error) and the `languages`
table's column names, in the window (Qt catalog) and on the command line (cli_zh_CN.po).

Everything said here comes from real runs: divergences between the default tokenizer's own ids and
ids a board gives (its greedy/Kestrel emulations, a split special token, a board vocabulary without an
id, the host's normalizer), failures raised for real (a closed 127.0.0.1 port, a broken profile file,
commands that fail, time out or print garbage on the test board: sshd + qemu, tests/boardfix.py), and
the languages report over UDHR translations. Under zh_CN each has Chinese and no English word of 3+
letters outside its values; in English each is what it was, word for word.
"""

from __future__ import annotations

import re
import shutil
import socket
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_cli_i18n import ALLOWED, english_words

from conftest import shared
from tokinspect import Tokenizer
from tokinspect.board import diff as bd
from tokinspect.board import llamacpp, messages, remote
from tokinspect.board.deploy import CompilerMissing, ensure_built
from tokinspect.board.ssh import BoardConnection, BoardError, Profile, ProfileStore, Unreachable
from tokinspect.cli import i18n as cli_i18n
from tokinspect.cli.board import board_said
from tokinspect.languages.corpus import open_source
from tokinspect.languages.report import HEADERS, text_table
from tokinspect.languages.run import Options, build
from tokinspect.languages.series import load, make_series
from tokinspect.window import board as wboard
from tokinspect.window import i18n

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "resources" / "i18n" / "cli_zh_CN.po"
TS = ROOT / "resources" / "i18n" / "tokinspect_zh_CN.ts"
CJK = re.compile(r"[\u4e00-\u9fff]")
# Latin words a Chinese board message keeps: the command line's names, and the protocols and
# programs the board's messages name (SFTP, HTTP, uname, ASCII), the encoders' names
BOARD_ALLOWED = ALLOWED | {"sftp", "http", "uname", "stderr", "greedy", "rank", "kestrel", "ascii",
                                 "llama-tokenize", "path"}   # PATH: the board shell's variable


def zh_words(zh: str, values: list[str]) -> list[str]:
    """English words of a translated text once its values are taken out."""
    rest = zh
    for v in sorted(values, key=len, reverse=True):
        if v:
            rest = rest.replace(v, " ")
    return [w for w in english_words(rest) if w.lower() not in BOARD_ALLOWED]


# ---- the diff's fallback reasons ---------------------------------------------------------------

def divergences() -> list[bd.Divergence]:
    """Real divergences reaching every fallback reason."""
    tok = Tokenizer.default()

    def ids(text: str, encoder: str = "bpe") -> list[int]:
        return tok.encode(text, encoder=encoder).ids.tolist()

    out: list[bd.Divergence] = []
    # the board's emulations against the host's merges, over UDHR lines and the texts that meet the rules
    udhr = sorted(shared("udhr", "txt").glob("*.txt"))[::60]
    lines = [x for f in udhr for x in f.read_text(encoding="utf-8").splitlines()[:4] if x.strip()]
    texts = [*lines, "gęś", "cafe\u0301", "a\tb", "  x   y  ", "<|im_start|>user hi", "naïve café"]
    for enc in ("greedy", "kestrel-v2", "kestrel-v1"):
        for t in texts:
            out += bd.diff_text(t, ids(t), ids(t, enc), tok).divergences
    # a special token split on the board (matched as text), on either side
    t = "<|im_start|>user\nhello"
    split = ids("<|im_") + ids("start|>") + ids("user\nhello")
    out += bd.diff_text(t, ids(t), split, tok).divergences
    out += bd.diff_text(t, split, ids(t), tok).divergences
    # an id the host's vocabulary does not have (a board with a bigger vocabulary), and raw bytes
    host = ids("hello world")
    out += bd.diff_text("hello world", host, host[:-1] + [tok.vocab_size + 7], tok).divergences
    raw = [i for i in range(tok.vocab_size) if tok.id_to_bytes(i) in (b"\xad", b"\x7f", b"\x85", b"\xe9")]
    out += bd.diff_text("x y", ids("x y"), ids("x") + raw + ids("y"), tok).divergences
    out += bd.diff_text("one two", ids("one two"), ids("one") + ids(" tw"), tok).divergences
    # a board that encodes its input in chunks: the split at the chunk's edge is no encoder's
    t = "hello world"
    out += bd.diff_text(t, ids(t), ids(t[:3]) + ids(t[3:]), tok).divergences
    # a board that does not compose é (NFC)
    t = "a café here"
    out += bd.diff_text(t, ids(t), ids("a caf") + ids("e") + ids("\u0301") + ids(" here"), tok).divergences
    return out


# the one reason no real divergence met (the byte-level tokenizers' pieces over a span are always an
# encoding of the span alone on one side, over UDHR and boards that encode in chunks): said as the diff
# says it, without values
NEITHER = bd.REASONS[5]


@pytest.fixture(scope="module")
def reasons() -> list[bd.Reason]:
    return [v.why for v in divergences()] + [bd.Reason(NEITHER)]


def test_every_fallback_reason_is_met_as_a_template(reasons) -> None:
    assert {r.template for r in reasons[:-1]} == set(bd.REASONS) - {NEITHER}
    words = {p for r in reasons for a in r.args for p in re.split(r", | = ", a) if p in bd.REASON_WORDS}
    assert {"host", "board", "bpe (merge ranks)", "greedy (longest match)", "markers (bytes 00-20)", "raw AD", "7F",
            "raw 80-A0", "ASCII", "no encoder of the span alone"} <= words, words
    for r in reasons:
        assert r.template.count("{") == len(r.args) and r.sentence == r.template.format(*r.args)


def test_reasons_through_a_marking_translator(reasons) -> None:
    """Every word of a reason goes through the catalog: the template and the words among the values."""
    def mark(s: str) -> str:
        return f"«{s}»" if s in (*bd.REASON_WORDS, ", ", " = ") else f"‹{s}›"

    for r in reasons:
        m = r.text(mark)
        # the template went through whole; each value is either data as it was, or its words marked
        pattern = "‹" + re.sub(r"\\\{\d\\\}", "(.*?)", re.escape(r.template)) + "›"
        got = re.fullmatch(pattern, m)
        assert got is not None, (m, r)
        for value, shown in zip(r.args, got.groups()):
            words = re.split(r", | = ", value)
            if all(w in bd.REASON_WORDS for w in words):
                assert re.fullmatch(r"(«[^«»]*»)+", shown), (shown, r)
            else:
                assert shown == value, (shown, r)


def reason_values(r: bd.Reason) -> list[str]:
    return [a for a in r.args if a not in bd.REASON_WORDS and not re.fullmatch(r"[^,=]*(?:(?:, | = )[^,=]*)+", a)
            or not all(p in bd.REASON_WORDS for p in re.split(r", | = ", a))]


def test_reasons_in_chinese_in_the_window_and_on_the_command_line(qapp, reasons) -> None:
    t = i18n.install(qapp, "zh_CN")
    assert t is not None
    cli_i18n.use("zh_CN")
    try:
        for r in reasons:
            for zh in (r.text(i18n.tr), r.text(cli_i18n.finding_text)):
                assert CJK.search(zh), zh
                assert zh_words(zh, reason_values(r)) == [], (zh, r)
        # the window's why column, for a divergence no rule explains
        tok = Tokenizer.default()
        d = bd.diff_text("hello world", tok.encode("hello world").ids.tolist(), [9707, tok.vocab_size + 1], tok)
        why = wboard.divergence_rows(d)[-1][-1]
        assert CJK.search(why) and str(tok.vocab_size + 1) in why, why
    finally:
        cli_i18n.use("en")
        qapp.removeTranslator(t)
    # English: the sentence, word for word
    assert [r.text(cli_i18n.finding_text) for r in reasons] == [r.sentence for r in reasons]


# ---- the board link's failures -----------------------------------------------------------------

def values_of(text: str) -> list[str]:
    """A board message's values (what a translation keeps verbatim), nested sentences opened, and the
    lines after the first (the board's own output)."""
    out: list[str] = []
    first, *rest = text.split("\n")
    for line in rest:   # the board's output (a frame of ours may close it: "[2 of 5 results ...]")
        if messages.template_of(line) is not None:
            out += values_of(line)
        elif line not in messages.PHRASES:
            out.append(line)
    found = messages.template_of(first)
    assert found is not None or first in messages.PHRASES, ("no template says", first)
    for k, v in (found[1] if found else {}).items():
        if k in messages.LISTS:
            out += [x for item in v.split("; ") for x in values_of(item)]
        elif k in messages.NESTED or v in messages.PHRASES:
            if messages.template_of(v) is not None or v in messages.PHRASES:
                out += values_of(v)
            else:
                out.append(v)   # an OS or library sentence we do not list (kept as it came)
        else:
            out.append(v)
    return out


def check_chinese(text: str) -> None:
    """The window's and the command line's Chinese of one board message."""
    values = values_of(text)
    window = wboard.board_message(text)
    cli_i18n.use("zh_CN")
    try:
        cli = board_said(BoardError(text))
    finally:
        cli_i18n.use("en")
    for zh in (window, cli):
        assert CJK.search(zh), (text, zh)
        assert zh_words(zh, values) == [], (text, zh, zh_words(zh, values))
        for line in text.split("\n")[1:]:
            if line not in messages.PHRASES and messages.template_of(line) is None:
                assert line in zh.split("\n"), (line, zh)   # the board's output, verbatim
        assert "board says no" not in text or "board says no" in zh


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def local_errors(tmp_path: Path) -> list[str]:
    """Failures that need no board: a closed port, broken profiles, a bad HTTP answer."""
    out = []
    port = closed_port()
    conn = BoardConnection(Profile(name="x", host="127.0.0.1", port=port, user="u", use_agent=False,
                                   connect_timeout=5.0))
    with pytest.raises(Unreachable) as ei:
        conn.connect()
    out.append(str(ei.value))
    bad = tmp_path / "profiles.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(BoardError) as ei:
        ProfileStore(bad).load()
    out.append(str(ei.value))
    for kw in ({"name": "p", "host": ""}, {"name": "p", "host": "h", "port": 70000}, {"name": "", "host": "h"}):
        with pytest.raises(BoardError) as ei:
            Profile(**kw).validate()   # type: ignore[arg-type]
        out.append(str(ei.value))
    for raw in (b"garbage", b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n{}", b"SMTP ready\r\n\r\n"):
        with pytest.raises(BoardError) as ei:
            llamacpp.parse_response(raw)
        out.append(str(ei.value))
    with pytest.raises(BoardError) as ei:
        llamacpp.server_ids(200, b"<html>")
    out.append(str(ei.value))
    with pytest.raises(BoardError) as ei:
        remote.parse_jsonl("oops {", 3)
    out.append(str(ei.value))
    with pytest.raises(BoardError) as ei:
        llamacpp.parse_ids("no ids here\n")
    out.append(str(ei.value))
    return out


def says_each_in_chinese(qapp, errors: list[str]) -> None:  # noqa: ANN001 - pytest-qt's QApplication
    """Each failure in the zh_CN window is Chinese (check_chinese); in English, as the board modules wrote it."""
    t = i18n.install(qapp, "zh_CN")
    try:
        for e in errors:
            check_chinese(e)
    finally:
        qapp.removeTranslator(t)
    assert [wboard.board_message(e) for e in errors] == errors


def test_failures_without_a_board_in_chinese(qapp, tmp_path: Path) -> None:
    errors = local_errors(tmp_path)
    assert any("cannot reach 127.0.0.1:" in e for e in errors), errors
    says_each_in_chinese(qapp, errors)


def board_errors(board, board_conn) -> list[str]:
    """Failures raised on the test board: each kind of command, output and connection failure."""
    from tokinspect.board.ssh import Cancelled, CommandTimeout, RemoteCommandFailed, RemoteFileMissing

    out = []
    with pytest.raises(RemoteCommandFailed) as ei:
        board_conn.run("echo 'board says no' >&2; exit 3", check=True)
    out.append(str(ei.value))
    with pytest.raises(RemoteCommandFailed) as ei:
        board_conn.run("exit 4", check=True)
    out.append(str(ei.value))
    with pytest.raises(RemoteFileMissing) as ei:
        remote.remote_file_info(board_conn, "/no/such/vocab.bin")
    out.append(str(ei.value))
    with pytest.raises(CommandTimeout) as ei:
        board_conn.run("sleep 30", timeout=0.5)
    out.append(str(ei.value))
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled) as ei:
        board_conn.run("sleep 30", cancel=cancel)
    out.append(str(ei.value))
    # a board command whose output does not parse, line by line, and a batch that ends short or long
    for cmd, parser, regex in (("cat >/dev/null; echo '1 2 x'; echo '[1'", "ints", None),
                               ("cat >/dev/null; echo '[1]'; echo 'oops {'", "jsonl", None),
                               ("cat >/dev/null; echo '{\"idz\": 1}'; echo '{\"error\": \"too long\"}'", "jsonl", None),
                               ("cat >/dev/null; echo 'ids: 1 z'; echo 'ids: 2'", "regex", r"ids: (.*)")):
        r = remote.encode_command(board_conn, cmd, ["a", "b"], parser=parser, regex=regex)
        out += [e for e in r.errors if e]
    for cmd in ("cat >/dev/null; echo 1; echo 2; echo 3", "cat >/dev/null; echo 1",
                "head -n 1 >/dev/null; echo 1; echo 'board says no' >&2; exit 3"):
        r = remote.encode_command(board_conn, cmd, ["a", "b"], parser="ints")
        assert r.error, cmd
        out.append(r.error)
    with board.connection(board.profile(compiler="no-such-cc-tokinspect -static",
                                        deploy_root=str(board.dir / "cache-nocc-i18n"))) as conn:
        with pytest.raises(CompilerMissing) as ei:
            ensure_built(conn)
        out.append(str(ei.value))
    for key in (board.dir / "no-such-key", board.keygen("i18n-unauthorized")):
        conn = board.connection(board.profile(key_file=str(key)))
        with pytest.raises(BoardError) as ei:
            conn.connect()
        conn.close()
        out.append(str(ei.value))
    return out


def test_failures_on_the_board_in_chinese(qapp, board, board_conn) -> None:
    errors = board_errors(board, board_conn)
    kinds = {messages.template_of(e.split("\n")[0])[0] for e in errors}   # type: ignore[index]
    assert kinds == {"key file {path} does not exist", "{label} refused authentication: {tried} (server accepts: {methods})",
                     "command exited with status {rc}: {command}",
                     "{path} does not exist on {host}", "the board's tokenizer refused the text: {error}",
                     "the board has no C compiler {name} (profile setting 'compiler' is {compiler}; PATH on the "
                     "board: {path})", "output line {line} is not {what}: {shown} ({reason})",
                     "the command printed more results than the {n} texts sent (line {line}: {text})",
                     "the command printed {done} results for {sent} texts: {command}", "cancelled: {command}",
                     "the board command did not finish within {seconds} s and was stopped: {command}"}, kinds
    assert any("board says no" in e for e in errors) and any("(no output)" in e for e in errors)
    says_each_in_chinese(qapp, errors)


# ---- the languages table -----------------------------------------------------------------------

def test_languages_table_in_chinese(tmp_path: Path) -> None:
    corpus = tmp_path / "udhr"
    corpus.mkdir()
    for name in ("eng", "cmn_hans", "rus", "arb", "hin"):
        shutil.copy(shared("udhr", "txt") / f"{name}.txt", corpus / f"{name}.txt")
    series = make_series("qwen3", "bpe", None)
    load(series)
    rep = build(open_source(str(corpus), "lang", "text"), [series], Options("eng", "auto", "local", 1, None, None))
    en = text_table(rep)
    assert text_table(rep, None, cli_i18n.message) == en   # English: the table as it was
    cli_i18n.use("zh_CN")
    try:
        zh = "".join(cli_i18n.message(line) + "\n" for line in text_table(rep, None, cli_i18n.message).split("\n"))
    finally:
        cli_i18n.use("en")
    rows = rep.rows_of(rep.series[0])
    assert len(rows) == 5
    values = [str(corpus), str(rep.series[0]), "eng", *(r.lang for r in rows), *(r.script for r in rows)]
    heads = [ln for ln in zh.split("\n") if CJK.search(ln)]
    assert len(heads) >= 3, zh
    assert zh_words(zh, values) == [], (zh_words(zh, values), zh)
    # the Chinese headers keep the columns lined up: each row ends where its header does
    from tokinspect.cli.columns import display_width
    lines = zh.split("\n")
    k = next(i for i, ln in enumerate(lines) if ln.startswith("  ") and CJK.search(ln))
    assert {display_width(ln) for ln in lines[k:k + 1 + len(rows)]} == {display_width(lines[k])}


# ---- the catalogs ------------------------------------------------------------------------------

def test_both_catalogs_translate_every_template_and_word(qapp) -> None:
    po = cli_i18n.parse_po(PO.read_text(encoding="utf-8"))
    ts = {m.findtext("source"): m.findtext("translation") for m in ET.parse(TS).getroot().iter("message")}
    window = [*bd.REASONS, *bd.REASON_WORDS, *messages.TEMPLATES, *messages.PHRASES]
    line = [("finding", s) for s in (*bd.REASONS, *bd.REASON_WORDS)]
    line += [("message", s) for s in (*messages.TEMPLATES, *messages.PHRASES, *HEADERS)]
    missing = [s for s in window if not ts.get(s)] + [k for k in line if k not in po]
    assert missing == [], missing
    t = i18n.install(qapp, "zh_CN")
    try:
        for s in window:
            zh = i18n.tr(s)
            assert zh == ts[s] and cli_i18n.fields(zh) == cli_i18n.fields(s), s
            assert zh != s or not re.search(r"[a-z]{3}", s), ("untranslated", s)
    finally:
        qapp.removeTranslator(t)
    for k in line:
        zh = po[k][0]
        assert cli_i18n.fields(zh) == cli_i18n.fields(k[1]), k
        assert zh != k[1] or not re.search(r"[a-z]{3}", k[1]), ("untranslated", k)
