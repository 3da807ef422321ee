/* Launches of the GPU engine: the shape of every kernel (block size,
 * blocks, shared memory, the buffers that bound the grid) and the
 * descriptors of a query's launches, sent from the host over the bucket
 * streams or from a parent kernel on the GPU. */
#include "sw_gpu_launch.cuh"

#include <string.h>

#include "sw_gpu_tables.cuh"
#include "sw_gpu_timeline.cuh"

namespace sw_gpu_detail {

namespace {

/* Shape of the intra-task kernel for a query of `qlen` residues.
 * Tile height: 16 rows per thread halves the per-row costs that are paid
 * per lane and step (shuffles, ring traffic, class loads) against 8, but a
 * row block then covers 512 query rows; 16 is taken once the padding of
 * the last row block stays under a quarter of the query.
 * Warps per block: one per row block up to 2 (8 beside the query-across-
 * threads kernels, see below). More warps lengthen the
 * wavefront's fill (WARP_LAG steps per warp) and the wait of a strip for
 * the one above, while the multiprocessor is kept busy by several blocks at
 * once anyway (2 warps measured fastest; see bench/JOURNAL.md, 2026-11-23,
 * GPU intra-task kernel).
 * Both fall back (fewer warps, then the smaller tile) until the occupancy
 * API says that at least one block fits in a multiprocessor. */
struct intra_shape {
    int tile, threads, blocks_per_sm;
    size_t smem;
};

int choose_intra_shape(const sw_gpu_engine *e, size_t qlen, intra_shape *out, sw_error *err)
{
    const int tiles[2] = {16, 8};
    for (int ti = 0; ti < 2; ++ti) {
        const int tile = tiles[ti];
        if (e->tune.intra_tile && tile != e->tune.intra_tile) continue;
        const size_t rows = 32 * (size_t)tile;
        const size_t row_blocks = (qlen + rows - 1) / rows;
        if (tile == 16 && !e->tune.intra_tile && row_blocks * rows * 4 > qlen * 5) continue;
        /* With the kernels with the query across the threads, only the
         * few longest sequences are left here, too few pairs to fill the
         * GPU: more warps a pair shorten each one (8 warps against 2 for
         * the longest sequences; see bench/JOURNAL.md, 2026-11-26, GPU
         * search with the query across the threads). */
        const int most = e->qp_longest ? 8 : 2;
        int warps = row_blocks < (size_t)most ? (int)row_blocks : most;
        if (e->tune.intra_warps) warps = e->tune.intra_warps < 16 ? e->tune.intra_warps : 16;
        if (warps < 1) warps = 1;
        for (; warps >= 1; --warps) {
            const size_t smem = sw_gk_intra_smem(tile, 32 * warps, e->subject_classes);
            if (smem > e->smem_optin) continue;
            int blocks = 0;
            CK(sw_gk_intra_occupancy(tile, 32 * warps, smem, &blocks), "occupancy");
            if (blocks > 0) {
                *out = intra_shape{tile, 32 * warps, blocks, smem};
                return SW_OK;
            }
        }
    }
    return sw_error_set(err, SW_ELIMIT, "GPU: the intra-task kernel does not fit in a multiprocessor");
}

/* What every alignment kernel shares: the database's sequences, the
 * scoring, and where the scores of the query in slot `s` go. */
template <class P>
void set_scoring_params(P &p, const sw_gpu_engine *e, const search_ctx *c, const slot *s)
{
    p.offsets = e->d_offsets;
    p.lengths = e->d_lengths;
    p.subject_class = e->d_subject_class;
    p.subject_classes = e->subject_classes;
    p.gap_open = e->gap_open;
    p.gap_extend = e->gap_extend;
    p.limit = c->limit;
    p.scores = s->scores;
}

/* set_scoring_params, and bucket `bk` (number kb) of batch `bt`, whose
 * residues are at `res`: which sequences, its work counter and where its
 * overflow list goes. */
template <class P>
void set_bucket_params(P &p, const sw_gpu_engine *e, const search_ctx *c, slot *s, const bucket *bk, size_t kb,
                       const batch *bt, const uint8_t *res)
{
    set_scoring_params(p, e, c, s);
    p.residues = res;
    p.residue_base = bt->res_begin;
    p.first = bk->first;
    p.count = bk->count;
    p.work = s->ctl + ctl_bucket_work(e, kb);
    p.overflow = s->overflow + bt->first;
    p.overflow_count = s->ctl + ctl_overflow(e, (size_t)(bt - e->batches));
}

/* The intra-task launch of bucket `bk` for one query. */
int describe_intra(sw_gpu_engine *e, const search_ctx *c, slot *s, const bucket *bk, size_t kb, const batch *bt,
                   const uint8_t *res, size_t qlen, sw_gk_child_launch *out, sw_error *err)
{
    intra_shape sh;
    int rc = choose_intra_shape(e, qlen, &sh, err);
    if (rc) return rc;
    sw_gk_intra_params &p = out->p.intra;
    set_bucket_params(p, e, c, s, bk, kb, bt, res);
    p.profile = s->profile;
    p.profile_words = e->profile_words;
    p.query_len = (uint32_t)qlen;
    p.row_buffer = e->d_row_buffer;
    p.row_stride = e->row_stride;
    const uint32_t items = (bk->count + 1) / 2;
    int blocks = sh.blocks_per_sm * e->sms;
    if (blocks > e->intra_grid) blocks = e->intra_grid;
    if ((uint32_t)blocks > items) blocks = (int)items;
    if (blocks < 1) blocks = 1;
    e->intra_tile = sh.tile;
    e->intra_threads = sh.threads;
    out->intra = 1;
    out->id = sh.tile;
    out->blocks = blocks;
    out->threads = sh.threads;
    out->smem = (uint32_t)sh.smem;
    return SW_OK;
}

/* The shape of the kernels with the query across the threads for a query
 * of `qlen` residues: the least work, counted as cells computed per pair of
 * subjects of the mean length: the query padded to whole segments of
 * G x R, the wavefront's fill and drain (G - 1 steps of the segment's
 * width, once a pair, less in back-to-back kernels) and, per segment
 * boundary, its G + 4 general steps, about a quarter dearer than plain
 * ones; on a tie the wider thread (fewer shuffles and loads per cell). */
int choose_qp_shape(const sw_gpu_engine *e, size_t qlen, uint32_t *passes, int forced = 1)
{
    if (forced && (e->tune.qp_group_size || e->tune.qp_columns)) {
        uint32_t p = 1;
        for (int i = 0; i < sw_gk_qp_num_shapes(); ++i) {
            const sw_gk_qp_shape *sh = sw_gk_qp_get_shape(i);
            const size_t width = (size_t)sh->group_size * sh->columns;
            p = (uint32_t)((qlen + width - 1) / width);
            if ((e->tune.qp_group_size && sh->group_size != e->tune.qp_group_size) ||
                (e->tune.qp_columns && sh->columns != e->tune.qp_columns) || (sh->multipass ? p < 2 : p > 1))
                continue;
            *passes = p ? p : 1;
            return i;
        }
        return choose_qp_shape(e, qlen, passes, 0);
    }
    int best = -1;
    double best_cost = 0;
    uint32_t best_passes = 1;
    const double mean = e->qp_mean_length > 1 ? e->qp_mean_length : 1;
    for (int i = 0; i < sw_gk_qp_num_shapes(); ++i) {
        const sw_gk_qp_shape *sh = sw_gk_qp_get_shape(i);
        const size_t width = (size_t)sh->group_size * sh->columns;
        const size_t p = (qlen + width - 1) / width;
        if (sh->multipass ? p < 2 : p > 1) continue;
        /* Back-to-back kernels fill and drain once a warp, not once a pair:
         * no fill term (H100: their gain on queries of 128-383 residues
         * was at least the fill this term counts), except that a group of
         * 32 enters each pair over 32 steps, a warp's every step, which
         * weighs against short subjects. With this term queries of 729,
         * 850 and 1,000 residues go back to multipass threads of 8 against
         * the equal-length database, which is faster among the 20 queries
         * (see bench/JOURNAL.md, 2026-11-27, groups of 32 weighed). */
        const double entry = sh->group_size == 32 ? 0.27 : 0.0;
        const double fill = (double)width * (sh->group_size - 1) * (sh->back_to_back ? entry : 1.0);
        double cost = (double)(p * width) * mean + fill + 0.25 * (double)(p - 1) * width * (sh->group_size + 4);
        /* Multipass threads of 32 columns measured faster than the cost
         * says, though they spill a little (see bench/JOURNAL.md,
         * 2026-11-26, GPU search with the query across the threads). */
        if (sh->multipass && sh->columns == 32) cost *= 0.97;
        /* Multipass kernels do less a cell than single-pass ones beyond
         * their segment boundaries (queries of 256-383 residues against
         * 384-511, padding and fill taken out; see bench/JOURNAL.md,
         * 2026-11-27, back-to-back pairs). */
        if (sh->multipass) cost *= 1.045;
        if (best < 0 || cost < best_cost * 0.999 ||
            (cost <= best_cost * 1.001 && sh->columns > sw_gk_qp_get_shape(best)->columns)) {
            best = i;
            best_cost = cost;
            best_passes = (uint32_t)(p ? p : 1);
        }
    }
    *passes = best_passes;
    return best;
}

} /* namespace */

/* A single-pass shape of 32-thread groups, the narrowest that holds the
 * query. */
int giant_shape(const sw_gpu_engine *e, size_t qlen)
{
    /* The device-side launcher knows only the other kernels. */
    if (e->opt.qp_giants == SW_GPU_NO_GIANTS || e->tune.device_launch) return -1;
    int best = -1;
    for (int i = 0; i < sw_gk_qp_num_shapes(); ++i) {
        const sw_gk_qp_shape *sh = sw_gk_qp_get_shape(i);
        if (sh->group_size != 32 || sh->multipass || (size_t)32 * sh->columns < qlen) continue;
        if (best < 0 || sh->columns < sw_gk_qp_get_shape(best)->columns) best = i;
    }
    return best;
}

namespace {

/* The shape and passes of the main launch (giants 0) or of the longest
 * sequences' launch (giants 1) for a query of `qlen` residues. */
int qp_shape_of(const sw_gpu_engine *e, size_t qlen, int giants, uint32_t *passes)
{
    *passes = 1;
    return giants ? giant_shape(e, qlen) : choose_qp_shape(e, qlen, passes);
}

/* The launch of the kernels with the query across the threads for bucket
 * `bk`: the main launch, or (giants) the longest sequences' one. */
int describe_qp(sw_gpu_engine *e, const search_ctx *c, slot *s, const bucket *bk, size_t kb, const batch *bt,
                const uint8_t *res, size_t qlen, int giants, sw_gk_child_launch *out, sw_error *err)
{
    uint32_t passes = 1;
    const int id = qp_shape_of(e, qlen, giants, &passes);
    if (id < 0) return sw_error_set(err, SW_ELIMIT, "GPU: no query-profile kernel for a query of %zu residues", qlen);
    const sw_gk_qp_shape *sh = sw_gk_qp_get_shape(id);
    const launch_shape *ls = &e->qp_shapes[id];
    sw_gk_qp_params &p = out->p.qp;
    set_bucket_params(p, e, c, s, bk, kb, bt, res);
    p.profile = giants ? s->qp_giant_profile : s->qp_profile;
    p.passes = passes;
    p.temp_rows = e->qp_longest + SW_GK_QP_TEMP_SLACK;
    /* Each slot its own column buffers, so that a query's multipass launch
     * may run beside the one of the query before (launch_buckets). */
    p.temp = e->d_qp_temp + (size_t)(s - e->slots) * (size_t)e->qp_groups * p.temp_rows;
    p.high_lane = 65536;
    const uint32_t items = (bk->count + 1) / 2;
    const int per_block = ls->threads / sh->group_size;
    int blocks = (int)((items + per_block - 1) / per_block);
    int limit = ls->blocks;
    if (sh->multipass && limit * per_block > e->qp_groups) limit = e->qp_groups / per_block;
    if (blocks > limit) blocks = limit;
    if (blocks < 1) blocks = 1;
    if (!giants) e->qp_last_shape = id;
    out->qp = giants ? 2 : 1;
    out->id = id;
    out->blocks = blocks;
    out->threads = ls->threads;
    out->smem = (uint32_t)ls->smem;
    return SW_OK;
}

/* The subjects-across-threads kernels' query, the rest zero (the scoring
 * and the sequences come from set_scoring_params or set_bucket_params). */
sw_gk_align_params base_params(const sw_gpu_engine *e, const search_ctx *c, size_t q_offset, size_t qlen)
{
    sw_gk_align_params p;
    memset(&p, 0, sizeof p);
    p.query = e->d_query + q_offset;
    p.query_len = (uint32_t)qlen;
    p.temp_rows = c->temp_rows;
    p.unit = 1;
    p.high_lane = 65536;
    return p;
}

/* The launch of bucket `kb` of batch `bt` for one query. */
int describe_bucket(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t kb, const batch *bt, const uint8_t *res,
                    size_t q_offset, size_t qlen, sw_gk_child_launch *out, sw_error *err)
{
    memset(out, 0, sizeof *out);
    const bucket *bk = &e->buckets[kb];
    const int id = e->plan[bk->plan].config;
    if (id == INTRA_CONFIG) {
        if (giant_shape(e, qlen) >= 0) return describe_qp(e, c, s, bk, kb, bt, res, qlen, 1, out, err);
        return describe_intra(e, c, s, bk, kb, bt, res, qlen, out, err);
    }
    if (id == QP_CONFIG) return describe_qp(e, c, s, bk, kb, bt, res, qlen, 0, out, err);
    const sw_gk_config *cf = sw_gk_get_config(id);
    const launch_shape *ls = &e->shapes[id];
    sw_gk_align_params &p = out->p.align;
    p = base_params(e, c, q_offset, qlen);
    set_bucket_params(p, e, c, s, bk, kb, bt, res);
    p.table = e->d_table16;
    p.table_words = c->table16_words;
    p.temp = e->d_temp;
    const uint32_t items = (bk->count + 1) / 2;
    const int per_block = ls->threads / cf->group_size;
    int blocks = (int)((items + per_block - 1) / per_block);
    int limit = ls->blocks;
    if (cf->multipass && limit * per_block > e->multipass_groups) limit = e->multipass_groups / per_block;
    if (blocks > limit) blocks = limit;
    if (blocks < 1) blocks = 1;
    out->id = id;
    out->blocks = blocks;
    out->threads = ls->threads;
    out->smem = (uint32_t)ls->smem;
    return SW_OK;
}

/* Every bucket of batch `b` as children of one parent kernel on the scan
 * stream; the parent completes when they all have. */
int launch_buckets_on_device(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t b, const uint8_t *res,
                             size_t q_offset, size_t qlen, sw_error *err)
{
    const batch *bt = &e->batches[b];
    sw_gk_launch_list list;
    memset(&list, 0, sizeof list);
    list.error = s->ctl + SW_GK_CTL_LAUNCH_ERROR;
    for (size_t k = bt->num_buckets; k-- > 0;) {
        if (list.count == SW_GK_MAX_CHILDREN)
            return sw_error_set(err, SW_ELIMIT, "GPU engine: more than %d buckets for the device-side launcher",
                                SW_GK_MAX_CHILDREN);
        int rc = describe_bucket(e, c, s, bt->first_bucket + k, bt, res, q_offset, qlen, &list.child[list.count++],
                                 err);
        if (rc) return rc;
    }
    size_t span;
    int rc = span_begin(e, SW_GPU_SPAN_LAUNCHER, e->s_scan, s->query, -1, &span, err);
    if (rc) return rc;
    CK(sw_gk_launcher_launch(e->s_scan, &list), "device-side launcher");
    return span_end(e, span, e->s_scan, err);
}

/* The block size from 128 to `most` threads that keeps the most warps of a
 * kernel resident (`occupancy(threads, &blocks)` says how many blocks fit a
 * multiprocessor), the larger on a tie (fewer copies of what a block keeps
 * in shared memory); ls->threads stays 0 when none fits. */
template <class Occupancy>
int choose_block(const sw_gpu_engine *e, Occupancy occupancy, int most, size_t smem, launch_shape *ls, sw_error *err)
{
    int best_warps = 0;
    ls->threads = 0;
    for (int threads = 128; threads <= most; threads *= 2) {
        int blocks = 0;
        CK(occupancy(threads, &blocks), "occupancy");
        const int warps = blocks * threads / 32;
        if (warps >= best_warps && blocks > 0) {
            best_warps = warps;
            ls->threads = threads;
            ls->blocks = blocks * e->sms;
        }
    }
    if (ls->threads) {
        ls->smem = smem;
        ls->ready = 1;
    }
    return SW_OK;
}

} /* namespace */

/* The launch shape of kernel `id` for `smem` bytes of shared memory: the
 * block size that keeps the most warps resident, the larger on a tie (fewer
 * copies of the table per multiprocessor). */
int prepare_kernel(sw_gpu_engine *e, int id, size_t smem, sw_error *err)
{
    launch_shape *ls = &e->shapes[id];
    if (ls->ready && ls->smem == smem) return SW_OK;
    if (smem > e->smem_optin)
        return sw_error_set(err, SW_ELIMIT,
                            "GPU: substitution table of %zu bytes exceeds the %zu bytes of shared memory of a block",
                            smem, e->smem_optin);
    /* The largest (sw_gk_allow_shared): engines on one GPU share the bound. */
    CK(sw_gk_align_prepare(id, e->smem_optin), "cudaFuncSetAttribute");
    auto occupancy = [&](int threads, int *blocks) { return sw_gk_align_occupancy(id, threads, smem, blocks); };
    int rc = choose_block(e, occupancy, 512, smem, ls, err);
    if (rc) return rc;
    if (ls->threads == 0)
        return sw_error_set(err, SW_ELIMIT, "GPU: alignment kernel %d cannot run with %zu bytes of shared memory",
                            id, smem);
    return SW_OK;
}

/* For every query of the search its shape's launch shape (choose_block, up
 * to the block size the kernels are compiled for: their register bound
 * assumes no more, and a multipass block's groups wait for each other at
 * every segment), a profile buffer per slot for the largest, and one column
 * buffer per resident group of the multipass shapes. */
int prepare_qp(sw_gpu_engine *e, const size_t *lens, size_t nq, sw_error *err)
{
    size_t profile_words[2] = {4, 4};
    int groups = 0;
    for (size_t k = 0; k < 2 * nq; ++k) {
        const size_t q = k / 2;
        const int giants = (int)(k & 1);
        if (giants ? !e->intra_longest || giant_shape(e, lens[q]) < 0 : !e->qp_longest) continue;
        uint32_t passes = 1;
        const int id = qp_shape_of(e, lens[q], giants, &passes);
        if (id < 0) return sw_error_set(err, SW_ELIMIT, "GPU: no query-profile kernel for a query of %zu residues", lens[q]);
        const sw_gk_qp_shape *sh = sw_gk_qp_get_shape(id);
        const size_t words = sw_gk_qp_profile_words(id, passes, e->subject_classes);
        if (words > profile_words[giants]) profile_words[giants] = words;
        launch_shape *ls = &e->qp_shapes[id];
        const size_t smem = sw_gk_qp_smem(id, e->subject_classes);
        if (!ls->ready || ls->smem != smem) {
            if (smem > e->smem_optin)
                return sw_error_set(err, SW_ELIMIT, "GPU: query profile of %zu bytes exceeds the %zu bytes of shared memory of a block",
                                    smem, e->smem_optin);
            CK(sw_gk_qp_prepare(id, e->smem_optin), "cudaFuncSetAttribute"); /* as in prepare_kernel */
            auto occupancy = [&](int threads, int *blocks) { return sw_gk_qp_occupancy(id, threads, smem, blocks); };
            int rc = choose_block(e, occupancy, sw_gk_qp_max_threads(), smem, ls, err);
            if (rc) return rc;
            if (ls->threads == 0) return sw_error_set(err, SW_ELIMIT, "GPU: query-profile kernel %d does not fit", id);
        }
        if (sh->multipass) {
            const int g = ls->blocks * (ls->threads / sh->group_size);
            if (g > groups) groups = g;
        }
    }
    for (int i = 0; i < SLOTS; ++i) {
        int rc = ensure((void **)&e->slots[i].qp_profile, &e->slots[i].qp_profile_cap, profile_words[0] * 4,
                        "query profile", err);
        if (!rc)
            rc = ensure((void **)&e->slots[i].qp_giant_profile, &e->slots[i].qp_giant_profile_cap,
                        profile_words[1] * 4, "query profile", err);
        if (rc) return rc;
    }
    if (groups) {
        const size_t per_group = ((size_t)e->qp_longest + SW_GK_QP_TEMP_SLACK) * sizeof(uint2);
        const size_t share = work_share(e);
        if ((size_t)SLOTS * groups * per_group > share) groups = (int)(share / (SLOTS * per_group));
        if (groups < 32) groups = 32;
        /* A set of buffers a slot; a database with longer sequences than
         * the last needs longer columns. */
        int rc = ensure((void **)&e->d_qp_temp, &e->qp_temp_bytes, (size_t)SLOTS * groups * per_group + 16,
                        "multipass buffers", err);
        if (rc) return rc;
    }
    e->qp_groups = groups;
    return SW_OK;
}

int build_qp_profile(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t q_offset, size_t qlen, int giants,
                     cudaStream_t stream, sw_error *err)
{
    uint32_t passes = 1;
    const int id = qp_shape_of(e, qlen, giants, &passes);
    if (id < 0) return sw_error_set(err, SW_ELIMIT, "GPU: no query-profile kernel for a query of %zu residues", qlen);
    const sw_gk_qp_shape *sh = sw_gk_qp_get_shape(id);
    sw_gk_qp_profile_params pp;
    pp.query = e->d_query + q_offset;
    pp.query_len = (uint32_t)qlen;
    pp.table32 = (const uint32_t *)e->d_table32;
    pp.subject_classes = e->subject_classes;
    pp.pad_row = c->query_rows - 1;
    pp.pssm = query_pssm(e, c, s->query);
    pp.gap_open = e->gap_open;
    pp.gap_extend = e->gap_extend;
    pp.group_size = sh->group_size;
    pp.columns = sh->columns;
    pp.passes = passes;
    pp.profile = giants ? s->qp_giant_profile : s->qp_profile;
    size_t span;
    int rc = span_begin(e, SW_GPU_SPAN_PROFILE, stream, s->query, -1, &span, err);
    if (rc) return rc;
    CK(sw_gk_qp_profile_launch(e->sms, stream, &pp), "query profile kernel");
    return span_end(e, span, stream, err);
}

/* Column buffers of the multipass kernels, one pair per resident group. The
 * grid shrinks if a full one would not fit in the search's share of memory. */
int prepare_temp(sw_gpu_engine *e, search_ctx *c, sw_error *err)
{
    const size_t per_group = (size_t)2 * c->temp_rows * sizeof(uint2);
    const size_t share = work_share(e);
    int groups = 0;
    for (size_t p = 0; p < e->plan_size; ++p) {
        const int id = e->plan[p].config;
        if (id < 0) continue;
        const sw_gk_config *cf = sw_gk_get_config(id);
        if (!cf->multipass) continue;
        const launch_shape *ls = &e->shapes[id];
        int g = ls->blocks * (ls->threads / cf->group_size);
        const int per_block = ls->threads / cf->group_size;
        if ((size_t)g * per_group > share) {
            int blocks = (int)(share / (per_block * per_group));
            if (blocks < 1) blocks = 1;
            g = blocks * per_block;
        }
        if (g > groups) groups = g;
    }
    e->multipass_groups = groups;
    int rc = ensure((void **)&e->d_temp, &e->temp_bytes, (size_t)groups * per_group + 16, "multipass buffers", err);
    if (rc) return rc;
    const launch_shape *ws = &e->shapes[e->wide_config];
    const int per_block = ws->threads / 32;
    int wblocks = e->sms;
    if ((size_t)wblocks * per_block * per_group > share / 2) {
        wblocks = (int)(share / 2 / (per_block * per_group));
        if (wblocks < 1) wblocks = 1;
    }
    e->wide_groups = wblocks * per_block;
    return ensure((void **)&e->d_temp_wide, &e->temp_wide_bytes, (size_t)e->wide_groups * per_group + 16,
                  "multipass buffers", err);
}

/* Query profiles (one per slot, for the longest query) and the row buffers
 * of the intra-task kernel, one per block of the largest grid that a query
 * of this search launches. */
int prepare_intra(sw_gpu_engine *e, const size_t *lens, size_t nq, sw_error *err)
{
    size_t longest = 1;
    for (size_t q = 0; q < nq; ++q)
        if (lens[q] > longest) longest = lens[q];
    const size_t rows_per_unit = (size_t)SW_GK_PROFILE_WORD_ALIGN * SW_GK_PROFILE_ROWS_PER_WORD;
    e->profile_words = (uint32_t)((longest + rows_per_unit - 1) / rows_per_unit * SW_GK_PROFILE_WORD_ALIGN);
    const size_t profile_bytes = (size_t)e->subject_classes * e->profile_words * 4;
    for (int i = 0; i < SLOTS; ++i) {
        int rc = ensure((void **)&e->slots[i].profile, &e->slots[i].profile_cap, profile_bytes, "query profile", err);
        if (rc) return rc;
    }
    CK(sw_gk_intra_prepare(16, e->smem_optin), "cudaFuncSetAttribute");
    CK(sw_gk_intra_prepare(8, e->smem_optin), "cudaFuncSetAttribute");
    int grid = 1;
    for (size_t q = 0; q < nq; ++q) {
        intra_shape sh;
        int rc = choose_intra_shape(e, lens[q], &sh, err);
        if (rc) return rc;
        if (sh.blocks_per_sm * e->sms > grid) grid = sh.blocks_per_sm * e->sms;
    }
    e->row_stride = (e->intra_longest + 31) & ~31u;
    const size_t per_block = (size_t)e->row_stride * sizeof(uint2);
    const size_t share = work_share(e);
    if ((size_t)grid * per_block > share) grid = (int)(share / per_block) > 0 ? (int)(share / per_block) : 1;
    e->intra_grid = grid;
    return ensure((void **)&e->d_row_buffer, &e->row_buffer_bytes, (size_t)grid * per_block + 16, "row buffers", err);
}

/* The 32-bit pass over the sequences of batch `b` that the 16-bit kernels
 * flagged; the count stays on the GPU, so the launch is sized for the worst
 * and idle groups leave at once. */
int launch_wide(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t b, const uint8_t *res, size_t q_offset,
                size_t qlen, cudaStream_t stream, sw_error *err)
{
    const batch *bt = &e->batches[b];
    sw_gk_align_params p = base_params(e, c, q_offset, qlen);
    set_scoring_params(p, e, c, s);
    p.residues = res;
    p.residue_base = bt->res_begin;
    p.list = s->overflow + bt->first;
    p.list_count = s->ctl + ctl_overflow(e, b);
    p.pssm = query_pssm(e, c, s->query);
    p.table = p.pssm ? nullptr : e->d_table32;
    p.table_words = p.pssm ? 0 : c->table32_words;
    p.work = s->ctl + ctl_wide_work(e, b);
    p.temp = e->d_temp_wide;
    const int id = p.pssm ? e->wide_pssm_config : e->wide_config;
    const launch_shape *ls = &e->shapes[id];
    /* Groups of 32 threads, at most as many as the column buffers were
     * made for (by the table kernel's block size, which the PSSM kernel's
     * may exceed). */
    int per_block = ls->threads / 32;
    if (per_block > e->wide_groups) per_block = e->wide_groups;
    const int blocks = e->wide_groups / per_block;
    size_t span;
    int rc = span_begin(e, SW_GPU_SPAN_WIDE, stream, s->query, -1, &span, err);
    if (rc) return rc;
    CK(sw_gk_align_launch(id, blocks, 32 * per_block, p.pssm ? sw_gk_align_smem(0) : c->smem32, stream, &p),
       "32-bit alignment kernel");
    return span_end(e, span, stream, err);
}

/* Every bucket of batch `b` for one query. Buckets go out longest first over
 * the bucket streams, so short ones fill the multiprocessors that the long
 * ones leave idle at their end; multipass buckets share one stream, and so
 * their column buffers; the intra-task kernel has a stream of its own. */
int launch_buckets(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t b, const uint8_t *res, size_t q_offset,
                   size_t qlen, cudaStream_t join, sw_error *err)
{
    if (e->tune.device_launch) return launch_buckets_on_device(e, c, s, b, res, q_offset, qlen, err);
    const batch *bt = &e->batches[b];
    const int ns = e->num_streams;
    if (ns > 1) {
        CK(cudaEventRecord(e->ev_fork, e->s_scan), "cudaEventRecord");
        for (int i = 0; i < ns; ++i) CK(cudaStreamWaitEvent(e->s_bucket[i], e->ev_fork, 0), "cudaStreamWaitEvent");
    }
    int next = 1 % ns;
    /* Which of two streams this query's query-across-threads launches take
     * (below), where there are four. */
    const int alternate = ns > 3 ? (int)(s->query & 1) : 0;
    const int slot = (int)(s - e->slots);
    int giants = 0; /* the slot's stream of the longest sequences joined in */
    for (size_t k = bt->num_buckets; k-- > 0;) {
        const size_t kb = bt->first_bucket + k;
        sw_gk_child_launch ch;
        int rc = describe_bucket(e, c, s, kb, bt, res, q_offset, qlen, &ch, err);
        if (rc) return rc;
        cudaStream_t st = e->s_scan;
        if (ns > 1) {
            /* The kernels with the query across the threads have column
             * buffers for each slot: the main launches of consecutive
             * queries alternate between two streams where there are four,
             * so that the next query's blocks fill the multiprocessors that
             * this one's last blocks leave idle. Their launch for the
             * longest sequences (single-pass, no column buffers) lasts as
             * long as the longest sequence's wavefront, a warp, whatever
             * the query's length: each query slot's goes on a stream of
             * its own (s_giants), so that the queries in flight overlap
             * them (the intra-task kernel's buffers are shared: one
             * stream). */
            if (ch.qp == 1) st = e->s_bucket[ns > 2 ? 2 + alternate : ns - 1];
            else if (ch.qp == 2) {
                st = e->s_giants[slot];
                if (!giants) CK(cudaStreamWaitEvent(st, e->ev_fork, 0), "cudaStreamWaitEvent");
                giants = 1;
            } else if (ch.intra) st = e->s_bucket[0];
            else if (sw_gk_get_config(ch.id)->multipass) st = e->s_bucket[1];
            else {
                st = e->s_bucket[next];
                next = next + 1 < ns ? next + 1 : 1;
            }
        }
        size_t span;
        rc = span_begin(e, ch.intra ? SW_GPU_SPAN_INTRA : SW_GPU_SPAN_INTER, st, s->query, e->buckets[kb].plan, &span,
                        err);
        if (rc) return rc;
        if (ch.qp) CK(sw_gk_qp_launch(ch.id, ch.blocks, ch.threads, ch.smem, st, &ch.p.qp), "query-profile kernel");
        else if (ch.intra) CK(sw_gk_intra_launch(ch.id, ch.blocks, ch.threads, ch.smem, st, &ch.p.intra), "intra-task kernel");
        else CK(sw_gk_align_launch(ch.id, ch.blocks, ch.threads, ch.smem, st, &ch.p.align), "alignment kernel");
        if ((rc = span_end(e, span, st, err))) return rc;
    }
    if (ns > 1) {
        for (int i = 0; i < ns; ++i) {
            CK(cudaEventRecord(e->ev_join[i], e->s_bucket[i]), "cudaEventRecord");
            CK(cudaStreamWaitEvent(join, e->ev_join[i], 0), "cudaStreamWaitEvent");
        }
    }
    if (giants) {
        CK(cudaEventRecord(e->ev_giants[slot], e->s_giants[slot]), "cudaEventRecord");
        CK(cudaStreamWaitEvent(join, e->ev_giants[slot], 0), "cudaStreamWaitEvent");
    }
    return SW_OK;
}

} /* namespace sw_gpu_detail */
