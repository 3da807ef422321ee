/* The two DNA sequences of a pairwise alignment, from two FASTA files of one
 * record each or one file of two records (plain or zstd-compressed). */
#ifndef SW_PAIR_INPUT_H
#define SW_PAIR_INPUT_H

#include <stdint.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest sequence accepted, in bases. */
#define SW_PAIR_MAX_LENGTH ((uint64_t)1 << 31)

typedef struct sw_pair_seq {
    char *id;       /* the header up to the first blank; for a bare '>', "seq1" or
                     * "seq2" after its place in the input */
    uint8_t *codes; /* A C G T = 0 1 2 3 (either case), N and other IUPAC codes = 4 */
    uint64_t length;
} sw_pair_seq;

/* Reads a from `path_a` and b from `path_b`, each file holding exactly one
 * record; with `path_b` NULL, `path_a` must hold exactly two. Errors name
 * the file, the line and the problem ("a.fa:3: invalid residue 'X' in
 * sequence chr1"). An empty sequence is skipped with a warning through
 * `warn` and does not count as a record. */
int sw_pair_read(const char *path_a, const char *path_b, sw_pair_seq *a, sw_pair_seq *b, sw_warn_fn warn,
                 void *warn_user, sw_error *err);

void sw_pair_seq_free(sw_pair_seq *s);

#ifdef __cplusplus
}
#endif

#endif
