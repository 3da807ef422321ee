/* Kernels of the GPU engine: inter-task Smith-Waterman (a group of threads per
 * pair of database sequences, packed 16-bit lanes, or per sequence in 32-bit
 * lanes) and the top-N selection over the scores of one query. */
#include <stdint.h>

#include "sw_alphabet.h"
#include "sw_gpu_kernels.cuh"
#include "sw_gpu_lanes.cuh"


namespace {

using sw_lanes::lanes16;
using sw_lanes::lanes32;

constexpr unsigned FULL_MASK = 0xffffffffu;

__device__ __forceinline__ uint32_t mad(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

/* Inter-task Smith-Waterman, Gotoh's recurrences with rows = query residues
 * and columns = subject residues:
 *   E(i,j) = max(E(i,j-1) - ext, H(i,j-1) - open - ext)
 *   F(i,j) = max(F(i-1,j) - ext, H(i-1,j) - open - ext)
 *   H(i,j) = max(0, H(i-1,j-1) + s(q_i, d_j), E(i,j), F(i,j))
 * Evaluated as written, E(i,j+1) waits on H(i,j), which waits on E(i,j):
 * four dependent instructions per column along a thread's row, and with
 * the few warps that the registers leave, that chain, not the arithmetic,
 * set the pace. The kernel computes instead, with oe = open + ext,
 *   X = max(H(i-1,j-1) + s, F(i,j), 0) - oe
 *   E(i,j+1) = max(E(i,j) - ext, X)          (E - oe <= E - ext)
 *   T(i,j) = H(i,j) - oe = max(X, E(i,j) - oe)
 *   F(i+1,j) = max(F(i,j) - ext, T(i,j))
 * and keeps T in place of H (the scores in shared memory carry + oe, so
 * T + s + oe is H + s for free). One instruction per column is left on the
 * chain, for one more per cell (6.5 instead of 5.5 per pair of cells);
 * the maximum of T is the score minus oe.
 * A group of G threads aligns one work item (two subjects in 16-bit lanes, or
 * one in 32-bit lanes). Thread t holds R consecutive subject columns: their T
 * of the previous row and their F. At step s it computes row s - t, so the T
 * and E of its left neighbour's last column for that row arrived by shuffle
 * at the end of step s - 1 (an anti-diagonal wavefront).
 *
 * Rows outside the query and columns beyond a subject's end use a padding
 * class that scores <= 0. Such cells never raise the maximum: a padded
 * column lies right of every real column and so cannot feed one, a padded
 * row before the query keeps H = 0 and leaves F where the boundary would,
 * and a padded row after it only lowers what it inherits. So no step needs
 * a bounds check.
 *
 * Multipass kernels cover G * R columns per pass; the last thread's H and E
 * of each row go to a global column buffer, which the first thread of the
 * next pass reads as its left boundary. Both go through registers of the
 * whole group, G rows at a time, so every global access is coalesced.
 *
 * PSSM kernels (32-bit lanes only: they redo what may have saturated) read a
 * query's position-specific scores from global memory instead of the table:
 * a PSSM has a row per query position, too many for shared memory, and the
 * rows a warp reads at a step are a few hundred bytes that stay in cache. */
template <class L, int G, int R, bool MULTIPASS, bool PSSM = false>
__global__ void align_kernel(const sw_gk_align_params p)
{
    static_assert(G == 4 || G == 8 || G == 16 || G == 32, "group size");
    static_assert(R % 2 == 0 && R >= 2, "columns per thread are paired for the maximum");
    static_assert(!PSSM || L::subjects == 1, "PSSM scores in 32-bit lanes only");
    constexpr int GROUPS = 32 / G;

    extern __shared__ uint4 sw_dyn_smem[];
    uint8_t *const smem = (uint8_t *)sw_dyn_smem;
    uint8_t *const subject_class = smem + (size_t)p.table_words * 4;
    {
        /* Every score plus open + ext: the cells keep H - open - ext (see
         * above), so the diagonal term comes out as H + score. A 16-bit
         * lane's word keeps its score zero-extended. */
        const uint32_t oe = (uint32_t)(p.gap_open + p.gap_extend);
        const uint32_t *const from = (const uint32_t *)p.table;
        uint32_t *const to = (uint32_t *)sw_dyn_smem;
        for (uint32_t i = threadIdx.x; i < p.table_words; i += blockDim.x)
            to[i] = L::subjects == 2 ? ((from[i] + oe) & 0xffffu) : from[i] + oe;
    }
    if (threadIdx.x < SW_CODE_LIMIT) subject_class[threadIdx.x] = p.subject_class[threadIdx.x];
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int t = lane & (G - 1);
    const int group = lane / G;
    const uint32_t global_group = (blockIdx.x * blockDim.x + threadIdx.x) / G;
    const uint32_t items = p.list_count ? *p.list_count : (L::subjects == 2 ? (p.count + 1) / 2 : p.count);

    const uint32_t neg = L::splat(L::subjects == 2 ? SW_GK_NEG16 : SW_GK_NEG32);
    const uint32_t neg_open_ext = L::splat(-(p.gap_open + p.gap_extend));
    const uint32_t neg_ext = L::splat(-p.gap_extend);
    /* T = H - open - ext of a cell where H = 0. */
    const uint32_t h_zero = neg_open_ext;
    const uint32_t sc = p.subject_classes;
    /* 32-bit lanes: one row of sc words per query class. 16-bit lanes:
     * every lane has its own copy of the table, one word in every 32, so
     * that a warp's loads never meet in a bank; a query class takes
     * sc * 128 bytes. */
    const uint32_t row_bytes = sc * 4;
    const uint32_t lane_row_bytes = sc * 128;
    const uint32_t unit = p.unit, high_lane = p.high_lane;
    const uint32_t lane_bytes = lane * 4;
    const uint32_t pad_class = sc - 1;
    const int qlen = (int)p.query_len;
    const int steps = qlen + G - 1;
    /* Thread t reads row s - t at step s. */
    const uint8_t *const query = p.query - t;
    const uint32_t oe = (uint32_t)(p.gap_open + p.gap_extend);
    const int32_t *const pssm = PSSM ? p.pssm - (ptrdiff_t)t * sc : nullptr;

    /* The whole warp takes GROUPS items at a time, so that every loop below
     * is warp-uniform and full-mask shuffles are legal. Items run from the
     * longest subjects down: the longest finish first rather than last. */
    for (;;) {
        uint32_t base = 0;
        if (lane == 0) base = atomicAdd(p.work, GROUPS);
        base = __shfl_sync(FULL_MASK, base, 0);
        if (base >= items) break;
        const uint32_t item = base + group;

        uint32_t seq_a = 0, seq_b = 0, len_a = 0, len_b = 0;
        const uint8_t *res_a = p.residues, *res_b = p.residues;
        const bool valid = item < items;
        bool has_b = false;
        if (valid) {
            const uint32_t back = items - 1 - item;
            if (L::subjects == 2) {
                seq_a = p.first + 2 * back;
                has_b = 2 * back + 1 < p.count;
                seq_b = seq_a + 1;
            } else {
                seq_a = p.list ? p.list[item] : p.first + back;
            }
            sw_lanes::load_subjects(p, seq_a, seq_b, has_b, len_a, len_b, res_a, res_b);
        }

        uint32_t passes = 1;
        if (MULTIPASS) {
            const uint32_t cols = len_a > len_b ? len_a : len_b;
            passes = (cols + G * R - 1) / (G * R);
            for (int m = 16; m > 0; m >>= 1) {
                const uint32_t o = __shfl_xor_sync(FULL_MASK, passes, m);
                passes = o > passes ? o : passes;
            }
        }

        uint32_t best = h_zero;
        for (uint32_t pass = 0; pass < passes; ++pass) {
            /* Byte offsets of each column's table entries: in 16-bit lanes
             * one per subject (within this lane's copy of the table), in
             * 32-bit lanes one within a table row. */
            uint32_t col_a[R], col_b[L::subjects == 2 ? R : 1];
            const uint32_t c0 = pass * (G * R) + t * R;
#pragma unroll
            for (int k = 0; k < R; ++k) {
                const uint32_t c = c0 + k;
                const uint32_t a = c < len_a ? subject_class[res_a[c]] : pad_class;
                if constexpr (L::subjects == 2) {
                    const uint32_t b = c < len_b ? subject_class[res_b[c]] : pad_class;
                    col_a[k] = a * 128;
                    col_b[k] = b * 128;
                } else {
                    col_a[k] = a * 4;
                }
            }
            /* H of the previous row in one array, of this row in the other:
             * steps go in pairs and swap them, so no register is copied. */
            uint32_t h0[R], h1[R], f[R];
#pragma unroll
            for (int k = 0; k < R; ++k) {
                h0[k] = h_zero;
                h1[k] = h_zero;
                f[k] = neg;
            }
            /* Left H and E of the current row, and left H of the row before. */
            uint32_t h_left = h_zero, e_left = neg, h_diag = h_zero;

            uint2 *temp_in = nullptr, *temp_out = nullptr;
            const bool has_in = MULTIPASS && pass > 0;
            const bool has_out = MULTIPASS && pass + 1 < passes;
            uint2 in_now = make_uint2(h_zero, neg), in_next = make_uint2(h_zero, neg), out = make_uint2(0, 0);
            if (MULTIPASS) {
                uint2 *const mine = p.temp + (size_t)global_group * 2 * p.temp_rows;
                temp_out = mine + (pass & 1) * p.temp_rows;
                temp_in = mine + ((pass + 1) & 1) * p.temp_rows;
            }
            if (has_in) {
                if (t < qlen) in_now = temp_in[t];
                if (G + t < qlen) in_next = temp_in[G + t];
                const uint32_t bh = __shfl_sync(FULL_MASK, in_now.x, 0, G);
                const uint32_t be = __shfl_sync(FULL_MASK, in_now.y, 0, G);
                if (t == 0) {
                    h_left = bh;
                    e_left = be;
                }
            }

            auto step = [&](const int s, const uint32_t(&h_prev)[R], uint32_t(&h_cur)[R]) {
                const uint32_t r = PSSM ? 0 : query[s];
                /* Byte offset of this row in shared memory (16-bit lanes:
                 * in this lane's copy). */
                const uint32_t row = L::subjects == 2 ? lane_bytes + r * lane_row_bytes : r * row_bytes;
                const uint8_t *const pssm_row = PSSM ? (const uint8_t *)(pssm + (ptrdiff_t)s * sc) : nullptr;
                uint32_t e = e_left, diag = h_diag;
#pragma unroll
                for (int k = 0; k < R; ++k) {
                    uint32_t score;
                    if constexpr (L::subjects == 2) {
                        /* Address arithmetic and the packing of the two
                         * scores (b * 65536 + a, each word holding its score
                         * zero-extended from 16 bits) are multiply-adds by
                         * values the compiler cannot see, so they run on the
                         * FMA pipe; the DPX instructions fill the ALU pipe. */
                        const uint32_t wa = *(const uint32_t *)(smem + mad(col_a[k], unit, row));
                        const uint32_t wb = *(const uint32_t *)(smem + mad(col_b[k], unit, row));
                        score = mad(wb, high_lane, wa);
                    } else if constexpr (PSSM) {
                        score = (uint32_t)__ldg((const int32_t *)(pssm_row + col_a[k])) + oe;
                    } else {
                        score = *(const uint32_t *)(smem + row + col_a[k]);
                    }
                    /* X = max(H(diag) + s, F, 0) - open - ext; then
                     * E(next) = max(E - ext, X): the only step that
                     * waits on the previous column (see above). */
                    sw_lanes::cell<L>(diag, h_prev[k], h_cur[k], f[k], e, score, neg_open_ext, neg_ext);
                }
#pragma unroll
                for (int k = 0; k < R; k += 2) best = L::max3(best, h_cur[k], h_cur[k + 1]);

                const uint32_t h_up = __shfl_up_sync(FULL_MASK, h_cur[R - 1], 1, G);
                const uint32_t e_up = __shfl_up_sync(FULL_MASK, e, 1, G);
                h_diag = h_left;
                uint32_t bh = h_zero, be = neg;
                if (has_in) {
                    const int r1 = s + 1;
                    if ((r1 & (G - 1)) == 0) {
                        in_now = in_next;
                        const int next = r1 + G + t;
                        in_next = next < qlen ? temp_in[next] : make_uint2(h_zero, neg);
                    }
                    bh = __shfl_sync(FULL_MASK, in_now.x, r1 & (G - 1), G);
                    be = __shfl_sync(FULL_MASK, in_now.y, r1 & (G - 1), G);
                }
                if (has_out) {
                    /* Lane t ends up with the row that the last thread
                     * finished G - 1 - t steps ago. */
                    out.x = __shfl_down_sync(FULL_MASK, out.x, 1, G);
                    out.y = __shfl_down_sync(FULL_MASK, out.y, 1, G);
                    if (t == G - 1) out = make_uint2(h_cur[R - 1], e);
                    const int last = s - (G - 1);
                    if (last >= 0 && ((last & (G - 1)) == G - 1 || last == qlen - 1)) {
                        const int r2 = last - (G - 1) + t;
                        if (r2 >= 0 && r2 >= (last & ~(G - 1)) && r2 < qlen) temp_out[r2] = out;
                    }
                }
                h_left = t ? h_up : bh;
                e_left = t ? e_up : be;
            };
            /* An even number of steps; an extra one reads a padding row,
             * which cannot raise the maximum (see above). */
            for (int s = 0; s < steps; s += 2) {
                step(s, h0, h1);
                step(s + 1, h1, h0);
            }
            /* The next pass reads what other lanes of this warp wrote. */
            if (MULTIPASS) __syncwarp();
        }

#pragma unroll
        for (int m = G / 2; m > 0; m >>= 1) best = L::max(best, __shfl_xor_sync(FULL_MASK, best, m, G));
        if (valid && t == 0) {
            if (L::subjects == 2) {
                sw_lanes::store_pair(best, h_zero, seq_a, seq_b, has_b, p.limit, p.scores, p.overflow,
                                     p.overflow_count);
            } else {
                p.scores[seq_a] = (int32_t)best - (int32_t)h_zero;
            }
        }
    }
}

typedef void (*align_fn)(const sw_gk_align_params);

struct align_entry {
    sw_gk_config config;
    align_fn fn;
};

/* Single-pass kernels for every bucket width the engine plans with, two
 * multipass kernels for longer subjects, and the 32-bit kernel; one list for
 * the host's table and the device-side launcher. */
#define SW_GK_ALIGN_KERNELS(X)                                                             \
    X(lanes16, 4, 8, false, 0) X(lanes16, 4, 16, false, 0) X(lanes16, 4, 24, false, 0)     \
    X(lanes16, 4, 32, false, 0) X(lanes16, 8, 16, false, 0) X(lanes16, 8, 20, false, 0)    \
    X(lanes16, 8, 24, false, 0) X(lanes16, 8, 32, false, 0) X(lanes16, 16, 16, false, 0)   \
    X(lanes16, 16, 20, false, 0) X(lanes16, 16, 24, false, 0) X(lanes16, 16, 28, false, 0) \
    X(lanes16, 16, 32, false, 0) X(lanes16, 32, 16, false, 0) X(lanes16, 32, 20, false, 0) \
    X(lanes16, 32, 24, false, 0) X(lanes16, 32, 28, false, 0) X(lanes16, 32, 32, false, 0) \
    X(lanes16, 32, 16, true, 0) X(lanes16, 32, 32, true, 0) X(lanes32, 32, 16, true, 1)

#define SW_GK_ENTRY(L, g, r, mp, wide) {{g, r, mp, wide, 0}, align_kernel<L, g, r, mp>},

/* The device-side launcher knows the list above; the PSSM kernel, last,
 * is launched from the host only. */
const align_entry align_kernels[] = {SW_GK_ALIGN_KERNELS(SW_GK_ENTRY){{32, 16, 1, 1, 1}, align_kernel<lanes32, 32, 16, true, true>}};

constexpr int num_align_kernels = (int)(sizeof align_kernels / sizeof align_kernels[0]);

/* ---- top-N selection ---- */

__global__ void hist_kernel(const sw_gk_select_params p)
{
    extern __shared__ uint4 sw_dyn_smem[];
    uint32_t *const h = (uint32_t *)sw_dyn_smem;
    for (int i = threadIdx.x; i < SW_GK_HIST_BINS; i += blockDim.x) h[i] = 0;
    __syncthreads();
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < p.num_seqs; i += gridDim.x * blockDim.x) {
        const int s = p.scores[i];
        if (s > 0) atomicAdd(&h[s < SW_GK_HIST_BINS ? s : SW_GK_HIST_BINS - 1], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < SW_GK_HIST_BINS; i += blockDim.x)
        if (h[i]) atomicAdd(&p.hist[i], h[i]);
}

/* One block of SW_GK_HIST_BINS / 4 threads: the threshold is the highest
 * score T with at least top_n positive scores >= T (1 if there are fewer). */
constexpr int THRESHOLD_THREADS = SW_GK_HIST_BINS / 4;

__global__ void threshold_kernel(const sw_gk_select_params p)
{
    extern __shared__ uint4 sw_dyn_smem[];
    uint32_t *const sum = (uint32_t *)sw_dyn_smem;
    const int tid = threadIdx.x;
    /* Thread 0 takes the four highest bins, thread 1 the next four, ... */
    uint32_t c[4], local = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        c[j] = p.hist[SW_GK_HIST_BINS - 1 - 4 * tid - j];
        local += c[j];
    }
    sum[tid] = local;
    __syncthreads();
    for (int off = 1; off < THRESHOLD_THREADS; off <<= 1) {
        const uint32_t v = tid >= off ? sum[tid - off] : 0;
        __syncthreads();
        sum[tid] += v;
        __syncthreads();
    }
    uint32_t cum = sum[tid] - local;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const uint32_t bin = SW_GK_HIST_BINS - 1 - 4 * tid - j;
        if (cum < p.top_n && cum + c[j] >= p.top_n) p.ctl[SW_GK_CTL_THRESHOLD] = bin > 1 ? bin : 1;
        cum += c[j];
    }
    if (tid == 0 && sum[THRESHOLD_THREADS - 1] < p.top_n) p.ctl[SW_GK_CTL_THRESHOLD] = 1;
}

__global__ void compact_kernel(const sw_gk_select_params p)
{
    const int threshold = (int)p.ctl[SW_GK_CTL_THRESHOLD];
    const int lane = threadIdx.x & 31;
    const uint32_t stride = gridDim.x * blockDim.x;
    /* Warp-uniform loop, one atomic per warp and round. */
    for (uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) & ~31u; w < p.num_seqs; w += stride) {
        const uint32_t i = w + lane;
        const int s = i < p.num_seqs ? p.scores[i] : 0;
        const bool take = s >= threshold && s > 0;
        const uint32_t mask = __ballot_sync(FULL_MASK, take);
        if (!mask) continue;
        uint32_t at = 0;
        if (lane == 0) at = atomicAdd(&p.ctl[SW_GK_CTL_CAND_COUNT], (uint32_t)__popc(mask));
        at = __shfl_sync(FULL_MASK, at, 0) + __popc(mask & ((1u << lane) - 1));
        if (take) {
            p.cand_keys[at] = (uint64_t)(uint32_t)s << 32 | (uint32_t)~p.tiebreak[i];
            p.cand_seqs[at] = i;
        }
    }
}

constexpr int SELECT_THREADS = 1024;

/* Sorts the candidates by key, best first, in one block. Where there are
 * more than fit, a radix select over the keys (8 bits at a time) first finds
 * the key of rank top_n; keys are unique, so exactly top_n are >= it. */
__global__ void select_kernel(const sw_gk_select_params p)
{
    extern __shared__ uint4 sw_dyn_smem[];
    const uint32_t cap = p.sort_capacity;
    uint64_t *const keys = (uint64_t *)sw_dyn_smem;
    uint32_t *const vals = (uint32_t *)(keys + cap);
    uint32_t *const digits = vals + cap; /* 256 */
    uint32_t *const shared_n = digits + 256;
    uint64_t *const shared_key = (uint64_t *)(shared_n + 2);
    const int tid = threadIdx.x;
    const uint32_t total = p.ctl[SW_GK_CTL_CAND_COUNT] < p.num_seqs ? p.ctl[SW_GK_CTL_CAND_COUNT] : p.num_seqs;

    uint32_t n = total;
    if (total <= cap) {
        for (uint32_t i = tid; i < cap; i += blockDim.x) {
            keys[i] = i < total ? p.cand_keys[i] : 0;
            vals[i] = i < total ? p.cand_seqs[i] : 0;
        }
    } else {
        uint64_t prefix = 0;
        uint32_t remaining = p.top_n;
        for (int shift = 56; shift >= 0; shift -= 8) {
            const uint64_t high = shift == 56 ? 0 : ~0ull << (shift + 8);
            for (int i = tid; i < 256; i += blockDim.x) digits[i] = 0;
            __syncthreads();
            for (uint32_t i = tid; i < total; i += blockDim.x) {
                const uint64_t k = p.cand_keys[i];
                if ((k & high) == prefix) atomicAdd(&digits[(k >> shift) & 255], 1u);
            }
            __syncthreads();
            if (tid == 0) {
                uint32_t above = 0;
                int d = 255;
                for (; d > 0; --d) {
                    if (above + digits[d] >= remaining) break;
                    above += digits[d];
                }
                *shared_key = prefix | (uint64_t)d << shift;
                shared_n[0] = remaining - above;
            }
            __syncthreads();
            prefix = *shared_key;
            remaining = shared_n[0];
            __syncthreads();
        }
        if (tid == 0) shared_n[1] = 0;
        for (uint32_t i = tid; i < cap; i += blockDim.x) keys[i] = 0;
        __syncthreads();
        for (uint32_t i = tid; i < total; i += blockDim.x) {
            const uint64_t k = p.cand_keys[i];
            if (k >= prefix) {
                const uint32_t at = atomicAdd(&shared_n[1], 1u);
                if (at < cap) {
                    keys[at] = k;
                    vals[at] = p.cand_seqs[i];
                }
            }
        }
        __syncthreads();
        n = shared_n[1] < cap ? shared_n[1] : cap;
    }
    __syncthreads();

    /* Bitonic sort, descending. */
    for (uint32_t k = 2; k <= cap; k <<= 1) {
        for (uint32_t j = k >> 1; j > 0; j >>= 1) {
            for (uint32_t i = tid; i < cap; i += blockDim.x) {
                const uint32_t o = i ^ j;
                if (o > i) {
                    const uint64_t a = keys[i], b = keys[o];
                    if ((i & k) == 0 ? a < b : a > b) {
                        keys[i] = b;
                        keys[o] = a;
                        const uint32_t v = vals[i];
                        vals[i] = vals[o];
                        vals[o] = v;
                    }
                }
            }
            __syncthreads();
        }
    }
    const uint32_t out = n < p.top_n ? n : p.top_n;
    for (uint32_t i = tid; i < out; i += blockDim.x) {
        sw_gk_hit hit;
        hit.score = (int32_t)(keys[i] >> 32);
        hit.seq = vals[i];
        p.out[i] = hit;
    }
    if (tid == 0) p.ctl[SW_GK_CTL_OUT_COUNT] = out;
}

} /* namespace */

int sw_gk_num_configs(void) { return num_align_kernels; }

const sw_gk_config *sw_gk_get_config(int id)
{
    return id >= 0 && id < num_align_kernels ? &align_kernels[id].config : nullptr;
}

size_t sw_gk_align_smem(uint32_t table_words) { return (size_t)table_words * 4 + SW_CODE_LIMIT; }

cudaError_t sw_gk_align_prepare(int id, size_t block_limit)
{
    return sw_gk_allow_shared(align_kernels[id].fn, block_limit);
}

cudaError_t sw_gk_align_occupancy(int id, int threads, size_t smem, int *blocks_per_sm)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, align_kernels[id].fn, threads, smem);
}

cudaError_t sw_gk_align_launch(int id, int blocks, int threads, size_t smem, cudaStream_t stream,
                               const sw_gk_align_params *p)
{
    const align_fn fn = align_kernels[id].fn;
    fn<<<blocks, threads, smem, stream>>>(*p);
    return cudaGetLastError();
}

#ifdef SW_GK_DEVICE_LAUNCH
__device__ cudaError_t sw_gk_align_launch_device(int id, int blocks, int threads, uint32_t smem,
                                                 const sw_gk_align_params *p)
{
    int k = 0;
#define SW_GK_DEVICE_CASE(L, g, r, mp, wide)                                              \
    if (id == k++) {                                                                       \
        align_kernel<L, g, r, mp><<<blocks, threads, smem, cudaStreamFireAndForget>>>(*p); \
        return cudaGetLastError();                                                         \
    }
    SW_GK_ALIGN_KERNELS(SW_GK_DEVICE_CASE)
#undef SW_GK_DEVICE_CASE
    return cudaErrorInvalidValue;
}
#endif

size_t sw_gk_select_smem(uint32_t sort_capacity)
{
    return (size_t)sort_capacity * 12 + 256 * 4 + 16;
}

cudaError_t sw_gk_select_prepare(size_t block_limit)
{
    return sw_gk_allow_shared(select_kernel, block_limit);
}

cudaError_t sw_gk_select_launch(int blocks, cudaStream_t stream, const sw_gk_select_params *p)
{
    hist_kernel<<<blocks, 256, SW_GK_HIST_BINS * 4, stream>>>(*p);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    threshold_kernel<<<1, THRESHOLD_THREADS, THRESHOLD_THREADS * 4, stream>>>(*p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    compact_kernel<<<blocks, 256, 0, stream>>>(*p);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    select_kernel<<<1, SELECT_THREADS, sw_gk_select_smem(p->sort_capacity), stream>>>(*p);
    return cudaGetLastError();
}
