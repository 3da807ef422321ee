/* Intra-task Smith-Waterman for long database sequences: one thread block
 * aligns one pair of subjects (low and high 16-bit lanes, as in the
 * inter-task kernels) against the query, so that a few very long sequences
 * spread over a whole block instead of one small group.
 *
 * Rows are query residues, columns subject residues. The query is cut into
 * row blocks of 32 * TILE rows; warp w of a block of W warps takes row
 * blocks w, w + W, w + 2W, ... (W row blocks form a strip). Lane l of a warp
 * holds TILE consecutive rows and at step g computes their cells in column
 * g - start - l, where `start` is the step at which the row block began:
 * a wavefront across the lanes. Along a row, H and E stay in the lane's
 * registers; down a column, the bottom H and F of a lane go to the next lane
 * by shuffle, the bottom of a warp to the next warp through a ring in
 * shared memory, and the bottom of a strip to the first warp of the next
 * strip through a row buffer in global memory, written and read 32 columns
 * at a time (coalesced) through shared memory.
 *
 * Warps synchronise every CHUNK steps (one __syncthreads). A warp starts its
 * row block WARP_LAG steps after the warp above, so that what it needs in a
 * chunk was written before the barrier that opens it; across a strip
 * boundary the lag is WRAP_LAG, one chunk more for the trip through global
 * memory. A warp starts its next row block once it has finished the last
 * one, so a strip follows the one before without a gap when subjects are
 * long (`period` below).
 *
 * The recurrences are those of the inter-task kernel (sw_gpu_kernels.cu),
 * with one H - open - ext shared by E of the next column and F of the next
 * row. Padding rows past the query and padding columns past the shorter
 * subject score <= 0 and cannot raise the maximum (see there).
 *
 * The query profile packs the scores of four consecutive rows against one
 * residue class in a word, one signed byte each; a lane loads its TILE rows'
 * words of both subjects' classes with two vector loads per step, and one
 * byte permute per row builds the pair of 16-bit scores. */
#include <stdint.h>

#include "sw_alphabet.h"
#include "sw_gpu_kernels.cuh"
#include "sw_gpu_lanes.cuh"

namespace {

using L = sw_lanes::lanes16;

constexpr unsigned FULL_MASK = 0xffffffffu;
constexpr int CHUNK = 32;
constexpr int WARP_LAG = 64;
constexpr int WRAP_LAG = 128;
constexpr int CLASS_RING = 64;  /* columns of subject classes a warp keeps */
constexpr int OUT_RING = 128;   /* columns of a warp's bottom row kept for the next warp */
/* Two rings per warp, by strip parity: a warp that starts its next row
 * block writes the other one while the warp below still reads the end of
 * this one. */
constexpr int OUT_RINGS = 2;

__device__ __forceinline__ uint32_t permute(uint32_t a, uint32_t b, uint32_t selector)
{
    uint32_t r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(selector));
    return r;
}

/* Byte k of a (low lane) and byte k of b (high lane), each sign-extended to
 * 16 bits: selector nibbles k, k|8 (sign of byte k), 4+k, (4+k)|8. */
__device__ __forceinline__ uint32_t score_pair(uint32_t a, uint32_t b, int k)
{
    const uint32_t sel = (uint32_t)k | ((uint32_t)(k | 8) << 4) | ((uint32_t)(4 + k) << 8) |
                         ((uint32_t)((4 + k) | 8) << 12);
    return permute(a, b, sel);
}

/* Shared memory of a block, in this order: W profile slices (classes x
 * 8 * TILE words), W class rings, 2W output rings, the staging row of warp 0,
 * the residue-class table, then W + 1 words for the reduction and the work
 * item. */
__host__ __device__ inline size_t slice_words(int tile, uint32_t classes) { return (size_t)classes * 8 * tile; }

__host__ __device__ inline size_t intra_smem_bytes(int tile, int warps, uint32_t classes)
{
    return (size_t)warps * slice_words(tile, classes) * 4 + (size_t)warps * CLASS_RING * 4 +
           (size_t)warps * OUT_RINGS * OUT_RING * 8 + CHUNK * 8 + SW_CODE_LIMIT + (size_t)(warps + 1) * 4;
}

/* The row block that warp `w` works on during the chunk starting at step
 * c, and the step it started at; -1 if none. */
__device__ __forceinline__ int block_at(int w, int warps, int blocks, uint32_t period, uint32_t n, uint32_t c,
                                        uint32_t *start)
{
    const uint32_t first = (uint32_t)w * WARP_LAG;
    if (c < first) return -1;
    const uint32_t strip = (c - first) / period;
    const int b = (int)strip * warps + w;
    if (b >= blocks) return -1;
    const uint32_t s = strip * period + first;
    /* Lane 31 finishes the last column at step s + 31 + n - 1. */
    if (c > s + n + 30) return -1;
    *start = s;
    return b;
}

template <int TILE>
__global__ void __launch_bounds__(512) intra_kernel(const sw_gk_intra_params p)
{
    static_assert(TILE % 4 == 0 && TILE >= 4 && TILE <= 32, "tile height");
    constexpr int WORDS = TILE / 4;   /* profile words per lane and class */
    constexpr int SLICE = 8 * TILE;   /* profile words per class in a row block */

    extern __shared__ uint4 sw_dyn_smem[];
    const int warps = (int)(blockDim.x / 32);
    const int warp = (int)(threadIdx.x / 32), lane = (int)(threadIdx.x & 31);
    const uint32_t classes = p.subject_classes;
    uint32_t *const profile_all = (uint32_t *)sw_dyn_smem;
    uint32_t *const slice = profile_all + (size_t)warp * slice_words(TILE, classes);
    uint32_t *const class_rings = profile_all + (size_t)warps * slice_words(TILE, classes);
    uint32_t *const class_ring = class_rings + warp * CLASS_RING;
    uint2 *const out_rings = (uint2 *)(class_rings + warps * CLASS_RING);
    uint2 *const my_rings = out_rings + warp * OUT_RINGS * OUT_RING;
    const uint2 *const in_rings = warp ? out_rings + (warp - 1) * OUT_RINGS * OUT_RING : nullptr;
    uint2 *const staging = out_rings + warps * OUT_RINGS * OUT_RING;
    uint8_t *const class_of = (uint8_t *)(staging + CHUNK);
    uint32_t *const reduce = (uint32_t *)(class_of + SW_CODE_LIMIT);
    uint32_t *const item_word = reduce + warps;

    if (threadIdx.x < SW_CODE_LIMIT) class_of[threadIdx.x] = p.subject_class[threadIdx.x];

    const uint32_t neg = L::splat(SW_GK_NEG16);
    const uint32_t neg_open_ext = L::splat(-(p.gap_open + p.gap_extend));
    const uint32_t neg_ext = L::splat(-p.gap_extend);
    const uint32_t pad_offset = (classes - 1) * SLICE * 4;
    const int blocks = (int)((p.query_len + 32 * TILE - 1) / (32 * TILE));
    const uint32_t items = (p.count + 1) / 2;
    uint2 *const row_buffer = p.row_buffer + (size_t)blockIdx.x * p.row_stride;
    /* This lane's words within a class of the slice, in bytes. */
    const uint8_t *const lane_slice = (const uint8_t *)slice + lane * WORDS * 4;

    for (;;) {
        __syncthreads();
        if (threadIdx.x == 0) *item_word = atomicAdd(p.work, 1);
        __syncthreads();
        const uint32_t item = *item_word;
        if (item >= items) break;
        /* Longest pairs first, as in the inter-task kernels. */
        const uint32_t back = items - 1 - item;
        const uint32_t seq_a = p.first + 2 * back;
        const bool has_b = 2 * back + 1 < p.count;
        const uint32_t seq_b = has_b ? seq_a + 1 : seq_a;
        const uint32_t len_a = p.lengths[seq_a], len_b = has_b ? p.lengths[seq_b] : 0;
        const uint8_t *const res_a = p.residues + (p.offsets[seq_a] - p.residue_base);
        const uint8_t *const res_b = p.residues + (p.offsets[seq_b] - p.residue_base);
        const uint32_t n = len_a > len_b ? len_a : len_b;
        uint32_t period = (uint32_t)(WARP_LAG * (warps - 1) + WRAP_LAG);
        if (period < n + 31) period = n + 31;
        period = (period + CHUNK - 1) & ~(uint32_t)(CHUNK - 1);
        const uint32_t last_start = (uint32_t)((blocks - 1) / warps) * period + (uint32_t)((blocks - 1) % warps) * WARP_LAG;
        const uint32_t total = last_start + n + 31;

        uint32_t best = 0;
        uint32_t h0[TILE], h1[TILE], e[TILE];
        /* H and F of the row above this lane's first row in the current
         * column, and H of that row in the column before. */
        uint32_t up_h = 0, up_f = neg, diag_top = 0;

        for (uint32_t c = 0; c < total; c += CHUNK) {
            __syncthreads();
            /* The last warp of a strip hands the bottom row it finished in
             * the previous chunk to global memory, 32 columns at once. */
            if (warp == warps - 1 && c >= CHUNK) {
                uint32_t s0 = 0;
                const int bp = block_at(warp, warps, blocks, period, n, c - CHUNK, &s0);
                if (bp >= 0 && bp + 1 < blocks) {
                    const int col = (int)(c - CHUNK) - (int)s0 - 31 + lane;
                    const uint2 *ring = my_rings + ((bp / warps) & 1) * OUT_RING;
                    if (col >= 0 && col < (int)n) row_buffer[col] = ring[col & (OUT_RING - 1)];
                }
            }
            uint32_t start = 0;
            const int b = block_at(warp, warps, blocks, period, n, c, &start);
            if (b < 0) continue;
            uint2 *const out_ring = my_rings + ((b / warps) & 1) * OUT_RING;
            const uint2 *const in_ring = warp ? in_rings + ((b / warps) & 1) * OUT_RING : nullptr;
            if (start == c) {
                /* A new row block: its profile slice, and a fresh left
                 * boundary (H = 0, E = minus infinity). */
                __syncwarp();
                const uint32_t *src = p.profile + (size_t)b * SLICE;
                for (uint32_t i = (uint32_t)lane; i < classes * SLICE; i += 32)
                    slice[i] = src[(size_t)(i / SLICE) * p.profile_words + i % SLICE];
#pragma unroll
                for (int k = 0; k < TILE; ++k) {
                    h0[k] = 0;
                    h1[k] = 0;
                    e[k] = neg;
                }
                up_h = 0;
                up_f = neg;
                diag_top = 0;
            }
            {
                /* Classes of the columns lane 0 reaches in this chunk, as
                 * byte offsets into a slice, subject a low, b high. */
                const uint32_t col = c - start + (uint32_t)lane;
                const uint32_t ca = col < len_a ? class_of[res_a[col]] * SLICE * 4 : pad_offset;
                const uint32_t cb = col < len_b ? class_of[res_b[col]] * SLICE * 4 : pad_offset;
                __syncwarp();
                class_ring[col & (CLASS_RING - 1)] = ca | cb << 16;
                if (warp == 0 && b > 0) staging[lane] = col < n ? row_buffer[col] : make_uint2(0, neg);
                __syncwarp();
            }

            auto step = [&](const int k, const uint32_t(&h_prev)[TILE], uint32_t(&h_cur)[TILE]) {
                const int j = (int)(c + (uint32_t)k - start) - lane;
                const bool active = j >= 0 && j < (int)n;
                uint32_t out_h = 0, out_f = neg;
                if (active) {
                    if (lane == 0) {
                        if (b == 0) {
                            up_h = 0;
                            up_f = neg;
                        } else {
                            const uint2 v = warp ? in_ring[j & (OUT_RING - 1)] : staging[k];
                            up_h = v.x;
                            up_f = v.y;
                        }
                    }
                    const uint32_t offsets = class_ring[j & (CLASS_RING - 1)];
                    uint32_t wa[WORDS], wb[WORDS];
                    if constexpr (WORDS == 4) {
                        const uint4 va = *(const uint4 *)(lane_slice + (offsets & 0xffff));
                        const uint4 vb = *(const uint4 *)(lane_slice + (offsets >> 16));
                        wa[0] = va.x; wa[1] = va.y; wa[2] = va.z; wa[3] = va.w;
                        wb[0] = vb.x; wb[1] = vb.y; wb[2] = vb.z; wb[3] = vb.w;
                    } else {
#pragma unroll
                        for (int w = 0; w < WORDS; w += 2) {
                            const uint2 va = *(const uint2 *)(lane_slice + (offsets & 0xffff) + w * 4);
                            const uint2 vb = *(const uint2 *)(lane_slice + (offsets >> 16) + w * 4);
                            wa[w] = va.x; wa[w + 1] = va.y;
                            wb[w] = vb.x; wb[w + 1] = vb.y;
                        }
                    }
                    uint32_t diag = diag_top, f = up_f;
                    diag_top = up_h;
#pragma unroll
                    for (int r = 0; r < TILE; ++r) {
                        const uint32_t s = score_pair(wa[r / 4], wb[r / 4], r % 4);
                        const uint32_t h = L::add_max(diag, s, L::max_relu(e[r], f));
                        diag = h_prev[r];
                        h_cur[r] = h;
                        const uint32_t h_open = L::add(h, neg_open_ext);
                        e[r] = L::add_max(e[r], neg_ext, h_open);
                        f = L::add_max(f, neg_ext, h_open);
                    }
#pragma unroll
                    for (int r = 0; r < TILE; r += 2) best = L::max3(best, h_cur[r], h_cur[r + 1]);
                    out_h = h_cur[TILE - 1];
                    out_f = f;
                    if (lane == 31) out_ring[j & (OUT_RING - 1)] = make_uint2(out_h, out_f);
                }
                const uint32_t nh = __shfl_up_sync(FULL_MASK, out_h, 1);
                const uint32_t nf = __shfl_up_sync(FULL_MASK, out_f, 1);
                if (lane) {
                    up_h = nh;
                    up_f = nf;
                }
            };
            for (int k = 0; k < CHUNK; k += 2) {
                step(k, h0, h1);
                step(k + 1, h1, h0);
            }
        }

#pragma unroll
        for (int m = 16; m > 0; m >>= 1) best = L::max(best, __shfl_xor_sync(FULL_MASK, best, m));
        if (lane == 0) reduce[warp] = best;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < warps; ++w) best = L::max(best, reduce[w]);
            const int a = (int16_t)(best & 0xffff);
            p.scores[seq_a] = a;
            if (a >= p.limit) p.overflow[atomicAdd(p.overflow_count, 1)] = seq_a;
            if (has_b) {
                const int bs = (int16_t)(best >> 16);
                p.scores[seq_b] = bs;
                if (bs >= p.limit) p.overflow[atomicAdd(p.overflow_count, 1)] = seq_b;
            }
        }
    }
}

__global__ void profile_kernel(const sw_gk_profile_params p)
{
    const uint32_t n = p.subject_classes * p.words;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const uint32_t cls = i / p.words, w = i % p.words;
        uint32_t word = 0;
#pragma unroll
        for (int k = 0; k < SW_GK_PROFILE_ROWS_PER_WORD; ++k) {
            const uint32_t r = 4 * w + (uint32_t)k;
            int s;
            if (r < p.query_len && p.pssm) s = p.pssm[(size_t)r * p.subject_classes + cls];
            else s = (int)p.table32[(r < p.query_len ? p.query[r] : p.pad_row) * p.subject_classes + cls];
            word |= (uint32_t)(uint8_t)(int8_t)s << (8 * k);
        }
        p.profile[i] = word;
    }
}

typedef void (*intra_fn)(const sw_gk_intra_params);

intra_fn intra_for(int tile)
{
    switch (tile) {
    case 8: return intra_kernel<8>;
    case 16: return intra_kernel<16>;
    default: return nullptr;
    }
}

} /* namespace */

int sw_gk_intra_tile_supported(int tile) { return intra_for(tile) != nullptr; }

size_t sw_gk_intra_smem(int tile, int threads, uint32_t subject_classes)
{
    return intra_smem_bytes(tile, threads / 32, subject_classes);
}

cudaError_t sw_gk_intra_prepare(int tile, size_t block_limit)
{
    const intra_fn fn = intra_for(tile);
    if (!fn) return cudaErrorInvalidValue;
    return sw_gk_allow_shared(fn, block_limit);
}

cudaError_t sw_gk_intra_occupancy(int tile, int threads, size_t smem, int *blocks_per_sm)
{
    const intra_fn fn = intra_for(tile);
    if (!fn) return cudaErrorInvalidValue;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, fn, threads, smem);
}

cudaError_t sw_gk_intra_launch(int tile, int blocks, int threads, size_t smem, cudaStream_t stream,
                               const sw_gk_intra_params *p)
{
    const intra_fn fn = intra_for(tile);
    if (!fn) return cudaErrorInvalidValue;
    fn<<<blocks, threads, smem, stream>>>(*p);
    return cudaGetLastError();
}

#ifdef SW_GK_DEVICE_LAUNCH
__device__ cudaError_t sw_gk_intra_launch_device(int tile, int blocks, int threads, uint32_t smem,
                                                 const sw_gk_intra_params *p)
{
    if (tile == 16) intra_kernel<16><<<blocks, threads, smem, cudaStreamFireAndForget>>>(*p);
    else if (tile == 8) intra_kernel<8><<<blocks, threads, smem, cudaStreamFireAndForget>>>(*p);
    else return cudaErrorInvalidValue;
    return cudaGetLastError();
}
#endif

cudaError_t sw_gk_profile_launch(int blocks, cudaStream_t stream, const sw_gk_profile_params *p)
{
    profile_kernel<<<blocks, 256, 0, stream>>>(*p);
    return cudaGetLastError();
}
