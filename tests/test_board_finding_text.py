"""The Board tab's "why" column in the window's language: every sentence the board diff writes
(tokinspect.board.causes) is one of its TEMPLATES filled with values, and the window translates the
template and puts the values back (tokinspect.window.board.finding_text).

The sentences come from real diffs: the default tokenizer's own ids against its Kestrel emulations
(the board's encoders), over texts that meet the rules (tabs, leading/trailing/doubled spaces, newline
runs, special tokens). A marking translator shows what went through the catalog; the zh_CN catalog
itself must leave no English word outside the values.
"""

from __future__ import annotations

import re

from tokinspect import Tokenizer
from tokinspect.board import causes
from tokinspect.board.diff import diff_text
from tokinspect.cli import i18n as cli_i18n
from tokinspect.cli.board import finding_message
from tokinspect.window import board as wboard
from tokinspect.window import i18n

TEXTS = ("a\tb", "  lead", "end  ", "x   y", "a\n\n\n\nb", "one\n\n\n\n\n\n\n\n\n\n\nten", "<|im_start|>user hi",
         "Hello<|im_end|> world", "x <think>y", "tab\tand\x01ctl", "naïve café", "   ", "a\x0bb\x0cc")


def findings() -> list[causes.Finding]:
    tok = Tokenizer.default()
    out = []
    for enc in ("kestrel-v2", "kestrel-v1", "greedy"):
        for t in TEXTS:
            d = diff_text(t, tok.encode(t).ids.tolist(), tok.encode(t, encoder=enc).ids.tolist(), tok)
            for v in d.divergences:
                out += v.findings
    return out


def test_every_finding_is_a_template_with_values() -> None:
    fs = findings()
    rules = {f.rule for f in fs}
    # the texts reach these rules (so the test looks at real sentences of each)
    assert {"control-byte-unk", "leading-space-dropped", "trailing-space-dropped", "newline-run-split",
            "spaces-collapsed", "special-first"} <= rules, rules
    for f in fs:
        assert f.template in causes.TEMPLATES, f
        assert f.sentence == f.template.format(*f.args)
        assert f.template.count("{") == len(f.args), f


def test_window_fills_the_translated_template(monkeypatch) -> None:
    monkeypatch.setattr(wboard, "tr", lambda s: f"‹{s}›")
    for f in findings():
        words = [f"‹{a}›" if a in causes.ARG_WORDS else ("‹byte›" + a[4:] if a.startswith("byte 0x") else a)
                 for a in f.args]
        assert wboard.finding_text(f) == f"‹{f.template}›".format(*words)


def test_zh_cn_why_column_has_no_english(qapp) -> None:
    t = i18n.install(qapp, "zh_CN")
    assert t is not None
    try:
        for template in (*causes.TEMPLATES, *causes.ARG_WORDS):
            assert i18n.tr(template) != template, template
        for f in findings():
            zh = wboard.finding_text(f)
            assert re.search(r"[\u4e00-\u9fff]", zh), zh
            rest = zh
            for a in f.args:            # the values (pieces, ids, encoder names) stay as they are
                rest = rest.replace(a, " ")
            english = [w for w in re.findall(r"[A-Za-z]{3,}", rest) if w not in ("NUL", "bin", "vocab", "llama", "cpp")]
            assert english == [], (zh, english)
    finally:
        qapp.removeTranslator(t)


def test_command_line_why_in_both_languages() -> None:
    """`board diff`'s report prints each rule's sentence: the English word for word, the Chinese from
    the command line's catalog with the same values."""
    fs = findings()
    cli_i18n.use("en")
    assert [finding_message(f) for f in fs] == [f.sentence for f in fs]
    cli_i18n.use("zh_CN")
    try:
        for f in fs:
            zh = finding_message(f)
            rest = zh
            for a in f.args:
                rest = rest.replace(a, " ")
            assert re.search(r"[\u4e00-\u9fff]", zh), zh
            assert [w for w in re.findall(r"[A-Za-z]{3,}", rest) if w not in ("NUL", "bin", "vocab")] == [], zh
    finally:
        cli_i18n.use("en")
