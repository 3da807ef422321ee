/* The GPU engine's life: creation (device, streams, events), the database
 * on the GPU (resident or batches streamed from pinned memory), a search
 * (the per-query pipeline over streams and events, two queries in flight)
 * and freeing. The plan, tables, launches and timeline have files of their
 * own (sw_gpu_plan, sw_gpu_tables, sw_gpu_launch, sw_gpu_timeline). */
#include "sw_gpu_engine.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_clock.h"
#include "sw_pool.h"
#include "sw_gpu_engine_state.cuh"
#include "sw_gpu_launch.cuh"
#include "sw_gpu_plan.cuh"
#include "sw_gpu_tables.cuh"
#include "sw_gpu_timeline.cuh"

using namespace sw_gpu_detail;

namespace {

constexpr int DEFAULT_STREAMS = 4;
/* Below 2^31: the single-pass kernels keep a finished pair's sequence
 * number with its has-a-second flag in bit 31 (sw_gpu_qp.cu). */
constexpr uint32_t MAX_SEQS = 0x7ffffff0u;

void free_slot(slot *s)
{
    cudaFree(s->scores);
    cudaFree(s->overflow);
    cudaFree(s->cand_keys);
    cudaFree(s->cand_seqs);
    cudaFree(s->ctl);
    cudaFree(s->out);
    cudaFreeHost(s->host_ctl);
    cudaFreeHost(s->host_out);
    cudaFreeHost(s->host_scores);
    cudaFree(s->profile);
    cudaFree(s->qp_profile);
    cudaFree(s->qp_giant_profile);
    if (s->scan_start) cudaEventDestroy(s->scan_start);
    if (s->scan_done) cudaEventDestroy(s->scan_done);
    if (s->sel_done) cudaEventDestroy(s->sel_done);
    for (size_t i = 0; i < s->num_copy_events; ++i) cudaEventDestroy(s->copy_events[i]);
    free(s->copy_events);
    memset(s, 0, sizeof *s);
}

void free_db(sw_gpu_engine *e)
{
    for (int i = 0; i < SLOTS; ++i) free_slot(&e->slots[i]);
    cudaFree(e->d_res);
    cudaFree(e->d_batch[0]);
    cudaFree(e->d_batch[1]);
    cudaFreeHost(e->h_res);
    cudaFreeHost(e->h_part_res);
    cudaFreeHost(e->h_part_off);
    cudaFreeHost(e->h_part_len);
    cudaFreeHost(e->h_part_tb);
    e->h_part_res = nullptr;
    e->h_part_off = nullptr;
    e->h_part_len = e->h_part_tb = nullptr;
    e->parts = 0;
    e->part_uploading = e->part_wait = 0;
    cudaFree(e->d_offsets);
    cudaFree(e->d_lengths);
    cudaFree(e->d_tiebreak);
    free(e->h_tiebreak);
    e->h_tiebreak = nullptr;
    cudaFree(e->d_subject_class);
    free(e->batches);
    free(e->buckets);
    e->d_res = e->d_batch[0] = e->d_batch[1] = e->h_res = nullptr;
    e->d_offsets = nullptr;
    e->d_lengths = e->d_tiebreak = nullptr;
    e->d_subject_class = nullptr;
    e->batches = nullptr;
    e->buckets = nullptr;
    e->num_batches = e->num_buckets = 0;
    e->intra_longest = 0;
    e->qp_longest = 0;
    e->num_seqs = e->num_residues = 0;
    e->buf_used[0] = e->buf_used[1] = 0;
}

int alloc_slot(sw_gpu_engine *e, slot *s, sw_error *err)
{
    const size_t n = (size_t)e->num_seqs;
    CK(cudaMalloc(&s->scores, n * sizeof *s->scores), "scores");
    CK(cudaMalloc(&s->overflow, n * sizeof *s->overflow), "overflow list");
    CK(cudaMalloc(&s->cand_keys, n * sizeof *s->cand_keys), "candidates");
    CK(cudaMalloc(&s->cand_seqs, n * sizeof *s->cand_seqs), "candidates");
    CK(cudaMalloc(&s->ctl, e->ctl_words * 4), "counters");
    CK(cudaMalloc(&s->out, e->top_n * sizeof *s->out), "hits");
    /* All top_n entries come back, used or not: give the unused defined
     * values. The clear runs on the legacy stream, which the slot's
     * non-blocking stream does not wait for: wait for it here. */
    CK(cudaMemset(s->out, 0, e->top_n * sizeof *s->out), "hits");
    CK(cudaStreamSynchronize(0), "hits");
    CK(cudaMallocHost(&s->host_ctl, ctl_head_words(e) * 4), "pinned counters");
    CK(cudaMallocHost(&s->host_out, e->top_n * sizeof *s->host_out), "pinned hits");
    if (e->host_select) CK(cudaMallocHost(&s->host_scores, n * sizeof *s->host_scores), "pinned scores");
    CK(cudaEventCreate(&s->scan_start), "event");
    CK(cudaEventCreate(&s->scan_done), "event");
    CK(cudaEventCreateWithFlags(&s->sel_done, cudaEventDisableTiming), "event");
    if (!e->resident) {
        s->copy_events = (cudaEvent_t *)calloc(2 * e->num_batches, sizeof(cudaEvent_t));
        if (!s->copy_events) return sw_error_set(err, SW_ENOMEM, "out of memory");
        for (; s->num_copy_events < 2 * e->num_batches; ++s->num_copy_events)
            CK(cudaEventCreate(&s->copy_events[s->num_copy_events]), "event");
    }
    return SW_OK;
}

struct host_candidate {
    int32_t score;
    uint32_t tiebreak;
    uint32_t seq;
};

int compare_candidates(const void *pa, const void *pb)
{
    const host_candidate *a = (const host_candidate *)pa, *b = (const host_candidate *)pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return a->tiebreak < b->tiebreak ? -1 : a->tiebreak > b->tiebreak;
}

/* The top_n best positive scores, by score descending then tie-break
 * ascending, into `out`; *count says how many. A histogram finds the lowest
 * score that can make the list, so only candidates at or above it sort. */
int select_on_host(const sw_gpu_engine *e, const int32_t *scores, sw_gpu_hit *out, size_t *count, sw_error *err)
{
    const size_t n = (size_t)e->num_seqs;
    size_t *hist = (size_t *)calloc(SW_GK_HIST_BINS, sizeof *hist);
    if (!hist) return sw_error_set(err, SW_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i)
        if (scores[i] > 0) hist[scores[i] < SW_GK_HIST_BINS ? scores[i] : SW_GK_HIST_BINS - 1]++;
    int threshold = 1;
    size_t above = 0;
    for (int b = SW_GK_HIST_BINS - 1; b >= 1; --b) {
        above += hist[b];
        if (above >= e->top_n) {
            threshold = b;
            break;
        }
    }
    free(hist);
    host_candidate *c = (host_candidate *)malloc((above ? above : 1) * sizeof *c);
    if (!c) return sw_error_set(err, SW_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n && k < above; ++i)
        if (scores[i] >= threshold) c[k++] = host_candidate{scores[i], e->h_tiebreak[i], (uint32_t)i};
    qsort(c, k, sizeof *c, compare_candidates);
    if (k > e->top_n) k = e->top_n;
    for (size_t i = 0; i < k; ++i) {
        out[i].score = c[i].score;
        out[i].seq = c[i].seq;
    }
    free(c);
    *count = k;
    return SW_OK;
}

/* Waits for the query in slot `s` and copies its hits out. */
int finish_slot(sw_gpu_engine *e, search_ctx *c, slot *s, sw_gpu_hit *hits, size_t *counts, sw_error *err)
{
    if (!s->busy) return SW_OK;
    CK(cudaEventSynchronize(s->sel_done), "cudaEventSynchronize");
    s->busy = 0;
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, s->scan_start, s->scan_done), "cudaEventElapsedTime");
    c->kernel_seconds += ms * 1e-3;
    for (size_t i = 0; i < s->num_copy_events; i += 2) {
        CK(cudaEventElapsedTime(&ms, s->copy_events[i], s->copy_events[i + 1]), "cudaEventElapsedTime");
        c->transfer_seconds += ms * 1e-3;
    }
    if (s->host_ctl[SW_GK_CTL_LAUNCH_ERROR])
        return sw_cuda_fail(err, (cudaError_t)s->host_ctl[SW_GK_CTL_LAUNCH_ERROR], SW_GPU_WHO, "device-side launch");
    for (size_t b = 0; b < e->num_batches; ++b) c->recomputed += s->host_ctl[ctl_overflow(e, b)];
    sw_gpu_hit *h = hits + s->query * e->top_n;
    if (e->host_select) {
        if (e->score_sink)
            memcpy(e->score_sink + s->query * (size_t)e->num_seqs, s->host_scores,
                   (size_t)e->num_seqs * sizeof *s->host_scores);
        int rc = select_on_host(e, s->host_scores, h, &counts[s->query], err);
        if (rc) return rc;
    } else {
        const size_t n = s->host_ctl[SW_GK_CTL_OUT_COUNT];
        for (size_t i = 0; i < n; ++i) {
            h[i].score = s->host_out[i].score;
            h[i].seq = s->host_out[i].seq;
        }
        counts[s->query] = n;
    }
    if (e->query_done)
        e->query_done(e->query_done_user, s->query, h, counts[s->query],
                      e->score_sink ? e->score_sink + s->query * (size_t)e->num_seqs : NULL);
    return SW_OK;
}

int run_query(sw_gpu_engine *e, search_ctx *c, slot *s, size_t q, size_t qlen, size_t *batch_counter,
              sw_error *err)
{
    const size_t q_offset = c->query_offset[q];
    /* With the database resident, only the top-N stream waits for this
     * query's buckets: the next query's buckets start on each stream as soon
     * as this one's are done there, so the tail of one query overlaps the
     * start of the next. Batches need the scan stream to hold the batch
     * buffer until every bucket has read it. */
    const cudaStream_t join = e->resident && e->num_streams > 1 && !e->tune.device_launch ? e->s_sel : e->s_scan;
    size_t span;
    int rc;
    s->query = q;
    s->busy = 1;
    CK(cudaMemsetAsync(s->ctl, 0, e->ctl_words * 4, e->s_scan), "cudaMemsetAsync");
    CK(cudaEventRecord(s->scan_start, e->s_scan), "cudaEventRecord");
    if (e->intra_longest) {
        sw_gk_profile_params pp;
        pp.query = e->d_query + q_offset;
        pp.query_len = (uint32_t)qlen;
        pp.table32 = (const uint32_t *)e->d_table32;
        pp.subject_classes = e->subject_classes;
        pp.pad_row = c->query_rows - 1;
        pp.pssm = query_pssm(e, c, q);
        pp.words = e->profile_words;
        pp.profile = s->profile;
        if ((rc = span_begin(e, SW_GPU_SPAN_PROFILE, e->s_scan, q, -1, &span, err))) return rc;
        CK(sw_gk_profile_launch(e->sms, e->s_scan, &pp), "query profile kernel");
        if ((rc = span_end(e, span, e->s_scan, err))) return rc;
    }
    if (e->qp_longest && (rc = build_qp_profile(e, c, s, q_offset, qlen, 0, e->s_scan, err))) return rc;
    if (e->intra_longest && giant_shape(e, qlen) >= 0 &&
        (rc = build_qp_profile(e, c, s, q_offset, qlen, 1, e->s_scan, err)))
        return rc;
    for (size_t b = 0; b < e->num_batches; ++b) {
        const batch *bt = &e->batches[b];
        const uint8_t *res = e->d_res;
        int buf = 0;
        if (!e->resident) {
            buf = (int)((*batch_counter)++ & 1);
            res = e->d_batch[buf];
            if (e->buf_used[buf]) CK(cudaStreamWaitEvent(e->s_copy, e->ev_buf_free[buf], 0), "cudaStreamWaitEvent");
            CK(cudaEventRecord(s->copy_events[2 * b], e->s_copy), "cudaEventRecord");
            if ((rc = span_begin(e, SW_GPU_SPAN_UPLOAD, e->s_copy, q, -1, &span, err))) return rc;
            CK(cudaMemcpyAsync(e->d_batch[buf], e->h_res + bt->res_begin, bt->res_end - bt->res_begin,
                               cudaMemcpyHostToDevice, e->s_copy),
               "database batch upload");
            if ((rc = span_end(e, span, e->s_copy, err))) return rc;
            CK(cudaEventRecord(s->copy_events[2 * b + 1], e->s_copy), "cudaEventRecord");
            CK(cudaEventRecord(e->ev_copied[buf], e->s_copy), "cudaEventRecord");
            CK(cudaStreamWaitEvent(e->s_scan, e->ev_copied[buf], 0), "cudaStreamWaitEvent");
        }
        rc = launch_buckets(e, c, s, b, res, q_offset, qlen, join, err);
        if (rc) return rc;
        if (!e->resident) {
            /* The batch leaves the GPU after this pass, so its 32-bit
             * recomputation cannot wait for the top-N stream. */
            rc = launch_wide(e, c, s, b, res, q_offset, qlen, e->s_scan, err);
            if (rc) return rc;
            CK(cudaEventRecord(e->ev_buf_free[buf], e->s_scan), "cudaEventRecord");
            e->buf_used[buf] = 1;
        }
    }
    CK(cudaEventRecord(s->scan_done, join), "cudaEventRecord");
    if (join != e->s_sel) CK(cudaStreamWaitEvent(e->s_sel, s->scan_done, 0), "cudaStreamWaitEvent");
    if (e->resident) {
        rc = launch_wide(e, c, s, 0, e->d_res, q_offset, qlen, e->s_sel, err);
        if (rc) return rc;
    }
    if (e->host_select) {
        if ((rc = span_begin(e, SW_GPU_SPAN_DOWNLOAD, e->s_sel, q, -1, &span, err))) return rc;
        CK(cudaMemcpyAsync(s->host_ctl, s->ctl, ctl_head_words(e) * 4, cudaMemcpyDeviceToHost, e->s_sel),
           "download counters");
        CK(cudaMemcpyAsync(s->host_scores, s->scores, e->num_seqs * sizeof *s->host_scores,
                           cudaMemcpyDeviceToHost, e->s_sel),
           "download scores");
        if ((rc = span_end(e, span, e->s_sel, err))) return rc;
        CK(cudaEventRecord(s->sel_done, e->s_sel), "cudaEventRecord");
        return SW_OK;
    }
    sw_gk_select_params sp;
    sp.scores = s->scores;
    sp.tiebreak = e->d_tiebreak;
    sp.num_seqs = (uint32_t)e->num_seqs;
    sp.top_n = (uint32_t)e->top_n;
    sp.hist = s->ctl + ctl_hist(e);
    sp.ctl = s->ctl;
    sp.cand_keys = s->cand_keys;
    sp.cand_seqs = s->cand_seqs;
    sp.sort_capacity = e->sort_capacity;
    sp.out = s->out;
    if ((rc = span_begin(e, SW_GPU_SPAN_SELECT, e->s_sel, q, -1, &span, err))) return rc;
    CK(sw_gk_select_launch(4 * e->sms, e->s_sel, &sp), "top-N kernels");
    if ((rc = span_end(e, span, e->s_sel, err))) return rc;
    if ((rc = span_begin(e, SW_GPU_SPAN_DOWNLOAD, e->s_sel, q, -1, &span, err))) return rc;
    CK(cudaMemcpyAsync(s->host_ctl, s->ctl, ctl_head_words(e) * 4, cudaMemcpyDeviceToHost, e->s_sel),
       "download counters");
    CK(cudaMemcpyAsync(s->host_out, s->out, e->top_n * sizeof *s->out, cudaMemcpyDeviceToHost, e->s_sel),
       "download hits");
    if ((rc = span_end(e, span, e->s_sel, err))) return rc;
    CK(cudaEventRecord(s->sel_done, e->s_sel), "cudaEventRecord");
    return SW_OK;
}

} /* namespace */

int sw_gpu_detail::ensure(void **ptr, size_t *cap, size_t need, const char *what, sw_error *err)
{
    if (need <= *cap) return SW_OK;
    cudaFree(*ptr);
    *ptr = nullptr;
    *cap = 0;
    CK(cudaMalloc(ptr, need), what);
    *cap = need;
    return SW_OK;
}

extern "C" int sw_gpu_engine_create(int device, const sw_scoring *scoring, size_t top_n,
                                    const sw_gpu_engine_options *opt, sw_gpu_engine **out,
                                    sw_error *err)
{
    *out = nullptr;
    if (!scoring || !scoring->table || scoring->gap_open < 0 || scoring->gap_extend < 1 ||
        scoring->gap_open > 255 || scoring->gap_extend > 255)
        return sw_error_set(err, SW_EINVAL, "GPU engine: invalid scoring");
    int count = 0;
    int rc = sw_cuda_device_count(&count, err);
    if (rc) return rc;
    if (count == 0) return sw_error_set(err, SW_ENODEV, "no usable GPU: no CUDA device found");
    if (device < 0 || device >= count)
        return sw_error_set(err, SW_ENODEV, "no GPU %d: %d found", device, count);

    sw_gpu_engine *e = (sw_gpu_engine *)calloc(1, sizeof *e);
    if (!e) return sw_error_set(err, SW_ENOMEM, "out of memory");
    if (opt) e->opt = *opt;
    if (e->opt.tuning) e->tune = *e->opt.tuning;
    e->opt.tuning = &e->tune;
    /* 28 measured fastest on the H100 for the Swiss-Prot-like benchmark,
     * against 24 and 32 (see bench/JOURNAL.md, 2026-11-24): wider kernels
     * need so many registers that too few warps stay resident. */
    if (e->tune.max_columns_per_thread <= 0) e->tune.max_columns_per_thread = 28;
    if (e->tune.max_columns_per_thread > 32) e->tune.max_columns_per_thread = 32;
    if (e->tune.max_columns_per_thread < 16) e->tune.max_columns_per_thread = 16;
    if (e->opt.intra_threshold == 0) e->opt.intra_threshold = SW_GPU_DEFAULT_THRESHOLD;
    if (e->opt.qp_max_length == 0) e->opt.qp_max_length = SW_GPU_DEFAULT_QP_LENGTH;
    e->num_streams = e->tune.bucket_streams > 0 ? e->tune.bucket_streams : DEFAULT_STREAMS;
    if (e->num_streams > MAX_STREAMS) e->num_streams = MAX_STREAMS;
    if (e->tune.profile) e->num_streams = 1;
    if (e->tune.device_launch && !sw_gk_device_launch_compiled()) {
        free(e);
        return sw_error_set(err, SW_EINVAL,
                            "GPU engine: this build has no device-side launcher (configure with "
                            "-DSW_ENABLE_DEVICE_LAUNCH=ON)");
    }
    e->device = device;
    e->top_n = top_n;
    e->gap_open = scoring->gap_open;
    e->gap_extend = scoring->gap_extend;
    memcpy(e->table, scoring->table, sizeof e->table);
    e->max_score = 0;
    e->min_score = 0;
    for (int i = 0; i < SW_CODE_LIMIT * SW_CODE_LIMIT; ++i) {
        if (e->table[i] > e->max_score) e->max_score = e->table[i];
        if (e->table[i] < e->min_score) e->min_score = e->table[i];
    }
    compute_classes(e);
    make_plan(e);

    cudaError_t ce;
    do {
        if ((ce = cudaSetDevice(device)) != cudaSuccess) {
            rc = sw_cuda_fail(err, ce, SW_GPU_WHO, "cudaSetDevice");
            break;
        }
        /* Two attributes, not the whole property record: cudaGetDeviceProperties
         * queries every field, some of them slowly. */
        int sms = 0, optin = 0;
        if ((ce = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
            (ce = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device)) != cudaSuccess) {
            rc = sw_cuda_fail(err, ce, SW_GPU_WHO, "cudaDeviceGetAttribute");
            break;
        }
        e->sms = sms;
        e->smem_optin = (size_t)optin;
        size_t free_bytes = 0, total_bytes = 0;
        if ((ce = cudaMemGetInfo(&free_bytes, &total_bytes)) != cudaSuccess) {
            rc = sw_cuda_fail(err, ce, SW_GPU_WHO, "cudaMemGetInfo");
            break;
        }
        e->budget = sw_gpu_engine_default_budget(free_bytes, total_bytes);
        const size_t whole = e->budget;
        if (e->opt.device_share > 1) e->budget /= (size_t)e->opt.device_share;
        e->work_budget = e->budget;
        if (e->opt.work_share > 1 && whole / (size_t)e->opt.work_share < e->work_budget)
            e->work_budget = whole / (size_t)e->opt.work_share;
        if (e->opt.max_device_bytes && e->opt.max_device_bytes < e->budget) e->budget = e->opt.max_device_bytes;

        if (top_n) {
            uint32_t cap = 1024;
            while (cap < 2 * top_n && cap < (1u << 24)) cap <<= 1;
            while (cap >= 2 * 1024 && cap / 2 >= top_n && sw_gk_select_smem(cap) > e->smem_optin) cap >>= 1;
            e->host_select = cap < top_n || sw_gk_select_smem(cap) > e->smem_optin || e->opt.keep_all_scores;
            e->sort_capacity = cap;
            /* The device's largest, as in prepare_kernel: engines on one GPU share the bound. */
            if (!e->host_select && (ce = sw_gk_select_prepare(e->smem_optin)) != cudaSuccess) {
                rc = sw_cuda_fail(err, ce, SW_GPU_WHO, "cudaFuncSetAttribute");
                break;
            }
        }
        const unsigned flags = cudaStreamNonBlocking;
        if ((ce = cudaStreamCreateWithFlags(&e->s_scan, flags)) != cudaSuccess ||
            (ce = cudaStreamCreateWithFlags(&e->s_sel, flags)) != cudaSuccess ||
            (ce = cudaStreamCreateWithFlags(&e->s_copy, flags)) != cudaSuccess) {
            rc = sw_cuda_fail(err, ce, SW_GPU_WHO, "cudaStreamCreate");
            break;
        }
        for (int i = 0; i < e->num_streams && ce == cudaSuccess; ++i) {
            ce = cudaStreamCreateWithFlags(&e->s_bucket[i], flags);
            if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&e->ev_join[i], cudaEventDisableTiming);
        }
        if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&e->ev_fork, cudaEventDisableTiming);
        for (int i = 0; i < SLOTS && ce == cudaSuccess; ++i) {
            ce = cudaStreamCreateWithFlags(&e->s_giants[i], flags);
            if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&e->ev_giants[i], cudaEventDisableTiming);
        }
        if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&e->ev_part_up, cudaEventDisableTiming);
        for (int i = 0; i < 2 && ce == cudaSuccess; ++i) {
            ce = cudaEventCreateWithFlags(&e->ev_copied[i], cudaEventDisableTiming);
            if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&e->ev_buf_free[i], cudaEventDisableTiming);
        }
        if (ce != cudaSuccess) {
            rc = sw_cuda_fail(err, ce, SW_GPU_WHO, "streams and events");
            break;
        }
    } while (0);
    if (rc != SW_OK) {
        sw_gpu_engine_free(e);
        return rc;
    }
    *out = e;
    return SW_OK;
}

extern "C" int sw_gpu_engine_device_launch_available(void) { return sw_gk_device_launch_compiled(); }

extern "C" size_t sw_gpu_engine_qp_shape_count(void) { return (size_t)sw_gk_qp_num_shapes(); }

extern "C" int sw_gpu_engine_qp_shape(size_t index, int *group_size, int *columns, int *multipass)
{
    if (index >= (size_t)sw_gk_qp_num_shapes()) return SW_EINVAL;
    const sw_gk_qp_shape *sh = sw_gk_qp_get_shape((int)index);
    *group_size = sh->group_size;
    *columns = sh->columns;
    *multipass = sh->multipass;
    return SW_OK;
}

extern "C" int sw_gpu_engine_set_query_done(sw_gpu_engine *e, sw_gpu_query_done_fn fn, void *user, sw_error *err)
{
    if (!e) return sw_error_set(err, SW_EINVAL, "GPU engine: no engine");
    e->query_done = fn;
    e->query_done_user = user;
    return SW_OK;
}

extern "C" int sw_gpu_engine_set_stop(sw_gpu_engine *e, sw_gpu_stop_fn fn, void *user, sw_error *err)
{
    if (!e) return sw_error_set(err, SW_EINVAL, "GPU engine: no engine");
    e->stop = fn;
    e->stop_user = user;
    return SW_OK;
}

extern "C" int sw_gpu_engine_set_score_sink(sw_gpu_engine *e, int32_t *scores, sw_error *err)
{
    if (!e || (scores && !e->opt.keep_all_scores))
        return sw_error_set(err, SW_EINVAL, "GPU engine: a score sink needs keep_all_scores");
    e->score_sink = scores;
    return SW_OK;
}

extern "C" void sw_gpu_engine_free(sw_gpu_engine *e)
{
    if (!e) return;
    cudaSetDevice(e->device);
    if (e->s_scan) cudaStreamSynchronize(e->s_scan);
    if (e->s_sel) cudaStreamSynchronize(e->s_sel);
    if (e->s_copy) cudaStreamSynchronize(e->s_copy);
    for (int i = 0; i < e->num_streams; ++i)
        if (e->s_bucket[i]) cudaStreamSynchronize(e->s_bucket[i]);
    for (int i = 0; i < SLOTS; ++i)
        if (e->s_giants[i]) cudaStreamSynchronize(e->s_giants[i]);
    free_db(e);
    cudaFree(e->d_table16);
    cudaFree(e->d_table32);
    cudaFree(e->d_query);
    cudaFree(e->d_pssm);
    cudaFree(e->d_temp);
    cudaFree(e->d_temp_wide);
    cudaFree(e->d_qp_temp);
    cudaFree(e->d_row_buffer);
    for (int i = 0; i < e->num_streams; ++i) {
        if (e->s_bucket[i]) cudaStreamDestroy(e->s_bucket[i]);
        if (e->ev_join[i]) cudaEventDestroy(e->ev_join[i]);
    }
    if (e->ev_fork) cudaEventDestroy(e->ev_fork);
    for (int i = 0; i < SLOTS; ++i) {
        if (e->s_giants[i]) cudaStreamDestroy(e->s_giants[i]);
        if (e->ev_giants[i]) cudaEventDestroy(e->ev_giants[i]);
    }
    if (e->ev_part_up) cudaEventDestroy(e->ev_part_up);
    for (int i = 0; i < 2; ++i) {
        if (e->ev_copied[i]) cudaEventDestroy(e->ev_copied[i]);
        if (e->ev_buf_free[i]) cudaEventDestroy(e->ev_buf_free[i]);
    }
    for (size_t i = 0; i < e->span_events_made; ++i) cudaEventDestroy(e->span_events[i]);
    if (e->span_origin) cudaEventDestroy(e->span_origin);
    free(e->span_events);
    free(e->spans);
    if (e->s_scan) cudaStreamDestroy(e->s_scan);
    if (e->s_sel) cudaStreamDestroy(e->s_sel);
    if (e->s_copy) cudaStreamDestroy(e->s_copy);
    free(e);
}

/* Counting the residue codes of a piece of the database, part by part. */
#define TALLY_PARTS 16
struct tally_ctx {
    const uint8_t *residues;
    uint64_t total;
    int parts;
    uint64_t counts[TALLY_PARTS][256];
};

static void tally_worker(void *arg, int part)
{
    tally_ctx *t = (tally_ctx *)arg;
    const uint64_t from = t->total * (uint64_t)part / (uint64_t)t->parts;
    const uint64_t to = t->total * (uint64_t)(part + 1) / (uint64_t)t->parts;
    /* Four tallies break the store-to-load chain on runs of one code. */
    uint64_t t4[4][256];
    memset(t4, 0, sizeof t4);
    uint64_t i = from;
    for (; i + 4 <= to; i += 4) {
        t4[0][t->residues[i]]++;
        t4[1][t->residues[i + 1]]++;
        t4[2][t->residues[i + 2]]++;
        t4[3][t->residues[i + 3]]++;
    }
    for (; i < to; ++i) t4[0][t->residues[i]]++;
    for (int c = 0; c < 256; ++c) t->counts[part][c] = t4[0][c] + t4[1][c] + t4[2][c] + t4[3][c];
}

extern "C" int sw_gpu_engine_set_db(sw_gpu_engine *e, const uint8_t *residues, const uint32_t *lengths,
                                    const uint32_t *tiebreak, uint64_t num_seqs, sw_error *err)
{
    uint64_t total = 0;
    for (uint64_t i = 0; lengths && i < num_seqs; ++i) total += lengths[i];
    const sw_gpu_db_piece whole = {residues, total};
    return sw_gpu_engine_set_db_pieces(e, &whole, 1, lengths, tiebreak, num_seqs, err);
}

/* sw_gpu_engine_set_db_pieces' source: the pieces one after another. */
struct piece_list {
    const sw_gpu_db_piece *pieces;
    size_t count, next;
};

static int next_listed_piece(void *user, const uint8_t **piece, uint64_t *bytes, sw_error *err)
{
    piece_list *l = (piece_list *)user;
    while (l->next < l->count && !l->pieces[l->next].bytes) l->next++;
    *piece = nullptr;
    *bytes = 0;
    if (l->next == l->count) return SW_OK;
    const sw_gpu_db_piece *p = &l->pieces[l->next++];
    if (!p->residues) return sw_error_set(err, SW_EINVAL, "GPU engine: invalid database");
    *piece = p->residues;
    *bytes = p->bytes;
    return SW_OK;
}

extern "C" int sw_gpu_engine_set_db_pieces(sw_gpu_engine *e, const sw_gpu_db_piece *pieces, size_t num_pieces,
                                           const uint32_t *lengths, const uint32_t *tiebreak, uint64_t num_seqs,
                                           sw_error *err)
{
    piece_list l = {pieces, num_pieces, 0};
    return sw_gpu_engine_set_db_from(e, next_listed_piece, &l, lengths, tiebreak, num_seqs, err);
}

/* The codes of `bytes` residues counted into seen[], on all cores for a
 * large piece: on one core, the tally of the Swiss-Prot-like benchmark was
 * a large share of the whole command's time outside the scan (see
 * bench/JOURNAL.md, 2026-11-24). */
static void tally_piece(const uint8_t *residues, uint64_t bytes, uint64_t *seen)
{
    tally_ctx t;
    memset(&t, 0, sizeof t);
    t.residues = residues;
    t.total = bytes;
    t.parts = bytes < ((uint64_t)1 << 24) ? 1 : TALLY_PARTS;
    int started = 0;
    if (t.parts > 1) sw_pool_run(t.parts, tally_worker, &t, &started);
    for (int p = started; p < t.parts; ++p) tally_worker(&t, p); /* what no thread took */
    for (int c = 0; c < 256; ++c)
        for (int p = 0; p < t.parts; ++p) seen[c] += t.counts[p][c];
}

/* Table columns: the classes of the codes that occur (seen NULL: of every
 * code), then the padding column; and each code's column into
 * subject_class. */
static void choose_columns(sw_gpu_engine *e, const uint64_t *seen, uint8_t *subject_class)
{
    int cols = 0;
    for (int c = 0; c < SW_CODE_LIMIT; ++c) e->subject_col[c] = -1;
    for (int c = 0; c < SW_CODE_LIMIT; ++c)
        if ((!seen || seen[c]) && e->subject_col[e->class_of[c]] < 0) e->subject_col[e->class_of[c]] = cols++;
    e->subject_classes = (uint32_t)cols + 1;
    for (int c = 0; c < SW_CODE_LIMIT; ++c) {
        const int col = e->subject_col[e->class_of[c]];
        subject_class[c] = (uint8_t)(col >= 0 ? col : cols);
    }
}

extern "C" int sw_gpu_engine_set_db_from(sw_gpu_engine *e, sw_gpu_piece_fn next, void *user, const uint32_t *lengths,
                                         const uint32_t *tiebreak, uint64_t num_seqs, sw_error *err)
{
    if (!e || !next || (num_seqs && (!lengths || !tiebreak)))
        return sw_error_set(err, SW_EINVAL, "GPU engine: invalid database");
    if (num_seqs > MAX_SEQS)
        return sw_error_set(err, SW_ELIMIT, "GPU engine: %llu sequences exceed the limit of %u",
                            (unsigned long long)num_seqs, MAX_SEQS);
    CK(cudaSetDevice(e->device), "cudaSetDevice");
    CK(cudaStreamSynchronize(e->s_copy), "cudaStreamSynchronize");
    free_db(e);

    uint64_t total = 0;
    for (uint64_t i = 0; i < num_seqs; ++i) {
        if (i && lengths[i] < lengths[i - 1])
            return sw_error_set(err, SW_EINVAL, "GPU engine: database sequence %llu is shorter than the one before",
                                (unsigned long long)i);
        total += lengths[i];
    }
    e->num_seqs = num_seqs;
    e->num_residues = total;
    e->longest = num_seqs ? lengths[num_seqs - 1] : 0;

    uint64_t *offsets = (uint64_t *)malloc((num_seqs ? num_seqs : 1) * sizeof *offsets);
    if (!offsets) return sw_error_set(err, SW_ENOMEM, "out of memory");
    uint64_t at = 0;
    for (uint64_t i = 0; i < num_seqs; ++i) {
        offsets[i] = at;
        at += lengths[i];
    }

    int rc = SW_OK;
    do {
        if ((rc = make_batches(e, lengths, offsets, err)) != SW_OK) break;
        if ((rc = make_buckets(e, lengths, err)) != SW_OK) break;
        e->ctl_words = ctl_hist(e) + SW_GK_HIST_BINS;

        cudaError_t ce = cudaSuccess;
        const size_t n = (size_t)(num_seqs ? num_seqs : 1);
#define SETDB_CK(call, where) if ((ce = (call)) != cudaSuccess) { rc = sw_cuda_fail(err, ce, SW_GPU_WHO, where); break; }
        SETDB_CK(cudaMalloc(&e->d_offsets, n * 8), "database offsets");
        SETDB_CK(cudaMalloc(&e->d_lengths, n * 4), "database lengths");
        SETDB_CK(cudaMalloc(&e->d_tiebreak, n * 4), "database tie-breaks");
        SETDB_CK(cudaMalloc(&e->d_subject_class, SW_CODE_LIMIT), "residue classes");
        SETDB_CK(sw_cuda_upload(e->d_offsets, offsets, num_seqs * 8, 0), "upload offsets");
        SETDB_CK(sw_cuda_upload(e->d_lengths, lengths, num_seqs * 4, 0), "upload lengths");
        SETDB_CK(sw_cuda_upload(e->d_tiebreak, tiebreak, num_seqs * 4, 0), "upload tie-breaks");
        if (e->host_select) {
            e->h_tiebreak = (uint32_t *)malloc(n * 4);
            if (!e->h_tiebreak) { rc = sw_error_set(err, SW_ENOMEM, "out of memory"); break; }
            memcpy(e->h_tiebreak, tiebreak, num_seqs * 4);
        }
        if (e->resident) {
            SETDB_CK(cudaMalloc(&e->d_res, total ? total : 1), "database residues");
        } else {
            SETDB_CK(cudaMallocHost(&e->h_res, total ? total : 1), "pinned database");
            SETDB_CK(cudaMalloc(&e->d_batch[0], e->batch_capacity), "batch buffer");
            SETDB_CK(cudaMalloc(&e->d_batch[1], e->batch_capacity), "batch buffer");
        }
        /* The residues, a piece at a time: each piece's codes counted and
         * the piece copied before the next is asked for (a source may
         * reuse its buffer). */
        uint64_t seen[256] = {0};
        at = 0;
        for (;;) {
            const uint8_t *piece = nullptr;
            uint64_t bytes = 0;
            if ((rc = next(user, &piece, &bytes, err)) != SW_OK || !bytes) break;
            if (bytes > total - at) {
                rc = sw_error_set(err, SW_EINVAL, "GPU engine: more residues given than the sequences' %llu",
                                  (unsigned long long)total);
                break;
            }
            tally_piece(piece, bytes, seen);
            if (e->resident) {
                SETDB_CK(cudaMemcpyAsync(e->d_res + at, piece, bytes, cudaMemcpyHostToDevice, e->s_copy),
                         "upload residues");
                SETDB_CK(cudaStreamSynchronize(e->s_copy), "upload residues");
            } else {
                memcpy(e->h_res + at, piece, bytes);
            }
            at += bytes;
        }
        if (rc != SW_OK || ce != cudaSuccess) break;
        if (at != total) {
            rc = sw_error_set(err, SW_EINVAL, "GPU engine: %llu residues given for sequences of %llu",
                              (unsigned long long)at, (unsigned long long)total);
            break;
        }
        for (int c = SW_CODE_LIMIT; c < 256; ++c)
            if (seen[c]) {
                rc = sw_error_set(err, SW_EINVAL, "GPU engine: residue code %d in the database", c);
                break;
            }
        if (rc != SW_OK) break;
        uint8_t subject_class[SW_CODE_LIMIT];
        choose_columns(e, seen, subject_class);
        SETDB_CK(sw_cuda_upload(e->d_subject_class, subject_class, SW_CODE_LIMIT, 0), "upload residue classes");
#undef SETDB_CK
        if (ce != cudaSuccess) break;
        for (int i = 0; i < SLOTS && rc == SW_OK; ++i) rc = alloc_slot(e, &e->slots[i], err);
    } while (0);
    free(offsets);
    if (rc != SW_OK) free_db(e);
    return rc;
}

extern "C" int sw_gpu_engine_reserve_parts(sw_gpu_engine *e, uint64_t max_seqs, uint64_t max_residues,
                                           uint32_t max_length, sw_error *err)
{
    if (!e) return sw_error_set(err, SW_EINVAL, "GPU engine: no engine");
    if (max_seqs > MAX_SEQS)
        return sw_error_set(err, SW_ELIMIT, "GPU engine: parts of %llu sequences exceed the limit of %u",
                            (unsigned long long)max_seqs, MAX_SEQS);
    CK(cudaSetDevice(e->device), "cudaSetDevice");
    CK(cudaStreamSynchronize(e->s_copy), "cudaStreamSynchronize");
    free_db(e);
    e->parts = 1;
    e->part_max_seqs = max_seqs;
    e->part_max_residues = max_residues;
    e->part_max_length = max_length;
    /* Every class has its column: the codes of parts to come are unknown. */
    uint8_t subject_class[SW_CODE_LIMIT];
    choose_columns(e, nullptr, subject_class);
    e->resident = 1;
    e->num_batches = 1;
    e->batches = (batch *)calloc(1, sizeof(batch));
    /* Control words for the most buckets a part can have. */
    e->num_buckets = e->plan_size;
    e->ctl_words = ctl_hist(e) + SW_GK_HIST_BINS;
    e->num_buckets = 0;
    const size_t n = (size_t)(max_seqs ? max_seqs : 1);
    int rc = SW_OK;
    cudaError_t ce = cudaSuccess;
    do {
        if (!e->batches) { rc = sw_error_set(err, SW_ENOMEM, "out of memory"); break; }
#define PART_CK(call, where) if ((ce = (call)) != cudaSuccess) { rc = sw_cuda_fail(err, ce, SW_GPU_WHO, where); break; }
        PART_CK(cudaMalloc(&e->d_res, max_residues ? max_residues : 1), "part residues");
        PART_CK(cudaMalloc(&e->d_offsets, n * 8), "part offsets");
        PART_CK(cudaMalloc(&e->d_lengths, n * 4), "part lengths");
        PART_CK(cudaMalloc(&e->d_tiebreak, n * 4), "part tie-breaks");
        PART_CK(cudaMalloc(&e->d_subject_class, SW_CODE_LIMIT), "residue classes");
        PART_CK(sw_cuda_upload(e->d_subject_class, subject_class, SW_CODE_LIMIT, 0), "upload residue classes");
        PART_CK(cudaMallocHost(&e->h_part_res, max_residues ? max_residues : 1), "pinned part buffer");
        PART_CK(cudaMallocHost(&e->h_part_off, n * 8), "pinned part buffer");
        PART_CK(cudaMallocHost(&e->h_part_len, n * 4), "pinned part buffer");
        PART_CK(cudaMallocHost(&e->h_part_tb, n * 4), "pinned part buffer");
#undef PART_CK
        if (e->host_select && !(e->h_tiebreak = (uint32_t *)malloc(n * 4))) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory");
            break;
        }
        /* The slots' arrays for the largest part. */
        e->num_seqs = max_seqs;
        for (int i = 0; i < SLOTS && rc == SW_OK; ++i) rc = alloc_slot(e, &e->slots[i], err);
        e->num_seqs = 0;
    } while (0);
    if (rc != SW_OK) free_db(e);
    return rc;
}

extern "C" int sw_gpu_engine_part_buffer(sw_gpu_engine *e, uint8_t **residues, uint32_t **lengths,
                                         uint32_t **tiebreak, sw_error *err)
{
    if (!e || !e->parts) return sw_error_set(err, SW_EINVAL, "GPU engine: no room reserved for parts");
    CK(cudaSetDevice(e->device), "cudaSetDevice");
    if (e->part_uploading) CK(cudaEventSynchronize(e->ev_part_up), "cudaEventSynchronize");
    *residues = e->h_part_res;
    *lengths = e->h_part_len;
    *tiebreak = e->h_part_tb;
    return SW_OK;
}

extern "C" int sw_gpu_engine_load_part(sw_gpu_engine *e, uint64_t num_seqs, sw_error *err)
{
    if (!e || !e->parts) return sw_error_set(err, SW_EINVAL, "GPU engine: no room reserved for parts");
    if (num_seqs > e->part_max_seqs)
        return sw_error_set(err, SW_EINVAL, "GPU engine: a part of %llu sequences, room for %llu",
                            (unsigned long long)num_seqs, (unsigned long long)e->part_max_seqs);
    const uint32_t *lengths = e->h_part_len;
    uint64_t total = 0;
    for (uint64_t i = 0; i < num_seqs; ++i) {
        if ((i && lengths[i] < lengths[i - 1]) || lengths[i] > e->part_max_length)
            return sw_error_set(err, SW_EINVAL, "GPU engine: part sequence %llu of %u residues is out of order or too long",
                                (unsigned long long)i, lengths[i]);
        e->h_part_off[i] = total;
        total += lengths[i];
    }
    if (total > e->part_max_residues)
        return sw_error_set(err, SW_EINVAL, "GPU engine: a part of %llu residues, room for %llu",
                            (unsigned long long)total, (unsigned long long)e->part_max_residues);
    CK(cudaSetDevice(e->device), "cudaSetDevice");
    /* The part before must be done with before its buffers are overwritten
     * (its search has returned, so this does not wait). */
    CK(cudaStreamSynchronize(e->s_scan), "cudaStreamSynchronize");
    CK(cudaStreamSynchronize(e->s_sel), "cudaStreamSynchronize");
    e->num_seqs = num_seqs;
    e->num_residues = total;
    e->longest = num_seqs ? lengths[num_seqs - 1] : 0;
    e->batches[0] = batch{0, (uint32_t)num_seqs, 0, total, 0, 0};
    e->qp_longest = e->intra_longest = 0;
    int rc = make_buckets(e, lengths, err);
    if (rc) return rc;
    if (e->host_select) memcpy(e->h_tiebreak, e->h_part_tb, num_seqs * 4);
    CK(cudaMemcpyAsync(e->d_res, e->h_part_res, total, cudaMemcpyHostToDevice, e->s_copy), "part upload");
    CK(cudaMemcpyAsync(e->d_offsets, e->h_part_off, num_seqs * 8, cudaMemcpyHostToDevice, e->s_copy), "part upload");
    CK(cudaMemcpyAsync(e->d_lengths, e->h_part_len, num_seqs * 4, cudaMemcpyHostToDevice, e->s_copy), "part upload");
    CK(cudaMemcpyAsync(e->d_tiebreak, e->h_part_tb, num_seqs * 4, cudaMemcpyHostToDevice, e->s_copy), "part upload");
    CK(cudaEventRecord(e->ev_part_up, e->s_copy), "cudaEventRecord");
    e->part_uploading = 1;
    e->part_wait = 1;
    return SW_OK;
}

extern "C" size_t sw_gpu_engine_default_budget(unsigned long long free_bytes, unsigned long long total_bytes)
{
    /* Leave room for other users of the GPU and the CUDA context. */
    const unsigned long long reserve = total_bytes / 20 > (256ull << 20) ? total_bytes / 20 : 256ull << 20;
    return (size_t)(free_bytes > reserve ? free_bytes - reserve : free_bytes / 2);
}

extern "C" int sw_gpu_engine_fits(uint64_t num_seqs, uint64_t residues, size_t budget)
{
    return fits_on_gpu(num_seqs, residues, budget);
}

extern "C" int sw_gpu_engine_search(sw_gpu_engine *e, const uint8_t *const *queries,
                                    const size_t *query_lengths, size_t num_queries, sw_gpu_hit *hits,
                                    size_t *counts, sw_gpu_stats *stats, sw_error *err)
{
    return sw_gpu_engine_search_rows(e, queries, NULL, query_lengths, num_queries, hits, counts, stats, err);
}

extern "C" int sw_gpu_engine_search_rows(sw_gpu_engine *e, const uint8_t *const *queries, const int8_t *const *rows,
                                         const size_t *query_lengths, size_t num_queries, sw_gpu_hit *hits,
                                         size_t *counts, sw_gpu_stats *stats, sw_error *err)
{
    const double t0 = sw_clock_seconds();
    if (!e || (num_queries && (!queries || !query_lengths || !counts || (e->top_n && !hits))))
        return sw_error_set(err, SW_EINVAL, "GPU engine: invalid search arguments");
    search_ctx c;
    memset(&c, 0, sizeof c);
    uint64_t query_residues = 0;
    size_t longest_query = 0;
    for (size_t q = 0; q < num_queries; ++q) {
        counts[q] = 0;
        if (query_lengths[q] && !queries[q]) return sw_error_set(err, SW_EINVAL, "GPU engine: query %zu is NULL", q);
        query_residues += query_lengths[q];
        if (query_lengths[q] > longest_query) longest_query = query_lengths[q];
    }
    /* 32-bit lanes hold any score up to 2^30 with room for the gap
     * arithmetic below their "minus infinity" (a PSSM scores at most 127). */
    int any_rows = 0, max_score = e->max_score;
    for (size_t q = 0; rows && q < num_queries; ++q) any_rows |= rows[q] != NULL;
    if (any_rows) max_score = 127;
    const uint64_t shorter = longest_query < e->longest ? longest_query : e->longest;
    if (max_score > 0 && shorter > ((uint64_t)1 << 30) / (uint64_t)max_score)
        return sw_error_set(err, SW_ELIMIT, "GPU engine: sequences too long for exact 32-bit scores");
    /* The kernels that keep the table in shared memory cannot hold a row a
     * query position: PSSM queries need the plan's kernels to take their
     * scores from a profile (make_plan sees to that, but for the
     * benchmarks' knobs that turn those kernels off). */
    if (any_rows) {
        if (e->tune.device_launch)
            return sw_error_set(err, SW_ENODEV, "GPU engine: PSSM queries with the device-side launcher");
        for (size_t p = 0; p < e->plan_size; ++p)
            if (e->plan[p].config >= 0)
                return sw_error_set(err, SW_ENODEV, "GPU engine: PSSM queries need the query-profile kernels");
    }
    if (longest_query > ((size_t)1 << 30))
        return sw_error_set(err, SW_ELIMIT, "GPU engine: query of %zu residues is too long", longest_query);

    int rc = SW_OK;
    CK(cudaSetDevice(e->device), "cudaSetDevice");
    if (e->part_wait) {
        /* Everything of a query starts on the scan stream. */
        CK(cudaStreamWaitEvent(e->s_scan, e->ev_part_up, 0), "cudaStreamWaitEvent");
        e->part_wait = 0;
    }
    if (num_queries && e->num_seqs && e->top_n) {
        c.query_offset = (size_t *)malloc(num_queries * sizeof *c.query_offset);
        if (!c.query_offset) return sw_error_set(err, SW_ENOMEM, "out of memory");
        if (any_rows && !(c.pssm_offset = (size_t *)malloc(num_queries * sizeof *c.pssm_offset))) {
            free(c.query_offset);
            return sw_error_set(err, SW_ENOMEM, "out of memory");
        }
        c.temp_rows = (uint32_t)(longest_query > 0 ? longest_query : 1);
        do {
            if ((rc = build_tables(e, &c, queries, rows, query_lengths, num_queries, err))) break;
            for (size_t p = 0; p < e->plan_size && !rc; ++p)
                if (e->plan[p].config >= 0) rc = prepare_kernel(e, e->plan[p].config, c.smem16, err);
            if (!rc) rc = prepare_kernel(e, e->wide_config, c.smem32, err);
            if (!rc && any_rows) rc = prepare_kernel(e, e->wide_pssm_config, sw_gk_align_smem(0), err);
            if (!rc && e->intra_longest) rc = prepare_intra(e, query_lengths, num_queries, err);
            if (!rc && (e->qp_longest || e->intra_longest)) rc = prepare_qp(e, query_lengths, num_queries, err);
            if (!rc) rc = prepare_temp(e, &c, err);
            if (rc) break;
            if ((rc = timeline_start(e, err))) break;
            size_t batch_counter = 0;
            for (size_t q = 0; q < num_queries && !rc; ++q) {
                slot *s = &e->slots[q % SLOTS];
                /* Collect the query that used this slot before reusing it
                 * (its scores and counters get overwritten); the query just
                 * before keeps the GPU busy meanwhile. */
                rc = finish_slot(e, &c, s, hits, counts, err);
                if (!rc && e->stop && e->stop(e->stop_user))
                    rc = sw_error_set(err, SW_ECANCELED, "the search was cancelled");
                if (!rc) rc = run_query(e, &c, s, q, query_lengths[q], &batch_counter, err);
            }
            for (size_t i = 0; i < SLOTS && !rc; ++i)
                rc = finish_slot(e, &c, &e->slots[(num_queries + i) % SLOTS], hits, counts, err);
            if (!rc && spans_wanted(e)) rc = collect_timeline(e, c.bucket_seconds, err);
        } while (0);
        if (rc) {
            /* Leave nothing in flight that still points at this search. */
            cudaStreamSynchronize(e->s_scan);
            cudaStreamSynchronize(e->s_sel);
            cudaStreamSynchronize(e->s_copy);
            for (int i = 0; i < SLOTS; ++i) e->slots[i].busy = 0;
        }
        free(c.query_offset);
        free(c.pssm_offset);
        if (rc) return rc;
    }
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->kernel_seconds = c.kernel_seconds;
        stats->transfer_seconds = c.transfer_seconds;
        stats->cells = query_residues * e->num_residues;
        stats->recomputed = c.recomputed;
        stats->batches = (int)e->num_batches;
        stats->num_buckets = e->plan_size;
        for (size_t p = 0; p < e->plan_size; ++p) {
            sw_gpu_bucket_stats *bs = &stats->buckets[p];
            bs->max_length = e->plan[p].max_length;
            bs->seconds = c.bucket_seconds[p];
            if (e->plan[p].config == QP_CONFIG) {
                const sw_gk_qp_shape *sh = sw_gk_qp_get_shape(e->qp_last_shape);
                bs->qp = 1;
                bs->group_size = sh ? sh->group_size : 0;
                bs->columns = sh ? sh->columns : 0;
                bs->multipass = sh ? sh->multipass : 0;
                continue;
            }
            if (e->plan[p].config == INTRA_CONFIG) {
                bs->intra = 1;
                bs->group_size = e->intra_threads;
                bs->columns = e->intra_tile;
                continue;
            }
            const sw_gk_config *cf = sw_gk_get_config(e->plan[p].config);
            bs->group_size = cf->group_size;
            bs->columns = cf->columns;
            bs->multipass = cf->multipass;
        }
        for (size_t k = 0; k < e->num_buckets; ++k) {
            sw_gpu_bucket_stats *bs = &stats->buckets[e->buckets[k].plan];
            bs->seqs += e->buckets[k].count;
            bs->residues += e->buckets[k].residues;
            bs->padded_residues += e->buckets[k].padded;
        }
        stats->total_seconds = sw_clock_seconds() - t0;
    }
    return SW_OK;
}
