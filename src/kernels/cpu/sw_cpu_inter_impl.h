/* Internals of the inter-sequence engine shared between sw_cpu_inter.c (the
 * driver, dispatch) and the per-instruction-set kernel files. Not a public
 * header. */
#ifndef SW_CPU_INTER_IMPL_H
#define SW_CPU_INTER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "sw_cpu_inter.h"

/* A column byte past the end of a lane's subject. Bit 7 makes the byte
 * shuffles that build the column profile give 0, that is a score of -bias
 * (<= 0), so padding never lifts a lane's best score (see sw_cpu_inter.c). */
#define SW_INTER_PAD 0x80

/* Kernels take columns this many at a time; the driver pads the rest. */
#define SW_INTER_COLUMN_STEP 4

/* One group of `lanes` subjects against one query, as a kernel gets it. */
struct sw_inter_group {
    const uint8_t *query;   /* query_len codes < SW_CODE_LIMIT */
    size_t query_len;
    const uint8_t *codes;   /* the distinct codes of the query */
    size_t n_codes;
    const uint8_t *table;   /* SW_CODE_LIMIT x SW_CODE_LIMIT scores plus bias, 0..255 */
    int bias;
    int gap_open_extend;    /* a gap's first residue, clamped at 255 */
    int gap_extend;
    /* columns x lanes bytes, aligned to 64: byte j * lanes + l is residue j
     * of lane l's subject, or SW_INTER_PAD past its end. */
    const uint8_t *subjects;
    size_t columns;         /* a multiple of SW_INTER_COLUMN_STEP */
    void *h, *e;            /* query_len x lanes bytes each, aligned to 64; overwritten */
    uint8_t *best;          /* receives each lane's best H, saturated at 255 */
};

/* The kernels, defined only where the build has them (x86-64). */
#if defined(__x86_64__)
void sw_inter_kernel_avx512bw(const sw_inter_group *g);
void sw_inter_kernel_avx2(const sw_inter_group *g);
void sw_inter_kernel_sse41(const sw_inter_group *g);
#endif

#endif
