/* Packed lane arithmetic shared by the alignment kernels (device code only):
 * two subjects per register in 16-bit halves, or one in 32 bits. */
#ifndef SW_GPU_LANES_CUH
#define SW_GPU_LANES_CUH

#include <stdint.h>

namespace sw_lanes {

/* Two subjects per register, one in each 16-bit half. On sm_90 the DPX
 * intrinsics are single instructions; elsewhere CUDA emulates them. */
struct lanes16 {
    static constexpr int subjects = 2;
    static __device__ __forceinline__ uint32_t splat(int x) { return (uint32_t)(x & 0xffff) * 0x10001u; }
    static __device__ __forceinline__ uint32_t add(uint32_t a, uint32_t b)
    {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        uint32_t r;
        asm("add.s16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
        return r;
#else
        return __vadd2(a, b);
#endif
    }
    static __device__ __forceinline__ uint32_t max(uint32_t a, uint32_t b) { return __vmaxs2(a, b); }
    static __device__ __forceinline__ uint32_t max_relu(uint32_t a, uint32_t b) { return __vimax_s16x2_relu(a, b); }
    static __device__ __forceinline__ uint32_t max3(uint32_t a, uint32_t b, uint32_t c) { return __vimax3_s16x2(a, b, c); }
    static __device__ __forceinline__ uint32_t add_max(uint32_t a, uint32_t b, uint32_t c) { return __viaddmax_s16x2(a, b, c); }
};

/* One subject per register, exact for every score the reference accepts. */
struct lanes32 {
    static constexpr int subjects = 1;
    static __device__ __forceinline__ uint32_t splat(int x) { return (uint32_t)x; }
    static __device__ __forceinline__ uint32_t add(uint32_t a, uint32_t b) { return a + b; }
    static __device__ __forceinline__ uint32_t max(uint32_t a, uint32_t b) { return (uint32_t)::max((int)a, (int)b); }
    static __device__ __forceinline__ uint32_t max_relu(uint32_t a, uint32_t b) { return (uint32_t)__vimax_s32_relu((int)a, (int)b); }
    static __device__ __forceinline__ uint32_t max3(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)__vimax3_s32((int)a, (int)b, (int)c); }
    static __device__ __forceinline__ uint32_t add_max(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)__viaddmax_s32((int)a, (int)b, (int)c); }
};

/* One cell of the inter-task kernels, in the frame where a cell keeps
 * T = H - open - ext and the scores carry + open + ext (align_kernel in
 * sw_gpu_kernels.cu says why): from `diag` (T above-left), `above` (T above),
 * F of this column and E along the row, the cell's T into `out`, F of the
 * next row and E of the next column in place, and `diag` becomes `above`,
 * the next column's above-left. */
template <class L>
__device__ __forceinline__ void cell(uint32_t &diag, uint32_t above, uint32_t &out, uint32_t &f, uint32_t &e,
                                     uint32_t score, uint32_t neg_open_ext, uint32_t neg_ext)
{
    const uint32_t x = L::add(L::max_relu(L::add(diag, score), f), neg_open_ext);
    diag = above;
    const uint32_t t = L::add_max(e, neg_open_ext, x);
    e = L::add_max(e, neg_ext, x);
    f = L::add_max(f, neg_ext, t);
    out = t;
}

/* Lengths and first residues of a work item's database sequences, from
 * the kernel parameters `p` (residues, residue_base, offsets, lengths);
 * the second only where there is one. */
template <class P>
__device__ __forceinline__ void load_subjects(const P &p, uint32_t seq_a, uint32_t seq_b, bool has_b, uint32_t &len_a,
                                              uint32_t &len_b, const uint8_t *&res_a, const uint8_t *&res_b)
{
    len_a = p.lengths[seq_a];
    res_a = p.residues + (p.offsets[seq_a] - p.residue_base);
    if (has_b) {
        len_b = p.lengths[seq_b];
        res_b = p.residues + (p.offsets[seq_b] - p.residue_base);
    }
}

/* The scores of a pair of subjects from the best T of its two 16-bit lanes
 * (T of H = 0 in each half of h_zero), stored; a score at or above `limit`
 * may have saturated and goes to the list that the 32-bit kernel redoes. */
__device__ __forceinline__ void store_pair(uint32_t best, uint32_t h_zero, uint32_t seq_a, uint32_t seq_b, bool has_b,
                                           int limit, int32_t *scores, uint32_t *overflow, uint32_t *overflow_count)
{
    const int a = (int16_t)(best & 0xffff) - (int16_t)(h_zero & 0xffff);
    scores[seq_a] = a;
    if (a >= limit) overflow[atomicAdd(overflow_count, 1)] = seq_a;
    if (has_b) {
        const int b = (int16_t)(best >> 16) - (int16_t)(h_zero & 0xffff);
        scores[seq_b] = b;
        if (b >= limit) overflow[atomicAdd(overflow_count, 1)] = seq_b;
    }
}

} /* namespace sw_lanes */

#endif
