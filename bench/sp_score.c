/* Sum-of-pairs score of a multiple alignment: for every pair of rows, the
 * score of the pairwise alignment the rows induce (columns where both have
 * a gap dropped), with a substitution matrix and affine gaps (a gap of k
 * residues costs open + k * extend). Compares merges of the same rows made
 * by different programs.
 * usage: sp_score ALIGNMENT.afa [MATRIX [OPEN EXTEND]]   (BLOSUM62 11 1) */
#include <stdio.h>
#include <stdlib.h>

#include "sw_matrix.h"
#include "sw_msa.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sp_score ALIGNMENT.afa [MATRIX [OPEN EXTEND]]\n");
        return 2;
    }
    const char *matrix_name = argc > 2 ? argv[2] : "BLOSUM62";
    const long open = argc > 4 ? atol(argv[3]) : 11, extend = argc > 4 ? atol(argv[4]) : 1;
    sw_error err = {0};
    sw_msa *m = NULL;
    sw_matrix *mx = NULL;
    if (sw_msa_read(argv[1], &m, &err) || sw_matrix_load(matrix_name, &mx, &err)) {
        fprintf(stderr, "sp_score: %s\n", err.message);
        return 1;
    }
    const int8_t *t = sw_matrix_table(mx);
    const size_t rows = sw_msa_rows(m), cols = sw_msa_columns(m);
    long long total = 0;
    for (size_t p = 0; p < rows; ++p)
        for (size_t q = p + 1; q < rows; ++q) {
            const uint8_t *x = sw_msa_row(m, p), *y = sw_msa_row(m, q);
            int gap = 0; /* 1: a gap in x running, 2: in y */
            for (size_t c = 0; c < cols; ++c) {
                const int gx = x[c] == SW_MSA_GAP, gy = y[c] == SW_MSA_GAP;
                if (gx && gy) continue;
                if (!gx && !gy) {
                    total += t[x[c] * SW_CODE_LIMIT + y[c]];
                    gap = 0;
                } else {
                    const int kind = gx ? 1 : 2;
                    total -= extend + (gap == kind ? 0 : open);
                    gap = kind;
                }
            }
        }
    printf("%lld\n", total);
    sw_msa_free(m);
    sw_matrix_free(mx);
    return 0;
}
