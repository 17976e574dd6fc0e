/* pymodule.c - the CPython extension `tokinspect._tokcore`.
 *
 * Does: wraps one tc_tokenizer per Python object; loads from a path (the
 * engine maps the file), encodes str or bytes with the GIL released, and
 * returns results as bytes objects holding packed little-endian arrays,
 * which the Python layer views with numpy.frombuffer (one copy in total,
 * none per token).
 * Does not: any policy (format detection by name, tokenizer_config.json,
 * defaults): that is app/tokenizer.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "../src/tokcore.h"
#include "../src/platform.h"
#include "../src/regex.h"
#include "../src/pretok.h"
#include "../src/vocabbin.h"
#include "../src/sampler.h"
#include "../src/logits.h"
#include "../src/wpm.h"

#define MAX_FILE_BYTES ((size_t)2 << 30)

/* An encode's buffers that do not go to Python are kept for the handle's next encodes (take_spare),
 * up to SPARE_SLOTS of them holding at most SPARE_ROOM_TOKENS tokens' room in all (21 bytes a token
 * with offsets: at most ~88 MB), none over SPARE_MAX_TOKENS: a batch's cut pieces (War and Peace cut
 * in 4 pieces, one thread: 52 ms against 36 ms for the same pieces one call each, which reused the
 * spare), the offsets an ids-only encode did not use, a refused encode's. A result's arrays are
 * handed to Python as they are (OwnedBuf): copying them out cost more than the page faults of a
 * fresh block (native/NOTES.md). */
#define SPARE_SLOTS 16
#define SPARE_MAX_TOKENS ((size_t)1 << 21)
#define SPARE_ROOM_TOKENS ((size_t)1 << 22)

typedef struct {
    PyObject_HEAD
    tc_tokenizer *tok;
    tc_encoding spare[SPARE_SLOTS];   /* earlier encodes' buffers (n unused), spare[0..nspare) */
    unsigned nspare;
    size_t spare_room;                /* the sum of their rooms (spare_tokens) */
} TokObject;

static size_t spare_tokens(const tc_encoding *e) { return e->cap > e->off_cap ? e->cap : e->off_cap; }

/* Fills *e with the handle's largest spare, else an empty encoding. Called with the GIL held, as
 * give_spare is: a thread encoding meanwhile finds another spare or none and makes its own. */
static void take_spare(TokObject *self, tc_encoding *e) {
    memset(e, 0, sizeof *e);
    if (!self->nspare) return;
    unsigned best = 0;
    for (unsigned k = 1; k < self->nspare; k++)
        if (spare_tokens(&self->spare[k]) > spare_tokens(&self->spare[best])) best = k;
    *e = self->spare[best];
    self->spare[best] = self->spare[--self->nspare];
    self->spare_room -= spare_tokens(e);
    e->n = 0;
}

/* Keeps e's buffers as a spare while the slots and the room allow; else frees them. GIL held. */
static void give_spare(TokObject *self, tc_encoding *e) {
    size_t room = spare_tokens(e);
    if (room && room <= SPARE_MAX_TOKENS && self->nspare < SPARE_SLOTS
        && self->spare_room + room <= SPARE_ROOM_TOKENS) {
        self->spare[self->nspare++] = *e;
        self->spare_room += room;
    } else {
        tc_encoding_free(e);
    }
    memset(e, 0, sizeof *e);
}

static PyObject *TokError;   /* set at module init; module state is read-only afterwards */

static PyObject *raise_tc(const tc_error *e) {
    if (e->code == TC_ERR_NOMEM) return PyErr_NoMemory();
    if (e->code == TC_ERR_IO) return PyErr_Format(PyExc_OSError, "%s", e->msg);
    return PyErr_Format(TokError, "%s", e->msg);
}

/* The raised error of a batch names the failing text: its `text_index` attribute (the lowest index that
 * failed; tc_encode_batch reports that one whatever order its threads took the texts in). */
static void note_text_index(size_t index) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value) {
        PyObject *i = PyLong_FromSize_t(index);
        if (!i || PyObject_SetAttrString(value, "text_index", i) != 0) PyErr_Clear();   /* the error stands without it */
        Py_XDECREF(i);
    }
    PyErr_Restore(type, value, tb);
}

static void Tok_dealloc(TokObject *self) {
    for (unsigned k = 0; k < self->nspare; k++) tc_encoding_free(&self->spare[k]);
    tc_free(self->tok);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject TokType;

static PyObject *wrap(tc_tokenizer *t) {
    TokObject *o = PyObject_New(TokObject, &TokType);
    if (!o) { tc_free(t); return NULL; }
    o->tok = t;
    memset(o->spare, 0, sizeof o->spare);
    o->nspare = 0;
    o->spare_room = 0;
    return (PyObject *)o;
}

/* load(path, kind, preset, merges_path) */
static PyObject *mod_load(PyObject *mod, PyObject *args) {
    (void)mod;
    const char *path, *kind, *preset_name, *merges = NULL;
    if (!PyArg_ParseTuple(args, "sss|z", &path, &kind, &preset_name, &merges)) return NULL;
    tc_preset preset;
    if (tc_preset_from_name(preset_name, &preset) != 0) return PyErr_Format(PyExc_ValueError, "unknown preset %s", preset_name);
    tc_error err = {0};
    tc_file f, fm;
    memset(&fm, 0, sizeof fm);
    int r;
    Py_BEGIN_ALLOW_THREADS
    memset(&f, 0, sizeof f);
    r = tc_precheck_file(path, MAX_FILE_BYTES, &err);
    if (r == TC_OK) r = tc_file_read(path, MAX_FILE_BYTES, &f, &err);
    if (r == TC_OK && merges) {
        r = tc_file_read(merges, MAX_FILE_BYTES, &fm, &err);
        if (r != TC_OK) tc_file_free(&f);
    }
    Py_END_ALLOW_THREADS
    if (r != TC_OK) return raise_tc(&err);
    tc_tokenizer *t = NULL;
    Py_BEGIN_ALLOW_THREADS
    if (strcmp(kind, "hf") == 0) t = tc_load_hf_json(f.data, f.len, &err);
    else if (strcmp(kind, "tiktoken") == 0) t = tc_load_tiktoken(f.data, f.len, preset, &err);
    else if (strcmp(kind, "vocab_bin") == 0) t = tc_load_vocabbin(f.data, f.len, preset, &err);
    else if (strcmp(kind, "wordpiece_vocab") == 0) t = tc_load_wordpiece_vocab(f.data, f.len, preset, &err);
    else if (strcmp(kind, "tekken") == 0) t = tc_load_tekken(f.data, f.len, &err);
    else if (strcmp(kind, "spm") == 0) t = tc_load_spm_model(f.data, f.len, &err);
    else if (strcmp(kind, "vocab_merges") == 0) {
        if (!merges) tc_error_set(&err, TC_ERR_ARG, "vocab.json needs a merges.txt");
        else t = tc_load_vocab_merges(f.data, f.len, fm.data, fm.len, preset, &err);
    } else tc_error_set(&err, TC_ERR_ARG, "unknown kind %s", kind);
    tc_file_free(&f);
    tc_file_free(&fm);
    Py_END_ALLOW_THREADS
    if (!t) return raise_tc(&err);
    return wrap(t);
}

/* load_hf_cached(data, sha256, cache_path) -> (Handle, hit, new_cache): a
 * tokenizer.json from its bytes, its BPE tables from the cache file at
 * cache_path when that is valid for this file and engine (a missing,
 * unreadable or invalid one is a miss). new_cache: the bytes to store after
 * a miss (None after a hit, or for a model that is not cached). */
static PyObject *mod_load_hf_cached(PyObject *mod, PyObject *args) {
    (void)mod;
    Py_buffer data, key;
    const char *cache_path = NULL;
    if (!PyArg_ParseTuple(args, "y*y*z", &data, &key, &cache_path)) return NULL;
    if (key.len != 32) {
        PyBuffer_Release(&data); PyBuffer_Release(&key);
        return PyErr_Format(PyExc_ValueError, "the key is a sha256 digest (32 bytes), not %zd bytes", key.len);
    }
    tc_error err = {0};
    tc_buf fresh = {0};
    tc_tokenizer *t;
    int hit = 0;
    Py_BEGIN_ALLOW_THREADS
    t = tc_load_hf_json_cached(data.buf, (size_t)data.len, key.buf, cache_path, &hit, &fresh, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    PyBuffer_Release(&key);
    if (!t) { tc_buf_free(&fresh); return raise_tc(&err); }
    PyObject *h = wrap(t);
    if (!h) { tc_buf_free(&fresh); return NULL; }
    PyObject *blob = Py_None;
    Py_INCREF(blob);
    if (fresh.len) {
        Py_DECREF(blob);
        blob = PyBytes_FromStringAndSize((const char *)fresh.data, (Py_ssize_t)fresh.len);
    }
    tc_buf_free(&fresh);
    if (!blob) { Py_DECREF(h); return NULL; }
    return Py_BuildValue("(NON)", h, hit ? Py_True : Py_False, blob);
}

/* load_hf_hit(path, file_len, sha256, cache_path) -> Handle or None: the cache hit alone, the file read
 * only around its cached values (tc_load_hf_json_file_hit); None on anything short of a hit. */
static PyObject *mod_load_hf_hit(PyObject *mod, PyObject *args) {
    (void)mod;
    const char *path, *cache_path;
    unsigned long long file_len;
    Py_buffer key;
    if (!PyArg_ParseTuple(args, "sKy*s", &path, &file_len, &key, &cache_path)) return NULL;
    if (key.len != 32) {
        PyBuffer_Release(&key);
        return PyErr_Format(PyExc_ValueError, "the key is a sha256 digest (32 bytes), not %zd bytes", key.len);
    }
    tc_error err = {0};
    tc_tokenizer *t;
    Py_BEGIN_ALLOW_THREADS
    t = tc_load_hf_json_file_hit(path, (uint64_t)file_len, key.buf, cache_path, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&key);
    if (!t) Py_RETURN_NONE;
    return wrap(t);
}

/* load_gguf(path, parse_special) -> Handle: only the GGUF's header is read */
static PyObject *mod_load_gguf(PyObject *mod, PyObject *args) {
    (void)mod;
    const char *path;
    int parse_special = 1;
    if (!PyArg_ParseTuple(args, "s|p", &path, &parse_special)) return NULL;
    tc_error err = {0};
    tc_tokenizer *t;
    Py_BEGIN_ALLOW_THREADS
    t = tc_load_gguf_file(path, parse_special, &err);
    Py_END_ALLOW_THREADS
    if (!t) return raise_tc(&err);
    return wrap(t);
}

static const char *format_key(tc_format f) {
    switch (f) {
    case TC_FORMAT_HF_JSON: return "hf";
    case TC_FORMAT_VOCAB_JSON: return "vocab_json";
    case TC_FORMAT_MERGES_TXT: return "merges_txt";
    case TC_FORMAT_TIKTOKEN: return "tiktoken";
    case TC_FORMAT_VOCAB_BIN: return "vocab_bin";
    case TC_FORMAT_SPM_MODEL: return "spm_model";
    case TC_FORMAT_TEKKEN: return "tekken";
    case TC_FORMAT_WORDPIECE_TXT: return "wordpiece_txt";
    case TC_FORMAT_GGUF: return "gguf";
    case TC_FORMAT_UNKNOWN: break;
    }
    return "unknown";
}

static PyObject *mod_detect(PyObject *mod, PyObject *args) {
    (void)mod;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "y*", &b)) return NULL;
    tc_format f = tc_detect_format(b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    return PyUnicode_FromString(format_key(f));
}

/* identify(data) -> (kind, what): the detected kind and its name ("a
 * SentencePiece model"), or ("unknown", what the file is or None). */
static PyObject *mod_identify(PyObject *mod, PyObject *args) {
    (void)mod;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "y*", &b)) return NULL;
    tc_format f = tc_detect_format(b.buf, (size_t)b.len);
    const char *what = f == TC_FORMAT_UNKNOWN ? tc_detect_other(b.buf, (size_t)b.len) : tc_format_name(f);
    PyBuffer_Release(&b);
    return Py_BuildValue("(sz)", format_key(f), what);
}

/* refusal(path, data) -> the sentence for a file of no format the engine
 * loads ("<path>: a PNG image, not a tokenizer"). */
static PyObject *mod_refusal(PyObject *mod, PyObject *args) {
    (void)mod;
    const char *path;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "sy*", &path, &b)) return NULL;
    tc_error err = {0};
    tc_refuse_file(path, b.buf, (size_t)b.len, &err);
    PyBuffer_Release(&b);
    return PyUnicode_FromString(err.msg);
}

/* Text argument: str (UTF-8) or bytes-like (raw bytes, may be invalid UTF-8). */
typedef struct { const uint8_t *p; size_t n; Py_buffer buf; int has_buf; } text_arg;

static int get_text(PyObject *o, text_arg *t) {
    t->has_buf = 0;
    if (PyUnicode_Check(o)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(o, &n);
        if (!s) return -1;
        t->p = (const uint8_t *)s; t->n = (size_t)n;
        return 0;
    }
    if (PyObject_GetBuffer(o, &t->buf, PyBUF_SIMPLE) != 0) return -1;
    t->has_buf = 1;
    t->p = t->buf.buf; t->n = (size_t)t->buf.len;
    return 0;
}

static void release_text(text_arg *t) { if (t->has_buf) PyBuffer_Release(&t->buf); }

/* Each item of a PySequence_Fast of texts as a text_arg, its bytes and length, and whether it is a str
 * (a str's UTF-8 is well-formed); *got counts those taken (the caller releases them). -1 on an error. */
static int get_texts(PyObject *fast, Py_ssize_t n, text_arg *ts, const uint8_t **ptrs, size_t *lens,
                     uint8_t *is_str, Py_ssize_t *got) {
    for (; *got < n; (*got)++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, *got);
        if (get_text(item, &ts[*got]) != 0) return -1;
        ptrs[*got] = ts[*got].p;
        lens[*got] = ts[*got].n;
        is_str[*got] = PyUnicode_Check(item) ? 1 : 0;
    }
    return 0;
}


/* A read-only buffer the engine filled, handed to Python without a copy: it owns p (malloc'd) and frees it
 * when the last reference (a numpy view holds one) goes. A batch with offsets copied 21 bytes a token into
 * new bytes objects after its threads were done, with the GIL held: War and Peace on two threads scaled
 * 1.63x against 1.88x without offsets (native/NOTES.md). */
typedef struct {
    PyObject_HEAD
    void *p;
    Py_ssize_t n;
} OwnedBuf;

static void OwnedBuf_dealloc(OwnedBuf *self) {
    free(self->p);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int OwnedBuf_getbuffer(OwnedBuf *self, Py_buffer *view, int flags) {
    return PyBuffer_FillInfo(view, (PyObject *)self, self->p, self->n, 1, flags);
}

static Py_ssize_t OwnedBuf_len(OwnedBuf *self) { return self->n; }

static PyBufferProcs OwnedBuf_as_buffer = {(getbufferproc)OwnedBuf_getbuffer, NULL};
static PySequenceMethods OwnedBuf_as_sequence = {.sq_length = (lenfunc)OwnedBuf_len};

static PyTypeObject OwnedBufType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokinspect._tokcore.Buffer",
    .tp_basicsize = sizeof(OwnedBuf),
    .tp_dealloc = (destructor)OwnedBuf_dealloc,
    .tp_as_buffer = &OwnedBuf_as_buffer,
    .tp_as_sequence = &OwnedBuf_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Bytes an encode wrote, read through the buffer protocol (numpy.frombuffer, memoryview, bytes()).",
};

/* An OwnedBuf of the first n bytes of *pp, which it takes (*pp becomes NULL); the block shrinks to n
 * bytes first when it has more room than that (a large block shrinks in place). NULL (*pp untouched)
 * when out of memory. */
static PyObject *own_buffer(void **pp, size_t n) {
    OwnedBuf *b = PyObject_New(OwnedBuf, &OwnedBufType);
    if (!b) return NULL;
    void *p = *pp;
    if (!p) {
        p = malloc(1);   /* an empty encode's arrays may not exist: a buffer of 0 bytes still needs a pointer */
        if (!p) { Py_DECREF(b); return PyErr_NoMemory(); }
    } else {
        void *q = realloc(p, n ? n : 1);
        if (q) p = q;
    }
    *pp = NULL;
    b->p = p;
    b->n = (Py_ssize_t)n;
    return (PyObject *)b;
}

/* An ids-only encode's ids, taken from e; its special flags share their room (cap) and go too (e keeps
 * its offsets' arrays, which an ids-only encode leaves as they were). */
static PyObject *own_ids(tc_encoding *e) {
    PyObject *ids = own_buffer((void **)&e->ids, e->n * 4);
    if (!e->ids) {
        free(e->special);
        e->special = NULL;
        e->cap = 0;
    }
    return ids;
}

/* An encode's (ids, offsets, char_offsets, special), each array taken from e (e keeps n and none of its
 * arrays: the caller frees it or gives it back as an empty spare). */
static PyObject *encoding_tuple(tc_encoding *e) {
    size_t n = e->n;
    PyObject *ids = own_buffer((void **)&e->ids, n * 4);
    PyObject *off = ids ? own_buffer((void **)&e->offsets, n * 8) : NULL;
    PyObject *co = off ? own_buffer((void **)&e->char_offsets, n * 8) : NULL;
    PyObject *sp = co ? own_buffer((void **)&e->special, n) : NULL;
    e->cap = 0;
    e->off_cap = 0;
    if (!ids || !off || !co || !sp) { Py_XDECREF(ids); Py_XDECREF(off); Py_XDECREF(co); Py_XDECREF(sp); return NULL; }
    return Py_BuildValue("(NNNN)", ids, off, co, sp);
}

static int parse_encoder(const char *name, tc_encoder *enc) {
    if (!name) { *enc = TC_ENC_BPE; return 0; }
    if (tc_encoder_from_name(name, enc) == 0) return 0;
    PyErr_Format(PyExc_ValueError, "unknown encoder %s (bpe, rank, greedy, kestrel-v1 or kestrel-v2)", name);
    return -1;
}

/* prepare(encoder): builds the encoder's index; call before sharing threads */
static PyObject *Tok_prepare(TokObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
    tc_encoder enc;
    if (parse_encoder(name, &enc) != 0) return NULL;
    tc_error err = {0};
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = tc_prepare(self->tok, enc, &err);
    Py_END_ALLOW_THREADS
    if (r != TC_OK) return raise_tc(&err);
    Py_RETURN_NONE;
}

static PyObject *Tok_is_prepared(TokObject *self, PyObject *args) {
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
    tc_encoder enc;
    if (parse_encoder(name, &enc) != 0) return NULL;
    return PyBool_FromLong(tc_is_prepared(self->tok, enc));
}

static PyObject *Tok_merge_table_slot_bytes(TokObject *self, PyObject *noargs) {
    (void)noargs;
    return PyLong_FromLong(tc_merge_table_slot_bytes(self->tok));
}

static PyObject *Tok_encode(TokObject *self, PyObject *args) {
    PyObject *text;
    int add_special = 1;
    const char *encname = NULL;
    if (!PyArg_ParseTuple(args, "O|pz", &text, &add_special, &encname)) return NULL;
    tc_encoder enc;
    if (parse_encoder(encname, &enc) != 0) return NULL;
    text_arg t;
    if (get_text(text, &t) != 0) return NULL;
    tc_encoding e;
    take_spare(self, &e);
    tc_error err = {0};
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = tc_encode_ex(self->tok, t.p, t.n, add_special, enc, &e, NULL, &err);
    Py_END_ALLOW_THREADS
    release_text(&t);
    PyObject *res = r == TC_OK ? encoding_tuple(&e) : raise_tc(&err);
    give_spare(self, &e);
    return res;
}

/* encode_ids(text, add_special, encoder) -> the ids as a read-only buffer of uint32 (no offsets computed) */
static PyObject *Tok_encode_ids(TokObject *self, PyObject *args) {
    PyObject *text;
    int add_special = 1;
    const char *encname = NULL;
    if (!PyArg_ParseTuple(args, "O|pz", &text, &add_special, &encname)) return NULL;
    tc_encoder enc;
    if (parse_encoder(encname, &enc) != 0) return NULL;
    text_arg t;
    if (get_text(text, &t) != 0) return NULL;
    tc_encoding e;
    take_spare(self, &e);
    tc_error err = {0};
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = tc_encode_flags(self->tok, t.p, t.n, add_special, enc, TC_ENCODE_IDS_ONLY, &e, NULL, &err);
    Py_END_ALLOW_THREADS
    release_text(&t);
    PyObject *res = r == TC_OK ? own_ids(&e) : raise_tc(&err);
    give_spare(self, &e);
    return res;
}

/* The ids of a batch: a list of one read-only buffer per text, each the engine's own block (own_ids), as
 * encode_ids gives. They were copied into one bytes object with the GIL held after the threads were
 * done: 10 MB of fresh memory and a copy for the multilingual corpus, with the texts' own arrays
 * written fresh as well. */
static PyObject *batch_ids_list(tc_encoding *es, Py_ssize_t n) {
    PyObject *res = PyList_New(n);
    if (!res) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *ids = own_ids(&es[i]);
        if (!ids) { Py_DECREF(res); return NULL; }
        PyList_SET_ITEM(res, i, ids);
    }
    return res;
}

/* encode_batch(list, add_special, encoder, threads=1, ids_only=False, cut_min=0, cut_per_thread=2): all
 * texts encoded with the GIL released, on `threads` native threads over this handle; with cut_min > 0
 * (the caller found the pipeline local at anchors) long texts are cut at anchors and their pieces shared
 * by the threads (tc_encode_batch_cut). Full: a list of (ids, offsets, char_offsets, special) tuples;
 * ids_only: batch_ids_list. */
static PyObject *Tok_encode_batch(TokObject *self, PyObject *args) {
    PyObject *seq;
    int add_special = 1, ids_only = 0;
    const char *encname = NULL;
    unsigned int threads = 1;
    Py_ssize_t cut_min = 0, cut_per_thread = 2;
    if (!PyArg_ParseTuple(args, "O|pzIpnn", &seq, &add_special, &encname, &threads, &ids_only, &cut_min,
                          &cut_per_thread)) return NULL;
    if (cut_min < 0 || cut_per_thread < 1) return PyErr_Format(PyExc_ValueError, "cut_min >= 0 and cut_per_thread >= 1");
    tc_encoder enc;
    if (parse_encoder(encname, &enc) != 0) return NULL;
    PyObject *fast = PySequence_Fast(seq, "encode_batch expects a sequence of str or bytes");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    text_arg *ts = PyMem_Calloc((size_t)(n ? n : 1), sizeof *ts);
    tc_encoding *es = PyMem_Calloc((size_t)(n ? n : 1), sizeof *es);
    const uint8_t **ptrs = PyMem_Calloc((size_t)(n ? n : 1), sizeof *ptrs);
    size_t *lens = PyMem_Calloc((size_t)(n ? n : 1), sizeof *lens);
    uint8_t *is_str = PyMem_Calloc((size_t)(n ? n : 1), 1);   /* a str's UTF-8 is well-formed */
    tc_cut_piece *ps = NULL;
    size_t np = 0, nscratch = 0;
    tc_encoding *scratch = NULL;
    PyObject *res = NULL;
    Py_ssize_t got = 0;
    if (!ts || !es || !ptrs || !lens || !is_str) { PyErr_NoMemory(); goto out; }
    for (Py_ssize_t i = 0; i < n && self->nspare; i++) take_spare(self, &es[i]);
    if (get_texts(fast, n, ts, ptrs, lens, is_str, &got) != 0) goto out;
    tc_error err = {0};
    size_t failed = 0;
    int r = TC_OK;
    Py_BEGIN_ALLOW_THREADS
    if (tc_cut_plan(ptrs, lens, is_str, (size_t)n, threads, (size_t)cut_min, (size_t)cut_per_thread, &ps, &np) != 0)
        r = tc_error_set(&err, TC_ERR_NOMEM, "encode_batch: out of memory");
    Py_END_ALLOW_THREADS
    if (r != TC_OK) { raise_tc(&err); goto out; }
    /* the pieces after each text's first and the tails get the handle's spares too (fresh ones were
     * page-faulted in on every call: War and Peace with offsets on two threads, 17 ms against 13) */
    nscratch = tc_cut_scratch(ps, np);
    if (nscratch) {
        scratch = PyMem_Calloc(nscratch, sizeof *scratch);
        if (!scratch) { nscratch = 0; PyErr_NoMemory(); goto out; }
        for (size_t k = 0; k < nscratch && self->nspare; k++) take_spare(self, &scratch[k]);
    }
    Py_BEGIN_ALLOW_THREADS
    r = tc_encode_batch_cut(self->tok, ptrs, lens, (size_t)n, ps, np, add_special, enc,
                            ids_only ? TC_ENCODE_IDS_ONLY : 0u, threads, es, scratch, nscratch, &failed, &err);
    Py_END_ALLOW_THREADS
    if (r != TC_OK) { raise_tc(&err); note_text_index(failed); goto out; }
    if (ids_only) { res = batch_ids_list(es, n); goto out; }
    res = PyList_New(n);
    if (!res) goto out;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *tup = encoding_tuple(&es[i]);
        if (!tup) { Py_CLEAR(res); goto out; }
        PyList_SET_ITEM(res, i, tup);
    }
out:
    if (ts) for (Py_ssize_t i = 0; i < got; i++) release_text(&ts[i]);
    if (es) for (Py_ssize_t i = 0; i < n; i++) give_spare(self, &es[i]);
    PyMem_Free(ts);
    PyMem_Free(es);
    PyMem_Free(ptrs);
    PyMem_Free(lens);
    PyMem_Free(is_str);
    for (size_t k = 0; k < nscratch; k++) give_spare(self, &scratch[k]);
    PyMem_Free(scratch);
    free(ps);
    Py_DECREF(fast);
    return res;
}

/* cut_pieces(texts, threads, cut_min, cut_per_thread) -> how many pieces encode_batch would encode with
 * these arguments (0: no text is cut): tc_cut_plan, for tests and the benchmark's report. */
static PyObject *mod_cut_pieces(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *seq;
    unsigned int threads;
    Py_ssize_t cut_min, cut_per_thread;
    if (!PyArg_ParseTuple(args, "OInn", &seq, &threads, &cut_min, &cut_per_thread)) return NULL;
    if (cut_min < 0 || cut_per_thread < 1) return PyErr_Format(PyExc_ValueError, "cut_min >= 0 and cut_per_thread >= 1");
    PyObject *fast = PySequence_Fast(seq, "cut_pieces expects a sequence of str or bytes");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    text_arg *ts = PyMem_Calloc((size_t)(n ? n : 1), sizeof *ts);
    const uint8_t **ptrs = PyMem_Calloc((size_t)(n ? n : 1), sizeof *ptrs);
    size_t *lens = PyMem_Calloc((size_t)(n ? n : 1), sizeof *lens);
    uint8_t *is_str = PyMem_Calloc((size_t)(n ? n : 1), 1);
    PyObject *res = NULL;
    Py_ssize_t got = 0;
    if (!ts || !ptrs || !lens || !is_str) { PyErr_NoMemory(); goto out; }
    if (get_texts(fast, n, ts, ptrs, lens, is_str, &got) != 0) goto out;
    tc_cut_piece *ps = NULL;
    size_t np = 0;
    if (tc_cut_plan(ptrs, lens, is_str, (size_t)n, threads, (size_t)cut_min, (size_t)cut_per_thread, &ps, &np) != 0) {
        PyErr_NoMemory();
        goto out;
    }
    free(ps);
    res = PyLong_FromSize_t(np);
out:
    for (Py_ssize_t i = 0; i < got; i++) release_text(&ts[i]);
    PyMem_Free(ts);
    PyMem_Free(ptrs);
    PyMem_Free(lens);
    PyMem_Free(is_str);
    Py_DECREF(fast);
    return res;
}

static PyObject *Tok_trace(TokObject *self, PyObject *args) {
    PyObject *text;
    int add_special = 1;
    const char *encname = NULL;
    if (!PyArg_ParseTuple(args, "O|pz", &text, &add_special, &encname)) return NULL;
    tc_encoder enc;
    if (parse_encoder(encname, &enc) != 0) return NULL;
    text_arg t;
    if (get_text(text, &t) != 0) return NULL;
    tc_encoding e;
    tc_trace tr;
    memset(&e, 0, sizeof e);
    memset(&tr, 0, sizeof tr);
    tc_error err = {0};
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = tc_encode_ex(self->tok, t.p, t.n, add_special, enc, &e, &tr, &err);
    Py_END_ALLOW_THREADS
    release_text(&t);
    if (r != TC_OK) { tc_encoding_free(&e); tc_trace_free(&tr); return raise_tc(&err); }
    PyObject *encobj = encoding_tuple(&e);
    PyObject *chunks = PyList_New((Py_ssize_t)tr.nchunks);
    if (!encobj || !chunks) { Py_XDECREF(encobj); Py_XDECREF(chunks); tc_encoding_free(&e); tc_trace_free(&tr); return NULL; }
    for (size_t i = 0; i < tr.nchunks; i++) {
        const tc_trace_chunk *c = &tr.chunks[i];
        PyObject *d = Py_BuildValue("{s:I,s:I,s:I,s:I,s:L,s:I,s:I,s:I,s:I,s:I,s:I,s:O,s:I,s:I}",
            "norm_start", c->norm_start, "norm_end", c->norm_end, "orig_start", c->orig_start,
            "orig_end", c->orig_end, "added_id", (long long)c->added_id, "sym_first", c->sym_first,
            "sym_count", c->sym_count, "step_first", c->step_first, "step_count", c->step_count,
            "tok_first", c->tok_first, "tok_count", c->tok_count, "prefix_space", c->prefix_space ? Py_True : Py_False,
            "lat_first", c->lat_first, "lat_count", c->lat_count);
        if (!d) { Py_DECREF(encobj); Py_DECREF(chunks); tc_encoding_free(&e); tc_trace_free(&tr); return NULL; }
        PyList_SET_ITEM(chunks, (Py_ssize_t)i, d);
    }
    PyObject *res = Py_BuildValue("{s:N,s:y#,s:y#,s:N,s:y#,s:y#,s:O,s:y#,s:y#,s:y#,s:y#,s:n}",
        "encoding", encobj,
        "normalized", (const char *)(tr.normalized.data ? tr.normalized.data : (uint8_t *)""), (Py_ssize_t)tr.normalized.len,
        "norm_align", (const char *)(tr.norm_align ? (void *)tr.norm_align : (void *)""), (Py_ssize_t)(tr.normalized.len * sizeof(tc_span)),
        "chunks", chunks,
        "syms", (const char *)(tr.syms ? (void *)tr.syms : (void *)""), (Py_ssize_t)(tr.nsyms * 4),
        "steps", (const char *)(tr.steps ? (void *)tr.steps : (void *)""), (Py_ssize_t)(tr.nsteps * sizeof(tc_trace_step)),
        "normalized_changed", tr.normalized_changed ? Py_True : Py_False,
        "greedy_steps", (const char *)(tr.gsteps ? (void *)tr.gsteps : (void *)""), (Py_ssize_t)(tr.ngsteps * sizeof(tc_trace_greedy_step)),
        "greedy_cands", (const char *)(tr.gcands ? (void *)tr.gcands : (void *)""), (Py_ssize_t)(tr.ngcands * 4),
        "kestrel_steps", (const char *)(tr.ksteps ? (void *)tr.ksteps : (void *)""), (Py_ssize_t)(tr.nksteps * sizeof(tc_trace_kestrel_step)),
        "lattice", (const char *)(tr.lattice ? (void *)tr.lattice : (void *)""), (Py_ssize_t)(tr.nlattice * sizeof(tc_trace_lattice_node)),
        "lattice_node_size", (Py_ssize_t)sizeof(tc_trace_lattice_node));
    tc_encoding_free(&e);
    tc_trace_free(&tr);
    return res;
}

static PyObject *Tok_decode(TokObject *self, PyObject *args) {
    PyObject *idsobj;
    int skip = 0;
    if (!PyArg_ParseTuple(args, "O|p", &idsobj, &skip)) return NULL;
    PyObject *fast = PySequence_Fast(idsobj, "decode expects a sequence of ints");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    uint32_t *ids = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *ids);
    if (!ids) { Py_DECREF(fast); return PyErr_NoMemory(); }
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) { PyMem_Free(ids); Py_DECREF(fast); return NULL; }
        if (v < 0 || v > 0xFFFFFFFFLL) continue;   /* not an id: skipped like an unknown id */
        ids[k++] = (uint32_t)v;
    }
    Py_DECREF(fast);
    tc_buf out = {0};
    tc_error err = {0};
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = tc_decode(self->tok, ids, (size_t)k, skip, &out, &err);
    Py_END_ALLOW_THREADS
    PyMem_Free(ids);
    if (r != TC_OK) { tc_buf_free(&out); return raise_tc(&err); }
    PyObject *res = PyBytes_FromStringAndSize((const char *)(out.data ? out.data : (uint8_t *)""), (Py_ssize_t)out.len);
    tc_buf_free(&out);
    return res;
}

static PyObject *Tok_id_to_token(TokObject *self, PyObject *args) {
    long long id;
    if (!PyArg_ParseTuple(args, "L", &id)) return NULL;
    if (id < 0 || id > 0xFFFFFFFFLL) Py_RETURN_NONE;
    size_t n;
    const char *s = tc_id_to_token(self->tok, (uint32_t)id, &n);
    if (!s) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "replace");
}

static PyObject *Tok_id_to_bytes(TokObject *self, PyObject *args) {
    long long id;
    if (!PyArg_ParseTuple(args, "L", &id)) return NULL;
    if (id < 0 || id > 0xFFFFFFFFLL) Py_RETURN_NONE;
    size_t n;
    const uint8_t *s = tc_id_to_bytes(self->tok, (uint32_t)id, &n);
    if (!s) Py_RETURN_NONE;
    return PyBytes_FromStringAndSize((const char *)s, (Py_ssize_t)n);
}

/* piece_info(id) -> (score, type) of a SentencePiece .model's piece, or None */
static PyObject *Tok_piece_info(TokObject *self, PyObject *args) {
    long long id;
    if (!PyArg_ParseTuple(args, "L", &id)) return NULL;
    if (id < 0 || id > 0xFFFFFFFFLL) Py_RETURN_NONE;
    float score;
    const char *type = tc_spm_piece_info(self->tok, (uint32_t)id, &score);
    if (!type) Py_RETURN_NONE;
    return Py_BuildValue("(ds)", (double)score, type);
}

static PyObject *Tok_token_to_id(TokObject *self, PyObject *args) {
    const char *s;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "s#", &s, &n)) return NULL;
    int64_t id = tc_token_to_id(self->tok, s, (size_t)n);
    if (id < 0) Py_RETURN_NONE;
    return PyLong_FromLongLong(id);
}

static PyObject *Tok_vocab_size(TokObject *self, PyObject *noargs) {
    (void)noargs;
    return PyLong_FromUnsignedLong(tc_vocab_size(self->tok));
}

static PyObject *Tok_describe(TokObject *self, PyObject *noargs) {
    (void)noargs;
    return PyUnicode_FromString(tc_describe(self->tok));
}

static PyObject *Tok_is_special(TokObject *self, PyObject *args) {
    long long id;
    if (!PyArg_ParseTuple(args, "L", &id)) return NULL;
    if (id < 0 || id > 0xFFFFFFFFLL) Py_RETURN_FALSE;
    return PyBool_FromLong(tc_is_special(self->tok, (uint32_t)id));
}

static PyObject *Tok_added_tokens(TokObject *self, PyObject *noargs) {
    (void)noargs;
    size_t n = tc_added_count(self->tok);
    PyObject *l = PyList_New((Py_ssize_t)n);
    if (!l) return NULL;
    for (size_t i = 0; i < n; i++) {
        const tc_added_token_spec *s = tc_added_at(self->tok, i);
        PyObject *d = Py_BuildValue("{s:I,s:s#,s:O,s:O,s:O,s:O,s:O}", "id", s->id, "content", s->content,
            (Py_ssize_t)s->content_len, "special", s->special ? Py_True : Py_False, "lstrip", s->lstrip ? Py_True : Py_False,
            "rstrip", s->rstrip ? Py_True : Py_False, "single_word", s->single_word ? Py_True : Py_False,
            "normalized", s->normalized ? Py_True : Py_False);
        if (!d) { Py_DECREF(l); return NULL; }
        PyList_SET_ITEM(l, (Py_ssize_t)i, d);
    }
    return l;
}

/* add_tokens([(content, id, special, lstrip, rstrip, single_word, normalized), ...]) */
static PyObject *Tok_add_tokens(TokObject *self, PyObject *args) {
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O", &seq)) return NULL;
    PyObject *fast = PySequence_Fast(seq, "add_tokens expects a sequence of tuples");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    tc_added_token_spec *specs = PyMem_Calloc((size_t)(n ? n : 1), sizeof *specs);
    if (!specs) { Py_DECREF(fast); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *c;
        Py_ssize_t cl;
        unsigned int id;
        int sp, ls, rs, sw, nz;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "s#Ippppp", &c, &cl, &id, &sp, &ls, &rs, &sw, &nz)) {
            PyMem_Free(specs); Py_DECREF(fast); return NULL;
        }
        specs[i].content = c; specs[i].content_len = (size_t)cl; specs[i].id = id;
        specs[i].special = sp; specs[i].lstrip = ls; specs[i].rstrip = rs; specs[i].single_word = sw; specs[i].normalized = nz;
    }
    tc_error err = {0};
    int r = tc_add_tokens(self->tok, specs, (size_t)n, &err);
    PyMem_Free(specs);
    Py_DECREF(fast);
    if (r != TC_OK) return raise_tc(&err);
    Py_RETURN_NONE;
}

/* compile_vocab_bin() -> (bytes, {"total", "changed", "kept", "specials"}) */
static PyObject *Tok_compile_vocab_bin(TokObject *self, PyObject *noargs) {
    (void)noargs;
    tc_buf out = {0};
    tc_vbin_stats st;
    memset(&st, 0, sizeof st);
    tc_error err = {0};
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = tc_vbin_compile(self->tok, &out, &st, &err);
    Py_END_ALLOW_THREADS
    if (r != TC_OK) { tc_buf_free(&out); return raise_tc(&err); }
    PyObject *res = Py_BuildValue("(y#{s:I,s:I,s:I,s:I})", (const char *)(out.data ? out.data : (uint8_t *)""),
                                  (Py_ssize_t)out.len, "total", st.total, "changed", st.changed, "kept", st.kept,
                                  "specials", st.specials);
    tc_buf_free(&out);
    return res;
}

static PyMethodDef Tok_methods[] = {
    {"compile_vocab_bin", (PyCFunction)Tok_compile_vocab_bin, METH_NOARGS, "compile to vocab.bin bytes and statistics"},
    {"encode", (PyCFunction)Tok_encode, METH_VARARGS, "encode(text, add_special_tokens, encoder) -> (ids, offsets, char_offsets, special) as read-only buffers"},
    {"prepare", (PyCFunction)Tok_prepare, METH_VARARGS, "prepare(encoder): build the encoder's index"},
    {"is_prepared", (PyCFunction)Tok_is_prepared, METH_VARARGS, "is_prepared(encoder) -> bool"},
    {"merge_table_slot_bytes", (PyCFunction)Tok_merge_table_slot_bytes, METH_NOARGS, "8 or 16: the merges table an untraced encode reads (0: none)"},
    {"encode_ids", (PyCFunction)Tok_encode_ids, METH_VARARGS, "encode_ids(text, add_special_tokens, encoder) -> ids as a read-only uint32 buffer (no offsets computed)"},
    {"encode_batch", (PyCFunction)Tok_encode_batch, METH_VARARGS, "encode_batch(texts, add_special_tokens, encoder, threads=1, ids_only=False, cut_min=0, cut_per_thread=2) -> list of tuples, or ids_only: (ids uint32 bytes, counts uint64 bytes)"},
    {"trace", (PyCFunction)Tok_trace, METH_VARARGS, "trace(text, add_special_tokens) -> dict"},
    {"decode", (PyCFunction)Tok_decode, METH_VARARGS, "decode(ids, skip_special_tokens) -> bytes"},
    {"id_to_token", (PyCFunction)Tok_id_to_token, METH_VARARGS, "stored token string or None"},
    {"id_to_bytes", (PyCFunction)Tok_id_to_bytes, METH_VARARGS, "real bytes of a token or None"},
    {"piece_info", (PyCFunction)Tok_piece_info, METH_VARARGS, "piece_info(id) -> (score, type) of a SentencePiece .model piece, or None"},
    {"token_to_id", (PyCFunction)Tok_token_to_id, METH_VARARGS, "id of a token string or None"},
    {"vocab_size", (PyCFunction)Tok_vocab_size, METH_NOARGS, "max id + 1"},
    {"describe", (PyCFunction)Tok_describe, METH_NOARGS, "pipeline description as JSON"},
    {"is_special", (PyCFunction)Tok_is_special, METH_VARARGS, "id is a special added token"},
    {"added_tokens", (PyCFunction)Tok_added_tokens, METH_NOARGS, "list of added tokens"},
    {"add_tokens", (PyCFunction)Tok_add_tokens, METH_VARARGS, "add added tokens (before sharing the handle)"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject TokType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokinspect._tokcore.Handle",
    .tp_basicsize = sizeof(TokObject),
    .tp_dealloc = (destructor)Tok_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A loaded tokenizer (native handle).",
    .tp_methods = Tok_methods,
};

/* find_all(pattern, subject: bytes, fast: bool, rust: bool, block: int) -> [(start, end), ...]
 * The matcher's (or the fast scanner's) find_iter; for tests and the GUI.
 * rust: the classes of tiktoken's regex crate (rank files) instead of Onig's.
 * block > 0 (fast only): the scan resumed every `block` matches (tc_fast_find_from), as the
 * encoder's streaming pre-tokenizer runs it. */
static PyObject *mod_find_all(PyObject *mod, PyObject *args) {
    (void)mod;
    const char *pat;
    Py_ssize_t plen;
    Py_buffer b;
    int fast = 0, rust = 0;
    Py_ssize_t block = 0;
    if (!PyArg_ParseTuple(args, "s#y*|ppn", &pat, &plen, &b, &fast, &rust, &block)) return NULL;
    if (block < 0 || (block > 0 && !fast)) {
        PyBuffer_Release(&b);
        return PyErr_Format(PyExc_ValueError, "block: a positive count, with fast=True only");
    }
    size_t *m = NULL, n = 0, cap = 0;
    int r;
    tc_error err = {0};
    if (fast) {
        tc_fastpat fp = tc_fast_detect(pat, (size_t)plen);
        if (fp == TC_FAST_NONE) { PyBuffer_Release(&b); return PyErr_Format(PyExc_ValueError, "no fast scanner for this pattern"); }
        Py_BEGIN_ALLOW_THREADS
        if (block == 0) {
            r = tc_fast_find_all(fp, b.buf, (size_t)b.len, &m, &n, &cap);
        } else {
            r = 0;
            for (size_t pos = 0; r == 0 && pos < (size_t)b.len;)
                r = tc_fast_find_from(fp, b.buf, (size_t)b.len, pos, (size_t)block, &m, &n, &cap, &pos);
        }
        Py_END_ALLOW_THREADS
        n /= 2;
    } else {
        tc_regex *re = tc_regex_compile_flavor(pat, (size_t)plen, rust ? TC_RX_RUST : TC_RX_ONIG, &err);
        if (!re) { PyBuffer_Release(&b); return raise_tc(&err); }
        Py_BEGIN_ALLOW_THREADS
        r = tc_regex_find_all(re, b.buf, (size_t)b.len, &m, &n, &cap);
        Py_END_ALLOW_THREADS
        tc_regex_free(re);
    }
    PyBuffer_Release(&b);
    if (r == -2) { free(m); return PyErr_Format(TokError, "regex step limit exceeded"); }
    if (r != 0) { free(m); return PyErr_NoMemory(); }
    PyObject *l = PyList_New((Py_ssize_t)n);
    if (!l) { free(m); return NULL; }
    for (size_t i = 0; i < n; i++) {
        PyObject *t = Py_BuildValue("(nn)", (Py_ssize_t)m[2 * i], (Py_ssize_t)m[2 * i + 1]);
        if (!t) { free(m); Py_DECREF(l); return NULL; }
        PyList_SET_ITEM(l, (Py_ssize_t)i, t);
    }
    free(m);
    return l;
}

/* unicode_script(cp) -> the script name of HF's UnicodeScripts table ("Any" if unlisted) */
static PyObject *mod_unicode_script(PyObject *mod, PyObject *args) {
    (void)mod;
    unsigned long cp;
    if (!PyArg_ParseTuple(args, "k", &cp)) return NULL;
    if (cp > 0x10FFFFul) return PyErr_Format(PyExc_ValueError, "not a code point: %lu", cp);
    return PyUnicode_FromString(tc_unicode_script_name(tc_unicode_script((uint32_t)cp)));
}

/* llama_unicode_tables() -> (flags, lower, nfd): llama.cpp's code point tables as the WPM encoder
 * reads them (wpm.h), each a bytes object of 0x110000 native uint32 values (for tests) */
static PyObject *mod_llama_unicode_tables(PyObject *mod, PyObject *args) {
    (void)mod; (void)args;
    PyObject *out[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
        out[k] = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)0x110000 * 4);
        if (!out[k]) { Py_XDECREF(out[0]); Py_XDECREF(out[1]); return NULL; }
        uint32_t *v = (uint32_t *)PyBytes_AS_STRING(out[k]);
        for (uint32_t cp = 0; cp < 0x110000; cp++)
            v[cp] = k == 0 ? tc_llama_cpt_flags(cp) : k == 1 ? tc_llama_tolower(cp) : tc_llama_nfd(cp);
    }
    return Py_BuildValue("(NNN)", out[0], out[1], out[2]);
}

/* vocab_bin_audit(data: bytes) -> JSON text; raises on a malformed file */
static PyObject *mod_vbin_audit(PyObject *mod, PyObject *args) {
    (void)mod;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "y*", &b)) return NULL;
    tc_vbin v;
    memset(&v, 0, sizeof v);
    tc_error err = {0};
    tc_buf out = {0};
    int r;
    Py_BEGIN_ALLOW_THREADS
    r = tc_vbin_parse(b.buf, (size_t)b.len, &v, &err);
    if (r == TC_OK) {
        r = tc_vbin_audit(&v, &out);
        if (r != TC_OK) tc_error_set(&err, r, "audit: out of memory");
    }
    tc_vbin_free(&v);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&b);
    if (r != TC_OK) { tc_buf_free(&out); return raise_tc(&err); }
    PyObject *res = PyUnicode_DecodeUTF8((const char *)(out.data ? out.data : (uint8_t *)""), (Py_ssize_t)out.len, "replace");
    tc_buf_free(&out);
    return res;
}

/* vocab_bin_entries(data: bytes) -> list of stored bytes by id (for comparisons) */
static PyObject *mod_vbin_entries(PyObject *mod, PyObject *args) {
    (void)mod;
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "y*", &b)) return NULL;
    tc_vbin v;
    memset(&v, 0, sizeof v);
    tc_error err = {0};
    if (tc_vbin_parse(b.buf, (size_t)b.len, &v, &err) != TC_OK) { PyBuffer_Release(&b); return raise_tc(&err); }
    PyObject *l = PyList_New((Py_ssize_t)v.n);
    for (uint32_t i = 0; l && i < v.n; i++) {
        PyObject *x = PyBytes_FromStringAndSize((const char *)v.data + v.by_id[i].off, v.by_id[i].len);
        if (!x) { Py_CLEAR(l); break; }
        PyList_SET_ITEM(l, (Py_ssize_t)i, x);
    }
    PyObject *res = l ? Py_BuildValue("(Nn)", l, (Py_ssize_t)v.trailing) : NULL;
    tc_vbin_free(&v);
    PyBuffer_Release(&b);
    return res;
}

/* ---- sampler and logits files ------------------------------------------------ */

/* "a,b,c" names -> indexes by `lookup`; returns the count or -1 */
static int split_names(const char *s, int (*lookup)(const char *, int *), int *out, int max) {
    char buf[256];
    int n = 0;
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    for (char *tok = buf; tok && *tok;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = 0;
        if (n == max || lookup(tok, &out[n]) != 0) return -1;
        n++;
        tok = comma ? comma + 1 : NULL;
    }
    return n;
}

static int stage_lookup(const char *name, int *out) {
    tc_stage_kind k;
    if (tc_stage_from_name(name, &k) != 0) return -1;
    *out = (int)k;
    return 0;
}

/* "stage=engine" -> stage * 16 + semantics */
static int sem_lookup(const char *name, int *out) {
    const char *eq = strchr(name, '=');
    char st[32];
    tc_stage_kind k;
    tc_semantics sem;
    if (!eq || (size_t)(eq - name) >= sizeof st) return -1;
    memcpy(st, name, (size_t)(eq - name));
    st[eq - name] = 0;
    if (tc_stage_from_name(st, &k) != 0 || tc_semantics_from_name(eq + 1, &sem) != 0) return -1;
    *out = (int)k * 16 + (int)sem;
    return 0;
}

/* A sampler workspace held by a Python object (a capsule): `busy` is set and
 * cleared with the GIL held, so a second thread reaching the same workspace
 * while a run holds it (the GIL released) takes a workspace of its own. */
typedef struct py_sws {
    tc_sampler_ws *ws;
    int busy;
} py_sws;

#define SWS_NAME "tokinspect.sampler_workspace"

static void sws_destroy(PyObject *cap) {
    py_sws *w = PyCapsule_GetPointer(cap, SWS_NAME);
    if (!w) { PyErr_Clear(); return; }
    tc_sampler_ws_free(w->ws);
    free(w);
}

/* sampler_workspace(n_vocab) -> an opaque workspace for sampler_run */
static PyObject *mod_sampler_workspace(PyObject *mod, PyObject *args) {
    (void)mod;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "n", &n)) return NULL;
    if (n < 1 || n > INT32_MAX) return PyErr_Format(PyExc_ValueError, "n_vocab %zd outside 1..2^31-1", n);
    py_sws *w = calloc(1, sizeof *w);
    if (!w || !(w->ws = tc_sampler_ws_new((uint32_t)n))) { free(w); return PyErr_NoMemory(); }
    PyObject *cap = PyCapsule_New(w, SWS_NAME, sws_destroy);
    if (!cap) { tc_sampler_ws_free(w->ws); free(w); }
    return cap;
}

/* sampler_workspace_bytes(ws) -> bytes the workspace holds */
static PyObject *mod_sampler_workspace_bytes(PyObject *mod, PyObject *arg) {
    (void)mod;
    py_sws *w = PyCapsule_GetPointer(arg, SWS_NAME);
    if (!w) return NULL;
    return PyLong_FromSize_t(tc_sampler_ws_bytes(w->ws));
}

/* out[j] = ids[j] is among s's ids, for m <= 2^20 ids: one pass over s with
 * the ids in a small open-addressed set (power-of-two slots, linear probing) */
static void sstage_member(const tc_sstage *s, const int32_t *ids, uint32_t m, unsigned char *out) {
    if (s->ids_ascending) {   /* a binary search per id (kestrel's stages, the input): no pass over s */
        for (uint32_t j = 0; j < m; j++) {
            uint32_t lo = 0, hi = s->n;
            while (lo < hi) {
                const uint32_t mid = lo + (hi - lo) / 2;
                if (s->ids[mid] < ids[j]) lo = mid + 1;
                else hi = mid;
            }
            out[j] = lo < s->n && s->ids[lo] == ids[j];
        }
        return;
    }
    uint32_t cap = 16;
    while (cap < 2 * m) cap *= 2;
    int32_t *slot = malloc(cap * sizeof *slot);
    uint32_t *pos = malloc(cap * sizeof *pos);
    memset(out, 0, m);
    if (!slot || !pos) {   /* no memory for the set: the plain scan */
        for (uint32_t j = 0; j < m; j++)
            for (uint32_t i = 0; i < s->n && !out[j]; i++) out[j] = s->ids[i] == ids[j];
        free(slot);
        free(pos);
        return;
    }
    for (uint32_t k = 0; k < cap; k++) slot[k] = -1;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t h = ((uint32_t)ids[j] * 2654435761u) & (cap - 1);
        while (slot[h] >= 0 && slot[h] != ids[j]) h = (h + 1) & (cap - 1);
        slot[h] = ids[j];
        pos[h] = j;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t h = ((uint32_t)s->ids[i] * 2654435761u) & (cap - 1);
        while (slot[h] >= 0) {
            if (slot[h] == s->ids[i]) { out[pos[h]] = 1; break; }
            h = (h + 1) & (cap - 1);
        }
    }
    free(slot);
    free(pos);
}

/* sampler_run(logits: float32 buffer, preset, temperature, top_k, top_p, min_p,
 *             seed, order: "a,b", semantics: "stage=engine,..", n_draws
 *             [, chunk, callback, workspace, top_n]) -> dict
 * workspace: from sampler_workspace (None: one for this call). top_n > 0 adds
 * to each stage its top_n candidates by probability (ids, probs bytes) and
 * which of the previous stage's top_n it kept (bytes of 0/1). full_max >= 0:
 * a stage with more candidates than that, other than the last, comes without
 * its ids and probs (empty bytes): a caller that plots the tops does not pay
 * for copying every full-vocabulary stage. */
static PyObject *mod_sampler_run(PyObject *mod, PyObject *args) {
    (void)mod;
    Py_buffer b;
    const char *preset, *order, *semantics;
    float T, tp, mp;
    int top_k;
    unsigned long long seed;
    Py_ssize_t n_draws, chunk = 0, top_n = 0, full_max = -1;
    PyObject *callback = Py_None, *wsobj = Py_None;
    if (!PyArg_ParseTuple(args, "y*sfiffKssn|nOOnn", &b, &preset, &T, &top_k, &tp, &mp, &seed, &order, &semantics,
                          &n_draws, &chunk, &callback, &wsobj, &top_n, &full_max))
        return NULL;
    const int stream = callback != Py_None;
    py_sws *pw = NULL;
    tc_sampler_ws *tmp_ws = NULL, *ws = NULL;
    PyObject *res = NULL;
    if (wsobj != Py_None && !(pw = PyCapsule_GetPointer(wsobj, SWS_NAME))) goto out;
    if (top_n < 0 || top_n > 1 << 20) { PyErr_Format(PyExc_ValueError, "top_n %zd out of range", top_n); goto out; }
    tc_sampler_params p;
    memset(&p, 0, sizeof p);
    p.temperature = T; p.top_k = top_k; p.top_p = tp; p.min_p = mp; p.seed = seed;
    for (int i = 0; i < 4; i++) p.semantics[i] = TC_SEM_LLAMA;
    int idx[4];
    if (b.len % 4 != 0 || b.len == 0 || b.len / 4 > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "logits: need 1..2^31-1 float32 values (%zd bytes)", b.len);
        goto out;
    }
    if (n_draws < 0 || (!stream && n_draws > 100000000) || (unsigned long long)n_draws > UINT32_MAX) {
        PyErr_Format(PyExc_ValueError, "n_draws %zd out of range", n_draws);
        goto out;
    }
    if (stream && (!PyCallable_Check(callback) || chunk <= 0 || chunk > (1 << 24))) {
        PyErr_SetString(PyExc_ValueError, "streaming draws need a callable and a chunk of 1..2^24 draws");
        goto out;
    }
    if (tc_sampler_preset_from_name(preset, &p.preset) != 0) { PyErr_Format(PyExc_ValueError, "unknown preset %s", preset); goto out; }
    int no = split_names(order, stage_lookup, idx, 4);
    if (no < 0) { PyErr_Format(PyExc_ValueError, "bad stage order %s", order); goto out; }
    p.n_order = no;
    for (int i = 0; i < no; i++) p.order[i] = (tc_stage_kind)idx[i];
    int ns = split_names(semantics, sem_lookup, idx, 4);
    if (ns < 0) { PyErr_Format(PyExc_ValueError, "bad semantics %s", semantics); goto out; }
    for (int i = 0; i < ns; i++) p.semantics[idx[i] / 16] = (tc_semantics)(idx[i] % 16);
    tc_sresult r;
    tc_error err = {0};
    tc_draw_state st;
    /* streaming: one RNG, chunk draws at a time handed to callback(bytes), never all of them at once */
    const Py_ssize_t held = stream ? (chunk < n_draws ? chunk : n_draws) : n_draws;
    int32_t *draws = malloc((size_t)(held ? held : 1) * sizeof *draws);
    if (!draws) { PyErr_NoMemory(); goto out; }
    if (pw && !pw->busy) { ws = pw->ws; pw->busy = 1; }
    else if (!(ws = tmp_ws = tc_sampler_ws_new((uint32_t)(b.len / 4)))) { free(draws); PyErr_NoMemory(); goto out; }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = tc_sampler_run_ws(ws, (const float *)b.buf, (uint32_t)(b.len / 4), &p, &r, &err);
    if (rc == TC_OK && !stream) rc = tc_sampler_draw(&r, &p, (uint32_t)n_draws, draws, &st, &err);
    Py_END_ALLOW_THREADS
    if (rc == TC_OK && stream) {
        tc_draw_rng g;
        rc = tc_draw_rng_init(&g, &r, &p, &err);
        if (rc == TC_OK) {
            tc_draw_rng_text(&g, st.before, sizeof st.before);
            for (Py_ssize_t done = 0; done < n_draws;) {
                const Py_ssize_t k = n_draws - done < chunk ? n_draws - done : chunk;
                Py_BEGIN_ALLOW_THREADS
                tc_draw_next(&r, &g, (uint32_t)k, draws);
                Py_END_ALLOW_THREADS
                PyObject *piece = PyBytes_FromStringAndSize((const char *)draws, k * (Py_ssize_t)sizeof *draws);
                PyObject *ret = piece ? PyObject_CallOneArg(callback, piece) : NULL;
                Py_XDECREF(piece);
                if (!ret) { tc_draw_rng_free(&g); tc_sresult_free(&r); free(draws); goto out; }
                Py_DECREF(ret);
                done += k;
            }
            tc_draw_rng_text(&g, st.after, sizeof st.after);
            tc_draw_rng_free(&g);
        }
    }
    if (rc != TC_OK) {
        if (rc == TC_ERR_NOMEM) PyErr_NoMemory();
        else PyErr_Format(PyExc_ValueError, "%s", err.msg);
        tc_sresult_free(&r);
        free(draws);
        goto out;
    }
    PyObject *stages = PyList_New(r.n_stages);
    int32_t *top_ids = top_n ? malloc((size_t)top_n * sizeof *top_ids) : NULL;
    double *top_p = top_n ? malloc((size_t)top_n * sizeof *top_p) : NULL;
    if (top_n && (!top_ids || !top_p)) { Py_CLEAR(stages); PyErr_NoMemory(); }
    unsigned char *kept = top_n ? malloc((size_t)top_n) : NULL;
    int32_t *prev_top = top_n ? malloc((size_t)top_n * sizeof *prev_top) : NULL;
    uint32_t prev_m = 0;
    if (top_n && (!kept || !prev_top)) { Py_CLEAR(stages); PyErr_NoMemory(); }
    for (int i = 0; stages && i < r.n_stages; i++) {
        const tc_sstage *g = &r.stages[i];
        const Py_ssize_t nf = full_max >= 0 && (Py_ssize_t)g->n > full_max && i + 1 < r.n_stages ? 0 : (Py_ssize_t)g->n;
        PyObject *t;
        if (top_n) {
            /* which of the previous stage's top ids this stage kept (a stage never adds ids: same count, all) */
            uint32_t nk = i ? prev_m : 0;
            if (i) {
                if (g->n == r.stages[i - 1].n) memset(kept, 1, nk);
                else sstage_member(g, prev_top, nk, kept);
            }
            const uint32_t m = tc_sstage_top(g, (uint32_t)top_n, top_ids, top_p);
            t = Py_BuildValue("(sy#y#ddnsy#y#y#)", g->name, (const char *)g->ids, nf * (Py_ssize_t)sizeof(int32_t),
                              (const char *)g->probs, nf * (Py_ssize_t)sizeof(double), g->kept_mass,
                              g->entropy_bits, (Py_ssize_t)g->n, g->cutoff, (const char *)top_ids,
                              (Py_ssize_t)(m * sizeof(int32_t)), (const char *)top_p, (Py_ssize_t)(m * sizeof(double)),
                              (const char *)kept, (Py_ssize_t)nk);
            memcpy(prev_top, top_ids, m * sizeof *top_ids);
            prev_m = m;
        } else {
            t = Py_BuildValue("(sy#y#ddns)", g->name, (const char *)g->ids, (Py_ssize_t)(g->n * sizeof(int32_t)),
                              (const char *)g->probs, (Py_ssize_t)(g->n * sizeof(double)), g->kept_mass,
                              g->entropy_bits, (Py_ssize_t)g->n, g->cutoff);
        }
        if (!t) { Py_CLEAR(stages); break; }
        PyList_SET_ITEM(stages, i, t);
    }
    if (stages)
        res = Py_BuildValue("{s:s,s:N,s:O,s:s,s:y#,s:s,s:s}", "preset", tc_sampler_preset_name(r.preset), "stages", stages,
                            "greedy", r.greedy ? Py_True : Py_False, "notes", r.notes, "draws", (const char *)draws,
                            stream ? (Py_ssize_t)0 : (Py_ssize_t)(n_draws * (Py_ssize_t)sizeof(int32_t)), "rng_before", st.before, "rng_after", st.after);
    free(top_ids);
    free(top_p);
    free(kept);
    free(prev_top);
    tc_sresult_free(&r);
    free(draws);
out:
    if (ws && ws != tmp_ws) pw->busy = 0;
    tc_sampler_ws_free(tmp_ws);
    PyBuffer_Release(&b);
    return res;
}

/* sampler_repeat(logits, preset, T, top_k, top_p, min_p, seed, order, semantics, runs, workspace) -> None:
 * the sampler `runs` times on one workspace with the GIL released and no Python
 * result built: what a run costs in C (bench/sampler.py times the call) */
static PyObject *mod_sampler_repeat(PyObject *mod, PyObject *args) {
    (void)mod;
    Py_buffer b;
    const char *preset, *order, *semantics;
    float T, tp, mp;
    int top_k;
    unsigned long long seed;
    Py_ssize_t runs;
    PyObject *wsobj;
    if (!PyArg_ParseTuple(args, "y*sfiffKssnO", &b, &preset, &T, &top_k, &tp, &mp, &seed, &order, &semantics, &runs,
                          &wsobj))
        return NULL;
    PyObject *res = NULL;
    py_sws *pw = PyCapsule_GetPointer(wsobj, SWS_NAME);
    tc_sampler_params p;
    memset(&p, 0, sizeof p);
    p.temperature = T; p.top_k = top_k; p.top_p = tp; p.min_p = mp; p.seed = seed;
    for (int i = 0; i < 4; i++) p.semantics[i] = TC_SEM_LLAMA;
    int idx[4];
    if (!pw) goto out;
    if (pw->busy) { PyErr_SetString(PyExc_ValueError, "the workspace is in use by another run"); goto out; }
    if (b.len % 4 != 0 || b.len == 0 || b.len / 4 > INT32_MAX || runs < 0) {
        PyErr_SetString(PyExc_ValueError, "need 1..2^31-1 float32 logits and runs >= 0");
        goto out;
    }
    if (tc_sampler_preset_from_name(preset, &p.preset) != 0) { PyErr_Format(PyExc_ValueError, "unknown preset %s", preset); goto out; }
    int no = split_names(order, stage_lookup, idx, 4);
    if (no < 0) { PyErr_Format(PyExc_ValueError, "bad stage order %s", order); goto out; }
    p.n_order = no;
    for (int i = 0; i < no; i++) p.order[i] = (tc_stage_kind)idx[i];
    int ns = split_names(semantics, sem_lookup, idx, 4);
    if (ns < 0) { PyErr_Format(PyExc_ValueError, "bad semantics %s", semantics); goto out; }
    for (int i = 0; i < ns; i++) p.semantics[idx[i] / 16] = (tc_semantics)(idx[i] % 16);
    tc_error err = {0};
    int rc = TC_OK;
    pw->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < runs && rc == TC_OK; i++) {
        tc_sresult r;
        rc = tc_sampler_run_ws(pw->ws, (const float *)b.buf, (uint32_t)(b.len / 4), &p, &r, &err);
        tc_sresult_free(&r);
    }
    Py_END_ALLOW_THREADS
    pw->busy = 0;
    if (rc != TC_OK) { PyErr_Format(PyExc_ValueError, "%s", err.msg); goto out; }
    res = Py_None;
    Py_INCREF(res);
out:
    PyBuffer_Release(&b);
    return res;
}

/* rng_outputs(kind, seed, n) -> list: "xorshift64*" (u64 outputs), "xorshift64*-f32"
 * (ds4 floats), "mt19937" (u32), "canonical" (doubles), "glibc" (rand()) */
static PyObject *mod_rng_outputs(PyObject *mod, PyObject *args) {
    (void)mod;
    const char *kind;
    unsigned long long seed;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "sKn", &kind, &seed, &n)) return NULL;
    if (n < 0 || n > 10000000) return PyErr_Format(PyExc_ValueError, "n out of range");
    PyObject *l = PyList_New(n);
    if (!l) return NULL;
    uint64_t x = seed;
    tc_mt19937 *mt = malloc(sizeof *mt);
    tc_glibc_rand g;
    if (!mt) { Py_DECREF(l); return PyErr_NoMemory(); }
    tc_mt19937_seed(mt, (uint32_t)seed);
    tc_glibc_srand(&g, (uint32_t)seed);
    int k = strcmp(kind, "xorshift64*") == 0 ? 0 : strcmp(kind, "xorshift64*-f32") == 0 ? 1 : strcmp(kind, "mt19937") == 0 ? 2
          : strcmp(kind, "canonical") == 0 ? 3 : strcmp(kind, "glibc") == 0 ? 4 : -1;
    if (k < 0) { free(mt); Py_DECREF(l); return PyErr_Format(PyExc_ValueError, "unknown rng %s", kind); }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v;
        switch (k) {
        case 0: v = PyLong_FromUnsignedLongLong(tc_xorshift64s_next(&x)); break;
        case 1: v = PyFloat_FromDouble(tc_xorshift64s_f32(&x)); break;
        case 2: v = PyLong_FromUnsignedLong(tc_mt19937_next(mt)); break;
        case 3: v = PyFloat_FromDouble(tc_mt19937_canonical(mt)); break;
        default: v = PyLong_FromLong(tc_glibc_rand_next(&g)); break;
        }
        if (!v) { free(mt); Py_DECREF(l); return NULL; }
        PyList_SET_ITEM(l, i, v);
    }
    free(mt);
    return l;
}

/* logits_open(path, fmt, vocab) -> (format, dtype, offset, steps, vocab, text_values: bytes | None) */
static PyObject *mod_logits_open(PyObject *mod, PyObject *args) {
    (void)mod;
    const char *path, *fmt_name;
    unsigned long vocab;
    if (!PyArg_ParseTuple(args, "ssk", &path, &fmt_name, &vocab)) return NULL;
    tc_logits_format fmt;
    if (tc_logits_format_from_name(fmt_name, &fmt) != 0) return PyErr_Format(PyExc_ValueError, "unknown logits format %s", fmt_name);
    if (vocab > INT32_MAX) return PyErr_Format(PyExc_ValueError, "vocabulary size %lu too large", vocab);
    tc_file f;
    tc_logits l;
    tc_error err = {0};
    int r;
    memset(&l, 0, sizeof l);
    Py_BEGIN_ALLOW_THREADS
    r = tc_file_open_guarded(path, (size_t)1 << 40, &f, &err);
    if (r == TC_OK) {
        r = tc_logits_open_file(&f, fmt, (uint32_t)vocab, &l, &err);
        if (r != TC_OK) tc_error_prefix(&err, ": "), tc_error_prefix(&err, path);
        tc_file_free(&f);
    }
    Py_END_ALLOW_THREADS
    if (r != TC_OK) { tc_logits_free(&l); return raise_tc(&err); }
    PyObject *text;
    if (l.text_values) text = PyBytes_FromStringAndSize((const char *)l.text_values, (Py_ssize_t)((size_t)l.steps * l.vocab * 4));
    else { text = Py_None; Py_INCREF(text); }
    PyObject *res = text ? Py_BuildValue("(ssnkkN)", tc_logits_format_name(l.format), tc_logits_dtype_name(l.dtype),
                                         (Py_ssize_t)l.offset, (unsigned long)l.steps, (unsigned long)l.vocab, text)
                         : NULL;
    tc_logits_free(&l);
    return res;
}

static PyMethodDef mod_methods[] = {
    {"sampler_workspace", mod_sampler_workspace, METH_VARARGS, "sampler_workspace(n_vocab) -> a workspace for sampler_run (one run at a time)"},
    {"sampler_workspace_bytes", mod_sampler_workspace_bytes, METH_O, "sampler_workspace_bytes(ws) -> bytes it holds"},
    {"sampler_repeat", mod_sampler_repeat, METH_VARARGS, "sampler_repeat(logits, preset, T, top_k, top_p, min_p, seed, order, semantics, runs, workspace): runs in C, no result"},
    {"sampler_run", mod_sampler_run, METH_VARARGS, "sampler_run(logits, preset, T, top_k, top_p, min_p, seed, order, semantics, n_draws[, chunk, callback]) -> dict"},
    {"rng_outputs", mod_rng_outputs, METH_VARARGS, "rng_outputs(kind, seed, n) -> list (for known-answer tests)"},
    {"logits_open", mod_logits_open, METH_VARARGS, "logits_open(path, fmt, vocab) -> (format, dtype, offset, steps, vocab, text)"},
    {"vocab_bin_audit", mod_vbin_audit, METH_VARARGS, "vocab_bin_audit(data) -> JSON text"},
    {"vocab_bin_entries", mod_vbin_entries, METH_VARARGS, "vocab_bin_entries(data) -> (list of stored bytes by id, trailing)"},
    {"llama_unicode_tables", mod_llama_unicode_tables, METH_NOARGS, "llama_unicode_tables() -> (flags, lower, nfd) as uint32 bytes"},
    {"unicode_script", mod_unicode_script, METH_VARARGS, "unicode_script(cp) -> script name in HF's UnicodeScripts table"},
    {"find_all", mod_find_all, METH_VARARGS, "find_all(pattern, subject, fast=False, rust=False, block=0) -> list of (start, end) byte spans"},
    {"load", mod_load, METH_VARARGS, "load(path, kind, preset, merges_path=None) -> Handle"},
    {"cut_pieces", mod_cut_pieces, METH_VARARGS, "cut_pieces(texts, threads, cut_min, cut_per_thread) -> pieces encode_batch would encode (0: none cut)"},
    {"load_hf_cached", mod_load_hf_cached, METH_VARARGS,
     "load_hf_cached(data, sha256, cache_path) -> (Handle, hit, new_cache bytes or None)"},
    {"load_hf_hit", mod_load_hf_hit, METH_VARARGS,
     "load_hf_hit(path, file_len, sha256, cache_path) -> Handle, or None when the cache does not hit"},
    {"load_gguf", mod_load_gguf, METH_VARARGS, "load_gguf(path, parse_special=True) -> Handle"},
    {"detect_format", mod_detect, METH_VARARGS, "detect_format(head: bytes) -> str"},
    {"identify", mod_identify, METH_VARARGS, "identify(head: bytes) -> (kind, what)"},
    {"refusal", mod_refusal, METH_VARARGS, "refusal(path, data: bytes) -> the sentence refusing the file"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_tokcore", "tokcore engine", -1, mod_methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__tokcore(void) {
    if (PyType_Ready(&TokType) < 0 || PyType_Ready(&OwnedBufType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m) return NULL;
    TokError = PyErr_NewException("tokinspect._tokcore.TokenizerError", PyExc_ValueError, NULL);
    if (!TokError || PyModule_AddObject(m, "TokenizerError", TokError) < 0) { Py_XDECREF(TokError); Py_DECREF(m); return NULL; }
    Py_INCREF(TokError);
    if (PyModule_AddStringConstant(m, "VERSION", TC_VERSION) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
