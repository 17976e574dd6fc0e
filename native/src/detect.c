/* detect.c - what a file is, from its content (never from its name).
 *
 * Does: recognizes every tokenizer format the engine knows (tokenizer.json,
 * vocab.json, merges.txt, .tiktoken, vocab.bin, SentencePiece model
 * protobuf, Mistral Tekken JSON, WordPiece vocab.txt, GGUF) from at most
 * TC_DETECT_SCAN_BYTES of the file (plus the structural walk of vocab.bin),
 * and names the common files that are not tokenizers from their magic
 * numbers ("a PNG image"), so a refusal can say what the file is.
 * Does not: validate a file (the loaders do, with offsets and JSON paths);
 * a file detected here may still be refused by its loader.
 */
#include <stdio.h>

#include "tokcore.h"
#include "vocabbin.h"

/* A first line (base64 of a 64 KiB token, a merges line) fits in this. */
#define TC_DETECT_SCAN_BYTES ((size_t)1 << 18)
/* A SentencePiece model is recognized by this many complete pieces (or all
 * of them, in a smaller file). */
#define TC_DETECT_SPM_PIECES 2

static int is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static int b64ch(uint8_t c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- protobuf (SentencePiece ModelProto) ---------------------------------
 * sentencepiece_model.proto (google/sentencepiece, src/sentencepiece_model.proto):
 * ModelProto { repeated SentencePiece pieces = 1; TrainerSpec trainer_spec = 2;
 * NormalizerSpec normalizer_spec = 3; SelfTestData self_test_data = 4;
 * NormalizerSpec denormalizer_spec = 5; }, SentencePiece { string piece = 1;
 * float score = 2; Type type = 3; }. Serializers write fields in number
 * order, so a model starts with its pieces. */

/* Reads a varint at *p (< n). Returns 0 on success. */
static int pb_varint(const uint8_t *d, size_t n, size_t *p, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= n) return -1;
        uint8_t b = d[(*p)++];
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) { *out = v; return 0; }
    }
    return -1;
}

/* 1 if d[0..n) is one whole SentencePiece message: fields 1 (string),
 * 2 (fixed32 float), 3 (varint), with a piece present. */
static int pb_is_piece(const uint8_t *d, size_t n) {
    size_t p = 0;
    int has_piece = 0;
    while (p < n) {
        uint64_t tag, v;
        if (pb_varint(d, n, &p, &tag) != 0) return 0;
        if (tag == 0x0A) {
            if (pb_varint(d, n, &p, &v) != 0 || v > n - p) return 0;
            p += (size_t)v;
            has_piece = 1;
        } else if (tag == 0x15) {
            if (n - p < 4) return 0;
            p += 4;
        } else if (tag == 0x18) {
            if (pb_varint(d, n, &p, &v) != 0) return 0;
        } else {
            return 0;
        }
    }
    return has_piece;
}

/* 1 if the bytes read as a ModelProto: top-level fields 1..5, all
 * length-delimited, the first ones pieces. A last field cut by the scan
 * window is accepted once enough pieces were whole. */
static int looks_spm(const uint8_t *d, size_t n) {
    size_t p = 0;
    int pieces = 0;
    while (p < n) {
        uint64_t tag, len;
        if (pb_varint(d, n, &p, &tag) != 0) return pieces >= TC_DETECT_SPM_PIECES;
        if ((tag & 7) != 2 || tag >> 3 < 1 || tag >> 3 > 5) return 0;
        if (pb_varint(d, n, &p, &len) != 0) return pieces >= TC_DETECT_SPM_PIECES;
        if (len > n - p) return pieces >= TC_DETECT_SPM_PIECES;
        if (tag >> 3 == 1) {
            if (!pb_is_piece(d + p, (size_t)len)) return 0;
            pieces++;
        } else if (pieces == 0) {
            return 0;   /* a model without pieces is no tokenizer */
        }
        p += (size_t)len;
    }
    return pieces >= 1;
}

/* ---- JSON objects: the top-level keys in the scan window ------------------ */

typedef struct json_keys {
    int tekken, hf, hf_config, model_config, first_value_number, any;
} json_keys;

static int key_is(const uint8_t *k, size_t kl, const char *s) { return strlen(s) == kl && memcmp(k, s, kl) == 0; }

static void note_key(json_keys *K, const uint8_t *k, size_t kl) {
    static const char *const hf[] = {"version", "truncation", "padding", "added_tokens", "normalizer",
                                     "pre_tokenizer", "post_processor", "decoder", "model"};
    /* mistral-common 1.13.1, mistral_common/tokens/tokenizers/tekken.py (ModelData): config, vocab,
     * special_tokens, audio, image */
    static const char *const tekken[] = {"config", "vocab", "special_tokens"};
    for (size_t i = 0; i < sizeof hf / sizeof hf[0]; i++) if (key_is(k, kl, hf[i])) K->hf = 1;
    for (size_t i = 0; i < sizeof tekken / sizeof tekken[0]; i++) if (key_is(k, kl, tekken[i])) K->tekken = 1;
    if (key_is(k, kl, "added_tokens_decoder") || key_is(k, kl, "tokenizer_class") ||
        key_is(k, kl, "model_max_length")) K->hf_config = 1;
    if (key_is(k, kl, "architectures") || key_is(k, kl, "model_type") || key_is(k, kl, "hidden_size"))
        K->model_config = 1;
}

/* Walks the top-level object starting at d[i] == '{' as far as the window
 * goes, noting its keys. Tolerant: it only needs to tell formats apart. */
static void scan_keys(const uint8_t *d, size_t n, size_t i, json_keys *K) {
    int depth = 0, expect_key = 0, first = 1;
    while (i < n) {
        uint8_t c = d[i];
        if (c == '"') {
            size_t s = ++i;
            while (i < n && d[i] != '"') i += d[i] == '\\' ? 2 : 1;
            if (i >= n) return;
            if (depth == 1 && expect_key) {
                note_key(K, d + s, i - s);
                K->any = 1;
                size_t k = i + 1;
                while (k < n && (is_ws(d[k]) || d[k] == ':')) k++;
                if (first && k < n && ((d[k] >= '0' && d[k] <= '9') || d[k] == '-')) K->first_value_number = 1;
                first = 0;
                expect_key = 0;
            }
            i++;
            continue;
        }
        if (c == '{' || c == '[') { depth++; if (depth == 1) expect_key = 1; }
        else if (c == '}' || c == ']') { if (--depth <= 0) return; }
        else if (c == ',' && depth == 1) expect_key = 1;
        i++;
    }
}

/* ---- text formats ---------------------------------------------------------- */

/* WordPiece vocab.txt (BERT): one token per line, no spaces, with [UNK] /
 * [CLS] / [SEP] / [PAD] / [MASK] lines or "##" continuation pieces. */
static int looks_wordpiece(const uint8_t *d, size_t n) {
    int marks = 0;
    size_t lines = 0;
    for (size_t s = 0; s < n;) {
        size_t e = s;
        while (e < n && d[e] != '\n') e++;
        size_t l = e;
        if (l > s && d[l - 1] == '\r') l--;
        if (e < n || n < TC_DETECT_SCAN_BYTES) {   /* a whole line */
            if (l == s) { if (e + 1 < n) return 0; }   /* an empty line only at the end */
            for (size_t k = s; k < l; k++) if (d[k] == ' ' || d[k] == '\t' || d[k] == 0) return 0;
            const uint8_t *t = d + s;
            size_t tl = l - s;
            if (key_is(t, tl, "[UNK]") || key_is(t, tl, "[CLS]") || key_is(t, tl, "[SEP]") ||
                key_is(t, tl, "[PAD]") || key_is(t, tl, "[MASK]") || (tl > 2 && t[0] == '#' && t[1] == '#'))
                marks++;
            lines++;
        }
        s = e + 1;
    }
    return lines >= 2 && marks > 0;
}

/* ---- the formats --------------------------------------------------------- */

tc_format tc_detect_format(const uint8_t *d, size_t n) {
    if (n >= 4 && memcmp(d, "GGUF", 4) == 0) return TC_FORMAT_GGUF;
    if (tc_vbin_detect(d, n)) return TC_FORMAT_VOCAB_BIN;
    /* the other formats are recognized by their first bytes: never scan
     * more than TC_DETECT_SCAN_BYTES of a big file */
    if (n > TC_DETECT_SCAN_BYTES) n = TC_DETECT_SCAN_BYTES;
    if (n > 0 && d[0] == 0x0A && looks_spm(d, n)) return TC_FORMAT_SPM_MODEL;
    size_t i = 0;
    if (n >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF) i = 3;
    while (i < n && is_ws(d[i])) i++;
    if (i >= n) return TC_FORMAT_UNKNOWN;
    if (d[i] == '{') {
        /* vocab.json maps strings to integers; tokenizer.json's members hold
         * strings, arrays or objects; Tekken has config/vocab */
        json_keys K;
        memset(&K, 0, sizeof K);
        scan_keys(d, n, i, &K);
        if (K.first_value_number) return TC_FORMAT_VOCAB_JSON;
        if (K.tekken && !K.hf) return TC_FORMAT_TEKKEN;
        if (!K.hf && (K.hf_config || K.model_config)) return TC_FORMAT_UNKNOWN;   /* named by tc_detect_other */
        return TC_FORMAT_HF_JSON;
    }
    if (n - i >= 8 && memcmp(d + i, "#version", 8) == 0) return TC_FORMAT_MERGES_TXT;
    /* tiktoken: first line is base64, one space, digits */
    size_t j = i;
    while (j < n && b64ch(d[j])) j++;
    while (j < n && d[j] == '=') j++;
    if (j > i && j < n && d[j] == ' ') {
        size_t k = j + 1;
        while (k < n && d[k] >= '0' && d[k] <= '9') k++;
        if (k > j + 1 && (k == n || d[k] == '\n' || d[k] == '\r')) return TC_FORMAT_TIKTOKEN;
    }
    if (i == 0 && looks_wordpiece(d, n)) return TC_FORMAT_WORDPIECE_TXT;
    /* merges.txt without header: a first line of two space-separated tokens */
    size_t e = i;
    while (e < n && d[e] != '\n') e++;
    const uint8_t *sp = memchr(d + i, ' ', e - i);
    if (sp && !memchr(sp + 1, ' ', (size_t)(d + e - (sp + 1))) && !memchr(d + i, 0, e - i)) return TC_FORMAT_MERGES_TXT;
    return TC_FORMAT_UNKNOWN;
}

const char *tc_format_name(tc_format f) {
    switch (f) {
    case TC_FORMAT_HF_JSON: return "a tokenizer.json";
    case TC_FORMAT_VOCAB_JSON: return "a vocab.json";
    case TC_FORMAT_MERGES_TXT: return "a merges.txt";
    case TC_FORMAT_TIKTOKEN: return "a tiktoken rank file";
    case TC_FORMAT_VOCAB_BIN: return "a vocab.bin";
    case TC_FORMAT_SPM_MODEL: return "a SentencePiece model";
    case TC_FORMAT_TEKKEN: return "a Mistral Tekken tokenizer";
    case TC_FORMAT_WORDPIECE_TXT: return "a WordPiece vocab.txt";
    case TC_FORMAT_GGUF: return "a GGUF model file";
    case TC_FORMAT_UNKNOWN: break;
    }
    return "an unknown format";
}

/* ---- files that are not tokenizers ------------------------------------------ */

/* The first local file header's name of a ZIP archive (APPNOTE 4.3.7:
 * signature, ..., name length at 26, extra length at 28, name at 30). */
static const char *zip_kind(const uint8_t *d, size_t n) {
    if (n < 30) return "a ZIP archive";
    size_t nl = (size_t)d[26] | (size_t)d[27] << 8;
    if (nl > n - 30) return "a ZIP archive";
    const uint8_t *name = d + 30;
    if (nl >= 4 && memcmp(name + nl - 4, ".npy", 4) == 0) return "a numpy .npz archive";
    /* torch.save (PyTorch >= 1.6): "<archive>/data.pkl", "<archive>/version", ... */
    for (size_t k = 0; k < nl; k++)
        if (name[k] == '/') {
            const uint8_t *t = name + k + 1;
            size_t tl = nl - k - 1;
            if (key_is(t, tl, "data.pkl") || key_is(t, tl, "version") || key_is(t, tl, ".format_version") ||
                key_is(t, tl, "byteorder"))
                return "a PyTorch checkpoint (a ZIP archive)";
            break;
        }
    if (nl == 19 && memcmp(name, "[Content_Types].xml", 19) == 0) return "an Office document (a ZIP archive)";
    return "a ZIP archive";
}

/* 1 if the bytes look like UTF-16 text without a BOM: ASCII with every
 * other byte zero. */
static int looks_utf16(const uint8_t *d, size_t n, int le) {
    if (n < 8) return 0;
    size_t m = n < 64 ? n & ~(size_t)1 : 64;
    for (size_t k = 0; k < m; k += 2) {
        uint8_t ch = le ? d[k] : d[k + 1], z = le ? d[k + 1] : d[k];
        if (z != 0 || ch == 0 || ch >= 0x80) return 0;
    }
    return 1;
}

const char *tc_detect_other(const uint8_t *d, size_t n) {
    if (n == 0) return "an empty file";
    static const struct { const char *magic; size_t len; const char *what; } M[] = {
        {"\x89PNG\r\n\x1a\n", 8, "a PNG image"},
        {"\xFF\xD8\xFF", 3, "a JPEG image"},
        {"GIF87a", 6, "a GIF image"},
        {"GIF89a", 6, "a GIF image"},
        {"%PDF-", 5, "a PDF document"},
        {"\x1F\x8B", 2, "gzip-compressed data (decompress it first)"},
        {"BZh", 3, "bzip2-compressed data (decompress it first)"},
        {"\xFD" "7zXZ\x00", 6, "xz-compressed data (decompress it first)"},
        {"\x28\xB5\x2F\xFD", 4, "zstd-compressed data (decompress it first)"},
        {"7z\xBC\xAF\x27\x1C", 6, "a 7-Zip archive"},
        {"\x7F" "ELF", 4, "an ELF executable or library"},
        {"\x93NUMPY", 6, "a numpy .npy array"},
        {"\xFF\xFE", 2, "UTF-16 text (save it as UTF-8)"},
        {"\xFE\xFF", 2, "UTF-16 text (save it as UTF-8)"},
        {"RIFF", 4, "a RIFF file (audio or image)"},
        {"\x89HDF\r\n\x1a\n", 8, "an HDF5 file (model weights?)"},
    };
    for (size_t k = 0; k < sizeof M / sizeof M[0]; k++)
        if (n >= M[k].len && memcmp(d, M[k].magic, M[k].len) == 0) return M[k].what;
    if (n >= 4 && d[0] == 'P' && d[1] == 'K' && ((d[2] == 3 && d[3] == 4) || (d[2] == 5 && d[3] == 6)))
        return zip_kind(d, n);
    /* PE: "MZ", and e_lfanew (at 0x3C) points to "PE\0\0" */
    if (n >= 64 && d[0] == 'M' && d[1] == 'Z') {
        uint32_t pe = rd32(d + 0x3C);
        if (pe <= n - 4 && memcmp(d + pe, "PE\0\0", 4) == 0) return "a Windows executable or DLL";
    }
    if (n >= 262 && memcmp(d + 257, "ustar", 5) == 0) return "a tar archive";
    /* safetensors: u64 little-endian header size, then the JSON header */
    if (n >= 10 && d[4] == 0 && d[5] == 0 && d[6] == 0 && d[7] == 0 && d[8] == '{' && d[9] == '"' &&
        rd32(d) >= 2)
        return "a safetensors file (model weights)";
    /* pickle protocol 2..5 (torch.save before 1.6, .bin / .pt / .pkl) */
    if (n >= 3 && d[0] == 0x80 && d[1] >= 2 && d[1] <= 5 && memchr("\x95\x8A}]c(XK", d[2], 8)) return "a Python pickle (a PyTorch checkpoint?)";
    if (looks_utf16(d, n, 1) || looks_utf16(d, n, 0)) return "UTF-16 text (save it as UTF-8)";
    size_t lim = n < TC_DETECT_SCAN_BYTES ? n : TC_DETECT_SCAN_BYTES;
    size_t i = 0;
    while (i < lim && is_ws(d[i])) i++;
    if (i == lim) return "a file of only whitespace";
    if (d[i] == '{') {
        json_keys K;
        memset(&K, 0, sizeof K);
        scan_keys(d, lim, i, &K);
        if (!K.hf && K.hf_config) return "a tokenizer_config.json (the settings beside a tokenizer.json)";
        if (!K.hf && K.model_config) return "a model config.json";
    }
    return NULL;
}

/* ---- refusals ------------------------------------------------------------- */

int tc_refuse_unsupported(const char *path, tc_format f, tc_error *err) {
    return tc_error_set(err, TC_ERR_UNSUPPORTED, "%s: %s: not supported yet", path, tc_format_name(f));
}

int tc_refuse_file(const char *path, const uint8_t *d, size_t n, tc_error *err) {
    const char *what = tc_detect_other(d, n);
    if (what) return tc_error_set(err, TC_ERR_FORMAT, "%s: %s, not a tokenizer", path, what);
    size_t lim = n < 4096 ? n : 4096;
    int binary = memchr(d, 0, lim) != NULL;
    if (binary) {
        /* the one binary format without a magic number is vocab.bin: its parser says what does not fit */
        tc_vbin vb;
        tc_error e = {0};
        memset(&vb, 0, sizeof vb);
        if (tc_vbin_parse(d, n, &vb, &e) == TC_OK) {
            tc_vbin_free(&vb);
            return tc_error_set(err, TC_ERR_FORMAT, "%s: not a tokenizer file (binary data of %zu bytes)", path, n);
        }
        return tc_error_set(err, TC_ERR_FORMAT, "%s: not a tokenizer file (binary data; read as a vocab.bin: %s)", path,
                            e.msg);
    }
    return tc_error_set(err, TC_ERR_FORMAT,
                        "%s: not a tokenizer file: none of tokenizer.json, vocab.json, merges.txt, .tiktoken, vocab.bin, "
                        "SentencePiece model, Tekken JSON, WordPiece vocab.txt or GGUF",
                        path);
}
