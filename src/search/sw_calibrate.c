/* Threshold calibration: kernel throughput over a grid of subject lengths,
 * its cache file, and the threshold that a database's lengths call for. */
#include "sw_calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sw_clock.h"
#include "sw_gpu.h"
#include "sw_gpu_engine.h"

#ifndef SW_VERSION
#define SW_VERSION "unknown"
#endif

/* Subject lengths measured: dense where the two kernels usually cross. */
static const uint32_t grid[] = {128,  192,  256,  384,  512,  640,  768,   1024,  1280,
                                1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384};
enum { GRID_POINTS = sizeof grid / sizeof grid[0] };
/* A query near the middle of the lengths that real searches use. */
enum { CALIBRATION_QUERY_LENGTH = 1024 };
/* Residues per measured database: enough to fill the GPU several times. */
enum { POINT_RESIDUES = 8u << 20, POINT_MIN_SEQS = 2048 };

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void fill_random(uint8_t *res, size_t n, uint64_t *state)
{
    for (size_t i = 0; i < n; i++) res[i] = (uint8_t)(next_random(state) % 20);
}

static int gpu_name_of(int gpu, char *name, size_t cap, sw_error *err)
{
    sw_gpu_info infos[64];
    int count = 0;
    int rc = sw_gpu_list(infos, 64, &count, err);
    if (rc) return rc;
    if (gpu < 0 || gpu >= count) return sw_error_set(err, SW_ENODEV, "no GPU %d: %d found", gpu, count);
    snprintf(name, cap, "%s", infos[gpu].name);
    return SW_OK;
}

/* Best of two searches of one query, after a warm-up. */
static int time_search(sw_gpu_engine *e, const uint8_t *query, size_t qlen, double *seconds, sw_error *err)
{
    sw_gpu_hit hit;
    size_t count = 0;
    sw_gpu_stats st;
    const uint8_t *q = query;
    double best = 1e30;
    for (int i = 0; i < 3; i++) {
        int rc = sw_gpu_engine_search(e, &q, &qlen, 1, &hit, &count, &st, err);
        if (rc) return rc;
        if (i > 0 && st.total_seconds < best) best = st.total_seconds;
    }
    *seconds = best;
    return SW_OK;
}

int sw_calibration_measure(int gpu, const sw_scoring *scoring, sw_calibration *out, sw_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = gpu_name_of(gpu, out->gpu_name, sizeof out->gpu_name, err);
    if (rc) return rc;
    snprintf(out->version, sizeof out->version, "%s", SW_VERSION);
    out->query_length = CALIBRATION_QUERY_LENGTH;
    const double start = sw_clock_seconds();

    uint64_t state = 2026;
    uint8_t query[CALIBRATION_QUERY_LENGTH];
    fill_random(query, sizeof query, &state);
    size_t max_seqs = POINT_MIN_SEQS;
    for (int i = 0; i < GRID_POINTS; i++)
        if (POINT_RESIDUES / grid[i] > max_seqs) max_seqs = POINT_RESIDUES / grid[i];
    uint8_t *residues = malloc((size_t)POINT_MIN_SEQS * grid[GRID_POINTS - 1] + POINT_RESIDUES);
    uint32_t *lengths = malloc(max_seqs * sizeof *lengths);
    uint32_t *tiebreak = malloc(max_seqs * sizeof *tiebreak);
    sw_gpu_engine *engines[2] = {NULL, NULL};
    if (!residues || !lengths || !tiebreak) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory for the calibration");
        goto done;
    }
    for (int k = 0; k < 2; k++) {
        sw_gpu_engine_options opt;
        memset(&opt, 0, sizeof opt);
        /* Engine 0: inter-task kernels only; engine 1: every sequence
         * longer than one residue to the intra-task kernel. */
        opt.intra_threshold = k == 0 ? SW_GPU_NO_INTRA : 1;
        /* The threshold decides between these two only, above the lengths
         * that the query-across-threads kernels take. */
        opt.qp_max_length = SW_GPU_NO_QP;
        opt.qp_giants = SW_GPU_NO_GIANTS;
        if ((rc = sw_gpu_engine_create(gpu, scoring, 1, &opt, &engines[k], err))) goto done;
    }
    for (int i = 0; i < GRID_POINTS; i++) {
        const uint32_t len = grid[i];
        size_t n = POINT_RESIDUES / len;
        if (n < POINT_MIN_SEQS) n = POINT_MIN_SEQS;
        fill_random(residues, n * len, &state);
        for (size_t s = 0; s < n; s++) {
            lengths[s] = len;
            tiebreak[s] = (uint32_t)s;
        }
        const double cells = (double)CALIBRATION_QUERY_LENGTH * len * (double)n;
        for (int k = 0; k < 2; k++) {
            double seconds = 0;
            if ((rc = sw_gpu_engine_set_db(engines[k], residues, lengths, tiebreak, n, err)) ||
                (rc = time_search(engines[k], query, CALIBRATION_QUERY_LENGTH, &seconds, err)))
                goto done;
            const double gcups = cells / (seconds > 0 ? seconds : 1e-9) / 1e9;
            if (k == 0) out->inter_gcups[i] = gcups;
            else out->intra_gcups[i] = gcups;
        }
        out->length[i] = len;
        out->num_points = (size_t)i + 1;
    }
    out->seconds = sw_clock_seconds() - start;

done:
    sw_gpu_engine_free(engines[0]);
    sw_gpu_engine_free(engines[1]);
    free(residues);
    free(lengths);
    free(tiebreak);
    return rc;
}

int sw_calibration_cache_path(const char *gpu_name, char *path, size_t cap, sw_error *err)
{
    char name[256];
    snprintf(name, sizeof name, "%s", gpu_name);
    for (char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
              *c == '-'))
            *c = '_';
    const char *dir = getenv("SWSEARCH_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (dir && *dir) n = snprintf(path, cap, "%s/calibration-%s-%s.txt", dir, name, SW_VERSION);
    else if (xdg && *xdg) n = snprintf(path, cap, "%s/swsearch/calibration-%s-%s.txt", xdg, name, SW_VERSION);
    else if (home && *home) n = snprintf(path, cap, "%s/.cache/swsearch/calibration-%s-%s.txt", home, name, SW_VERSION);
    else return sw_error_set(err, SW_ENOTFOUND, "no cache directory: set SWSEARCH_CACHE_DIR or HOME");
    if (n < 0 || (size_t)n >= cap) return sw_error_set(err, SW_ELIMIT, "cache path too long");
    return SW_OK;
}

int sw_calibration_load(const char *path, const char *want, sw_calibration *out, sw_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) return sw_error_set(err, SW_ENOTFOUND, "%s: %s", path, strerror(errno));
    char line[512];
    unsigned long lineno = 0;
    int rc = SW_OK;
    while (rc == SW_OK && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' || line[0] == 0) continue;
        unsigned len;
        double inter, intra;
        char extra;
        if (!strncmp(line, "gpu ", 4)) snprintf(out->gpu_name, sizeof out->gpu_name, "%.255s", line + 4);
        else if (!strncmp(line, "version ", 8)) snprintf(out->version, sizeof out->version, "%.31s", line + 8);
        else if (sscanf(line, "query_length %u %c", &len, &extra) == 1) out->query_length = len;
        else if (sscanf(line, "seconds %lf %c", &inter, &extra) == 1) out->seconds = inter;
        else if (sscanf(line, "%u %lf %lf %c", &len, &inter, &intra, &extra) == 3 && len > 0 && inter > 0 &&
                 intra > 0 && out->num_points < SW_CALIBRATION_MAX_POINTS &&
                 (out->num_points == 0 || len > out->length[out->num_points - 1])) {
            out->length[out->num_points] = len;
            out->inter_gcups[out->num_points] = inter;
            out->intra_gcups[out->num_points] = intra;
            out->num_points++;
        } else {
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: not a calibration line: '%.60s'", path, lineno, line);
        }
    }
    if (rc == SW_OK && ferror(f)) rc = sw_error_set(err, SW_EIO, "%s: read error", path);
    fclose(f);
    if (rc) return rc;
    if (out->num_points < 2 || out->query_length == 0)
        return sw_error_set(err, SW_EFORMAT, "%s: incomplete calibration", path);
    if ((want && strcmp(out->gpu_name, want)) || strcmp(out->version, SW_VERSION))
        return sw_error_set(err, SW_ENOTFOUND, "%s: made for %s, swsearch %s", path, out->gpu_name, out->version);
    return SW_OK;
}

static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc && errno != EEXIST) return -1;
    }
    return 0;
}

int sw_calibration_save(const char *path, const sw_calibration *c, sw_error *err)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (!tmp) return sw_error_set(err, SW_ENOMEM, "out of memory");
    memcpy(tmp, path, n + 1);
    if (make_dirs(tmp)) {
        int rc = sw_error_set(err, SW_EIO, "%s: cannot create its directory: %s", path, strerror(errno));
        free(tmp);
        return rc;
    }
    snprintf(tmp + n, 32, ".%ld.tmp", (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int rc = sw_error_set(err, SW_EIO, "%s: %s", tmp, strerror(errno));
        free(tmp);
        return rc;
    }
    fprintf(f, "# swsearch calibration: GCUPS of the inter- and intra-task kernels by subject length\n");
    fprintf(f, "gpu %s\nversion %s\nquery_length %u\nseconds %.3f\n", c->gpu_name, c->version, c->query_length,
            c->seconds);
    for (size_t i = 0; i < c->num_points; i++)
        fprintf(f, "%u %.1f %.1f\n", c->length[i], c->inter_gcups[i], c->intra_gcups[i]);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int rc = sw_error_set(err, SW_EIO, "%s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    return SW_OK;
}

int sw_calibration_get(int gpu, const char *gpu_name, const sw_scoring *scoring,
                       void (*note)(void *user, const char *message), void *note_user, sw_calibration *out,
                       int *measured, sw_error *err)
{
    char path[4096], name[256];
    sw_error ignored;
    *measured = 0;
    int rc = SW_OK;
    if (gpu_name) snprintf(name, sizeof name, "%s", gpu_name);
    else if ((rc = gpu_name_of(gpu, name, sizeof name, err))) return rc;
    int have_path = sw_calibration_cache_path(name, path, sizeof path, &ignored) == SW_OK;
    if (have_path && sw_calibration_load(path, name, out, &ignored) == SW_OK) return SW_OK;
    if (note) note(note_user, "calibrating the GPU kernels (once per GPU model)");
    rc = sw_calibration_measure(gpu, scoring, out, err);
    if (rc) return rc;
    *measured = 1;
    /* A read-only home costs a calibration per run, nothing more. */
    if (have_path) sw_calibration_save(path, out, &ignored);
    return SW_OK;
}

/* GCUPS at `len`: linear in log(length) between measured points, the end
 * points beyond them. */
static double rate_at(const sw_calibration *c, const double *gcups, uint32_t len)
{
    if (len <= c->length[0]) return gcups[0];
    for (size_t i = 1; i < c->num_points; i++) {
        if (len <= c->length[i]) {
            const double t = (log((double)len) - log((double)c->length[i - 1])) /
                             (log((double)c->length[i]) - log((double)c->length[i - 1]));
            return gcups[i - 1] + t * (gcups[i] - gcups[i - 1]);
        }
    }
    return gcups[c->num_points - 1];
}

double sw_calibration_predict(const sw_calibration *c, const uint32_t *lengths, uint64_t n, uint32_t threshold)
{
    /* Lengths repeat a lot: rates are looked up per distinct length. */
    double seconds = 0;
    uint64_t i = 0;
    while (i < n) {
        const uint32_t len = lengths[i];
        uint64_t same = 1;
        while (i + same < n && lengths[i + same] == len) same++;
        const double gcups = rate_at(c, len > threshold ? c->intra_gcups : c->inter_gcups, len);
        seconds += (double)len * (double)same / (gcups * 1e9);
        i += same;
    }
    return seconds;
}

uint32_t sw_calibration_pick(const sw_calibration *c, const uint32_t *lengths, uint64_t n, double *predicted)
{
    uint32_t best = SW_GPU_NO_INTRA;
    double best_time = sw_calibration_predict(c, lengths, n, best);
    for (size_t i = 0; i < c->num_points; i++) {
        const double t = sw_calibration_predict(c, lengths, n, c->length[i]);
        if (t < best_time) {
            best_time = t;
            best = c->length[i];
        }
    }
    if (predicted) *predicted = best_time;
    return best;
}
