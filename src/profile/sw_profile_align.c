/* The plain CPU reference of profile-profile alignment (sw_profile_align.h). */
#include "sw_profile_align.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sw_clock.h"
#include "sw_pool.h"

struct sw_profile_alignment {
    int64_t score;
    sw_profile_pair *pairs;
    size_t n;
};

/* Traceback byte: where H came from, and whether E and F opened there. */
enum { FROM_DIAG = 0, FROM_E = 1, FROM_F = 2, E_OPENED = 4, F_OPENED = 8 };

#define NEG (INT64_MIN / 4)

/* Column scores of a against b, with the part that depends on b alone
 * computed once per column of b: for EXPECTED, m_b[a] = sum over b of
 * M[a][b] g[b]; for EUCLID, |g|^2. A column of a lists its nonzero
 * frequencies, so a cell costs a handful of products. */
typedef struct scorer {
    const sw_profile_scoring *s;
    int64_t *b_terms; /* columns of b x SW_PROFILE_SYMBOLS (EXPECTED) or x 1 (EUCLID) */
    uint8_t *a_nz_sym, *a_nz_freq;
    uint8_t *a_nz_count;
    int64_t *a_norm;
    const sw_profile *b;
} scorer;

static int scorer_init(scorer *c, const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->b = b;
    const size_t na = sw_profile_columns(a), nb = sw_profile_columns(b);
    const size_t per = s->kind == SW_PROFILE_EXPECTED ? SW_PROFILE_SYMBOLS : 1;
    c->b_terms = malloc((nb ? nb : 1) * per * sizeof *c->b_terms);
    c->a_nz_sym = malloc((na ? na : 1) * SW_PROFILE_SYMBOLS);
    c->a_nz_freq = malloc((na ? na : 1) * SW_PROFILE_SYMBOLS);
    c->a_nz_count = malloc(na ? na : 1);
    c->a_norm = malloc((na ? na : 1) * sizeof *c->a_norm);
    if (!c->b_terms || !c->a_nz_sym || !c->a_nz_freq || !c->a_nz_count || !c->a_norm) return -1;
    for (size_t j = 0; j < nb; ++j) {
        const uint8_t *g = sw_profile_column(b, j);
        if (s->kind == SW_PROFILE_EXPECTED) {
            for (int x = 0; x < SW_PROFILE_SYMBOLS; ++x) {
                int64_t t = 0;
                for (int y = 0; y < SW_PROFILE_SYMBOLS; ++y) t += (int64_t)sw_profile_symbol_score(s, x, y) * g[y];
                c->b_terms[j * per + x] = t;
            }
        } else {
            int64_t t = 0;
            for (int x = 0; x < SW_PROFILE_SYMBOLS; ++x) t += (int64_t)g[x] * g[x];
            c->b_terms[j] = t;
        }
    }
    for (size_t i = 0; i < na; ++i) {
        const uint8_t *f = sw_profile_column(a, i);
        int k = 0;
        int64_t norm = 0;
        for (int x = 0; x < SW_PROFILE_SYMBOLS; ++x) {
            norm += (int64_t)f[x] * f[x];
            if (f[x]) {
                c->a_nz_sym[i * SW_PROFILE_SYMBOLS + k] = (uint8_t)x;
                c->a_nz_freq[i * SW_PROFILE_SYMBOLS + k] = f[x];
                ++k;
            }
        }
        c->a_nz_count[i] = (uint8_t)k;
        c->a_norm[i] = norm;
    }
    return 0;
}

static void scorer_free(scorer *c)
{
    free(c->b_terms);
    free(c->a_nz_sym);
    free(c->a_nz_freq);
    free(c->a_nz_count);
    free(c->a_norm);
}

/* Equals sw_profile_pair_score on the two columns. */
static inline int64_t cell_score(const scorer *c, size_t i, size_t j)
{
    const uint8_t *sym = c->a_nz_sym + i * SW_PROFILE_SYMBOLS, *fr = c->a_nz_freq + i * SW_PROFILE_SYMBOLS;
    const int k = c->a_nz_count[i];
    int64_t v = 0;
    if (c->s->kind == SW_PROFILE_EXPECTED) {
        const int64_t *t = c->b_terms + j * SW_PROFILE_SYMBOLS;
        for (int q = 0; q < k; ++q) v += fr[q] * t[sym[q]];
        return v;
    }
    const uint8_t *g = sw_profile_column(c->b, j);
    for (int q = 0; q < k; ++q) v += (int64_t)fr[q] * g[sym[q]];
    /* -(|f|^2 + |g|^2 - 2 f.g) */
    return 2 * v - c->a_norm[i] - c->b_terms[j];
}

int sw_profile_rescore(const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s,
                       const sw_profile_pair *pairs, size_t n, int64_t *score, sw_error *err)
{
    int64_t v = 0, next_a = 0, next_b = 0;
    int run = 0; /* 0 none, 1 a column of b against gaps, 2 one of a */
    for (size_t k = 0; k < n; ++k) {
        const sw_profile_pair p = pairs[k];
        if (p.a >= 0 && p.a != next_a) return sw_error_set(err, SW_EINVAL, "pair %zu: column %lld of the first profile out of order", k, (long long)p.a);
        if (p.b >= 0 && p.b != next_b) return sw_error_set(err, SW_EINVAL, "pair %zu: column %lld of the second profile out of order", k, (long long)p.b);
        if (p.a >= 0 && p.b >= 0) {
            v += sw_profile_pair_score(s, sw_profile_column(a, (size_t)p.a), sw_profile_column(b, (size_t)p.b));
            run = 0;
        } else if (p.b >= 0) {
            const uint8_t *col = sw_profile_column(b, (size_t)p.b);
            v -= sw_profile_gap_cost(s, col) + (run == 1 ? 0 : sw_profile_gap_open_cost(s, col));
            run = 1;
        } else if (p.a >= 0) {
            const uint8_t *col = sw_profile_column(a, (size_t)p.a);
            v -= sw_profile_gap_cost(s, col) + (run == 2 ? 0 : sw_profile_gap_open_cost(s, col));
            run = 2;
        } else {
            return sw_error_set(err, SW_EINVAL, "pair %zu has no column", k);
        }
        if (p.a >= 0) ++next_a;
        if (p.b >= 0) ++next_b;
    }
    if ((size_t)next_a != sw_profile_columns(a) || (size_t)next_b != sw_profile_columns(b))
        return sw_error_set(err, SW_EINVAL, "the pairs cover %lld and %lld columns, not %zu and %zu", (long long)next_a,
                            (long long)next_b, sw_profile_columns(a), sw_profile_columns(b));
    *score = v;
    return SW_OK;
}

/* Every engine's result re-scored from its columns: it must score what the
 * recurrences said. */
static int check_alignment(const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s,
                           const sw_profile_alignment *x, sw_error *err)
{
    int64_t check;
    const int rc = sw_profile_rescore(a, b, s, x->pairs, x->n, &check, err);
    if (rc) return rc;
    if (check != x->score)
        return sw_error_set(err, SW_ECORRUPT, "the profile alignment re-scores to %lld, not %lld", (long long)check,
                            (long long)x->score);
    return SW_OK;
}

/* What every engine's cells share: the column scores, the gap costs by
 * column, and the traceback bytes. */
typedef struct dp {
    scorer sc;
    const int64_t *gap_a, *gap_b, *open_a, *open_b;
    uint8_t *tb;
    size_t n;
    int64_t *row_h, *row_f; /* H and F of the last row done, by column (0..n) */
} dp;

/* Fills cells (i, j) for i in r0..r1-1 and j in c0..c1-1 (1-based), from
 * row_h / row_f at those columns (the row above) and col_h / col_e, the
 * column to the left: col_h[k] = H(r0 - 1 + k, c0 - 1) for k = 0..rows,
 * col_e[k] = E(r0 + k, c0 - 1). Leaves in them the bottom row and the right
 * column, so that the tile below and the tile to the right can go on: the
 * one way every engine computes a cell, so all agree to the byte. */
static void fill_tile(const dp *d, size_t r0, size_t r1, size_t c0, size_t c1, int64_t *col_h, int64_t *col_e)
{
    int64_t *const h = d->row_h, *const f = d->row_f;
    const size_t n1 = d->n + 1;
    /* The tile's top-right corner, for the right column's first entry. */
    int64_t up_corner = h[c1 - 1];
    for (size_t i = r0; i < r1; ++i) {
        const size_t k = i - r0;
        int64_t diag = col_h[k];
        int64_t left = col_h[k + 1];
        int64_t e = col_e[k];
        uint8_t *row = d->tb + i * n1;
        const int64_t ga = d->gap_a[i - 1], oa = d->open_a[i - 1];
        for (size_t j = c0; j < c1; ++j) {
            uint8_t t = 0;
            const int64_t e_open = left - d->open_b[j - 1] - d->gap_b[j - 1], e_ext = e - d->gap_b[j - 1];
            if (e_open >= e_ext) {
                e = e_open;
                t |= E_OPENED;
            } else {
                e = e_ext;
            }
            const int64_t f_open = h[j] - oa - ga, f_ext = f[j] - ga;
            if (f_open >= f_ext) {
                f[j] = f_open;
                t |= F_OPENED;
            } else {
                f[j] = f_ext;
            }
            int64_t v = diag + cell_score(&d->sc, i - 1, j - 1);
            if (e > v) {
                v = e;
                t |= FROM_E;
            }
            if (f[j] > v && f[j] > e) {
                v = f[j];
                t = (uint8_t)((t & ~3) | FROM_F);
            }
            diag = h[j];
            h[j] = v;
            row[j] = t;
            left = v;
        }
        /* The right column: H(i - 1, c1 - 1) went into diag's place above;
         * keep H(i, c1 - 1) and E(i, c1 - 1). */
        col_h[k] = up_corner;
        up_corner = left;
        col_e[k] = e;
    }
    col_h[r1 - r0] = up_corner;
}

/* The multi-threaded engine: tiles of TILE_ROWS x TILE_COLS cells, one
 * anti-diagonal of tiles after another, the tiles of a diagonal side by
 * side (the wavefront of Hanif and Zimmermann's GPU version, on CPU
 * threads). */
#define TILE_ROWS 64
#define TILE_COLS 512

typedef struct wave {
    const dp *d;
    size_t m, tiles_r, tiles_c, diagonal;
    int64_t *col_h, *col_e; /* per tile row: TILE_ROWS + 1 and TILE_ROWS entries */
    atomic_size_t next;
} wave;

static void wave_worker(void *ctx, int index)
{
    (void)index;
    wave *w = ctx;
    const size_t first_r = w->diagonal >= w->tiles_c ? w->diagonal - w->tiles_c + 1 : 0;
    const size_t last_r = w->diagonal < w->tiles_r ? w->diagonal : w->tiles_r - 1;
    for (;;) {
        const size_t r = first_r + atomic_fetch_add(&w->next, 1);
        if (r > last_r) break;
        const size_t c = w->diagonal - r;
        const size_t r0 = 1 + r * TILE_ROWS, c0 = 1 + c * TILE_COLS;
        const size_t r1 = r0 + TILE_ROWS <= w->m + 1 ? r0 + TILE_ROWS : w->m + 1;
        const size_t c1 = c0 + TILE_COLS <= w->d->n + 1 ? c0 + TILE_COLS : w->d->n + 1;
        fill_tile(w->d, r0, r1, c0, c1, w->col_h + r * (TILE_ROWS + 1), w->col_e + r * TILE_ROWS);
    }
}

int sw_profile_align(const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s,
                     sw_profile_alignment **out, sw_error *err)
{
    return sw_profile_align_threads(a, b, s, 1, out, err);
}

int sw_profile_align_threads(const sw_profile *a, const sw_profile *b, const sw_profile_scoring *s, int threads,
                             sw_profile_alignment **out, sw_error *err)
{
    *out = NULL;
    const size_t m = sw_profile_columns(a), n = sw_profile_columns(b);
    if ((uint64_t)(m + 1) * (uint64_t)(n + 1) > SW_PROFILE_MAX_CELLS)
        return sw_error_set(err, SW_ELIMIT, "profiles of %zu and %zu columns: the reference engine holds at most %llu cells",
                            m, n, (unsigned long long)SW_PROFILE_MAX_CELLS);
    if (s->gap_open < 0 || (s->kind == SW_PROFILE_EXPECTED && (s->gap_extend < 1 || !s->matrix)))
        return sw_error_set(err, SW_EINVAL, "profile scoring: invalid gap costs or no matrix");
    if (threads <= 0) threads = sw_clock_online_cpus();
    const size_t tiles_r = (m + TILE_ROWS - 1) / TILE_ROWS, tiles_c = (n + TILE_COLS - 1) / TILE_COLS;
    /* One tile, or one column of tiles, is the reference: the same code
     * over the whole matrix on this thread. */
    const int tiled = threads > 1 && tiles_r > 1 && tiles_c > 1;
    sw_profile_alignment *x = calloc(1, sizeof *x);
    uint8_t *tb = malloc((m + 1) * (n + 1));
    int64_t *h = malloc((n + 1) * sizeof *h), *f = malloc((n + 1) * sizeof *f);
    /* Per column: its cost against a gap, and the cost of a gap opening there. */
    int64_t *gap_a = malloc(2 * (m + 1) * sizeof *gap_a), *gap_b = malloc(2 * (n + 1) * sizeof *gap_b);
    int64_t *const open_a = gap_a ? gap_a + m + 1 : NULL, *const open_b = gap_b ? gap_b + n + 1 : NULL;
    const size_t col_rows = tiled ? tiles_r : 1, col_len = tiled ? TILE_ROWS : m;
    int64_t *col_h = malloc(col_rows * (col_len + 1) * sizeof *col_h), *col_e = malloc((col_rows * col_len + 1) * sizeof *col_e);
    dp d;
    memset(&d, 0, sizeof d);
    const int sc_bad = scorer_init(&d.sc, a, b, s);
    int rc = SW_OK;
    if (!x || !tb || !h || !f || !gap_a || !gap_b || !col_h || !col_e || sc_bad) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory for %zu x %zu profile columns", m, n);
        goto done;
    }
    for (size_t i = 0; i < m; ++i) {
        gap_a[i] = sw_profile_gap_cost(s, sw_profile_column(a, i));
        open_a[i] = sw_profile_gap_open_cost(s, sw_profile_column(a, i));
    }
    for (size_t j = 0; j < n; ++j) {
        gap_b[j] = sw_profile_gap_cost(s, sw_profile_column(b, j));
        open_b[j] = sw_profile_gap_open_cost(s, sw_profile_column(b, j));
    }
    d.gap_a = gap_a;
    d.gap_b = gap_b;
    d.open_a = open_a;
    d.open_b = open_b;
    d.tb = tb;
    d.n = n;
    d.row_h = h;
    d.row_f = f;

    /* Row 0: columns of b against gaps; F (columns of a against gaps) has
     * none yet. Column 0: columns of a against gaps; E has none. */
    h[0] = 0;
    f[0] = NEG;
    int64_t acc = n ? -open_b[0] : 0;
    for (size_t j = 1; j <= n; ++j) {
        acc -= gap_b[j - 1];
        h[j] = acc;
        f[j] = NEG;
    }
    if (m && n) {
        int64_t down = -open_a[0];
        const size_t stride = col_len + 1;
        for (size_t i = 0; i <= m; ++i) {
            /* H(i, 0) into the column of tile row (i - 1) / rows, and the
             * last row of a tile row again as the first of the next. */
            const int64_t v = i ? (down -= gap_a[i - 1]) : 0;
            if (tiled) {
                const size_t r = i ? (i - 1) / TILE_ROWS : 0, k = i ? (i - 1) % TILE_ROWS + 1 : 0;
                col_h[r * stride + k] = v;
                if (k == TILE_ROWS && r + 1 < tiles_r) col_h[(r + 1) * stride] = v;
                if (i) col_e[r * TILE_ROWS + k - 1] = NEG;
            } else {
                col_h[i] = v;
                if (i) col_e[i - 1] = NEG;
            }
        }
        if (!tiled) {
            fill_tile(&d, 1, m + 1, 1, n + 1, col_h, col_e);
        } else {
            wave w = {&d, m, tiles_r, tiles_c, 0, col_h, col_e, 0};
            for (size_t diag = 0; diag + 1 < tiles_r + tiles_c; ++diag) {
                w.diagonal = diag;
                atomic_store(&w.next, 0);
                const size_t r_lo = diag >= tiles_c ? diag - tiles_c + 1 : 0, r_hi = diag < tiles_r ? diag : tiles_r - 1;
                const size_t count = r_hi - r_lo + 1;
                int started = 0;
                if (count > 1) sw_pool_run(count < (size_t)threads ? (int)count : threads, wave_worker, &w, &started);
                /* Whatever no thread took (none could start, or one tile), here. */
                wave_worker(&w, 0);
            }
        }
    } else {
        /* A profile without columns: the other's columns against gaps. */
        int64_t down = m ? -open_a[0] : 0;
        for (size_t i = 1; i <= m; ++i) down -= gap_a[i - 1];
        if (m) h[0] = down;
    }
    x->score = m ? (n ? h[n] : h[0]) : h[n];

    /* Traceback from (m, n), collected backwards. */
    x->pairs = malloc((m + n + 1) * sizeof *x->pairs);
    if (!x->pairs) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory");
        goto done;
    }
    size_t k = 0, i = m, j = n;
    int state = FROM_DIAG;
    while (i > 0 || j > 0) {
        if (i == 0) {
            x->pairs[k++] = (sw_profile_pair){-1, (int64_t)--j};
            continue;
        }
        if (j == 0) {
            x->pairs[k++] = (sw_profile_pair){(int64_t)--i, -1};
            continue;
        }
        const uint8_t t = tb[i * (n + 1) + j];
        if (state == FROM_DIAG) state = t & 3;
        if (state == FROM_DIAG) {
            x->pairs[k++] = (sw_profile_pair){(int64_t)--i, (int64_t)--j};
        } else if (state == FROM_E) {
            x->pairs[k++] = (sw_profile_pair){-1, (int64_t)--j};
            if (t & E_OPENED) state = FROM_DIAG;
        } else {
            x->pairs[k++] = (sw_profile_pair){(int64_t)--i, -1};
            if (t & F_OPENED) state = FROM_DIAG;
        }
    }
    for (size_t p = 0; p < k / 2; ++p) {
        const sw_profile_pair t = x->pairs[p];
        x->pairs[p] = x->pairs[k - 1 - p];
        x->pairs[k - 1 - p] = t;
    }
    x->n = k;
    rc = check_alignment(a, b, s, x, err);

done:
    scorer_free(&d.sc);
    free(col_h);
    free(col_e);
    free(tb);
    free(h);
    free(f);
    free(gap_a);
    free(gap_b);
    if (rc) {
        sw_profile_alignment_free(x);
        return rc;
    }
    *out = x;
    return SW_OK;
}

void sw_profile_alignment_free(sw_profile_alignment *x)
{
    if (!x) return;
    free(x->pairs);
    free(x);
}

int64_t sw_profile_alignment_score(const sw_profile_alignment *x) { return x->score; }
size_t sw_profile_alignment_length(const sw_profile_alignment *x) { return x->n; }
sw_profile_pair sw_profile_alignment_pair(const sw_profile_alignment *x, size_t k) { return x->pairs[k]; }

/* The GPU's steps made into column pairs and re-scored, on every core: a
 * pair at a time. */
typedef struct gpu_results {
    const sw_profile *const *a, *const *b;
    const sw_profile_scoring *s;
    const sw_profile_gpu_result *res;
    sw_profile_alignment **got;
} gpu_results;

static int take_gpu_result(void *ctx, int worker, size_t q, sw_error *err)
{
    (void)worker;
    const gpu_results *g = ctx;
    sw_profile_alignment *x = g->got[q];
    int64_t i = 0, j = 0;
    x->score = g->res[q].score;
    for (size_t t = 0; t < g->res[q].length; ++t) {
        const uint8_t step = g->res[q].steps[t];
        x->pairs[t] = (sw_profile_pair){step == SW_PROFILE_GPU_B_ONLY ? -1 : i++,
                                        step == SW_PROFILE_GPU_A_ONLY ? -1 : j++};
    }
    x->n = g->res[q].length;
    return check_alignment(g->a[q], g->b[q], g->s, x, err);
}

int sw_profile_align_gpu(const sw_profile *const *a, const sw_profile *const *b, size_t count,
                         const sw_profile_scoring *s, const sw_profile_gpu_options *opt, sw_profile_alignment **out,
                         sw_profile_gpu_stats *stats, sw_error *err)
{
    if (stats) memset(stats, 0, sizeof *stats);
    if (s->gap_open < 0 || (s->kind == SW_PROFILE_EXPECTED && (s->gap_extend < 1 || !s->matrix)))
        return sw_error_set(err, SW_EINVAL, "profile scoring: invalid gap costs or no matrix");
    sw_profile_gpu_scoring g;
    memset(&g, 0, sizeof g);
    g.euclid = s->kind == SW_PROFILE_EUCLID;
    g.symbols = SW_PROFILE_SYMBOLS;
    g.scale = SW_PROFILE_SCALE;
    g.gap_open = s->gap_open;
    g.gap_extend = s->gap_extend;
    if (!g.euclid)
        for (int x = 0; x < SW_PROFILE_SYMBOLS; ++x)
            for (int y = 0; y < SW_PROFILE_SYMBOLS; ++y) {
                const int v = sw_profile_symbol_score(s, x, y);
                if (v < INT16_MIN || v > INT16_MAX)
                    return sw_error_set(err, SW_ELIMIT, "GPU profile engine: a symbol score of %d is out of its range", v);
                g.matrix[x * SW_PROFILE_GPU_SYMBOLS + y] = (int16_t)v;
            }
    sw_profile_gpu_pair *pairs = malloc((count ? count : 1) * sizeof *pairs);
    sw_profile_gpu_result *res = malloc((count ? count : 1) * sizeof *res);
    sw_profile_alignment **got = calloc(count ? count : 1, sizeof *got);
    int rc = SW_OK;
    size_t ready = 0; /* pairs with their buffers */
    if (!pairs || !res || !got) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory for %zu profile pairs", count);
        goto done;
    }
    for (size_t k = 0; k < count; ++k) {
        const size_t m = sw_profile_columns(a[k]), n = sw_profile_columns(b[k]);
        if (m > INT32_MAX / 2 || n > INT32_MAX / 2) {
            rc = sw_error_set(err, SW_ELIMIT, "GPU profile engine: profiles of %zu and %zu columns", m, n);
            goto done;
        }
        sw_profile_alignment *x = calloc(1, sizeof *x);
        if (x) x->pairs = malloc((m + n) * sizeof *x->pairs);
        uint8_t *steps = malloc(m + n);
        if (!x || !x->pairs || !steps) {
            sw_profile_alignment_free(x);
            free(steps);
            rc = sw_error_set(err, SW_ENOMEM, "out of memory for the alignment of %zu x %zu columns", m, n);
            goto done;
        }
        got[k] = x;
        pairs[k] = (sw_profile_gpu_pair){sw_profile_column(a[k], 0), sw_profile_column(b[k], 0), (int32_t)m,
                                         (int32_t)n};
        res[k] = (sw_profile_gpu_result){0, steps, 0};
        ready = k + 1;
    }
    if (count && (rc = sw_profile_gpu_align(&g, pairs, count, opt, res, stats, err))) goto done;
    if (count) {
        gpu_results gr = {.a = a, .b = b, .s = s, .res = res, .got = got};
        const sw_pool_tasks taking = {count, take_gpu_result, NULL, NULL};
        if ((rc = sw_pool_each(sw_clock_online_cpus(), &taking, &gr, NULL, err))) goto done;
    }

done:
    for (size_t q = 0; q < ready; ++q) free(res[q].steps);
    if (rc)
        for (size_t k = 0; k < count; ++k) sw_profile_alignment_free(got[k]);
    else
        for (size_t k = 0; k < count; ++k) out[k] = got[k];
    free(got);
    free(pairs);
    free(res);
    return rc;
}
