/* Inter-task Smith-Waterman with the query across the threads: a group of G
 * threads aligns one pair of database sequences (one in each 16-bit half of
 * a register) and thread t holds R consecutive query positions; the rows of
 * the wavefront are the subjects' residues.
 *
 * Why this orientation: with the subjects across the threads (the kernels of
 * sw_gpu_kernels.cu), every cell has its own subject residue, so every cell
 * looks its score up in a table (two loads, two address computations and a
 * packing per pair of cells: 5 instructions beside the 5.5 of the
 * recurrences). With the query across the threads, a row is one residue of
 * each subject, and a thread's R scores against it are R consecutive words
 * of a query profile: R / 4 vector loads per subject and one multiply-add a
 * pair to pack the two subjects' scores (as in CUDASW++4.0 and, on the CPU,
 * Rognes' SWIPE).
 *
 * The profile: word (c, q) holds the score of query position q against
 * residue class c plus open + ext, zero-extended from 16 bits (the cells
 * keep H - open - ext, see align_kernel). Within a class row, thread t's R
 * words start at t * S words, S = R rounded up to whole 16-byte loads, or
 * one load more, whichever makes S / 4 odd, so that the 16-byte loads of
 * eight consecutive threads fall in eight different groups of four banks.
 *
 * The recurrences, their order and the padding argument are those of
 * align_kernel in sw_gpu_kernels.cu, with rows and columns swapped: rows past
 * a subject's end (the shorter subject of a pair, or the shorter pairs of a
 * warp, whose loop runs as long as its longest) and query positions past the
 * query's end score <= 0 and cannot raise the maximum.
 *
 * Single-pass kernels (G * R >= query length) keep the whole profile in
 * shared memory and take work a warp at a time. Multipass kernels cut the
 * query into segments of G * R positions; a block's groups take neighbouring
 * pairs together (the database is sorted, so their lengths nearly agree),
 * run as many rows as the longest of them, and keep two segments' profiles
 * in shared memory. One wavefront runs through all segments: the threads
 * enter the next segment one after another while the later ones finish the
 * one before (see the multipass loop below). The last thread's H and E of
 * every row go to a column buffer in global memory that the first thread
 * reads, three rows ahead, in the next segment: one buffer per group
 * suffices, since a row's entry is read before it is overwritten (G - 1
 * steps after the first thread left that row). */
#include <stdint.h>

#include "sw_alphabet.h"
#include "sw_gpu_kernels.cuh"
#include "sw_gpu_lanes.cuh"

namespace {

using L = sw_lanes::lanes16;

constexpr unsigned FULL_MASK = 0xffffffffu;

__device__ __forceinline__ uint32_t mad(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

/* A thread's words in a profile row: its columns rounded up to whole 16-byte
 * loads, then to an odd number of them (see above). */
__host__ __device__ constexpr int stride_of(int columns)
{
    const int loads = (columns + 3) / 4;
    return 4 * (loads % 2 == 1 ? loads : loads + 1);
}

/* Shared memory: one segment of the profile (classes x G x S words), two
 * in multipass kernels, then the byte offset of each residue code's class
 * row within a segment, and one more entry, the padding class's, for rows
 * outside a subject. */
__host__ __device__ inline size_t segment_words(int group_size, int columns, uint32_t classes)
{
    return (size_t)classes * group_size * stride_of(columns);
}

/* Groups of 4 threads: the eight threads whose 16-byte loads share a turn
 * of the shared memory are two groups, each reading the class row of its
 * own subject's residue, and with one copy of the profile the two rows'
 * loads fall in the same four banks whenever the classes differ but have
 * the same parity (about half the loads), which then take two turns. So
 * these kernels keep two copies, each class row padded to a multiple of
 * 128 bytes, the second copy 64 bytes further: a group of even index reads
 * the first, an odd one the second, and the two groups of a turn always
 * use opposite halves of the banks. */
__host__ __device__ constexpr bool two_copies(int group_size) { return group_size == 4; }

/* The bytes of one class row in shared memory. */
__host__ __device__ constexpr uint32_t smem_row_bytes(int group_size, int columns)
{
    return two_copies(group_size) ? ((uint32_t)group_size * stride_of(columns) * 4 + 127) / 128 * 128
                                  : (uint32_t)group_size * stride_of(columns) * 4;
}

/* The bytes of one segment in shared memory (both copies, where two). */
__host__ __device__ inline size_t smem_segment_bytes(int group_size, int columns, uint32_t classes)
{
    const size_t copy = (size_t)classes * smem_row_bytes(group_size, columns);
    return two_copies(group_size) ? 2 * copy + 64 : copy;
}

/* Blocks of at most 256 threads, and registers for at least
 * SW_QP_MIN_BLOCKS of them (16 warps) on a multiprocessor: left to itself,
 * ptxas gives the multipass kernels 131 registers, one block more than
 * that allows, and 8 resident warps. */
#ifndef SW_QP_MIN_BLOCKS
#define SW_QP_MIN_BLOCKS 2
#endif
#ifndef SW_QP_MAX_THREADS
#define SW_QP_MAX_THREADS 256
#endif
constexpr int QP_MAX_THREADS = SW_QP_MAX_THREADS;

/* The widest single-pass threads that run a warp's pairs back to back (see
 * qp_kernel): above, the registers the loop that enters a pair needs make
 * ptxas spill in the steps. */
#ifndef SW_QP_B2B_MAX_COLUMNS
#define SW_QP_B2B_MAX_COLUMNS 36
#endif
/* Whether the kernel of R columns a thread runs a warp's pairs back to back
 * (the kernel's loop and its shape's back_to_back both ask this). */
__host__ __device__ constexpr bool back_to_back(int columns, bool multipass)
{
    return !multipass && columns <= SW_QP_B2B_MAX_COLUMNS;
}

/* The pair of database sequences that work item `item` of `items` stands
 * for, the last pairs first; past the last item, none (valid false, no
 * rows). */
struct subject_pair {
    uint32_t seq_a, seq_b, len_a, len_b;
    const uint8_t *res_a, *res_b;
    bool valid, has_b;
};

__device__ __forceinline__ subject_pair fetch_pair(const sw_gk_qp_params &p, uint32_t item, uint32_t items)
{
    subject_pair pair = {0, 0, 0, 0, p.residues, p.residues, item < items, false};
    if (pair.valid) {
        const uint32_t back = items - 1 - item;
        pair.seq_a = p.first + 2 * back;
        pair.has_b = 2 * back + 1 < p.count;
        pair.seq_b = pair.seq_a + 1;
        sw_lanes::load_subjects(p, pair.seq_a, pair.seq_b, pair.has_b, pair.len_a, pair.len_b, pair.res_a,
                                pair.res_b);
    }
    return pair;
}

/* The rows of the warp's longest subject. */
__device__ __forceinline__ int warp_rows(const subject_pair &pair)
{
    int rows = (int)(pair.len_a > pair.len_b ? pair.len_a : pair.len_b);
    for (int m = 16; m > 0; m >>= 1) {
        const int o = __shfl_xor_sync(FULL_MASK, rows, m);
        rows = o > rows ? o : rows;
    }
    return rows;
}

template <int G, int R, bool MULTIPASS>
__global__ void __launch_bounds__(QP_MAX_THREADS, SW_QP_MIN_BLOCKS) qp_kernel(const sw_gk_qp_params p)
{
    static_assert(G == 4 || G == 8 || G == 16 || G == 32, "group size");
    static_assert(R % 2 == 0 && R >= 8, "columns per thread are loaded four, and the last two, at a time");
    static_assert(!(two_copies(G) && MULTIPASS), "two copies of a segment only in single-pass kernels");
    constexpr int S = stride_of(R);
    constexpr uint32_t ROW_BYTES = smem_row_bytes(G, R);
    constexpr uint32_t ROW_CHUNKS = G * S / 4;
    constexpr int GROUPS = 32 / G;
    /* Segments in shared memory at once: a multipass block's threads
     * straddle two for G - 1 steps at every segment boundary. */
    constexpr int BUFFERS = MULTIPASS ? 2 : 1;

    extern __shared__ uint4 sw_dyn_smem[];
    uint8_t *const smem = (uint8_t *)sw_dyn_smem;
    const uint32_t classes = p.subject_classes;
    const uint32_t seg_words = classes * G * S;
    /* With one copy, smem_segment_bytes is seg_words * 4; the plain
     * expressions stay there (and in class_off, load_segment) because
     * ptxas allocated the other shapes' registers differently through the
     * helper ((8, 44) then spilled 80 bytes instead of 40). */
    const uint32_t seg_bytes = two_copies(G) ? (uint32_t)smem_segment_bytes(G, R, classes) : seg_words * 4;
    /* The second copy's offset from the first (two_copies). */
    const uint32_t copy_bytes = classes * ROW_BYTES + 64;
    uint32_t *const class_off =
        two_copies(G) ? (uint32_t *)(smem + BUFFERS * seg_bytes) : (uint32_t *)sw_dyn_smem + BUFFERS * seg_words;
    __shared__ uint32_t chunk_base, block_rows;

    if (threadIdx.x < SW_CODE_LIMIT) class_off[threadIdx.x] = p.subject_class[threadIdx.x] * ROW_BYTES;
    if (threadIdx.x == SW_CODE_LIMIT) class_off[SW_CODE_LIMIT] = (classes - 1) * ROW_BYTES;
    auto load_segment = [&](uint32_t pass, uint32_t buffer) {
        const uint4 *from = (const uint4 *)(p.profile + (size_t)pass * seg_words);
        if constexpr (two_copies(G)) {
            uint4 *to = (uint4 *)(smem + buffer * seg_bytes);
            for (uint32_t i = threadIdx.x; i < seg_words / 4; i += blockDim.x) {
                const uint4 w = from[i];
                const uint32_t at = i / ROW_CHUNKS * (ROW_BYTES / 16) + i % ROW_CHUNKS;
                to[at] = w;
                to[at + copy_bytes / 16] = w;
            }
        } else {
            uint4 *to = sw_dyn_smem + buffer * (seg_words / 4);
            for (uint32_t i = threadIdx.x; i < seg_words / 4; i += blockDim.x) to[i] = from[i];
        }
    };
    if (!MULTIPASS) load_segment(0, 0);
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int t = lane & (G - 1);
    const int group = lane / G;
    const uint32_t block_groups = blockDim.x / G;
    const uint32_t block_group = threadIdx.x / G;
    const uint32_t items = (p.count + 1) / 2;
    const int passes = MULTIPASS ? (int)p.passes : 1;

    const uint32_t neg = L::splat(SW_GK_NEG16);
    const uint32_t neg_open_ext = L::splat(-(p.gap_open + p.gap_extend));
    const uint32_t neg_ext = L::splat(-p.gap_extend);
    const uint32_t h_zero = neg_open_ext;
    const uint32_t high_lane = p.high_lane;
    const uint32_t thread_bytes = (uint32_t)t * S * 4 + (two_copies(G) && (group & 1) ? copy_bytes : 0u);
    /* The first thread's left boundary comes from the matrix edge or the
     * column buffer, the others' from the thread on the left; the others
     * keep 0 as their boundary, so that one multiply-add (on the FMA pipe,
     * which the recurrences leave idle) picks whichever applies:
     * left = from_left * not_first + boundary. */
    const uint32_t not_first = t ? 1u : 0u;
    const uint2 edge = t ? make_uint2(0, 0) : make_uint2(h_zero, neg);
    /* The column buffer of this group: entry G + r holds row r, so that
     * the rows before the first, which the last thread reaches first, land
     * in the G entries before it. */
    uint2 *const temp = MULTIPASS ? p.temp + (size_t)(blockIdx.x * block_groups + block_group) * p.temp_rows : nullptr;

    /* A thread's wavefront: its R columns' H (less open + ext) and F of
     * the row before, its best, its left neighbour's H and E of this row
     * and H of the row before, the first thread's boundary for its next
     * two rows, and the residue codes of its row, loaded a step ahead
     * (rows outside a subject take the padding entry). */
    uint32_t h[R], f[R];
    uint32_t best = h_zero, h_left = h_zero, e_left = neg, h_diag = h_zero;
    uint32_t code_a = SW_CODE_LIMIT, code_b = SW_CODE_LIMIT;
    uint2 next1 = edge, next2 = edge;

    auto code_at = [&](const uint8_t *res, uint32_t len, int r) -> uint32_t {
        return (uint32_t)r < len ? (uint32_t)res[r] : (uint32_t)SW_CODE_LIMIT;
    };
    /* One row of this thread's R cells, profile words at `prof`. */
    auto cells = [&](const uint8_t *prof) -> uint32_t {
        const uint8_t *const row_a = prof + class_off[code_a];
        const uint8_t *const row_b = prof + class_off[code_b];
        uint32_t e = e_left, diag = h_diag;
#pragma unroll
        for (int m = 0; m < R / 4; ++m) {
            const uint4 wa = ((const uint4 *)row_a)[m];
            const uint4 wb = ((const uint4 *)row_b)[m];
            /* The packing of the two subjects' scores is a multiply-add
             * by a value the compiler cannot see, so it runs on the FMA
             * pipe; the DPX instructions fill the ALU pipe. */
            const uint32_t score[4] = {mad(wb.x, high_lane, wa.x), mad(wb.y, high_lane, wa.y),
                                       mad(wb.z, high_lane, wa.z), mad(wb.w, high_lane, wa.w)};
#pragma unroll
            for (int j = 0; j < 4; ++j)
                sw_lanes::cell<L>(diag, h[4 * m + j], h[4 * m + j], f[4 * m + j], e, score[j], neg_open_ext, neg_ext);
        }
        /* Threads of 4k + 2 columns (finer widths, less padding of the
         * query) load their last two words as one 8-byte word. */
        if constexpr (R % 4 == 2) {
            const uint2 wa = ((const uint2 *)row_a)[R / 2 - 1];
            const uint2 wb = ((const uint2 *)row_b)[R / 2 - 1];
            const uint32_t score[2] = {mad(wb.x, high_lane, wa.x), mad(wb.y, high_lane, wa.y)};
#pragma unroll
            for (int j = 0; j < 2; ++j)
                sw_lanes::cell<L>(diag, h[R - 2 + j], h[R - 2 + j], f[R - 2 + j], e, score[j], neg_open_ext,
                                  neg_ext);
        }
#pragma unroll
        for (int k = 0; k < R; k += 2) best = L::max3(best, h[k], h[k + 1]);
        return e;
    };
    /* The hand-over at the end of a step: this thread's last H and E to
     * the next thread, the first thread's boundary for its next row
     * from next1, whose place next2 takes. */
    auto hand_over = [&](uint32_t e) {
        const uint32_t h_up = __shfl_up_sync(FULL_MASK, h[R - 1], 1, G);
        const uint32_t e_up = __shfl_up_sync(FULL_MASK, e, 1, G);
        h_diag = h_left;
        h_left = mad(h_up, not_first, next1.x);
        e_left = mad(e_up, not_first, next1.y);
        next1 = next2;
    };
    /* This thread's columns at the matrix's top edge, where it enters a
     * pair or a segment. */
    auto enter_top_edge = [&]() {
#pragma unroll
        for (int k = 0; k < R; ++k) {
            h[k] = h_zero;
            f[k] = neg;
        }
        h_diag = h_zero;
    };
    /* The whole wavefront at the start of a pair. */
    auto start_wavefront = [&]() {
        enter_top_edge();
        best = h_zero;
        h_left = mad(h_zero, not_first, edge.x);
        e_left = mad(neg, not_first, edge.y);
        next1 = edge;
        next2 = edge;
    };

    if constexpr (back_to_back(R, MULTIPASS)) {
        /* Single pass: a warp's groups run their pairs back to back in one
         * wavefront. Thread t reaches row r of a pair at step r + t of it,
         * so the first threads start the next pair while the later ones
         * finish this one, and the wavefront fills and drains once a warp,
         * not once a pair. A thread entering a pair starts its columns at
         * the matrix's top edge and sets its best of the pair before
         * aside; the rows it still has of that pair take the residue codes
         * that the thread on its left read a step earlier. The warp's
         * groups enter their pairs together: each pair takes as many rows
         * as the warp's longest, and at least G. */
        /* The pair before: its first sequence, bit 31 set if it has a
         * second, or no_pair (the engine takes fewer than 2^31 sequences;
         * one register less than a flag of its own, which made ptxas
         * spill in the steps). */
        const uint32_t no_pair = ~0u;
        uint32_t before = no_pair, best_before = h_zero;
        /* (Set again here: ptxas then spills less in the steps.) */
        start_wavefront();
        code_a = code_b = SW_CODE_LIMIT;
        for (;;) {
            uint32_t base = 0;
            if (lane == 0) base = atomicAdd(p.work, GROUPS);
            base = __shfl_sync(FULL_MASK, base, 0);
            /* Past the last pair, the steps below still finish the pairs
             * before. */
            const uint32_t item = base + group;
            const subject_pair pair = fetch_pair(p, item, items);
            int rows = warp_rows(pair);
            if (t == 0) {
                code_a = code_at(pair.res_a, pair.len_a, 0);
                code_b = code_at(pair.res_b, pair.len_b, 0);
            }
            /* The G steps in which the threads enter this pair, thread t at
             * step t. */
#pragma unroll 1
            for (int s = 0; s < G; ++s) {
                if (s == t) {
                    best_before = best;
                    best = h_zero;
                    enter_top_edge();
                }
                const uint32_t e = cells(smem + thread_bytes);
                const uint32_t left = __shfl_up_sync(FULL_MASK, code_a | code_b << 16, 1, G);
                const int r = s + 1 - t;
                code_a = r >= 0 ? code_at(pair.res_a, pair.len_a, r) : left & 0xffffu;
                code_b = r >= 0 ? code_at(pair.res_b, pair.len_b, r) : left >> 16;
                hand_over(e);
            }
#pragma unroll
            for (int m = G / 2; m > 0; m >>= 1)
                best_before = L::max(best_before, __shfl_xor_sync(FULL_MASK, best_before, m, G));
            if (before != no_pair && t == 0) {
                const uint32_t seq = before & 0x7fffffffu;
                sw_lanes::store_pair(best_before, h_zero, seq, seq + 1, (before >> 31) != 0, p.limit, p.scores,
                                     p.overflow, p.overflow_count);
            }
            if (base >= items) break;
            before = pair.valid ? pair.seq_a | (pair.has_b ? 0x80000000u : 0u) : no_pair;
            auto step = [&](const int s) {
                const uint32_t e = cells(smem + thread_bytes);
                code_a = code_at(pair.res_a, pair.len_a, s + 1 - t);
                code_b = code_at(pair.res_b, pair.len_b, s + 1 - t);
                hand_over(e);
            };
            /* The rest of this pair's rows, in pairs of steps. */
            rows = (rows + 1) & ~1;
            for (int s = G; s < rows; s += 2) {
                step(s);
                step(s + 1);
            }
        }
    } else {
        for (;;) {
            uint32_t item;
            if (MULTIPASS) {
                /* Every group is done with the last segment before the block
                 * takes its next pairs and loads the first segments again. */
                __syncthreads();
                if (threadIdx.x == 0) {
                    chunk_base = atomicAdd(p.work, block_groups);
                    block_rows = 0;
                }
                __syncthreads();
                const uint32_t base = chunk_base;
                if (base >= items) break;
                item = base + block_group;
            } else {
                uint32_t base = 0;
                if (lane == 0) base = atomicAdd(p.work, GROUPS);
                base = __shfl_sync(FULL_MASK, base, 0);
                if (base >= items) break;
                item = base + group;
            }

            const subject_pair pair = fetch_pair(p, item, items);
            /* The loops run as long as the warp's (single pass) or the block's
             * (multipass) longest pair needs; rows past a subject are padding. */
            int rows = warp_rows(pair);
            if (MULTIPASS) {
                if (lane == 0) atomicMax(&block_rows, (uint32_t)rows);
                if (passes > 1) load_segment(1, 1);
                load_segment(0, 0);
                __syncthreads();
                /* At least G + 3 rows, so that a row's entry in the column
                 * buffer is read (three steps ahead) after the last pass wrote
                 * it and before this one overwrites it; an even number. */
                rows = (int)block_rows;
                if (rows < G + 3) rows = G + 3;
                rows = (rows + 1) & ~1;
                /* The first thread's rows past the last, in the last pass's
                 * drain (G + 1 steps, read 3 ahead), read the matrix edge. */
                for (int j = t; j < G + 6; j += G) temp[G + rows + j] = make_uint2(h_zero, neg);
            }

            /* Every pair starts at the matrix's top edge. */
            start_wavefront();
            code_a = code_at(pair.res_a, pair.len_a, -t);
            code_b = code_at(pair.res_b, pair.len_b, -t);

            if (!MULTIPASS) {
                /* Single-pass shapes too wide for the back-to-back loop
                 * above: each pair fills and drains the wavefront. */
                const int steps = (rows + G) & ~1;
                auto step = [&](const int s) {
                    const uint32_t e = cells(smem + thread_bytes);
                    code_a = code_at(pair.res_a, pair.len_a, s + 1 - t);
                    code_b = code_at(pair.res_b, pair.len_b, s + 1 - t);
                    hand_over(e);
                };
                for (int s = 0; s < steps; s += 2) {
                    step(s);
                    step(s + 1);
                }
            } else {
                /* One wavefront through all segments: thread t reaches
                 * segment q's row r at step q * rows + r + t, so the threads
                 * enter a segment one after another while the later ones finish
                 * the one before, and the wavefront fills and drains once, not
                 * once a segment. Steps where all threads are in one segment
                 * take the plain step; the G steps in which they enter the next
                 * one, and the 4 before (whose boundary reads reach into it), the
                 * general one. */
                auto plain = [&](const int s, const int base, const uint8_t *prof, const bool has_in,
                                 const bool has_out) {
                    const int r = s - base - t;
                    const uint32_t e = cells(prof);
                    code_a = code_at(pair.res_a, pair.len_a, r + 1);
                    code_b = code_at(pair.res_b, pair.len_b, r + 1);
                    if (has_out && t == G - 1) temp[G + r] = make_uint2(h[R - 1], e);
                    hand_over(e);
                    if (has_in && t == 0) next2 = temp[G + r + 3];
                };
                auto straddle = [&](const int s, const int base, const int q) {
                    const int v = s - base - t;
                    const bool in_next = v >= rows;
                    const int r = in_next ? v - rows : v;
                    if (v == rows) {
                        /* This thread enters segment q + 1: its columns start
                         * at the matrix's top edge (enter_top_edge, written
                         * out: through the helper, the multipass kernels'
                         * code changed). */
#pragma unroll
                        for (int k = 0; k < R; ++k) {
                            h[k] = h_zero;
                            f[k] = neg;
                        }
                        h_diag = h_zero;
                    }
                    const uint32_t e = cells(smem + (((uint32_t)q & 1u) ^ (in_next ? 1u : 0u)) * seg_bytes + thread_bytes);
                    const int r1 = r + 1 >= rows && !in_next ? r + 1 - rows : r + 1;
                    code_a = code_at(pair.res_a, pair.len_a, r1);
                    code_b = code_at(pair.res_b, pair.len_b, r1);
                    /* The last thread is in segment q, not the last, but at the
                     * last of these steps, where what it writes is not read. */
                    if (t == G - 1) temp[G + r] = make_uint2(h[R - 1], e);
                    hand_over(e);
                    /* The first thread's row three ahead: in segment q + 1
                     * (input written by segment q), or still in segment q. */
                    if (t == 0) {
                        const int ahead = v + 3;
                        if (ahead >= rows) next2 = temp[G + ahead - rows];
                        else if (q > 0) next2 = temp[G + ahead];
                    }
                };
                for (int q = 0; q < passes; ++q) {
                    const int base = q * rows;
                    const uint8_t *const prof = smem + ((uint32_t)q & 1u) * seg_bytes + thread_bytes;
                    const bool has_in = q > 0, has_out = q + 1 < passes;
                    const int begin = q == 0 ? 0 : base + G;
                    /* Both ends even (rows is): the plain steps go in pairs.
                     * The last segment runs one step past the drain, on
                     * padding rows. */
                    const int end = has_out ? base + rows - 4 : base + rows + G;
                    int s = begin;
                    for (; s < end; s += 2) {
                        plain(s, base, prof, has_in, has_out);
                        plain(s + 1, base, prof, has_in, has_out);
                    }
                    if (has_out) {
                        for (s = end; s < base + rows + G; ++s) straddle(s, base, q);
                        /* Every thread is in segment q + 1 now: segment q + 2
                         * takes segment q's buffer. */
                        __syncthreads();
                        if (q + 2 < passes) load_segment((uint32_t)q + 2, (uint32_t)q & 1u);
                        __syncthreads();
                    }
                }
            }

#pragma unroll
            for (int m = G / 2; m > 0; m >>= 1) best = L::max(best, __shfl_xor_sync(FULL_MASK, best, m, G));
            if (pair.valid && t == 0)
                sw_lanes::store_pair(best, h_zero, pair.seq_a, pair.seq_b, pair.has_b, p.limit, p.scores, p.overflow, p.overflow_count);
        }
    }
    }

/* Word (pass, class, t * S + k) of the profile: query position
 * pass * G * R + t * R + k; the S - R words after a thread's R are unused. */
__global__ void qp_profile_kernel(const sw_gk_qp_profile_params p)
{
    const uint32_t G = (uint32_t)p.group_size, R = (uint32_t)p.columns, S = (uint32_t)stride_of(p.columns);
    const uint32_t row_words = G * S;
    const uint64_t n = (uint64_t)p.passes * p.subject_classes * row_words;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t w = (uint32_t)(i % row_words);
        const uint64_t pc = i / row_words;
        const uint32_t cls = (uint32_t)(pc % p.subject_classes), pass = (uint32_t)(pc / p.subject_classes);
        const uint32_t t = w / S, k = w % S;
        uint32_t word = 0;
        if (k < R) {
            const uint64_t q = (uint64_t)pass * G * R + t * R + k;
            int score;
            if (q < p.query_len && p.pssm) score = p.pssm[q * p.subject_classes + cls];
            else score = (int)p.table32[(q < p.query_len ? p.query[q] : p.pad_row) * p.subject_classes + cls];
            word = ((uint32_t)(score + p.gap_open + p.gap_extend)) & 0xffffu;
        }
        p.profile[i] = word;
    }
}

typedef void (*qp_fn)(const sw_gk_qp_params);

struct qp_entry {
    sw_gk_qp_shape shape;
    qp_fn fn;
};

#define SW_GK_QP_KERNELS(X)                                                                           \
    X(4, 16, false) X(4, 24, false) X(4, 32, false) X(8, 16, false) X(8, 20, false) X(8, 24, false)   \
    X(8, 28, false) X(8, 32, false) X(16, 16, false) X(16, 20, false) X(16, 24, false)                \
    X(16, 28, false) X(16, 32, false) X(32, 20, false) X(32, 24, false) X(32, 28, false)              \
    X(32, 32, false) X(8, 36, false) X(8, 40, false) X(8, 44, false) X(16, 36, false) X(16, 40, false)            \
    X(8, 28, true) X(8, 32, true) X(16, 28, true) X(16, 32, true) X(32, 8, false) X(32, 12, false)   \
    X(32, 16, false) X(8, 26, true) X(8, 30, true) X(8, 26, false) X(8, 30, false) X(8, 34, false)  \
    X(8, 38, false) X(8, 34, true) X(8, 36, true) X(4, 20, false) X(4, 28, false)

#define SW_GK_QP_ENTRY(g, r, mp) {{g, r, mp, back_to_back(r, mp)}, qp_kernel<g, r, mp>},

const qp_entry qp_kernels[] = {SW_GK_QP_KERNELS(SW_GK_QP_ENTRY)};

constexpr int num_qp_kernels = (int)(sizeof qp_kernels / sizeof qp_kernels[0]);
static_assert(num_qp_kernels <= SW_GK_QP_MAX_SHAPES, "more shapes than the engine keeps launch shapes for");

} /* namespace */

int sw_gk_qp_num_shapes(void) { return num_qp_kernels; }

int sw_gk_qp_max_threads(void) { return QP_MAX_THREADS; }

const sw_gk_qp_shape *sw_gk_qp_get_shape(int id) { return id >= 0 && id < num_qp_kernels ? &qp_kernels[id].shape : nullptr; }

size_t sw_gk_qp_profile_words(int id, uint32_t passes, uint32_t classes)
{
    const sw_gk_qp_shape *s = &qp_kernels[id].shape;
    return (size_t)passes * segment_words(s->group_size, s->columns, classes);
}

size_t sw_gk_qp_smem(int id, uint32_t classes)
{
    const sw_gk_qp_shape *s = &qp_kernels[id].shape;
    return smem_segment_bytes(s->group_size, s->columns, classes) * (s->multipass ? 2 : 1) + (SW_CODE_LIMIT + 1) * 4;
}

cudaError_t sw_gk_qp_prepare(int id, size_t block_limit)
{
    return sw_gk_allow_shared(qp_kernels[id].fn, block_limit);
}

cudaError_t sw_gk_qp_occupancy(int id, int threads, size_t smem, int *blocks_per_sm)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, qp_kernels[id].fn, threads, smem);
}

cudaError_t sw_gk_qp_launch(int id, int blocks, int threads, size_t smem, cudaStream_t stream, const sw_gk_qp_params *p)
{
    qp_kernels[id].fn<<<blocks, threads, smem, stream>>>(*p);
    return cudaGetLastError();
}

cudaError_t sw_gk_qp_profile_launch(int blocks, cudaStream_t stream, const sw_gk_qp_profile_params *p)
{
    qp_profile_kernel<<<blocks, 256, 0, stream>>>(*p);
    return cudaGetLastError();
}
