/* Profiles and column scores (sw_profile.h). */
#include "sw_profile.h"

#include <stdlib.h>
#include <string.h>

struct sw_profile {
    size_t columns;
    uint8_t *freq; /* columns x SW_PROFILE_SYMBOLS */
};

static sw_profile *profile_new(size_t cols)
{
    sw_profile *p = calloc(1, sizeof *p);
    if (p && !(p->freq = calloc(cols ? cols : 1, SW_PROFILE_SYMBOLS))) {
        free(p);
        return NULL;
    }
    if (p) p->columns = cols;
    return p;
}

/* How many rows hold each symbol in column c. */
static void count_column(const sw_msa *m, size_t c, uint64_t count[SW_PROFILE_SYMBOLS])
{
    memset(count, 0, SW_PROFILE_SYMBOLS * sizeof *count);
    for (size_t r = 0; r < sw_msa_rows(m); ++r) ++count[sw_msa_row(m, r)[c]];
}

int sw_profile_from_msa(const sw_msa *m, sw_profile **out, sw_error *err)
{
    *out = NULL;
    const size_t rows = sw_msa_rows(m), cols = sw_msa_columns(m);
    sw_profile *p = profile_new(cols);
    if (!p) return sw_error_set(err, SW_ENOMEM, "out of memory for a profile of %zu columns", cols);
    uint64_t count[SW_PROFILE_SYMBOLS];
    for (size_t c = 0; c < cols; ++c) {
        count_column(m, c, count);
        for (int s = 0; s < SW_PROFILE_SYMBOLS; ++s)
            p->freq[c * SW_PROFILE_SYMBOLS + s] = (uint8_t)((2 * SW_PROFILE_SCALE * count[s] + rows) / (2 * rows));
    }
    *out = p;
    return SW_OK;
}

int sw_profile_from_msa_weighted(const sw_msa *m, sw_profile **out, sw_error *err)
{
    *out = NULL;
    const size_t rows = sw_msa_rows(m), cols = sw_msa_columns(m);
    double *w = calloc(rows ? rows : 1, sizeof *w);
    sw_profile *p = profile_new(cols);
    if (!w || !p) {
        free(w);
        sw_profile_free(p);
        return sw_error_set(err, SW_ENOMEM, "out of memory for a profile of %zu columns", cols);
    }
    uint64_t count[SW_PROFILE_SYMBOLS];
    for (size_t c = 0; c < cols; ++c) {
        count_column(m, c, count);
        int types = 0;
        for (int s = 0; s < SW_MSA_GAP; ++s) types += count[s] > 0;
        for (size_t r = 0; r < rows; ++r) {
            const uint8_t x = sw_msa_row(m, r)[c];
            if (x != SW_MSA_GAP) w[r] += 1.0 / ((double)types * (double)count[x]);
        }
    }
    double total = 0;
    for (size_t r = 0; r < rows; ++r) total += w[r];
    for (size_t r = 0; r < rows; ++r) w[r] = total > 0 ? w[r] / total : 1.0 / (double)rows;
    double share[SW_PROFILE_SYMBOLS];
    for (size_t c = 0; c < cols; ++c) {
        for (int s = 0; s < SW_PROFILE_SYMBOLS; ++s) share[s] = 0;
        for (size_t r = 0; r < rows; ++r) share[sw_msa_row(m, r)[c]] += w[r];
        for (int s = 0; s < SW_PROFILE_SYMBOLS; ++s) {
            const double v = share[s] * SW_PROFILE_SCALE + 0.5;
            p->freq[c * SW_PROFILE_SYMBOLS + s] = (uint8_t)(v > SW_PROFILE_SCALE ? SW_PROFILE_SCALE : (int)v);
        }
    }
    free(w);
    *out = p;
    return SW_OK;
}

void sw_profile_free(sw_profile *p)
{
    if (!p) return;
    free(p->freq);
    free(p);
}

size_t sw_profile_columns(const sw_profile *p) { return p->columns; }
const uint8_t *sw_profile_column(const sw_profile *p, size_t i) { return p->freq + i * SW_PROFILE_SYMBOLS; }

int64_t sw_profile_pair_score(const sw_profile_scoring *s, const uint8_t *x, const uint8_t *y)
{
    int64_t v = 0;
    if (s->kind == SW_PROFILE_EUCLID) {
        for (int k = 0; k < SW_PROFILE_SYMBOLS; ++k) {
            const int64_t d = (int64_t)x[k] - y[k];
            v -= d * d;
        }
        return v;
    }
    for (int a = 0; a < SW_PROFILE_SYMBOLS; ++a) {
        if (!x[a]) continue;
        int64_t row = 0;
        for (int b = 0; b < SW_PROFILE_SYMBOLS; ++b) row += (int64_t)sw_profile_symbol_score(s, a, b) * y[b];
        v += row * x[a];
    }
    return v;
}

int64_t sw_profile_gap_cost(const sw_profile_scoring *s, const uint8_t *x)
{
    if (s->kind == SW_PROFILE_EUCLID) {
        /* Distance to a column of gaps only. */
        int64_t v = 0;
        for (int k = 0; k < SW_PROFILE_SYMBOLS; ++k) {
            const int64_t d = (int64_t)x[k] - (k == SW_MSA_GAP ? SW_PROFILE_SCALE : 0);
            v += d * d;
        }
        return v;
    }
    /* Against a column of gaps only: gap_extend for each residue. */
    int64_t residues = 0;
    for (int k = 0; k < SW_MSA_GAP; ++k) residues += x[k];
    return (int64_t)s->gap_extend * SW_PROFILE_SCALE * residues;
}

int64_t sw_profile_gap_open_cost(const sw_profile_scoring *s, const uint8_t *x)
{
    if (s->kind == SW_PROFILE_EUCLID) return (int64_t)s->gap_open * SW_PROFILE_SCALE * SW_PROFILE_SCALE;
    int64_t residues = 0;
    for (int k = 0; k < SW_MSA_GAP; ++k) residues += x[k];
    return (int64_t)s->gap_open * SW_PROFILE_SCALE * residues;
}
