/* The resident database: decoded once, uploaded to the GPU once for each
 * engine settings in a row. */
#include "sw_resident.h"

#include <stdlib.h>
#include <string.h>

#include "sw_gpu.h"
#include "sw_gpu_engine.h"

struct sw_resident {
    const sw_db *db;
    uint8_t *residues;
    uint64_t *offsets;
    uint32_t *tiebreak;
    /* The engine kept from the last GPU search, and what it was made for. */
    sw_gpu_engine *engine;
    int gpu_id;
    int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
    int gap_open, gap_extend;
    size_t top_n;
    sw_gpu_engine_options options;
    /* The GPU and threshold a search found (gpu_known: for known_id). */
    int gpu_known, known_id;
    sw_gpu_info gpu;
    uint32_t threshold;
};

int sw_resident_create(const sw_db *db, int threads, sw_resident **out, sw_error *err)
{
    *out = NULL;
    uint64_t n = sw_db_num_seqs(db);
    if (n > UINT32_MAX)
        return sw_error_set(err, SW_ELIMIT, "a resident database holds at most %u sequences", UINT32_MAX);
    sw_resident *r = calloc(1, sizeof *r);
    if (!r) return sw_error_set(err, SW_ENOMEM, "out of memory");
    r->db = db;
    r->tiebreak = malloc((n ? n : 1) * sizeof *r->tiebreak);
    if (!r->tiebreak) {
        free(r);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    for (uint64_t s = 0; s < n; s++) r->tiebreak[s] = (uint32_t)sw_db_original_index(db, s);
    r->offsets = malloc((n ? n : 1) * sizeof *r->offsets);
    if (!r->offsets) {
        sw_resident_free(r);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    uint64_t at = 0;
    for (uint64_t s = 0; s < n; s++) {
        r->offsets[s] = at;
        at += sw_db_lengths(db)[s];
    }
    int rc = sw_db_read_all_residues(db, threads, &r->residues, err);
    if (rc) {
        sw_resident_free(r);
        return rc;
    }
    *out = r;
    return SW_OK;
}

void sw_resident_free(sw_resident *r)
{
    if (!r) return;
    sw_gpu_engine_free(r->engine);
    free(r->residues);
    free(r->offsets);
    free(r->tiebreak);
    free(r);
}

const sw_db *sw_resident_db(const sw_resident *r) { return r->db; }
const uint8_t *sw_resident_residues(const sw_resident *r) { return r->residues; }
const uint32_t *sw_resident_tiebreak(const sw_resident *r) { return r->tiebreak; }
const uint64_t *sw_resident_offsets(const sw_resident *r) { return r->offsets; }

static int same_options(const sw_gpu_engine_options *a, const sw_gpu_engine_options *b)
{
    return a->max_device_bytes == b->max_device_bytes && a->bucket_streams == b->bucket_streams &&
           a->profile == b->profile && a->max_columns_per_thread == b->max_columns_per_thread &&
           a->intra_threshold == b->intra_threshold && a->intra_tile == b->intra_tile &&
           a->intra_warps == b->intra_warps && a->timeline == b->timeline &&
           a->device_launch == b->device_launch && a->keep_all_scores == b->keep_all_scores &&
           a->qp_max_length == b->qp_max_length && a->qp_group_size == b->qp_group_size &&
           a->qp_columns == b->qp_columns && a->qp_giants == b->qp_giants;
}

int sw_resident_gpu_engine(sw_resident *r, int gpu_id, const sw_scoring *scoring, size_t top_n,
                           const sw_gpu_engine_options *options, sw_gpu_engine **engine, sw_error *err)
{
    sw_gpu_engine_options opt;
    memset(&opt, 0, sizeof opt);
    if (options) opt = *options;
    if (r->engine && r->gpu_id == gpu_id && r->top_n == top_n && r->gap_open == scoring->gap_open &&
        r->gap_extend == scoring->gap_extend && !memcmp(r->table, scoring->table, sizeof r->table) &&
        same_options(&r->options, &opt)) {
        *engine = r->engine;
        return SW_OK;
    }
    sw_gpu_engine_free(r->engine);
    r->engine = NULL;
    sw_gpu_engine *e = NULL;
    int rc = sw_gpu_engine_create(gpu_id, scoring, top_n, &opt, &e, err);
    if (rc == SW_OK)
        rc = sw_gpu_engine_set_db(e, r->residues, sw_db_lengths(r->db), r->tiebreak, sw_db_num_seqs(r->db), err);
    if (rc) {
        sw_gpu_engine_free(e);
        return rc;
    }
    r->engine = e;
    r->gpu_id = gpu_id;
    memcpy(r->table, scoring->table, sizeof r->table);
    r->gap_open = scoring->gap_open;
    r->gap_extend = scoring->gap_extend;
    r->top_n = top_n;
    r->options = opt;
    *engine = e;
    return SW_OK;
}

void sw_resident_drop_engine(sw_resident *r)
{
    sw_gpu_engine_free(r->engine);
    r->engine = NULL;
}

int sw_resident_gpu_known(const sw_resident *r, int gpu_id, sw_gpu_info *info, uint32_t *threshold)
{
    if (!r->gpu_known || r->known_id != gpu_id) return 0;
    *info = r->gpu;
    *threshold = r->threshold;
    return 1;
}

void sw_resident_gpu_remember(sw_resident *r, int gpu_id, const sw_gpu_info *info, uint32_t threshold)
{
    r->gpu_known = 1;
    r->known_id = gpu_id;
    r->gpu = *info;
    r->threshold = threshold;
}
