/* Private interface between the GPU engine's host side (sw_gpu_engine.cu) and
 * its kernels (sw_gpu_kernels.cu): parameter blocks, the list of compiled
 * alignment kernels, and launchers that return the CUDA error of the launch. */
#ifndef SW_GPU_KERNELS_CUH
#define SW_GPU_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

/* Every query is stored with this many padding rows before and after it, so
 * that the skewed wavefront (thread t reads row s - t) needs no bounds checks. */
#define SW_GK_QUERY_PAD 32

/* "Minus infinity" of E and F in 16-bit lanes: E and F are at least
 * -(gap_open + gap_extend) >= -510 once computed, and the start value minus
 * one gap_extend (<= 255) stays far above -32768, so no lane ever wraps. */
#define SW_GK_NEG16 (-16384)
/* The same in 32-bit lanes. */
#define SW_GK_NEG32 (-(1 << 29))

/* Score histogram of the top-N threshold: bin s counts scores s, the last
 * bin every score at or above it. */
#define SW_GK_HIST_BINS 4096

/* One compiled alignment kernel: groups of `group_size` threads, `columns`
 * subject columns per thread; `multipass` kernels loop over column blocks
 * of group_size * columns; `wide` kernels use 32-bit lanes, one subject per
 * group, and take their subjects from a list. */
typedef struct sw_gk_config {
    int group_size;
    int columns;
    int multipass;
    int wide;
    int pssm; /* scores from align params' pssm, not from the table */
} sw_gk_config;

typedef struct sw_gk_align_params {
    const uint8_t *residues;      /* residues of the batch in device memory */
    uint64_t residue_base;        /* database offset of residues[0] */
    const uint64_t *offsets;      /* database offset of each sequence */
    const uint32_t *lengths;
    uint32_t first;               /* first sequence of the bucket */
    uint32_t count;               /* sequences in the bucket (16-bit kernels) */
    const uint32_t *list;         /* wide kernels: the sequences to align, */
    const uint32_t *list_count;   /* and how many (written by earlier kernels) */
    const uint8_t *query;         /* substitution-table row of each query residue */
    uint32_t query_len;
    /* pssm kernels: the query's scores, query_len rows of subject_classes
     * words, with SW_GK_QUERY_PAD rows of padding scores before and after */
    const int32_t *pssm;
    const uint4 *table;           /* substitution table, copied to shared memory */
    uint32_t table_words;         /* multiple of 4 */
    const uint8_t *subject_class; /* residue code -> table column, 32 entries */
    uint32_t subject_classes;     /* columns per table row, padding column last */
    int gap_open;
    int gap_extend;
    int limit;                    /* 16-bit: a score >= limit may have saturated */
    int32_t *scores;              /* indexed by sequence */
    uint32_t *work;               /* work counter, zero at launch */
    uint32_t *overflow;           /* 16-bit: sequences to redo in 32 bits */
    uint32_t *overflow_count;
    uint2 *temp;                  /* multipass: two columns of (H, E) per group */
    uint32_t temp_rows;           /* rows of one such column, >= query_len */
    uint32_t unit;                /* 1 and 65536, as parameters so that the */
    uint32_t high_lane;           /* kernels multiply by them (see align_kernel) */
} sw_gk_align_params;

/* The *_prepare functions below let a kernel's launches take as much
 * dynamic shared memory as a block may have (`block_limit`, the device's
 * opt-in) beside the kernel's static shared memory. The bound belongs to
 * the kernel in the whole context, which every engine on a GPU shares, so
 * each engine sets the largest rather than what it needs: what one engine
 * sets can then never be too small for another's launch. */
template <class F>
inline cudaError_t sw_gk_allow_shared(F fn, size_t block_limit)
{
    cudaFuncAttributes a;
    const cudaError_t e = cudaFuncGetAttributes(&a, (const void *)fn);
    if (e != cudaSuccess) return e;
    const size_t dynamic = block_limit > a.sharedSizeBytes ? block_limit - a.sharedSizeBytes : 0;
    return cudaFuncSetAttribute((const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dynamic);
}

/* Compiled alignment kernels; the list never changes while a program runs. */
int sw_gk_num_configs(void);
const sw_gk_config *sw_gk_get_config(int id);
/* Shared memory that a launch of kernel `id` needs for a table of `table_words`. */
size_t sw_gk_align_smem(uint32_t table_words);
cudaError_t sw_gk_align_prepare(int id, size_t block_limit);
cudaError_t sw_gk_align_occupancy(int id, int threads, size_t smem, int *blocks_per_sm);
cudaError_t sw_gk_align_launch(int id, int blocks, int threads, size_t smem, cudaStream_t stream,
                               const sw_gk_align_params *p);

/* A hit as the GPU keeps it. */
typedef struct sw_gk_hit {
    int32_t score;
    uint32_t seq;
} sw_gk_hit;

/* Top-N selection over the scores of one query. Counters live in `ctl`:
 * ctl[SW_GK_CTL_*], all zero at the start; `hist` is zero at the start. */
enum {
    SW_GK_CTL_OUT_COUNT = 0,
    SW_GK_CTL_CAND_COUNT = 1,
    SW_GK_CTL_THRESHOLD = 2,
    SW_GK_CTL_LAUNCH_ERROR = 3, /* device-side launches: the first cudaError_t of a failed one */
    SW_GK_CTL_WORDS = 4
};

typedef struct sw_gk_select_params {
    const int32_t *scores;
    const uint32_t *tiebreak;
    uint32_t num_seqs;
    uint32_t top_n;
    uint32_t *hist;           /* SW_GK_HIST_BINS */
    uint32_t *ctl;
    uint64_t *cand_keys;      /* num_seqs entries: score << 32 | ~tiebreak */
    uint32_t *cand_seqs;
    uint32_t sort_capacity;   /* power of two >= top_n: keys one block sorts at once */
    sw_gk_hit *out;           /* top_n entries */
} sw_gk_select_params;

/* Shared memory of the final sort, and the attribute that allows it. */
size_t sw_gk_select_smem(uint32_t sort_capacity);
cudaError_t sw_gk_select_prepare(size_t block_limit);
/* Histogram, threshold, compaction and the final sort, in `stream`;
 * `blocks` is the grid of the two passes over all scores. */
cudaError_t sw_gk_select_launch(int blocks, cudaStream_t stream, const sw_gk_select_params *p);

/* ---- intra-task kernel (sw_gpu_intra.cu) ---- */

/* Query rows per profile word: scores are signed bytes. */
#define SW_GK_PROFILE_ROWS_PER_WORD 4
/* Profile words per residue class are a multiple of this, so that every
 * tile height's row blocks end inside the profile. */
#define SW_GK_PROFILE_WORD_ALIGN 128

typedef struct sw_gk_profile_params {
    const uint8_t *query;         /* substitution-table row of each query residue */
    uint32_t query_len;
    const uint32_t *table32;      /* the 32-bit table: score of (row, class) at row * classes + class */
    uint32_t subject_classes;
    uint32_t pad_row;             /* table row of positions beyond the query */
    const int32_t *pssm;          /* not NULL: position q's scores at q * subject_classes, not the table's */
    uint32_t words;               /* profile words per class, >= query_len / 4 */
    uint32_t *profile;            /* [class][word]: rows 4w..4w+3, one signed byte each */
} sw_gk_profile_params;

typedef struct sw_gk_intra_params {
    const uint8_t *residues;
    uint64_t residue_base;
    const uint64_t *offsets;
    const uint32_t *lengths;
    uint32_t first;               /* sequences first .. first + count - 1, two per block at a time */
    uint32_t count;
    const uint32_t *profile;      /* sw_gk_profile_params.profile of this query */
    uint32_t profile_words;
    uint32_t query_len;
    const uint8_t *subject_class; /* residue code -> class, SW_CODE_LIMIT entries */
    uint32_t subject_classes;     /* padding class last */
    int gap_open;
    int gap_extend;
    int limit;
    int32_t *scores;
    uint32_t *work;
    uint32_t *overflow;
    uint32_t *overflow_count;
    uint2 *row_buffer;            /* per block: a strip's bottom row, row_stride entries */
    uint32_t row_stride;          /* >= the longest subject of the launch */
} sw_gk_intra_params;

/* Tile heights (query rows per thread) that are compiled. */
int sw_gk_intra_tile_supported(int tile);
size_t sw_gk_intra_smem(int tile, int threads, uint32_t subject_classes);
cudaError_t sw_gk_intra_prepare(int tile, size_t block_limit);
cudaError_t sw_gk_intra_occupancy(int tile, int threads, size_t smem, int *blocks_per_sm);
cudaError_t sw_gk_intra_launch(int tile, int blocks, int threads, size_t smem, cudaStream_t stream,
                               const sw_gk_intra_params *p);
cudaError_t sw_gk_profile_launch(int blocks, cudaStream_t stream, const sw_gk_profile_params *p);

/* ---- inter-task kernels with the query across the threads (sw_gpu_qp.cu) ---- */

/* One compiled kernel: groups of `group_size` threads, `columns` query
 * positions per thread; `multipass` kernels cut longer queries into
 * segments of group_size * columns positions; `back_to_back` kernels run a
 * warp's pairs in one wavefront, filling and draining it once a warp
 * rather than once a pair. */
typedef struct sw_gk_qp_shape {
    int group_size;
    int columns;
    int multipass;
    int back_to_back;
} sw_gk_qp_shape;

/* The query profile of one query for one kernel shape, built on the GPU. */
typedef struct sw_gk_qp_profile_params {
    const uint8_t *query;         /* substitution-table row of each query residue */
    uint32_t query_len;
    const uint32_t *table32;      /* score of (row, class) at row * classes + class */
    uint32_t subject_classes;
    uint32_t pad_row;             /* table row of positions beyond the query */
    const int32_t *pssm;          /* not NULL: position q's scores at q * subject_classes, not the table's */
    int gap_open;
    int gap_extend;
    int group_size;
    int columns;
    uint32_t passes;
    uint32_t *profile;            /* sw_gk_qp_profile_words() words */
} sw_gk_qp_profile_params;

typedef struct sw_gk_qp_params {
    const uint8_t *residues;
    uint64_t residue_base;
    const uint64_t *offsets;
    const uint32_t *lengths;
    uint32_t first;               /* sequences first .. first + count - 1, sorted by length */
    uint32_t count;
    const uint32_t *profile;
    uint32_t passes;              /* segments of the query (multipass kernels) */
    const uint8_t *subject_class; /* residue code -> class, SW_CODE_LIMIT entries */
    uint32_t subject_classes;     /* padding class last */
    int gap_open;
    int gap_extend;
    int limit;
    int32_t *scores;
    uint32_t *work;
    uint32_t *overflow;
    uint32_t *overflow_count;
    uint2 *temp;                  /* multipass: a column of (H, E) per group of the grid */
    uint32_t temp_rows;           /* its entries: >= the longest subject + SW_GK_QP_TEMP_SLACK */
    uint32_t high_lane;           /* 65536, a parameter so that the packing stays a multiply-add */
} sw_gk_qp_params;

/* Entries of a column buffer beyond the longest subject: it starts one
 * group (up to 32 rows) before the first row, the rows of a pass are at
 * least a group and 3, and the wavefront runs up to a group past the last,
 * read three rows ahead. */
#define SW_GK_QP_TEMP_SLACK 128

/* At most this many shapes are compiled (the engine keeps a launch shape
 * for each). */
#define SW_GK_QP_MAX_SHAPES 40
int sw_gk_qp_num_shapes(void);
/* The largest block the kernels are compiled for. */
int sw_gk_qp_max_threads(void);
const sw_gk_qp_shape *sw_gk_qp_get_shape(int id);
size_t sw_gk_qp_profile_words(int id, uint32_t passes, uint32_t subject_classes);
size_t sw_gk_qp_smem(int id, uint32_t subject_classes);
cudaError_t sw_gk_qp_prepare(int id, size_t block_limit);
cudaError_t sw_gk_qp_occupancy(int id, int threads, size_t smem, int *blocks_per_sm);
cudaError_t sw_gk_qp_launch(int id, int blocks, int threads, size_t smem, cudaStream_t stream,
                            const sw_gk_qp_params *p);
cudaError_t sw_gk_qp_profile_launch(int blocks, cudaStream_t stream, const sw_gk_qp_profile_params *p);

/* ---- device-side launches (sw_gpu_launcher.cu) ----
 * A parent kernel launches the kernels of one query's buckets, each into its
 * own fire-and-forget stream so that they run side by side, as the host's
 * bucket streams would run them. Compiled only with SW_GK_DEVICE_LAUNCH
 * (relocatable device code and the device runtime). */
#define SW_GK_MAX_CHILDREN 24

typedef struct sw_gk_child_launch {
    int intra;        /* nonzero: intra-task kernel with tile `id`; else alignment kernel `id` */
    int qp;           /* nonzero: the query-across-threads kernel `id` (host launches only) */
    int id;
    int blocks, threads;
    uint32_t smem;
    union {
        sw_gk_align_params align;
        sw_gk_intra_params intra;
        sw_gk_qp_params qp;
    } p;
} sw_gk_child_launch;

typedef struct sw_gk_launch_list {
    int count;
    uint32_t *error;  /* receives the first failed launch's cudaError_t */
    sw_gk_child_launch child[SW_GK_MAX_CHILDREN];
} sw_gk_launch_list;

/* Nonzero when this build can launch kernels from the GPU. */
int sw_gk_device_launch_compiled(void);
/* The parent kernel, in `stream`; it completes when every child has. */
cudaError_t sw_gk_launcher_launch(cudaStream_t stream, const sw_gk_launch_list *list);

#ifdef SW_GK_DEVICE_LAUNCH
__device__ cudaError_t sw_gk_align_launch_device(int id, int blocks, int threads, uint32_t smem,
                                                 const sw_gk_align_params *p);
__device__ cudaError_t sw_gk_intra_launch_device(int tile, int blocks, int threads, uint32_t smem,
                                                 const sw_gk_intra_params *p);
#endif

#endif
