/* The device choice of a search: the CPU or the GPU engine, as the options
 * ask and as this machine allows, with the fallback from a missing GPU. */
#include "sw_search.h"

#include <stdio.h>

#include "sw_gpu.h"
#include "sw_search_ranks.h"

int sw_search_dispatch(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  const sw_search_options *options, sw_search_results **out, sw_error *err)
{
    if (options->ranks) return sw_search_ranks_search(options->ranks, queries, scoring, options, out, err);
    sw_device device = options->device;
    /* The reference engine exists only on the CPU. */
    if (options->cpu_engine == SW_CPU_ENGINE_REFERENCE && device == SW_DEVICE_AUTO) device = SW_DEVICE_CPU;
    if (device == SW_DEVICE_CPU || (device == SW_DEVICE_AUTO && !sw_gpu_compiled()))
        return sw_search_cpu(db, queries, scoring, options, out, err);
    sw_error gpu_err;
    sw_error_clear(&gpu_err);
    int rc = sw_search_gpu(db, queries, scoring, options, out, &gpu_err);
    /* Only a missing or failing GPU falls back; bad data fails either way. */
    if (rc == SW_OK || device == SW_DEVICE_GPU || (rc != SW_ENODEV && rc != SW_EDEVICE)) {
        if (rc && err) *err = gpu_err;
        return rc;
    }
    if (options->note) {
        char note[1200];
        snprintf(note, sizeof note, "%s; searching on the CPU", gpu_err.message);
        options->note(options->note_user, note);
    }
    return sw_search_cpu(db, queries, scoring, options, out, err);
}
