/* The public "Engines and GPUs" (include/swsearch.h): what this build has,
 * GPU discovery, starting the GPUs early, and the calibration of the GPU
 * length threshold, over sw_gpu.h, sw_gpu_team.h and sw_calibrate.h. */
#include <stdlib.h>
#include <string.h>

#include "sw_calibrate.h"
#include "sw_cpu_simd.h"
#include "sw_db.h"
#include "sw_gpu.h"
#include "sw_gpu_team.h"
#include "sw_matrix.h"
#include "swsearch.h"

_Static_assert(SW_GPU_CALIBRATION_POINTS == SW_CALIBRATION_MAX_POINTS, "the public calibration holds every point");

int sw_db_format_current(void) { return SW_DB_FORMAT_VERSION; }

const char *sw_cpu_simd_name(void) { return sw_simd_isa(); }

int sw_gpus_built(void) { return sw_gpu_compiled(); }

static void props_of(sw_gpu_props *o, const sw_gpu_info *g)
{
    memset(o, 0, sizeof *o);
    o->id = g->id;
    snprintf(o->name, sizeof o->name, "%s", g->name);
    o->compute_major = g->compute_major;
    o->compute_minor = g->compute_minor;
    o->multiprocessors = g->multiprocessors;
    o->memory = g->global_memory;
}

int sw_gpus_list(sw_gpu_props *out, int max, int *count, sw_error *err)
{
    sw_error_clear(err);
    if (!count || max < 0 || (max > 0 && !out)) return sw_error_set(err, SW_EINVAL, "sw_gpus_list: missing argument");
    *count = 0;
    sw_gpu_info infos[SW_GPU_TEAM_MAX];
    int n = 0;
    int rc = sw_gpu_list(infos, SW_GPU_TEAM_MAX, &n, err);
    if (rc) return rc;
    for (int i = 0; i < n && i < max && i < SW_GPU_TEAM_MAX; i++) props_of(&out[i], &infos[i]);
    *count = n;
    return SW_OK;
}

int sw_gpus_select(const int *gpus, int count, sw_gpu_props *out, int max, int *n, sw_error *err)
{
    sw_error_clear(err);
    if (!n || max < 0 || (max > 0 && !out)) return sw_error_set(err, SW_EINVAL, "sw_gpus_select: missing argument");
    *n = 0;
    sw_gpu_info infos[SW_GPU_TEAM_MAX];
    int devices[SW_GPU_TEAM_MAX], k = 0;
    int rc = sw_gpu_team_devices(gpus, count, infos, devices, &k, err);
    if (rc) return rc;
    for (int i = 0; i < k && i < max; i++) props_of(&out[i], &infos[devices[i]]);
    *n = k;
    return SW_OK;
}

struct sw_gpus_warm {
    sw_gpu_warm_up *w;
};

int sw_gpus_warm_up(const int *gpus, int count, sw_gpus_warm **out, sw_error *err)
{
    sw_error_clear(err);
    if (!out || count < 0 || (gpus && count == 0)) return sw_error_set(err, SW_EINVAL, "sw_gpus_warm_up: bad arguments");
    *out = calloc(1, sizeof **out);
    if (!*out) return sw_error_set(err, SW_ENOMEM, "out of memory");
    int first[SW_GPU_TEAM_MAX];
    if (!gpus && count > 0) { /* the first `count` GPUs */
        if (count > SW_GPU_TEAM_MAX) count = SW_GPU_TEAM_MAX;
        for (int i = 0; i < count; i++) first[i] = i;
        gpus = first;
    }
    (*out)->w = sw_gpu_warm_up_start(gpus, count);
    return SW_OK;
}

int sw_api_gpus_warm(sw_gpu_warm_up *w, sw_gpus_warm **out, sw_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out) {
        sw_gpu_warm_up_finish(w);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    (*out)->w = w;
    return SW_OK;
}

void sw_gpus_warm_free(sw_gpus_warm *w)
{
    if (!w) return;
    sw_gpu_warm_up_finish(w->w);
    free(w);
}

int sw_gpu_calibrate(int gpu, const sw_db *db, sw_gpu_calibration *out, sw_error *err)
{
    sw_error_clear(err);
    if (!db || !out || gpu < 0) return sw_error_set(err, SW_EINVAL, "sw_gpu_calibrate: bad arguments");
    memset(out, 0, sizeof *out);
    sw_matrix *matrix = NULL;
    sw_scoring scoring;
    sw_calibration cal;
    int rc = sw_matrix_load(SW_DEFAULT_MATRIX, &matrix, err);
    if (rc == SW_OK)
        rc = sw_scoring_init(&scoring, matrix, SW_DEFAULT_GAP_OPEN, SW_DEFAULT_GAP_EXTEND, err);
    if (rc == SW_OK) rc = sw_calibration_measure(gpu, &scoring, &cal, err);
    sw_matrix_free(matrix);
    if (rc) return rc;
    out->gpu = gpu;
    snprintf(out->gpu_name, sizeof out->gpu_name, "%s", cal.gpu_name);
    snprintf(out->version, sizeof out->version, "%s", cal.version);
    out->query_length = cal.query_length;
    out->seconds = cal.seconds;
    out->num_points = cal.num_points;
    for (size_t i = 0; i < cal.num_points; i++) {
        out->length[i] = cal.length[i];
        out->inter_gcups[i] = cal.inter_gcups[i];
        out->intra_gcups[i] = cal.intra_gcups[i];
    }
    const uint32_t *lengths = sw_db_lengths(db);
    const uint64_t n = sw_db_num_seqs(db);
    out->chosen = sw_calibration_pick(&cal, lengths, n, NULL);
    for (size_t i = 0; i <= cal.num_points; i++) {
        const uint32_t t = i < cal.num_points ? cal.length[i] : UINT32_MAX;
        uint64_t above = 0;
        for (uint64_t s = 0; s < n; s++) above += lengths[s] > t;
        out->predicted[i] = sw_calibration_predict(&cal, lengths, n, t);
        out->above[i] = above;
    }
    return SW_OK;
}

int sw_gpu_calibration_save(const sw_gpu_calibration *c, char *path, size_t cap, sw_error *err)
{
    sw_error_clear(err);
    if (!c || c->num_points > SW_GPU_CALIBRATION_POINTS)
        return sw_error_set(err, SW_EINVAL, "sw_gpu_calibration_save: no calibration");
    sw_calibration cal;
    memset(&cal, 0, sizeof cal);
    snprintf(cal.gpu_name, sizeof cal.gpu_name, "%s", c->gpu_name);
    snprintf(cal.version, sizeof cal.version, "%s", c->version);
    cal.query_length = c->query_length;
    cal.seconds = c->seconds;
    cal.num_points = c->num_points;
    for (size_t i = 0; i < c->num_points; i++) {
        cal.length[i] = c->length[i];
        cal.inter_gcups[i] = c->inter_gcups[i];
        cal.intra_gcups[i] = c->intra_gcups[i];
    }
    char where[4096];
    int rc = sw_calibration_cache_path(cal.gpu_name, where, sizeof where, err);
    if (rc == SW_OK) rc = sw_calibration_save(where, &cal, err);
    if (rc == SW_OK && path && cap) snprintf(path, cap, "%s", where);
    return rc;
}
