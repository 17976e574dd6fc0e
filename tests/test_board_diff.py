"""The board diff engine (app/board/diff.py): host ids against board ids,
aligned by bytes, divergent spans classified. Runs on the embedded default
tokenizer (no board needed: the board's ids are produced here the ways a
board produces them: greedy longest match, a split special token, ...)."""

from __future__ import annotations

import random
import unicodedata

import pytest

from corpus import random_text
from tokinspect import Tokenizer
from tokinspect.board import diff as bd

MULTILINGUAL = [
    "Everyone has the right to life, liberty and security of person.",
    "Zażółć gęślą jaźń; Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "Ничто в настоящей Декларации не может быть истолковано",
    "Tüm insanlar hür, haysiyet ve haklar bakımından eşit doğarlar.",
    "Visi cilvēki piedzimst brīvi un vienlīdzīgi",
    "人人生而自由，在尊严和权利上一律平等。",
    "すべての人間は、生まれながらにして自由であり",
    "모든 인간은 태어날 때부터 자유로우며",
    "जन्म से स्वतंत्र तथा मर्यादा और अधिकारों में समान होते हैं",
    "Toate ființele umane se nasc libere și egale în demnitate și în drepturi.",
    "def f(x):\n\treturn x ** 2  # 🦙 👍🏽",
]


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer.default()


def ids(tok: Tokenizer, text: str, encoder: str = "bpe") -> list[int]:
    return tok.encode(text, encoder=encoder).ids.tolist()


def check_partition(d: bd.TextDiff) -> None:
    """Divergences are disjoint, in order, cover their bytes, and every token outside them is the same on both sides."""
    assert d.board_ids is not None
    rest_h, rest_b = list(d.host_ids), list(d.board_ids)
    for v in reversed(d.divergences):
        assert b"".join(p.data or b"" for p in v.host_pieces) == v.host_bytes
        assert b"".join(p.data or b"" for p in v.board_pieces) == v.board_bytes
        assert [p.id for p in v.host_pieces] == rest_h[v.host[0]:v.host[1]]
        assert [p.id for p in v.board_pieces] == rest_b[v.board[0]:v.board[1]]
        del rest_h[v.host[0]:v.host[1]]
        del rest_b[v.board[0]:v.board[1]]
    assert rest_h == rest_b
    spans = [v.host for v in d.divergences]
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def test_identical_sides_have_no_divergence(tok: Tokenizer) -> None:
    texts = MULTILINGUAL + [random_text(random.Random(i)) for i in range(200)]
    host = [ids(tok, t) for t in texts]
    diffs, summary = bd.diff_corpus(texts, host, [list(h) for h in host], tok)
    assert summary.texts == len(texts) and summary.identical == len(texts) and summary.agree
    assert not summary.per_kind and not summary.first_divergence
    assert all(d.same and d.first is None for d in diffs)


def test_bpe_against_greedy_is_found_and_classified(tok: Tokenizer) -> None:
    texts = MULTILINGUAL + [random_text(random.Random(i)) for i in range(300)]
    host = [ids(tok, t) for t in texts]
    board = [ids(tok, t, "greedy") for t in texts]
    diffs, summary = bd.diff_corpus(texts, host, board, tok)
    differing = sum(h != b for h, b in zip(host, board))
    assert differing > 50
    assert summary.identical == len(texts) - differing
    assert summary.texts - summary.identical == len(summary.first_divergence) == differing
    for d in diffs:
        check_partition(d)
        assert d.same == (list(d.host_ids) == list(d.board_ids or []))
    # greedy (the board's algorithm) skips the NFC normalizer: decomposed input shows up as such
    assert set(summary.per_kind) == {"same_bytes", "different_bytes", "normalization"}
    assert summary.per_kind["same_bytes"] > 50
    greedy_named = sum("board: greedy" in v.reason for d in diffs for v in d.divergences if v.kind == "same_bytes")
    assert greedy_named > 0.5 * summary.per_kind["same_bytes"]
    top = summary.most_frequent(5)
    assert top and top[0][1] >= top[-1][1]
    assert sum(summary.spans.values()) == sum(summary.per_kind.values())


def test_split_russian_word_names_both_encoders(tok: Tokenizer) -> None:
    text = "Ничто в настоящей Декларации"
    d = bd.diff_text(text, ids(tok, text), ids(tok, text, "greedy"), tok)
    first = d.first
    assert first is not None and first.kind == "same_bytes" and len(d.divergences) == 1
    assert first.host_bytes == first.board_bytes == " Декларации".encode()
    assert [p.shown for p in first.host_pieces] == [" Д", "ек", "л", "ар", "ации"]
    assert [p.shown for p in first.board_pieces] == [" Де", "кла", "ра", "ции"]
    assert "host: bpe" in first.reason and "board: greedy" in first.reason


def test_marker_collision_is_named(tok: Tokenizer) -> None:
    """Greedy follows the board: equal stored bytes -> the lower id (213, the marker of 0x19, for 'ę')."""
    text = "gęś"
    host, board = ids(tok, text), ids(tok, text, "greedy")
    assert 5156 in host and 213 in board
    d = bd.diff_text(text, host, board, tok)
    (v,) = d.divergences
    assert v.kind == "different_bytes"
    assert v.host_bytes == "ę".encode() and v.board_bytes == b"\x19"
    assert "id 213" in v.reason and "c4 99" in v.reason and "id 5156" in v.reason


def test_special_token_split_into_pieces(tok: Tokenizer) -> None:
    text = "<|im_start|>user\nhello"
    board = ids(tok, "<|im_") + ids(tok, "start|>") + ids(tok, "user\nhello")
    d = bd.diff_text(text, ids(tok, text), board, tok)
    (v,) = d.divergences
    assert v.kind == "special_split" and v.host == (0, 1) and v.board[1] - v.board[0] > 1
    assert "<|im_start|>" in v.reason and "151644" in v.reason
    check_partition(d)


def test_unknown_board_id(tok: Tokenizer) -> None:
    text = "hello world"
    host = ids(tok, text)
    d = bd.diff_text(text, host, host[:-1] + [10**6], tok)
    (v,) = d.divergences
    assert v.kind == "unknown_id" and "1000000" in v.reason and "board" in v.reason
    assert v.board_pieces[0].data is None and "unknown id" in v.board_pieces[0].shown


def test_greedy_skips_the_normalizer(tok: Tokenizer) -> None:
    text = "cafe\u0301"
    d = bd.diff_text(text, ids(tok, text), ids(tok, text, "greedy"), tok)
    (v,) = d.divergences
    assert v.kind == "normalization" and v.host_bytes.endswith("é".encode()) and v.board_bytes.endswith(b"e\xcc\x81")


def test_normalization_difference(tok: Tokenizer) -> None:
    text = "a café here"
    host = ids(tok, text)
    # a board that does not compose: e + U+0301 as two pieces (the default tokenizer's NFC would fold them)
    board = ids(tok, "a caf") + ids(tok, "e") + ids(tok, "\u0301") + ids(tok, " here")
    assert unicodedata.normalize("NFC", tok.decode(board)) == text
    d = bd.diff_text(text, host, board, tok)
    assert [v.kind for v in d.divergences] == ["normalization"]
    assert "NFC" in d.divergences[0].reason
    check_partition(d)


def test_inserted_bytes_realign_after_the_divergence(tok: Tokenizer) -> None:
    """Different bytes in the middle: the tokens after them still align (byte-level diff)."""
    text = "one two three four five six"
    host = ids(tok, text)
    board = ids(tok, "one two") + [tok.token_to_id("Ċ")] + ids(tok, " three four five six")
    d = bd.diff_text(text, host, board, tok)
    (v,) = d.divergences
    assert v.kind == "different_bytes" and v.board_bytes.endswith(b"\n")
    assert "markers (bytes 00-20)" in v.reason
    check_partition(d)


def test_raw_byte_classes_are_reported(tok: Tokenizer) -> None:
    text = "x y"
    host = ids(tok, text)
    raw = [i for i in range(tok.vocab_size) if tok.id_to_bytes(i) in (b"\xad", b"\x7f", b"\x85")]
    board = ids(tok, "x") + raw + ids(tok, "y")
    d = bd.diff_text(text, host, board, tok)
    reasons = " ".join(v.reason for v in d.divergences)
    assert "raw AD" in reasons and "7F" in reasons and "raw 80-A0" in reasons


def test_missing_board_results_are_counted_not_compared(tok: Tokenizer) -> None:
    texts = ["a b c", "d e f", "g h i"]
    host = [ids(tok, t) for t in texts]
    diffs, summary = bd.diff_corpus(texts, host, [host[0], None, None], tok,
                                    board_errors=[None, "connection lost after 1 of 3", None])
    assert summary.texts == 3 and summary.identical == 1 and summary.missing == 2 and not summary.agree
    assert diffs[1].board_error == "connection lost after 1 of 3" and not diffs[1].same
    assert diffs[2].board_error == "no ids from the board"


def test_long_texts_with_different_bytes_align_by_prefix_and_suffix(tok: Tokenizer) -> None:
    text = "word " * 6000 + "end"
    host = ids(tok, text)
    cut = len(host) // 2
    board = host[:cut] + ids(tok, "!") + host[cut:]
    d = bd.diff_text(text, host, board, tok)
    assert len(text) > bd.FULL_ALIGN_LIMIT
    assert len(d.divergences) == 1 and d.divergences[0].kind == "different_bytes"
    check_partition(d)


def test_empty_sides(tok: Tokenizer) -> None:
    assert bd.diff_text("", [], [], tok).same
    d = bd.diff_text("hi", ids(tok, "hi"), [], tok)
    (v,) = d.divergences
    assert v.kind == "different_bytes" and v.board_pieces == ()


def test_steps_touching_a_span_are_the_steps_that_overlap_it() -> None:
    """The kestrel steps a divergent span reads (found by bisection over the steps' regions) are the
    steps whose region overlaps the span, checked against every step on seeded random texts and spans."""
    from corpus import random_texts
    from tokinspect.board import causes

    tok = Tokenizer.default()
    rng = random.Random(11)
    spans = found = 0
    for text in random_texts(12, 300, ["<|im_end|>", "<think>"]):
        n = len(text.encode("utf-8", errors="surrogatepass"))
        for run in causes.replays(tok, text):
            steps = run.trace.kestrel_steps
            if not steps:
                continue
            assert run.step_regions is not None, text
            for _ in range(20):
                a = rng.randint(0, n)
                span = (a, rng.randint(a, n))
                want = [st for st in steps if causes._overlaps(causes._kestrel_region(st), span)]
                assert run.steps_touching(span) == want, (text, span)
                spans, found = spans + 1, found + len(want)
    assert spans > 10_000 and found > spans
