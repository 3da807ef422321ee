/* The public profile-profile alignment (include/swsearch.h): two multiple
 * alignments read, made profiles, aligned on the GPU or the CPU's threads,
 * and the merged alignment written as `swsearch profile` writes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdatomic.h>

#include "sw_clock.h"
#include "sw_matrix.h"
#include "sw_msa.h"
#include "sw_pool.h"
#include "sw_profile.h"
#include "sw_profile_align.h"
#include "sw_profile_gpu.h"
#include "sw_profile_report.h"
#include "sw_api_internal.h"
#include "swsearch.h"

struct sw_profile_aligner {
    sw_profile_kind kind;
    sw_matrix *matrix;
    int gap_open, gap_extend, open_given;
    int weighted;
    sw_device device;
    int gpu, threads;
};

struct sw_merged {
    sw_msa *a, *b;
    sw_profile_alignment *x;
    sw_profile_kind kind;
    char engine[64];
};

static int load_matrix(const char *name, sw_matrix **out, sw_error *err)
{
    int rc = sw_matrix_load(name, out, err);
    if (rc == SW_OK && sw_matrix_alphabet(*out)->kind != SW_ALPHABET_PROTEIN) {
        sw_matrix_free(*out);
        *out = NULL;
        rc = sw_error_set(err, SW_EINVAL, "%s: not a protein matrix", name);
    }
    return rc;
}

int sw_profile_aligner_create(sw_profile_aligner **out, sw_error *err)
{
    sw_error_clear(err);
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_profile_aligner_create: no place for the aligner");
    *out = NULL;
    sw_profile_aligner *a = calloc(1, sizeof *a);
    if (!a) return sw_error_set(err, SW_ENOMEM, "out of memory");
    int rc = load_matrix(SW_DEFAULT_MATRIX, &a->matrix, err);
    if (rc) {
        free(a);
        return rc;
    }
    a->kind = SW_PROFILE_EXPECTED;
    a->gap_open = SW_DEFAULT_GAP_OPEN;
    a->gap_extend = SW_DEFAULT_GAP_EXTEND;
    a->device = SW_DEVICE_AUTO;
    *out = a;
    return SW_OK;
}

void sw_profile_aligner_free(sw_profile_aligner *a)
{
    if (!a) return;
    sw_matrix_free(a->matrix);
    free(a);
}

int sw_profile_aligner_set_score(sw_profile_aligner *a, sw_profile_score score, sw_error *err)
{
    SW_API_CHECK(a, "sw_profile_aligner_set_score", "aligner");
    if (score != SW_PROFILE_SCORE_EXPECTED && score != SW_PROFILE_SCORE_EUCLID)
        return sw_error_set(err, SW_EINVAL, "unknown profile score %d", (int)score);
    a->kind = score == SW_PROFILE_SCORE_EUCLID ? SW_PROFILE_EUCLID : SW_PROFILE_EXPECTED;
    return SW_OK;
}

int sw_profile_aligner_set_matrix(sw_profile_aligner *a, const char *name_or_path, sw_error *err)
{
    SW_API_CHECK(a, "sw_profile_aligner_set_matrix", "aligner");
    if (!name_or_path || !*name_or_path) return sw_error_set(err, SW_EINVAL, "no matrix named");
    sw_matrix *m = NULL;
    int rc = load_matrix(name_or_path, &m, err);
    if (rc) return rc;
    sw_matrix_free(a->matrix);
    a->matrix = m;
    return SW_OK;
}

int sw_profile_aligner_set_gap_costs(sw_profile_aligner *a, int gap_open, int gap_extend, sw_error *err)
{
    SW_API_CHECK(a, "sw_profile_aligner_set_gap_costs", "aligner");
    /* The program's bounds (--gap-open 0-255, --gap-extend 1-255). */
    if (gap_open < 0 || gap_open > 255) return sw_error_set(err, SW_EINVAL, "gap open must be from 0 to 255, not %d", gap_open);
    if (gap_extend < 1 || gap_extend > 255)
        return sw_error_set(err, SW_EINVAL, "gap extend must be from 1 to 255, not %d", gap_extend);
    a->gap_open = gap_open;
    a->gap_extend = gap_extend;
    a->open_given = 1;
    return SW_OK;
}

int sw_profile_aligner_set_weights(sw_profile_aligner *a, int henikoff, sw_error *err)
{
    SW_API_CHECK(a, "sw_profile_aligner_set_weights", "aligner");
    a->weighted = henikoff != 0;
    return SW_OK;
}

int sw_profile_aligner_set_device(sw_profile_aligner *a, sw_device device, sw_error *err)
{
    SW_API_CHECK(a, "sw_profile_aligner_set_device", "aligner");
    if (device != SW_DEVICE_AUTO && device != SW_DEVICE_CPU && device != SW_DEVICE_GPU)
        return sw_error_set(err, SW_EINVAL, "unknown device %d", (int)device);
    a->device = device;
    return SW_OK;
}

int sw_profile_aligner_set_gpu(sw_profile_aligner *a, int gpu, sw_error *err)
{
    SW_API_CHECK(a, "sw_profile_aligner_set_gpu", "aligner");
    if (gpu < 0 || gpu > 1023) return sw_error_set(err, SW_EINVAL, "no GPU %d", gpu);
    a->gpu = gpu;
    return SW_OK;
}

int sw_profile_aligner_set_threads(sw_profile_aligner *a, int threads, sw_error *err)
{
    SW_API_CHECK(a, "sw_profile_aligner_set_threads", "aligner");
    if (threads < 0 || threads > 4096) return sw_error_set(err, SW_EINVAL, "threads must be from 0 to 4096, not %d", threads);
    a->threads = threads;
    return SW_OK;
}

/* Euclid's gap opening is 0 unless asked for, as in the program. */
static sw_profile_scoring scoring_of(const sw_profile_aligner *a)
{
    return (sw_profile_scoring){a->kind, sw_matrix_table(a->matrix),
                                a->kind == SW_PROFILE_EUCLID && !a->open_given ? 0 : a->gap_open, a->gap_extend};
}

static int make_profile(const sw_profile_aligner *a, const sw_msa *m, sw_profile **out, sw_error *err)
{
    return a->weighted ? sw_profile_from_msa_weighted(m, out, err) : sw_profile_from_msa(m, out, err);
}

int sw_profile_aligner_run(sw_profile_aligner *a, const char *a_path, const char *b_path, sw_merged **out,
                           sw_error *err)
{
    SW_API_CHECK(a, "sw_profile_aligner_run", "aligner");
    if (!a_path || !b_path || !out) return sw_error_set(err, SW_EINVAL, "sw_profile_aligner_run: missing argument");
    *out = NULL;
    sw_merged *m = calloc(1, sizeof *m);
    if (!m) return sw_error_set(err, SW_ENOMEM, "out of memory");
    m->kind = a->kind;
    sw_profile *pa = NULL, *pb = NULL;
    const sw_profile_scoring scoring = scoring_of(a);
    int rc = sw_msa_read(a_path, &m->a, err);
    if (rc == SW_OK) rc = sw_msa_read(b_path, &m->b, err);
    if (rc == SW_OK) rc = make_profile(a, m->a, &pa, err);
    if (rc == SW_OK) rc = make_profile(a, m->b, &pb, err);
    int on_gpu = 0;
    if (rc == SW_OK && a->device != SW_DEVICE_CPU) {
        /* The GPU, falling back to the CPU's threads under SW_DEVICE_AUTO
         * when none is usable or the scores do not fit it. */
        const sw_profile_gpu_options go = {.device = a->gpu};
        const sw_profile *ca = pa, *cb = pb;
        rc = sw_profile_align_gpu(&ca, &cb, 1, &scoring, &go, &m->x, NULL, err);
        on_gpu = rc == SW_OK;
        if (rc && a->device == SW_DEVICE_AUTO && (rc == SW_ENODEV || rc == SW_ELIMIT)) {
            sw_error_clear(err);
            rc = SW_OK;
        }
    }
    if (rc == SW_OK && !on_gpu) rc = sw_profile_align_threads(pa, pb, &scoring, a->threads, &m->x, err);
    sw_profile_free(pa);
    sw_profile_free(pb);
    if (rc) {
        sw_merged_free(m);
        return rc;
    }
    const int threads = a->threads > 0 ? a->threads : sw_clock_online_cpus();
    if (on_gpu) snprintf(m->engine, sizeof m->engine, "GPU %d", a->gpu);
    else snprintf(m->engine, sizeof m->engine, "%d CPU thread%s", threads, threads == 1 ? "" : "s");
    *out = m;
    return SW_OK;
}

int sw_merged_get_info(const sw_merged *m, sw_merged_info *out, sw_error *err)
{
    sw_error_clear(err);
    if (!m || !out) return sw_error_set(err, SW_EINVAL, "sw_merged_get_info: missing argument");
    out->a_columns = sw_msa_columns(m->a);
    out->a_rows = sw_msa_rows(m->a);
    out->b_columns = sw_msa_columns(m->b);
    out->b_rows = sw_msa_rows(m->b);
    out->columns = sw_profile_alignment_length(m->x);
    out->score = sw_profile_alignment_score(m->x);
    out->units = (double)out->score / (SW_PROFILE_SCALE * SW_PROFILE_SCALE);
    out->engine = m->engine;
    return SW_OK;
}

static int written(FILE *out, const char *what, sw_error *err)
{
    return ferror(out) ? sw_error_set(err, SW_EIO, "error writing the %s", what) : SW_OK;
}

int sw_merged_write(const sw_merged *m, int format, FILE *out, sw_error *err)
{
    sw_error_clear(err);
    if (!m || !out) return sw_error_set(err, SW_EINVAL, "sw_merged_write: missing argument");
    if (format != SW_PROFILE_FASTA && format != SW_PROFILE_CLUSTAL)
        return sw_error_set(err, SW_EINVAL, "unknown merged alignment format %d (0: FASTA, 1: Clustal)", format);
    sw_profile_write_merged(out, (sw_profile_format)format, m->a, m->b, m->x);
    return written(out, "merged alignment", err);
}

int sw_merged_write_map(const sw_merged *m, FILE *out, sw_error *err)
{
    sw_error_clear(err);
    if (!m || !out) return sw_error_set(err, SW_EINVAL, "sw_merged_write_map: missing argument");
    sw_profile_write_map(out, m->x);
    return written(out, "column map", err);
}

void sw_merged_free(sw_merged *m)
{
    if (!m) return;
    sw_profile_alignment_free(m->x);
    sw_msa_free(m->a);
    sw_msa_free(m->b);
    free(m);
}

/* ---- Many pairs ---- */

typedef struct pairs_run {
    const sw_profile_aligner *a;
    const char *const *a_paths, *const *b_paths, *const *names;
    sw_merged_fn done;
    void *user;
    sw_merged **merged; /* the GPU's batch: every pair read, then aligned, then handed out */
    sw_profile **profiles; /* 2 a pair */
    atomic_ullong cells;
} pairs_run;

/* A pair's failure, named by its name. */
static int pair_failed(const pairs_run *r, size_t k, int rc, const sw_error *inner, sw_error *err)
{
    const char *why = inner->message[0] ? inner->message : sw_strerror(rc);
    if (r->names && r->names[k]) return sw_error_set(err, rc, "%s: %s", r->names[k], why);
    return sw_error_set(err, rc, "pair %zu: %s", k + 1, why);
}

static int read_pair(const pairs_run *r, size_t k, sw_merged *m, sw_profile **pa, sw_profile **pb, sw_error *err)
{
    int rc;
    (void)((rc = sw_msa_read(r->a_paths[k], &m->a, err)) || (rc = sw_msa_read(r->b_paths[k], &m->b, err)) ||
           (rc = make_profile(r->a, m->a, pa, err)) || (rc = make_profile(r->a, m->b, pb, err)));
    return rc;
}

static int hand_out(pairs_run *r, size_t k, const sw_merged *m, sw_error *err)
{
    int rc = r->done ? r->done(r->user, k, m, err) : SW_OK;
    if (rc == SW_OK)
        atomic_fetch_add(&r->cells, (unsigned long long)sw_msa_columns(m->a) * sw_msa_columns(m->b));
    return rc;
}

/* The CPU: one pair a task, read, aligned on one thread and handed out. */
static int cpu_pair_task(void *ctx, int worker, size_t k, sw_error *err)
{
    (void)worker;
    pairs_run *r = ctx;
    sw_error e;
    sw_error_clear(&e);
    sw_merged m = {.kind = r->a->kind};
    snprintf(m.engine, sizeof m.engine, "1 CPU thread");
    sw_profile *pa = NULL, *pb = NULL;
    const sw_profile_scoring scoring = scoring_of(r->a);
    int rc = read_pair(r, k, &m, &pa, &pb, &e);
    if (rc == SW_OK) rc = sw_profile_align_threads(pa, pb, &scoring, 1, &m.x, &e);
    if (rc == SW_OK) rc = hand_out(r, k, &m, &e);
    sw_profile_free(pa);
    sw_profile_free(pb);
    sw_profile_alignment_free(m.x);
    sw_msa_free(m.a);
    sw_msa_free(m.b);
    return rc ? pair_failed(r, k, rc, &e, err) : SW_OK;
}

static int gpu_read_task(void *ctx, int worker, size_t k, sw_error *err)
{
    (void)worker;
    pairs_run *r = ctx;
    sw_error e;
    sw_error_clear(&e);
    const int rc = read_pair(r, k, r->merged[k], &r->profiles[2 * k], &r->profiles[2 * k + 1], &e);
    return rc ? pair_failed(r, k, rc, &e, err) : SW_OK;
}

static int gpu_hand_out_task(void *ctx, int worker, size_t k, sw_error *err)
{
    (void)worker;
    pairs_run *r = ctx;
    sw_error e;
    sw_error_clear(&e);
    const int rc = hand_out(r, k, r->merged[k], &e);
    return rc ? pair_failed(r, k, rc, &e, err) : SW_OK;
}

/* The GPU's batch. *pair_fault: the failure is a pair's (reading or handing
 * it out), else the GPU's, after which SW_ENODEV or SW_ELIMIT (nothing
 * handed out) let SW_DEVICE_AUTO fall back to the CPU. */
static int run_pairs_gpu(pairs_run *r, size_t count, int threads, int *pair_fault, sw_error *err)
{
    *pair_fault = 0;
    r->merged = calloc(count, sizeof *r->merged);
    r->profiles = calloc(2 * count, sizeof *r->profiles);
    const sw_profile **first = malloc(2 * count * sizeof *first);
    int rc = r->merged && r->profiles && first ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory for %zu pairs", count);
    for (size_t k = 0; rc == SW_OK && k < count; k++) {
        if (!(r->merged[k] = calloc(1, sizeof **r->merged))) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
        else {
            r->merged[k]->kind = r->a->kind;
            snprintf(r->merged[k]->engine, sizeof r->merged[k]->engine, "GPU %d", r->a->gpu);
        }
    }
    const sw_pool_tasks reading = {count, gpu_read_task, NULL, NULL}, handing = {count, gpu_hand_out_task, NULL, NULL};
    if (rc == SW_OK && (rc = sw_pool_each(threads, &reading, r, NULL, err))) *pair_fault = 1;
    if (rc == SW_OK) {
        /* The first profile of every pair, then the second. */
        for (size_t k = 0; k < count; k++) {
            first[k] = r->profiles[2 * k];
            first[count + k] = r->profiles[2 * k + 1];
        }
        const sw_profile_scoring scoring = scoring_of(r->a);
        const sw_profile_gpu_options go = {.device = r->a->gpu};
        sw_profile_alignment **x = malloc(count * sizeof *x);
        rc = x ? sw_profile_align_gpu(first, first + count, count, &scoring, &go, x, NULL, err)
               : sw_error_set(err, SW_ENOMEM, "out of memory");
        for (size_t k = 0; rc == SW_OK && k < count; k++) r->merged[k]->x = x[k];
        free(x);
    }
    if (rc == SW_OK && (rc = sw_pool_each(threads, &handing, r, NULL, err))) *pair_fault = 1;
    for (size_t k = 0; r->merged && k < count; k++) sw_merged_free(r->merged[k]);
    for (size_t k = 0; r->profiles && k < 2 * count; k++) sw_profile_free(r->profiles[k]);
    free(r->merged);
    free(r->profiles);
    free(first);
    r->merged = NULL;
    r->profiles = NULL;
    return rc;
}

int sw_profile_aligner_run_pairs(sw_profile_aligner *a, size_t count, const char *const *a_paths,
                                 const char *const *b_paths, const char *const *names, sw_merged_fn done, void *user,
                                 sw_pairs_info *info, sw_error *err)
{
    SW_API_CHECK(a, "sw_profile_aligner_run_pairs", "aligner");
    if (info) memset(info, 0, sizeof *info);
    if (count && (!a_paths || !b_paths)) return sw_error_set(err, SW_EINVAL, "sw_profile_aligner_run_pairs: no paths");
    for (size_t k = 0; k < count; k++)
        if (!a_paths[k] || !b_paths[k]) return sw_error_set(err, SW_EINVAL, "pair %zu: a path is missing", k + 1);
    pairs_run r = {.a = a, .a_paths = a_paths, .b_paths = b_paths, .names = names, .done = done, .user = user};
    atomic_init(&r.cells, 0);
    int threads = a->threads > 0 ? a->threads : sw_clock_online_cpus();
    if ((size_t)threads > count) threads = count ? (int)count : 1;
    int rc = SW_OK, on_gpu = 0, used = 0;
    if (count && a->device != SW_DEVICE_CPU) {
        int pair_fault = 0;
        rc = run_pairs_gpu(&r, count, threads, &pair_fault, err);
        if (rc == SW_OK) on_gpu = 1;
        else if (!pair_fault && a->device == SW_DEVICE_AUTO && (rc == SW_ENODEV || rc == SW_ELIMIT)) {
            sw_error_clear(err);
            rc = SW_OK;
        }
    }
    if (count && !on_gpu && rc == SW_OK) {
        const sw_pool_tasks merging = {count, cpu_pair_task, NULL, NULL};
        rc = sw_pool_each(threads, &merging, &r, &used, err);
    }
    if (info) {
        info->on_gpu = on_gpu;
        info->threads = on_gpu ? threads : (used ? used : 1);
        info->cells = atomic_load(&r.cells);
    }
    return rc;
}
