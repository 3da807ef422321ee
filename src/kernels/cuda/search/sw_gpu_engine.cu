/* Host side of the GPU engine: device memory (resident database or batches
 * streamed from pinned memory), length buckets, substitution tables, and the
 * per-query pipeline over streams and events. */
#include "sw_gpu_engine.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_clock.h"
#include "sw_gpu_kernels.cuh"

namespace {

/* Queries in flight: query k + 1 scans while the top-N of query k is
 * selected and downloaded. */
constexpr int SLOTS = 2;
constexpr int MAX_STREAMS = 8;
constexpr int DEFAULT_STREAMS = 4;
constexpr uint32_t MAX_SEQS = 0xfffffff0u;

int gpu_fail(sw_error *err, cudaError_t e, const char *where)
{
    return sw_error_set(err, SW_EDEVICE, "GPU: %s (%s)", cudaGetErrorString(e), where);
}

#define CK(call, where)                                       \
    do {                                                      \
        const cudaError_t ck_ = (call);                       \
        if (ck_ != cudaSuccess) return gpu_fail(err, ck_, where); \
    } while (0)

/* The plan entry of the intra-task kernel has this instead of a config. */
constexpr int INTRA_CONFIG = -2;

/* Lengths up to max_length go to kernel `config`. */
struct plan_entry {
    uint32_t max_length;
    int config;
};

struct bucket {
    int plan;         /* index into the plan (and the statistics) */
    uint32_t first;   /* sequences first .. first + count - 1 */
    uint32_t count;
    uint64_t residues;
    uint64_t padded;
};

struct batch {
    uint32_t first;
    uint32_t count;
    uint64_t res_begin;
    uint64_t res_end;
    size_t first_bucket;
    size_t num_buckets;
};

/* How one kernel is launched in the current search. */
struct launch_shape {
    int threads;
    int blocks;     /* at most this many, for a full device */
    size_t smem;
    int ready;
};

/* Everything one query in flight owns. */
struct slot {
    int32_t *scores;
    uint32_t *overflow;
    uint64_t *cand_keys;
    uint32_t *cand_seqs;
    uint32_t *ctl;      /* see ctl_* below; the histogram follows */
    sw_gk_hit *out;
    uint32_t *host_ctl; /* pinned copies of ctl's head and of out */
    sw_gk_hit *host_out;
    int32_t *host_scores; /* host selection: pinned copy of every score */
    uint32_t *profile;    /* intra-task query profile, built on the GPU */
    size_t profile_cap;
    cudaEvent_t scan_start, scan_done, sel_done;
    cudaEvent_t *copy_events;   /* 2 per batch, batched mode */
    size_t num_copy_events;
    int busy;
    size_t query;
};

} /* namespace */

struct sw_gpu_engine {
    int device;
    int sms;
    size_t smem_optin;
    size_t budget;
    int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
    int gap_open, gap_extend;
    int max_score, min_score;
    size_t top_n;
    uint32_t sort_capacity;
    /* More hits than one block sorts: every score comes back and the host
     * selects (slower, but any N works). */
    int host_select;
    uint32_t *h_tiebreak;
    sw_gpu_engine_options opt;

    /* Residue codes with equal rows and columns share a class. */
    int class_of[SW_CODE_LIMIT];
    int class_rep[SW_CODE_LIMIT];
    int num_classes;

    plan_entry plan[SW_GPU_MAX_BUCKETS];
    size_t plan_size;
    int wide_config;

    cudaStream_t s_scan, s_sel, s_copy, s_bucket[MAX_STREAMS];
    int num_streams;
    cudaEvent_t ev_fork, ev_join[MAX_STREAMS];
    cudaEvent_t ev_copied[2], ev_buf_free[2];
    int buf_used[2];

    /* Database. */
    uint64_t num_seqs, num_residues;
    uint32_t longest;
    int resident;
    uint8_t *d_res;           /* resident: the whole database; else two batch buffers */
    uint8_t *d_batch[2];
    uint64_t batch_capacity;
    uint8_t *h_res;           /* batched: pinned copy */
    uint64_t *d_offsets;
    uint32_t *d_lengths, *d_tiebreak;
    int subject_col[SW_CODE_LIMIT]; /* class -> table column, -1 if absent */
    uint32_t subject_classes;       /* columns, padding included */
    uint8_t *d_subject_class;
    batch *batches;
    size_t num_batches;
    bucket *buckets;
    size_t num_buckets;

    slot slots[SLOTS];
    size_t ctl_words;

    /* Per search, grown as needed. */
    uint4 *d_table16, *d_table32;
    size_t table16_cap, table32_cap;
    uint8_t *d_query;
    size_t query_cap;
    uint2 *d_temp, *d_temp_wide;
    size_t temp_bytes, temp_wide_bytes;
    int multipass_groups, wide_groups;
    launch_shape shapes[64];

    /* Intra-task kernel: sequences longer than intra_threshold. */
    uint32_t intra_longest;           /* longest such sequence, 0 if none */
    uint32_t profile_words;           /* per class, for the longest query */
    uint2 *d_row_buffer;
    size_t row_buffer_bytes;
    uint32_t row_stride;
    int intra_grid;                   /* blocks that the row buffer serves */
    int intra_tile, intra_threads;    /* shape of the last launch, for the statistics */

    /* Timeline of the last search (opt.timeline; opt.profile times its
     * buckets with it): span i lies between
     * span_events[2i] and [2i + 1], timed from span_origin. */
    sw_gpu_span *spans;
    size_t num_spans, spans_cap;
    cudaEvent_t *span_events;
    size_t span_events_made;
    cudaEvent_t span_origin;
};

namespace {

int stream_index(const sw_gpu_engine *e, cudaStream_t st)
{
    if (st == e->s_scan) return 0;
    if (st == e->s_sel) return 1;
    if (st == e->s_copy) return 2;
    for (int i = 0; i < e->num_streams; ++i)
        if (st == e->s_bucket[i]) return SW_GPU_STREAM_BUCKET0 + i;
    return -1;
}

int spans_wanted(const sw_gpu_engine *e) { return e->opt.timeline || e->opt.profile; }

/* Opens a span of the timeline on `st` (nothing unless spans_wanted());
 * *id is what span_end() takes. */
int span_begin(sw_gpu_engine *e, int kind, cudaStream_t st, size_t query, int bucket, size_t *id, sw_error *err)
{
    *id = SIZE_MAX;
    if (!spans_wanted(e)) return SW_OK;
    if (e->num_spans == e->spans_cap) {
        const size_t cap = e->spans_cap ? 2 * e->spans_cap : 256;
        sw_gpu_span *spans = (sw_gpu_span *)realloc(e->spans, cap * sizeof *spans);
        if (!spans) return sw_error_set(err, SW_ENOMEM, "out of memory");
        e->spans = spans;
        cudaEvent_t *events = (cudaEvent_t *)realloc(e->span_events, 2 * cap * sizeof *events);
        if (!events) return sw_error_set(err, SW_ENOMEM, "out of memory");
        e->span_events = events;
        e->spans_cap = cap;
    }
    const size_t i = e->num_spans;
    for (; e->span_events_made < 2 * i + 2; ++e->span_events_made)
        CK(cudaEventCreate(&e->span_events[e->span_events_made]), "event");
    sw_gpu_span *sp = &e->spans[i];
    sp->kind = kind;
    sp->stream = stream_index(e, st);
    sp->query = query;
    sp->bucket = bucket;
    sp->start = sp->end = 0;
    CK(cudaEventRecord(e->span_events[2 * i], st), "cudaEventRecord");
    e->num_spans = i + 1;
    *id = i;
    return SW_OK;
}

int span_end(sw_gpu_engine *e, size_t id, cudaStream_t st, sw_error *err)
{
    if (id != SIZE_MAX) CK(cudaEventRecord(e->span_events[2 * id + 1], st), "cudaEventRecord");
    return SW_OK;
}

/* Times every span of the search once its work is done, and adds each
 * bucket kernel's time to bucket_seconds[its statistics bucket]. */
int collect_timeline(sw_gpu_engine *e, double *bucket_seconds, sw_error *err)
{
    for (size_t i = 0; i < e->num_spans; ++i) {
        float ms = 0;
        CK(cudaEventSynchronize(e->span_events[2 * i + 1]), "cudaEventSynchronize");
        CK(cudaEventElapsedTime(&ms, e->span_origin, e->span_events[2 * i]), "cudaEventElapsedTime");
        e->spans[i].start = ms * 1e-3;
        CK(cudaEventElapsedTime(&ms, e->span_origin, e->span_events[2 * i + 1]), "cudaEventElapsedTime");
        e->spans[i].end = ms * 1e-3;
        if (e->spans[i].bucket >= 0) bucket_seconds[e->spans[i].bucket] += e->spans[i].end - e->spans[i].start;
    }
    return SW_OK;
}

int find_config(int group_size, int columns, int multipass, int wide)
{
    for (int i = 0; i < sw_gk_num_configs(); ++i) {
        const sw_gk_config *c = sw_gk_get_config(i);
        if (c->group_size == group_size && c->columns == columns && c->multipass == multipass &&
            c->wide == wide)
            return i;
    }
    return -1;
}

/* Single-pass kernels up to `max_columns` per thread, the smallest group for
 * each width (fewer wavefront fill steps and shuffles per cell); beyond the
 * widest, multipass kernels. Blocks of 512 columns waste less padding than
 * blocks of 1024 just above 1024 residues. */
void make_plan(sw_gpu_engine *e)
{
    const uint32_t threshold = e->opt.intra_threshold;
    const int max_columns = e->opt.max_columns_per_thread;
    e->plan_size = 0;
    uint32_t widest = 0;
    for (;;) {
        int best = -1;
        uint32_t best_width = 0;
        for (int i = 0; i < sw_gk_num_configs(); ++i) {
            const sw_gk_config *c = sw_gk_get_config(i);
            if (c->multipass || c->wide || c->columns > max_columns) continue;
            const uint32_t w = (uint32_t)(c->group_size * c->columns);
            if (w <= widest) continue;
            if (best < 0 || w < best_width ||
                (w == best_width && c->group_size < sw_gk_get_config(best)->group_size)) {
                best = i;
                best_width = w;
            }
        }
        if (best < 0) break;
        e->plan[e->plan_size++] = plan_entry{best_width, best};
        widest = best_width;
    }
    const int mp16 = find_config(32, 16, 1, 0), mp32 = find_config(32, 32, 1, 0);
    if (max_columns >= 32) {
        if (widest < 1536) e->plan[e->plan_size++] = plan_entry{1536, mp16};
        e->plan[e->plan_size++] = plan_entry{UINT32_MAX, mp32};
    } else {
        e->plan[e->plan_size++] = plan_entry{UINT32_MAX, mp16};
    }
    e->wide_config = find_config(32, 16, 1, 1);
    if (threshold != SW_GPU_NO_INTRA) {
        /* Inter-task entries up to the threshold, then the intra-task kernel. */
        size_t keep = 0;
        while (keep < e->plan_size && e->plan[keep].max_length < threshold) ++keep;
        if (keep < e->plan_size) e->plan[keep++].max_length = threshold;
        e->plan_size = keep;
        e->plan[e->plan_size++] = plan_entry{UINT32_MAX, INTRA_CONFIG};
    }
}

void compute_classes(sw_gpu_engine *e)
{
    e->num_classes = 0;
    for (int a = 0; a < SW_CODE_LIMIT; ++a) {
        e->class_of[a] = -1;
        for (int c = 0; c < e->num_classes && e->class_of[a] < 0; ++c) {
            const int b = e->class_rep[c];
            int same = 1;
            for (int x = 0; x < SW_CODE_LIMIT && same; ++x)
                same = e->table[a * SW_CODE_LIMIT + x] == e->table[b * SW_CODE_LIMIT + x] &&
                       e->table[x * SW_CODE_LIMIT + a] == e->table[x * SW_CODE_LIMIT + b];
            if (same) e->class_of[a] = c;
        }
        if (e->class_of[a] < 0) {
            e->class_rep[e->num_classes] = a;
            e->class_of[a] = e->num_classes++;
        }
    }
}

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
    e->num_seqs = e->num_residues = 0;
    e->buf_used[0] = e->buf_used[1] = 0;
}

/* ctl of a slot: the SW_GK_CTL_* words, then per batch its overflow count
 * and the work counter of its 32-bit pass, then one work counter per bucket,
 * then the histogram. One memset clears it per query. */
size_t ctl_overflow(const sw_gpu_engine *e, size_t b) { (void)e; return SW_GK_CTL_WORDS + b; }
size_t ctl_wide_work(const sw_gpu_engine *e, size_t b) { return SW_GK_CTL_WORDS + e->num_batches + b; }
size_t ctl_bucket_work(const sw_gpu_engine *e, size_t k) { return SW_GK_CTL_WORDS + 2 * e->num_batches + k; }
size_t ctl_hist(const sw_gpu_engine *e) { return (SW_GK_CTL_WORDS + 2 * e->num_batches + e->num_buckets + 3) & ~(size_t)3; }
size_t ctl_head_words(const sw_gpu_engine *e) { return SW_GK_CTL_WORDS + e->num_batches; }

int alloc_slot(sw_gpu_engine *e, slot *s, sw_error *err)
{
    const size_t n = (size_t)e->num_seqs;
    CK(cudaMalloc(&s->scores, n * sizeof *s->scores), "scores");
    CK(cudaMalloc(&s->overflow, n * sizeof *s->overflow), "overflow list");
    CK(cudaMalloc(&s->cand_keys, n * sizeof *s->cand_keys), "candidates");
    CK(cudaMalloc(&s->cand_seqs, n * sizeof *s->cand_seqs), "candidates");
    CK(cudaMalloc(&s->ctl, e->ctl_words * 4), "counters");
    CK(cudaMalloc(&s->out, e->top_n * sizeof *s->out), "hits");
    /* All top_n entries come back, used or not: give the unused defined values. */
    CK(cudaMemset(s->out, 0, e->top_n * sizeof *s->out), "hits");
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

/* Splits the sorted sequences of each batch into runs that share a plan entry. */
int make_buckets(sw_gpu_engine *e, const uint32_t *lengths, sw_error *err)
{
    size_t cap = e->num_batches * e->plan_size;
    e->buckets = (bucket *)calloc(cap ? cap : 1, sizeof(bucket));
    if (!e->buckets) return sw_error_set(err, SW_ENOMEM, "out of memory");
    e->num_buckets = 0;
    for (size_t b = 0; b < e->num_batches; ++b) {
        batch *bt = &e->batches[b];
        bt->first_bucket = e->num_buckets;
        uint32_t s = bt->first;
        const uint32_t end = bt->first + bt->count;
        size_t pe = 0;
        while (s < end) {
            while (lengths[s] > e->plan[pe].max_length) ++pe;
            bucket *k = &e->buckets[e->num_buckets++];
            k->plan = (int)pe;
            k->first = s;
            if (e->plan[pe].config == INTRA_CONFIG) {
                /* Pairs, each padded to its longer subject. */
                while (s < end) {
                    k->residues += lengths[s];
                    if (((s - k->first) & 1) == 1) k->padded += 2 * (uint64_t)lengths[s];
                    if (lengths[s] > e->intra_longest) e->intra_longest = lengths[s];
                    ++s;
                }
                if (((s - k->first) & 1) == 1) k->padded += 2 * (uint64_t)lengths[s - 1];
                k->count = s - k->first;
                continue;
            }
            const sw_gk_config *c = sw_gk_get_config(e->plan[pe].config);
            const uint64_t block = (uint64_t)c->group_size * c->columns;
            uint32_t longest = 0;
            while (s < end && lengths[s] <= e->plan[pe].max_length) {
                k->residues += lengths[s];
                longest = lengths[s];
                /* A pair costs what its longer subject needs; the shorter
                 * one is padded to it. */
                if (((s - k->first) & 1) == 1) {
                    const uint64_t passes = c->multipass ? (lengths[s] + block - 1) / block : 1;
                    k->padded += 2 * passes * block;
                }
                ++s;
            }
            if (((s - k->first) & 1) == 1) {
                const uint64_t passes = c->multipass ? (longest + block - 1) / block : 1;
                k->padded += 2 * passes * block;
            }
            k->count = s - k->first;
        }
        bt->num_buckets = e->num_buckets - bt->first_bucket;
    }
    return SW_OK;
}

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
    CK(sw_gk_align_prepare(id, smem), "cudaFuncSetAttribute");
    int best_warps = 0;
    for (int threads = 128; threads <= 512; threads *= 2) {
        int blocks = 0;
        CK(sw_gk_align_occupancy(id, threads, smem, &blocks), "occupancy");
        const int warps = blocks * threads / 32;
        if (warps >= best_warps && blocks > 0) {
            best_warps = warps;
            ls->threads = threads;
            ls->blocks = blocks * e->sms;
        }
    }
    if (best_warps == 0)
        return sw_error_set(err, SW_ELIMIT, "GPU: alignment kernel %d cannot run with %zu bytes of shared memory",
                            id, smem);
    ls->smem = smem;
    ls->ready = 1;
    return SW_OK;
}

int ensure(void **ptr, size_t *cap, size_t need, const char *what, sw_error *err)
{
    if (need <= *cap) return SW_OK;
    cudaFree(*ptr);
    *ptr = nullptr;
    *cap = 0;
    CK(cudaMalloc(ptr, need), what);
    *cap = need;
    return SW_OK;
}

} /* namespace */

extern "C" int sw_gpu_engine_create(int device, const sw_scoring *scoring, size_t top_n,
                                    const sw_gpu_engine_options *opt, sw_gpu_engine **out,
                                    sw_error *err)
{
    *out = nullptr;
    if (!scoring || !scoring->table || scoring->gap_open < 0 || scoring->gap_extend < 1 ||
        scoring->gap_open > 255 || scoring->gap_extend > 255)
        return sw_error_set(err, SW_EINVAL, "GPU engine: invalid scoring");
    int count = 0;
    cudaError_t ce = cudaGetDeviceCount(&count);
    if (ce != cudaSuccess || count == 0) {
        cudaGetLastError();
        return sw_error_set(err, SW_ENODEV, "no usable GPU: %s",
                            ce != cudaSuccess ? cudaGetErrorString(ce) : "no CUDA device found");
    }
    if (device < 0 || device >= count)
        return sw_error_set(err, SW_ENODEV, "no GPU %d: %d found", device, count);

    sw_gpu_engine *e = (sw_gpu_engine *)calloc(1, sizeof *e);
    if (!e) return sw_error_set(err, SW_ENOMEM, "out of memory");
    if (opt) e->opt = *opt;
    /* 24 measured fastest on the H100 for the Swiss-Prot-like benchmark:
     * wider kernels need so many registers that too few warps stay resident. */
    if (e->opt.max_columns_per_thread <= 0) e->opt.max_columns_per_thread = 24;
    if (e->opt.max_columns_per_thread > 32) e->opt.max_columns_per_thread = 32;
    if (e->opt.max_columns_per_thread < 16) e->opt.max_columns_per_thread = 16;
    if (e->opt.intra_threshold == 0) e->opt.intra_threshold = SW_GPU_DEFAULT_THRESHOLD;
    e->num_streams = e->opt.bucket_streams > 0 ? e->opt.bucket_streams : DEFAULT_STREAMS;
    if (e->num_streams > MAX_STREAMS) e->num_streams = MAX_STREAMS;
    if (e->opt.profile) e->num_streams = 1;
    if (e->opt.device_launch && !sw_gk_device_launch_compiled()) {
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

    int rc = SW_OK;
    do {
        cudaDeviceProp prop;
        if ((ce = cudaSetDevice(device)) != cudaSuccess) { rc = gpu_fail(err, ce, "cudaSetDevice"); break; }
        if ((ce = cudaGetDeviceProperties(&prop, device)) != cudaSuccess) {
            rc = gpu_fail(err, ce, "cudaGetDeviceProperties");
            break;
        }
        e->sms = prop.multiProcessorCount;
        e->smem_optin = prop.sharedMemPerBlockOptin;
        size_t free_bytes = 0, total_bytes = 0;
        if ((ce = cudaMemGetInfo(&free_bytes, &total_bytes)) != cudaSuccess) {
            rc = gpu_fail(err, ce, "cudaMemGetInfo");
            break;
        }
        /* Leave room for other users of the GPU and the CUDA context. */
        size_t reserve = total_bytes / 20 > ((size_t)256 << 20) ? total_bytes / 20 : (size_t)256 << 20;
        e->budget = free_bytes > reserve ? free_bytes - reserve : free_bytes / 2;
        if (e->opt.max_device_bytes && e->opt.max_device_bytes < e->budget) e->budget = e->opt.max_device_bytes;

        if (top_n) {
            uint32_t cap = 1024;
            while (cap < 2 * top_n && cap < (1u << 24)) cap <<= 1;
            while (cap >= 2 * 1024 && cap / 2 >= top_n && sw_gk_select_smem(cap) > e->smem_optin) cap >>= 1;
            e->host_select = cap < top_n || sw_gk_select_smem(cap) > e->smem_optin;
            e->sort_capacity = cap;
            if (!e->host_select && (ce = sw_gk_select_prepare(sw_gk_select_smem(cap))) != cudaSuccess) {
                rc = gpu_fail(err, ce, "cudaFuncSetAttribute");
                break;
            }
        }
        const unsigned flags = cudaStreamNonBlocking;
        if ((ce = cudaStreamCreateWithFlags(&e->s_scan, flags)) != cudaSuccess ||
            (ce = cudaStreamCreateWithFlags(&e->s_sel, flags)) != cudaSuccess ||
            (ce = cudaStreamCreateWithFlags(&e->s_copy, flags)) != cudaSuccess) {
            rc = gpu_fail(err, ce, "cudaStreamCreate");
            break;
        }
        for (int i = 0; i < e->num_streams && ce == cudaSuccess; ++i) {
            ce = cudaStreamCreateWithFlags(&e->s_bucket[i], flags);
            if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&e->ev_join[i], cudaEventDisableTiming);
        }
        if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&e->ev_fork, cudaEventDisableTiming);
        for (int i = 0; i < 2 && ce == cudaSuccess; ++i) {
            ce = cudaEventCreateWithFlags(&e->ev_copied[i], cudaEventDisableTiming);
            if (ce == cudaSuccess) ce = cudaEventCreateWithFlags(&e->ev_buf_free[i], cudaEventDisableTiming);
        }
        if (ce != cudaSuccess) {
            rc = gpu_fail(err, ce, "streams and events");
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

extern "C" int sw_gpu_engine_timeline(const sw_gpu_engine *e, const sw_gpu_span **spans, size_t *count,
                                      sw_error *err)
{
    *spans = nullptr;
    *count = 0;
    if (!e || !e->opt.timeline) return sw_error_set(err, SW_EINVAL, "GPU engine: no timeline was asked for");
    *spans = e->spans;
    *count = e->num_spans;
    return SW_OK;
}

extern "C" const char *sw_gpu_span_name(int kind)
{
    static const char *const names[] = {"profile", "inter", "intra", "wide", "select", "upload", "download",
                                        "launcher"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "?";
}

extern "C" int sw_gpu_engine_device_launch_available(void) { return sw_gk_device_launch_compiled(); }

extern "C" void sw_gpu_engine_free(sw_gpu_engine *e)
{
    if (!e) return;
    cudaSetDevice(e->device);
    if (e->s_scan) cudaStreamSynchronize(e->s_scan);
    if (e->s_sel) cudaStreamSynchronize(e->s_sel);
    if (e->s_copy) cudaStreamSynchronize(e->s_copy);
    for (int i = 0; i < e->num_streams; ++i)
        if (e->s_bucket[i]) cudaStreamSynchronize(e->s_bucket[i]);
    free_db(e);
    cudaFree(e->d_table16);
    cudaFree(e->d_table32);
    cudaFree(e->d_query);
    cudaFree(e->d_temp);
    cudaFree(e->d_temp_wide);
    cudaFree(e->d_row_buffer);
    for (int i = 0; i < e->num_streams; ++i) {
        if (e->s_bucket[i]) cudaStreamDestroy(e->s_bucket[i]);
        if (e->ev_join[i]) cudaEventDestroy(e->ev_join[i]);
    }
    if (e->ev_fork) cudaEventDestroy(e->ev_fork);
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

extern "C" int sw_gpu_engine_set_db(sw_gpu_engine *e, const uint8_t *residues, const uint32_t *lengths,
                                    const uint32_t *tiebreak, uint64_t num_seqs, sw_error *err)
{
    if (!e || (num_seqs && (!lengths || !tiebreak))) return sw_error_set(err, SW_EINVAL, "GPU engine: invalid database");
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
    if (total && !residues) return sw_error_set(err, SW_EINVAL, "GPU engine: invalid database");
    uint64_t seen[SW_CODE_LIMIT] = {0};
    {
        /* Four tallies break the store-to-load chain on runs of one code. */
        uint64_t t4[4][256];
        memset(t4, 0, sizeof t4);
        uint64_t i = 0;
        for (; i + 4 <= total; i += 4) {
            t4[0][residues[i]]++;
            t4[1][residues[i + 1]]++;
            t4[2][residues[i + 2]]++;
            t4[3][residues[i + 3]]++;
        }
        for (; i < total; ++i) t4[0][residues[i]]++;
        for (int c = 0; c < 256; ++c) {
            const uint64_t n = t4[0][c] + t4[1][c] + t4[2][c] + t4[3][c];
            if (n && c >= SW_CODE_LIMIT)
                return sw_error_set(err, SW_EINVAL, "GPU engine: residue code %d in the database", c);
            if (n) seen[c] = n;
        }
    }
    /* Table columns: the classes that occur, then the padding column. */
    int cols = 0;
    for (int c = 0; c < SW_CODE_LIMIT; ++c) e->subject_col[c] = -1;
    for (int c = 0; c < SW_CODE_LIMIT; ++c)
        if (seen[c] && e->subject_col[e->class_of[c]] < 0) e->subject_col[e->class_of[c]] = cols++;
    e->subject_classes = (uint32_t)cols + 1;
    uint8_t subject_class[SW_CODE_LIMIT];
    for (int c = 0; c < SW_CODE_LIMIT; ++c) {
        const int col = e->subject_col[e->class_of[c]];
        subject_class[c] = (uint8_t)(col >= 0 ? col : cols);
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

    /* Residency: the database stays on the GPU when it fits beside the
     * per-sequence arrays and a reserve for the working buffers of a search;
     * otherwise two batch buffers share what is left. */
    const uint64_t per_seq = 16 + SLOTS * 20;
    const uint64_t fixed = num_seqs * per_seq;
    const uint64_t reserve = e->budget / 4 < ((uint64_t)1 << 30) ? e->budget / 4 : (uint64_t)1 << 30;
    e->resident = fixed + total + reserve <= e->budget;
    int rc = SW_OK;
    do {
        if (e->resident) {
            e->num_batches = 1;
            e->batches = (batch *)calloc(1, sizeof(batch));
            if (!e->batches) { rc = sw_error_set(err, SW_ENOMEM, "out of memory"); break; }
            e->batches[0] = batch{0, (uint32_t)num_seqs, 0, total, 0, 0};
        } else {
            const uint64_t room = e->budget > fixed + reserve ? e->budget - fixed - reserve : 0;
            uint64_t cap = room / 2;
            if (cap < e->longest) cap = e->longest;
            if (cap < 1) cap = 1;
            e->batch_capacity = cap;
            size_t nb = 0;
            for (uint64_t i = 0; i < num_seqs;) {
                uint64_t bytes = 0;
                while (i < num_seqs && bytes + lengths[i] <= cap) bytes += lengths[i++];
                ++nb;
            }
            e->batches = (batch *)calloc(nb ? nb : 1, sizeof(batch));
            if (!e->batches) { rc = sw_error_set(err, SW_ENOMEM, "out of memory"); break; }
            for (uint64_t i = 0; i < num_seqs;) {
                batch *b = &e->batches[e->num_batches++];
                b->first = (uint32_t)i;
                b->res_begin = offsets[i];
                uint64_t bytes = 0;
                while (i < num_seqs && bytes + lengths[i] <= cap) bytes += lengths[i++];
                b->count = (uint32_t)i - b->first;
                b->res_end = b->res_begin + bytes;
            }
        }
        if ((rc = make_buckets(e, lengths, err)) != SW_OK) break;
        e->ctl_words = ctl_hist(e) + SW_GK_HIST_BINS;

        cudaError_t ce = cudaSuccess;
        const size_t n = (size_t)(num_seqs ? num_seqs : 1);
#define SETDB_CK(call, where) if ((ce = (call)) != cudaSuccess) { rc = gpu_fail(err, ce, where); break; }
        SETDB_CK(cudaMalloc(&e->d_offsets, n * 8), "database offsets");
        SETDB_CK(cudaMalloc(&e->d_lengths, n * 4), "database lengths");
        SETDB_CK(cudaMalloc(&e->d_tiebreak, n * 4), "database tie-breaks");
        SETDB_CK(cudaMalloc(&e->d_subject_class, SW_CODE_LIMIT), "residue classes");
        SETDB_CK(cudaMemcpy(e->d_offsets, offsets, num_seqs * 8, cudaMemcpyHostToDevice), "upload offsets");
        SETDB_CK(cudaMemcpy(e->d_lengths, lengths, num_seqs * 4, cudaMemcpyHostToDevice), "upload lengths");
        SETDB_CK(cudaMemcpy(e->d_tiebreak, tiebreak, num_seqs * 4, cudaMemcpyHostToDevice), "upload tie-breaks");
        if (e->host_select) {
            e->h_tiebreak = (uint32_t *)malloc(n * 4);
            if (!e->h_tiebreak) { rc = sw_error_set(err, SW_ENOMEM, "out of memory"); break; }
            memcpy(e->h_tiebreak, tiebreak, num_seqs * 4);
        }
        SETDB_CK(cudaMemcpy(e->d_subject_class, subject_class, SW_CODE_LIMIT, cudaMemcpyHostToDevice),
                 "upload residue classes");
        if (e->resident) {
            SETDB_CK(cudaMalloc(&e->d_res, total ? total : 1), "database residues");
            SETDB_CK(cudaMemcpy(e->d_res, residues, total, cudaMemcpyHostToDevice), "upload residues");
        } else {
            SETDB_CK(cudaMallocHost(&e->h_res, total), "pinned database");
            memcpy(e->h_res, residues, total);
            SETDB_CK(cudaMalloc(&e->d_batch[0], e->batch_capacity), "batch buffer");
            SETDB_CK(cudaMalloc(&e->d_batch[1], e->batch_capacity), "batch buffer");
        }
#undef SETDB_CK
        if (ce != cudaSuccess) break;
        for (int i = 0; i < SLOTS && rc == SW_OK; ++i) rc = alloc_slot(e, &e->slots[i], err);
    } while (0);
    free(offsets);
    if (rc != SW_OK) free_db(e);
    return rc;
}

namespace {

struct search_ctx {
    uint32_t query_rows;             /* table rows, padding row last */
    int row_of_code[SW_CODE_LIMIT];
    size_t *query_offset;            /* into d_query, first real row */
    uint32_t table16_words, table32_words;
    size_t smem16, smem32;
    int limit;
    uint32_t temp_rows;
    double kernel_seconds, transfer_seconds;
    uint64_t recomputed;
    double bucket_seconds[SW_GPU_MAX_BUCKETS];
};

int score_of(const sw_gpu_engine *e, const search_ctx *c, int row, int col, int pad)
{
    if (row == (int)c->query_rows - 1 || col == (int)e->subject_classes - 1) return pad;
    int qcode = -1, scode = -1;
    for (int x = 0; x < SW_CODE_LIMIT; ++x) {
        if (qcode < 0 && c->row_of_code[x] == row) qcode = x;
        if (scode < 0 && e->subject_col[e->class_of[x]] == col) scode = x;
    }
    return e->table[qcode * SW_CODE_LIMIT + scode];
}

/* Tables for this search: rows are the residue classes of the queries plus a
 * padding row, columns the classes of the database plus a padding column.
 * The 32-bit table is one word per score. The 16-bit table repeats every
 * score 32 times, once per lane, so that the loads of a warp never collide
 * in a shared-memory bank (random lookups into one shared table cost almost
 * four bank cycles per load). */
int build_tables(sw_gpu_engine *e, search_ctx *c, const uint8_t *const *queries, const size_t *lens,
                 size_t nq, sw_error *err)
{
    int row_of_class[SW_CODE_LIMIT];
    for (int i = 0; i < SW_CODE_LIMIT; ++i) row_of_class[i] = -1;
    int rows = 0;
    for (size_t q = 0; q < nq; ++q)
        for (size_t i = 0; i < lens[q]; ++i) {
            const uint8_t code = queries[q][i];
            if (code >= SW_CODE_LIMIT)
                return sw_error_set(err, SW_EINVAL, "GPU engine: residue code %d in query %zu", code, q);
            if (row_of_class[e->class_of[code]] < 0) row_of_class[e->class_of[code]] = rows++;
        }
    c->query_rows = (uint32_t)rows + 1;
    for (int x = 0; x < SW_CODE_LIMIT; ++x) {
        const int r = row_of_class[e->class_of[x]];
        c->row_of_code[x] = r;
    }
    /* Padding scores are <= 0 (see align_kernel). */
    const int pad = e->min_score < 0 ? e->min_score : 0;
    const uint32_t sc = e->subject_classes;
    c->table16_words = c->query_rows * sc * 32;
    c->table32_words = (c->query_rows * sc + 3) & ~3u;
    c->smem16 = sw_gk_align_smem(c->table16_words);
    c->smem32 = sw_gk_align_smem(c->table32_words);
    c->limit = 32767 - e->max_score;

    uint32_t *t16 = (uint32_t *)calloc(c->table16_words + c->table32_words, 4);
    if (!t16) return sw_error_set(err, SW_ENOMEM, "out of memory");
    uint32_t *t32 = t16 + c->table16_words;
    int *s = (int *)malloc((size_t)c->query_rows * sc * sizeof(int));
    if (!s) {
        free(t16);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    for (uint32_t r = 0; r < c->query_rows; ++r)
        for (uint32_t a = 0; a < sc; ++a) s[r * sc + a] = score_of(e, c, (int)r, (int)a, pad);
    for (uint32_t r = 0; r < c->query_rows; ++r)
        for (uint32_t a = 0; a < sc; ++a)
            for (uint32_t lane = 0; lane < 32; ++lane) t16[(r * sc + a) * 32 + lane] = (uint16_t)s[r * sc + a];
    for (uint32_t r = 0; r < c->query_rows; ++r)
        for (uint32_t a = 0; a < sc; ++a) t32[r * sc + a] = (uint32_t)s[r * sc + a];
    free(s);

    /* Queries, each between SW_GK_QUERY_PAD padding rows. */
    size_t total = SW_GK_QUERY_PAD;
    for (size_t q = 0; q < nq; ++q) total += lens[q] + SW_GK_QUERY_PAD;
    uint8_t *rows_host = (uint8_t *)malloc(total);
    if (!rows_host) {
        free(t16);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    const uint8_t pad_row = (uint8_t)(c->query_rows - 1);
    memset(rows_host, pad_row, total);
    size_t at = SW_GK_QUERY_PAD;
    for (size_t q = 0; q < nq; ++q) {
        c->query_offset[q] = at;
        for (size_t i = 0; i < lens[q]; ++i) rows_host[at + i] = (uint8_t)c->row_of_code[queries[q][i]];
        at += lens[q] + SW_GK_QUERY_PAD;
    }
    int rc = SW_OK;
    cudaError_t ce;
    if ((rc = ensure((void **)&e->d_table16, &e->table16_cap, c->table16_words * 4, "substitution table", err)) ||
        (rc = ensure((void **)&e->d_table32, &e->table32_cap, c->table32_words * 4, "substitution table", err)) ||
        (rc = ensure((void **)&e->d_query, &e->query_cap, total, "queries", err))) {
    } else if ((ce = cudaMemcpy(e->d_table16, t16, c->table16_words * 4, cudaMemcpyHostToDevice)) != cudaSuccess ||
               (ce = cudaMemcpy(e->d_table32, t32, c->table32_words * 4, cudaMemcpyHostToDevice)) != cudaSuccess ||
               (ce = cudaMemcpy(e->d_query, rows_host, total, cudaMemcpyHostToDevice)) != cudaSuccess) {
        rc = gpu_fail(err, ce, "upload tables and queries");
    }
    free(rows_host);
    free(t16);
    return rc;
}

/* Column buffers of the multipass kernels, one pair per resident group. The
 * grid shrinks if a full one would not fit in the search's share of memory. */
int prepare_temp(sw_gpu_engine *e, search_ctx *c, sw_error *err)
{
    const size_t per_group = (size_t)2 * c->temp_rows * sizeof(uint2);
    const size_t share = e->budget / 8 > ((size_t)64 << 20) ? e->budget / 8 : (size_t)64 << 20;
    int groups = 0;
    for (size_t p = 0; p < e->plan_size; ++p) {
        const int id = e->plan[p].config;
        if (id == INTRA_CONFIG) continue;
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

/* Shape of the intra-task kernel for a query of `qlen` residues.
 * Tile height: 16 rows per thread halves the per-row costs that are paid
 * per lane and step (shuffles, ring traffic, class loads) against 8, but a
 * row block then covers 512 query rows; 16 is taken once the padding of
 * the last row block stays under a quarter of the query.
 * Warps per block: one per row block up to 2. More warps lengthen the
 * wavefront's fill (WARP_LAG steps per warp) and the wait of a strip for
 * the one above, while the multiprocessor is kept busy by several blocks at
 * once anyway (H100, Swiss-Prot-like, intra-task above 768: 2 warps 2.41 s,
 * 4 warps 2.47 s, 8 warps 2.71 s).
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
        if (e->opt.intra_tile && tile != e->opt.intra_tile) continue;
        const size_t rows = 32 * (size_t)tile;
        const size_t row_blocks = (qlen + rows - 1) / rows;
        if (tile == 16 && !e->opt.intra_tile && row_blocks * rows * 4 > qlen * 5) continue;
        int warps = row_blocks < 2 ? (int)row_blocks : 2;
        if (e->opt.intra_warps) warps = e->opt.intra_warps < 16 ? e->opt.intra_warps : 16;
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
    const size_t share = e->budget / 8 > ((size_t)64 << 20) ? e->budget / 8 : (size_t)64 << 20;
    if ((size_t)grid * per_block > share) grid = (int)(share / per_block) > 0 ? (int)(share / per_block) : 1;
    e->intra_grid = grid;
    return ensure((void **)&e->d_row_buffer, &e->row_buffer_bytes, (size_t)grid * per_block + 16, "row buffers", err);
}

/* The intra-task launch of bucket `bk` for one query. */
int describe_intra(sw_gpu_engine *e, const search_ctx *c, slot *s, const bucket *bk, size_t kb, const batch *bt,
                   const uint8_t *res, size_t qlen, sw_gk_child_launch *out, sw_error *err)
{
    intra_shape sh;
    int rc = choose_intra_shape(e, qlen, &sh, err);
    if (rc) return rc;
    sw_gk_intra_params &p = out->p.intra;
    p.residues = res;
    p.residue_base = bt->res_begin;
    p.offsets = e->d_offsets;
    p.lengths = e->d_lengths;
    p.first = bk->first;
    p.count = bk->count;
    p.profile = s->profile;
    p.profile_words = e->profile_words;
    p.query_len = (uint32_t)qlen;
    p.subject_class = e->d_subject_class;
    p.subject_classes = e->subject_classes;
    p.gap_open = e->gap_open;
    p.gap_extend = e->gap_extend;
    p.limit = c->limit;
    p.scores = s->scores;
    p.work = s->ctl + ctl_bucket_work(e, kb);
    p.overflow = s->overflow + bt->first;
    p.overflow_count = s->ctl + ctl_overflow(e, (size_t)(bt - e->batches));
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

sw_gk_align_params base_params(const sw_gpu_engine *e, const search_ctx *c, size_t q_offset, size_t qlen,
                               const slot *s)
{
    sw_gk_align_params p;
    memset(&p, 0, sizeof p);
    p.offsets = e->d_offsets;
    p.lengths = e->d_lengths;
    p.query = e->d_query + q_offset;
    p.query_len = (uint32_t)qlen;
    p.subject_class = e->d_subject_class;
    p.subject_classes = e->subject_classes;
    p.gap_open = e->gap_open;
    p.gap_extend = e->gap_extend;
    p.limit = c->limit;
    p.scores = s->scores;
    p.temp_rows = c->temp_rows;
    p.unit = 1;
    p.high_lane = 65536;
    return p;
}

/* The 32-bit pass over the sequences of batch `b` that the 16-bit kernels
 * flagged; the count stays on the GPU, so the launch is sized for the worst
 * and idle groups leave at once. */
int launch_wide(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t b, const uint8_t *res, size_t q_offset,
                size_t qlen, cudaStream_t stream, sw_error *err)
{
    const batch *bt = &e->batches[b];
    sw_gk_align_params p = base_params(e, c, q_offset, qlen, s);
    p.residues = res;
    p.residue_base = bt->res_begin;
    p.list = s->overflow + bt->first;
    p.list_count = s->ctl + ctl_overflow(e, b);
    p.table = e->d_table32;
    p.table_words = c->table32_words;
    p.work = s->ctl + ctl_wide_work(e, b);
    p.temp = e->d_temp_wide;
    const launch_shape *ls = &e->shapes[e->wide_config];
    size_t span;
    int rc = span_begin(e, SW_GPU_SPAN_WIDE, stream, s->query, -1, &span, err);
    if (rc) return rc;
    CK(sw_gk_align_launch(e->wide_config, e->wide_groups / (ls->threads / 32), ls->threads, c->smem32, stream, &p),
       "32-bit alignment kernel");
    return span_end(e, span, stream, err);
}

/* The launch of bucket `kb` of batch `bt` for one query. */
int describe_bucket(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t kb, const batch *bt, const uint8_t *res,
                    size_t q_offset, size_t qlen, sw_gk_child_launch *out, sw_error *err)
{
    memset(out, 0, sizeof *out);
    const bucket *bk = &e->buckets[kb];
    const int id = e->plan[bk->plan].config;
    if (id == INTRA_CONFIG) return describe_intra(e, c, s, bk, kb, bt, res, qlen, out, err);
    const sw_gk_config *cf = sw_gk_get_config(id);
    const launch_shape *ls = &e->shapes[id];
    sw_gk_align_params &p = out->p.align;
    p = base_params(e, c, q_offset, qlen, s);
    p.residues = res;
    p.residue_base = bt->res_begin;
    p.first = bk->first;
    p.count = bk->count;
    p.table = e->d_table16;
    p.table_words = c->table16_words;
    p.work = s->ctl + ctl_bucket_work(e, kb);
    p.overflow = s->overflow + bt->first;
    p.overflow_count = s->ctl + ctl_overflow(e, (size_t)(bt - e->batches));
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

/* Every bucket of batch `b` for one query. Buckets go out longest first over
 * the bucket streams, so short ones fill the multiprocessors that the long
 * ones leave idle at their end; multipass buckets share one stream, and so
 * their column buffers; the intra-task kernel has a stream of its own. */
int launch_buckets(sw_gpu_engine *e, const search_ctx *c, slot *s, size_t b, const uint8_t *res, size_t q_offset,
                   size_t qlen, cudaStream_t join, sw_error *err)
{
    if (e->opt.device_launch) return launch_buckets_on_device(e, c, s, b, res, q_offset, qlen, err);
    const batch *bt = &e->batches[b];
    const int ns = e->num_streams;
    if (ns > 1) {
        CK(cudaEventRecord(e->ev_fork, e->s_scan), "cudaEventRecord");
        for (int i = 0; i < ns; ++i) CK(cudaStreamWaitEvent(e->s_bucket[i], e->ev_fork, 0), "cudaStreamWaitEvent");
    }
    int next = 1 % ns;
    for (size_t k = bt->num_buckets; k-- > 0;) {
        const size_t kb = bt->first_bucket + k;
        sw_gk_child_launch ch;
        int rc = describe_bucket(e, c, s, kb, bt, res, q_offset, qlen, &ch, err);
        if (rc) return rc;
        cudaStream_t st = e->s_scan;
        if (ns > 1) {
            if (ch.intra) st = e->s_bucket[0];
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
        if (ch.intra) CK(sw_gk_intra_launch(ch.id, ch.blocks, ch.threads, ch.smem, st, &ch.p.intra), "intra-task kernel");
        else CK(sw_gk_align_launch(ch.id, ch.blocks, ch.threads, ch.smem, st, &ch.p.align), "alignment kernel");
        if ((rc = span_end(e, span, st, err))) return rc;
    }
    if (ns > 1) {
        for (int i = 0; i < ns; ++i) {
            CK(cudaEventRecord(e->ev_join[i], e->s_bucket[i]), "cudaEventRecord");
            CK(cudaStreamWaitEvent(join, e->ev_join[i], 0), "cudaStreamWaitEvent");
        }
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
        return gpu_fail(err, (cudaError_t)s->host_ctl[SW_GK_CTL_LAUNCH_ERROR], "device-side launch");
    for (size_t b = 0; b < e->num_batches; ++b) c->recomputed += s->host_ctl[ctl_overflow(e, b)];
    sw_gpu_hit *h = hits + s->query * e->top_n;
    if (e->host_select) return select_on_host(e, s->host_scores, h, &counts[s->query], err);
    const size_t n = s->host_ctl[SW_GK_CTL_OUT_COUNT];
    for (size_t i = 0; i < n; ++i) {
        h[i].score = s->host_out[i].score;
        h[i].seq = s->host_out[i].seq;
    }
    counts[s->query] = n;
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
    const cudaStream_t join = e->resident && e->num_streams > 1 && !e->opt.device_launch ? e->s_sel : e->s_scan;
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
        pp.words = e->profile_words;
        pp.profile = s->profile;
        if ((rc = span_begin(e, SW_GPU_SPAN_PROFILE, e->s_scan, q, -1, &span, err))) return rc;
        CK(sw_gk_profile_launch(e->sms, e->s_scan, &pp), "query profile kernel");
        if ((rc = span_end(e, span, e->s_scan, err))) return rc;
    }
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

extern "C" int sw_gpu_engine_search(sw_gpu_engine *e, const uint8_t *const *queries,
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
     * arithmetic below their "minus infinity". */
    const uint64_t shorter = longest_query < e->longest ? longest_query : e->longest;
    if (e->max_score > 0 && shorter > ((uint64_t)1 << 30) / (uint64_t)e->max_score)
        return sw_error_set(err, SW_ELIMIT, "GPU engine: sequences too long for exact 32-bit scores");
    if (longest_query > ((size_t)1 << 30))
        return sw_error_set(err, SW_ELIMIT, "GPU engine: query of %zu residues is too long", longest_query);

    int rc = SW_OK;
    CK(cudaSetDevice(e->device), "cudaSetDevice");
    if (num_queries && e->num_seqs && e->top_n) {
        c.query_offset = (size_t *)malloc(num_queries * sizeof *c.query_offset);
        if (!c.query_offset) return sw_error_set(err, SW_ENOMEM, "out of memory");
        c.temp_rows = (uint32_t)(longest_query > 0 ? longest_query : 1);
        do {
            if ((rc = build_tables(e, &c, queries, query_lengths, num_queries, err))) break;
            for (size_t p = 0; p < e->plan_size && !rc; ++p)
                if (e->plan[p].config != INTRA_CONFIG) rc = prepare_kernel(e, e->plan[p].config, c.smem16, err);
            if (!rc) rc = prepare_kernel(e, e->wide_config, c.smem32, err);
            if (!rc && e->intra_longest) rc = prepare_intra(e, query_lengths, num_queries, err);
            if (!rc) rc = prepare_temp(e, &c, err);
            if (rc) break;
            e->num_spans = 0;
            if (spans_wanted(e)) {
                cudaError_t ce = cudaSuccess;
                if (!e->span_origin) ce = cudaEventCreate(&e->span_origin);
                if (ce == cudaSuccess) ce = cudaEventRecord(e->span_origin, e->s_scan);
                if (ce != cudaSuccess) {
                    rc = gpu_fail(err, ce, "timeline event");
                    break;
                }
            }
            size_t batch_counter = 0;
            for (size_t q = 0; q < num_queries && !rc; ++q) {
                slot *s = &e->slots[q % SLOTS];
                /* Collect the query that used this slot before reusing it
                 * (its scores and counters get overwritten); the query just
                 * before keeps the GPU busy meanwhile. */
                rc = finish_slot(e, &c, s, hits, counts, err);
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
