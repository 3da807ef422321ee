/* The GPU engine of profile-profile alignment (sw_profile_gpu.h).
 *
 * A round takes as many pairs as the GPU's memory holds and runs four
 * kernels on one stream:
 *   prepare: a thread a column, each column's operand bytes for the
 *     tensor cores' m16n8k32 products (the first profile's frequencies,
 *     unsigned; the second's 2 g for the Euclidean score, or its
 *     expected-score terms T = M g split as lo + 64 hi, lo unsigned and hi
 *     signed) in the order the fragments take them, and its costs;
 *   prepare_edges: row 0 and column 0 of each pair's matrix;
 *   sweep: persistent warps take (pair, strip) items strip-major (every
 *     pair's first strip, then every pair's second, ...), so that a strip
 *     seldom waits for the one above it; a strip is
 *     32 rows (columns of the first profile), a lane a row; step s has lane
 *     t at column s - t. Every 32 steps the warp computes the next 32 x 32
 *     tile of column scores with int8 tensor-core products (exact int32)
 *     into shared memory, loads the tile's column costs there too, and
 *     fetches its row above from the strip before (a row buffer per pair,
 *     overwritten in place, with a progress counter per strip); the
 *     kernel is bound by the latency of those loads, not by its
 *     instructions (bench/JOURNAL.md, 2026-11-26). A cell leaves 4 traceback bits, 8
 *     steps to a word, a warp's words side by side;
 *   walk: one thread a pair follows the bits back from the last cell.
 * The recurrences, costs and tie rule are sw_profile_align.c's, cell for
 * cell, in int32 (the host checks that no value can reach 2^30 in size;
 * value_bound says why the check holds, on the ranges the prepare kernels
 * find; a round whose check fails is an error, its results unused). The
 * host stages the columns as they are, on all its cores. */
#include "sw_profile_gpu.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <type_traits>
#include <memory>
#include <new>
#include <vector>

#include "sw_clock.h"
#include "sw_cuda_check.h"
#include "sw_pool.h"

namespace {

constexpr int LANES = 32;
constexpr int K = SW_PROFILE_GPU_SYMBOLS;
constexpr int TILE = 32;      /* columns of a score tile (and rows of a strip) */
/* A tile row in shared memory: 32 ints. The sweep's skewed reads (lane t,
 * column q - t) then fall in bank q - t mod 32, all different. */
constexpr int TILE_LD = 32;
/* Warps a block (bench/JOURNAL.md, 2026-11-26, measures 1, 2 and 4; the sweep's 9 KB
 * of static shared memory a warp leave no room for 8). */
#ifndef SW_PROFILE_WARPS
#define SW_PROFILE_WARPS 4
#endif
constexpr int WARPS = SW_PROFILE_WARPS;
/* The sweep's 80 registers a thread hold 24 warps an SM. */
constexpr int SWEEP_MIN_BLOCKS = 24 / WARPS;
constexpr int NEG = -(1 << 30);
constexpr unsigned FULL = 0xffffffffu;

/* Traceback bits of a cell, as sw_profile_align.c's byte. */
enum { FROM_DIAG = 0, FROM_E = 1, FROM_F = 2, E_OPENED = 4, F_OPENED = 8 };

struct pair_desc {
    int m, n, m_pad, n_pad;
    long long in_off;   /* bytes: a's columns, then b's, K bytes each */
    long long row_off;  /* rows before this pair's (padded to 32) in the row arrays */
    long long col_off;  /* columns before this pair's (padded to 32) in the column arrays */
    long long tb_off;   /* words */
    long long step_off; /* bytes */
    int strips, item0;  /* strips, and the progress counter of the first */
    int tb_words;       /* words a strip */
    /* The scores in global memory (SW_PROFILE_GPU_SCORES_GLOBAL): ints
     * before this pair's, and score tiles before this pair's. */
    long long score_off, tile0;
};

struct round_args {
    const pair_desc *desc;
    int pairs, items;
    const uint8_t *in;
    /* The tensor cores' operands, in the order their fragments take them
     * (operand_word): a row's 32 symbols (unsigned), and a column's 32
     * (unsigned: 2 b, or the expected score's lo) followed, with_hi, by 32
     * more (signed: hi), 32 or 64 bytes a column. */
    uint8_t *a_vec, *b_vec;
    int4 *a_cost, *b_cost;       /* gap, open, subtracted term */
    int *h_col;                  /* H(i, 0), i = 0..m: row_off + pair index */
    int2 *row;                   /* a pair's row buffer: H and F of the last row done */
    const int2 *order;           /* the items: (pair, strip), in the order warps take them */
    int *progress;               /* per strip (item0 + strip): columns of its last row done */
    unsigned *tb;
    uint8_t *steps;
    int *score;
    unsigned *next_item;
    int with_hi;
    /* SW_PROFILE_GPU_SCORES_GLOBAL: every pair's column scores, less the
     * subtracted terms, skewed for the sweep (score_matrix). */
    int *scores;
    /* Per pair, found by prepare for the host's range check: the largest
     * column sum of each profile and whether a Euclidean 2 b leaves the
     * unsigned byte (x, y, z). */
    int4 *ranges;
};

struct scoring_dev {
    int euclid, symbols, scale, gap_open, gap_extend;
    short matrix[K * K];
};

__device__ __forceinline__ int load_acquire(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_release(int *p, int v)
{
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* The pair whose range [off, off + size) of rows (or columns, or items)
 * holds `key`: offsets ascend with the pair. */
template <typename F> __device__ int find_pair(const pair_desc *d, int pairs, long long key, F offset)
{
    int lo = 0, hi = pairs - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (offset(d[mid]) <= key) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Costs of a column against a gap, as sw_profile_gap_cost and
 * sw_profile_gap_open_cost; `f` its frequencies, 0 past the symbols. */
__device__ __forceinline__ int2 column_costs(const scoring_dev &s, const int (&f)[K])
{
    const int gap = s.symbols - 1;
    if (s.euclid) {
        int d2 = 0;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int d = f[k] - (k == gap ? s.scale : 0);
            d2 += d * d;
        }
        return make_int2(d2, s.gap_open * s.scale * s.scale);
    }
    int residues = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) residues += k < gap ? f[k] : 0;
    return make_int2(s.gap_extend * s.scale * residues, s.gap_open * s.scale * residues);
}

/* Where symbol k of a row or column goes among its operand words, so that
 * the thread with k / 4 mod 4 = t4 finds its two groups of four (k below 16
 * and k from 16: one register each of the m16n8k32 fragments) as two
 * consecutive words, 8 bytes; `part` 1: the expected score's hi bytes,
 * after the lo bytes of the same thread (16 bytes a thread then). */
__host__ __device__ constexpr int operand_word(int k, int part, bool with_hi)
{
    return with_hi ? ((k & 15) >> 2) * 4 + part * 2 + (k >> 4) : ((k & 15) >> 2) * 2 + (k >> 4);
}

/* c + the sum of the four products of a's signed bytes with b's unsigned
 * ones. */
__device__ __forceinline__ int dp4a_signed_unsigned(uint32_t a, uint32_t b, int c)
{
    int d;
    asm("dp4a.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* Threads of a `prepare` block. A block's work item, from the host's
 * list (prep_blocks): its pair, its side (0: the first profile's columns,
 * the rows of the matrix; 1: the second's) and its first column. */
constexpr int PREP_THREADS = 128;

/* Each column's operand bytes and costs, a thread a column (padding
 * columns get zeros), and the largest column sum of each side of each pair
 * (ranges; with whether a Euclidean 2 b leaves its byte). */
__global__ void __launch_bounds__(PREP_THREADS) prepare(round_args r, scoring_dev s, const int4 *blocks)
{
    /* The substitution matrix as signed bytes, four to a word, for dp4a
     * (the host checks that its entries fit). */
    __shared__ __align__(16) uint32_t matrix[K * K / 4];
    const int4 item = blocks[blockIdx.x];
    const int p = item.x, side = item.y, lane = threadIdx.x & (LANES - 1);
    const pair_desc d = r.desc[p];
    const bool terms = side == 1 && !s.euclid;
    if (terms) {
        for (int k = threadIdx.x; k < K * K / 4; k += blockDim.x) {
            const short *m = s.matrix + 4 * k;
            matrix[k] = (uint32_t)(m[0] & 0xff) | (uint32_t)(m[1] & 0xff) << 8 | (uint32_t)(m[2] & 0xff) << 16 |
                        (uint32_t)(m[3] & 0xff) << 24;
        }
        __syncthreads();
    }
    const int i = item.z + threadIdx.x, count = side ? d.n : d.m, padded = side ? d.n_pad : d.m_pad;
    int sum = 0, high = 0;
    if (i < padded) {
        const long long g = (side ? d.col_off : d.row_off) + i;
        const uint8_t *src = r.in + d.in_off + ((long long)(side ? d.m : 0) + i) * s.symbols;
        const bool real = i < count;
        int f[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            f[k] = real && k < s.symbols ? src[k] : 0;
            sum += f[k];
            high |= f[k];
        }
        int4 cost = make_int4(0, 0, 0, 0);
        if (real) {
            const int2 c = column_costs(s, f);
            int n2 = 0;
            if (s.euclid)
#pragma unroll
                for (int k = 0; k < K; ++k) n2 += f[k] * f[k];
            cost = make_int4(c.x, c.y, n2, 0);
        }
        (side ? r.b_cost : r.a_cost)[g] = cost;
        if (!terms) {
            /* The frequencies, or the Euclidean score's 2 b. */
            uint32_t w[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
            for (int k = 0; k < K; ++k)
                w[operand_word(k, 0, false)] |= (uint32_t)((side ? 2 : 1) * f[k] & 0xff) << 8 * (k & 3);
            uint4 *out = (uint4 *)((side ? r.b_vec : r.a_vec) + g * K);
            out[0] = make_uint4(w[0], w[1], w[2], w[3]);
            out[1] = make_uint4(w[4], w[5], w[6], w[7]);
        } else {
            /* T[x] = sum over y of M[x][y] b[y]: lo in 0..63, T = lo + 64 hi;
             * four products and their sum a dp4a. */
            uint32_t fw[K / 4], w[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
            for (int q = 0; q < K / 4; ++q)
                fw[q] = (uint32_t)f[4 * q] | (uint32_t)f[4 * q + 1] << 8 | (uint32_t)f[4 * q + 2] << 16 |
                        (uint32_t)f[4 * q + 3] << 24;
#pragma unroll
            for (int x = 0; x < K; ++x) {
                int t = 0;
                const uint4 *row = (const uint4 *)(matrix + x * (K / 4));
#pragma unroll
                for (int h = 0; h < K / 16; ++h) {
                    const uint4 m = row[h];
                    t = dp4a_signed_unsigned(m.x, fw[4 * h], t);
                    t = dp4a_signed_unsigned(m.y, fw[4 * h + 1], t);
                    t = dp4a_signed_unsigned(m.z, fw[4 * h + 2], t);
                    t = dp4a_signed_unsigned(m.w, fw[4 * h + 3], t);
                }
                if (x >= s.symbols) t = 0;
                const int hi = t >> 6, lo = t - hi * 64;
                w[operand_word(x, 0, true)] |= (uint32_t)lo << 8 * (x & 3);
                w[operand_word(x, 1, true)] |= (uint32_t)(hi & 0xff) << 8 * (x & 3);
            }
            uint4 *out = (uint4 *)(r.b_vec + g * 2 * K);
#pragma unroll
            for (int q = 0; q < 4; ++q) out[q] = make_uint4(w[4 * q], w[4 * q + 1], w[4 * q + 2], w[4 * q + 3]);
        }
    }
    /* A block's columns are one pair's: a maximum a warp, then one atomic. */
    sum = (int)__reduce_max_sync(FULL, (unsigned)sum);
    high = (int)__reduce_or_sync(FULL, (unsigned)high);
    if (lane == 0) {
        atomicMax(side ? &r.ranges[p].y : &r.ranges[p].x, sum);
        if (side && s.euclid && (high & 0x80)) atomicOr(&r.ranges[p].z, 1);
    }
}

/* Row 0 (H, and F = -inf) into the pair's row buffer and column 0 into
 * h_col: a warp a pair, running sums 32 at a time. */
__global__ void prepare_edges(round_args r)
{
    const int p = blockIdx.x * (blockDim.x / LANES) + threadIdx.x / LANES, lane = threadIdx.x & (LANES - 1);
    if (p >= r.pairs) return;
    const pair_desc d = r.desc[p];
    const int4 *bc = r.b_cost + d.col_off, *ac = r.a_cost + d.row_off;
    int carry = -bc[0].y;
    for (int base = 0; base < d.n; base += LANES) {
        const int j = base + lane;
        int v = j < d.n ? bc[j].x : 0;
        for (int o = 1; o < LANES; o <<= 1) {
            const int u = __shfl_up_sync(FULL, v, o);
            if (lane >= o) v += u;
        }
        if (j < d.n) r.row[d.col_off + j] = make_int2(carry - v, NEG);
        carry -= __shfl_sync(FULL, v, LANES - 1);
    }
    int *hc = r.h_col + d.row_off + p;
    if (lane == 0) hc[0] = 0;
    carry = -ac[0].y;
    for (int base = 0; base < d.m; base += LANES) {
        const int i = base + lane;
        int v = i < d.m ? ac[i].x : 0;
        for (int o = 1; o < LANES; o <<= 1) {
            const int u = __shfl_up_sync(FULL, v, o);
            if (lane >= o) v += u;
        }
        if (i < d.m) hc[i + 1] = carry - v;
        carry -= __shfl_sync(FULL, v, LANES - 1);
    }
}

/* The first profile's columns of a strip, rows [row0, row0 + 32), as the
 * A operand of m16n8k32 products: two row blocks of 16, four registers
 * each (rows g and g + 8 of the block, symbols 4 t4.. and 16 + 4 t4..,
 * g = lane / 4, t4 = lane mod 4). */
typedef uint32_t a_fragments[2][4];

__device__ __forceinline__ void load_a_fragments(const round_args &r, const pair_desc &d, int row0, a_fragments &fa)
{
    const int lane = threadIdx.x & (LANES - 1), g = lane >> 2, t4 = lane & 3;
    const uint8_t *av = r.a_vec + (d.row_off + row0) * K + t4 * 8;
#pragma unroll
    for (int rb = 0; rb < 2; ++rb) {
        const uint2 top = __ldg((const uint2 *)(av + (rb * 16 + g) * K));
        const uint2 low = __ldg((const uint2 *)(av + (rb * 16 + g + 8) * K));
        fa[rb][0] = top.x;
        fa[rb][1] = low.x;
        fa[rb][2] = top.y;
        fa[rb][3] = low.y;
    }
}

/* d = a b + c over 32 symbols, 16 rows by 8 columns: a unsigned bytes, b
 * unsigned or (SIGNED_B) signed bytes, exact in int32. */
template <bool SIGNED_B>
__device__ __forceinline__ void mma_k32(int (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1, const int (&c)[4])
{
    if (SIGNED_B)
        asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%10, %11, %12, %13};"
            : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    else
        asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%10, %11, %12, %13};"
            : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
}

/* The 32 x 32 column scores of rows [row0, row0 + 32) and columns
 * [c0, c0 + 32) of pair d into `tile` (row-major, TILE_LD): a . (2 b), or
 * a . (lo + 64 hi) (HI), exact in int32. Thread (g, t4) holds, of each 16 x
 * 8 block, rows g and g + 8 at columns 2 t4 and 2 t4 + 1. */
template <bool HI>
__device__ __forceinline__ void score_tile(const round_args &r, const pair_desc &d, int c0, int *tile, const a_fragments &fa)
{
    const int lane = threadIdx.x & (LANES - 1), g = lane >> 2, t4 = lane & 3;
    constexpr int BYTES = HI ? 2 * K : K;
    const uint8_t *bv = r.b_vec + (d.col_off + c0 + g) * BYTES + t4 * (HI ? 16 : 8);
#pragma unroll
    for (int nb = 0; nb < 4; ++nb) {
        uint32_t lo[2], hi[2];
        if (HI) {
            const uint4 v = __ldg((const uint4 *)(bv + nb * 8 * BYTES));
            lo[0] = v.x;
            lo[1] = v.y;
            hi[0] = v.z;
            hi[1] = v.w;
        } else {
            const uint2 v = __ldg((const uint2 *)(bv + nb * 8 * BYTES));
            lo[0] = v.x;
            lo[1] = v.y;
        }
#pragma unroll
        for (int rb = 0; rb < 2; ++rb) {
            /* a . hi first, times 64, as the start of a . lo. */
            int acc[4] = {0, 0, 0, 0};
            if (HI) {
                mma_k32<true>(acc, fa[rb], hi[0], hi[1], acc);
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[e] *= 64;
            }
            mma_k32<false>(acc, fa[rb], lo[0], lo[1], acc);
            int *const at = tile + (rb * 16 + g) * TILE_LD + nb * 8 + 2 * t4;
            *(int2 *)at = make_int2(acc[0], acc[1]);
            *(int2 *)(at + 8 * TILE_LD) = make_int2(acc[2], acc[3]);
        }
    }
}

/* Steps of a strip in the skewed score layout: step s holds, for lane t,
 * the score of row t against column s - t. */
__host__ __device__ __forceinline__ long long skew_steps(int n_pad) { return (long long)n_pad + TILE; }

/* The paper's global-memory variant, first half: every column score of
 * every pair into global memory before the sweep, a warp a 32 x 32 tile
 * (the same tensor-core products as the sweep's own tiles), less the
 * terms that the sweep subtracts (a_cost.z, b_cost.z), in the skewed
 * layout that lets the sweep's lanes read one step's scores as one
 * coalesced line: strip k of a pair, step s, lane t at
 * score_off + (k x skew_steps + s) x 32 + t. */
__global__ void __launch_bounds__(WARPS *LANES) score_matrix(round_args r, long long tiles)
{
    __shared__ __align__(32) int smem[WARPS][TILE * TILE_LD];
    const int w = threadIdx.x / LANES, lane = threadIdx.x & (LANES - 1);
    int *const tile = smem[w];
    const long long warps = (long long)gridDim.x * WARPS;
    for (long long item = (long long)blockIdx.x * WARPS + w; item < tiles; item += warps) {
        const int p = find_pair(r.desc, r.pairs, item, [](const pair_desc &x) { return x.tile0; });
        const pair_desc d = r.desc[p];
        const long long local = item - d.tile0, per_strip = d.n_pad / TILE;
        const int k = (int)(local / per_strip), c0 = (int)(local % per_strip) * TILE, row0 = k * TILE;
        a_fragments fa;
        load_a_fragments(r, d, row0, fa);
        __syncwarp();
        if (r.with_hi) score_tile<true>(r, d, c0, tile, fa);
        else score_tile<false>(r, d, c0, tile, fa);
        __syncwarp();
        const int a_sub = r.a_cost[d.row_off + row0 + lane].z;
        int *const out = r.scores + d.score_off + (long long)k * skew_steps(d.n_pad) * LANES;
        /* Step s: lane t's column s - t, where it lies in this tile. */
        for (int q = 0; q < 2 * TILE - 1; ++q) {
            const int s = c0 + q, c = s - lane;
            if (c >= c0 && c < c0 + TILE)
                out[(long long)s * LANES + lane] = tile[lane * TILE_LD + (c - c0)] - a_sub - r.b_cost[d.col_off + c].z;
        }
    }
}

/* GLOBAL: the scores from global memory (score_matrix), less the
 * subtracted terms already. SUBTRACT: tile scores less a term of the row
 * and of the column (the euclid score's norms; the expected score has
 * none). */
template <bool GLOBAL, bool SUBTRACT>
__global__ void __launch_bounds__(WARPS *LANES, SWEEP_MIN_BLOCKS) sweep(round_args r)
{
    /* A warp's shared memory: the score tiles of this 32-column tile and
     * the one before (the skew reads both), the row above for lane 0 (one
     * broadcast load a step instead of two shuffles), and for both tiles
     * the columns' costs (E's extension, E's opening plus extension, and
     * the subtracted term), loaded once a tile instead of from global
     * memory every step. 9 KB a warp: 24 warps an SM. */
    struct warp_shared {
        int tiles[GLOBAL ? 1 : 2][GLOBAL ? 1 : TILE * TILE_LD];
        int2 top[TILE];
        int2 gap[2][TILE];
        int sub[2][SUBTRACT ? TILE : 1];
    };
    __shared__ __align__(32) warp_shared shared[WARPS];
    const int w = threadIdx.x / LANES, lane = threadIdx.x & (LANES - 1);
    warp_shared &sh = shared[w];
    for (;;) {
        int item = 0;
        if (lane == 0) item = (int)atomicAdd(r.next_item, 1u);
        item = __shfl_sync(FULL, item, 0);
        if (item >= r.items) return;
        const int2 pk = r.order[item];
        const int p = pk.x, k = pk.y;
        const pair_desc d = r.desc[p];
        const int row0 = k * TILE, rows = min(TILE, d.m - row0);
        const bool last_strip = k == d.strips - 1;
        const int n = d.n;

        a_fragments fa;
        if (!GLOBAL) load_a_fragments(r, d, row0, fa);
        const int *const strip_scores =
            GLOBAL ? r.scores + d.score_off + (long long)k * skew_steps(d.n_pad) * LANES : nullptr;

        const int4 ac = r.a_cost[d.row_off + row0 + lane];
        const int a_gap = ac.x, a_open_gap = ac.y + ac.x, a_sub = ac.z;
        const int *hc = r.h_col + d.row_off + p;
        int diag = lane < rows ? hc[row0 + lane] : 0;  /* H(i - 1, j - 1) */
        int left = lane < rows ? hc[row0 + lane + 1] : 0; /* H(i, j - 1) */
        int e = NEG, out_h = 0, out_f = NEG;
        int2 *row = r.row + d.col_off;
        const int4 *bc = r.b_cost + d.col_off;
        unsigned *tb = r.tb + d.tb_off + (long long)k * d.tb_words;
        int *const done = r.progress + d.item0 + k;
        const bool hand_on = !last_strip;
        for (int c0 = 0; c0 < n + LANES - 1; c0 += TILE) {
            const int half = (c0 >> 5) & 1;
            if (c0 < n) {
                __syncwarp();
                if (!GLOBAL) score_tile<!SUBTRACT>(r, d, c0, sh.tiles[half], fa);
                /* This tile's column costs, and the row above for columns
                 * [c0, c0 + 32): the pair's first row, or the strip
                 * before's last once it is that far. */
                if (c0 + lane < n) {
                    const int4 cc = __ldg(bc + c0 + lane);
                    sh.gap[half][lane] = make_int2(cc.x, cc.x + cc.y);
                    if (SUBTRACT) sh.sub[half][lane] = cc.z;
                }
                const int want = min(c0 + TILE, n);
                if (k > 0) {
                    if (lane == 0)
                        while (load_acquire(done - 1) < want) __nanosleep(40);
                    __syncwarp();
                }
                if (c0 + lane < n) sh.top[lane] = __ldcg(row + c0 + lane);
                __syncwarp();
            }
            /* Lane t's column at step c0 + q is c0 + q - t: in this tile
             * where q >= t, else in the tile before, both reached through
             * per-tile pointers with the step as the offset. */
            const int *const cur = GLOBAL ? nullptr : sh.tiles[half] + lane * TILE_LD - lane;
            const int *const prev = GLOBAL ? nullptr : sh.tiles[half ^ 1] + lane * TILE_LD - lane + TILE;
            const int2 *const gap_cur = sh.gap[half] - lane, *const gap_prev = sh.gap[half ^ 1] - lane + TILE;
            const int *const sub_cur = SUBTRACT ? sh.sub[half] - lane : nullptr;
            const int *const sub_prev = SUBTRACT ? sh.sub[half ^ 1] - lane + TILE : nullptr;
            int2 *const out_row = row + (c0 - (LANES - 1));
            const int *const skewed = GLOBAL ? strip_scores + (long long)c0 * LANES + lane : nullptr;
            /* 32 steps, 8 at a time (a traceback word); inside the matrix
             * (a full strip, every lane's column in range) without the
             * range checks. */
            auto steps = [&](auto checked) {
#pragma unroll 1
                for (int u = 0; u < TILE; u += 8) {
                    unsigned word = 0;
                    /* The group's pointers, so that each step's loads and
                     * stores take a constant offset. */
                    const int *const cur_u = cur + u, *const prev_u = prev + u;
                    const int2 *const gap_cur_u = gap_cur + u, *const gap_prev_u = gap_prev + u;
                    const int *const sub_cur_u = sub_cur + u, *const sub_prev_u = sub_prev + u;
                    const int2 *const top_u = sh.top + u;
                    int2 *const out_u = out_row + u;
                    const int *const skewed_u = GLOBAL ? skewed + u * LANES : nullptr;
                    const int lane_u = lane - u;
#pragma unroll
                    for (int q8 = 0; q8 < 8; ++q8) {
                        const int q = u + q8, c = c0 + q - lane;
                        const int2 tp = top_u[q8];
                        const int ph = __shfl_up_sync(FULL, out_h, 1), pf = __shfl_up_sync(FULL, out_f, 1);
                        const int shift = 4 * q8;
                        /* Out of range (checked tiles only), a lane
                         * computes nothing it keeps: its global loads and
                         * stores are skipped and its state stays, without a
                         * branch around the step. */
                        const bool act = !checked.value || (lane < rows && c >= 0 && c < n);
                        const bool here = q8 >= lane_u;
                        const int up_h = lane ? ph : tp.x, up_f = lane ? pf : tp.y;
                        const int2 g = (here ? gap_cur_u : gap_prev_u)[q8];
                        int sc = 0;
                        if (GLOBAL) {
                            if (act) sc = __ldg(skewed_u + q8 * LANES);
                        } else {
                            sc = (here ? cur_u : prev_u)[q8];
                            if (SUBTRACT) sc -= a_sub + (here ? sub_cur_u : sub_prev_u)[q8];
                        }
                        const int e_open = left - g.y, e_ext = e - g.x;
                        const int e_new = max(e_open, e_ext);
                        if (act && e_open >= e_ext) word |= (unsigned)E_OPENED << shift;
                        const int f_open = up_h - a_open_gap, f_ext = up_f - a_gap;
                        const int f = max(f_open, f_ext);
                        if (act && f_open >= f_ext) word |= (unsigned)F_OPENED << shift;
                        /* H = max(diag + score, E, F): E wins a tie with the
                         * diagonal's way in, F only where it is above both
                         * (the reference's order). */
                        const int via_diag = diag + sc, de = max(via_diag, e_new), v = max(de, f);
                        if (act && f > de) word |= (unsigned)FROM_F << shift;
                        else if (act && e_new > via_diag) word |= (unsigned)FROM_E << shift;
                        if (act) {
                            e = e_new;
                            diag = up_h;
                            left = v;
                            out_h = v;
                            out_f = f;
                        }
                        if (act && hand_on && lane == LANES - 1) __stcg(out_u + q8, make_int2(v, f));
                        if (checked.value && last_strip && act && lane == rows - 1 && c == n - 1) r.score[p] = v;
                    }
                    __stcg(tb + ((c0 + u) >> 3) * LANES + lane, word);
                }
            };
            /* Unchecked, no lane can reach column n - 1 of the last row. */
            if (rows == TILE && c0 >= TILE && c0 + TILE <= n) steps(std::false_type{});
            else steps(std::true_type{});
            /* Columns [0, c0] of the strip's last row are out (the release
             * orders lane 31's stores before it). */
            if (hand_on && lane == LANES - 1) store_release(done, min(c0 + 1, n));
        }
    }
}

/* One thread a pair: from cell (m, n) back to (0, 0), the steps last first. */
__global__ void walk(round_args r)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= r.pairs) return;
    const pair_desc d = r.desc[p];
    uint8_t *out = r.steps + d.step_off;
    int i = d.m, j = d.n, state = FROM_DIAG, len = 0;
    while (i > 0 && j > 0) {
        const int row = i - 1, col = j - 1, strip = row >> 5, lane = row & 31, s = col + lane;
        const unsigned word = r.tb[d.tb_off + (long long)strip * d.tb_words + (long long)(s >> 3) * LANES + lane];
        const unsigned bits = word >> (4 * (s & 7)) & 15u;
        if (state == FROM_DIAG) state = (int)(bits & 3u);
        if (state == FROM_DIAG) {
            out[len++] = SW_PROFILE_GPU_BOTH;
            --i;
            --j;
        } else if (state == FROM_E) {
            out[len++] = SW_PROFILE_GPU_B_ONLY;
            --j;
            if (bits & E_OPENED) state = FROM_DIAG;
        } else {
            out[len++] = SW_PROFILE_GPU_A_ONLY;
            --i;
            if (bits & F_OPENED) state = FROM_DIAG;
        }
    }
    for (; j > 0; --j) out[len++] = SW_PROFILE_GPU_B_ONLY;
    for (; i > 0; --i) out[len++] = SW_PROFILE_GPU_A_ONLY;
    r.score[r.pairs + p] = len;
}

long long round_up(long long x, long long to) { return (x + to - 1) / to * to; }

/* What a pair takes on the GPU, in bytes; `global`: with its scores. */
long long pair_bytes(int m, int n, bool with_hi, bool global)
{
    const long long mp = round_up(m, TILE), np = round_up(n, TILE), strips = mp / TILE;
    const long long tb = strips * (round_up(n + LANES - 1, TILE) / 8) * LANES * 4;
    const long long scores = global ? mp * skew_steps((int)np) * 4 : 0;
    return (long long)(m + n) * K + mp * K + np * K * (with_hi ? 2 : 1) + (mp + np) * 16 + (mp + 1) * 4 + np * 8 +
           strips * 4 + tb + (m + n) + 8 + (long long)sizeof(pair_desc) + scores +
           (mp / PREP_THREADS + np / PREP_THREADS + 2) * 16;
}

struct device_buffers {
    void *block = nullptr;
    size_t size = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    ~device_buffers()
    {
        cudaFree(block);
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
        if (stream) cudaStreamDestroy(stream);
    }
};

#define PG_CK(call, where) SW_CUDA_CHECK(call, "GPU profile engine", where)

/* What the prepare kernels found in a pair's columns: the largest column
 * sum of each profile, and whether a Euclidean 2 b leaves the byte the
 * tensor cores take. */
struct column_range {
    long long sum_a, sum_b;
    bool too_big;
};

/* The most any value of a pair can reach, in magnitude, or -1 when an
 * operand would not fit its byte (2 b, or the expected score's hi). With `cell` the most
 * a column pair scores in magnitude and `cost` the most one gap step
 * costs (its opening included): H(i, j) is at most cell x min(i, j) (gaps
 * only cost) and at least the score of the path of min(i, j) column pairs
 * and |i - j| gap steps, so within max(cell, cost) x max(i, j); E, F and
 * every candidate are within two more steps of some H. */
/* The largest symbol score in size. */
int largest_entry(const sw_profile_gpu_scoring *s)
{
    int most = 0;
    for (int k = 0; k < s->symbols * s->symbols; ++k)
        most = std::max(most, abs((int)s->matrix[(k / s->symbols) * K + k % s->symbols]));
    return most;
}

/* `most`: largest_entry(s). */
long long value_bound(const sw_profile_gpu_scoring *s, int most, const sw_profile_gpu_pair &x, const column_range &c)
{
    if (c.too_big) return -1;
    long long cell, cost;
    if (s->euclid) {
        cell = (c.sum_a + c.sum_b) * (c.sum_a + c.sum_b) + 1;
        cost = (c.sum_a + s->scale) * (c.sum_a + s->scale) + (c.sum_b + s->scale) * (c.sum_b + s->scale) +
               (long long)s->gap_open * s->scale * s->scale;
    } else {
        /* |T| <= most x sum_b; T = lo + 64 hi with hi an int8. */
        const long long t = (long long)most * c.sum_b;
        if (t > 127 * 64) return -1;
        cell = c.sum_a * t;
        cost = ((long long)s->gap_open + s->gap_extend) * s->scale * std::max(c.sum_a, c.sum_b);
    }
    const long long step = std::max(cell, cost);
    return step * std::max(x.m, x.n) + 2 * (cell + cost);
}

/* Copies the columns of a round's pairs into the staging buffer as they
 * are (`symbols` bytes a column: the prepare kernels widen them and find
 * their ranges): on every core, a pair at a time. */
struct staging {
    const sw_profile_gpu_scoring *s;
    const sw_profile_gpu_pair *pairs;
    const pair_desc *desc;
    uint8_t *dst;
    int count;
    std::atomic<int> next{0};
};

void stage_pairs(void *ctx, int index)
{
    (void)index;
    staging *st = (staging *)ctx;
    const size_t symbols = (size_t)st->s->symbols;
    for (;;) {
        const int x = st->next.fetch_add(1);
        if (x >= st->count) return;
        const sw_profile_gpu_pair &q = st->pairs[x];
        uint8_t *dst = st->dst + st->desc[x].in_off;
        memcpy(dst, q.a, (size_t)q.m * symbols);
        memcpy(dst + (size_t)q.m * symbols, q.b, (size_t)q.n * symbols);
    }
}

/* The staging buffer: host memory in 2 MB pages where the system gives
 * them, since a fresh buffer of hundreds of MB in 4 KB pages spends more
 * time in page faults, all cores faulting at once, than in the copies. */
struct staging_buffer {
    uint8_t *data = nullptr;
    size_t size = 0;
    ~staging_buffer() { free(data); }
    bool reserve(size_t need)
    {
        if (need <= size) return true;
        free(data);
        const size_t page = (size_t)2 << 20, bytes = (need + page - 1) / page * page;
        data = (uint8_t *)aligned_alloc(page, bytes);
        size = data ? bytes : 0;
#ifdef MADV_HUGEPAGE
        if (data) madvise(data, bytes, MADV_HUGEPAGE);
#endif
        return data != nullptr;
    }
};

int align_pairs(const sw_profile_gpu_scoring *s, const sw_profile_gpu_pair *pairs, size_t count,
                const sw_profile_gpu_options *opt, sw_profile_gpu_result *results, sw_profile_gpu_stats *stats,
                sw_error *err)
{
    const int device = opt ? opt->device : 0;
    const bool global = opt && opt->scores == SW_PROFILE_GPU_SCORES_GLOBAL;
    const void *sweep_kernel = global ? (const void *)sweep<true, false>
                                      : s->euclid ? (const void *)sweep<false, true> : (const void *)sweep<false, false>;
    const double t0 = sw_clock_seconds();
    sw_profile_gpu_stats st;
    memset(&st, 0, sizeof st);
    if (s->symbols < 2 || s->symbols > K)
        return sw_error_set(err, SW_EINVAL, "GPU profile engine: %d symbols a column (2 to %d)", s->symbols, K);
    const bool with_hi = !s->euclid;
    for (size_t x = 0; x < count; ++x) {
        if (pairs[x].m < 1 || pairs[x].n < 1)
            return sw_error_set(err, SW_EINVAL, "GPU profile engine: pair %zu has a profile without columns", x);
        st.cells += (uint64_t)pairs[x].m * (uint64_t)pairs[x].n;
    }
    int devices = 0;
    int rc = sw_cuda_device_count(&devices, err);
    if (rc) return rc;
    if (device < 0 || device >= devices) return sw_error_set(err, SW_ENODEV, "no GPU %d (%d found)", device, devices);
    PG_CK(cudaSetDevice(device), "selecting the GPU");

    device_buffers g;
    PG_CK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking), "creating a stream");
    PG_CK(cudaEventCreate(&g.start), "creating an event");
    PG_CK(cudaEventCreate(&g.stop), "creating an event");
    scoring_dev sd;
    memset(&sd, 0, sizeof sd);
    sd.euclid = s->euclid;
    sd.symbols = s->symbols;
    sd.scale = s->scale;
    sd.gap_open = s->gap_open;
    sd.gap_extend = s->gap_extend;
    for (int k = 0; k < K * K; ++k) sd.matrix[k] = s->matrix[k];

    size_t free_bytes = 0, total_bytes = 0;
    PG_CK(cudaMemGetInfo(&free_bytes, &total_bytes), "querying the GPU memory");
    /* A round takes at most half of what is free, and no more than 4 GB:
     * enough pairs to fill the GPU many times over. */
    long long budget = (long long)(free_bytes / 2);
    if (budget > (4ll << 30)) budget = 4ll << 30;
    int sms = 0, per_sm = 0;
    PG_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "querying the GPU");
    PG_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sweep_kernel, WARPS * LANES, 0), "occupancy");
    if (per_sm < 1) return sw_error_set(err, SW_EDEVICE, "GPU profile engine: the kernel does not fit the GPU");
    const int threads = sw_clock_online_cpus();
    const int most = largest_entry(s);
    /* The expected-score terms are summed by dp4a over the matrix as
     * signed bytes. A larger entry would fail the range check anyway for
     * any column of SCALE: its term would exceed 127 x 64 (value_bound). */
    if (!s->euclid && most > 127)
        return sw_error_set(err, SW_ELIMIT,
                            "GPU profile engine: a symbol score of %d in size (the GPU takes at most 127; gap "
                            "extension costs count, as the score of a residue against a gap)",
                            most);

    std::vector<pair_desc> desc;
    std::vector<int4> ranges;
    std::vector<int2> order;
    std::vector<int4> prep_blocks;
    std::vector<int> by_strips;
    /* Staging is written whole before it is read: no zeroing. */
    staging_buffer host_in;
    std::vector<uint8_t> host_steps;
    std::vector<int> host_score;
    size_t first = 0;
    while (first < count) {
        /* The round: pairs first .. last - 1. */
        size_t last = first;
        long long bytes = 0, rows = 0, cols = 0, tb_words = 0, step_bytes = 0, in_bytes = 0, score_ints = 0,
                  tiles = 0;
        int items = 0;
        while (last < count) {
            const int m = pairs[last].m, n = pairs[last].n;
            const long long b = pair_bytes(m, n, with_hi, global);
            if (last > first && (bytes + b > budget || items + (long long)round_up(m, TILE) / TILE > (1 << 30))) break;
            if (b > budget)
                return sw_error_set(err, SW_ENOMEM,
                                    "GPU profile engine: a pair of %d x %d columns needs %.1f GB of GPU memory, %.1f GB "
                                    "are free",
                                    m, n, (double)b / 1e9, (double)free_bytes / 1e9);
            bytes += b;
            items += (int)(round_up(m, TILE) / TILE);
            ++last;
        }
        const int np = (int)(last - first);
        desc.resize((size_t)np);
        ranges.resize((size_t)np);
        int item0 = 0, most_strips = 0;
        for (int x = 0; x < np; ++x) {
            const sw_profile_gpu_pair &q = pairs[first + x];
            pair_desc &d = desc[(size_t)x];
            d.m = q.m;
            d.n = q.n;
            d.m_pad = (int)round_up(q.m, TILE);
            d.n_pad = (int)round_up(q.n, TILE);
            d.in_off = in_bytes;
            d.row_off = rows;
            d.col_off = cols;
            d.strips = d.m_pad / TILE;
            d.tb_words = (int)(round_up(q.n + LANES - 1, TILE) / 8 * LANES);
            d.tb_off = tb_words;
            d.step_off = step_bytes;
            d.item0 = item0;
            d.score_off = score_ints;
            d.tile0 = tiles;
            if (global) {
                score_ints += (long long)d.m_pad * skew_steps(d.n_pad);
                tiles += (long long)d.strips * (d.n_pad / TILE);
            }
            in_bytes += (long long)(q.m + q.n) * s->symbols;
            rows += d.m_pad;
            cols += d.n_pad;
            tb_words += (long long)d.strips * d.tb_words;
            step_bytes += q.m + q.n;
            item0 += d.strips;
            most_strips = std::max(most_strips, d.strips);
        }

        /* Stage the columns. */
        const double t_stage = sw_clock_seconds();
        if (!host_in.reserve((size_t)in_bytes)) throw std::bad_alloc();
        staging sg;
        sg.s = s;
        sg.pairs = pairs + first;
        sg.desc = desc.data();
        sg.dst = host_in.data;
        sg.count = np;
        int started = 0;
        sw_pool_run(std::min(threads, np), stage_pairs, &sg, &started);
        if (!started) stage_pairs(&sg, 0);

        /* The prepare kernel's blocks: each pair's padded columns of either
         * side, PREP_THREADS at a time. */
        prep_blocks.clear();
        for (int x = 0; x < np; ++x)
            for (int side = 0; side < 2; ++side)
                for (int c = 0, end = side ? desc[(size_t)x].n_pad : desc[(size_t)x].m_pad; c < end; c += PREP_THREADS)
                    prep_blocks.push_back(make_int4(x, side, c, 0));

        /* Strip-major order: strip k of every pair that has one, pairs with
         * more strips first, then strip k + 1. A strip's predecessor is
         * always taken before it, so a resident warp holds it. */
        by_strips.resize((size_t)np);
        for (int x = 0; x < np; ++x) by_strips[(size_t)x] = x;
        std::stable_sort(by_strips.begin(), by_strips.end(),
                         [&](int u, int v) { return desc[(size_t)u].strips > desc[(size_t)v].strips; });
        order.clear();
        order.reserve((size_t)items);
        for (int k = 0, with = np; k < most_strips; ++k) {
            while (with > 0 && desc[(size_t)by_strips[(size_t)with - 1]].strips <= k) --with;
            for (int y = 0; y < with; ++y) order.push_back(make_int2(by_strips[(size_t)y], k));
        }

        const double t_alloc = sw_clock_seconds();
        st.staging_seconds += t_alloc - t_stage;
        /* One device block, carved up; 256-byte aligned pieces. */
        size_t offs[17], at = 0;
        const size_t sizes[17] = {(size_t)np * sizeof(pair_desc), (size_t)in_bytes, (size_t)rows * K,
                                  (size_t)cols * K * (with_hi ? 2 : 1), prep_blocks.size() * sizeof(int4), (size_t)rows * 16,
                                  (size_t)cols * 16, (size_t)(rows + np) * 4, (size_t)cols * 8,
                                  (size_t)items * 4, (size_t)tb_words * 4, (size_t)step_bytes,
                                  (size_t)np * 8, 16, (size_t)items * sizeof(int2), (size_t)score_ints * 4,
                                  (size_t)np * sizeof(int4)};
        for (int k = 0; k < 17; ++k) {
            offs[k] = at;
            at += (sizes[k] + 255) / 256 * 256;
        }
        if (at > g.size) {
            cudaFree(g.block);
            g.block = nullptr;
            g.size = 0;
            PG_CK(cudaMalloc(&g.block, at), "allocating a round of profile pairs");
            g.size = at;
        }
        char *base = (char *)g.block;
        round_args r;
        memset(&r, 0, sizeof r);
        r.desc = (const pair_desc *)(base + offs[0]);
        r.pairs = np;
        r.items = items;
        r.in = (const uint8_t *)(base + offs[1]);
        r.a_vec = (uint8_t *)(base + offs[2]);
        r.b_vec = (uint8_t *)(base + offs[3]);
        r.a_cost = (int4 *)(base + offs[5]);
        r.b_cost = (int4 *)(base + offs[6]);
        r.h_col = (int *)(base + offs[7]);
        r.row = (int2 *)(base + offs[8]);
        r.progress = (int *)(base + offs[9]);
        r.tb = (unsigned *)(base + offs[10]);
        r.steps = (uint8_t *)(base + offs[11]);
        r.score = (int *)(base + offs[12]);
        r.next_item = (unsigned *)(base + offs[13]);
        r.order = (const int2 *)(base + offs[14]);
        r.scores = global ? (int *)(base + offs[15]) : nullptr;
        r.ranges = (int4 *)(base + offs[16]);
        r.with_hi = with_hi;

        const double t_device = sw_clock_seconds();
        st.alloc_seconds += t_device - t_alloc;
        PG_CK(cudaMemcpyAsync(base + offs[0], desc.data(), sizes[0], cudaMemcpyHostToDevice, g.stream), "uploading");
        PG_CK(cudaMemcpyAsync(base + offs[1], host_in.data, sizes[1], cudaMemcpyHostToDevice, g.stream),
              "uploading");
        PG_CK(cudaMemcpyAsync(base + offs[4], prep_blocks.data(), sizes[4], cudaMemcpyHostToDevice, g.stream),
              "uploading");
        PG_CK(cudaMemcpyAsync(base + offs[14], order.data(), sizes[14], cudaMemcpyHostToDevice, g.stream),
              "uploading");
        PG_CK(cudaMemsetAsync(r.progress, 0, sizes[9], g.stream), "clearing");
        PG_CK(cudaMemsetAsync(r.next_item, 0, sizeof(unsigned), g.stream), "clearing");
        PG_CK(cudaMemsetAsync(r.ranges, 0, sizes[16], g.stream), "clearing");
        PG_CK(cudaEventRecord(g.start, g.stream), "timing");
        prepare<<<(unsigned)prep_blocks.size(), PREP_THREADS, 0, g.stream>>>(r, sd, (const int4 *)(base + offs[4]));
        prepare_edges<<<(unsigned)((np + 7) / 8), 8 * LANES, 0, g.stream>>>(r);
        if (global) {
            const long long score_blocks = std::min((tiles + WARPS - 1) / WARPS, (long long)sms * 16);
            score_matrix<<<(unsigned)score_blocks, WARPS * LANES, 0, g.stream>>>(r, tiles);
        }
        long long blocks = (long long)per_sm * sms;
        const long long need = (items + WARPS - 1) / WARPS;
        if (blocks > need) blocks = need;
        if (global) sweep<true, false><<<(unsigned)blocks, WARPS * LANES, 0, g.stream>>>(r);
        else if (s->euclid) sweep<false, true><<<(unsigned)blocks, WARPS * LANES, 0, g.stream>>>(r);
        else sweep<false, false><<<(unsigned)blocks, WARPS * LANES, 0, g.stream>>>(r);
        walk<<<(unsigned)((np + 127) / 128), 128, 0, g.stream>>>(r);
        PG_CK(cudaGetLastError(), "launching the profile kernels");
        PG_CK(cudaEventRecord(g.stop, g.stream), "timing");
        host_steps.resize((size_t)step_bytes);
        host_score.resize((size_t)np * 2);
        PG_CK(cudaMemcpyAsync(host_steps.data(), r.steps, sizes[11], cudaMemcpyDeviceToHost, g.stream),
              "downloading");
        PG_CK(cudaMemcpyAsync(host_score.data(), r.score, sizes[12], cudaMemcpyDeviceToHost, g.stream),
              "downloading");
        PG_CK(cudaMemcpyAsync(ranges.data(), r.ranges, sizes[16], cudaMemcpyDeviceToHost, g.stream), "downloading");
        PG_CK(cudaStreamSynchronize(g.stream), "aligning profile pairs");
        const double t_unpack = sw_clock_seconds();
        st.device_seconds += t_unpack - t_device;
        float ms = 0;
        PG_CK(cudaEventElapsedTime(&ms, g.start, g.stop), "timing");
        st.kernel_seconds += ms / 1e3;
        ++st.rounds;
        /* The values had to fit: a pair whose bound fails had its scores
         * computed in a range they may have left, and they are not used. */
        for (int x = 0; x < np; ++x) {
            const int4 v = ranges[(size_t)x];
            const long long bound = value_bound(s, most, pairs[first + x], column_range{v.x, v.y, v.z != 0});
            if (bound < 0 || bound >= (1ll << 30))
                return sw_error_set(err, SW_ELIMIT,
                                    "GPU profile engine: the scores of pair %zu (%d x %d columns) could leave the "
                                    "32-bit range it computes in",
                                    first + (size_t)x, pairs[first + x].m, pairs[first + x].n);
        }
        for (int x = 0; x < np; ++x) {
            sw_profile_gpu_result *out = &results[first + x];
            const int len = host_score[(size_t)np + x];
            const uint8_t *src = host_steps.data() + desc[(size_t)x].step_off;
            out->score = host_score[(size_t)x];
            out->length = (size_t)len;
            for (int k = 0; k < len; ++k) out->steps[k] = src[len - 1 - k];
        }
        st.unpack_seconds += sw_clock_seconds() - t_unpack;
        first = last;
    }
    st.seconds = sw_clock_seconds() - t0;
    if (stats) *stats = st;
    return SW_OK;
}

} // namespace

extern "C" int sw_profile_gpu_align(const sw_profile_gpu_scoring *s, const sw_profile_gpu_pair *pairs, size_t count,
                                    const sw_profile_gpu_options *opt, sw_profile_gpu_result *results,
                                    sw_profile_gpu_stats *stats, sw_error *err)
{
    try {
        return align_pairs(s, pairs, count, opt, results, stats, err);
    } catch (const std::bad_alloc &) {
        return sw_error_set(err, SW_ENOMEM, "GPU profile engine: out of host memory for %zu pairs", count);
    }
}
