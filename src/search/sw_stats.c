/* Bit scores and E-values (docs/STATISTICS.md). Two sources of the
 * Karlin-Altschul parameters lambda and K: NCBI's published tables for the
 * shipped matrices, or a maximum-likelihood fit of an extreme-value
 * distribution to every database sequence's score for the query. Either
 * way a hit's E-value is the number of database sequences expected to
 * score at least as well by chance if they had the hit's length:
 *   E = N * (1 - exp(-K m' n' exp(-lambda S))),
 * N the database's sequences, m' and n' the query's and the subject's
 * lengths less BLAST's length adjustment (table) or as they are (fit). */
#include "sw_stats.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NCBI BLAST+, c++/src/algo/blast/core/blast_stat.c: per matrix, rows of
 * gap open, gap extend, lambda, K, H, alpha, beta (the rows for ungapped
 * scores and for X-drop "decline to align" values are left out: swsearch
 * always aligns gapped, without X-drop). The gap costs mean what ours mean:
 * a gap of k residues costs open + k * extend. */
typedef struct table_row {
    int open, extend;
    double lambda, k, h, alpha, beta;
} table_row;

static const table_row blosum45[] = {
    {13, 3, 0.207, 0.049, 0.14, 1.5, -22},  {12, 3, 0.199, 0.039, 0.11, 1.8, -34},
    {11, 3, 0.190, 0.031, 0.095, 2.0, -38}, {10, 3, 0.179, 0.023, 0.075, 2.4, -51},
    {16, 2, 0.210, 0.051, 0.14, 1.5, -24},  {15, 2, 0.203, 0.041, 0.12, 1.7, -31},
    {14, 2, 0.195, 0.032, 0.10, 1.9, -36},  {13, 2, 0.185, 0.024, 0.084, 2.2, -45},
    {12, 2, 0.171, 0.016, 0.061, 2.8, -65}, {19, 1, 0.205, 0.040, 0.11, 1.9, -43},
    {18, 1, 0.198, 0.032, 0.10, 2.0, -43},  {17, 1, 0.189, 0.024, 0.079, 2.4, -57},
    {16, 1, 0.176, 0.016, 0.063, 2.8, -67},
};
static const table_row blosum50[] = {
    {13, 3, 0.212, 0.063, 0.19, 1.1, -16},  {12, 3, 0.206, 0.055, 0.17, 1.2, -18},
    {11, 3, 0.197, 0.042, 0.14, 1.4, -25},  {10, 3, 0.186, 0.031, 0.11, 1.7, -34},
    {9, 3, 0.172, 0.022, 0.082, 2.1, -48},  {16, 2, 0.215, 0.066, 0.20, 1.05, -15},
    {15, 2, 0.210, 0.058, 0.17, 1.2, -20},  {14, 2, 0.202, 0.045, 0.14, 1.4, -27},
    {13, 2, 0.193, 0.035, 0.12, 1.6, -32},  {12, 2, 0.181, 0.025, 0.095, 1.9, -41},
    {19, 1, 0.212, 0.057, 0.18, 1.2, -21},  {18, 1, 0.207, 0.050, 0.15, 1.4, -28},
    {17, 1, 0.198, 0.037, 0.12, 1.6, -33},  {16, 1, 0.186, 0.025, 0.10, 1.9, -42},
    {15, 1, 0.171, 0.015, 0.063, 2.7, -76},
};
static const table_row blosum62[] = {
    {11, 2, 0.297, 0.082, 0.27, 1.1, -10}, {10, 2, 0.291, 0.075, 0.23, 1.3, -15},
    {9, 2, 0.279, 0.058, 0.19, 1.5, -19},  {8, 2, 0.264, 0.045, 0.15, 1.8, -26},
    {7, 2, 0.239, 0.027, 0.10, 2.5, -46},  {6, 2, 0.201, 0.012, 0.061, 3.3, -58},
    {13, 1, 0.292, 0.071, 0.23, 1.2, -11}, {12, 1, 0.283, 0.059, 0.19, 1.5, -19},
    {11, 1, 0.267, 0.041, 0.14, 1.9, -30}, {10, 1, 0.243, 0.024, 0.10, 2.5, -44},
    {9, 1, 0.206, 0.010, 0.052, 4.0, -87},
};
static const table_row blosum80[] = {
    {25, 2, 0.342, 0.17, 0.66, 0.52, -1.6}, {13, 2, 0.336, 0.15, 0.57, 0.59, -3},
    {9, 2, 0.319, 0.11, 0.42, 0.76, -6},    {8, 2, 0.308, 0.090, 0.35, 0.89, -9},
    {7, 2, 0.293, 0.070, 0.27, 1.1, -14},   {6, 2, 0.268, 0.045, 0.19, 1.4, -19},
    {11, 1, 0.314, 0.095, 0.35, 0.90, -9},  {10, 1, 0.299, 0.071, 0.27, 1.1, -14},
    {9, 1, 0.279, 0.048, 0.20, 1.4, -19},
};
static const table_row blosum90[] = {
    {9, 2, 0.310, 0.12, 0.46, 0.67, -6},    {8, 2, 0.300, 0.099, 0.39, 0.76, -7},
    {7, 2, 0.283, 0.072, 0.30, 0.93, -11},  {6, 2, 0.259, 0.048, 0.22, 1.2, -16},
    {11, 1, 0.302, 0.093, 0.39, 0.78, -8},  {10, 1, 0.290, 0.075, 0.28, 1.04, -15},
    {9, 1, 0.265, 0.044, 0.20, 1.3, -19},
};
static const table_row pam250[] = {
    {15, 3, 0.205, 0.049, 0.13, 1.6, -23},  {14, 3, 0.200, 0.043, 0.12, 1.7, -26},
    {13, 3, 0.194, 0.036, 0.10, 1.9, -31},  {12, 3, 0.186, 0.029, 0.085, 2.2, -41},
    {11, 3, 0.174, 0.020, 0.070, 2.5, -48}, {17, 2, 0.204, 0.047, 0.12, 1.7, -28},
    {16, 2, 0.198, 0.038, 0.11, 1.8, -29},  {15, 2, 0.191, 0.031, 0.087, 2.2, -44},
    {14, 2, 0.182, 0.024, 0.073, 2.5, -53}, {13, 2, 0.171, 0.017, 0.059, 2.9, -64},
    {21, 1, 0.205, 0.045, 0.11, 1.8, -34},  {20, 1, 0.199, 0.037, 0.10, 1.9, -35},
    {19, 1, 0.192, 0.029, 0.083, 2.3, -52}, {18, 1, 0.183, 0.021, 0.070, 2.6, -60},
    {17, 1, 0.171, 0.014, 0.052, 3.3, -86},
};
static const table_row pam30[] = {
    {7, 2, 0.305, 0.15, 0.87, 0.35, -3},  {6, 2, 0.287, 0.11, 0.68, 0.42, -4},
    {5, 2, 0.264, 0.079, 0.45, 0.59, -7}, {10, 1, 0.309, 0.15, 0.88, 0.35, -3},
    {9, 1, 0.294, 0.11, 0.61, 0.48, -6},  {8, 1, 0.270, 0.072, 0.40, 0.68, -10},
};
static const table_row pam70[] = {
    {8, 2, 0.301, 0.12, 0.54, 0.56, -5},   {7, 2, 0.286, 0.093, 0.43, 0.67, -7},
    {6, 2, 0.264, 0.064, 0.29, 0.90, -12}, {11, 1, 0.305, 0.12, 0.52, 0.59, -6},
    {10, 1, 0.291, 0.091, 0.41, 0.71, -9}, {9, 1, 0.270, 0.060, 0.28, 0.97, -14},
};

static const struct {
    const char *name;
    const table_row *rows;
    size_t count;
} tables[] = {
#define TABLE(name, rows) {name, rows, sizeof rows / sizeof *rows}
    TABLE("BLOSUM45", blosum45), TABLE("BLOSUM50", blosum50), TABLE("BLOSUM62", blosum62),
    TABLE("BLOSUM80", blosum80), TABLE("BLOSUM90", blosum90), TABLE("PAM250", pam250),
    TABLE("PAM30", pam30),       TABLE("PAM70", pam70),
#undef TABLE
};

struct sw_stats {
    double lambda, k;
    /* table: BLAST's length adjustment */
    double alpha, beta;
    int fitted;
    size_t query_len;
    uint64_t db_seqs;
    char description[256];
};

int sw_stats_lookup(const char *matrix, int gap_open, int gap_extend, sw_stats_params *out)
{
    if (!matrix) return SW_ENOTFOUND;
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        const char *a = tables[t].name, *b = matrix;
        while (*a && toupper((unsigned char)*b) == *a) a++, b++;
        if (*a || *b) continue;
        for (size_t r = 0; r < tables[t].count; r++) {
            const table_row *row = &tables[t].rows[r];
            if (row->open != gap_open || row->extend != gap_extend) continue;
            memset(out, 0, sizeof *out);
            out->lambda = row->lambda;
            out->k = row->k;
            out->h = row->h;
            out->alpha = row->alpha;
            out->beta = row->beta;
            snprintf(out->name, sizeof out->name, "%s", tables[t].name);
            out->gap_open = gap_open;
            out->gap_extend = gap_extend;
            return SW_OK;
        }
    }
    return SW_ENOTFOUND;
}

int sw_stats_from_params(const sw_stats_params *p, size_t query_len, uint64_t db_residues,
                         uint64_t db_seqs, sw_stats **out, sw_error *err)
{
    (void)db_residues;
    sw_stats *s = calloc(1, sizeof *s);
    if (!s) return sw_error_set(err, SW_ENOMEM, "out of memory");
    s->lambda = p->lambda;
    s->k = p->k;
    s->alpha = p->alpha;
    s->beta = p->beta;
    s->query_len = query_len;
    s->db_seqs = db_seqs;
    snprintf(s->description, sizeof s->description,
             "NCBI table %s %d/%d (lambda %g, K %g, H %g), per-subject effective lengths",
             p->name, p->gap_open, p->gap_extend, p->lambda, p->k, p->h);
    *out = s;
    return SW_OK;
}

/* BLAST's length adjustment for one pair: the expected length of the part
 * of an alignment that chance alone contributes, ell = alpha / lambda *
 * ln(K m' n') + beta with m' = m - ell and n' = n - ell, solved by
 * iteration. It never takes more than half of the shorter sequence, so
 * short sequences keep a search space of their own. */
static double length_adjustment(const sw_stats *s, double m, double n)
{
    double shorter = m < n ? m : n, ell = 0;
    for (int it = 0; it < 20; it++) {
        double area = s->k * (m - ell) * (n - ell);
        double next = area > 1 ? s->alpha / s->lambda * log(area) + s->beta : 0;
        if (next < 0) next = 0;
        if (next > shorter / 2) next = shorter / 2;
        if (fabs(next - ell) < 1e-3) {
            ell = next;
            break;
        }
        ell = next;
    }
    return ell;
}

double sw_stats_bit_score(const sw_stats *s, int score)
{
    return (s->lambda * score - log(s->k)) / log(2.0);
}

double sw_stats_evalue(const sw_stats *s, int score, uint32_t subject_len)
{
    double m = (double)s->query_len, n = (double)subject_len;
    if (!s->fitted) {
        double ell = length_adjustment(s, m, n);
        m -= ell;
        n -= ell;
    }
    /* p = 1 - exp(-x), exactly for small x too. */
    double x = s->k * m * n * exp(-s->lambda * score);
    double p = -expm1(-x);
    return (double)s->db_seqs * p;
}

const char *sw_stats_describe(const sw_stats *s) { return s->description; }

void sw_stats_free(sw_stats *s) { free(s); }

/* The fit. Scores are grouped by value: for score v, how many sequences
 * and the sum of their lengths, both integers, so the sums below are the
 * same whatever order the engines produced the scores in. */
typedef struct score_group {
    int32_t score;
    uint64_t count, lengths;
} score_group;

/* The profile likelihood's derivative in lambda, after K is eliminated
 * (K = N / sum t e^{-lambda s}): N/lambda - sum s + N * (sum t s e^{-lambda s}) / (sum t e^{-lambda s}).
 * Weights are taken relative to the lowest score so they cannot overflow. */
static double slope(const score_group *g, size_t ng, double n, double sum_s, double lambda)
{
    double w = 0, ws = 0;
    for (size_t i = 0; i < ng; i++) {
        double e = (double)g[i].lengths * exp(-lambda * (g[i].score - g[0].score));
        w += e;
        ws += e * g[i].score;
    }
    return n / lambda - sum_s + n * ws / w;
}

/* The fitted lambda and ln K for scores in `g` (ascending), with t = m n. */
static int fit_groups(const score_group *g, size_t ng, double m, double *lambda, double *log_k)
{
    double n = 0, sum_s = 0;
    for (size_t i = 0; i < ng; i++) {
        n += (double)g[i].count;
        sum_s += (double)g[i].count * g[i].score;
    }
    double lo = 1e-4, hi = 1e-2;
    while (slope(g, ng, n, sum_s, hi) > 0) {
        hi *= 2;
        if (hi > 50) return -1;
    }
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (slope(g, ng, n, sum_s, mid) > 0) lo = mid;
        else hi = mid;
    }
    double l = 0.5 * (lo + hi), w = 0;
    for (size_t i = 0; i < ng; i++) w += (double)g[i].lengths * exp(-l * (g[i].score - g[0].score));
    /* K = n / (m e^{-l s0} w) */
    *lambda = l;
    *log_k = log(n) - log(m) + l * g[0].score - log(w);
    return 0;
}

static int by_score(const void *a, const void *b)
{
    int32_t x = ((const score_group *)a)->score, y = ((const score_group *)b)->score;
    return (x > y) - (x < y);
}

int sw_stats_fit(const int32_t *scores, const uint32_t *lengths, uint64_t n, size_t query_len,
                 uint64_t db_residues, sw_stats **out, sw_error *err)
{
    (void)db_residues;
    uint64_t positive = 0;
    int32_t top = 0;
    for (uint64_t i = 0; i < n; i++)
        if (scores[i] > 0) {
            positive++;
            if (scores[i] > top) top = scores[i];
        }
    if (positive < SW_STATS_FIT_MIN)
        return sw_error_set(err, SW_ELIMIT,
                            "--stats fit needs at least %d database sequences with a positive "
                            "score; this search has %llu: use --stats table with a shipped matrix",
                            SW_STATS_FIT_MIN, (unsigned long long)positive);
    /* Groups indexed by score: a dense array up to the top score. */
    size_t range = (size_t)top + 1;
    score_group *dense = calloc(range, sizeof *dense);
    unsigned char *excluded = calloc(n ? n : 1, 1);
    sw_stats *s = calloc(1, sizeof *s);
    if (!dense || !excluded || !s) {
        free(dense);
        free(excluded);
        free(s);
        return sw_error_set(err, SW_ENOMEM, "out of memory fitting statistics");
    }
    s->fitted = 1;
    s->query_len = query_len;
    s->db_seqs = n;
    const double m = (double)(query_len ? query_len : 1);
    double lambda = 0, log_k = 0;
    uint64_t dropped = 0;
    int rc = SW_OK;
    /* Homologs are not chance: after each fit, sequences whose E-value is
     * below 0.01 leave the sample and the fit is redone, until none more
     * leave (at most 10 rounds). */
    for (int round = 0; round < 10; round++) {
        memset(dense, 0, range * sizeof *dense);
        for (uint64_t i = 0; i < n; i++)
            if (scores[i] > 0 && !excluded[i]) {
                dense[scores[i]].count++;
                dense[scores[i]].lengths += lengths[i];
            }
        size_t ng = 0;
        for (size_t v = 0; v < range; v++)
            if (dense[v].count) {
                dense[ng] = dense[v];
                dense[ng].score = (int32_t)v;
                ng++;
            }
        qsort(dense, ng, sizeof *dense, by_score);
        if (fit_groups(dense, ng, m, &lambda, &log_k)) {
            rc = sw_error_set(err, SW_ELIMIT, "--stats fit: the scores do not fit an extreme-value "
                                              "distribution; use --stats table with a shipped matrix");
            break;
        }
        s->lambda = lambda;
        s->k = exp(log_k);
        uint64_t newly = 0;
        for (uint64_t i = 0; i < n; i++)
            if (scores[i] > 0 && !excluded[i] && sw_stats_evalue(s, scores[i], lengths[i]) < 0.01) {
                excluded[i] = 1;
                newly++;
            }
        dropped += newly;
        if (!newly) break;
        if (positive - dropped < SW_STATS_FIT_MIN) {
            rc = sw_error_set(err, SW_ELIMIT,
                              "--stats fit: fewer than %d database sequences score like chance; "
                              "use --stats table with a shipped matrix",
                              SW_STATS_FIT_MIN);
            break;
        }
    }
    free(dense);
    free(excluded);
    if (rc) {
        free(s);
        return rc;
    }
    snprintf(s->description, sizeof s->description,
             "fitted to this query's scores (lambda %.4f, K %.4g; %llu of %llu sequences, %llu left out as homologs)",
             s->lambda, s->k, (unsigned long long)(positive - dropped), (unsigned long long)n,
             (unsigned long long)dropped);
    *out = s;
    return SW_OK;
}
