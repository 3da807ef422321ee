/* AVX2 kernels of the CPU engine: 32 x 8-bit, 16 x 16-bit and 8 x 32-bit lanes
 * per 256-bit vector. Built with -mavx2; called only after a CPU check. */
#include "sw_cpu_simd_impl.h"

#if SW_SIMD_X86
#ifndef __AVX2__
#error "sw_cpu_simd_avx2.c must be compiled with -mavx2"
#endif
#include <immintrin.h>
#include <string.h>

#define SW_V __m256i
#define v_zero() _mm256_setzero_si256()
#define v_load(p) _mm256_load_si256(p)
#define v_store(p, v) _mm256_store_si256((p), (v))
/* AVX2 byte shifts stay inside each 128-bit half. To cross the middle, the
 * low half is first copied into the high half (zeros below), and alignr
 * takes from it the bytes that cross. */
#define v_shift_bytes(a, n) \
    _mm256_alignr_epi8((a), _mm256_permute2x128_si256((a), (a), 0x08), 16 - (n))

/* 8 bits, unsigned, every score plus pass->bias (Farrar's biased profile):
 * adding the biased score saturates at 255, removing the bias clamps at 0. */
#define SW_KERNEL striped8_avx2
#define SW_ELEM uint8_t
#define SW_LANE_MAX UINT8_MAX
#define v_set1(x) _mm256_set1_epi8((char)(x))
#define v_max(a, b) _mm256_max_epu8((a), (b))
#define v_add_score(h, s) _mm256_subs_epu8(_mm256_adds_epu8((h), (s)), v_bias)
#define v_sub_gap(a, g) _mm256_subs_epu8((a), (g))
/* No unsigned compare: a > b exactly where a -sat b is nonzero. */
#define v_any_gt(a, b)                                                               \
    (_mm256_movemask_epi8(                                                           \
         _mm256_cmpeq_epi8(_mm256_subs_epu8((a), (b)), _mm256_setzero_si256())) != -1)
#include "sw_cpu_simd_striped.h"

/* 16 bits, signed scores; lanes stay in 0..32767, so the unsigned saturating
 * subtraction clamps gap costs at 0 and the signed max and compare apply. */
#define SW_KERNEL striped16_avx2
#define SW_ELEM int16_t
#define SW_LANE_MAX INT16_MAX
#define v_set1(x) _mm256_set1_epi16((short)(x))
#define v_max(a, b) _mm256_max_epi16((a), (b))
#define v_add_score(h, s) _mm256_adds_epi16((h), (s))
#define v_sub_gap(a, g) _mm256_subs_epu16((a), (g))
#define v_any_gt(a, b) (_mm256_movemask_epi8(_mm256_cmpgt_epi16((a), (b))) != 0)
#include "sw_cpu_simd_striped.h"

/* 32 bits, exact: the caller refuses inputs whose scores could pass
 * INT32_MAX, so plain adds cannot wrap. */
#define SW_KERNEL striped32_avx2
#define SW_ELEM int32_t
#define SW_LANE_MAX INT32_MAX
#define v_set1(x) _mm256_set1_epi32((int)(x))
#define v_max(a, b) _mm256_max_epi32((a), (b))
#define v_add_score(h, s) _mm256_add_epi32((h), (s))
#define v_sub_gap(a, g) _mm256_max_epi32(_mm256_sub_epi32((a), (g)), _mm256_setzero_si256())
#define v_any_gt(a, b) (_mm256_movemask_epi8(_mm256_cmpgt_epi32((a), (b))) != 0)
#include "sw_cpu_simd_striped.h"

/* The traceback pass, 16-bit lanes. */
#define SW_TRACE_KERNEL trace16_avx2
#define t_set1(x) _mm256_set1_epi16((short)(x))
#define t_max(a, b) _mm256_max_epi16((a), (b))
#define t_adds(a, b) _mm256_adds_epi16((a), (b))
#define t_subs_epu(a, b) _mm256_subs_epu16((a), (b))
#define t_add(a, b) _mm256_add_epi16((a), (b))
#define t_sub(a, b) _mm256_sub_epi16((a), (b))
#define t_cmpeq(a, b) _mm256_cmpeq_epi16((a), (b))
#define t_cmpgt(a, b) _mm256_cmpgt_epi16((a), (b))
#define t_and(a, b) _mm256_and_si256((a), (b))
#define t_or(a, b) _mm256_or_si256((a), (b))
#define t_andnot(a, b) _mm256_andnot_si256((a), (b))
#define t_slli2(a) _mm256_slli_epi16((a), 2)
#define t_any(m) (_mm256_movemask_epi8(m) != 0)
#include "sw_cpu_simd_trace.h"

const sw_simd_kernels sw_simd_kernels_avx2 = {
    "avx2", 32, {striped8_avx2, striped16_avx2, striped32_avx2}, trace16_avx2};

#endif
