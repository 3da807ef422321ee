/* One dynamic-programming pass over a pair of long DNA sequences: the unit
 * of work that every megabase engine (multi-threaded CPU, GPU) performs in
 * memory linear in the lengths. A local pass finds the best score and its
 * end cell; an anchored pass (global at the matrix origin, free at the other
 * end) finds the first cell that reaches a given score, which run over the
 * reversed prefixes gives the start of the alignment (CUDAlign 2's stage 2).
 *
 * Scoring: match for equal bases among A, C, G, T (codes 0-3); mismatch for
 * any other pair, code 4 (N and every other IUPAC code) included; a gap of
 * k bases costs gap_open + k * gap_extend. Cells are 1-based: row i is
 * a[i - 1], column j is b[j - 1]; "first" means smallest column, then
 * smallest row (column-major: a GPU engine sweeping the columns in row
 * bands learns a band's first cell of a score cheaply in that order). */
#ifndef SW_PAIR_PASS_H
#define SW_PAIR_PASS_H

#include <stdint.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_pair_scoring {
    int match;      /* > 0 */
    int mismatch;   /* <= 0 */
    int gap_open;   /* >= 0 */
    int gap_extend; /* > 0 */
} sw_pair_scoring;

/* Scores stay in 32-bit integers: match x the shorter length may be at most
 * this, and gap_open + gap_extend at most SW_PAIR_MAX_GAP. */
#define SW_PAIR_MAX_SCORE (1 << 29)
#define SW_PAIR_MAX_GAP (1 << 16)
/* Below every value a cell can take. The anchored pass clamps H here: a
 * cell this low can never climb back to a positive score, since no path
 * gains more than SW_PAIR_MAX_SCORE (see sw_pair_check_scoring). */
#define SW_PAIR_FLOOR (-(1 << 30))
/* Base codes: A C G T, then one code for N and the other IUPAC codes. */
#define SW_PAIR_CODES 5

typedef enum { SW_PAIR_LOCAL = 0, SW_PAIR_ANCHORED = 1 } sw_pair_mode;

/* One column of a row handed from a pass over some rows of a matrix to the
 * pass over the rows below: H, and F (the score of the best path ending
 * there in a vertical gap). */
typedef struct sw_pair_edge {
    int32_t h, f;
} sw_pair_edge;

/* A rectangle of cells, 1-based and inclusive: rows a_lo..a_hi, columns
 * b_lo..b_hi. */
typedef struct sw_pair_box {
    uint64_t a_lo, a_hi, b_lo, b_hi;
} sw_pair_box;

/* One column of cells handed from a strip of columns of a matrix to the
 * strip on its right, filled from the top down (column strips across
 * processes: a rank's copy of its left neighbour's last column, and its
 * own last column to send; the GPU engine's strips use the same layout).
 * A cell is (H - gap_open - gap_extend, E), E the score of the best path
 * ending there in a horizontal gap. Whoever fills it writes cells, then
 * raises `rows` with release order; whoever reads it loads `rows` with
 * acquire order, then reads the cells above it. `best`: the best score
 * the strips on the left had found (a floor for pruning). `abort`: set
 * when a strip gave up; every wait on the column ends. The cells follow
 * the 128-byte head: sw_pair_column_cells(). */
typedef struct sw_pair_column {
    uint64_t rows;
    int32_t best;
    int32_t abort;
    int32_t pad[28];
} sw_pair_column;

static inline int32_t *sw_pair_column_cells(sw_pair_column *c) { return (int32_t *)(c + 1); }

/* Bytes of a column of `rows` cells, head included. */
static inline uint64_t sw_pair_column_bytes(uint64_t rows) { return sizeof(sw_pair_column) + rows * 8; }

typedef struct sw_pair_pass {
    const uint8_t *a; /* rows */
    uint64_t a_len;
    const uint8_t *b; /* columns */
    uint64_t b_len;
    sw_pair_scoring scoring;
    sw_pair_mode mode;
    int32_t target; /* anchored: the score to reach (> 0) */
    /* Cells finished so far, raised by the engine as it goes (atomically)
     * so that another thread can report progress; may be NULL. */
    uint64_t *cells_done;
    /* A local pass over a range of rows of a larger matrix (a multi-process
     * run cuts the first sequence): the row above its first row, b_len
     * cells (NULL: the matrix's first row, all zeros), and where to leave
     * its last row, b_len cells (NULL: nowhere). Row 0 of a pass with
     * neither is the matrix edge as usual. */
    const sw_pair_edge *top;
    sw_pair_edge *bottom;
    /* Forbidden cells (best-K: the boxes of the alignments already
     * reported): no alignment of the pass ends in one or passes through
     * one. A forbidden cell has H = 0 in a local pass (an alignment may
     * start right after it), minus infinity in an anchored one, and no gap
     * runs through it. */
    const sw_pair_box *forbidden;
    int forbidden_count;
    /* Nonzero: the pass runs over reversed sequences (the start pass) and
     * its boxes were mapped cell by cell. A pair's cell maps so, but a
     * gap's does not: in the matrix's order a gap of b at pass cell (i, j)
     * belongs to pass cell (i + 1, j) and a gap of a to (i, j + 1), so
     * each state is barred where its own cell is forbidden. Every engine
     * honours it. */
    int reversed;
    /* A strip of columns of a larger matrix (column strips across
     * processes): the pass's b is columns col_base + 1 .. col_base + b_len
     * of the matrix, cols_after more lie right of it (pruning counts them);
     * `left` (NULL: the matrix's first column) holds the last column of the
     * strip on the left, filled as that strip goes; `right` (may be NULL)
     * receives this pass's last column as it goes. Row 0's gap costs count
     * col_base. End cells stay in the pass's own columns. The CPU engine
     * and the GPU engine's strips take them (both columns: mapped host
     * memory, sw_pair_gpu_column_alloc); no top or bottom rows, forbidden
     * cells or transposition with them. */
    const sw_pair_column *left;
    sw_pair_column *right;
    uint64_t col_base, cols_after;
} sw_pair_pass;

typedef struct sw_pair_hit {
    int32_t score;  /* local: the best score (0: nothing aligns); anchored: target, or 0 if never reached */
    uint64_t a_end; /* the first cell with that score; 0 when score is 0 */
    uint64_t b_end;
    uint64_t cells;  /* cells computed */
    uint64_t pruned; /* cells skipped because no alignment through them could matter */
} sw_pair_hit;

/* The contract every engine keeps (sw_pair_pass.c). */

/* Checks a scoring against the limits above for sequences of these lengths. */
int sw_pair_check_scoring(const sw_pair_scoring *s, uint64_t a_len, uint64_t b_len, sw_error *err);

/* Checks a whole pass (sequences present, a target for an anchored pass,
 * the scoring), as every engine does before it starts. */
int sw_pair_check_pass(const sw_pair_pass *p, sw_error *err);

/* The last row of a pass without rows, where it wants one: its row above. */
void sw_pair_pass_no_rows(const sw_pair_pass *p);

/* The band of row i (0..M) of a global alignment of M rows against N
 * columns (Myers and Miller's pieces, docs/PAIR_PATH.md): the columns j
 * (0..N) where the most a path from the top-left corner to (i, j) and
 * from there to the bottom-right corner can score reaches `target`: pairs
 * of bases for the rows and columns in common, gap extensions for the
 * difference, openings left out. An interval, since that sum is concave
 * in j; *lo > *hi when no column qualifies. A cell outside it lies on no
 * alignment of the piece that scores the target. The sum is the same at
 * (i + 1, j + 1) as at (i, j), so away from the edges both ends move one
 * column a row. */
void sw_pair_band_of(const sw_pair_scoring *s, uint64_t M, uint64_t N, int64_t target, uint64_t i, uint64_t *lo,
                     uint64_t *hi);

/* Whether cell (i, j) lies in one of boxes[0 .. count - 1]. */
static inline int sw_pair_boxes_hold(const sw_pair_box *boxes, int count, uint64_t i, uint64_t j)
{
    for (int k = 0; k < count; ++k) {
        const sw_pair_box *x = &boxes[k];
        if (i >= x->a_lo && i <= x->a_hi && j >= x->b_lo && j <= x->b_hi) return 1;
    }
    return 0;
}

/* Whether cell (i, j) of the pass is forbidden. */
static inline int sw_pair_forbidden(const sw_pair_pass *p, uint64_t i, uint64_t j)
{
    return sw_pair_boxes_hold(p->forbidden, p->forbidden_count, i, j);
}

/* Whether any forbidden box meets rows i0..i1 x columns j0..j1. */
static inline int sw_pair_forbidden_meets(const sw_pair_pass *p, uint64_t i0, uint64_t i1, uint64_t j0, uint64_t j1)
{
    for (int k = 0; k < p->forbidden_count; ++k) {
        const sw_pair_box *x = &p->forbidden[k];
        if (x->a_lo <= i1 && i0 <= x->a_hi && x->b_lo <= j1 && j0 <= x->b_hi) return 1;
    }
    return 0;
}

static inline int sw_pair_substitution(const sw_pair_scoring *s, uint8_t x, uint8_t y)
{
    return x == y && x < 4 ? s->match : s->mismatch;
}

#ifdef __cplusplus
}
#endif

#endif
