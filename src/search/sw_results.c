/* Storage for the hits of every query and the search statistics. */
#include "sw_results.h"

#include <stdlib.h>
#include <string.h>

#include "sw_error.h"

struct sw_search_results {
    size_t num_queries;
    size_t *counts;
    sw_hit **hits;
    sw_search_stats stats;
    int32_t *all_scores; /* num_queries x all_scores_per_query, or NULL */
    uint64_t all_scores_per_query;
};

int sw_results_create(size_t num_queries, sw_search_results **out)
{
    sw_search_results *r = calloc(1, sizeof *r);
    if (!r) return SW_ENOMEM;
    r->num_queries = num_queries;
    r->counts = calloc(num_queries ? num_queries : 1, sizeof *r->counts);
    r->hits = calloc(num_queries ? num_queries : 1, sizeof *r->hits);
    if (!r->counts || !r->hits) {
        sw_results_free(r);
        return SW_ENOMEM;
    }
    *out = r;
    return SW_OK;
}

void sw_results_free(sw_search_results *r)
{
    if (!r) return;
    if (r->hits)
        for (size_t q = 0; q < r->num_queries; q++) free(r->hits[q]);
    free(r->hits);
    free(r->counts);
    free(r->all_scores);
    free(r);
}

int sw_results_set_hits(sw_search_results *r, size_t q, const sw_hit *hits, size_t count)
{
    sw_hit *copy = malloc((count ? count : 1) * sizeof *copy);
    if (!copy) return SW_ENOMEM;
    memcpy(copy, hits, count * sizeof *copy);
    free(r->hits[q]);
    r->hits[q] = copy;
    r->counts[q] = count;
    return SW_OK;
}

void sw_results_set_stats(sw_search_results *r, const sw_search_stats *stats) { r->stats = *stats; }

size_t sw_results_count(const sw_search_results *r, size_t q) { return r->counts[q]; }
const sw_hit *sw_results_hits(const sw_search_results *r, size_t q) { return r->hits[q]; }
void sw_results_stats(const sw_search_results *r, sw_search_stats *stats) { *stats = r->stats; }

void sw_results_adopt_all_scores(sw_search_results *r, int32_t *scores, uint64_t num_seqs)
{
    free(r->all_scores);
    r->all_scores = scores;
    r->all_scores_per_query = num_seqs;
}

const int32_t *sw_results_all_scores(const sw_search_results *r, size_t q)
{
    return r->all_scores ? r->all_scores + q * r->all_scores_per_query : NULL;
}
