/* regex.c - backtracking regex matcher with Oniguruma semantics (see regex.h).
 *
 * Pipeline: pattern --parse--> node tree (arena) --codegen--> flat program
 * of instructions --analysis--> first-unit filters on SPLITs and at the
 * program start. Matching is a backtracking VM over code points of UTF-8
 * with an explicit stack (small on-stack buffer first, heap after). No C
 * recursion depends on the subject; parser and codegen recursion is bounded
 * by TC_REGEX_MAX_DEPTH.
 *
 * Semantics notes (all checked against Oniguruma through HF tokenizers):
 *  - `^`/`$` are line anchors (Ruby/Onig): ^ at 0 or after a '\n' that is
 *    not the last byte, $ at end or before '\n'. \A start, \z end, \Z end or before a final '\n'.
 *  - `.` is any unit except '\n'.
 *  - Classes use the regex tables of unicode.h (Unicode 16.0, the version
 *    of both Oniguruma in HF tokenizers 0.23.3 and tiktoken's regex crate,
 *    checked on every code point by tests/test_unicode_classes.py):
 *    \s = White_Space, \d = \p{Nd}, \w = UTS #18 word (Alphabetic|M|Nd|Pc)
 *    with each engine's exceptions (tc_rx_flavor: Oniguruma's Latin-1 table
 *    makes U+00B2 U+00B3 U+00B9 U+00BC-BE word; the regex crate adds
 *    Join_Control), \h = [0-9A-Fa-f].
 *  - `(?i)` in the middle of a group applies to the rest of that group,
 *    including later alternatives: a(?i)b|c == a(?i:b|c) (Onig).
 *  - Case-insensitive matching uses simple case folding: literal c matches
 *    u iff fold(c) == fold(u); a bracket class [..] matches u if it holds
 *    any v with fold(v) == fold(u) (so (?i)[\p{Lu}] matches 'a'), then
 *    negation applies; escapes outside brackets (\p{Lu}, \w, ...) are not
 *    folded ((?i)\p{Lu} does not match 'a'), as in Onig. Multi-character
 *    folds (ß vs "ss") are not supported.
 *  - Unbounded loops whose body can match empty stop after an empty
 *    iteration (Onig's empty check), so `(a*)*` terminates.
 */
#include "regex.h"
#include "unicode.h"

#include <stdio.h>

/* ---- limits -------------------------------------------------------------- */

#ifndef TC_REGEX_STEP_LIMIT
#define TC_REGEX_STEP_LIMIT 10000   /* VM steps allowed per subject byte */
#endif
#ifndef TC_REGEX_STEP_BASE
#define TC_REGEX_STEP_BASE 1000000  /* plus this constant per search/find_all */
#endif
#define TC_REGEX_MAX_DEPTH 100        /* group/quantifier nesting */
#define TC_REGEX_MAX_PROG 100000      /* instructions after expansion */
#define TC_REGEX_MAX_REPEAT 100000    /* n in {n} / {n,m} (Onig's limit too) */
#define TC_REGEX_MAX_PATTERN (1u << 20)
#define TC_REGEX_GUARD_PROG_MAX 4000  /* compute SPLIT guards below this size */

#define REP_INF UINT32_MAX
#define NO_FILTER UINT32_MAX

/* ---- classes ------------------------------------------------------------- */

typedef struct rx_range {
    uint32_t lo, hi;
} rx_range;

typedef struct rx_class {
    uint32_t ascii[4];      /* final answer for units < 128 (negation, icase applied) */
    uint32_t gcmask;        /* union of \p items (positive sets of categories) */
    uint32_t na_gcmask;     /* first-unit superset for non-ASCII units */
    uint8_t negate, icase, has_space, has_notspace, na_any;
    uint8_t has_word, has_notword, bracket;
    uint32_t r_off, r_n;    /* ranges into re->ranges (sorted, merged) */
    uint32_t f_off, f_n;    /* icase only: case-equivalents of members */
} rx_class;

/* first-unit filter: a unit u can begin a successful path only if it passes */
typedef struct rx_filter {
    uint32_t ascii[4];
    uint32_t gcmask;
    uint8_t na_any;   /* any non-ASCII unit passes */
    uint8_t all;      /* everything passes, also end of subject */
} rx_filter;

/* ---- program ------------------------------------------------------------- */

enum {
    OP_CHAR, OP_CHARI, OP_ANY, OP_CLASS, /* single-unit matchers, x = arg */
    OP_RUN,       /* greedy repeat of a single-unit matcher: sub = op, x = arg, a = min, b = max */
    OP_SPLIT,     /* try x, then y; a/b = filter index for x/y or NO_FILTER */
    OP_JMP,       /* x */
    OP_SAVEPOS,   /* regs[x] = sp (restored on backtrack) */
    OP_EMPTYCHK,  /* if regs[x] == sp goto y */
    OP_BOL, OP_EOL, OP_BOS, OP_EOS, OP_EOSNL,
    OP_LOOK,      /* lookahead: sub = negative, x = continuation pc; body follows */
    OP_LOOKEND,
    OP_MATCH
};

typedef struct rx_inst {
    uint8_t op, sub;
    uint16_t pad;
    int32_t x, y;
    uint32_t a, b;
} rx_inst;

struct tc_regex {
    rx_inst *prog;
    size_t nprog;
    rx_class *classes;
    size_t nclasses;
    rx_range *ranges;
    size_t nranges;
    rx_filter *filters;
    size_t nfilters;
    uint32_t nregs;
    uint32_t start_filter;  /* NO_FILTER when every position may start a match */
    tc_rx_flavor flavor;    /* whose \w (and future per-engine class differences) */
    int anchored;           /* program begins with \A */
};

/* ---- UTF-8 helpers ------------------------------------------------------- */

static inline uint32_t rx_dec(const uint8_t *s, size_t len, size_t i, int *n) {
    uint8_t c = s[i];
    if (c < 0x80) { *n = 1; return c; }
    return tc_utf8_decode(s, len, i, n);
}

/* Start of the unit that ends at p (p > lo, lo a unit boundary). A valid
 * multi-byte sequence ending at p always starts a unit (its lead byte can
 * not be inside another unit), otherwise the unit is the single byte. */
static inline size_t rx_prev(const uint8_t *s, size_t len, size_t lo, size_t p) {
    if (s[p - 1] < 0x80) return p - 1;
    for (size_t k = 2; k <= 4; k++) {
        if (p < lo + k) break;
        int n;
        uint32_t cp = tc_utf8_decode(s, len, p - k, &n);
        if (cp < TC_CP_INVALID_BASE && (size_t)n == k) return p - k;
    }
    return p - 1;
}

static inline uint32_t rx_fold(uint32_t c) {
    if (c < 128) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    return tc_unicode_fold(c);
}

#define BIT_GET(bm, c) (((bm)[(c) >> 5] >> ((c) & 31)) & 1u)
#define BIT_SET(bm, c) ((bm)[(c) >> 5] |= 1u << ((c) & 31))

#define GCM_ALL ((uint32_t)((1ull << TC_GC_COUNT) - 1))
#define GCM_SPACE (TC_GCM(TC_GC_Zs) | TC_GCM(TC_GC_Zl) | TC_GCM(TC_GC_Zp) | TC_GCM(TC_GC_Cc))
/* categories wholly inside \w (both flavors), and those holding some word
 * code points (Other_Alphabetic symbols So, Onig's Latin-1 No, Join_Control Cf) */
#define GCM_WORD (TC_GCM_L | TC_GCM_M | TC_GCM(TC_GC_Nd) | TC_GCM(TC_GC_Nl) | TC_GCM(TC_GC_Pc))
#define GCM_WORD_SUPER (GCM_WORD | TC_GCM(TC_GC_So) | TC_GCM(TC_GC_No) | TC_GCM(TC_GC_Cf))

static int in_ranges(const rx_range *r, uint32_t n, uint32_t c) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (r[mid].hi < c) lo = mid + 1;
        else if (r[mid].lo > c) hi = mid;
        else return 1;
    }
    return 0;
}

/* class membership before negation and case folding */
static inline int class_raw(const tc_regex *re, const rx_class *k, uint32_t c) {
    if (k->gcmask && ((k->gcmask >> tc_unicode_rx_gc(c)) & 1u)) return 1;
    if (k->has_space || k->has_notspace) {
        int sp = tc_unicode_rx_space(c);
        if (k->has_space && sp) return 1;
        if (k->has_notspace && !sp) return 1;
    }
    if (k->has_word || k->has_notword) {
        int w = tc_unicode_rx_word(c, re->flavor, k->bracket);
        if (k->has_word && w) return 1;
        if (k->has_notword && !w) return 1;
    }
    return k->r_n && in_ranges(re->ranges + k->r_off, k->r_n, c);
}

static int class_full(const tc_regex *re, const rx_class *k, uint32_t c) {
    int in = class_raw(re, k, c);
    if (!in && k->icase) in = in_ranges(re->ranges + k->f_off, k->f_n, c);
    return in ^ k->negate;
}

static inline int class_match(const tc_regex *re, const rx_class *k, uint32_t c) {
    if (c < 128) return (int)BIT_GET(k->ascii, c);
    return class_full(re, k, c);
}

static inline int unit_match(const tc_regex *re, int op, int32_t arg, uint32_t c) {
    switch (op) {
    case OP_CHAR: return c == (uint32_t)arg;
    case OP_CHARI: return rx_fold(c) == (uint32_t)arg;
    case OP_ANY: return c != '\n';
    default: return class_match(re, &re->classes[arg], c);
    }
}

/* ======================================================================== */
/* Parser                                                                   */
/* ======================================================================== */

enum { N_EMPTY, N_CHAR, N_ANY, N_CLASS, N_CAT, N_ALT, N_REPEAT, N_LOOK, N_ASSERT };

typedef struct rx_node {
    uint8_t type, icase, greedy, neg, nullable;
    uint8_t aop;        /* N_ASSERT: OP_BOL.. */
    int32_t child;      /* first child (CAT/ALT/REPEAT/LOOK) */
    int32_t next;       /* next sibling */
    uint32_t cp;        /* N_CHAR: code point; N_CLASS: class index */
    uint32_t min, max;  /* N_REPEAT */
} rx_node;

typedef struct rx_parser {
    const uint8_t *p;
    size_t len, pos;
    tc_error *err;
    tc_regex *re;
    rx_node *nodes;
    size_t nnodes, capnodes;
    size_t capclasses, capranges;
    /* scratch for building one class */
    rx_range *tmp;
    size_t ntmp, captmp;
} rx_parser;

static int perr(rx_parser *ps, int code, size_t at, const char *what) {
    tc_error_set(ps->err, code, "regex: %s at offset %zu", what, at);
    return -1;
}

static int nomem(rx_parser *ps) {
    tc_error_set(ps->err, TC_ERR_NOMEM, "regex: out of memory while compiling");
    return -1;
}

static int32_t new_node(rx_parser *ps, int type) {
    if (tc_grow((void **)&ps->nodes, &ps->capnodes, ps->nnodes + 1, sizeof(rx_node)) != 0) {
        nomem(ps);
        return -1;
    }
    if (ps->nnodes >= (size_t)INT32_MAX / 2) { perr(ps, TC_ERR_LIMIT, ps->pos, "pattern too large"); return -1; }
    rx_node *n = &ps->nodes[ps->nnodes];
    memset(n, 0, sizeof *n);
    n->type = (uint8_t)type;
    n->child = -1;
    n->next = -1;
    n->greedy = 1;
    n->nullable = (type == N_EMPTY || type == N_ASSERT || type == N_LOOK);
    return (int32_t)ps->nnodes++;
}

static int pat_peek(rx_parser *ps) { return ps->pos < ps->len ? ps->p[ps->pos] : -1; }

/* decode one pattern code point (pattern must be valid UTF-8) */
static int pat_cp(rx_parser *ps, uint32_t *cp) {
    int n;
    uint32_t c = tc_utf8_decode(ps->p, ps->len, ps->pos, &n);
    if (c >= TC_CP_INVALID_BASE) return perr(ps, TC_ERR_FORMAT, ps->pos, "invalid UTF-8 in pattern");
    ps->pos += (size_t)n;
    *cp = c;
    return 0;
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* reads exactly `count` hex digits, or {H..} when braces allowed */
static int parse_hex(rx_parser *ps, int count, int braces, uint32_t *out, size_t at) {
    uint32_t v = 0;
    if (braces && pat_peek(ps) == '{') {
        ps->pos++;
        int nd = 0;
        while (pat_peek(ps) >= 0 && hexval(pat_peek(ps)) >= 0) {
            v = v * 16 + (uint32_t)hexval(pat_peek(ps));
            ps->pos++;
            if (++nd > 8 || v > 0x10FFFF) return perr(ps, TC_ERR_FORMAT, at, "code point too large in \\x{...}");
        }
        if (nd == 0 || pat_peek(ps) != '}') return perr(ps, TC_ERR_FORMAT, at, "malformed \\x{...} escape");
        ps->pos++;
    } else {
        int nd = 0;
        while (nd < count && pat_peek(ps) >= 0 && hexval(pat_peek(ps)) >= 0) {
            v = v * 16 + (uint32_t)hexval(pat_peek(ps));
            ps->pos++;
            nd++;
        }
        if (nd == 0 || (count == 4 && nd != 4)) return perr(ps, TC_ERR_FORMAT, at, "malformed hex escape");
    }
    if (v >= 0xD800 && v <= 0xDFFF) return perr(ps, TC_ERR_UNSUPPORTED, at, "surrogate code point in escape");
    *out = v;
    return 0;
}

/* property name -> category mask; 0 when unknown */
static uint32_t prop_mask(const char *name) {
    static const struct { const char *n; uint32_t m; } tab[] = {
        {"l", TC_GCM_L}, {"letter", TC_GCM_L},
        {"lu", TC_GCM(TC_GC_Lu)}, {"uppercaseletter", TC_GCM(TC_GC_Lu)},
        {"ll", TC_GCM(TC_GC_Ll)}, {"lowercaseletter", TC_GCM(TC_GC_Ll)},
        {"lt", TC_GCM(TC_GC_Lt)}, {"titlecaseletter", TC_GCM(TC_GC_Lt)},
        {"lm", TC_GCM(TC_GC_Lm)}, {"modifierletter", TC_GCM(TC_GC_Lm)},
        {"lo", TC_GCM(TC_GC_Lo)}, {"otherletter", TC_GCM(TC_GC_Lo)},
        {"lc", TC_GCM(TC_GC_Lu) | TC_GCM(TC_GC_Ll) | TC_GCM(TC_GC_Lt)},
        {"casedletter", TC_GCM(TC_GC_Lu) | TC_GCM(TC_GC_Ll) | TC_GCM(TC_GC_Lt)},
        {"m", TC_GCM_M}, {"mark", TC_GCM_M}, {"combiningmark", TC_GCM_M},
        {"mn", TC_GCM(TC_GC_Mn)}, {"nonspacingmark", TC_GCM(TC_GC_Mn)},
        {"mc", TC_GCM(TC_GC_Mc)}, {"spacingmark", TC_GCM(TC_GC_Mc)},
        {"me", TC_GCM(TC_GC_Me)}, {"enclosingmark", TC_GCM(TC_GC_Me)},
        {"n", TC_GCM_N}, {"number", TC_GCM_N},
        {"nd", TC_GCM(TC_GC_Nd)}, {"decimalnumber", TC_GCM(TC_GC_Nd)},
        {"nl", TC_GCM(TC_GC_Nl)}, {"letternumber", TC_GCM(TC_GC_Nl)},
        {"no", TC_GCM(TC_GC_No)}, {"othernumber", TC_GCM(TC_GC_No)},
        {"p", TC_GCM_P}, {"punctuation", TC_GCM_P},
        {"pc", TC_GCM(TC_GC_Pc)}, {"connectorpunctuation", TC_GCM(TC_GC_Pc)},
        {"pd", TC_GCM(TC_GC_Pd)}, {"dashpunctuation", TC_GCM(TC_GC_Pd)},
        {"ps", TC_GCM(TC_GC_Ps)}, {"openpunctuation", TC_GCM(TC_GC_Ps)},
        {"pe", TC_GCM(TC_GC_Pe)}, {"closepunctuation", TC_GCM(TC_GC_Pe)},
        {"pi", TC_GCM(TC_GC_Pi)}, {"initialpunctuation", TC_GCM(TC_GC_Pi)},
        {"pf", TC_GCM(TC_GC_Pf)}, {"finalpunctuation", TC_GCM(TC_GC_Pf)},
        {"po", TC_GCM(TC_GC_Po)}, {"otherpunctuation", TC_GCM(TC_GC_Po)},
        {"s", TC_GCM_S}, {"symbol", TC_GCM_S},
        {"sm", TC_GCM(TC_GC_Sm)}, {"mathsymbol", TC_GCM(TC_GC_Sm)},
        {"sc", TC_GCM(TC_GC_Sc)}, {"currencysymbol", TC_GCM(TC_GC_Sc)},
        {"sk", TC_GCM(TC_GC_Sk)}, {"modifiersymbol", TC_GCM(TC_GC_Sk)},
        {"so", TC_GCM(TC_GC_So)}, {"othersymbol", TC_GCM(TC_GC_So)},
        {"z", TC_GCM_Z}, {"separator", TC_GCM_Z},
        {"zs", TC_GCM(TC_GC_Zs)}, {"spaceseparator", TC_GCM(TC_GC_Zs)},
        {"zl", TC_GCM(TC_GC_Zl)}, {"lineseparator", TC_GCM(TC_GC_Zl)},
        {"zp", TC_GCM(TC_GC_Zp)}, {"paragraphseparator", TC_GCM(TC_GC_Zp)},
        {"c", TC_GCM_C}, {"other", TC_GCM_C},
        {"cc", TC_GCM(TC_GC_Cc)}, {"control", TC_GCM(TC_GC_Cc)},
        {"cf", TC_GCM(TC_GC_Cf)}, {"format", TC_GCM(TC_GC_Cf)},
        {"cs", TC_GCM(TC_GC_Cs)}, {"surrogate", TC_GCM(TC_GC_Cs)},
        {"co", TC_GCM(TC_GC_Co)}, {"privateuse", TC_GCM(TC_GC_Co)},
        {"cn", TC_GCM(TC_GC_Cn)}, {"unassigned", TC_GCM(TC_GC_Cn)},
        {"any", GCM_ALL},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(tab[i].n, name) == 0) return tab[i].m;
    return 0;
}

/* after \p or \P: parses {Name} / {^Name}; returns the (negation-applied) mask */
static int parse_prop(rx_parser *ps, int negated, size_t at, uint32_t *mask) {
    if (pat_peek(ps) != '{') return perr(ps, TC_ERR_UNSUPPORTED, at, "\\p without {name} (single-letter form)");
    ps->pos++;
    char name[40];
    size_t nn = 0;
    if (pat_peek(ps) == '^') { negated = !negated; ps->pos++; }
    for (;;) {
        int c = pat_peek(ps);
        if (c < 0) return perr(ps, TC_ERR_FORMAT, at, "unterminated \\p{...}");
        ps->pos++;
        if (c == '}') break;
        if (c == ' ' || c == '_' || c == '-') continue;
        if (c >= 'A' && c <= 'Z') c += 32;
        if (nn + 1 >= sizeof name) return perr(ps, TC_ERR_UNSUPPORTED, at, "unknown property name in \\p{...}");
        name[nn++] = (char)c;
    }
    name[nn] = 0;
    uint32_t m = prop_mask(name);
    if (!m) return perr(ps, TC_ERR_UNSUPPORTED, at, "unknown property name in \\p{...} (only general categories)");
    *mask = negated ? (GCM_ALL & ~m) : m;
    return 0;
}

/* class under construction */
typedef struct rx_cbuild {
    uint32_t gcmask;
    uint8_t has_space, has_notspace, has_word, has_notword;
    uint8_t bracket; /* a [...] class, not a bare escape (Onig's \w differs, see unicode.h) */
} rx_cbuild;

static int tmp_add(rx_parser *ps, uint32_t lo, uint32_t hi) {
    if (tc_grow((void **)&ps->tmp, &ps->captmp, ps->ntmp + 1, sizeof(rx_range)) != 0) return nomem(ps);
    ps->tmp[ps->ntmp].lo = lo;
    ps->tmp[ps->ntmp].hi = hi;
    ps->ntmp++;
    return 0;
}

static int range_cmp(const void *a, const void *b) {
    const rx_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* sorts and merges tmp[from..ntmp), appends the result to re->ranges */
static int flush_ranges(rx_parser *ps, size_t from, uint32_t *off, uint32_t *n) {
    size_t cnt = ps->ntmp - from;
    rx_range *r = cnt ? ps->tmp + from : NULL;   /* tmp is NULL for an empty class: no NULL + 0 */
    if (cnt) qsort(r, cnt, sizeof *r, range_cmp);
    size_t m = 0;
    for (size_t i = 0; i < cnt; i++) {
        if (m && r[i].lo <= r[m - 1].hi + 1) {
            if (r[i].hi > r[m - 1].hi) r[m - 1].hi = r[i].hi;
        } else {
            r[m++] = r[i];
        }
    }
    tc_regex *re = ps->re;
    if (tc_grow((void **)&re->ranges, &ps->capranges, re->nranges + m + 1, sizeof(rx_range)) != 0) return nomem(ps);
    *off = (uint32_t)re->nranges;
    *n = (uint32_t)m;
    if (m) memcpy(re->ranges + re->nranges, r, m * sizeof *r);
    re->nranges += m;
    ps->ntmp = from;
    return 0;
}

/* makes a class from the ranges in tmp[0..ntmp) and the build flags */
static int finish_class(rx_parser *ps, const rx_cbuild *cb, int negate, int icase, uint32_t *idx) {
    tc_regex *re = ps->re;
    if (tc_grow((void **)&re->classes, &ps->capclasses, re->nclasses + 1, sizeof(rx_class)) != 0) return nomem(ps);
    rx_class k;
    memset(&k, 0, sizeof k);
    k.gcmask = cb->gcmask;
    k.has_space = cb->has_space;
    k.has_notspace = cb->has_notspace;
    k.has_word = cb->has_word;
    k.has_notword = cb->has_notword;
    k.bracket = cb->bracket;
    k.negate = (uint8_t)negate;
    /* first-unit filter for non-ASCII units, from the raw ranges */
    size_t nraw = ps->ntmp;
    uint32_t na_mask = 0;
    int na_any = 0;
    uint64_t budget = 300000;
    for (size_t i = 0; i < nraw && !na_any; i++) {
        uint32_t lo = ps->tmp[i].lo < 128 ? 128 : ps->tmp[i].lo, hi = ps->tmp[i].hi;
        if (hi < 128) continue;
        if ((uint64_t)(hi - lo + 1) > budget) { na_any = 1; break; }
        budget -= hi - lo + 1;
        for (uint32_t c = lo; c <= hi; c++) na_mask |= TC_GCM(tc_unicode_rx_gc(c));
    }
    if (flush_ranges(ps, 0, &k.r_off, &k.r_n) != 0) return -1;
    /* Case-insensitive bracket class (Onig): u matches if the class holds
     * any v case-equivalent to u (same simple fold). The equivalents are
     * computed once here: every case-equivalence group with a member in
     * the class is added as extra ranges. All cased code points are below
     * U+20000. Property escapes outside brackets are never folded. */
    if (icase) {
        rx_range *pairs = NULL; /* lo = fold, hi = code point */
        size_t np = 0, cp_cap = 0;
        for (uint32_t c = 0; c < 0x20000; c++) {
            uint32_t f = rx_fold(c);
            if (f == c) continue;
            if (tc_grow((void **)&pairs, &cp_cap, np + 1, sizeof *pairs) != 0) { free(pairs); return nomem(ps); }
            pairs[np].lo = f;
            pairs[np].hi = c;
            np++;
        }
        if (np) qsort(pairs, np, sizeof *pairs, range_cmp); /* groups by fold */
        for (size_t i = 0; i < np;) {
            size_t j = i;
            while (j < np && pairs[j].lo == pairs[i].lo) j++;
            int any = class_raw(re, &k, pairs[i].lo);
            for (size_t t = i; t < j && !any; t++) any = class_raw(re, &k, pairs[t].hi);
            if (any) {
                if (tmp_add(ps, pairs[i].lo, pairs[i].lo) != 0) { free(pairs); return -1; }
                for (size_t t = i; t < j; t++)
                    if (tmp_add(ps, pairs[t].hi, pairs[t].hi) != 0) { free(pairs); return -1; }
            }
            i = j;
        }
        free(pairs);
        if (ps->ntmp && flush_ranges(ps, 0, &k.f_off, &k.f_n) != 0) return -1;
    }
    k.icase = (uint8_t)(k.f_n != 0);
    /* ASCII bitmap with everything applied */
    for (uint32_t c = 0; c < 128; c++)
        if (class_full(re, &k, c)) BIT_SET(k.ascii, c);
    /* non-ASCII first-unit superset */
    if (!negate) {
        if (k.icase || k.has_notspace || k.has_notword || na_any) k.na_any = 1;
        k.na_gcmask = na_mask | k.gcmask | (k.has_space ? GCM_SPACE : 0) | (k.has_word ? GCM_WORD_SUPER : 0);
    } else {
        uint32_t m = GCM_ALL & ~k.gcmask;
        if (k.has_notspace) m &= GCM_SPACE;
        if (k.has_notword) m &= GCM_WORD_SUPER;
        k.na_gcmask = m;
        if (k.icase) k.na_any = 1;
    }
    re->classes[re->nclasses] = k;
    *idx = (uint32_t)re->nclasses++;
    return 0;
}

/* class escape letters shared by classes and atoms. Returns 1 if handled
 * (cb updated), 0 if not a class escape, -1 error. */
static int class_escape(rx_parser *ps, int c, size_t at, rx_cbuild *cb) {
    uint32_t m = 0;
    switch (c) {
    case 's': cb->has_space = 1; return 1;
    case 'S': cb->has_notspace = 1; return 1;
    case 'd': cb->gcmask |= TC_GCM(TC_GC_Nd); return 1;
    case 'D': cb->gcmask |= GCM_ALL & ~TC_GCM(TC_GC_Nd); return 1;
    case 'w': cb->has_word = 1; return 1;
    case 'W': cb->has_notword = 1; return 1;
    case 'h':
        if (tmp_add(ps, '0', '9') || tmp_add(ps, 'a', 'f') || tmp_add(ps, 'A', 'F')) return -1;
        return 1;
    case 'H':
        if (tmp_add(ps, 0, '/') || tmp_add(ps, ':', '@') || tmp_add(ps, 'G', '`') || tmp_add(ps, 'g', 0x10FFFF)) return -1;
        cb->gcmask |= TC_GCM(TC_GC_Cn); /* invalid bytes are Cn and are not hex digits */
        return 1;
    case 'p':
    case 'P':
        if (parse_prop(ps, c == 'P', at, &m) != 0) return -1;
        cb->gcmask |= m;
        return 1;
    default: return 0;
    }
}

/* single-character escapes (after the backslash, c already consumed).
 * Returns 1 and *cp on success, 0 if c is not such an escape, -1 error. */
static int char_escape(rx_parser *ps, int c, size_t at, int in_class, uint32_t *cp) {
    switch (c) {
    case 't': *cp = '\t'; return 1;
    case 'n': *cp = '\n'; return 1;
    case 'r': *cp = '\r'; return 1;
    case 'f': *cp = '\f'; return 1;
    case 'v': *cp = '\v'; return 1;
    case 'a': *cp = 7; return 1;
    case 'e': *cp = 27; return 1;
    case 'b':
        if (in_class) { *cp = 8; return 1; }
        return 0;
    case 'x': return parse_hex(ps, 2, 1, cp, at) == 0 ? 1 : -1;
    case 'u': return parse_hex(ps, 4, 0, cp, at) == 0 ? 1 : -1;
    default: break;
    }
    if (c >= 0x80 || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
        *cp = (uint32_t)c; /* escaped punctuation or non-ASCII: literal */
        return 1;
    }
    return 0;
}

static int unsupported_escape(rx_parser *ps, int c, size_t at) {
    char buf[120];
    const char *what = "unsupported escape";
    if (c >= '1' && c <= '9') what = "backreference";
    else if (c == 'k' || c == 'g') what = "backreference/subexpression call";
    else if (c == 'b' || c == 'B') what = "word boundary";
    else if (c == '0') what = "octal escape";
    snprintf(buf, sizeof buf, "%s \\%c", what, c);
    return perr(ps, TC_ERR_UNSUPPORTED, at, buf);
}

/* parses [...] (ps->pos after '['), returns class index */
static int parse_class(rx_parser *ps, int icase, size_t start, uint32_t *idx) {
    rx_cbuild cb = {0, 0, 0, 0, 0, 1};
    int negate = 0;
    ps->ntmp = 0;
    if (pat_peek(ps) == '^') { negate = 1; ps->pos++; }
    int first = 1;
    for (;;) {
        int c = pat_peek(ps);
        if (c < 0) return perr(ps, TC_ERR_FORMAT, start, "unterminated character class");
        size_t at = ps->pos;
        if (c == ']' && !first) { ps->pos++; break; }
        first = 0;
        if (c == '[') {
            if (ps->pos + 1 < ps->len && ps->p[ps->pos + 1] == ':')
                return perr(ps, TC_ERR_UNSUPPORTED, at, "POSIX bracket [:name:]");
            return perr(ps, TC_ERR_UNSUPPORTED, at, "nested character class");
        }
        if (c == '&' && ps->pos + 1 < ps->len && ps->p[ps->pos + 1] == '&')
            return perr(ps, TC_ERR_UNSUPPORTED, at, "class intersection &&");
        uint32_t lo;
        if (c == '\\') {
            ps->pos++;
            int e = pat_peek(ps);
            if (e < 0) return perr(ps, TC_ERR_FORMAT, at, "trailing backslash");
            if (e < 0x80) ps->pos++;
            else if (pat_cp(ps, (uint32_t *)&lo) != 0) return -1;
            int r = e < 0x80 ? class_escape(ps, e, at, &cb) : 0;
            if (r < 0) return -1;
            if (r == 1) continue;
            r = e < 0x80 ? char_escape(ps, e, at, 1, &lo) : 1;
            if (r < 0) return -1;
            if (r == 0) return unsupported_escape(ps, e, at);
        } else {
            if (pat_cp(ps, &lo) != 0) return -1;
        }
        uint32_t hi = lo;
        /* range? */
        if (pat_peek(ps) == '-' && ps->pos + 1 < ps->len && ps->p[ps->pos + 1] != ']') {
            size_t save = ps->pos;
            ps->pos++;
            int d = pat_peek(ps);
            if (d == '\\') {
                ps->pos++;
                int e = pat_peek(ps);
                if (e < 0) return perr(ps, TC_ERR_FORMAT, at, "trailing backslash");
                if (e < 0x80) ps->pos++;
                else if (pat_cp(ps, &hi) != 0) return -1;
                int r = e < 0x80 ? char_escape(ps, e, at, 1, &hi) : 1;
                if (r < 0) return -1;
                if (r == 0) {
                    /* [a-\d] : Onig treats as error */
                    return perr(ps, TC_ERR_FORMAT, save, "invalid range end in character class");
                }
            } else if (d == '[') {
                return perr(ps, TC_ERR_UNSUPPORTED, ps->pos, "nested character class");
            } else {
                if (pat_cp(ps, &hi) != 0) return -1;
            }
            if (hi < lo) return perr(ps, TC_ERR_FORMAT, at, "empty range in character class");
        }
        if (tmp_add(ps, lo, hi) != 0) return -1;
    }
    return finish_class(ps, &cb, negate, icase, idx);
}

static int32_t parse_alt(rx_parser *ps, int depth, int icase);

static int32_t make_class_node(rx_parser *ps, const rx_cbuild *cb, int icase) {
    uint32_t idx;
    if (finish_class(ps, cb, 0, icase, &idx) != 0) return -1;
    int32_t n = new_node(ps, N_CLASS);
    if (n < 0) return -1;
    ps->nodes[n].cp = idx;
    return n;
}

static int32_t make_char_node(rx_parser *ps, uint32_t cp, int icase) {
    int32_t n = new_node(ps, N_CHAR);
    if (n < 0) return -1;
    ps->nodes[n].cp = cp;
    /* ASCII non-letters have no case variants and nothing folds to them */
    int ascii_plain = cp < 128 && !((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z'));
    if (icase && !ascii_plain) {
        ps->nodes[n].icase = 1;
        ps->nodes[n].cp = rx_fold(cp);
    }
    return n;
}

/* Parses one atom; returns node, or -1 error, or -2 for "no atom here". */
static int32_t parse_atom(rx_parser *ps, int depth, int *icase) {
    size_t at = ps->pos;
    int c = pat_peek(ps);
    switch (c) {
    case '(': {
        if (depth >= TC_REGEX_MAX_DEPTH) { perr(ps, TC_ERR_LIMIT, at, "groups nested too deeply"); return -1; }
        ps->pos++;
        int look = -1;
        int gicase = *icase;
        if (pat_peek(ps) == '?') {
            ps->pos++;
            int d = pat_peek(ps);
            if (d == ':') ps->pos++;
            else if (d == '=') { ps->pos++; look = 0; }
            else if (d == '!') { ps->pos++; look = 1; }
            else if (d == '#') {
                while (pat_peek(ps) >= 0 && pat_peek(ps) != ')') ps->pos++;
                if (pat_peek(ps) != ')') { perr(ps, TC_ERR_FORMAT, at, "unterminated comment group"); return -1; }
                ps->pos++;
                return new_node(ps, N_EMPTY);
            } else if (d == '<') {
                int e = ps->pos + 1 < ps->len ? ps->p[ps->pos + 1] : -1;
                if (e == '=' || e == '!') { perr(ps, TC_ERR_UNSUPPORTED, at, "lookbehind (?<= / (?<!"); return -1; }
                /* named group: treated as a plain group */
                ps->pos++;
                while (pat_peek(ps) >= 0 && pat_peek(ps) != '>') ps->pos++;
                if (pat_peek(ps) != '>') { perr(ps, TC_ERR_FORMAT, at, "unterminated group name"); return -1; }
                ps->pos++;
            } else if (d == 'P' && ps->pos + 1 < ps->len && ps->p[ps->pos + 1] == '<') {
                ps->pos += 2;
                while (pat_peek(ps) >= 0 && pat_peek(ps) != '>') ps->pos++;
                if (pat_peek(ps) != '>') { perr(ps, TC_ERR_FORMAT, at, "unterminated group name"); return -1; }
                ps->pos++;
            } else if (d == '>') {
                perr(ps, TC_ERR_UNSUPPORTED, at, "atomic group (?>");
                return -1;
            } else if (d == 'i' || d == '-' || d == 'm' || d == 's' || d == 'x' || d == 'a' || d == 'u') {
                int on = 1;
                int setting = gicase;
                for (;;) {
                    int e = pat_peek(ps);
                    if (e == 'i') { setting = on; ps->pos++; }
                    else if (e == '-' && on) { on = 0; ps->pos++; }
                    else if (e == ':' ) { ps->pos++; gicase = setting; break; }
                    else if (e == ')') {
                        /* (?i) : applies to the rest of the enclosing group */
                        ps->pos++;
                        *icase = setting;
                        return -3;
                    } else if (e == 'm' || e == 's' || e == 'x' || e == 'a' || e == 'u' || e == 'W' || e == 'D' || e == 'S' || e == 'P' || e == 'y') {
                        perr(ps, TC_ERR_UNSUPPORTED, ps->pos, "inline option other than i");
                        return -1;
                    } else {
                        perr(ps, TC_ERR_FORMAT, ps->pos, "malformed group option");
                        return -1;
                    }
                }
            } else {
                perr(ps, TC_ERR_UNSUPPORTED, at, "unsupported group construct (?...");
                return -1;
            }
        }
        int32_t inner = parse_alt(ps, depth + 1, gicase);
        if (inner < 0) return -1;
        if (pat_peek(ps) != ')') { perr(ps, TC_ERR_FORMAT, at, "missing ) for group"); return -1; }
        ps->pos++;
        if (look >= 0) {
            int32_t n = new_node(ps, N_LOOK);
            if (n < 0) return -1;
            ps->nodes[n].child = inner;
            ps->nodes[n].neg = (uint8_t)look;
            return n;
        }
        return inner;
    }
    case '[': {
        ps->pos++;
        uint32_t idx;
        if (parse_class(ps, *icase, at, &idx) != 0) return -1;
        int32_t n = new_node(ps, N_CLASS);
        if (n < 0) return -1;
        ps->nodes[n].cp = idx;
        return n;
    }
    case '.': ps->pos++; return new_node(ps, N_ANY);
    case '^':
    case '$': {
        ps->pos++;
        int32_t n = new_node(ps, N_ASSERT);
        if (n < 0) return -1;
        ps->nodes[n].aop = (uint8_t)(c == '^' ? OP_BOL : OP_EOL);
        return n;
    }
    case '\\': {
        ps->pos++;
        int e = pat_peek(ps);
        if (e < 0) { perr(ps, TC_ERR_FORMAT, at, "trailing backslash"); return -1; }
        if (e >= 0x80) {
            uint32_t cp;
            if (pat_cp(ps, &cp) != 0) return -1;
            return make_char_node(ps, cp, *icase);
        }
        ps->pos++;
        if (e == 'A' || e == 'z' || e == 'Z') {
            int32_t n = new_node(ps, N_ASSERT);
            if (n < 0) return -1;
            ps->nodes[n].aop = (uint8_t)(e == 'A' ? OP_BOS : e == 'z' ? OP_EOS : OP_EOSNL);
            return n;
        }
        rx_cbuild cb = {0, 0, 0, 0, 0, 0};
        ps->ntmp = 0;
        int r = class_escape(ps, e, at, &cb);
        if (r < 0) return -1;
        if (r == 1) return make_class_node(ps, &cb, 0);
        uint32_t cp;
        r = char_escape(ps, e, at, 0, &cp);
        if (r < 0) return -1;
        if (r == 0) { unsupported_escape(ps, e, at); return -1; }
        return make_char_node(ps, cp, *icase);
    }
    case '*':
    case '+':
    case '?':
        perr(ps, TC_ERR_FORMAT, at, "target of repeat operator is not specified");
        return -1;
    case '|':
    case ')':
    case -1:
        return -2;
    default: {
        uint32_t cp;
        if (pat_cp(ps, &cp) != 0) return -1;
        return make_char_node(ps, cp, *icase);
    }
    }
}

/* tries to read {n}, {n,}, {n,m}, {,m} at ps->pos. Returns 1 (consumed),
 * 0 (not an interval: '{' is a literal), -1 error. */
static int parse_interval(rx_parser *ps, uint32_t *mn, uint32_t *mx) {
    size_t p = ps->pos + 1;
    uint64_t a = 0, b = 0;
    int na = 0, nb = 0, comma = 0;
    while (p < ps->len && ps->p[p] >= '0' && ps->p[p] <= '9') {
        a = a * 10 + (uint64_t)(ps->p[p] - '0');
        if (a > 10000000) a = 10000000;
        p++;
        na++;
    }
    if (p < ps->len && ps->p[p] == ',') {
        comma = 1;
        p++;
        while (p < ps->len && ps->p[p] >= '0' && ps->p[p] <= '9') {
            b = b * 10 + (uint64_t)(ps->p[p] - '0');
            if (b > 10000000) b = 10000000;
            p++;
            nb++;
        }
    }
    if (p >= ps->len || ps->p[p] != '}') return 0;
    if (na == 0 && nb == 0) return 0; /* {} or {,} literal */
    size_t at = ps->pos;
    ps->pos = p + 1;
    if (!comma) { *mn = (uint32_t)a; *mx = (uint32_t)a; }
    else { *mn = na ? (uint32_t)a : 0; *mx = nb ? (uint32_t)b : REP_INF; }
    if (*mn > TC_REGEX_MAX_REPEAT || (*mx != REP_INF && *mx > TC_REGEX_MAX_REPEAT))
        return perr(ps, TC_ERR_LIMIT, at, "repeat count too large");
    if (*mx != REP_INF && *mx < *mn) return perr(ps, TC_ERR_UNSUPPORTED, at, "interval {n,m} with n > m");
    return 1;
}

static int32_t parse_seq(rx_parser *ps, int depth, int icase) {
    int32_t cat = new_node(ps, N_CAT);
    if (cat < 0) return -1;
    int32_t last = -1;
    int nullable = 1;
    for (;;) {
        size_t at = ps->pos;
        int sub_icase = icase;
        int32_t atom = parse_atom(ps, depth, &sub_icase);
        if (atom == -1) return -1;
        if (atom == -2) break;
        if (atom == -3) {
            /* (?i) / (?-i): the rest of the group is a sub-alternation */
            atom = parse_alt(ps, depth + 1, sub_icase);
            if (atom < 0) return -1;
            if (last < 0) ps->nodes[cat].child = atom; else ps->nodes[last].next = atom;
            nullable &= ps->nodes[atom].nullable;
            last = atom;
            break;
        }
        /* quantifiers (possibly stacked, e.g. a** ) */
        for (;;) {
            int q = pat_peek(ps);
            uint32_t mn, mx;
            if (q == '*') { mn = 0; mx = REP_INF; ps->pos++; }
            else if (q == '+') { mn = 1; mx = REP_INF; ps->pos++; }
            else if (q == '?') { mn = 0; mx = 1; ps->pos++; }
            else if (q == '{') {
                int r = parse_interval(ps, &mn, &mx);
                if (r < 0) return -1;
                if (r == 0) break;
            } else break;
            int greedy = 1;
            if (pat_peek(ps) == '?') { greedy = 0; ps->pos++; }
            else if (pat_peek(ps) == '+') {
                perr(ps, TC_ERR_UNSUPPORTED, ps->pos, "possessive quantifier");
                return -1;
            }
            if (ps->nodes[atom].type == N_ASSERT || ps->nodes[atom].type == N_LOOK) {
                perr(ps, TC_ERR_FORMAT, at, "target of repeat operator is invalid");
                return -1;
            }
            if (depth + 1 >= TC_REGEX_MAX_DEPTH) { perr(ps, TC_ERR_LIMIT, at, "quantifiers nested too deeply"); return -1; }
            depth++;
            int32_t rep = new_node(ps, N_REPEAT);
            if (rep < 0) return -1;
            rx_node *rn = &ps->nodes[rep];
            rn->child = atom;
            rn->min = mn;
            rn->max = mx;
            rn->greedy = (uint8_t)greedy;
            rn->nullable = (uint8_t)(mn == 0 || ps->nodes[atom].nullable);
            atom = rep;
        }
        if (last < 0) ps->nodes[cat].child = atom; else ps->nodes[last].next = atom;
        nullable &= ps->nodes[atom].nullable;
        last = atom;
    }
    ps->nodes[cat].nullable = (uint8_t)nullable;
    return cat;
}

static int32_t parse_alt(rx_parser *ps, int depth, int icase) {
    if (depth >= TC_REGEX_MAX_DEPTH) { perr(ps, TC_ERR_LIMIT, ps->pos, "groups nested too deeply"); return -1; }
    int32_t alt = new_node(ps, N_ALT);
    if (alt < 0) return -1;
    int32_t last = -1;
    int nullable = 0;
    for (;;) {
        int32_t s = parse_seq(ps, depth, icase);
        if (s < 0) return -1;
        if (last < 0) ps->nodes[alt].child = s; else ps->nodes[last].next = s;
        last = s;
        nullable |= ps->nodes[s].nullable;
        if (pat_peek(ps) == '|') { ps->pos++; continue; }
        break;
    }
    ps->nodes[alt].nullable = (uint8_t)nullable;
    return alt;
}

/* ======================================================================== */
/* Code generation                                                          */
/* ======================================================================== */

typedef struct rx_gen {
    rx_parser *ps;
    rx_inst *prog;
    size_t n, cap;
    uint32_t nregs;
} rx_gen;

static int32_t emit(rx_gen *g, int op) {
    if (g->n >= TC_REGEX_MAX_PROG) {
        perr(g->ps, TC_ERR_LIMIT, g->ps->len, "compiled program too large (repeat counts too big)");
        return -1;
    }
    if (tc_grow((void **)&g->prog, &g->cap, g->n + 1, sizeof(rx_inst)) != 0) { nomem(g->ps); return -1; }
    rx_inst *in = &g->prog[g->n];
    memset(in, 0, sizeof *in);
    in->op = (uint8_t)op;
    in->a = NO_FILTER;
    in->b = NO_FILTER;
    return (int32_t)g->n++;
}

static int gen(rx_gen *g, int32_t ni, int depth);

/* single-unit atom? gives its op and arg */
static int unit_of(const rx_node *n, int *op, int32_t *arg) {
    switch (n->type) {
    case N_CHAR: *op = n->icase ? OP_CHARI : OP_CHAR; *arg = (int32_t)n->cp; return 1;
    case N_ANY: *op = OP_ANY; *arg = 0; return 1;
    case N_CLASS: *op = OP_CLASS; *arg = (int32_t)n->cp; return 1;
    default: return 0;
    }
}

/* strips CAT/ALT wrappers with a single child */
static int32_t simplify(const rx_parser *ps, int32_t ni) {
    for (;;) {
        const rx_node *n = &ps->nodes[ni];
        if ((n->type == N_CAT || n->type == N_ALT) && n->child >= 0 && ps->nodes[n->child].next < 0) {
            ni = n->child;
            continue;
        }
        return ni;
    }
}

static int gen_repeat(rx_gen *g, const rx_node *n, int depth) {
    int32_t child = simplify(g->ps, n->child);
    const rx_node *cn = &g->ps->nodes[child];
    int uop;
    int32_t uarg;
    uint32_t mn = n->min, mx = n->max;
    if (mx == 0) return 0; /* x{0} matches empty */
    if (unit_of(cn, &uop, &uarg) && (n->greedy || mn == mx)) {
        int32_t i = emit(g, OP_RUN);
        if (i < 0) return -1;
        g->prog[i].sub = (uint8_t)uop;
        g->prog[i].x = uarg;
        g->prog[i].a = mn;
        g->prog[i].b = mx;
        return 0;
    }
    int nullable = cn->nullable;
    if (mx == REP_INF) {
        uint32_t pre = mn > 0 ? mn - 1 : 0;
        for (uint32_t i = 0; i < pre; i++)
            if (gen(g, child, depth + 1) != 0) return -1;
        uint32_t reg = 0;
        if (nullable) reg = g->nregs++;
        if (mn == 0) {
            /* L0: SPLIT L1, end ; L1: [SAVEPOS] body [EMPTYCHK end] ; JMP L0 ; end: */
            int32_t l0 = emit(g, OP_SPLIT);
            if (l0 < 0) return -1;
            int32_t sv = -1;
            if (nullable) {
                sv = emit(g, OP_SAVEPOS);
                if (sv < 0) return -1;
                g->prog[sv].x = (int32_t)reg;
            }
            if (gen(g, child, depth + 1) != 0) return -1;
            int32_t ec = -1;
            if (nullable) {
                ec = emit(g, OP_EMPTYCHK);
                if (ec < 0) return -1;
                g->prog[ec].x = (int32_t)reg;
            }
            int32_t j = emit(g, OP_JMP);
            if (j < 0) return -1;
            g->prog[j].x = l0;
            int32_t end = (int32_t)g->n;
            if (ec >= 0) g->prog[ec].y = end;
            if (n->greedy) { g->prog[l0].x = l0 + 1; g->prog[l0].y = end; }
            else { g->prog[l0].x = end; g->prog[l0].y = l0 + 1; }
        } else {
            /* L1: [SAVEPOS] body [EMPTYCHK end] ; SPLIT L1, end ; end: */
            int32_t l1 = (int32_t)g->n;
            if (nullable) {
                int32_t sv = emit(g, OP_SAVEPOS);
                if (sv < 0) return -1;
                g->prog[sv].x = (int32_t)reg;
            }
            if (gen(g, child, depth + 1) != 0) return -1;
            int32_t ec = -1;
            if (nullable) {
                ec = emit(g, OP_EMPTYCHK);
                if (ec < 0) return -1;
                g->prog[ec].x = (int32_t)reg;
            }
            int32_t sp = emit(g, OP_SPLIT);
            if (sp < 0) return -1;
            int32_t end = (int32_t)g->n;
            if (ec >= 0) g->prog[ec].y = end;
            if (n->greedy) { g->prog[sp].x = l1; g->prog[sp].y = end; }
            else { g->prog[sp].x = end; g->prog[sp].y = l1; }
        }
        return 0;
    }
    for (uint32_t i = 0; i < mn; i++)
        if (gen(g, child, depth + 1) != 0) return -1;
    /* optional copies: SPLIT a, end ; a: body ; SPLIT b, end ; ... end: */
    int32_t *splits = NULL;
    size_t ns = 0, cs = 0;
    for (uint32_t i = mn; i < mx; i++) {
        int32_t sp = emit(g, OP_SPLIT);
        if (sp < 0) { free(splits); return -1; }
        if (tc_grow((void **)&splits, &cs, ns + 1, sizeof(int32_t)) != 0) { free(splits); nomem(g->ps); return -1; }
        splits[ns++] = sp;
        if (gen(g, child, depth + 1) != 0) { free(splits); return -1; }
    }
    int32_t end = (int32_t)g->n;
    for (size_t i = 0; i < ns; i++) {
        int32_t sp = splits[i];
        if (n->greedy) { g->prog[sp].x = sp + 1; g->prog[sp].y = end; }
        else { g->prog[sp].x = end; g->prog[sp].y = sp + 1; }
    }
    free(splits);
    return 0;
}

static int gen(rx_gen *g, int32_t ni, int depth) {
    if (depth > 4 * TC_REGEX_MAX_DEPTH + 8) {
        perr(g->ps, TC_ERR_LIMIT, 0, "pattern nested too deeply");
        return -1;
    }
    const rx_node *n = &g->ps->nodes[ni];
    int32_t i;
    switch (n->type) {
    case N_EMPTY: return 0;
    case N_CHAR:
        i = emit(g, n->icase ? OP_CHARI : OP_CHAR);
        if (i < 0) return -1;
        g->prog[i].x = (int32_t)n->cp;
        return 0;
    case N_ANY: return emit(g, OP_ANY) < 0 ? -1 : 0;
    case N_CLASS:
        i = emit(g, OP_CLASS);
        if (i < 0) return -1;
        g->prog[i].x = (int32_t)n->cp;
        return 0;
    case N_ASSERT: return emit(g, n->aop) < 0 ? -1 : 0;
    case N_CAT:
        for (int32_t c = n->child; c >= 0; c = g->ps->nodes[c].next)
            if (gen(g, c, depth + 1) != 0) return -1;
        return 0;
    case N_ALT: {
        int32_t c = n->child;
        if (c < 0) return 0;
        int32_t *jmps = NULL;
        size_t nj = 0, cj = 0;
        int rc = 0;
        while (c >= 0 && rc == 0) {
            int32_t nx = g->ps->nodes[c].next;
            if (nx < 0) { rc = gen(g, c, depth + 1); break; }
            int32_t sp = emit(g, OP_SPLIT);
            if (sp < 0) { rc = -1; break; }
            if (gen(g, c, depth + 1) != 0) { rc = -1; break; }
            int32_t j = emit(g, OP_JMP);
            if (j < 0) { rc = -1; break; }
            if (tc_grow((void **)&jmps, &cj, nj + 1, sizeof(int32_t)) != 0) { nomem(g->ps); rc = -1; break; }
            jmps[nj++] = j;
            g->prog[sp].x = sp + 1;
            g->prog[sp].y = (int32_t)g->n;
            c = nx;
        }
        if (rc == 0)
            for (size_t k = 0; k < nj; k++) g->prog[jmps[k]].x = (int32_t)g->n;
        free(jmps);
        return rc;
    }
    case N_REPEAT: return gen_repeat(g, n, depth);
    case N_LOOK: {
        i = emit(g, OP_LOOK);
        if (i < 0) return -1;
        g->prog[i].sub = n->neg;
        if (gen(g, n->child, depth + 1) != 0) return -1;
        if (emit(g, OP_LOOKEND) < 0) return -1;
        g->prog[i].x = (int32_t)g->n;
        return 0;
    }
    default:
        perr(g->ps, TC_ERR_FORMAT, 0, "internal: bad node");
        return -1;
    }
}

/* ======================================================================== */
/* First-unit filters                                                       */
/* ======================================================================== */

static void filter_add_unit(const tc_regex *re, rx_filter *f, int op, int32_t arg) {
    switch (op) {
    case OP_CHAR:
        if ((uint32_t)arg < 128) BIT_SET(f->ascii, (uint32_t)arg);
        else f->gcmask |= TC_GCM(tc_unicode_rx_gc((uint32_t)arg));
        break;
    case OP_CHARI:
        for (uint32_t c = 0; c < 128; c++)
            if (rx_fold(c) == (uint32_t)arg) BIT_SET(f->ascii, c);
        f->na_any = 1;
        break;
    case OP_ANY:
        f->ascii[0] |= ~(1u << '\n');
        for (int k = 1; k < 4; k++) f->ascii[k] = 0xFFFFFFFFu;
        f->na_any = 1;
        break;
    default: {
        const rx_class *k = &re->classes[arg];
        for (int w = 0; w < 4; w++) f->ascii[w] |= k->ascii[w];
        f->gcmask |= k->na_gcmask;
        if (k->na_any) f->na_any = 1;
        break;
    }
    }
}

/* explores epsilon closure from pc; stack/visited are scratch of size nprog */
static void compute_filter(const tc_regex *re, int32_t pc, rx_filter *f, uint8_t *visited, int32_t *stack) {
    memset(f, 0, sizeof *f);
    memset(visited, 0, re->nprog);
    size_t top = 0;
    stack[top++] = pc;
    while (top && !f->all) {
        int32_t p = stack[--top];
        if (p < 0 || (size_t)p >= re->nprog || visited[p]) continue;
        visited[p] = 1;
        const rx_inst *in = &re->prog[p];
        switch (in->op) {
        case OP_CHAR: case OP_CHARI: case OP_ANY: case OP_CLASS:
            filter_add_unit(re, f, in->op, in->x);
            break;
        case OP_RUN:
            filter_add_unit(re, f, in->sub, in->x);
            if (in->a == 0) stack[top++] = p + 1;
            break;
        case OP_SPLIT:
            stack[top++] = in->y;
            stack[top++] = in->x;
            break;
        case OP_JMP: stack[top++] = in->x; break;
        case OP_EMPTYCHK:
            stack[top++] = in->y;
            stack[top++] = p + 1;
            break;
        case OP_SAVEPOS: case OP_BOL: case OP_EOL: case OP_BOS: case OP_EOS: case OP_EOSNL:
            stack[top++] = p + 1;
            break;
        case OP_LOOK: stack[top++] = in->x; break;
        case OP_LOOKEND: case OP_MATCH: default:
            f->all = 1;
            break;
        }
    }
    if (f->all) {
        for (int k = 0; k < 4; k++) f->ascii[k] = 0xFFFFFFFFu;
        f->gcmask = GCM_ALL;
        f->na_any = 1;
    } else if ((f->gcmask & GCM_ALL) == GCM_ALL) {
        f->na_any = 1;
    }
}

static int filter_useful(const rx_filter *f) {
    if (f->all) return 0;
    if (f->na_any && f->ascii[0] == 0xFFFFFFFFu && f->ascii[1] == 0xFFFFFFFFu &&
        f->ascii[2] == 0xFFFFFFFFu && f->ascii[3] == 0xFFFFFFFFu)
        return 0; /* passes every unit, only rejects end of subject: not worth a check */
    return 1;
}

static int add_filter(tc_regex *re, size_t *cap, const rx_filter *f, uint32_t *idx) {
    if (tc_grow((void **)&re->filters, cap, re->nfilters + 1, sizeof(rx_filter)) != 0) return -1;
    re->filters[re->nfilters] = *f;
    *idx = (uint32_t)re->nfilters++;
    return 0;
}

static int build_filters(tc_regex *re) {
    size_t cap = 0;
    uint8_t *visited = malloc(re->nprog ? re->nprog : 1);
    int32_t *stack = malloc((2 * re->nprog + 4) * sizeof(int32_t));
    if (!visited || !stack) { free(visited); free(stack); return -1; }
    rx_filter f;
    re->start_filter = NO_FILTER;
    compute_filter(re, 0, &f, visited, stack);
    if (!f.all && add_filter(re, &cap, &f, &re->start_filter) != 0) goto oom;
    if (re->nprog <= TC_REGEX_GUARD_PROG_MAX) {
        for (size_t p = 0; p < re->nprog; p++) {
            rx_inst *in = &re->prog[p];
            if (in->op != OP_SPLIT) continue;
            compute_filter(re, in->x, &f, visited, stack);
            if (filter_useful(&f) && add_filter(re, &cap, &f, &in->a) != 0) goto oom;
            compute_filter(re, in->y, &f, visited, stack);
            if (filter_useful(&f) && add_filter(re, &cap, &f, &in->b) != 0) goto oom;
        }
    }
    free(visited);
    free(stack);
    return 0;
oom:
    free(visited);
    free(stack);
    return -1;
}

/* ======================================================================== */
/* Public: compile / free                                                   */
/* ======================================================================== */

void tc_regex_free(tc_regex *re) {
    if (!re) return;
    free(re->prog);
    free(re->classes);
    free(re->ranges);
    free(re->filters);
    free(re);
}

tc_regex *tc_regex_compile(const char *pattern, size_t len, tc_error *err) {
    return tc_regex_compile_flavor(pattern, len, TC_RX_ONIG, err);
}

tc_regex *tc_regex_compile_flavor(const char *pattern, size_t len, tc_rx_flavor flavor, tc_error *err) {
    if (!pattern && len) { tc_error_set(err, TC_ERR_ARG, "regex: NULL pattern"); return NULL; }
    if (len > TC_REGEX_MAX_PATTERN) { tc_error_set(err, TC_ERR_LIMIT, "regex: pattern longer than %u bytes", TC_REGEX_MAX_PATTERN); return NULL; }
    tc_regex *re = calloc(1, sizeof *re);
    if (!re) { tc_error_set(err, TC_ERR_NOMEM, "regex: out of memory while compiling"); return NULL; }
    rx_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.p = (const uint8_t *)(pattern ? pattern : "");
    ps.len = len;
    ps.err = err;
    ps.re = re;
    re->flavor = flavor == TC_RX_RUST ? TC_RX_RUST : TC_RX_ONIG;
    rx_gen g;
    memset(&g, 0, sizeof g);
    g.ps = &ps;
    int32_t root = parse_alt(&ps, 0, 0);
    if (root < 0) goto fail;
    if (ps.pos < ps.len) {
        perr(&ps, TC_ERR_FORMAT, ps.pos, "unmatched )");
        goto fail;
    }
    if (gen(&g, root, 0) != 0) goto fail;
    if (emit(&g, OP_MATCH) < 0) goto fail;
    re->prog = g.prog;
    re->nprog = g.n;
    g.prog = NULL;
    re->nregs = g.nregs;
    re->anchored = re->prog[0].op == OP_BOS;
    if (build_filters(re) != 0) { nomem(&ps); goto fail; }
    free(ps.nodes);
    free(ps.tmp);
    if (err) { err->code = TC_OK; err->msg[0] = 0; }
    return re;
fail:
    free(g.prog);
    free(ps.nodes);
    free(ps.tmp);
    tc_regex_free(re);
    return NULL;
}

/* ======================================================================== */
/* Matching VM                                                              */
/* ======================================================================== */

enum { F_ALT, F_RESTORE, F_LOOK, F_RUN };

typedef struct rx_frame {
    int32_t kind, pc;
    size_t pos, pos2;
} rx_frame;

#define RX_LOCAL_FRAMES 128
#define RX_LOCAL_REGS 16

typedef struct rx_scratch {
    rx_frame *st;
    size_t cap;
    int heap;
    size_t *regs;
    int regs_heap;
    rx_frame local[RX_LOCAL_FRAMES];
    size_t local_regs[RX_LOCAL_REGS];
} rx_scratch;

static int scratch_init(rx_scratch *sc, const tc_regex *re) {
    sc->st = sc->local;
    sc->cap = RX_LOCAL_FRAMES;
    sc->heap = 0;
    sc->regs = sc->local_regs;
    sc->regs_heap = 0;
    if (re->nregs > RX_LOCAL_REGS) {
        sc->regs = malloc(re->nregs * sizeof(size_t));
        if (!sc->regs) return -1;
        sc->regs_heap = 1;
    }
    if (re->nregs) memset(sc->regs, 0, re->nregs * sizeof(size_t));
    return 0;
}

static void scratch_free(rx_scratch *sc) {
    if (sc->heap) free(sc->st);
    if (sc->regs_heap) free(sc->regs);
}

static int scratch_grow(rx_scratch *sc) {
    if (sc->cap > SIZE_MAX / 2 / sizeof(rx_frame)) return -1;
    size_t ncap = sc->cap * 2;
    rx_frame *p;
    if (sc->heap) {
        p = realloc(sc->st, ncap * sizeof *p);
        if (!p) return -1;
    } else {
        p = malloc(ncap * sizeof *p);
        if (!p) return -1;
        memcpy(p, sc->st, sc->cap * sizeof *p);
    }
    sc->st = p;
    sc->cap = ncap;
    sc->heap = 1;
    return 0;
}

static inline int filter_pass(const tc_regex *re, uint32_t fi, const uint8_t *s, size_t len, size_t sp) {
    const rx_filter *f = &re->filters[fi];
    if (sp >= len) return f->all;
    uint8_t b = s[sp];
    if (b < 0x80) return (int)BIT_GET(f->ascii, b);
    if (f->na_any) return 1;
    int n;
    uint32_t c = tc_utf8_decode(s, len, sp, &n);
    return (int)((f->gcmask >> tc_unicode_rx_gc(c)) & 1u);
}

#define PUSH(K, PC, POS, POS2)                                   \
    do {                                                         \
        if (top == sc->cap && scratch_grow(sc) != 0) return -1;  \
        rx_frame *fr_ = &sc->st[top++];                          \
        fr_->kind = (K);                                         \
        fr_->pc = (PC);                                          \
        fr_->pos = (POS);                                        \
        fr_->pos2 = (POS2);                                      \
    } while (0)

/* Runs the program anchored at `start`. 1 match (*me set), 0 none, -1 nomem, -2 steps. */
static int vm_run(const tc_regex *re, const uint8_t *s, size_t len, size_t start, size_t *me,
                  rx_scratch *sc, int64_t *budget) {
    const rx_inst *prog = re->prog;
    size_t *regs = sc->regs;
    size_t top = 0;
    size_t sp = start;
    int32_t pc = 0;
    int64_t steps = *budget;
    for (;;) {
        if (--steps < 0) { *budget = 0; return -2; }
        const rx_inst *in = &prog[pc];
        switch (in->op) {
        case OP_CHAR:
            if (sp < len) {
                int n;
                uint32_t c = rx_dec(s, len, sp, &n);
                if (c == (uint32_t)in->x) { sp += (size_t)n; pc++; continue; }
            }
            goto fail;
        case OP_CHARI:
            if (sp < len) {
                int n;
                uint32_t c = rx_dec(s, len, sp, &n);
                if (rx_fold(c) == (uint32_t)in->x) { sp += (size_t)n; pc++; continue; }
            }
            goto fail;
        case OP_ANY:
            if (sp < len && s[sp] != '\n') {
                int n;
                (void)rx_dec(s, len, sp, &n);
                sp += (size_t)n;
                pc++;
                continue;
            }
            goto fail;
        case OP_CLASS:
            if (sp < len) {
                int n;
                uint32_t c = rx_dec(s, len, sp, &n);
                if (class_match(re, &re->classes[in->x], c)) { sp += (size_t)n; pc++; continue; }
            }
            goto fail;
        case OP_RUN: {
            uint32_t cnt = 0, mn = in->a, mx = in->b;
            size_t minpos = sp;
            int uop = in->sub;
            int32_t arg = in->x;
            while (cnt < mx && sp < len) {
                int n;
                uint32_t c = rx_dec(s, len, sp, &n);
                if (!unit_match(re, uop, arg, c)) break;
                sp += (size_t)n;
                cnt++;
                if (cnt == mn) minpos = sp;
            }
            steps -= cnt >> 2;
            if (cnt < mn) goto fail;
            if (sp > minpos) PUSH(F_RUN, pc + 1, sp, minpos);
            pc++;
            continue;
        }
        case OP_SPLIT:
            if (in->a != NO_FILTER && !filter_pass(re, in->a, s, len, sp)) { pc = in->y; continue; }
            if (in->b != NO_FILTER && !filter_pass(re, in->b, s, len, sp)) { pc = in->x; continue; }
            PUSH(F_ALT, in->y, sp, 0);
            pc = in->x;
            continue;
        case OP_JMP: pc = in->x; continue;
        case OP_SAVEPOS:
            PUSH(F_RESTORE, in->x, regs[in->x], 0);
            regs[in->x] = sp;
            pc++;
            continue;
        case OP_EMPTYCHK:
            pc = regs[in->x] == sp ? in->y : pc + 1;
            continue;
        case OP_BOL: /* Onig: not at the very end, even after a final '\n' */
            if (sp == 0 || (s[sp - 1] == '\n' && sp < len)) { pc++; continue; }
            goto fail;
        case OP_EOL:
            if (sp == len || s[sp] == '\n') { pc++; continue; }
            goto fail;
        case OP_BOS:
            if (sp == 0) { pc++; continue; }
            goto fail;
        case OP_EOS:
            if (sp == len) { pc++; continue; }
            goto fail;
        case OP_EOSNL:
            if (sp == len || (sp + 1 == len && s[sp] == '\n')) { pc++; continue; }
            goto fail;
        case OP_LOOK:
            PUSH(F_LOOK, pc, sp, 0);
            pc++;
            continue;
        case OP_LOOKEND: {
            size_t k = top;
            while (k > 0 && sc->st[k - 1].kind != F_LOOK) k--;
            if (k == 0) return -1; /* cannot happen */
            rx_frame *m = &sc->st[k - 1];
            const rx_inst *li = &prog[m->pc];
            size_t pos = m->pos;
            top = k - 1;
            if (li->sub) goto fail; /* negative lookahead body matched */
            sp = pos;
            pc = li->x;
            continue;
        }
        case OP_MATCH:
            *me = sp;
            *budget = steps;
            return 1;
        default:
            return -1;
        }
    fail:
        for (;;) {
            if (top == 0) { *budget = steps; return 0; }
            if (--steps < 0) { *budget = 0; return -2; }
            rx_frame *f = &sc->st[top - 1];
            switch (f->kind) {
            case F_ALT:
                pc = f->pc;
                sp = f->pos;
                top--;
                goto resume;
            case F_RESTORE:
                regs[f->pc] = f->pos;
                top--;
                continue;
            case F_LOOK:
                top--;
                if (prog[f->pc].sub) { /* negative lookahead: body failed -> success */
                    sp = f->pos;
                    pc = prog[f->pc].x;
                    goto resume;
                }
                continue;
            case F_RUN: {
                size_t p = rx_prev(s, len, f->pos2, f->pos);
                pc = f->pc;
                sp = p;
                if (p <= f->pos2) top--;
                else f->pos = p;
                goto resume;
            }
            default:
                return -1;
            }
        }
    resume:;
    }
}

static inline int start_ok(const tc_regex *re, const uint8_t *s, size_t len, size_t pos) {
    if (re->start_filter == NO_FILTER) return 1;
    return filter_pass(re, re->start_filter, s, len, pos);
}

static int search_impl(const tc_regex *re, const uint8_t *s, size_t len, size_t from, size_t *ms, size_t *me,
                       rx_scratch *sc, int64_t *budget) {
    if (from > len) return 0;
    if (re->anchored) {
        if (from != 0) return 0;
        size_t e;
        int r = vm_run(re, s, len, 0, &e, sc, budget);
        if (r == 1) { *ms = 0; *me = e; }
        return r;
    }
    const rx_filter *sf = re->start_filter == NO_FILTER ? NULL : &re->filters[re->start_filter];
    size_t pos = from;
    for (;;) {
        if (sf) {
            /* fast skip over ASCII bytes that cannot start a match */
            while (pos < len && s[pos] < 0x80 && !BIT_GET(sf->ascii, s[pos])) pos++;
            if (pos < len && s[pos] >= 0x80 && !start_ok(re, s, len, pos)) {
                int n;
                (void)tc_utf8_decode(s, len, pos, &n);
                pos += (size_t)n;
                if (--*budget < 0) return -2;
                continue;
            }
            if (pos >= len && !sf->all) return 0;
        }
        size_t e;
        int r = vm_run(re, s, len, pos, &e, sc, budget);
        if (r != 0) {
            if (r == 1) { *ms = pos; *me = e; }
            return r;
        }
        if (pos >= len) return 0;
        int n;
        (void)rx_dec(s, len, pos, &n);
        pos += (size_t)n;
    }
}

static int64_t budget_for(size_t bytes) {
    uint64_t b = (uint64_t)bytes;
    if (b > (uint64_t)INT64_MAX / 2 / TC_REGEX_STEP_LIMIT) return INT64_MAX / 2;
    return (int64_t)(b * TC_REGEX_STEP_LIMIT + TC_REGEX_STEP_BASE);
}

int tc_regex_search(const tc_regex *re, const uint8_t *subject, size_t len, size_t from, size_t *ms, size_t *me) {
    if (!re || (!subject && len)) return -1;
    if (!subject) subject = (const uint8_t *)"";
    rx_scratch sc;
    if (scratch_init(&sc, re) != 0) return -1;
    int64_t budget = budget_for(from <= len ? len - from : 0);
    int r = search_impl(re, subject, len, from, ms, me, &sc, &budget);
    scratch_free(&sc);
    return r;
}

int tc_regex_find_all(const tc_regex *re, const uint8_t *subject, size_t len, size_t **out, size_t *n, size_t *cap) {
    if (!re || (!subject && len) || !out || !n || !cap) return -1;
    if (!subject) subject = (const uint8_t *)"";
    rx_scratch sc;
    if (scratch_init(&sc, re) != 0) return -1;
    int64_t budget = budget_for(len);
    size_t last_end = 0, last_match_end = 0;
    int have_last = 0;
    int rc = 0;
    while (last_end <= len) {
        size_t s, e;
        int r = search_impl(re, subject, len, last_end, &s, &e, &sc, &budget);
        if (r == 0) break;
        if (r < 0) { rc = r; break; }
        if (s == e && have_last && last_match_end == e) {
            if (last_end >= len) break;
            int k;
            (void)rx_dec(subject, len, last_end, &k);
            last_end += (size_t)k;
            continue;
        }
        last_end = e;
        last_match_end = e;
        have_last = 1;
        /* *cap counts size_t entries (two per pair), as every match list of
         * the engine (pretok.c, fastpat.c) that shares the array with us */
        if (2 * *n + 2 > *cap) {
            size_t ncap = *cap >= 64 ? *cap * 2 : 128;
            if (ncap > SIZE_MAX / sizeof(size_t)) { rc = -1; break; }
            size_t *p = realloc(*out, ncap * sizeof(size_t));
            if (!p) { rc = -1; break; }
            *out = p;
            *cap = ncap;
        }
        (*out)[2 * *n] = s;
        (*out)[2 * *n + 1] = e;
        (*n)++;
    }
    scratch_free(&sc);
    return rc;
}

/* ---- introspection -------------------------------------------------------- */

size_t tc_regex_program_size(const tc_regex *re) { return re ? re->nprog : 0; }

int tc_regex_describe(const tc_regex *re, tc_buf *out) {
    static const char *names[] = {"CHAR", "CHARI", "ANY", "CLASS", "RUN", "SPLIT", "JMP", "SAVEPOS", "EMPTYCHK",
                                  "BOL", "EOL", "BOS", "EOS", "EOSNL", "LOOK", "LOOKEND", "MATCH"};
    char line[160];
    for (size_t i = 0; i < re->nprog; i++) {
        const rx_inst *in = &re->prog[i];
        int k;
        switch (in->op) {
        case OP_RUN:
            k = snprintf(line, sizeof line, "%4zu RUN %s %ld {%u,%ld}\n", i, names[in->sub], (long)in->x, in->a,
                         in->b == REP_INF ? -1L : (long)in->b);
            break;
        case OP_SPLIT:
            k = snprintf(line, sizeof line, "%4zu SPLIT %ld%s, %ld%s\n", i, (long)in->x, in->a != NO_FILTER ? "[g]" : "",
                         (long)in->y, in->b != NO_FILTER ? "[g]" : "");
            break;
        case OP_LOOK:
            k = snprintf(line, sizeof line, "%4zu LOOK%s -> %ld\n", i, in->sub ? " NEG" : "", (long)in->x);
            break;
        default:
            k = snprintf(line, sizeof line, "%4zu %s %ld %ld\n", i, names[in->op], (long)in->x, (long)in->y);
            break;
        }
        if (k < 0) return -1;
        if (tc_buf_append(out, line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1) != 0) return -1;
    }
    return 0;
}
