/* Self-calibration of the GPU engine's length threshold: database sequences
 * longer than the threshold go to the intra-task kernel, the rest to the
 * inter-task kernels. The throughput of both is measured on the GPU at hand
 * over a grid of subject lengths; the threshold for a database is the one
 * that minimises the time predicted from its length distribution.
 * Measurements are cached per GPU model and swsearch version. */
#ifndef SW_CALIBRATE_H
#define SW_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "sw_error.h"
#include "sw_matrix.h"

#define SW_CALIBRATION_MAX_POINTS 24

/* Throughput of both kernels at each measured subject length, in GCUPS,
 * for random subjects of exactly that length and a query of query_length. */
typedef struct sw_calibration {
    char gpu_name[256];
    char version[32];
    uint32_t query_length;
    size_t num_points;
    uint32_t length[SW_CALIBRATION_MAX_POINTS];
    double inter_gcups[SW_CALIBRATION_MAX_POINTS];
    double intra_gcups[SW_CALIBRATION_MAX_POINTS];
    double seconds; /* what the measurement took */
} sw_calibration;

/* Measures GPU `gpu` (a second or two). */
int sw_calibration_measure(int gpu, const sw_scoring *scoring, sw_calibration *out, sw_error *err);

/* The cache file for GPUs of model `gpu_name` (sw_gpu_info.name):
 * $SWSEARCH_CACHE_DIR, else $XDG_CACHE_HOME/swsearch, else
 * $HOME/.cache/swsearch; the name holds the GPU model and the version. */
int sw_calibration_cache_path(const char *gpu_name, char *path, size_t cap, sw_error *err);

/* SW_ENOTFOUND when the file is missing or was written for another GPU
 * model (`gpu_name`; NULL: any) or another version; SW_EFORMAT (file and
 * line) when it is damaged. */
int sw_calibration_load(const char *path, const char *gpu_name, sw_calibration *out, sw_error *err);

/* Writes under a temporary name and renames, creating the directory. */
int sw_calibration_save(const char *path, const sw_calibration *c, sw_error *err);

/* The cached calibration of GPU `gpu`, whose model is `gpu_name` (NULL:
 * asked of the driver, which takes a while for every GPU of the machine),
 * or a fresh one (then cached; a cache that cannot be written is not an
 * error). *measured says which; `note` (may be NULL) hears of a
 * measurement before it starts. */
int sw_calibration_get(int gpu, const char *gpu_name, const sw_scoring *scoring,
                       void (*note)(void *user, const char *message), void *note_user, sw_calibration *out,
                       int *measured, sw_error *err);

/* Predicted scan seconds per query residue with threshold `threshold` for
 * a database of `n` sequences of these lengths (any order). */
double sw_calibration_predict(const sw_calibration *c, const uint32_t *lengths, uint64_t n, uint32_t threshold);

/* The threshold, among the measured lengths and "never" (UINT32_MAX), with
 * the least predicted time; *predicted (may be NULL) receives that time. */
uint32_t sw_calibration_pick(const sw_calibration *c, const uint32_t *lengths, uint64_t n, double *predicted);

#endif
