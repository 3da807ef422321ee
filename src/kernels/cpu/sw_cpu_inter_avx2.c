/* The AVX2 kernel of the inter-sequence engine: 32 subjects in 32
 * 8-bit lanes. Built with -mavx2; called only after a CPU check. */
#include "sw_cpu_inter_impl.h"

#if defined(__x86_64__)
#ifndef __AVX2__
#error "sw_cpu_inter_avx2.c must be compiled with -mavx2"
#endif
#include <immintrin.h>

#define LANES 32
#define KERNEL sw_inter_kernel_avx2
#define V __m256i
/* AVX2 has no mask registers: a mask is a vector of 0x00 / 0xFF bytes. */
#define MASK __m256i
#define SET1(x) _mm256_set1_epi8((char)(x))
#define LOAD(p) _mm256_load_si256(p)
#define STORE(p, v) _mm256_store_si256((p), (v))
#define ADDS(a, b) _mm256_adds_epi8((a), (b))
#define SUBS(a, b) _mm256_subs_epi8((a), (b))
#define MAX(a, b) _mm256_max_epi8((a), (b))
/* No mask registers, and a compare runs where MAX does. */
#define MAX_BY_MASK(a, b) MAX((a), (b))
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define SHUFFLE(t, i) _mm256_shuffle_epi8((t), (i))
#define BROADCAST16(p) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p)))
#define TEST_BIT(a, bit) _mm256_cmpeq_epi8(_mm256_and_si256((a), (bit)), (bit))
#define BLEND(m, a, b) _mm256_blendv_epi8((a), (b), (m))

#include "sw_cpu_inter_kernel.h"

#endif
