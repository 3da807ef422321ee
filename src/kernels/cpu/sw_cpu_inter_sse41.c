/* The SSE4.1 kernel of the inter-sequence engine: 16 subjects in 16
 * 8-bit lanes, for x86-64 CPUs without AVX2. Built with -msse4.1;
 * called only after a CPU check. */
#include "sw_cpu_inter_impl.h"

#if defined(__x86_64__)
#ifndef __SSE4_1__
#error "sw_cpu_inter_sse41.c must be compiled with -msse4.1"
#endif
#include <immintrin.h>

#define LANES 16
#define KERNEL sw_inter_kernel_sse41
#define V __m128i
/* As in AVX2, a mask is a vector of 0x00 / 0xFF bytes. */
#define MASK __m128i
#define SET1(x) _mm_set1_epi8((char)(x))
#define LOAD(p) _mm_load_si128(p)
#define STORE(p, v) _mm_store_si128((p), (v))
#define ADDS(a, b) _mm_adds_epi8((a), (b))
#define SUBS(a, b) _mm_subs_epi8((a), (b))
/* pmaxsb and blendv are SSE4.1; pshufb is SSSE3, which every SSE4.1 CPU
 * has. */
#define MAX(a, b) _mm_max_epi8((a), (b))
/* No mask registers, and a compare runs where MAX does. */
#define MAX_BY_MASK(a, b) MAX((a), (b))
#define XOR(a, b) _mm_xor_si128((a), (b))
#define SHUFFLE(t, i) _mm_shuffle_epi8((t), (i))
#define BROADCAST16(p) _mm_loadu_si128((const __m128i *)(p))
#define TEST_BIT(a, bit) _mm_cmpeq_epi8(_mm_and_si128((a), (bit)), (bit))
#define BLEND(m, a, b) _mm_blendv_epi8((a), (b), (m))

#include "sw_cpu_inter_kernel.h"

#endif
