/* Profile-profile alignment benchmark: random protein profiles aligned on
 * the GPU engine (one batch) and on the multi-threaded CPU engine, the
 * two results compared pair by pair (score and every column), one JSON
 * line per run.
 *
 * usage: profile_bench [--long N] [--batch PAIRS] [--min C] [--max C]
 *                      [--rows R] [--gaps G] [--score expected|euclid]
 *                      [--threads T] [--cpu-pairs K] [--gpu ID] [--seed S]
 *                      [--scores shared|global]
 * --long N: one pair of N x N columns, the CPU engine on T threads in its
 * wavefront of tiles. --batch PAIRS: that many pairs of C..C' columns
 * each (uniform), the CPU engine one pair a thread on T threads, the way
 * `swsearch profile --pairs` runs; --cpu-pairs K times the CPU on the
 * first K pairs only (0: all) and scales nothing: its GCUPS are its own
 * cells over its own seconds. Profiles have R rows, one symbol in G a gap.
 * GCUPS = cells / seconds / 1e9; "kernel" is the GPU's recurrences and
 * tracebacks, "gpu" the whole call (transfers and the host's conversion
 * of profiles included). --scores global: the paper's global-memory
 * variant (every column score written to GPU memory before the sweep). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msa_random.h"
#include "sw_clock.h"
#include "sw_matrix.h"
#include "sw_pool.h"
#include "sw_profile_align.h"
#include "test_rng.h"

typedef struct cpu_batch {
    sw_profile **a, **b;
    sw_profile_alignment **x;
    const sw_profile_scoring *s;
    int threads_per_pair;
} cpu_batch;

static int cpu_pair(void *ctx, int worker, size_t k, sw_error *err)
{
    (void)worker;
    cpu_batch *c = ctx;
    const int rc = sw_profile_align_threads(c->a[k], c->b[k], c->s, c->threads_per_pair, &c->x[k], err);
    if (rc) fprintf(stderr, "profile_bench: CPU pair %zu: %s\n", k, err->message);
    return rc;
}

static int same_alignment(const sw_profile_alignment *x, const sw_profile_alignment *y)
{
    if (sw_profile_alignment_score(x) != sw_profile_alignment_score(y)) return 0;
    if (sw_profile_alignment_length(x) != sw_profile_alignment_length(y)) return 0;
    for (size_t t = 0; t < sw_profile_alignment_length(x); ++t) {
        const sw_profile_pair p = sw_profile_alignment_pair(x, t), q = sw_profile_alignment_pair(y, t);
        if (p.a != q.a || p.b != q.b) return 0;
    }
    return 1;
}

static sw_profile *random_profile(test_rng *r, size_t rows, size_t cols, unsigned gaps)
{
    sw_msa *m = random_msa(r, rows, cols, gaps);
    sw_profile *p = NULL;
    sw_error err = {0};
    if (sw_profile_from_msa(m, &p, &err) != SW_OK) {
        fprintf(stderr, "profile_bench: %s\n", err.message);
        exit(1);
    }
    sw_msa_free(m);
    return p;
}

int main(int argc, char **argv)
{
    long long_n = 0, batch = 0, lo = 200, hi = 1000, rows = 20, gaps = 10, threads = 0, cpu_pairs = 0, gpu = 0;
    unsigned long long seed = 1;
    int euclid = 0;
    sw_profile_gpu_scores scores = SW_PROFILE_GPU_SCORES_SHARED;
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long *target = NULL;
        if (!strcmp(argv[i], "--long")) target = &long_n;
        else if (!strcmp(argv[i], "--batch")) target = &batch;
        else if (!strcmp(argv[i], "--min")) target = &lo;
        else if (!strcmp(argv[i], "--max")) target = &hi;
        else if (!strcmp(argv[i], "--rows")) target = &rows;
        else if (!strcmp(argv[i], "--gaps")) target = &gaps;
        else if (!strcmp(argv[i], "--threads")) target = &threads;
        else if (!strcmp(argv[i], "--cpu-pairs")) target = &cpu_pairs;
        else if (!strcmp(argv[i], "--gpu")) target = &gpu;
        else if (!strcmp(argv[i], "--seed") && v) {
            seed = strtoull(v, NULL, 10);
            ++i;
            continue;
        } else if (!strcmp(argv[i], "--score") && v) {
            euclid = !strcmp(v, "euclid");
            ++i;
            continue;
        } else if (!strcmp(argv[i], "--scores") && v && (!strcmp(v, "shared") || !strcmp(v, "global"))) {
            scores = !strcmp(v, "global") ? SW_PROFILE_GPU_SCORES_GLOBAL : SW_PROFILE_GPU_SCORES_SHARED;
            ++i;
            continue;
        }
        if (!target || !v) {
            fprintf(stderr, "profile_bench: bad argument '%s'\n", argv[i]);
            return 2;
        }
        *target = strtol(v, NULL, 10);
        ++i;
    }
    if ((long_n <= 0) == (batch <= 0) || lo < 1 || hi < lo || rows < 1) {
        fprintf(stderr, "profile_bench: give --long N or --batch PAIRS (and 1 <= --min <= --max)\n");
        return 2;
    }
    if (threads <= 0) threads = sw_clock_online_cpus();

    sw_matrix *matrix = NULL;
    sw_error err = {0};
    if (sw_matrix_load("BLOSUM62", &matrix, &err) != SW_OK) {
        fprintf(stderr, "profile_bench: %s\n", err.message);
        return 1;
    }
    const sw_profile_scoring s = {euclid ? SW_PROFILE_EUCLID : SW_PROFILE_EXPECTED, sw_matrix_table(matrix),
                                  euclid ? 0 : 11, 1};
    const size_t count = long_n > 0 ? 1 : (size_t)batch;
    sw_profile **a = calloc(count, sizeof *a), **b = calloc(count, sizeof *b);
    sw_profile_alignment **on_gpu = calloc(count, sizeof *on_gpu), **on_cpu = calloc(count, sizeof *on_cpu);
    if (!a || !b || !on_gpu || !on_cpu) return 1;
    test_rng r = test_rng_seed(seed);
    double cells = 0;
    for (size_t k = 0; k < count; ++k) {
        const size_t m = long_n > 0 ? (size_t)long_n : (size_t)lo + test_rng_below(&r, (uint64_t)(hi - lo + 1));
        const size_t n = long_n > 0 ? (size_t)long_n : (size_t)lo + test_rng_below(&r, (uint64_t)(hi - lo + 1));
        a[k] = random_profile(&r, (size_t)rows, m, (unsigned)gaps);
        b[k] = random_profile(&r, (size_t)rows, n, (unsigned)gaps);
        cells += (double)m * (double)n;
    }

    sw_profile_gpu_stats st;
    const sw_profile_gpu_options go = {.device = (int)gpu, .scores = scores};
    int rc = sw_profile_align_gpu((const sw_profile *const *)a, (const sw_profile *const *)b, count, &s, &go, on_gpu,
                                  &st, &err);
    if (rc != SW_OK) {
        fprintf(stderr, "profile_bench: GPU: %s\n", err.message);
        return 1;
    }
    /* A second GPU call: the first pays the context's start. */
    for (size_t k = 0; k < count; ++k) sw_profile_alignment_free(on_gpu[k]);
    const double g0 = sw_clock_seconds();
    rc = sw_profile_align_gpu((const sw_profile *const *)a, (const sw_profile *const *)b, count, &s, &go, on_gpu, &st,
                              &err);
    const double gpu_wall = sw_clock_seconds() - g0;
    if (rc != SW_OK) {
        fprintf(stderr, "profile_bench: GPU: %s\n", err.message);
        return 1;
    }

    const size_t cpu_count = cpu_pairs > 0 && (size_t)cpu_pairs < count ? (size_t)cpu_pairs : count;
    double cpu_cells = 0;
    for (size_t k = 0; k < cpu_count; ++k)
        cpu_cells += (double)sw_profile_columns(a[k]) * (double)sw_profile_columns(b[k]);
    cpu_batch c = {.a = a, .b = b, .x = on_cpu, .s = &s, .threads_per_pair = count == 1 ? (int)threads : 1};
    /* One pair: all threads on it; a batch: a pair a thread. */
    const sw_pool_tasks pairs = {cpu_count, cpu_pair, NULL, NULL};
    const double c0 = sw_clock_seconds();
    sw_error cpu_err = {0};
    if (sw_pool_each(count == 1 ? 1 : (int)threads, &pairs, &c, NULL, &cpu_err) != SW_OK) return 1;
    const double cpu_seconds = sw_clock_seconds() - c0;

    size_t differ = 0;
    for (size_t k = 0; k < cpu_count; ++k) differ += !same_alignment(on_gpu[k], on_cpu[k]);
    const double cpu_gcups = cpu_cells / cpu_seconds / 1e9, gpu_gcups = cells / st.seconds / 1e9;
    printf("{\"run\": \"%s\", \"score\": \"%s\", \"scores_in\": \"%s\", \"pairs\": %zu, \"columns\": [%ld, %ld], \"rows\": %ld, "
           "\"cells\": %.0f, \"gpu_rounds\": %d, \"gpu_kernel_s\": %.4f, \"gpu_s\": %.4f, \"gpu_wall_s\": %.4f, "
           "\"gpu_kernel_gcups\": %.1f, \"gpu_gcups\": %.1f, \"cpu_threads\": %ld, \"cpu_pairs\": %zu, "
           "\"cpu_s\": %.3f, \"cpu_gcups\": %.2f, \"speedup\": %.1f, \"differ\": %zu, "
           "\"gpu_call\": {\"staging_s\": %.4f, \"alloc_s\": %.4f, \"device_s\": %.4f, \"unpack_s\": %.4f}}\n",
           long_n > 0 ? "long" : "batch", euclid ? "euclid" : "expected",
           scores == SW_PROFILE_GPU_SCORES_GLOBAL ? "global" : "shared", count, long_n > 0 ? long_n : lo,
           long_n > 0 ? long_n : hi, rows, cells, st.rounds, st.kernel_seconds, st.seconds, gpu_wall,
           cells / st.kernel_seconds / 1e9, gpu_gcups, threads, cpu_count, cpu_seconds, cpu_gcups,
           gpu_gcups / cpu_gcups, differ, st.staging_seconds, st.alloc_seconds, st.device_seconds, st.unpack_seconds);
    for (size_t k = 0; k < count; ++k) {
        sw_profile_alignment_free(on_gpu[k]);
        sw_profile_alignment_free(on_cpu[k]);
        sw_profile_free(a[k]);
        sw_profile_free(b[k]);
    }
    free(a);
    free(b);
    free(on_gpu);
    free(on_cpu);
    sw_matrix_free(matrix);
    return differ ? 1 : 0;
}
