/* Internals of the inter-sequence engine shared between sw_cpu_inter.c (the
 * driver, dispatch) and the per-instruction-set kernel files. Not a public
 * header. */
#ifndef SW_CPU_INTER_IMPL_H
#define SW_CPU_INTER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "sw_cpu_inter.h"

/* A column byte past the end of a lane's subject. Bit 7 makes the byte
 * shuffles that build the column profile give 0, a score of 0 against any
 * query residue, so padding never lifts a lane's best score (see
 * sw_cpu_inter.c). */
#define SW_INTER_PAD 0x80

/* Kernels take columns this many at a time; the driver pads the rest. */
#define SW_INTER_COLUMN_STEP 4

/* One query of a group's run: its own H and E, carried from one tile of
 * columns to the next. */
typedef struct sw_inter_query {
    const uint8_t *seq; /* len codes < SW_CODE_LIMIT; len may be 0 */
    size_t len;
    void *h, *e;        /* len x lanes bytes each, aligned to 64; overwritten */
    uint8_t *best;      /* lanes bytes, aligned to 64: receives each lane's best H, at most 255 */
} sw_inter_query;

/* One group of `lanes` subjects against several queries, as a kernel gets
 * it. Lanes hold H - 128 as signed bytes (sw_cpu_inter.c says why), so
 * that adding a score saturates at H = 0 and H = 255 in one instruction. */
struct sw_inter_group {
    const sw_inter_query *queries;
    size_t num_queries;
    const uint8_t *codes;   /* every code that occurs in the queries */
    size_t n_codes;
    const int8_t *table;    /* SW_CODE_LIMIT x SW_CODE_LIMIT scores */
    int gap_open_extend;    /* a gap's first residue, <= 127 */
    int gap_extend;         /* <= 127 */
    /* columns x lanes bytes, aligned to 64: byte j * lanes + l is residue j
     * of lane l's subject, or SW_INTER_PAD past its end. */
    const uint8_t *subjects;
    size_t columns;         /* a multiple of SW_INTER_COLUMN_STEP */
    /* The column profile is built for `tile` columns at a time (a multiple
     * of SW_INTER_COLUMN_STEP) into `profile`, tile x SW_CODE_LIMIT x lanes
     * bytes aligned to 64, and every query passes over a tile before the
     * next is built. */
    size_t tile;
    void *profile;
};

/* The kernels, defined only where the build has them (x86-64). */
#if defined(__x86_64__)
void sw_inter_kernel_avx512bw(const sw_inter_group *g);
void sw_inter_kernel_avx2(const sw_inter_group *g);
void sw_inter_kernel_sse41(const sw_inter_group *g);
#endif

#endif
