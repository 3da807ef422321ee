/* The PSSM type: making, completing and freeing one, and the PSSM of a
 * query alone (sw_pssm.h). */
#include "sw_pssm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void sw_pssm_options_init(sw_pssm_options *o)
{
    memset(o, 0, sizeof *o);
    o->pseudocounts = SW_PSSM_COLUMN_PSEUDOCOUNTS;
}

int sw_pssm_new(size_t length, const char *label, sw_pssm **out, sw_error *err)
{
    *out = NULL;
    if (length == 0) return sw_error_set(err, SW_EINVAL, "a PSSM needs at least one position");
    if (length > SIZE_MAX / SW_CODE_LIMIT) return sw_error_set(err, SW_ELIMIT, "%zu positions: too many", length);
    sw_pssm *p = calloc(1, sizeof *p);
    if (!label) label = "";
    if (p) {
        p->length = length;
        p->scores = calloc(length, SW_CODE_LIMIT);
        p->query = calloc(length, 1);
        p->label = strdup(label);
    }
    if (!p || !p->scores || !p->query || !p->label) {
        sw_pssm_free(p);
        return sw_error_set(err, SW_ENOMEM, "out of memory for a PSSM of %zu positions", length);
    }
    /* A label is one line of a saved file. */
    for (char *c = p->label; *c; ++c)
        if ((unsigned char)*c < 0x20 || *c == 0x7F) *c = ' ';
    *out = p;
    return SW_OK;
}

void sw_pssm_free(sw_pssm *p)
{
    if (!p) return;
    free(p->scores);
    free(p->query);
    free(p->label);
    free(p);
}

/* The mean of the scores of codes x and y, weighted by their background
 * frequencies, rounded half away from zero. */
static int8_t mean_of_two(const int8_t *row, int x, int y)
{
    const double *bg = sw_pssm_background();
    const long v = lround((bg[x] * row[x] + bg[y] * row[y]) / (bg[x] + bg[y]));
    return (int8_t)v; /* between row[x] and row[y] */
}

void sw_pssm_pad_row(sw_pssm *p, size_t i)
{
    int8_t *row = p->scores + i * SW_CODE_LIMIT;
    int8_t low = row[0];
    for (int c = 1; c < SW_PROTEIN_CODES; ++c)
        if (row[c] < low) low = row[c];
    for (int c = SW_PROTEIN_CODES; c < SW_CODE_LIMIT; ++c) row[c] = low;
}

void sw_pssm_complete_row(sw_pssm *p, size_t i, const sw_matrix *m)
{
    int8_t *row = p->scores + i * SW_CODE_LIMIT;
    const int8_t *table = sw_matrix_table(m);
    const uint8_t q = p->query[i];
    row[SW_AA_B] = mean_of_two(row, SW_AA_D, SW_AA_N);
    row[SW_AA_Z] = mean_of_two(row, SW_AA_E, SW_AA_Q);
    row[SW_AA_J] = row[SW_AA_I] > row[SW_AA_L] ? row[SW_AA_I] : row[SW_AA_L];
    row[SW_AA_U] = row[SW_AA_C];
    row[SW_AA_O] = row[SW_AA_K];
    row[SW_AA_X] = table[q * SW_CODE_LIMIT + SW_AA_X];
    row[SW_AA_STAR] = table[q * SW_CODE_LIMIT + SW_AA_STAR];
    sw_pssm_pad_row(p, i);
}

void sw_pssm_matrix_row(sw_pssm *p, size_t i, const sw_matrix *m)
{
    int8_t *row = p->scores + i * SW_CODE_LIMIT;
    memcpy(row, sw_matrix_table(m) + p->query[i] * SW_CODE_LIMIT, SW_PROTEIN_CODES);
    sw_pssm_pad_row(p, i);
}

int sw_pssm_check_matrix(const sw_matrix *m, sw_error *err)
{
    if (!m) return sw_error_set(err, SW_EINVAL, "a PSSM needs the substitution matrix it is scaled to");
    if (sw_matrix_alphabet(m)->kind != SW_ALPHABET_PROTEIN)
        return sw_error_set(err, SW_EINVAL, "a PSSM needs a protein matrix, not a DNA one");
    return SW_OK;
}

int sw_pssm_from_query(const uint8_t *codes, size_t length, const sw_matrix *m, const sw_pssm_options *o,
                       sw_pssm **out, sw_error *err)
{
    *out = NULL;
    int rc = sw_pssm_check_matrix(m, err);
    if (rc) return rc;
    for (size_t i = 0; i < length; ++i)
        if (codes[i] >= SW_PROTEIN_CODES)
            return sw_error_set(err, SW_EINVAL, "query position %zu: %d is not a protein code", i + 1, codes[i]);
    sw_pssm *p = NULL;
    if ((rc = sw_pssm_new(length, o ? o->label : NULL, &p, err))) return rc;
    for (size_t i = 0; i < length; ++i) {
        p->query[i] = codes[i];
        sw_pssm_matrix_row(p, i, m);
    }
    p->sequences = 1;
    p->effective = 1;
    if (sw_matrix_name(m)) snprintf(p->matrix, sizeof p->matrix, "%s", sw_matrix_name(m));
    if (o) {
        p->gap_open = o->gap_open;
        p->gap_extend = o->gap_extend;
    }
    *out = p;
    return SW_OK;
}

int sw_pssm_min(const sw_pssm *p)
{
    int v = 127;
    for (size_t i = 0; i < p->length; ++i)
        for (int c = 0; c < SW_PROTEIN_CODES; ++c)
            if (sw_pssm_row(p, i)[c] < v) v = sw_pssm_row(p, i)[c];
    return v;
}

int sw_pssm_max(const sw_pssm *p)
{
    int v = -128;
    for (size_t i = 0; i < p->length; ++i)
        for (int c = 0; c < SW_PROTEIN_CODES; ++c)
            if (sw_pssm_row(p, i)[c] > v) v = sw_pssm_row(p, i)[c];
    return v;
}
