"""CLI commands for the tokenizer as a frozen contract (seed 003):

  tokinspect contract freeze TOKENIZER [--config C] [--model-config M] [--samples FILE] -o contract.json
  tokinspect contract verify contract.json TOKENIZER [--config C] [--model-config M] [--encoder E]
                             [--board PROFILE --remote-tokenizer PATH] [--json]

verify exits 0 when every fact and sample holds, 1 otherwise (and 2 when it cannot run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..contract import schema
from ..contract.bundle import Bundle, open_bundle
from ..contract.freeze import freeze
from ..contract.samples import user_samples
from ..contract.verify import Report, verify
from ..core.tokenizer import ENCODERS, PRESETS, TokenizerError
from .errors import said
from .i18n import _, message

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def _bundle(args: argparse.Namespace) -> Bundle:
    return open_bundle(args.tokenizer, preset=args.preset, config=args.config, merges=args.merges,
                       model_config=args.model_config)


def cmd_freeze(args: argparse.Namespace) -> int:
    try:
        extra = user_samples(args.samples) if args.samples else []
        b = _bundle(args)
        c = freeze(b, extra, args.encoder)
    except (TokenizerError, OSError, ValueError) as exc:
        print(f"tokinspect contract: {said(exc)}", file=sys.stderr)
        return EXIT_ERROR
    Path(args.output).write_text(schema.dump(c), encoding="utf-8")
    fp = c["fingerprint"]
    print(_("{samples} samples, {added} added tokens, fingerprint {sha256} ({probes} probes) -> {path}").format(
        samples=len(c["samples"]), added=len(c["added_tokens"]), sha256=fp["sha256"], probes=fp["probes"],
        path=args.output))
    for n in b.notes:
        print(_("note: {note}").format(note=message(n)))
    return EXIT_OK


def print_report(rep: Report, first: int) -> None:
    if rep.ok:
        print(_("contract holds: {n} samples, every layer unchanged").format(n=len(rep.samples)))
    for layer in rep.layers:
        found = rep.by_layer(layer)
        print(_("{layer} changed ({n}):").format(layer=message(layer), n=len(found)))
        for f in found[:first]:
            print(f"  {message(f.what)}")
        if len(found) > first:
            print(_("  ... {n} more").format(n=len(found) - first))
    for n in rep.notes:
        print(_("note: {note}").format(note=message(n)))


def _verify_board(args: argparse.Namespace, contract: dict[str, object], b: Bundle, rep: Report) -> None:
    """--board PROFILE: the text samples through the board's tokenizer (tokinspect board's connection)."""
    from ..board.ssh import BoardError
    from ..contract.board import verify_on_board
    from .board import connect, profile_from_args

    if not args.remote_tokenizer:
        raise BoardError(_("--board needs --remote-tokenizer PATH (the tokenizer file on the board)"))
    conn_args = argparse.Namespace(**vars(args), profile=args.board, host=None, name=None, port=None, user=None,
                                   key=None, compiler=None, run_prefix=None, deploy_root=None,
                                   connect_timeout=None, command_timeout=None, no_agent=False)
    with connect(conn_args, profile_from_args(conn_args)) as conn:
        verify_on_board(contract, b.tokenizer, conn, args.remote_tokenizer, args.board_encoder, rep)


def cmd_verify(args: argparse.Namespace) -> int:
    from ..board.ssh import BoardError  # paramiko: loaded by verify only

    try:
        contract = schema.load(args.contract)
        b = _bundle(args)
        rep = verify(contract, b, args.encoder)
        if args.board:
            _verify_board(args, contract, b, rep)
    except (schema.ContractError, TokenizerError, OSError, ValueError, BoardError) as exc:
        print(f"tokinspect contract: {said(exc)}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print(json.dumps(rep.as_json(args.first), ensure_ascii=False))
    else:
        print_report(rep, args.first)
    return EXIT_OK if rep.ok else EXIT_FAILED


def _load_opts(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("tokenizer", nargs="?", help=_("tokenizer file (default: the embedded Qwen3)"))
    sp.add_argument("--config", help=_("tokenizer_config.json (default: the one beside the tokenizer, if any)"))
    sp.add_argument("--model-config", help=_("the model's config.json (its vocab_size: the embedding rows)"))
    sp.add_argument("--merges", help=_("merges.txt for a vocab.json"))
    sp.add_argument("--preset", choices=PRESETS, help=_("split pattern for .tiktoken / vocab.json / vocab.bin files"))
    sp.add_argument("--encoder", choices=ENCODERS, default="bpe", help=_("the encoder whose ids the contract holds"))


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    c = sub.add_parser("contract", help=_("freeze a tokenizer as a contract, verify a tokenizer against one"))
    cs = c.add_subparsers(dest="contract_command", required=True)
    f = cs.add_parser("freeze", help=_("write contract.json: hashes, pipeline, sizes, specials, golden samples"))
    _load_opts(f)
    f.add_argument("--samples", help=_("more samples: one JSON string per line"))
    f.add_argument("-o", "--output", required=True, help=_("the contract.json to write"))
    f.set_defaults(func=cmd_freeze)
    v = cs.add_parser("verify", help=_("check a tokenizer against contract.json; report by layer"))
    v.add_argument("contract", help=_("the contract.json to verify against"))
    _load_opts(v)
    v.add_argument("--json", action="store_true", help='{"ok": bool, "layers": [...], "findings": {...}}')
    v.add_argument("--first", type=int, default=5, help=_("findings shown per layer"))
    v.add_argument("--board", metavar="PROFILE", help=_("also encode the samples on this board profile"))
    v.add_argument("--profiles", help=_("the profile file (default: the app's)"))
    v.add_argument("--remote-tokenizer", help=_("--board: the tokenizer file on the board"))
    v.add_argument("--known-hosts", action="append", help=_("--board: another known_hosts file to trust"))
    v.add_argument("--app-known-hosts", help=_("--board: the app's own known_hosts file"))
    v.add_argument("--accept-host-key", metavar="SHA256:...", help=_("--board: trust an unknown host key"))
    v.add_argument("--board-encoder", choices=ENCODERS, default="bpe",
                   help=_("--board: the deployed tokcore's encoder"))
    v.set_defaults(func=cmd_verify)
