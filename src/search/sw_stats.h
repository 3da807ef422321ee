/* Significance of a search hit: bit scores and E-values, from NCBI's
 * published Karlin-Altschul parameters where they exist for the matrix and
 * gap costs, else fitted to the search's own scores. docs/STATISTICS.md
 * explains both methods and the length correction. */
#ifndef SW_STATS_H
#define SW_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"

/* sw_stats_method: include/swsearch.h. */

/* Published parameters of one matrix and gap costs (NCBI blast_stat.c). */
typedef struct sw_stats_params {
    double lambda, k, h;  /* Karlin-Altschul: per raw score point; K; relative entropy (nats) */
    double alpha, beta;   /* BLAST's length adjustment */
    char name[16];        /* the matrix */
    int gap_open, gap_extend;
} sw_stats_params;

/* A fit needs at least this many database sequences with a positive score. */
#define SW_STATS_FIT_MIN 500

/* The statistics that turn one query's raw scores into bit scores and
 * E-values. */
typedef struct sw_stats sw_stats;

/* Finds the published parameters of `matrix` (a shipped matrix's name in
 * any case, as "BLOSUM62") with these gap costs (a gap of k residues costs
 * open + k * extend). SW_ENOTFOUND when NCBI lists none. */
int sw_stats_lookup(const char *matrix, int gap_open, int gap_extend, sw_stats_params *out);

/* Statistics from published parameters for one query of `query_len`
 * residues against a database of `db_residues` residues in `db_seqs`
 * sequences. */
int sw_stats_from_params(const sw_stats_params *p, size_t query_len, uint64_t db_residues,
                         uint64_t db_seqs, sw_stats **out, sw_error *err);

/* Statistics fitted to `scores[i]`, the exact score of the query against
 * database sequence i of length `lengths[i]`, for every one of `n`
 * sequences. SW_ELIMIT, with a message, when the database is too small or
 * the scores too few to fit. */
int sw_stats_fit(const int32_t *scores, const uint32_t *lengths, uint64_t n, size_t query_len,
                 uint64_t db_residues, sw_stats **out, sw_error *err);

void sw_stats_free(sw_stats *s);

/* Bit score of a raw score: (lambda * score - ln K) / ln 2. */
double sw_stats_bit_score(const sw_stats *s, int score);

/* Expected number of database sequences scoring at least `score` by chance
 * against this query, were they all of `subject_len` residues: the number
 * of database sequences times the probability that one such sequence
 * scores that much (ssearch36's convention), so a long subject needs a
 * higher score than a short one for the same E-value. */
double sw_stats_evalue(const sw_stats *s, int score, uint32_t subject_len);

/* One line for output headers naming the method and its parameters, as
 * "NCBI table BLOSUM62 11/1 (lambda 0.267, K 0.041, H 0.14), per-subject
 * effective lengths". */
const char *sw_stats_describe(const sw_stats *s);

#endif
