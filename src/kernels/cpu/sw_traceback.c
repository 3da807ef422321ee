/* Exact local alignments with a traceback in checkpointed memory.
 *
 * Recurrences (Gotoh), query residue i in rows, subject residue j in
 * columns, a gap of k residues costing open + k * extend:
 *   E(i,j) = max(H(i,j-1) - open - extend, E(i,j-1) - extend)   (D: subject residue, query gap)
 *   F(i,j) = max(H(i-1,j) - open - extend, F(i-1,j) - extend)   (I: query residue, subject gap)
 *   H(i,j) = max(0, H(i-1,j-1) + s(q_i, s_j), E(i,j), F(i,j))
 *
 * Tie rule, the one rule behind every alignment swsearch prints:
 * 1. The end is the first cell holding the best score in column-major
 *    order: the smallest subject end, then the smallest query end (the
 *    striped SIMD engine finds that column at full speed:
 *    sw_simd_align_end()).
 * 2. Walking back, a cell whose H is 0 ends the walk: the alignment starts
 *    with the pair after it, so it never has a prefix that scores 0.
 *    Otherwise H comes from the diagonal when that gives its value, else
 *    from E, else from F; a gap is opened (from H) rather than extended
 *    when both give its value, so each gap is as short as the walk allows.
 *
 * Memory: the forward pass over the whole matrix keeps H and F of every
 * c-th row (the checkpoints). The walk back then recomputes c rows at a
 * time from the checkpoint above them, keeping one byte of directions per
 * cell and only the columns left of where the walk stands, so a pair of
 * m x n residues needs about 8 n m / c + c n bytes; c is chosen near
 * sqrt(8 m) for large pairs and is m (one block) when m n is small.
 * Recomputed values equal the first pass's exactly (integer arithmetic
 * from equal inputs), so the blocks never change the result. */
#include "sw_traceback.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sw_cpu_simd.h"

/* Up to this many cells, one block holds the whole matrix's directions. */
#define ONE_BLOCK_CELLS ((size_t)16 << 20)

/* A direction byte: bits 0-1 the source of H, bit 2 E opened (else
 * extended), bit 3 F opened (else extended). */
enum { FROM_ZERO = 0, FROM_DIAG = 1, FROM_E = 2, FROM_F = 3 };
#define E_OPENED 4u
#define F_OPENED 8u

struct sw_traceback_workspace {
    int32_t *h, *f;         /* one row, n + 1 entries */
    size_t h_cap, f_cap;
    int32_t *checkpoints;   /* H then F of checkpoint rows, 2 (n + 1) each */
    size_t checkpoint_cap;  /* in int32 */
    uint8_t *dirs;          /* one block: rows x (n + 1) */
    size_t dirs_cap;
    uint32_t *runs;         /* runs, built back to front */
    size_t runs_cap;
    /* The SIMD traceback (striped, 16-bit, 64-byte aligned): H, scratch and
     * E of one column; the cells of one block of columns; H and E at the
     * start of every block. */
    int16_t *columns;
    size_t columns_cap;     /* in int16 */
    uint16_t *cells;
    size_t cells_cap;       /* in uint16 */
    int16_t *starts;
    size_t starts_cap;      /* in int16 */
    size_t peak_bytes;
};

int sw_traceback_workspace_create(sw_traceback_workspace **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? SW_OK : SW_ENOMEM;
}

void sw_traceback_workspace_free(sw_traceback_workspace *w)
{
    if (!w) return;
    free(w->h);
    free(w->f);
    free(w->checkpoints);
    free(w->dirs);
    free(w->runs);
    free(w->columns);
    free(w->cells);
    free(w->starts);
    free(w);
}

size_t sw_traceback_workspace_bytes(const sw_traceback_workspace *w) { return w->peak_bytes; }

void sw_alignment_clear(sw_alignment *a)
{
    free(a->runs);
    memset(a, 0, sizeof *a);
}

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return SW_OK;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *p = realloc(*buf, n * elem);
    if (!p) return SW_ENOMEM;
    *buf = p;
    *cap = n;
    return SW_OK;
}

static void note_peak(sw_traceback_workspace *w)
{
    size_t bytes = (w->h_cap + w->f_cap + w->checkpoint_cap) * sizeof(int32_t) + w->dirs_cap +
                   w->runs_cap * sizeof(uint32_t) +
                   (w->columns_cap + w->cells_cap + w->starts_cap) * sizeof(int16_t);
    if (bytes > w->peak_bytes) w->peak_bytes = bytes;
}

/* "Minus infinity" for E and F: no path through it can win, and taking gap
 * costs from it cannot wrap. */
#define NEG_INF (INT32_MIN / 2)

/* Rows first+1 .. last of the matrix over columns 1..cols from H and F of
 * row `first` (h, f: cols + 1 entries, overwritten with row `last`),
 * storing each row's directions in `dirs` (row-major, cols + 1 bytes a
 * row, row first+1 first). Tracks the first best cell (column-major) in
 * *best, *best_i, *best_j. The loop keeps every value in a local and picks
 * each maximum without a branch the compiler cannot turn into a select. */
/* One cell of the recurrences: H from its diagonal, up and left
 * neighbours, E and F updated in place, the direction byte returned. Ties
 * prefer the diagonal, then E, then F; a gap is opened rather than
 * extended when both give its value; H <= 0 starts anew. */
#define SW_TB_CELL(diag, up, left, e, f_cell, score, v, dir)                                   \
    do {                                                                                     \
        const int32_t e_open_ = (left)-open_ext, e_ext_ = (e)-ext;                          \
        const int32_t f_open_ = (up)-open_ext, f_ext_ = (f_cell)-ext;                       \
        const unsigned e_bit_ = e_open_ >= e_ext_, f_bit_ = f_open_ >= f_ext_;              \
        (e) = e_bit_ ? e_open_ : e_ext_;                                                     \
        const int32_t fv_ = f_bit_ ? f_open_ : f_ext_;                                       \
        (f_cell) = fv_;                                                                      \
        int32_t v_ = (diag) + (score);                                                       \
        unsigned from_ = FROM_DIAG;                                                          \
        from_ = (e) > v_ ? FROM_E : from_;                                                   \
        v_ = (e) > v_ ? (e) : v_;                                                            \
        from_ = fv_ > v_ ? FROM_F : from_;                                                   \
        v_ = fv_ > v_ ? fv_ : v_;                                                            \
        from_ = v_ <= 0 ? FROM_ZERO : from_;                                                 \
        (v) = v_ <= 0 ? 0 : v_;                                                              \
        (dir) = (uint8_t)(from_ | (e_bit_ ? E_OPENED : 0u) | (f_bit_ ? F_OPENED : 0u));      \
    } while (0)

/* The first best cell in column-major order. Cells come row by row, or two
 * rows at once with the lower one a column behind; either way a cell comes
 * before every cell below it in its column, so an equal score replaces the
 * best only from an earlier column. */
#define SW_TB_BEST(v, i, j)                                                                  \
    do {                                                                                     \
        if ((v) > best || ((v) == best && (v) > 0 && (j) < bj)) {                            \
            best = (v);                                                                      \
            bi = (i);                                                                        \
            bj = (j);                                                                        \
        }                                                                                    \
    } while (0)

/* Rows first+1 .. last of the matrix over columns 1..cols from H and F of
 * row `first` (h, f: cols + 1 entries, overwritten with row `last`),
 * storing each row's directions in `dirs` (row-major, cols + 1 bytes a
 * row, row first+1 first). Tracks the first best cell (column-major) in
 * *best, *best_i, *best_j. Each row's cells form one chain of dependent
 * steps (left to right through E), so rows go two at a time, the second a
 * column behind the first: two independent chains keep the core busy. */
static void fill_rows_dirs(const uint8_t *query, const uint8_t *subject, size_t cols, size_t first,
                           size_t last, const sw_scoring *sc, int32_t *restrict h, int32_t *restrict f,
                           uint8_t *restrict dirs, int *best_out, size_t *best_i, size_t *best_j)
{
    const int32_t open_ext = sc->gap_open + sc->gap_extend, ext = sc->gap_extend;
    int32_t best = *best_out;
    size_t bi = *best_i, bj = *best_j;
    size_t i = first + 1;
    for (; i + 1 <= last && cols >= 1; i += 2) {
        /* Row a = i, row b = i + 1. */
        const int8_t *row_a = sw_scoring_row(sc, query, i - 1);
        const int8_t *row_b = sw_scoring_row(sc, query, i);
        uint8_t *restrict da = dirs + (i - first - 1) * (cols + 1);
        uint8_t *restrict db = da + (cols + 1);
        int32_t diag_a = h[0], e_a = NEG_INF, left_a = 0;
        int32_t diag_b = 0, e_b = NEG_INF, left_b = 0; /* H(i, 0) = 0 is b's first diagonal */
        h[0] = 0;
        /* Column 1 of row a alone. */
        {
            const int32_t up = h[1];
            int32_t v;
            uint8_t dir;
            SW_TB_CELL(diag_a, up, left_a, e_a, f[1], row_a[subject[0]], v, dir);
            diag_a = up;
            h[1] = v;
            left_a = v;
            da[1] = dir;
            SW_TB_BEST(v, i, (size_t)1);
        }
        for (size_t j = 2; j <= cols; j++) {
            /* Row a, column j: reads H(i-1, j) and F(i-1, j). */
            const int32_t up_a = h[j];
            int32_t va;
            uint8_t dir_a;
            SW_TB_CELL(diag_a, up_a, left_a, e_a, f[j], row_a[subject[j - 1]], va, dir_a);
            /* Row b, column j-1: reads H(i, j-1) and F(i, j-1), which row a
             * wrote one step ago. */
            const int32_t up_b = h[j - 1];
            int32_t vb;
            uint8_t dir_b;
            SW_TB_CELL(diag_b, up_b, left_b, e_b, f[j - 1], row_b[subject[j - 2]], vb, dir_b);
            diag_a = up_a;
            h[j] = va;
            left_a = va;
            da[j] = dir_a;
            SW_TB_BEST(va, i, j);
            diag_b = up_b;
            h[j - 1] = vb;
            left_b = vb;
            db[j - 1] = dir_b;
            SW_TB_BEST(vb, i + 1, j - 1);
        }
        /* Column cols of row b alone. */
        {
            const int32_t up = h[cols];
            int32_t v;
            uint8_t dir;
            SW_TB_CELL(diag_b, up, left_b, e_b, f[cols], row_b[subject[cols - 1]], v, dir);
            h[cols] = v;
            db[cols] = dir;
            SW_TB_BEST(v, i + 1, cols);
        }
    }
    for (; i <= last; i++) {
        const int8_t *row = sw_scoring_row(sc, query, i - 1);
        uint8_t *restrict d = dirs + (i - first - 1) * (cols + 1);
        int32_t diag = h[0], e = NEG_INF, left = 0;
        h[0] = 0;
        for (size_t j = 1; j <= cols; j++) {
            const int32_t up = h[j];
            int32_t v;
            uint8_t dir;
            SW_TB_CELL(diag, up, left, e, f[j], row[subject[j - 1]], v, dir);
            diag = up;
            h[j] = v;
            left = v;
            d[j] = dir;
            SW_TB_BEST(v, i, j);
        }
    }
    *best_out = best;
    *best_i = bi;
    *best_j = bj;
}

/* Rows 1..last without directions: the best cell (column-major first) and H
 * and F of every c-th row into `checkpoints` (2 (cols + 1) entries each,
 * row 0's filled by the caller). */
static void fill_rows_scan(const uint8_t *query, const uint8_t *subject, size_t cols, size_t last,
                           const sw_scoring *sc, int32_t *restrict h, int32_t *restrict f,
                           int32_t *restrict checkpoints, size_t c, int *best_out, size_t *best_i,
                           size_t *best_j)
{
    const int32_t open_ext = sc->gap_open + sc->gap_extend, ext = sc->gap_extend;
    int32_t best = *best_out;
    size_t bi = *best_i, bj = *best_j;
    for (size_t i = 1; i <= last; i++) {
        const int8_t *row = sw_scoring_row(sc, query, i - 1);
        int32_t diag = h[0], e = NEG_INF, left = 0, row_best = 0;
        size_t row_bj = 0;
        h[0] = 0;
        for (size_t j = 1; j <= cols; j++) {
            const int32_t up = h[j];
            const int32_t e_open = left - open_ext, e_ext = e - ext;
            const int32_t f_open = up - open_ext, f_ext = f[j] - ext;
            e = e_open >= e_ext ? e_open : e_ext;
            const int32_t fv = f_open >= f_ext ? f_open : f_ext;
            f[j] = fv;
            int32_t v = diag + row[subject[j - 1]];
            v = e > v ? e : v;
            v = fv > v ? fv : v;
            v = v < 0 ? 0 : v;
            diag = up;
            h[j] = v;
            left = v;
            row_bj = v > row_best ? j : row_bj;
            row_best = v > row_best ? v : row_best;
        }
        if (row_best > best || (row_best == best && row_best > 0 && row_bj < bj)) {
            best = row_best;
            bi = i;
            bj = row_bj;
        }
        if (i % c == 0) {
            int32_t *cp = checkpoints + (i / c) * 2 * (cols + 1);
            memcpy(cp, h, (cols + 1) * sizeof *h);
            memcpy(cp + cols + 1, f, (cols + 1) * sizeof *f);
        }
    }
    *best_out = best;
    *best_i = bi;
    *best_j = bj;
}

static int push_run(sw_traceback_workspace *w, size_t *n, int op)
{
    if (*n && SW_OP_KIND(w->runs[*n - 1]) == (uint32_t)op) {
        w->runs[*n - 1] += 1u << 2;
        return SW_OK;
    }
    if (grow((void **)&w->runs, &w->runs_cap, *n + 1, sizeof *w->runs)) return SW_ENOMEM;
    w->runs[(*n)++] = SW_OP_RUN(op, 1);
    return SW_OK;
}

/* The result from the runs the walk pushed (last column first), the cell
 * (i, j) before the first column and the end cell (bi, bj), 1-based. */
static int finish_alignment(sw_traceback_workspace *w, size_t nruns, size_t i, size_t j, int best, size_t bi,
                            size_t bj, const uint8_t *query, const uint8_t *subject, const sw_scoring *sc,
                            sw_alignment *result, sw_error *err)
{
    result->runs = malloc((nruns ? nruns : 1) * sizeof *result->runs);
    if (!result->runs) return sw_error_set(err, SW_ENOMEM, "out of memory aligning");
    size_t qi = i, sj = j; /* the cell before the first column */
    result->score = best;
    result->query_start = qi + 1;
    result->subject_start = sj + 1;
    result->query_end = bi;
    result->subject_end = bj;
    result->num_runs = nruns;
    for (size_t k = 0; k < nruns; k++) {
        uint32_t run = w->runs[nruns - 1 - k];
        size_t len = SW_OP_LEN(run);
        result->runs[k] = run;
        result->length += len;
        if (SW_OP_KIND(run) == SW_OP_M) {
            for (size_t t = 0; t < len; t++) {
                uint8_t a = query[qi + t], b = subject[sj + t];
                if (a == b) result->identities++;
                if (sw_scoring_row(sc, query, qi + t)[b] > 0) result->positives++;
            }
            qi += len;
            sj += len;
        } else {
            result->gap_opens++;
            result->gaps += len;
            if (SW_OP_KIND(run) == SW_OP_I) qi += len;
            else sj += len;
        }
    }
    result->mismatches = result->length - result->gaps - result->identities;
    return SW_OK;
}

static int check_args(const uint8_t *query, size_t query_len, const uint8_t *subject,
                      size_t subject_len, const sw_scoring *sc, sw_error *err)
{
    if (!sc || !sc->table || (query_len && !query) || (subject_len && !subject))
        return sw_error_set(err, SW_EINVAL, "alignment: missing sequence or scoring");
    if (query_len > UINT32_MAX / 4 || subject_len > UINT32_MAX / 4)
        return sw_error_set(err, SW_ELIMIT, "alignment: sequences longer than %u residues",
                            UINT32_MAX / 4);
    /* The best score must fit int32 with room for gap costs. */
    size_t shorter = query_len < subject_len ? query_len : subject_len;
    if (sc->max_score > 0 && shorter > (size_t)(INT32_MAX / 4) / (size_t)sc->max_score)
        return sw_error_set(err, SW_ELIMIT, "alignment: scores could exceed 32 bits");
    for (size_t i = 0; i < query_len; i++)
        if (query[i] >= SW_CODE_LIMIT) return sw_error_set(err, SW_EINVAL, "alignment: bad residue code");
    for (size_t j = 0; j < subject_len; j++)
        if (subject[j] >= SW_CODE_LIMIT) return sw_error_set(err, SW_EINVAL, "alignment: bad residue code");
    return SW_OK;
}

int sw_traceback_align_blocked(sw_traceback_workspace *w, const uint8_t *query, size_t query_len,
                               const uint8_t *subject, size_t subject_len, const sw_scoring *sc,
                               size_t block_rows, sw_alignment *result, sw_error *err)
{
    memset(result, 0, sizeof *result);
    int rc = check_args(query, query_len, subject, subject_len, sc, err);
    if (rc) return rc;
    if (!query_len || !subject_len) return SW_OK;
    const size_t m = query_len, n = subject_len, cols = n + 1;
    size_t c = block_rows;
    if (!c) {
        if (m <= ONE_BLOCK_CELLS / cols) {
            c = m;
        } else {
            c = (size_t)sqrt(8.0 * (double)m);
            if (c < 16) c = 16;
        }
    }
    if (c > m) c = m;
    const size_t num_checkpoints = m / c + 1;
    if (grow((void **)&w->h, &w->h_cap, cols, sizeof *w->h) ||
        grow((void **)&w->f, &w->f_cap, cols, sizeof *w->f) ||
        grow((void **)&w->checkpoints, &w->checkpoint_cap, num_checkpoints * 2 * cols,
             sizeof *w->checkpoints) ||
        grow((void **)&w->dirs, &w->dirs_cap, c * cols, 1))
        return sw_error_set(err, SW_ENOMEM, "out of memory aligning %zu x %zu residues", m, n);
    note_peak(w);

    /* Forward: the best score and its first cell; with one block, the
     * directions of every cell at once, else the checkpoints. */
    for (size_t j = 0; j < cols; j++) {
        w->h[j] = 0;
        w->f[j] = NEG_INF;
        w->checkpoints[j] = 0;
        w->checkpoints[cols + j] = NEG_INF;
    }
    int best = 0;
    size_t bi = 0, bj = 0;
    const int one_block = c == m;
    if (one_block)
        fill_rows_dirs(query, subject, n, 0, m, sc, w->h, w->f, w->dirs, &best, &bi, &bj);
    else
        fill_rows_scan(query, subject, n, m, sc, w->h, w->f, w->checkpoints, c, &best, &bi, &bj);
    if (best == 0) return SW_OK;

    /* Back from the end, a block of rows at a time. */
    size_t i = bi, j = bj, nruns = 0;
    int state = FROM_DIAG; /* in H */
    int done = 0;
    while (!done) {
        size_t top = (i - 1) / c * c; /* the checkpoint row above row i */
        size_t width = n;
        if (!one_block) {
            /* Recompute rows top+1..i; the walk never moves right, so
             * columns 1..j suffice. */
            const int32_t *cp = w->checkpoints + (top / c) * 2 * cols;
            width = j;
            memcpy(w->h, cp, (width + 1) * sizeof *w->h);
            memcpy(w->f, cp + cols, (width + 1) * sizeof *w->f);
            int unused = INT_MAX;
            size_t ui = 0, uj = 0;
            fill_rows_dirs(query, subject, width, top, i, sc, w->h, w->f, w->dirs, &unused, &ui, &uj);
        }
        while (!done && i > top) {
            uint8_t d = w->dirs[(i - top - 1) * (width + 1) + j];
            int op;
            if (state == FROM_E) {
                op = SW_OP_D;
                if (d & E_OPENED) state = FROM_DIAG;
                j--;
            } else if (state == FROM_F) {
                op = SW_OP_I;
                if (d & F_OPENED) state = FROM_DIAG;
                i--;
            } else {
                unsigned from = d & 3u;
                if (from == FROM_ZERO) {
                    done = 1;
                    break;
                }
                if (from != FROM_DIAG) {
                    state = (int)from;
                    continue; /* the same cell, now in E or F */
                }
                op = SW_OP_M;
                i--;
                j--;
            }
            if (push_run(w, &nruns, op)) {
                note_peak(w);
                return sw_error_set(err, SW_ENOMEM, "out of memory aligning %zu x %zu residues", m, n);
            }
            if (i == 0 || j == 0) done = 1;
        }
    }
    note_peak(w);
    return finish_alignment(w, nruns, i, j, best, bi, bj, query, subject, sc, result, err);
}

int sw_traceback_align(sw_traceback_workspace *w, const uint8_t *query, size_t query_len,
                       const uint8_t *subject, size_t subject_len, const sw_scoring *scoring,
                       sw_alignment *result, sw_error *err)
{
    return sw_traceback_align_blocked(w, query, query_len, subject, subject_len, scoring, 0, result,
                                      err);
}

int sw_alignment_rescore(const sw_alignment *a, const uint8_t *query, size_t query_len,
                         const uint8_t *subject, size_t subject_len, const sw_scoring *scoring,
                         int *score)
{
    if (a->num_runs == 0) {
        *score = 0;
        return a->score == 0 ? SW_OK : SW_EINVAL;
    }
    if (!a->runs || a->query_start < 1 || a->subject_start < 1 || a->query_end > query_len ||
        a->subject_end > subject_len)
        return SW_EINVAL;
    size_t qi = a->query_start - 1, sj = a->subject_start - 1;
    int64_t total = 0;
    uint32_t prev_kind = 3;
    for (size_t k = 0; k < a->num_runs; k++) {
        uint32_t kind = SW_OP_KIND(a->runs[k]);
        size_t len = SW_OP_LEN(a->runs[k]);
        if (len == 0 || kind > SW_OP_D) return SW_EINVAL;
        /* Adjacent runs of one kind would hide a gap opening. */
        if (kind == prev_kind) return SW_EINVAL;
        /* A local alignment starts and ends with a pair. */
        if ((k == 0 || k + 1 == a->num_runs) && kind != SW_OP_M) return SW_EINVAL;
        if (kind == SW_OP_M) {
            if (qi + len > query_len || sj + len > subject_len) return SW_EINVAL;
            for (size_t t = 0; t < len; t++) total += sw_scoring_row(scoring, query, qi + t)[subject[sj + t]];
            qi += len;
            sj += len;
        } else {
            total -= scoring->gap_open + (int64_t)len * scoring->gap_extend;
            if (kind == SW_OP_I) qi += len;
            else sj += len;
        }
        prev_kind = kind;
    }
    if (qi != a->query_end || sj != a->subject_end) return SW_EINVAL;
    if (total > INT32_MAX || total < INT32_MIN) return SW_EINVAL;
    *score = (int)total;
    return SW_OK;
}

int sw_traceback_align_window(sw_traceback_workspace *w, const uint8_t *query, size_t query_len,
                              const uint8_t *subject, size_t subject_len, const sw_scoring *scoring,
                              int score, size_t end_column, sw_alignment *result, sw_error *err)
{
    memset(result, 0, sizeof *result);
    if (score <= 0) return SW_OK;
    if (end_column < 1 || end_column > subject_len || !scoring || (query_len && !query))
        return sw_error_set(err, SW_EINVAL, "alignment: end column %zu outside the subject", end_column);
    /* An alignment of score S over a query residues and b subject residues
     * has at least b - a gap columns, each costing at least extend, and its
     * pairs score at most R, the sum of the query residues' best scores:
     * b <= a + (R - S) / extend <= m + (R - S) / extend. Every alignment of
     * score S ending at the end cell lies within that many columns. */
    int64_t best_sum = 0;
    for (size_t i = 0; i < query_len; i++) {
        const int8_t *row = sw_scoring_row(scoring, query, i);
        int top = 0;
        for (int c = 0; c < SW_CODE_LIMIT; c++) top = row[c] > top ? row[c] : top;
        best_sum += top;
    }
    uint64_t span = (uint64_t)query_len + 1 +
                    (best_sum > score ? (uint64_t)(best_sum - score) / (uint64_t)scoring->gap_extend : 0);
    size_t first = end_column > span ? end_column - (size_t)span : 0;
    return sw_traceback_align_span(w, query, query_len, subject, subject_len, scoring, score, first + 1,
                                   end_column, result, err);
}

int sw_traceback_align_span(sw_traceback_workspace *w, const uint8_t *query, size_t query_len,
                            const uint8_t *subject, size_t subject_len, const sw_scoring *scoring,
                            int score, size_t first_column, size_t end_column, sw_alignment *result,
                            sw_error *err)
{
    memset(result, 0, sizeof *result);
    if (score <= 0) return SW_OK;
    if (end_column < 1 || end_column > subject_len || first_column < 1 || first_column > end_column ||
        !scoring || (query_len && !query))
        return sw_error_set(err, SW_EINVAL, "alignment: columns %zu to %zu outside the subject",
                            first_column, end_column);
    size_t first = first_column - 1;
    int rc = sw_traceback_align_blocked(w, query, query_len, subject + first, end_column - first, scoring,
                                        0, result, err);
    if (rc) return rc;
    /* The window holds every optimal alignment ending there, so the end and
     * every tie decision are those of the whole matrix; anything else means
     * the score or the columns given were not this pair's. */
    if (result->score != score || result->subject_end != end_column - first) {
        int got = result->score;
        sw_alignment_clear(result);
        return sw_error_set(err, SW_ECORRUPT,
                            "alignment: score %d ending at subject position %zu was expected, the window "
                            "gives %d",
                            score, end_column, got);
    }
    result->subject_start += first;
    result->subject_end += first;
    return SW_OK;
}

/* The SIMD traceback. A striped pass (sw_simd_trace_columns) stores each
 * cell of the window as its H and the source of H; the walk back then
 * decides whether a gap was opened or extended from H values alone, since
 * E(i,j) is opened exactly when it equals H(i,j-1) - open - extend (and F
 * likewise with H(i-1,j)), and it knows E or F at every step: a gap's
 * value is the H it ends in, plus extend for each step back along it. The
 * decisions, and so the alignment, are those of the scalar walk above.
 *
 * Memory: 2 bytes a cell for one block of columns. A window larger than
 * SIMD_BLOCK_CELLS is done in blocks of columns: a first pass keeps H and E
 * at the start of every block, and the walk recomputes the block it is in. */
#define SIMD_BLOCK_CELLS ((size_t)16 << 20)
/* Past this much memory for the block starts, the scalar traceback's
 * square-root checkpoints do better. */
#define SIMD_MAX_START_BYTES ((size_t)256 << 20)

/* aligned_alloc'ed room for `need` 16-bit entries; contents not kept. */
static int grow_aligned(void **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return SW_OK;
    size_t n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    void *p = aligned_alloc(64, n * sizeof(int16_t));
    if (!p) return SW_ENOMEM;
    free(*buf);
    *buf = p;
    *cap = n;
    return SW_OK;
}

int sw_traceback_align_simd(sw_traceback_workspace *w, const sw_simd_profile *profile, const uint8_t *query,
                            size_t query_len, const uint8_t *subject, size_t subject_len,
                            const sw_scoring *sc, int score, size_t first_column, size_t end_column,
                            size_t block_columns, sw_alignment *result, sw_error *err)
{
    memset(result, 0, sizeof *result);
    if (score <= 0) return SW_OK;
    if (end_column < 1 || end_column > subject_len || first_column < 1 || first_column > end_column || !sc ||
        (query_len && !query))
        return sw_error_set(err, SW_EINVAL, "alignment: columns %zu to %zu outside the subject",
                            first_column, end_column);
    size_t seg_len, lanes;
    const size_t width = end_column - first_column + 1;
    if (!profile || score > SW_SIMD_TRACE_MAX_SCORE || sw_simd_trace_shape(profile, &seg_len, &lanes) != SW_OK ||
        seg_len * lanes < query_len)
        return sw_traceback_align_span(w, query, query_len, subject, subject_len, sc, score, first_column,
                                       end_column, result, err);
    const size_t rows = seg_len * lanes; /* padded */
    size_t c = block_columns;
    if (!c) c = SIMD_BLOCK_CELLS / rows ? SIMD_BLOCK_CELLS / rows : 1;
    if (c > width) c = width;
    const size_t blocks = (width + c - 1) / c;
    if (blocks > 1 && (blocks * 2 * rows * sizeof(int16_t) > SIMD_MAX_START_BYTES || blocks > SIZE_MAX / 2 / rows))
        return sw_traceback_align_span(w, query, query_len, subject, subject_len, sc, score, first_column,
                                       end_column, result, err);
    if (grow_aligned((void **)&w->columns, &w->columns_cap, 3 * rows) ||
        grow_aligned((void **)&w->cells, &w->cells_cap, c * rows) ||
        (blocks > 1 && grow_aligned((void **)&w->starts, &w->starts_cap, blocks * 2 * rows)))
        return sw_error_set(err, SW_ENOMEM, "out of memory aligning %zu x %zu residues", query_len, width);
    note_peak(w);
    int16_t *h = w->columns, *h_scratch = w->columns + rows, *e = w->columns + 2 * rows;
    const uint8_t *window = subject + first_column - 1;
    const int32_t open_ext = sc->gap_open + sc->gap_extend, ext = sc->gap_extend;

    /* Forward: the whole window at once, or the start of every block. */
    memset(h, 0, rows * sizeof *h);
    memset(e, 0, rows * sizeof *e);
    if (blocks == 1) {
        sw_simd_trace_columns(profile, window, width, h, h_scratch, e, w->cells);
    } else {
        for (size_t b = 0; b < blocks; b++) {
            int16_t *start = w->starts + b * 2 * rows;
            memcpy(start, h, rows * sizeof *h);
            memcpy(start + rows, e, rows * sizeof *e);
            size_t n = b + 1 < blocks ? c : width - b * c;
            sw_simd_trace_columns(profile, window + b * c, n, h, h_scratch, e, NULL);
        }
    }
    /* The end: the first row of the last column holding the score (h now
     * holds that column). */
#define STRIPED(r) (((r) % seg_len) * lanes + (r) / seg_len) /* row r, 0-based */
    size_t bi = 0;
    for (size_t r = 0; r < query_len && !bi; r++)
        if (h[STRIPED(r)] == score) bi = r + 1;
    if (!bi)
        return sw_error_set(err, SW_ECORRUPT,
                            "alignment: score %d ending at subject position %zu was expected, the window "
                            "does not reach it",
                            score, end_column);

    /* Back from the end, block by block, in 1-based window coordinates. */
    size_t i = bi, j = width, nruns = 0;
    size_t block = blocks; /* none loaded yet */
    size_t base = 0;       /* window columns before the loaded block */
    const int16_t *before = NULL; /* H of the column before the block; NULL: the left edge */
    int state = FROM_DIAG;
    int32_t gap = 0; /* E or F of the cell, in those states */
    for (;;) {
        if (block == blocks || j <= base) {
            block = (j - 1) / c;
            base = block * c;
            if (blocks > 1) {
                const int16_t *start = w->starts + block * 2 * rows;
                memcpy(h, start, rows * sizeof *h);
                memcpy(e, start + rows, rows * sizeof *e);
                size_t n = block + 1 < blocks ? c : width - base;
                sw_simd_trace_columns(profile, window + base, n, h, h_scratch, e, w->cells);
                before = block ? start : NULL;
            }
        }
        const uint16_t *col = w->cells + (j - 1 - base) * rows;
        const uint16_t cell = col[STRIPED(i - 1)];
        int op;
        if (state == FROM_E) {
            op = SW_OP_D;
            int32_t left = j - 1 > base ? (int32_t)((col - rows)[STRIPED(i - 1)] >> 2)
                                        : before ? before[STRIPED(i - 1)] : 0;
            if (gap == left - open_ext) state = FROM_DIAG;
            else gap += ext;
            j--;
        } else if (state == FROM_F) {
            op = SW_OP_I;
            int32_t up = i > 1 ? (int32_t)(col[STRIPED(i - 2)] >> 2) : 0;
            if (gap == up - open_ext) state = FROM_DIAG;
            else gap += ext;
            i--;
        } else {
            if ((cell >> 2) == 0) break;
            if (!(cell & 1u)) {
                state = cell & 2u ? FROM_E : FROM_F;
                gap = cell >> 2;
                continue; /* the same cell, now in E or F */
            }
            op = SW_OP_M;
            i--;
            j--;
        }
        if (push_run(w, &nruns, op)) {
            note_peak(w);
            return sw_error_set(err, SW_ENOMEM, "out of memory aligning %zu x %zu residues", query_len, width);
        }
        if (i == 0 || j == 0) break;
    }
#undef STRIPED
    note_peak(w);
    int rc = finish_alignment(w, nruns, i, j, score, bi, width, query, window, sc, result, err);
    if (rc) return rc;
    result->subject_start += first_column - 1;
    result->subject_end += first_column - 1;
    return SW_OK;
}
