/* The AVX-512BW kernel of the inter-sequence engine: 64 subjects in 64
 * 8-bit lanes. Built with -mavx512bw; called only after a CPU check. */
#include "sw_cpu_inter_impl.h"

#if defined(__x86_64__)
#ifndef __AVX512BW__
#error "sw_cpu_inter_avx512.c must be compiled with -mavx512bw"
#endif
#include <immintrin.h>

#define LANES 64
#define KERNEL sw_inter_kernel_avx512bw
#define V __m512i
#define MASK __mmask64
#define SET1(x) _mm512_set1_epi8((char)(x))
#define LOAD(p) _mm512_load_si512(p)
#define STORE(p, v) _mm512_store_si512((p), (v))
#define ADDS(a, b) _mm512_adds_epi8((a), (b))
#define SUBS(a, b) _mm512_subs_epi8((a), (b))
#define MAX(a, b) _mm512_max_epi8((a), (b))
/* The compare runs on port 5 and the masked move on port 0 or 5, while
 * Intel cores run 512-bit saturating arithmetic and max on port 0 alone. */
#define MAX_BY_MASK(a, b) _mm512_mask_mov_epi8((a), _mm512_cmpgt_epi8_mask((b), (a)), (b))
#define XOR(a, b) _mm512_xor_si512((a), (b))
#define SHUFFLE(t, i) _mm512_shuffle_epi8((t), (i))
#define BROADCAST16(p) _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(p)))
#define TEST_BIT(a, bit) _mm512_test_epi8_mask((a), (bit))
#define BLEND(m, a, b) _mm512_mask_blend_epi8((m), (a), (b))

#include "sw_cpu_inter_kernel.h"

#endif
