/* Position-specific scoring matrices (PSSMs) of protein queries: a score
 * for every residue code at every query position, in the units of a
 * substitution matrix, so that an engine searches with one as it searches
 * with a query and that matrix. Made from a query alone, built from a
 * multiple alignment as PSI-BLAST builds one, read from PSI-BLAST's ASCII
 * PSSM, or saved and loaded in swsearch's own text format.
 * docs/STATISTICS.md ("PSSM scores") explains the scale and the E-values. */
#ifndef SW_PSSM_H
#define SW_PSSM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sw_alphabet.h"
#include "sw_error.h"
#include "sw_matrix.h"
#include "sw_msa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The protein codes that the PSSM rules name (sw_alphabet.h's order
 * "ARNDCQEGHILKMFPSTWYVBJZX*UO"). */
enum {
    SW_AA_N = 2, SW_AA_D = 3, SW_AA_C = 4, SW_AA_Q = 5, SW_AA_E = 6, SW_AA_I = 9, SW_AA_L = 10, SW_AA_K = 11,
    SW_AA_B = 20, SW_AA_J = 21, SW_AA_Z = 22, SW_AA_X = SW_PROTEIN_X, SW_AA_STAR = 24, SW_AA_U = 25, SW_AA_O = 26
};

/* What a residue scores where the alignment gives it no probability at all
 * (only without pseudocounts): far below any substitution of a shipped
 * matrix (PAM30's lowest is -17), so that it acts as "never", yet not so
 * low that biased 8-bit engines lose their range. */
#define SW_PSSM_FLOOR (-32)

/* PSI-BLAST's beta (Altschul et al. 1997): the weight of the matrix's
 * pseudocounts against the observed frequencies, one for every column. */
#define SW_PSSM_PSEUDOCOUNTS 10.0
/* Each column its own weight, from how far its frequencies stand from the
 * background, as PSI-BLAST 2.x weighs them by default (Altschul et al.
 * 2009; sw_pssm_from_msa): the default of sw_pssm_options_init(). */
#define SW_PSSM_COLUMN_PSEUDOCOUNTS (-1.0)

/* The version of the saved text format that sw_pssm_save() writes and the
 * newest that sw_pssm_read() reads. */
#define SW_PSSM_FORMAT_VERSION 1

/* A PSSM. Every score is an int8_t in the units of the matrix it was made
 * for (lambda_u nats a point, lambda_u the matrix's ungapped lambda).
 * Row i holds SW_CODE_LIMIT scores, indexed by protein code like a row of
 * sw_matrix_table(): codes 0-19 the standard residues; B, Z, J, X, '*', U
 * and O (20-26) as sw_pssm_complete_row() fills them; the codes past the
 * alphabet (27 up to SW_CODE_LIMIT - 1) hold the lowest score of the row,
 * as a matrix's padding holds its minimum. Built PSSMs keep every score in
 * [SW_PSSM_FLOOR, 127]; read ones anywhere in [-128, 127]. */
typedef struct sw_pssm {
    size_t length;       /* query positions, >= 1 */
    int8_t *scores;      /* length x SW_CODE_LIMIT */
    uint8_t *query;      /* length protein codes: the residue each row was made for */
    char *label;         /* one line, never NULL (may be "") */
    size_t sequences;    /* the alignment's rows, 1 for a query alone; 0: not known */
    double effective;    /* effective number of sequences (sw_pssm_from_msa); 0: not known */
    char matrix[32];     /* the matrix whose units the scores are in; "": not known */
    int gap_open;        /* the gap costs the PSSM was made for (its E-values use */
    int gap_extend;      /* them); both 0: not known */
} sw_pssm;

/* Row i: SW_CODE_LIMIT scores, for building an engine's query profile. */
static inline const int8_t *sw_pssm_row(const sw_pssm *p, size_t i)
{
    return p->scores + i * SW_CODE_LIMIT;
}

/* How a PSSM is made. */
typedef struct sw_pssm_options {
    /* Beta, the pseudocounts' weight: SW_PSSM_COLUMN_PSEUDOCOUNTS (the
     * default: each column's own), or one weight for every column
     * (SW_PSSM_PSEUDOCOUNTS: the 1997 method; 0: none, the observed
     * frequencies alone). See sw_pssm_from_msa. */
    double pseudocounts;
    const char *label;   /* NULL: the query's (the first row's) name */
    int gap_open, gap_extend; /* recorded in the PSSM; 0 and 0: not known */
} sw_pssm_options;

/* The defaults above, no label, gap costs not known. */
void sw_pssm_options_init(sw_pssm_options *o);

/* The PSSM of a query alone: row i is the matrix's row of codes[i], for
 * every protein code exactly (the padding codes as above), so a search
 * with it scores as a search with the query and the matrix. `o` may be
 * NULL; its pseudocounts do not matter. */
int sw_pssm_from_query(const uint8_t *codes, size_t length, const sw_matrix *m, const sw_pssm_options *o,
                       sw_pssm **out, sw_error *err);

/* A PSSM from a multiple alignment, in PSI-BLAST's manner (Altschul et al.
 * 1997 and 2009; docs/STATISTICS.md gives the details):
 * - the first row is the query; the columns where it has a gap are
 *   dropped, so the PSSM has a position for each of its residues;
 * - for each position, the rows with a residue there, over the block of
 *   positions that all of them span, get Henikoff and Henikoff's
 *   position-based weights (1994), gaps counting as a symbol; the weighted
 *   residue frequencies f of the position follow (U counts as C, O as K,
 *   B, Z and J split between their two residues by background frequency,
 *   X and '*' not at all);
 * - alpha weighs f against the pseudocount frequencies g_a =
 *   sum_b f_b q_ab / p_b: Q_a = (alpha f_a + beta g_a) / (alpha + beta).
 *   With a constant beta (o->pseudocounts >= 0), alpha = N_c - 1, N_c the
 *   mean number of distinct symbols (the gap included) in the block's
 *   columns. With SW_PSSM_COLUMN_PSEUDOCOUNTS, alpha is the column's
 *   independent observations: the number of independent draws from the
 *   background frequencies that would show, on average, as many distinct
 *   residues as the half of the block's columns with the most show (at
 *   most the rows with a residue at the position), less one; and beta =
 *   500 x / (1 - x), x = 0.0457 / R^0.8, R the relative entropy to the
 *   background of the column's frequencies with 5.5 background
 *   pseudocounts beside its alpha observations; where x >= 1 (a column
 *   too close to the background to tell), alpha = 0 and beta = 30;
 * - the score of residue a is round(ln(Q_a / p_a) / lambda_u), with p the
 *   background frequencies and q the target frequencies of the matrix
 *   (sw_pssm_target_frequencies), SW_PSSM_FLOOR where Q_a is 0.
 * Where alpha is 0 (every row of the block is alike: the query alone, or
 * copies of it) the position takes the matrix's row of the query residue,
 * which is what the formula gives, exactly rather than up to rounding; so
 * with or without pseudocounts, a one-row alignment gives the PSSM of
 * sw_pssm_from_query. `o` may be NULL (the defaults). */
int sw_pssm_from_msa(const sw_msa *msa, const sw_matrix *m, const sw_pssm_options *o, sw_pssm **out,
                     sw_error *err);

/* Reads `path` ("-": standard input) in either format, told apart by the
 * first line: swsearch's own (sw_pssm_save), or PSI-BLAST's ASCII PSSM
 * (psiblast -out_ascii_pssm), whose first 20 score columns (A R N D C Q E
 * G H I L K M F P S T W Y V) give codes 0-19 and whose other columns are
 * ignored; the other codes are completed with `m` (sw_pssm_complete_row),
 * which must be the matrix psiblast ran with (BLOSUM62 unless -matrix said
 * otherwise) and is not needed for swsearch's format (it may be NULL).
 * A PSI-BLAST PSSM's label is the file's name without its folders, its
 * matrix the name of `m`; its sequences, effective count and gap costs are
 * not known. Errors name the file, the line and the problem. */
int sw_pssm_read(const char *path, const sw_matrix *m, sw_pssm **out, sw_error *err);

/* The same from text in memory, named `source` in messages. */
int sw_pssm_parse(const char *text, size_t len, const char *source, const sw_matrix *m, sw_pssm **out,
                  sw_error *err);

/* Writes `p` to `path` ("-": standard output) in swsearch's text format,
 * version SW_PSSM_FORMAT_VERSION:
 *
 *   swsearch-pssm 1
 *   label TEXT             (the rest of the line; may be empty)
 *   sequences N            ('-': not known)
 *   effective X            (%.17g, so it reads back the same; '-': not known)
 *   matrix NAME            ('-': not known)
 *   gaps OPEN EXTEND       ('- -': not known)
 *   length L
 *   columns A R N D C Q E G H I L K M F P S T W Y V B J Z X * U O
 *   1 Q s_0 s_1 ... s_26   (L lines: the position from 1, the query
 *   ...                     letter, the score of each code in code order)
 *   end
 *
 * Fields are separated by single spaces; the padding codes are not written
 * (they follow from the row). A file is written whole or not at all: into
 * a new file beside it, renamed at the end. sw_pssm_read() gives back an
 * equal PSSM. */
int sw_pssm_save(const sw_pssm *p, const char *path, sw_error *err);

/* The same text to an open stream, named `name` in messages (for a caller
 * with its own way of replacing files). */
int sw_pssm_write(const sw_pssm *p, FILE *f, const char *name, sw_error *err);

void sw_pssm_free(sw_pssm *p);

/* The lowest and highest scores of codes 0 .. SW_PROTEIN_CODES - 1 over all
 * positions, for an engine's bias and overflow bounds. */
int sw_pssm_min(const sw_pssm *p);
int sw_pssm_max(const sw_pssm *p);

/* ---- The matrix's scale, for the module's builders and readers ---- */

/* SW_OK for a protein matrix; else SW_EINVAL with the reason (NULL too). */
int sw_pssm_check_matrix(const sw_matrix *m, sw_error *err);

/* Robinson and Robinson's (1991) background frequencies of the 20 standard
 * residues, by code, summing to 1: BLAST's standard composition. */
const double *sw_pssm_background(void);

/* The ungapped lambda of the matrix's 20 standard residues under the
 * background frequencies: the positive root of sum_ab p_a p_b
 * exp(lambda s_ab) = 1 (BLOSUM62: 0.3176, BLAST's "ideal" lambda). Fails
 * when the expected score is not negative or no score is positive. */
int sw_pssm_lambda(const sw_matrix *m, double *lambda, sw_error *err);

/* The matrix's target frequencies q_ab = p_a p_b exp(lambda s_ab) over the
 * 20 standard residues (20 x 20, by code, summing to 1), as the matrix's
 * rounded scores imply them. */
int sw_pssm_target_frequencies(const sw_matrix *m, double q[20 * 20], double *lambda, sw_error *err);

/* An empty PSSM of `length` positions (scores 0, query codes 0), with a
 * copy of `label` (NULL: "") whose line breaks and other control
 * characters become blanks. */
int sw_pssm_new(size_t length, const char *label, sw_pssm **out, sw_error *err);

/* Sets the padding codes of row i (SW_PROTEIN_CODES up to SW_CODE_LIMIT - 1)
 * to the lowest score of its protein codes. */
void sw_pssm_pad_row(sw_pssm *p, size_t i);

/* Row i as the matrix's row of the query residue p->query[i], every
 * protein code, padded (sw_pssm_pad_row). */
void sw_pssm_matrix_row(sw_pssm *p, size_t i, const sw_matrix *m);

/* Fills the codes of row i that are not standard residues from its 20
 * standard scores, the query residue p->query[i] and the matrix:
 * - B and Z: the mean of the scores of the two residues they stand for (D
 *   and N, E and Q), weighted by background frequency, rounded (half away
 *   from zero); of the 40 B and Z entries of BLOSUM62's standard rows, this
 *   gives 37 exactly and the others within 1;
 * - J: the better of I and L, U as C and O as K (as sw_matrix_parse scores
 *   them when a matrix file lacks them);
 * - X and '*': the matrix's score of the query residue against X and '*',
 *   as PSI-BLAST fills them;
 * - the padding codes: the lowest score of the row. */
void sw_pssm_complete_row(sw_pssm *p, size_t i, const sw_matrix *m);

#ifdef __cplusplus
}
#endif

#endif
