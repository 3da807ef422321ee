/* The alignment itself with the GPU doing the passes of the splits
 * (sw_pair_path_options.gpu) against the CPU's: the same runs, base for
 * base, on random related pairs under four scorings, long insertions and
 * deletions across the split rows, runs of N, one sequence inside the
 * other, and a 100,000-base and the related 1,000,000-base pair. Small
 * pieces are forced onto the GPU (gpu_min_cells 1), so that every shape
 * of a rows pass (one row, a short last band, pruned and unpruned chunks,
 * both directions, both gap openings down column 0) meets the kernel.
 * sw_pair_path_find re-scores every path itself. Skips without a GPU;
 * pair_path_gpu_large holds the large pairs. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair_path_expect.h"
#include "pair_random.h"
#include "sw_pair.h"
#include "sw_pair_gpu.h"
#include "sw_pair_path.h"

static const sw_pair_scoring scorings[] = {
    {1, -3, 3, 2}, /* the CUDAlign papers' example */
    {2, -3, 5, 2},
    {1, -1, 0, 1}, /* no opening cost */
    {5, -4, 10, 1},
};

static void require_gpu(void)
{
    sw_error err = {0};
    if (!sw_pair_gpu_usable(0, &err)) cr_skip_test("%s", err.message[0] ? err.message : "no GPU");
}

TestSuite(pair_path_gpu, .init = require_gpu);
TestSuite(pair_path_gpu_large, .init = require_gpu);

static sw_pair_result align(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb, const sw_pair_scoring *s,
                            sw_pair_engine engine)
{
    sw_pair_options o;
    memset(&o, 0, sizeof o);
    o.engine = engine;
    o.threads = 4;
    sw_pair_result r;
    sw_error err = {0};
    cr_assert_eq(sw_pair_align(a, na, b, nb, s, &o, &r, &err), SW_OK, "%s", err.message);
    return r;
}

/* gpu_min_cells 0: every piece on the CPU. */
static sw_pair_path *path_of(const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb, const sw_pair_scoring *s,
                             const sw_pair_result *r, uint64_t gpu_min_cells, int gpu)
{
    sw_pair_path_options o;
    memset(&o, 0, sizeof o);
    o.gpu = gpu; /* every core */
    o.gpu_min_cells = gpu_min_cells;
    sw_pair_path *p = NULL;
    sw_error err = {0};
    cr_assert_eq(sw_pair_path_find(a, na, b, nb, s, r, &o, &p, &err), SW_OK, "%llux%llu (%s): %s",
                 (unsigned long long)na, (unsigned long long)nb, gpu ? "GPU" : "CPU", err.message);
    return p;
}

/* The CPU's path against the GPU's with pieces of at least each of
 * `mins` cells on the GPU. */
static void check_pair(const char *what, const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb,
                       const sw_pair_scoring *s, const sw_pair_result *r, const uint64_t *mins, int count)
{
    sw_pair_path *cpu = path_of(a, na, b, nb, s, r, 0, 0);
    for (int k = 0; k < count; ++k) {
        sw_pair_path *gpu = path_of(a, na, b, nb, s, r, mins[k], 1);
        char label[160];
        snprintf(label, sizeof label, "%s, GPU from %llu cells", what, (unsigned long long)mins[k]);
        expect_same_path(cpu, gpu, label);
        sw_pair_path_free(gpu);
    }
    sw_pair_path_free(cpu);
}

static const uint64_t small_pieces[] = {1, 20000};

Test(pair_path_gpu, related_pairs_give_the_cpu_path)
{
    test_rng rng = test_rng_seed(41);
    for (int trial = 0; trial < 80; ++trial) {
        const sw_pair_scoring *s = &scorings[trial % 4];
        const uint64_t na = 1 + test_rng_below(&rng, trial < 20 ? 60 : 1500);
        uint8_t *a = random_dna(na, &rng, 50);
        uint64_t nb;
        uint8_t *b = mutate_dna(a, na, 4 + (unsigned)(trial % 9), &rng, &nb);
        if (nb == 0) {
            free(b);
            b = random_dna(nb = 1, &rng, 0);
        }
        const sw_pair_result r = align(a, na, b, nb, s, SW_PAIR_ENGINE_CPU);
        char what[64];
        snprintf(what, sizeof what, "trial %d, %llu x %llu", trial, (unsigned long long)na, (unsigned long long)nb);
        check_pair(what, a, na, b, nb, s, &r, small_pieces, 2);
        free(a);
        free(b);
    }
}

Test(pair_path_gpu, long_gaps_across_the_split_rows)
{
    test_rng rng = test_rng_seed(3);
    for (int trial = 0; trial < 8; ++trial) {
        const sw_pair_scoring *s = &scorings[trial % 4];
        uint8_t *a, *b;
        uint64_t na, nb, gap;
        long_gap_pair(&rng, trial % 2, &a, &na, &b, &nb, &gap);
        const sw_pair_result r = align(a, na, b, nb, s, SW_PAIR_ENGINE_CPU);
        char what[64];
        snprintf(what, sizeof what, "long gap of %llu, trial %d", (unsigned long long)gap, trial);
        check_pair(what, a, na, b, nb, s, &r, small_pieces, 2);
        free(a);
        free(b);
    }
}

Test(pair_path_gpu, runs_of_n_and_one_sequence_inside_the_other)
{
    test_rng rng = test_rng_seed(5);
    for (int trial = 0; trial < 4; ++trial) {
        const sw_pair_scoring *s = &scorings[trial];
        uint8_t *a, *y;
        uint64_t na, ny;
        n_run_pair(&rng, &a, &na, &y, &ny);
        const sw_pair_result r = align(a, na, y, ny, s, SW_PAIR_ENGINE_CPU);
        check_pair("a run of N", a, na, y, ny, s, &r, small_pieces, 2);
        const sw_pair_result inside = align(a, na, a + 3700, 600, s, SW_PAIR_ENGINE_CPU);
        check_pair("inside", a, na, a + 3700, 600, s, &inside, small_pieces, 2);
        free(a);
        free(y);
    }
}
/* The best K alignments, each given the boxes of the better ones: the
 * GPU takes the splits of those clear of every box (a widened box that
 * meets the rectangle keeps them on the CPU), and the paths equal the
 * CPU's. Pairs of two related pieces in swapped order with spacers
 * between them (two alignments clear of each other), and the partial
 * copies of the best-K tests (boxes that overlap). */
static void check_best(const char *what, const uint8_t *a, uint64_t na, const uint8_t *b, uint64_t nb,
                       const sw_pair_scoring *s, int k_max)
{
    sw_pair_options o;
    memset(&o, 0, sizeof o);
    o.engine = SW_PAIR_ENGINE_CUDALIGN;
    sw_pair_result r[4];
    int found = 0;
    sw_error err = {0};
    cr_assert_eq(sw_pair_align_best(a, na, b, nb, s, &o, k_max, r, &found, &err), SW_OK, "%s: %s", what,
                 err.message);
    sw_pair_box boxes[4];
    for (int k = 0; k < found; ++k) {
        sw_pair_path *p[2] = {NULL, NULL};
        for (int gpu = 0; gpu < 2; ++gpu) {
            const sw_pair_path_options po = {
                .forbidden = boxes, .forbidden_count = k, .gpu = gpu, .gpu_min_cells = 1};
            cr_assert_eq(sw_pair_path_find(a, na, b, nb, s, &r[k], &po, &p[gpu], &err), SW_OK,
                         "%s, alignment %d (%s): %s", what, k, gpu ? "GPU" : "CPU", err.message);
        }
        char label[96];
        snprintf(label, sizeof label, "%s, alignment %d", what, k);
        expect_same_path(p[0], p[1], label);
        boxes[k] = (sw_pair_box){r[k].a_start, r[k].a_end, r[k].b_start, r[k].b_end};
        sw_pair_path_free(p[0]);
        sw_pair_path_free(p[1]);
    }
}

Test(pair_path_gpu, best_k_alignments_give_the_cpu_paths)
{
    test_rng rng = test_rng_seed(23);
    for (int trial = 0; trial < 8; ++trial) {
        const sw_pair_scoring *s = &scorings[trial % 4];
        /* a = X, spacer, Y; b = Y', spacer, X'. */
        const uint64_t nx = 800 + test_rng_below(&rng, 1200), ny = 600 + test_rng_below(&rng, 1200), gap = 300;
        uint8_t *x = random_dna(nx, &rng, 0), *y = random_dna(ny, &rng, 0);
        uint8_t *s1 = random_dna(gap, &rng, 0), *s2 = random_dna(gap, &rng, 0);
        uint64_t nx2, ny2;
        uint8_t *x2 = mutate_dna(x, nx, 30, &rng, &nx2), *y2 = mutate_dna(y, ny, 30, &rng, &ny2);
        const uint64_t na = nx + gap + ny, nb = ny2 + gap + nx2;
        uint8_t *a = malloc(na), *b = malloc(nb);
        cr_assert(a && b);
        memcpy(a, x, nx);
        memcpy(a + nx, s1, gap);
        memcpy(a + nx + gap, y, ny);
        memcpy(b, y2, ny2);
        memcpy(b + ny2, s2, gap);
        memcpy(b + ny2 + gap, x2, nx2);
        char what[64];
        snprintf(what, sizeof what, "swapped pieces, trial %d", trial);
        check_best(what, a, na, b, nb, s, 2);
        uint8_t *pa, *pb;
        uint64_t npa, npb;
        partial_copy_pair(&rng, &pa, &npa, &pb, &npb);
        snprintf(what, sizeof what, "partial copy, trial %d", trial);
        check_best(what, pa, npa, pb, npb, s, 3);
        free(pa);
        free(pb);
        free(a);
        free(b);
        free(x);
        free(y);
        free(x2);
        free(y2);
        free(s1);
        free(s2);
    }
}

/* A related pair of about `len` bases, its result from the GPU engine. */
static void check_related(uint64_t len, unsigned rate, uint64_t gpu_min_cells)
{
    test_rng rng = test_rng_seed(17);
    uint8_t *a = random_dna(len, &rng, 1000);
    uint64_t nb;
    uint8_t *b = mutate_dna(a, len, rate, &rng, &nb);
    const sw_pair_result r = align(a, len, b, nb, &scorings[0], SW_PAIR_ENGINE_CUDALIGN);
    char what[64];
    snprintf(what, sizeof what, "related %llu bases", (unsigned long long)len);
    const uint64_t mins[1] = {gpu_min_cells};
    check_pair(what, a, len, b, nb, &scorings[0], &r, mins, 1);
    free(a);
    free(b);
}

Test(pair_path_gpu_large, related_100_kbp) { check_related(100000, 40, (uint64_t)1 << 20); }

/* About as related as synthdb's pairs (98% identity). */
Test(pair_path_gpu_large, related_1_mbp, .timeout = 600) { check_related(1000000, 150, 0); }
