/* Ranking hits: the N best by score, then database FASTA position, and the
 * merge of several slices' lists into the list of the whole. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "sw_topn.h"
#include "test_rng.h"

static int best_first(const void *pa, const void *pb)
{
    const sw_hit *a = pa, *b = pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return a->original < b->original ? -1 : a->original > b->original;
}

Test(topn, keeps_the_best_with_ties_in_fasta_order)
{
    sw_topn *t = sw_topn_create(3);
    const sw_hit hits[] = {{5, 0, 9}, {7, 1, 4}, {5, 2, 2}, {7, 3, 8}, {1, 4, 0}, {5, 5, 1}};
    for (size_t i = 0; i < 6; i++) sw_topn_offer(t, &hits[i]);
    sw_hit out[3];
    cr_assert_eq(sw_topn_count(t), 3);
    sw_topn_sorted(t, out);
    cr_assert(out[0].seq == 1 && out[1].seq == 3 && out[2].seq == 5, "%llu %llu %llu", (unsigned long long)out[0].seq,
              (unsigned long long)out[1].seq, (unsigned long long)out[2].seq);
    sw_topn_free(t);
}

/* Hits of a database dealt at random to slices: the merge of each slice's
 * N best is the N best of the whole, ties included. */
Test(topn, merging_slices_lists_gives_the_whole_list)
{
    test_rng rng = test_rng_seed(41);
    for (int round = 0; round < 200; round++) {
        const size_t n = 1 + test_rng_below(&rng, 400), slices = 1 + test_rng_below(&rng, 8);
        const size_t top = 1 + test_rng_below(&rng, 60);
        sw_hit *all = malloc(n * sizeof *all), *lists[8], *out = malloc(top * sizeof *out);
        size_t counts[8] = {0};
        for (size_t k = 0; k < slices; k++) lists[k] = malloc(n * sizeof *lists[k]);
        for (size_t i = 0; i < n; i++) {
            /* Few distinct scores: many ties. */
            all[i] = (sw_hit){(int)(1 + test_rng_below(&rng, 12)), i, (i * 7919) % 100003};
            size_t k = test_rng_below(&rng, slices);
            lists[k][counts[k]++] = all[i];
        }
        for (size_t k = 0; k < slices; k++) {
            qsort(lists[k], counts[k], sizeof *lists[k], best_first);
            if (counts[k] > top) counts[k] = top;
        }
        qsort(all, n, sizeof *all, best_first);
        const sw_hit *heads[8];
        for (size_t k = 0; k < slices; k++) heads[k] = lists[k];
        size_t got = sw_topn_merge_sorted(heads, counts, slices, top, out);
        cr_assert_eq(got, n < top ? n : top, "round %d", round);
        for (size_t i = 0; i < got; i++)
            cr_assert(out[i].seq == all[i].seq && out[i].score == all[i].score, "round %d, rank %zu", round, i);
        for (size_t k = 0; k < slices; k++) free(lists[k]);
        free(all);
        free(out);
    }
}

Test(topn, merging_nothing_gives_nothing)
{
    sw_hit out[4];
    const sw_hit *heads[2] = {NULL, NULL};
    size_t counts[2] = {0, 0};
    cr_assert_eq(sw_topn_merge_sorted(heads, counts, 2, 4, out), 0);
    cr_assert_eq(sw_topn_merge_sorted(heads, counts, 0, 4, out), 0);
}
