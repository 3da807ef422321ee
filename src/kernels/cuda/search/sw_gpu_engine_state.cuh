/* The GPU engine's state, shared by the parts of its host side (private):
 * the engine record, its buffers per query in flight, and the helpers they
 * all use. sw_gpu_engine.h is the public interface. */
#ifndef SW_GPU_ENGINE_STATE_CUH
#define SW_GPU_ENGINE_STATE_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "sw_cuda_check.h"
#include "sw_gpu_engine.h"
#include "sw_gpu_tuning.h"
#include "sw_gpu_kernels.cuh"

/* What the engine's CUDA errors say they come from. */
#define SW_GPU_WHO "GPU"
#define CK(call, where) SW_CUDA_CHECK(call, SW_GPU_WHO, where)

namespace sw_gpu_detail {

/* Queries in flight: query k + 1 scans while the top-N of query k is
 * selected and downloaded, and query k + 2 is already launched, so that its
 * blocks are queued when query k + 1's last blocks leave multiprocessors
 * idle (with the two streams of the query-across-threads launches, see
 * launch_buckets; see bench/JOURNAL.md, 2026-11-26, the next query's launch
 * queued on a second stream). */
constexpr int SLOTS = 3;
constexpr int MAX_STREAMS = 8;

/* The plan entry of the intra-task kernel has this instead of a config. */
constexpr int INTRA_CONFIG = -2;
/* ... and that of the kernels with the query across the threads, whose
 * shape each query chooses (choose_qp_shape). */
constexpr int QP_CONFIG = -3;

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
    uint32_t *qp_profile; /* profile of the kernels with the query across the threads */
    size_t qp_profile_cap;
    uint32_t *qp_giant_profile; /* and of their launch for the longest sequences (opt.qp_giants) */
    size_t qp_giant_profile_cap;
    cudaEvent_t scan_start, scan_done, sel_done;
    cudaEvent_t *copy_events;   /* 2 per batch, batched mode */
    size_t num_copy_events;
    int busy;
    size_t query;
};

/* Per search. */
struct search_ctx {
    uint32_t query_rows;             /* table rows, padding row last */
    int row_of_code[SW_CODE_LIMIT];
    size_t *query_offset;            /* into d_query, first real row */
    /* PSSM queries: words into d_pssm of the first real row (rows of
     * subject_classes words, SW_GK_QUERY_PAD padding rows either side);
     * SIZE_MAX for a query scored through the table. NULL: no PSSM. */
    size_t *pssm_offset;
    uint32_t table16_words, table32_words;
    size_t smem16, smem32;
    int limit;
    uint32_t temp_rows;
    double kernel_seconds, transfer_seconds;
    uint64_t recomputed;
    double bucket_seconds[SW_GPU_MAX_BUCKETS];
};

} /* namespace sw_gpu_detail */

struct sw_gpu_engine {
    int device;
    int sms;
    size_t smem_optin;
    size_t budget;
    /* What the working buffers' shares come from: the GPU's free memory at
     * creation less a reserve, shared with the device's other engines
     * (device_share, work_share), but not capped by max_device_bytes, which
     * bounds the database's part: an engine holding a small part of a
     * streamed database runs full grids as one holding all of it does. */
    size_t work_budget;
    int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
    int gap_open, gap_extend;
    int max_score, min_score;
    size_t top_n;
    uint32_t sort_capacity;
    /* More hits than one block sorts: every score comes back and the host
     * selects (slower, but any N works). */
    int host_select;
    int32_t *score_sink;      /* keep_all_scores: where finished queries' scores go */
    sw_gpu_query_done_fn query_done; /* told of each finished query, or NULL */
    void *query_done_user;
    sw_gpu_stop_fn stop; /* asked before each query, or NULL */
    void *stop_user;
    uint32_t *h_tiebreak;
    sw_gpu_engine_options opt;
    sw_gpu_tuning tune; /* *opt.tuning, or zeros, with the defaults filled in; opt.tuning points here */

    /* Residue codes with equal rows and columns share a class. */
    int class_of[SW_CODE_LIMIT];
    int class_rep[SW_CODE_LIMIT];
    int num_classes;

    sw_gpu_detail::plan_entry plan[SW_GPU_MAX_BUCKETS];
    size_t plan_size;
    int wide_config;
    int wide_pssm_config; /* the 32-bit kernel of PSSM queries */

    cudaStream_t s_scan, s_sel, s_copy, s_bucket[sw_gpu_detail::MAX_STREAMS];
    int num_streams;
    cudaEvent_t ev_fork, ev_join[sw_gpu_detail::MAX_STREAMS];
    /* The longest sequences' launches (opt.qp_giants) of each query slot:
     * a warp a pair, they last as long as the longest pair's wavefront
     * whatever the query, so each slot's go on a stream of its own and the
     * queries in flight overlap them; on bucket streams they became the
     * chain that many short queries waited on, the more so on a slice of
     * the database. */
    cudaStream_t s_giants[sw_gpu_detail::SLOTS];
    cudaEvent_t ev_giants[sw_gpu_detail::SLOTS];
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
    sw_gpu_detail::batch *batches;
    size_t num_batches;
    sw_gpu_detail::bucket *buckets;
    size_t num_buckets;

    /* A database searched a part at a time (sw_gpu_engine_reserve_parts):
     * the device buffers above hold one part, the pinned ones below the
     * next part as it is read. */
    int parts;
    uint64_t part_max_seqs, part_max_residues;
    uint32_t part_max_length;
    uint8_t *h_part_res;
    uint64_t *h_part_off;
    uint32_t *h_part_len, *h_part_tb;
    cudaEvent_t ev_part_up; /* the last part's upload is done */
    int part_uploading;     /* ev_part_up was recorded */
    int part_wait;          /* the next search waits for ev_part_up */

    sw_gpu_detail::slot slots[sw_gpu_detail::SLOTS];
    size_t ctl_words;

    /* Per search, grown as needed. */
    uint4 *d_table16, *d_table32;
    size_t table16_cap, table32_cap;
    uint8_t *d_query;
    size_t query_cap;
    int32_t *d_pssm;
    size_t pssm_cap;
    uint2 *d_temp, *d_temp_wide;
    size_t temp_bytes, temp_wide_bytes;
    int multipass_groups, wide_groups;
    sw_gpu_detail::launch_shape shapes[64];

    /* Kernels with the query across the threads: sequences up to
     * opt.qp_max_length. */
    uint32_t qp_longest;              /* longest such sequence, 0 if none */
    double qp_mean_length;            /* their mean length */
    uint2 *d_qp_temp;                 /* multipass column buffers */
    size_t qp_temp_bytes;
    int qp_groups;                    /* groups that d_qp_temp serves */
    sw_gpu_detail::launch_shape qp_shapes[SW_GK_QP_MAX_SHAPES];
    int qp_last_shape;                /* of the last query, for the statistics */

    /* Intra-task kernel: sequences longer than intra_threshold. */
    uint32_t intra_longest;           /* longest such sequence, 0 if none */
    uint32_t profile_words;           /* per class, for the longest query */
    uint2 *d_row_buffer;
    size_t row_buffer_bytes;
    uint32_t row_stride;
    int intra_grid;                   /* blocks that the row buffer serves */
    int intra_tile, intra_threads;    /* shape of the last launch, for the statistics */

    /* Timeline of the last search (tune.timeline; tune.profile times its
     * buckets with it): span i lies between
     * span_events[2i] and [2i + 1], timed from span_origin. */
    sw_gpu_span *spans;
    size_t num_spans, spans_cap;
    cudaEvent_t *span_events;
    size_t span_events_made;
    cudaEvent_t span_origin;
};

namespace sw_gpu_detail {

/* ctl of a slot: the SW_GK_CTL_* words, then per batch its overflow count
 * and the work counter of its 32-bit pass, then one work counter per bucket,
 * then the histogram. One memset clears it per query. */
inline size_t ctl_overflow(const sw_gpu_engine *e, size_t b) { (void)e; return SW_GK_CTL_WORDS + b; }
inline size_t ctl_wide_work(const sw_gpu_engine *e, size_t b) { return SW_GK_CTL_WORDS + e->num_batches + b; }
inline size_t ctl_bucket_work(const sw_gpu_engine *e, size_t k) { return SW_GK_CTL_WORDS + 2 * e->num_batches + k; }
inline size_t ctl_hist(const sw_gpu_engine *e) { return (SW_GK_CTL_WORDS + 2 * e->num_batches + e->num_buckets + 3) & ~(size_t)3; }
inline size_t ctl_head_words(const sw_gpu_engine *e) { return SW_GK_CTL_WORDS + e->num_batches; }

/* Grows the device buffer *ptr of *cap bytes to at least `need` bytes (its
 * contents are lost when it grows). */
int ensure(void **ptr, size_t *cap, size_t need, const char *what, sw_error *err);

/* The most one working buffer of a search may take: an eighth of the
 * working budget, at least 64 MiB. */
inline size_t work_share(const sw_gpu_engine *e)
{
    return e->work_budget / 8 > ((size_t)64 << 20) ? e->work_budget / 8 : (size_t)64 << 20;
}

} /* namespace sw_gpu_detail */

#endif
