/* Profiles of multiple alignments and the scores of their column pairs.
 *
 * A column of a profile holds the relative frequency of each symbol (the 27
 * protein codes and the gap) among the alignment's rows, in fixed point:
 * SW_PROFILE_SCALE parts, rounded half up from count x SCALE / rows. Every
 * score below is an integer computed from those, so any engine that adds the
 * same integers gets the same alignment (docs/PROFILE.md). Rows are not
 * weighted unless sw_profile_from_msa_weighted says so. */
#ifndef SW_PROFILE_H
#define SW_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"
#include "sw_msa.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SW_PROFILE_SCALE 64
#define SW_PROFILE_SYMBOLS (SW_MSA_GAP + 1)

typedef struct sw_profile sw_profile;

int sw_profile_from_msa(const sw_msa *m, sw_profile **out, sw_error *err);

/* The same with rows weighted by Henikoff and Henikoff's position-based
 * weights (a residue of a column counts 1 / (residue types in the column x
 * rows with that residue), summed over the row's columns, the weights
 * normalised to 1), so that many near-identical rows do not outvote the
 * rest: each frequency is the weight of the rows with that symbol, in
 * SW_PROFILE_SCALE parts, rounded half up. Rows of gaps only weigh
 * nothing; with no residue at all the rows weigh alike. */
int sw_profile_from_msa_weighted(const sw_msa *m, sw_profile **out, sw_error *err);
void sw_profile_free(sw_profile *p);
size_t sw_profile_columns(const sw_profile *p);
/* Column i: SW_PROFILE_SYMBOLS frequencies (index SW_MSA_GAP: the gap). */
const uint8_t *sw_profile_column(const sw_profile *p, size_t i);

typedef enum {
    /* Expected score of a symbol of one column against one of the other,
     * f^T M g (as today's aligners score profiles), to be maximised, with
     * affine gaps: M is the substitution matrix between residues, extended
     * by the gap (sw_profile_symbol_score). A column against a gap costs
     * gap_extend per residue in it. */
    SW_PROFILE_EXPECTED = 0,
    /* Hanif and Zimmermann's: the squared Euclidean distance between the
     * two columns' frequency vectors, the gap included, to be minimised; a
     * column against a gap costs its distance to a column of gaps only. */
    SW_PROFILE_EUCLID = 1
} sw_profile_kind;

/* How column pairs score, in SCALE^2 units (a one-row profile against
 * another scores SCALE^2 times the matrix entry). Every score is one to
 * maximise: the distance enters negated. */
typedef struct sw_profile_scoring {
    sw_profile_kind kind;
    const int8_t *matrix; /* SW_CODE_LIMIT x SW_CODE_LIMIT (sw_matrix_table), for EXPECTED */
    int gap_open;         /* in matrix units, once per gap (sw_profile_gap_open_cost) */
    int gap_extend;       /* EXPECTED: per residue against a gap, times SCALE^2 */
} sw_profile_scoring;

/* EXPECTED's score of symbol a against symbol b, the gap included: the
 * matrix between residues, -gap_extend between a residue and a gap, 0
 * between two gaps, so that a column pair scores what its pairs of rows
 * would add to a sum-of-pairs score (gap openings aside). */
static inline int sw_profile_symbol_score(const sw_profile_scoring *s, int a, int b)
{
    if (a < SW_MSA_GAP && b < SW_MSA_GAP) return s->matrix[a * SW_CODE_LIMIT + b];
    return a == b ? 0 : -s->gap_extend;
}

/* The score of column x against column y. */
int64_t sw_profile_pair_score(const sw_profile_scoring *s, const uint8_t *x, const uint8_t *y);
/* What a column against a gap costs (>= 0), besides the gap's opening. */
int64_t sw_profile_gap_cost(const sw_profile_scoring *s, const uint8_t *x);
/* What opening a gap costs where column x is the first against it:
 * EXPECTED, gap_open for each residue of the column (the rows that would
 * open a gap in a sum-of-pairs count); EUCLID, gap_open times SCALE^2. */
int64_t sw_profile_gap_open_cost(const sw_profile_scoring *s, const uint8_t *x);

#ifdef __cplusplus
}
#endif

#endif
