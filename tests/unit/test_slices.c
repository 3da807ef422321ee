/* The residue-balanced split of a sorted database into slices, one a GPU. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sw_slices.h"
#include "test_rng.h"

/* Sorted lengths like a protein database's: mostly 50-1,000 residues, a
 * tail of long ones and a few giants. */
static uint32_t *protein_lengths(uint64_t n, uint64_t seed)
{
    test_rng rng = test_rng_seed(seed);
    uint32_t *len = malloc(n * sizeof *len);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t roll = test_rng_below(&rng, 1000);
        len[i] = roll < 5 ? (uint32_t)(5000 + test_rng_below(&rng, 30000))
                 : roll < 100 ? (uint32_t)(1000 + test_rng_below(&rng, 4000))
                              : (uint32_t)(1 + test_rng_below(&rng, 1000));
    }
    /* Sorted by a counting sort. */
    uint64_t *count = calloc(40000, sizeof *count);
    for (uint64_t i = 0; i < n; i++) count[len[i]]++;
    uint64_t k = 0;
    for (uint32_t l = 0; l < 40000; l++)
        while (count[l]--) len[k++] = l;
    free(count);
    return len;
}

/* Every sequence in exactly one slice, runs ascending and consistent. */
static void check_cover(const sw_slicing *s, const uint32_t *len, uint64_t n)
{
    uint8_t *owner = calloc(n ? n : 1, 1);
    uint64_t *start = malloc((n + 1) * sizeof *start); /* residues before each sequence */
    start[0] = 0;
    for (uint64_t i = 0; i < n; i++) start[i + 1] = start[i] + len[i];
    uint64_t all = 0;
    for (int k = 0; k < sw_slicing_count(s); k++) {
        size_t nr;
        const sw_slice_run *runs = sw_slice_runs(s, k, &nr);
        uint64_t local = 0, residues = 0, last_end = 0;
        for (size_t r = 0; r < nr; r++) {
            cr_assert_gt(runs[r].count, 0, "slice %d run %zu is empty", k, r);
            cr_assert_eq(runs[r].local, local);
            cr_assert(r == 0 || runs[r].first > last_end, "slice %d: runs %zu and %zu touch or overlap", k, r - 1, r);
            uint64_t rr = 0;
            cr_assert_eq(runs[r].residue, start[runs[r].first], "slice %d run %zu starts at the wrong residue", k, r);
            for (uint64_t i = 0; i < runs[r].count; i++) {
                const uint64_t seq = runs[r].first + i;
                cr_assert_lt(seq, n);
                cr_assert_eq(owner[seq], 0, "sequence %llu in two slices", (unsigned long long)seq);
                owner[seq] = 1;
                rr += len[seq];
                cr_assert_eq(sw_slice_seq(s, k, local + i), seq);
            }
            cr_assert_eq(runs[r].residues, rr);
            residues += rr;
            local += runs[r].count;
            last_end = runs[r].first + runs[r].count;
        }
        cr_assert_eq(sw_slice_num_seqs(s, k), local);
        cr_assert_eq(sw_slice_num_residues(s, k), residues);
        all += local;
    }
    cr_assert_eq(all, n);
    free(owner);
    free(start);
}

Test(slices, band_is_twice_the_log_rounded_down)
{
    const uint32_t len[] = {1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 16, 22, 23, 1024, 1448, 1449, 4095, 4096};
    const int band[] = {0, 2, 3, 4, 4, 5, 5, 6, 6, 7, 8, 8, 9, 20, 20, 21, 23, 24};
    for (size_t i = 0; i < sizeof len / sizeof *len; i++)
        cr_assert_eq(sw_slice_band(len[i]), band[i], "length %u: band %d, not %d", len[i], sw_slice_band(len[i]),
                     band[i]);
}

Test(slices, one_slice_is_the_whole_database_in_one_run)
{
    const uint64_t n = 20000;
    uint32_t *len = protein_lengths(n, 1);
    sw_slicing *s;
    sw_error err;
    cr_assert_eq(sw_slicing_make(len, n, 1, &s, &err), SW_OK, "%s", err.message);
    size_t nr;
    const sw_slice_run *runs = sw_slice_runs(s, 0, &nr);
    cr_assert_eq(nr, 1);
    cr_assert_eq(runs[0].first, 0);
    cr_assert_eq(runs[0].count, n);
    check_cover(s, len, n);
    sw_slicing_free(s);
    free(len);
}

Test(slices, every_sequence_in_one_slice_in_database_order)
{
    const uint64_t n = 5000;
    uint32_t *len = protein_lengths(n, 2);
    for (int slices = 2; slices <= 9; slices++) {
        sw_slicing *s;
        sw_error err;
        cr_assert_eq(sw_slicing_make(len, n, slices, &s, &err), SW_OK, "%s", err.message);
        cr_assert_eq(sw_slicing_count(s), slices);
        check_cover(s, len, n);
        sw_slicing_free(s);
    }
    free(len);
}

/* Within each band every slice holds the band's residues divided by the
 * slices, give or take one of its sequences. */
Test(slices, each_band_splits_by_residues)
{
    const uint64_t n = 200000;
    uint32_t *len = protein_lengths(n, 3);
    for (int slices = 2; slices <= 8; slices *= 2) {
        sw_slicing *s;
        sw_error err;
        cr_assert_eq(sw_slicing_make(len, n, slices, &s, &err), SW_OK, "%s", err.message);
        for (int band = 0; band <= 31; band++) {
            uint64_t total = 0;
            uint32_t longest = 0;
            for (uint64_t i = 0; i < n; i++)
                if (sw_slice_band(len[i]) == band) {
                    total += len[i];
                    longest = len[i];
                }
            for (int k = 0; k < slices; k++) {
                size_t nr;
                const sw_slice_run *runs = sw_slice_runs(s, k, &nr);
                uint64_t mine = 0;
                for (size_t r = 0; r < nr; r++)
                    for (uint64_t i = runs[r].first; i < runs[r].first + runs[r].count; i++)
                        if (sw_slice_band(len[i]) == band) mine += len[i];
                const double share = (double)total / slices;
                cr_assert((double)mine <= share + longest && (double)mine + longest >= share,
                          "%d slices, band %d: slice %d has %llu of %llu residues (longest %u)", slices, band, k,
                          (unsigned long long)mine, (unsigned long long)total, longest);
            }
        }
        /* And so the whole: */
        for (int k = 0; k < slices; k++) {
            const double share = (double)sw_slice_num_residues(s, k) * slices;
            uint64_t all = 0;
            for (uint64_t i = 0; i < n; i++) all += len[i];
            cr_assert(share > 0.99 * (double)all && share < 1.01 * (double)all, "%d slices: slice %d holds %.4f",
                      slices, k, share / (double)all);
        }
        sw_slicing_free(s);
    }
    free(len);
}

Test(slices, more_slices_than_sequences_leaves_some_empty)
{
    const uint32_t len[] = {10, 10, 300};
    sw_slicing *s;
    sw_error err;
    cr_assert_eq(sw_slicing_make(len, 3, 8, &s, &err), SW_OK, "%s", err.message);
    check_cover(s, len, 3);
    int empty = 0;
    for (int k = 0; k < 8; k++) empty += sw_slice_num_seqs(s, k) == 0;
    cr_assert_eq(empty, 5);
    sw_slicing_free(s);
    cr_assert_eq(sw_slicing_make(len, 0, 4, &s, &err), SW_OK, "%s", err.message);
    check_cover(s, len, 0);
    sw_slicing_free(s);
}

Test(slices, rejects_no_slices)
{
    const uint32_t len[] = {10};
    sw_slicing *s = (sw_slicing *)1;
    sw_error err;
    cr_assert_eq(sw_slicing_make(len, 1, 0, &s, &err), SW_EINVAL);
    cr_assert_null(s);
    cr_assert(strstr(err.message, "slices") != NULL, "%s", err.message);
}
