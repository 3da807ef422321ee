/* A PSSM from a multiple alignment in PSI-BLAST's manner: position-based
 * sequence weights over each position's aligned block, weighted residue
 * frequencies, the matrix's pseudocounts (one weight, or each column's),
 * log-odds in the matrix's units (sw_pssm.h; Altschul et al. 1997 and
 * 2009, Henikoff and Henikoff 1994). */
#include "sw_pssm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

enum { SYMBOLS = SW_MSA_GAP + 1 };

/* Draws from the background frequencies that observations() weighs. */
enum { MAX_DRAWS = 400 };

/* The alignment cut to the query's columns: rows x length codes, and each
 * row's span (first and last position with a residue; first > last for a
 * row with none). */
typedef struct block_input {
    size_t rows, length;
    uint8_t *x;
    size_t *first, *last;
    uint8_t *unique; /* 1 for a row and not for its later copies */
    /* The expected number of distinct residues among j independent draws
     * from the background frequencies, j = 0 .. MAX_DRAWS - 1. */
    double expected[MAX_DRAWS];
} block_input;

/* What one position's block gives: the rows' weights (0 for rows without a
 * residue at the position) and N_c. */
typedef struct block_weights {
    double *w;
    double distinct; /* N_c: mean number of distinct symbols per column */
    double observations; /* independent observations of the position, less one */
    /* The block they were computed for, to reuse them at the next position
     * when it has the same rows and block. */
    uint8_t *member;
    size_t left, right;
    int valid;
} block_weights;

static uint8_t at(const block_input *in, size_t r, size_t i) { return in->x[r * in->length + i]; }

/* The independent observations of the rows `b` marks, less one (see
 * sw_pssm_from_msa), from `with`, the block's columns by their number of
 * distinct residues: the draws that would show as many distinct residues,
 * on average, as the half of the columns with the most show (in->expected
 * by draws), interpolated between whole draws and at most the rows
 * themselves. */
static double observations(const block_input *in, const block_weights *b, const size_t with[21], size_t columns)
{
    size_t rows = 0; /* copies of a row are one observation */
    for (size_t r = 0; r < in->rows; ++r) rows += b->member[r] && in->unique[r];
    const size_t half = (columns + 1) / 2;
    size_t taken = 0, sum = 0;
    for (int k = 20; k >= 0 && taken < half; --k) {
        const size_t n = with[k] < half - taken ? with[k] : half - taken;
        taken += n;
        sum += n * (size_t)k;
    }
    const double mean = (double)sum / (double)taken;
    double draws = MAX_DRAWS;
    for (int j = 1; j < MAX_DRAWS; ++j)
        if (in->expected[j] > mean) {
            draws = j - (in->expected[j] - mean) / (in->expected[j] - in->expected[j - 1]);
            break;
        }
    if (draws > (double)rows) draws = (double)rows;
    return draws > 1 ? draws - 1 : 0;
}

/* Henikoff and Henikoff's weights of the rows with a residue at position
 * i, over the positions all of them span; the gap counts as a symbol, for
 * the weights and for N_c alike. */
static void weigh(const block_input *in, size_t i, block_weights *b)
{
    size_t left = 0, right = in->length - 1;
    int same = b->valid;
    for (size_t r = 0; r < in->rows; ++r) {
        const uint8_t member = at(in, r, i) != SW_MSA_GAP;
        same &= member == b->member[r];
        b->member[r] = member;
        if (!member) continue;
        if (in->first[r] > left) left = in->first[r];
        if (in->last[r] < right) right = in->last[r];
    }
    if (same && left == b->left && right == b->right) return;
    b->left = left, b->right = right, b->valid = 1;
    for (size_t r = 0; r < in->rows; ++r) b->w[r] = 0;
    double distinct = 0;
    size_t with[21] = {0}; /* columns by their number of distinct residues */
    for (size_t c = left; c <= right; ++c) {
        size_t count[SYMBOLS] = {0};
        for (size_t r = 0; r < in->rows; ++r)
            if (b->member[r]) ++count[at(in, r, c)];
        int types = 0, residues = 0;
        for (int s = 0; s < SYMBOLS; ++s) {
            types += count[s] > 0;
            residues += s < 20 && count[s] > 0;
        }
        ++with[residues];
        distinct += types;
        for (size_t r = 0; r < in->rows; ++r)
            if (b->member[r]) b->w[r] += 1.0 / ((double)types * (double)count[at(in, r, c)]);
    }
    b->distinct = distinct / (double)(right - left + 1);
    b->observations = observations(in, b, with, right - left + 1);
    double total = 0;
    for (size_t r = 0; r < in->rows; ++r) total += b->w[r];
    for (size_t r = 0; r < in->rows; ++r) b->w[r] /= total;
}

/* Adds weight w of a residue code to the frequencies of the 20 standard
 * residues: U as C, O as K; B, Z and J shared by background frequency
 * between the two residues they may be; X and '*' tell nothing. */
static void count_residue(double f[20], uint8_t code, double w)
{
    const double *bg = sw_pssm_background();
    int x = -1, y = -1;
    switch (code) {
    case SW_AA_U: code = SW_AA_C; break;
    case SW_AA_O: code = SW_AA_K; break;
    case SW_AA_B: x = SW_AA_D, y = SW_AA_N; break;
    case SW_AA_Z: x = SW_AA_E, y = SW_AA_Q; break;
    case SW_AA_J: x = SW_AA_I, y = SW_AA_L; break;
    default: break;
    }
    if (x >= 0) {
        f[x] += w * bg[x] / (bg[x] + bg[y]);
        f[y] += w * bg[y] / (bg[x] + bg[y]);
    } else if (code < 20) {
        f[code] += w;
    }
}

static int8_t log_odds(double q, double p, double lambda)
{
    if (q <= 0) return SW_PSSM_FLOOR;
    const long v = lround(log(q / p) / lambda);
    return (int8_t)(v < SW_PSSM_FLOOR ? SW_PSSM_FLOOR : v > 127 ? 127 : v);
}

/* The weight of a column's pseudocounts from its frequencies f and its
 * observations alpha (see sw_pssm_from_msa); *alpha becomes 0 where the
 * column is too close to the background to tell. */
static double column_pseudocounts(const double f[20], double *alpha)
{
    const double *p = sw_pssm_background();
    double entropy = 0;
    for (int a = 0; a < 20; ++a) {
        const double x = (f[a] * *alpha + p[a] * 5.5) / (*alpha + 5.5);
        if (x > 1e-4) entropy += x * log(x / p[a]);
    }
    if (entropy < 1e-4) entropy = 1e-4;
    const double x = 0.0457 / pow(entropy, 0.8);
    if (x < 1 - 1e-4) return 500 * x / (1 - x);
    *alpha = 0;
    return 30;
}

/* Scores of position i from its weights (see sw_pssm_from_msa). Returns 0
 * when the position takes the matrix's row instead. */
static int score_position(const block_input *in, size_t i, const block_weights *b, const double *q, double lambda,
                          double beta, int8_t *row)
{
    double alpha = b->distinct > 1 ? b->distinct - 1 : 0;
    if (alpha == 0) return 0;
    double f[20] = {0};
    for (size_t r = 0; r < in->rows; ++r)
        if (b->member[r]) count_residue(f, at(in, r, i), b->w[r]);
    double total = 0;
    for (int a = 0; a < 20; ++a) total += f[a];
    if (total <= 0) return 0;
    const double *p = sw_pssm_background();
    for (int a = 0; a < 20; ++a) f[a] /= total;
    if (beta == SW_PSSM_COLUMN_PSEUDOCOUNTS) {
        alpha = b->observations;
        beta = column_pseudocounts(f, &alpha);
    }
    for (int a = 0; a < 20; ++a) {
        /* g_a = sum_b f_b q_ab / p_b, the frequencies that the matrix
         * expects at a position of these residues. It is not renormalised:
         * so that with alpha 0 it gives back the matrix's own row. */
        double g = 0;
        for (int c = 0; c < 20; ++c) g += f[c] * q[a * 20 + c] / p[c];
        row[a] = log_odds((alpha * f[a] + beta * g) / (alpha + beta), p[a], lambda);
    }
    return 1;
}

/* Rows by a hash of their codes, for finding copies. */
typedef struct row_key {
    uint64_t hash;
    size_t row;
} row_key;

static int by_hash(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* in->unique: which rows are no copy of an earlier one. */
static int mark_copies(block_input *in, sw_error *err)
{
    row_key *keys = malloc(in->rows * sizeof *keys);
    in->unique = malloc(in->rows);
    if (!keys || !in->unique) {
        free(keys);
        return sw_error_set(err, SW_ENOMEM, "out of memory for the alignment");
    }
    for (size_t r = 0; r < in->rows; ++r) {
        keys[r] = (row_key){XXH3_64bits(in->x + r * in->length, in->length), r};
        in->unique[r] = 1;
    }
    qsort(keys, in->rows, sizeof *keys, by_hash);
    for (size_t k = 1; k < in->rows; ++k)
        for (size_t e = k; e-- > 0 && keys[e].hash == keys[k].hash;)
            if (!memcmp(in->x + keys[e].row * in->length, in->x + keys[k].row * in->length, in->length)) {
                in->unique[keys[k].row] = 0;
                break;
            }
    free(keys);
    return SW_OK;
}

static int cut_to_query(const sw_msa *msa, block_input *in, sw_error *err)
{
    const size_t rows = sw_msa_rows(msa), cols = sw_msa_columns(msa);
    const uint8_t *query = sw_msa_row(msa, 0);
    size_t length = 0;
    for (size_t c = 0; c < cols; ++c) length += query[c] != SW_MSA_GAP;
    if (length == 0) {
        char shown[4 * 60 + 8];
        sw_error_quote(shown, sizeof shown, sw_msa_name(msa, 0), strlen(sw_msa_name(msa, 0)), 60);
        return sw_error_set(err, SW_EINVAL, "the query, the first row ('%s'), has no residues: no PSSM", shown);
    }
    in->rows = rows;
    in->length = length;
    const double *p = sw_pssm_background();
    for (int j = 0; j < MAX_DRAWS; ++j) {
        double absent = 0;
        for (int a = 0; a < 20; ++a) absent += pow(1.0 - p[a], j);
        in->expected[j] = 20.0 - absent;
    }
    in->x = malloc(rows * length);
    in->first = malloc(rows * sizeof *in->first);
    in->last = malloc(rows * sizeof *in->last);
    if (!in->x || !in->first || !in->last) return sw_error_set(err, SW_ENOMEM, "out of memory for the alignment");
    for (size_t r = 0; r < rows; ++r) {
        const uint8_t *row = sw_msa_row(msa, r);
        size_t i = 0;
        in->first[r] = length, in->last[r] = 0;
        for (size_t c = 0; c < cols; ++c) {
            if (query[c] == SW_MSA_GAP) continue;
            in->x[r * length + i] = row[c];
            if (row[c] != SW_MSA_GAP) {
                if (in->first[r] == length) in->first[r] = i;
                in->last[r] = i;
            }
            ++i;
        }
    }
    return mark_copies(in, err);
}

int sw_pssm_from_msa(const sw_msa *msa, const sw_matrix *m, const sw_pssm_options *o, sw_pssm **out,
                     sw_error *err)
{
    *out = NULL;
    sw_pssm_options defaults;
    sw_pssm_options_init(&defaults);
    if (!o) o = &defaults;
    if ((!(o->pseudocounts >= 0) || !isfinite(o->pseudocounts)) && o->pseudocounts != SW_PSSM_COLUMN_PSEUDOCOUNTS)
        return sw_error_set(err, SW_EINVAL, "pseudocounts %g: a weight of 0 or more", o->pseudocounts);
    double q[20 * 20], lambda;
    int rc = sw_pssm_target_frequencies(m, q, &lambda, err);
    if (rc) return rc;
    block_input in;
    memset(&in, 0, sizeof in);
    block_weights b;
    memset(&b, 0, sizeof b);
    sw_pssm *p = NULL;
    rc = cut_to_query(msa, &in, err);
    if (!rc) {
        b.w = calloc(in.rows, sizeof *b.w);
        b.member = calloc(in.rows, 1);
        if (!b.w || !b.member) rc = sw_error_set(err, SW_ENOMEM, "out of memory for the sequence weights");
    }
    if (!rc) rc = sw_pssm_new(in.length, o->label ? o->label : sw_msa_name(msa, 0), &p, err);
    double distinct = 0;
    for (size_t i = 0; !rc && i < in.length; ++i) {
        p->query[i] = at(&in, 0, i);
        weigh(&in, i, &b);
        distinct += b.distinct;
        int8_t *row = p->scores + i * SW_CODE_LIMIT;
        if (score_position(&in, i, &b, q, lambda, o->pseudocounts, row)) sw_pssm_complete_row(p, i, m);
        else sw_pssm_matrix_row(p, i, m);
    }
    if (!rc) {
        p->sequences = in.rows;
        p->effective = distinct / (double)in.length;
        if (sw_matrix_name(m)) snprintf(p->matrix, sizeof p->matrix, "%s", sw_matrix_name(m));
        p->gap_open = o->gap_open;
        p->gap_extend = o->gap_extend;
    }
    free(in.x);
    free(in.first);
    free(in.last);
    free(in.unique);
    free(b.w);
    free(b.member);
    if (rc) {
        sw_pssm_free(p);
        return rc;
    }
    *out = p;
    return SW_OK;
}
