/* Which CPU engine scores each query of a search: the striped engine
 * (sw_cpu_simd.h) or the inter-sequence one (sw_cpu_inter.h). Forced by
 * name, or timed: both run on a sample of the database's own sequences for
 * each class of query length, and the faster one takes the class. Scores
 * are exact either way, so the choice changes the speed of a search, never
 * its results. */
#ifndef SW_CPU_CHOICE_H
#define SW_CPU_CHOICE_H

#include <stddef.h>
#include <stdint.h>

#include "sw_cpu_inter.h"
#include "sw_cpu_simd.h"
#include "sw_db.h"
#include "sw_matrix.h"
#include "sw_queries.h"
#include "sw_search.h"

/* Query lengths up to 16, 17 to 32, 33 to 64, ... (classes double), the
 * last class open-ended. */
#define SW_CPU_CHOICE_CLASSES 12

typedef struct sw_cpu_choice {
    sw_simd_variant striped;  /* the striped engine's variant */
    sw_inter_variant inter;   /* the inter-sequence engine's */
    uint8_t *inter_of;        /* per query: 1 inter-sequence, 0 striped */
    size_t num_inter;         /* queries with inter_of set */
    /* Per class, what the timing found (both 0 where it did not run):
     * seconds of each engine on the same cells. */
    double striped_seconds[SW_CPU_CHOICE_CLASSES], inter_seconds[SW_CPU_CHOICE_CLASSES];
    double seconds;           /* the whole choice: reading the sample and timing */
} sw_cpu_choice;

/* Gives the residues of the database's sequences first .. first + count - 1,
 * all of chunk `chunk`, back to back, valid until sw_cpu_choose returns:
 * the caller's copy of the chunk, which its search reads anyway. */
typedef int (*sw_cpu_sample_reader)(void *user, size_t chunk, uint64_t first, uint64_t count,
                                    const uint8_t **residues, sw_error *err);

/* The class of a query of `length` residues. */
int sw_cpu_choice_class(size_t length);

/* Chooses the engine of every query. SW_CPU_ENGINE_STRIPED and
 * SW_CPU_ENGINE_INTER give every query that engine; SW_CPU_ENGINE_AUTO
 * times both on this CPU, class by class, on a few groups of consecutive
 * database sequences (where the database's residues reach a half, a
 * quarter, three quarters, ...), with up to 16 of the class's queries,
 * single-threaded. The timing grows in steps while it stays within about
 * 2% of the time that the class's share of the search is expected to take
 * on `threads` threads, so a small search times little. The sample comes
 * through `read` (only for SW_CPU_ENGINE_AUTO). Nothing is kept between
 * calls: each search (each batch of queries) times afresh. SW_EINVAL for
 * the reference engine, which is no choice of this module. */
int sw_cpu_choose(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  sw_cpu_engine engine, int threads, sw_cpu_sample_reader read, void *read_user,
                  sw_cpu_choice *out, sw_error *err);
void sw_cpu_choice_free(sw_cpu_choice *c);

/* The engines that run, as a search's statistics name them: "striped
 * (avx2)", "inter (avx512bw)" or "striped (avx2) + inter (avx512bw)". */
void sw_cpu_choice_describe(const sw_cpu_choice *c, size_t num_queries, char *buf, size_t size);

#endif
