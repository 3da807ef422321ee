/* Substitution matrices (NCBI text format) and the scoring scheme of a search.
 * Gap convention, as in BLAST and ssearch36: a gap of k residues costs
 * gap_open + k * gap_extend. */
#ifndef SW_MATRIX_H
#define SW_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "sw_alphabet.h"
#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_matrix sw_matrix;

/* Loads a matrix by file path or by name. A name without '/' that is not an
 * existing file (for example "BLOSUM62" or "pam30", any case) is looked up in
 * $SWSEARCH_MATRIX_DIR, then in the installed and the source matrices/ folders. */
int sw_matrix_load(const char *path_or_name, sw_matrix **out, sw_error *err);
/* A shipped matrix by name only: never a file, whatever the name (for a
 * server, whose clients must not make it open paths of their choosing). */
int sw_matrix_load_name(const char *name, sw_matrix **out, sw_error *err);

/* Parses NCBI text format: '#' comment lines, a line of column letters, then
 * one row per letter: the row letter and one integer per column. Protein
 * residues that the file lacks score as ssearch36 scores them: U as C, O as
 * K, J as the better of I and L, any other as X; U, O and J against each
 * other 0, U against '*' as '*' against '*'. `source` names the text in
 * error messages. */
int sw_matrix_parse(const char *text, size_t len, const char *source, sw_matrix **out,
                    sw_error *err);

void sw_matrix_free(sw_matrix *m);

const sw_alphabet *sw_matrix_alphabet(const sw_matrix *m);

/* SW_CODE_LIMIT x SW_CODE_LIMIT scores, row-major by code; rows and columns
 * beyond the alphabet hold the matrix minimum. */
const int8_t *sw_matrix_table(const sw_matrix *m);

static inline int sw_matrix_score(const int8_t *table, uint8_t a, uint8_t b)
{
    return table[a * SW_CODE_LIMIT + b];
}

int sw_matrix_max(const sw_matrix *m);

/* The upper-case name ("BLOSUM62") of a matrix that sw_matrix_load() found
 * by name among the shipped ones, whose published statistics then apply;
 * NULL for one read from a path or parsed from text. */
const char *sw_matrix_name(const sw_matrix *m);

/* Everything an engine needs to score an alignment. */
typedef struct sw_scoring {
    const int8_t *table; /* from sw_matrix_table() */
    int gap_open;        /* >= 0 */
    int gap_extend;      /* >= 1 */
    int max_score;       /* largest entry of the table, for overflow bounds */
    /* Not NULL: a PSSM query's position-specific scores, query length x
     * SW_CODE_LIMIT, row i scoring query position i (the table then serves
     * what is not position-specific); set per query by those that handle
     * one query at a time. */
    const int8_t *rows;
} sw_scoring;

/* Query position i's scores against each subject code. */
static inline const int8_t *sw_scoring_row(const sw_scoring *s, const uint8_t *query, size_t i)
{
    return s->rows ? s->rows + i * SW_CODE_LIMIT : s->table + (size_t)query[i] * SW_CODE_LIMIT;
}

/* Checks the penalties (open >= 0, extend >= 1, both <= 255). */
int sw_scoring_init(sw_scoring *s, const sw_matrix *m, int gap_open, int gap_extend,
                    sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
