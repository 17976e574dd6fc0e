"""`contract verify`: a tokenizer against a contract, with what changed named by layer.

Layers (schema.LAYERS), each judged on its own:
- file: a file of the bundle differs (size, sha256) or is missing;
- pipeline: the pipeline as loaded (model, parameters, normalizer, pre-tokenizer, post-processor,
  decoder) or the three vocabulary sizes;
- normalization: a sample's normalized text;
- pieces: a sample splits into other pieces (bytes), or its offsets moved;
- ids: the same pieces carry other ids (the row binding moved), or the behaviour fingerprint differs;
- specials: the added-token table (content, id, flags);
- template: the chat template's sha256 or its rendering;
- decode: a sample decodes to another text.

Each failure keeps the sample and the first token where it differs, so a view can open it there.

Does not: load the contract (schema.py) or encode on a board (board.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .bundle import Bundle
from .fingerprint import fingerprint
from .freeze import added_tokens, pipeline, text_of
from .samples import PROBE_SET, Sample
from .schema import LAYERS


@dataclass(frozen=True)
class Finding:
    layer: str
    what: str                       # one line, e.g. "sample 3 (combining): normalized text differs"
    sample: int | None = None       # index into contract["samples"]
    token: int | None = None        # first differing token of that sample (its index in the contract's)
    char: int | None = None         # where that is in the sample's text (code points)


@dataclass
class SampleResult:
    index: int
    category: str
    text: str | bytes
    layers: list[str] = field(default_factory=list)
    token: int | None = None
    char: int | None = None
    ids: list[int] = field(default_factory=list)      # what the tokenizer gives now

    @property
    def ok(self) -> bool:
        return not self.layers


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    samples: list[SampleResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def layers(self) -> list[str]:
        seen = {f.layer for f in self.findings}
        return [x for x in LAYERS if x in seen]

    def by_layer(self, layer: str) -> list[Finding]:
        return [f for f in self.findings if f.layer == layer]

    def as_json(self, first: int = 5) -> dict[str, Any]:
        return {"ok": self.ok, "layers": self.layers,
                "findings": {x: [f.what for f in self.by_layer(x)[:first]] for x in self.layers},
                "samples": {"total": len(self.samples), "failed": sum(not s.ok for s in self.samples)},
                "notes": self.notes}


def first_difference(a: list[Any], b: list[Any]) -> int | None:
    """The first index where two sequences differ (the shorter's length if one is a prefix)."""
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return k
    return None if len(a) == len(b) else min(len(a), len(b))


def _char_at(sample: dict[str, Any], k: int) -> int:
    offs = sample.get("offsets")
    if offs and k < len(offs):
        return int(offs[k][0])
    if offs:
        return int(offs[-1][1])
    return 0


def _check_files(contract: dict[str, Any], bundle: Bundle, rep: Report) -> None:
    have = {f["role"]: f for f in bundle.files}
    for f in contract["files"]:
        now = have.get(f["role"])
        if now is None:
            rep.findings.append(Finding("file", f"{f['role']} {f['name']}: not given now"))
        elif now["sha256"] != f["sha256"] or now["size"] != f["size"]:
            rep.findings.append(Finding("file", f"{f['role']} {f['name']}: sha256 {f['sha256'][:12]}… "
                                                f"({f['size']:,} bytes) is now {now['name']} "
                                                f"{now['sha256'][:12]}… ({now['size']:,} bytes)"))
    frozen = {f["role"] for f in contract["files"]}
    for role, f in have.items():
        if role not in frozen:
            rep.findings.append(Finding("file", f"{role} {f['name']}: not in the contract"))


def _check_pipeline(contract: dict[str, Any], bundle: Bundle, rep: Report) -> None:
    now = pipeline(bundle.tokenizer)
    was = contract["pipeline"]
    for k in sorted(set(was) | set(now)):
        if was.get(k) != now.get(k):
            rep.findings.append(Finding("pipeline", f"{k}: {was.get(k)!r} is now {now.get(k)!r}"))
    sizes = {"model_vocab": now.get("model_vocab"), "tokenizer": bundle.tokenizer.vocab_size,
             "embedding_rows": bundle.embedding_rows}
    for k, v in contract["sizes"].items():
        if k in sizes and v != sizes[k]:
            rep.findings.append(Finding("pipeline", f"size {k}: {v} is now {sizes[k]}"))


def _flags(a: dict[str, Any]) -> str:
    return ", ".join(f"{k}={a[k]}" for k in ("special", "lstrip", "rstrip", "single_word", "normalized"))


def _check_specials(contract: dict[str, Any], bundle: Bundle, rep: Report) -> None:
    now = {a["content"]: a for a in added_tokens(bundle.tokenizer)}
    was = {a["content"]: a for a in contract["added_tokens"]}
    for content, a in was.items():
        b = now.get(content)
        if b is None:
            rep.findings.append(Finding("specials", f"{content!r} (id {a['id']}): gone"))
        elif b["id"] != a["id"]:
            rep.findings.append(Finding("specials", f"{content!r}: id {a['id']} is now {b['id']}"))
        elif _flags(a) != _flags(b):
            changed = [k for k in ("special", "lstrip", "rstrip", "single_word", "normalized") if a[k] != b[k]]
            rep.findings.append(Finding("specials", f"{content!r} (id {a['id']}): "
                                        + ", ".join(f"{k} {a[k]} is now {b[k]}" for k in changed)))
    for content, b in now.items():
        if content not in was:
            rep.findings.append(Finding("specials", f"{content!r} (id {b['id']}): new"))


def _check_template(contract: dict[str, Any], bundle: Bundle, rep: Report) -> None:
    was, now = contract["chat_template"], bundle.chat_template
    if was is None and now is None:
        return
    if was is None or now is None:
        rep.findings.append(Finding("template", "no chat template in the contract" if was is None
                                    else f"the contract's chat template ({was['source']}) is not there now"))
        return
    if was["sha256"] != now["sha256"]:
        rep.findings.append(Finding("template", f"sha256 {was['sha256'][:12]}… is now {now['sha256'][:12]}…"))
    if was.get("rendering") != now.get("rendering"):
        k = first_difference(list(was.get("rendering") or ""), list(now.get("rendering") or "")) or 0
        rep.findings.append(Finding("template", f"the rendering differs from character {k}: "
                                    f"{(was.get('rendering') or '')[k:k + 30]!r} is now "
                                    f"{(now.get('rendering') or '')[k:k + 30]!r}"))


def check_sample(i: int, s: dict[str, Any], got: dict[str, Any], rep: Report) -> SampleResult:
    """One sample against what the tokenizer gives now (`got`, freeze.record's layout)."""
    res = SampleResult(i, s["category"], text_of(s), ids=list(got["ids"]))
    label = f"sample {i} ({s['category']})"

    def hit(layer: str, what: str, k: int | None) -> None:
        res.layers.append(layer)
        if res.token is None and k is not None:
            res.token, res.char = k, _char_at(s, k)
        rep.findings.append(Finding(layer, f"{label}: {what}", i, k, None if k is None else _char_at(s, k)))

    if s["normalized"] != got["normalized"]:
        k = first_difference(list(s["normalized"]), list(got["normalized"])) or 0
        hit("normalization", f"normalized {s['normalized'][k:k + 20]!r} is now {got['normalized'][k:k + 20]!r}", None)
        if res.char is None:
            res.token, res.char = 0, 0
    if "piece_bytes" in s:
        k = first_difference(s["piece_bytes"], got["piece_bytes"])
        shown_was, shown_now = s["pieces"], got["pieces"]
    else:   # version 1: the pieces as stored
        k = first_difference(s["pieces"], got["pieces"])
        shown_was, shown_now = s["pieces"], got["pieces"]
    if k is not None:
        hit("pieces", f"token {k}: {shown_was[k:k + 3]} is now {shown_now[k:k + 3]}", k)
    else:
        j = first_difference(s["ids"], got["ids"])
        if j is not None:
            hit("ids", f"token {j} {shown_was[j]!r}: id {s['ids'][j]} is now {got['ids'][j]}", j)
        if "offsets" in s:
            j = first_difference(s["offsets"], got["offsets"])
            if j is not None:
                hit("pieces", f"token {j}: offsets {s['offsets'][j]} are now {got['offsets'][j]}", j)
    if s["decode"] != got["decode"]:
        k = first_difference(list(s["decode"]), list(got["decode"])) or 0
        hit("decode", f"decodes to {got['decode'][k:k + 20]!r} where it gave {s['decode'][k:k + 20]!r}", None)
    return res


def verify(contract: dict[str, Any], bundle: Bundle, encoder: str = "bpe") -> Report:
    from .freeze import record

    rep = Report()
    tok = bundle.tokenizer
    _check_files(contract, bundle, rep)
    _check_pipeline(contract, bundle, rep)
    _check_specials(contract, bundle, rep)
    _check_template(contract, bundle, rep)
    fp = contract["fingerprint"]
    if fp["probe_set"] != PROBE_SET:
        rep.notes.append(f"the fingerprint was hashed over probe set {fp['probe_set']}; "
                         f"this tokinspect has {PROBE_SET}: not compared")
    else:
        now = fingerprint(tok, encoder)
        if now["sha256"] != fp["sha256"]:
            rep.findings.append(Finding("ids", f"behaviour fingerprint {fp['sha256'][:12]}… is now "
                                               f"{str(now['sha256'])[:12]}… (the probe set encodes to other ids)"))
    eng = contract.get("engine", {})
    if eng.get("tokinspect") and eng["tokinspect"] != _version():
        rep.notes.append(f"frozen with tokinspect {eng['tokinspect']}, verified with {_version()}")
    for i, s in enumerate(contract["samples"]):
        got = record(tok, Sample(s["category"], text_of(s), s["add_special_tokens"]), encoder)
        rep.samples.append(check_sample(i, s, got, rep))
    return rep


def _version() -> str:
    from importlib.metadata import version

    return version("tokinspect")
