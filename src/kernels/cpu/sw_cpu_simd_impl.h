/* Internals of the CPU SIMD engine shared between sw_cpu_simd.c (profiles,
 * dispatch) and the per-instruction-set kernel files. Not a public header. */
#ifndef SW_CPU_SIMD_IMPL_H
#define SW_CPU_SIMD_IMPL_H

#include <stddef.h>
#include <stdint.h>

/* The striped kernels need SSE2, which every x86-64 CPU has; elsewhere the
 * engine falls back to the scalar reference. */
#if defined(__x86_64__) && defined(__SSE2__)
#define SW_SIMD_X86 1
#else
#define SW_SIMD_X86 0
#endif

/* A kernel's answer when its best score passed the pass's ceiling: some cell
 * may have saturated, so the caller reruns with wider lanes. */
#define SW_SIMD_SATURATED (-1)

/* One striped pass (Farrar 2007) of the query profile over one subject.
 * Profile layout: for each residue code c < SW_CODE_LIMIT, seg_len vectors;
 * lane l of vector s holds the score of query position l * seg_len + s
 * against c. Positions past the end of the query hold 0, which the biased
 * 8-bit profile reads as -bias: a score of at most 0 either way, so a padded
 * cell never scores above the real cell it extends, and padding cannot
 * change the best score. */
typedef struct sw_simd_pass {
    const void *profile;
    size_t seg_len;
    const uint8_t *subject;
    size_t subject_len;
    int gap_open_extend; /* cost of a gap's first residue */
    int gap_extend;
    int bias;            /* 8-bit only: added to every score to make it unsigned */
    int ceiling;         /* a best score above this may have saturated */
    void *h_a, *h_b, *e; /* seg_len vectors each, aligned to the vector size */
    /* Not NULL: receives the first subject position (1-based) at which the
     * best score is reached, 0 for a score of 0. */
    size_t *end_column;
    /* Not NULL: receives the last subject position (1-based) at which a cell
     * reaches `target`, 0 if none does. */
    size_t *last_column;
    int target;
} sw_simd_pass;

/* Best score of the pass (>= 0), or SW_SIMD_SATURATED. */
typedef int (*sw_simd_kernel)(const sw_simd_pass *pass);

/* One striped pass in 16-bit lanes that keeps, for a traceback, each
 * cell's exact H and the source of H (sw_cpu_simd_trace.h), over `columns`
 * subject residues. h holds H of the column before the first (all 0 at the
 * matrix's left edge) and receives the last column's; e holds E of the
 * first column (0 at the left edge: minus infinity) and receives E of the
 * column after the last. cells: NULL, or columns x seg_len vectors
 * receiving (H << 2) | the bits saying where H came from, column after
 * column. */
typedef struct sw_simd_trace_pass {
    const void *profile; /* the 16-bit striped profile */
    size_t seg_len;
    const uint8_t *subject;
    size_t columns;
    int gap_open_extend;
    int gap_extend;
    void *h, *h_scratch, *e; /* seg_len vectors each, aligned to the vector size */
    void *cells;
} sw_simd_trace_pass;

typedef void (*sw_simd_trace_kernel)(const sw_simd_trace_pass *pass);

/* The kernels of one instruction set; index k of `striped` works on
 * (8 << k)-bit lanes: 8, 16 and 32 bits. */
typedef struct sw_simd_kernels {
    const char *name;
    size_t vector_bytes;
    sw_simd_kernel striped[3];
    sw_simd_trace_kernel trace16;
} sw_simd_kernels;

#if SW_SIMD_X86
extern const sw_simd_kernels sw_simd_kernels_sse2;
extern const sw_simd_kernels sw_simd_kernels_avx2;
#endif

#endif
