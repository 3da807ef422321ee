/* SSE2 kernels of the CPU engine: 16 x 8-bit, 8 x 16-bit and 4 x 32-bit lanes
 * per 128-bit vector. SSE2 is part of x86-64, so this file needs no flags. */
#include "sw_cpu_simd_impl.h"

#if SW_SIMD_X86
#include <emmintrin.h>
#include <string.h>

#define SW_V __m128i
#define v_zero() _mm_setzero_si128()
#define v_load(p) _mm_load_si128(p)
#define v_store(p, v) _mm_store_si128((p), (v))
#define v_shift_bytes(a, n) _mm_slli_si128((a), (n))

/* 8 bits, unsigned, every score plus pass->bias (Farrar's biased profile):
 * adding the biased score saturates at 255, removing the bias clamps at 0. */
#define SW_KERNEL striped8_sse2
#define SW_ELEM uint8_t
#define SW_LANE_MAX UINT8_MAX
#define v_set1(x) _mm_set1_epi8((char)(x))
#define v_max(a, b) _mm_max_epu8((a), (b))
#define v_add_score(h, s) _mm_subs_epu8(_mm_adds_epu8((h), (s)), v_bias)
#define v_sub_gap(a, g) _mm_subs_epu8((a), (g))
/* SSE2 has no unsigned compare: a > b exactly where a -sat b is nonzero. */
#define v_any_gt(a, b) \
    (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_subs_epu8((a), (b)), _mm_setzero_si128())) != 0xFFFF)
#include "sw_cpu_simd_striped.h"

/* 16 bits, signed scores; lanes stay in 0..32767, so the unsigned saturating
 * subtraction clamps gap costs at 0 and the signed max and compare apply. */
#define SW_KERNEL striped16_sse2
#define SW_ELEM int16_t
#define SW_LANE_MAX INT16_MAX
#define v_set1(x) _mm_set1_epi16((short)(x))
#define v_max(a, b) _mm_max_epi16((a), (b))
#define v_add_score(h, s) _mm_adds_epi16((h), (s))
#define v_sub_gap(a, g) _mm_subs_epu16((a), (g))
#define v_any_gt(a, b) (_mm_movemask_epi8(_mm_cmpgt_epi16((a), (b))) != 0)
#include "sw_cpu_simd_striped.h"

/* SSE2 lacks a 32-bit max (SSE4.1 added it). */
static inline __m128i max_epi32(__m128i a, __m128i b)
{
    __m128i gt = _mm_cmpgt_epi32(a, b);
    return _mm_or_si128(_mm_and_si128(gt, a), _mm_andnot_si128(gt, b));
}

/* 32 bits, exact: the caller refuses inputs whose scores could pass
 * INT32_MAX, so plain adds cannot wrap. */
#define SW_KERNEL striped32_sse2
#define SW_ELEM int32_t
#define SW_LANE_MAX INT32_MAX
#define v_set1(x) _mm_set1_epi32((int)(x))
#define v_max(a, b) max_epi32((a), (b))
#define v_add_score(h, s) _mm_add_epi32((h), (s))
#define v_sub_gap(a, g) max_epi32(_mm_sub_epi32((a), (g)), _mm_setzero_si128())
#define v_any_gt(a, b) (_mm_movemask_epi8(_mm_cmpgt_epi32((a), (b))) != 0)
#include "sw_cpu_simd_striped.h"

/* The traceback pass, 16-bit lanes. */
#define SW_TRACE_KERNEL trace16_sse2
#define t_set1(x) _mm_set1_epi16((short)(x))
#define t_max(a, b) _mm_max_epi16((a), (b))
#define t_adds(a, b) _mm_adds_epi16((a), (b))
#define t_subs_epu(a, b) _mm_subs_epu16((a), (b))
#define t_add(a, b) _mm_add_epi16((a), (b))
#define t_sub(a, b) _mm_sub_epi16((a), (b))
#define t_cmpeq(a, b) _mm_cmpeq_epi16((a), (b))
#define t_cmpgt(a, b) _mm_cmpgt_epi16((a), (b))
#define t_and(a, b) _mm_and_si128((a), (b))
#define t_or(a, b) _mm_or_si128((a), (b))
#define t_andnot(a, b) _mm_andnot_si128((a), (b))
#define t_slli2(a) _mm_slli_epi16((a), 2)
#define t_any(m) (_mm_movemask_epi8(m) != 0)
#include "sw_cpu_simd_trace.h"

const sw_simd_kernels sw_simd_kernels_sse2 = {
    "sse2", 16, {striped8_sse2, striped16_sse2, striped32_sse2}, trace16_sse2};

#endif
