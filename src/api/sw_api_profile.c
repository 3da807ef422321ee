/* The public profile-profile alignment (include/swsearch.h): two multiple
 * alignments read, made profiles, aligned on the GPU or the CPU's threads,
 * and the merged alignment written as `swsearch profile` writes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_clock.h"
#include "sw_matrix.h"
#include "sw_msa.h"
#include "sw_profile.h"
#include "sw_profile_align.h"
#include "sw_profile_gpu.h"
#include "sw_profile_report.h"
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

#define CHECK_PROFILE(a, fn)                                                                                 \
    do {                                                                                                     \
        sw_error_clear(err);                                                                                 \
        if (!(a)) return sw_error_set(err, SW_EINVAL, fn ": no aligner given");                              \
    } while (0)

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
    int rc = load_matrix("BLOSUM62", &a->matrix, err);
    if (rc) {
        free(a);
        return rc;
    }
    a->kind = SW_PROFILE_EXPECTED;
    a->gap_open = 11;
    a->gap_extend = 1;
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
    CHECK_PROFILE(a, "sw_profile_aligner_set_score");
    if (score != SW_PROFILE_SCORE_EXPECTED && score != SW_PROFILE_SCORE_EUCLID)
        return sw_error_set(err, SW_EINVAL, "unknown profile score %d", (int)score);
    a->kind = score == SW_PROFILE_SCORE_EUCLID ? SW_PROFILE_EUCLID : SW_PROFILE_EXPECTED;
    return SW_OK;
}

int sw_profile_aligner_set_matrix(sw_profile_aligner *a, const char *name_or_path, sw_error *err)
{
    CHECK_PROFILE(a, "sw_profile_aligner_set_matrix");
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
    CHECK_PROFILE(a, "sw_profile_aligner_set_gap_costs");
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
    CHECK_PROFILE(a, "sw_profile_aligner_set_weights");
    a->weighted = henikoff != 0;
    return SW_OK;
}

int sw_profile_aligner_set_device(sw_profile_aligner *a, sw_device device, sw_error *err)
{
    CHECK_PROFILE(a, "sw_profile_aligner_set_device");
    if (device != SW_DEVICE_AUTO && device != SW_DEVICE_CPU && device != SW_DEVICE_GPU)
        return sw_error_set(err, SW_EINVAL, "unknown device %d", (int)device);
    a->device = device;
    return SW_OK;
}

int sw_profile_aligner_set_gpu(sw_profile_aligner *a, int gpu, sw_error *err)
{
    CHECK_PROFILE(a, "sw_profile_aligner_set_gpu");
    if (gpu < 0 || gpu > 1023) return sw_error_set(err, SW_EINVAL, "no GPU %d", gpu);
    a->gpu = gpu;
    return SW_OK;
}

int sw_profile_aligner_set_threads(sw_profile_aligner *a, int threads, sw_error *err)
{
    CHECK_PROFILE(a, "sw_profile_aligner_set_threads");
    if (threads < 0 || threads > 4096) return sw_error_set(err, SW_EINVAL, "threads must be from 0 to 4096, not %d", threads);
    a->threads = threads;
    return SW_OK;
}

static int make_profile(const sw_profile_aligner *a, const sw_msa *m, sw_profile **out, sw_error *err)
{
    return a->weighted ? sw_profile_from_msa_weighted(m, out, err) : sw_profile_from_msa(m, out, err);
}

int sw_profile_aligner_run(sw_profile_aligner *a, const char *a_path, const char *b_path, sw_merged **out,
                           sw_error *err)
{
    CHECK_PROFILE(a, "sw_profile_aligner_run");
    if (!a_path || !b_path || !out) return sw_error_set(err, SW_EINVAL, "sw_profile_aligner_run: missing argument");
    *out = NULL;
    sw_merged *m = calloc(1, sizeof *m);
    if (!m) return sw_error_set(err, SW_ENOMEM, "out of memory");
    m->kind = a->kind;
    sw_profile *pa = NULL, *pb = NULL;
    /* Euclid's gap opening is 0 unless asked for, as in the program. */
    const sw_profile_scoring scoring = {a->kind, sw_matrix_table(a->matrix),
                                        a->kind == SW_PROFILE_EUCLID && !a->open_given ? 0 : a->gap_open,
                                        a->gap_extend};
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
