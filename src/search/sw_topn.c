/* A bounded binary heap with the worst kept hit at the root. */
#include "sw_topn.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct sw_topn {
    size_t capacity, count;
    sw_hit heap[];
};

static int better(const sw_hit *a, const sw_hit *b)
{
    return a->score != b->score ? a->score > b->score : a->original < b->original;
}

sw_topn *sw_topn_create(size_t capacity)
{
    sw_topn *t = malloc(sizeof *t + capacity * sizeof(sw_hit));
    if (t) {
        t->capacity = capacity;
        t->count = 0;
    }
    return t;
}

void sw_topn_free(sw_topn *t) { free(t); }

void sw_topn_clear(sw_topn *t) { t->count = 0; }

int sw_topn_threshold(const sw_topn *t)
{
    if (t->capacity == 0) return INT_MAX;
    return t->count < t->capacity ? INT_MIN : t->heap[0].score;
}

static void sift_down(sw_topn *t, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, worst = i;
        if (l < t->count && better(&t->heap[worst], &t->heap[l])) worst = l;
        if (r < t->count && better(&t->heap[worst], &t->heap[r])) worst = r;
        if (worst == i) return;
        sw_hit tmp = t->heap[i];
        t->heap[i] = t->heap[worst];
        t->heap[worst] = tmp;
        i = worst;
    }
}

void sw_topn_offer(sw_topn *t, const sw_hit *hit)
{
    if (t->count < t->capacity) {
        size_t i = t->count++;
        t->heap[i] = *hit;
        while (i > 0) {
            size_t parent = (i - 1) / 2;
            if (!better(&t->heap[parent], &t->heap[i])) break;
            sw_hit tmp = t->heap[i];
            t->heap[i] = t->heap[parent];
            t->heap[parent] = tmp;
            i = parent;
        }
    } else if (t->capacity > 0 && better(hit, &t->heap[0])) {
        t->heap[0] = *hit;
        sift_down(t, 0);
    }
}

void sw_topn_merge(sw_topn *into, const sw_topn *from)
{
    for (size_t i = 0; i < from->count; i++) sw_topn_offer(into, &from->heap[i]);
}

size_t sw_topn_count(const sw_topn *t) { return t->count; }

static int cmp_best_first(const void *a, const void *b)
{
    const sw_hit *x = a, *y = b;
    return better(x, y) ? -1 : better(y, x) ? 1 : 0;
}

void sw_topn_sorted(const sw_topn *t, sw_hit *out)
{
    memcpy(out, t->heap, t->count * sizeof *out);
    qsort(out, t->count, sizeof *out, cmp_best_first);
}

size_t sw_topn_merge_sorted(const sw_hit *const *lists, const size_t *counts, size_t num_lists, size_t top_n,
                            sw_hit *out)
{
    /* Few lists (one a GPU): the best head is found by a scan. */
    size_t n = 0;
    size_t pos[SW_TOPN_MERGE_MAX_LISTS] = {0};
    if (num_lists > SW_TOPN_MERGE_MAX_LISTS) num_lists = SW_TOPN_MERGE_MAX_LISTS;
    while (n < top_n) {
        size_t best = num_lists;
        for (size_t l = 0; l < num_lists; l++)
            if (pos[l] < counts[l] && (best == num_lists || better(&lists[l][pos[l]], &lists[best][pos[best]])))
                best = l;
        if (best == num_lists) break;
        out[n++] = lists[best][pos[best]++];
    }
    return n;
}
