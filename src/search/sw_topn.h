/* Keeps the N best hits of one query. Better means a higher score, then an
 * earlier position in the input FASTA, so results never depend on thread
 * scheduling. */
#ifndef SW_TOPN_H
#define SW_TOPN_H

#include <stddef.h>
#include <stdint.h>

typedef struct sw_hit {
    int score;
    uint64_t seq;       /* sorted database sequence number */
    uint64_t original;  /* position in the input FASTA: the tie-break */
} sw_hit;

typedef struct sw_topn sw_topn;

sw_topn *sw_topn_create(size_t capacity);
void sw_topn_free(sw_topn *t);
/* Empties the list, keeping its capacity. */
void sw_topn_clear(sw_topn *t);

/* Lowest score that can still enter: hits below it are rejected. */
int sw_topn_threshold(const sw_topn *t);
void sw_topn_offer(sw_topn *t, const sw_hit *hit);
void sw_topn_merge(sw_topn *into, const sw_topn *from);

size_t sw_topn_count(const sw_topn *t);
/* Copies the hits, best first, into `out` (sw_topn_count() entries). */
void sw_topn_sorted(const sw_topn *t, sw_hit *out);

/* Merges `num_lists` lists of hits, each best first and of distinct
 * sequences across the lists, into the best `top_n` of them all, best
 * first, in `out` (room for top_n); returns how many. The N best of a
 * union are among the N best of each of its parts, so the lists of several
 * slices of a database merge into exactly the list of the whole. At most
 * SW_TOPN_MERGE_MAX_LISTS lists. */
#define SW_TOPN_MERGE_MAX_LISTS 256
size_t sw_topn_merge_sorted(const sw_hit *const *lists, const size_t *counts, size_t num_lists, size_t top_n,
                            sw_hit *out);

#endif
