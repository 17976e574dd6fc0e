"""A contract's golden samples through the board's tokenizer (the board link, board/session.py).

The samples that are text go to the board in one exec (our deployed tokcore with the given encoder,
on the board's tokenizer file); each board answer is checked against the contract's ids, and a
difference is a finding under `ids` (same pieces) or `pieces`, labelled "board". Samples of raw bytes
stay on the host: the board's JSON Lines carry text only.

Does not: connect (the caller hands a connected BoardConnection), or verify the host (verify.py).
"""

from __future__ import annotations

import threading
from typing import Any

from ..board.session import DiffRequest, board_encode
from ..board.ssh import BoardConnection
from ..core.tokenizer import Tokenizer
from .verify import Finding, Report, first_difference


def board_samples(contract: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(i, s) for i, s in enumerate(contract["samples"]) if "text" in s]


def check_board_ids(contract: dict[str, Any], tok: Tokenizer, answers: list[list[int] | None],
                    errors: dict[int, str], rep: Report) -> None:
    """The board's ids per text sample (None: no answer) against the contract."""
    for (i, s), ids in zip(board_samples(contract), answers):
        label = f"board, sample {i} ({s['category']})"
        if ids is None:
            rep.findings.append(Finding("ids", f"{label}: no answer ({errors.get(i, 'the board sent none')})", i))
            continue
        k = first_difference(s["ids"], ids)
        if k is None:
            continue
        was = s["piece_bytes"][k:k + 3] if "piece_bytes" in s else s["pieces"][k:k + 3]
        now = [(tok.id_to_bytes(x) or b"").hex() for x in ids[k:k + 3]]
        layer = "ids" if list(was) == now else "pieces"
        rep.findings.append(Finding(layer, f"{label}: token {k}: id {s['ids'][k:k + 3]} is {ids[k:k + 3]} "
                                           "on the board", i, k))


def verify_on_board(contract: dict[str, Any], tok: Tokenizer, conn: BoardConnection, remote_tokenizer: str,
                    encoder: str, rep: Report) -> None:
    picked = board_samples(contract)
    texts = [s["text"] for _, s in picked]
    add = [s["add_special_tokens"] for _, s in picked]
    answers: list[list[int] | None] = [None] * len(texts)
    errors: dict[int, str] = {}
    for flag in (True, False):   # one exec per add_special_tokens setting
        idx = [k for k, a in enumerate(add) if a == flag]
        if not idx:
            continue
        req = DiffRequest(tuple(texts[k] for k in idx), remote_tokenizer, encoder=encoder, add_special_tokens=flag)
        batch, _ = board_encode(conn, req, [texts[k] for k in idx], threading.Event(), lambda *_: None)
        for j, k in enumerate(idx):
            answers[k] = batch.ids[j]
            if batch.ids[j] is None:
                errors[picked[k][0]] = batch.errors[j] or batch.error or "no answer"
    check_board_ids(contract, tok, answers, errors, rep)
    rep.notes.append(f"board: {len(texts)} text samples encoded on the board ({remote_tokenizer}, {encoder})")
