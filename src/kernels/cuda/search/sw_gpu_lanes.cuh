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

} /* namespace sw_lanes */

#endif
