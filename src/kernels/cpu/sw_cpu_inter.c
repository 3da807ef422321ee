/* The inter-sequence engine's driver: variants by name and CPU features, the
 * plain C kernel, and the loop that puts subjects into lanes, runs a kernel
 * over each group for every query and recomputes the lanes that may have
 * saturated.
 *
 * Grouping. Subjects are sorted by length and run `lanes` at a time, each
 * group to its longest member's length (rounded up to the kernel's column
 * step), shorter ones padded. SWIPE instead hands a finished lane the next
 * subject at once; sorting leaves little padding (a database is already
 * sorted by length, so neighbours differ by a few residues) without the
 * per-cell lane resets that refilling needs.
 *
 * Batches. Several queries share one call's preparation (sorting, the
 * biased table) and each group's transposed columns: groups run in the
 * outer loop and queries in the inner one, so a group's columns (columns x
 * lanes bytes) stay in cache while every query passes over them, and what
 * depends on a query alone (its codes, its striped profile) is made once
 * per call.
 *
 * Padding is exact. A padded cell scores -bias <= 0 against every query
 * residue, so its H is at most the largest H of the cells it extends, E or
 * F (which only lose), or 0: by induction no padded cell exceeds the best
 * real cell of its lane.
 *
 * Saturation. Lanes hold H in 0..255; a cell adds a biased score (s + bias
 * >= 0) with unsigned saturation, then removes the bias. That saturates only
 * when H(diagonal) + s + bias > 255, that is H(diagonal) > 255 - bias - gain
 * (gain: the table's largest score): so while a lane's best H stays at or
 * below that ceiling, every cell of it is exact, and a lane above it is
 * recomputed by the striped engine, which is exact in 16 and 32 bits. E and
 * F clamp at 0 instead of going negative; H = max(0, ...) cannot tell. */
#include "sw_cpu_inter_impl.h"

#include <stdlib.h>
#include <string.h>

#include "sw_cpu_simd.h"

enum { ALIGNMENT = 64 };

/* Lanes of the plain C kernel: the same arithmetic as the SIMD kernels, so
 * that the driver (grouping, padding, recomputation) is tested on any CPU. */
enum { SCALAR_LANES = 16 };

struct sw_inter_workspace {
    uint8_t *mem; /* H, E, the transposed columns of a group, its lanes' best */
    size_t size;
    struct slot *order;
    size_t order_cap;
    struct query *queries;
    size_t queries_cap;
    sw_simd_workspace *simd; /* for recomputed lanes */
};

/* A subject in the sorted order. */
struct slot {
    size_t length;
    size_t index;
};

/* What a call derives from one of its queries, once for all its groups. */
struct query {
    sw_inter_group group; /* complete but for `columns`, set per group */
    uint8_t codes[SW_CODE_LIMIT];
    sw_simd_profile *profile; /* made on the first of its lanes that saturates */
};

static uint8_t adds_u8(int a, int b)
{
    return (uint8_t)(a + b > UINT8_MAX ? UINT8_MAX : a + b);
}

static uint8_t subs_u8(int a, int b)
{
    return (uint8_t)(a > b ? a - b : 0);
}

static uint8_t max_u8(uint8_t a, uint8_t b)
{
    return a > b ? a : b;
}

/* Lane by lane, one column at a time: the SIMD kernels' arithmetic written
 * out (see sw_cpu_inter_avx512.c for the loop order). */
static void scalar_kernel(const sw_inter_group *g)
{
    const size_t L = SCALAR_LANES;
    uint8_t *h = g->h, *e = g->e;
    for (size_t l = 0; l < L; l++) {
        uint8_t best = 0;
        for (size_t i = 0; i < g->query_len; i++) h[i * L + l] = e[i * L + l] = 0;
        for (size_t j = 0; j < g->columns; j++) {
            uint8_t c = g->subjects[j * L + l];
            uint8_t diag = 0, f = 0;
            for (size_t i = 0; i < g->query_len; i++) {
                int s = c & SW_INTER_PAD ? 0 : g->table[g->query[i] * SW_CODE_LIMIT + c];
                uint8_t hv = subs_u8(adds_u8(diag, s), g->bias);
                hv = max_u8(max_u8(hv, e[i * L + l]), f);
                best = max_u8(best, hv);
                diag = h[i * L + l];
                h[i * L + l] = hv;
                uint8_t gap = subs_u8(hv, g->gap_open_extend);
                e[i * L + l] = max_u8(subs_u8(e[i * L + l], g->gap_extend), gap);
                f = max_u8(subs_u8(f, g->gap_extend), gap);
            }
        }
        g->best[l] = best;
    }
}

/* ---- Variants ---- */

typedef struct known_variant {
    const char *name;
    const char *feature; /* for __builtin_cpu_supports; NULL: any CPU */
    int lanes;
    sw_inter_kernel kernel; /* NULL where the build has no such kernel */
} known_variant;

/* Best first. */
static const known_variant known[] = {
#if defined(__x86_64__)
    {"avx512bw", "avx512bw", 64, sw_inter_kernel_avx512bw},
    {"avx2", "avx2", 32, sw_inter_kernel_avx2},
    {"sse41", "sse4.1", 16, sw_inter_kernel_sse41},
#else
    {"avx512bw", "avx512bw", 64, NULL},
    {"avx2", "avx2", 32, NULL},
    {"sse41", "sse4.1", 16, NULL},
#endif
    {"scalar", NULL, SCALAR_LANES, scalar_kernel},
};
#define N_KNOWN (sizeof known / sizeof *known)

static int cpu_runs(const known_variant *k)
{
    if (!k->kernel) return 0;
    if (!k->feature) return 1;
#if defined(__x86_64__)
    /* The AVX-512BW kernel also uses AVX-512F instructions (broadcasts,
     * loads). The names are literals: __builtin_cpu_supports takes no
     * variable. */
    if (strcmp(k->feature, "avx512bw") == 0)
        return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f");
    if (strcmp(k->feature, "avx2") == 0) return __builtin_cpu_supports("avx2");
    /* Its byte shuffle is SSSE3, which no SSE4.1 CPU lacks; checked all the same. */
    if (strcmp(k->feature, "sse4.1") == 0)
        return __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("ssse3");
#endif
    return 0;
}

static void variant_of(const known_variant *k, sw_inter_variant *out)
{
    out->name = k->name;
    out->lanes = k->lanes;
    out->kernel = k->kernel;
}

int sw_inter_variant_best(sw_inter_variant *out)
{
    if (!out) return SW_EINVAL;
    for (size_t i = 0; i < N_KNOWN; i++) {
        if (cpu_runs(&known[i])) {
            variant_of(&known[i], out);
            return SW_OK;
        }
    }
    return SW_ENODEV; /* unreachable: the scalar kernel runs anywhere */
}

int sw_inter_variant_by_name(const char *name, sw_inter_variant *out, sw_error *err)
{
    if (!name || !out) return sw_error_set(err, SW_EINVAL, "no variant name");
    for (size_t i = 0; i < N_KNOWN; i++) {
        if (strcmp(known[i].name, name) != 0) continue;
        if (!cpu_runs(&known[i]))
            return sw_error_set(err, SW_ENODEV, "this CPU cannot run the %s inter-sequence engine",
                                name);
        variant_of(&known[i], out);
        return SW_OK;
    }
    return sw_error_set(err, SW_ENOTFOUND, "no inter-sequence engine named '%s'", name);
}

/* ---- Workspace ---- */

int sw_inter_workspace_create(sw_inter_workspace **out)
{
    if (!out) return SW_EINVAL;
    *out = calloc(1, sizeof **out);
    return *out ? SW_OK : SW_ENOMEM;
}

void sw_inter_workspace_free(sw_inter_workspace *ws)
{
    if (!ws) return;
    free(ws->mem);
    free(ws->order);
    free(ws->queries);
    sw_simd_workspace_free(ws->simd);
    free(ws);
}

static size_t round_up(size_t n, size_t step)
{
    return (n + step - 1) / step * step;
}

/* Grows, never shrinks, so a warm thread allocates nothing. */
static int reserve_mem(sw_inter_workspace *ws, size_t bytes)
{
    if (bytes <= ws->size) return SW_OK;
    size_t want = round_up(bytes > 2 * ws->size ? bytes : 2 * ws->size, ALIGNMENT);
    uint8_t *mem = aligned_alloc(ALIGNMENT, want);
    if (!mem) return SW_ENOMEM;
    free(ws->mem);
    ws->mem = mem;
    ws->size = want;
    return SW_OK;
}

static int reserve_order(sw_inter_workspace *ws, size_t n)
{
    if (n <= ws->order_cap) return SW_OK;
    struct slot *order = realloc(ws->order, n * sizeof *order);
    if (!order) return SW_ENOMEM;
    ws->order = order;
    ws->order_cap = n;
    return SW_OK;
}

static int reserve_queries(sw_inter_workspace *ws, size_t n)
{
    if (n <= ws->queries_cap) return SW_OK;
    struct query *queries = realloc(ws->queries, n * sizeof *queries);
    if (!queries) return SW_ENOMEM;
    ws->queries = queries;
    ws->queries_cap = n;
    return SW_OK;
}

/* ---- The search ---- */

static int by_length(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;
    if (x->length != y->length) return x->length < y->length ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* As in sw_align_ref.c: refuse what could pass INT32_MAX. */
static int exceeds_int32(size_t query_len, size_t subject_len, int max_score)
{
    size_t shorter = query_len < subject_len ? query_len : subject_len;
    return max_score > 0 && shorter > (size_t)(INT32_MAX / max_score);
}

static int check_codes(const uint8_t *seq, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (seq[i] >= SW_CODE_LIMIT) return 0;
    return 1;
}

/* What every group of one call shares. */
typedef struct search {
    uint8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT]; /* scores plus bias */
    int ceiling;
    const sw_scoring *scoring;
    struct query *queries;
    size_t num_queries;
    const uint8_t *const *subjects;
    size_t n;
    int32_t *scores;
    uint8_t *columns; /* the group's subjects in lanes (sw_inter_group.subjects) */
} search;

/* The exact score of a lane that may have saturated. The 8-bit pass is
 * already known to overflow, so the striped engine starts at 16 bits. */
static int recompute(const search *s, struct query *q, sw_inter_workspace *ws,
                     const uint8_t *subject, size_t length, int32_t *score)
{
    int rc;
    if (!q->profile) {
        sw_simd_variant v = sw_simd_variant_default();
        v.first_width = 1;
        if ((rc = sw_simd_profile_create_variant(q->group.query, q->group.query_len, s->scoring,
                                                 &v, &q->profile)) != SW_OK)
            return rc;
    }
    if (!ws->simd && (rc = sw_simd_workspace_create(&ws->simd)) != SW_OK) return rc;
    int r = sw_simd_align(q->profile, ws->simd, subject, length);
    if (r < 0) return r;
    *score = r;
    return SW_OK;
}

/* Runs order[0 .. count) (count <= lanes, sorted, lengths >= 1) against
 * every query: the group is put into lanes once and stays in cache while
 * the queries pass over it. */
static int run_group(search *s, const sw_inter_variant *v, sw_inter_workspace *ws,
                     const struct slot *order, size_t count)
{
    const size_t lanes = (size_t)v->lanes;
    const size_t columns = round_up(order[count - 1].length, SW_INTER_COLUMN_STEP);
    uint8_t *cols = s->columns;
    memset(cols, SW_INTER_PAD, columns * lanes);
    for (size_t l = 0; l < count; l++) {
        const uint8_t *subject = s->subjects[order[l].index];
        for (size_t j = 0; j < order[l].length; j++) cols[j * lanes + l] = subject[j];
    }
    for (size_t q = 0; q < s->num_queries; q++) {
        struct query *query = &s->queries[q];
        if (query->group.query_len == 0) continue; /* scored 0 already */
        sw_inter_group g = query->group;
        g.columns = columns;
        v->kernel(&g);
        int32_t *scores = s->scores + q * s->n;
        for (size_t l = 0; l < count; l++) {
            size_t i = order[l].index;
            int rc;
            if (g.best[l] <= s->ceiling) {
                scores[i] = g.best[l];
            } else if ((rc = recompute(s, query, ws, s->subjects[i], order[l].length,
                                       &scores[i])) != SW_OK) {
                return rc;
            }
        }
    }
    return SW_OK;
}

/* Everything the groups share: the biased table and the ceiling, each
 * query's codes and gap costs, the nonempty subjects sorted into
 * ws->order[0 .. *sorted), the memory laid out for the longest query and
 * subject. */
static int prepare(search *s, const sw_inter_variant *v, sw_inter_workspace *ws,
                   const uint8_t *const *queries, const size_t *query_lens, size_t longest_query,
                   const size_t *lengths, size_t *sorted)
{
    const sw_scoring *scoring = s->scoring;
    /* Bias and ceiling from the table itself, as sw_cpu_simd.c does, so that
     * a max_score that understates it cannot let a saturated lane pass. */
    int lo = INT8_MAX, hi = INT8_MIN;
    for (size_t i = 0; i < SW_CODE_LIMIT * SW_CODE_LIMIT; i++) {
        lo = scoring->table[i] < lo ? scoring->table[i] : lo;
        hi = scoring->table[i] > hi ? scoring->table[i] : hi;
    }
    const int bias = lo < 0 ? -lo : 0, gain = hi > 0 ? hi : 0;
    for (size_t i = 0; i < sizeof s->table; i++)
        s->table[i] = (uint8_t)(scoring->table[i] + bias);
    s->ceiling = UINT8_MAX - bias - gain; /* >= 0: bias <= 128, gain <= 127 */
    /* open + extend may reach 510; where every H <= 255, 255 already takes
     * any H to 0, as the full cost would. */
    const int open_extend = scoring->gap_open + scoring->gap_extend;

    size_t m = 0, longest = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (lengths[i] == 0) continue;
        ws->order[m++] = (struct slot){lengths[i], i};
        longest = lengths[i] > longest ? lengths[i] : longest;
    }
    /* A sort of an empty list is undefined behaviour. */
    if (m > 1) qsort(ws->order, m, sizeof *ws->order, by_length);

    const size_t lanes = (size_t)v->lanes;
    const size_t state_bytes = round_up(longest_query * lanes, ALIGNMENT);
    const size_t columns = round_up(longest, SW_INTER_COLUMN_STEP);
    const size_t column_bytes = round_up(columns * lanes, ALIGNMENT);
    const size_t best_at = 2 * state_bytes + column_bytes;
    int rc = reserve_mem(ws, best_at + round_up(lanes, ALIGNMENT));
    if (rc) return rc;
    s->columns = ws->mem + 2 * state_bytes;

    for (size_t q = 0; q < s->num_queries; q++) {
        struct query *query = &s->queries[q];
        const uint8_t *seq = queries[q];
        size_t n_codes = 0;
        int seen[SW_CODE_LIMIT] = {0};
        for (size_t i = 0; i < query_lens[q]; i++)
            if (!seen[seq[i]]++) query->codes[n_codes++] = seq[i];
        query->group = (sw_inter_group){
            .query = seq, .query_len = query_lens[q], .codes = query->codes, .n_codes = n_codes,
            .table = s->table, .bias = bias,
            .gap_open_extend = open_extend > UINT8_MAX ? UINT8_MAX : open_extend,
            .gap_extend = scoring->gap_extend,
            .subjects = s->columns, .h = ws->mem, .e = ws->mem + state_bytes,
            .best = ws->mem + best_at};
    }
    *sorted = m;
    return SW_OK;
}

int sw_inter_align_batch(const sw_inter_variant *v, sw_inter_workspace *ws,
                         const uint8_t *const *queries, const size_t *query_lens,
                         size_t num_queries, const sw_scoring *scoring,
                         const uint8_t *const *subjects, const size_t *lengths, size_t n,
                         int32_t *scores, sw_error *err)
{
    if (!v || !v->kernel || v->lanes < 1 || !ws || !scoring || !scoring->table ||
        scoring->gap_open < 0 || scoring->gap_open > UINT8_MAX || scoring->gap_extend < 1 ||
        scoring->gap_extend > UINT8_MAX || (num_queries && (!queries || !query_lens)) ||
        (n && (!subjects || !lengths)) || (num_queries && n && !scores))
        return sw_error_set(err, SW_EINVAL, "invalid argument to the inter-sequence engine");
    size_t longest_query = 0, longest_at = 0;
    for (size_t q = 0; q < num_queries; q++) {
        if (query_lens[q] && !queries[q])
            return sw_error_set(err, SW_EINVAL, "query %zu is NULL", q);
        if (!check_codes(queries[q], query_lens[q]))
            return sw_error_set(err, SW_EINVAL, "query %zu holds a residue code >= %d", q,
                                SW_CODE_LIMIT);
        if (query_lens[q] > longest_query) {
            longest_query = query_lens[q];
            longest_at = q;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (lengths[i] && !subjects[i])
            return sw_error_set(err, SW_EINVAL, "subject %zu is NULL", i);
        if (!check_codes(subjects[i], lengths[i]))
            return sw_error_set(err, SW_EINVAL, "subject %zu holds a residue code >= %d", i,
                                SW_CODE_LIMIT);
        /* The bound grows with the query, so the longest one decides. */
        if (exceeds_int32(longest_query, lengths[i], scoring->max_score))
            return sw_error_set(err, SW_ELIMIT, "query %zu, subject %zu: scores could pass 2^31",
                                longest_at, i);
    }
    if (num_queries == 0 || n == 0) return SW_OK;

    /* Empty queries and subjects score 0 and never reach a kernel. */
    for (size_t q = 0; q < num_queries; q++)
        for (size_t i = 0; i < n; i++)
            if (query_lens[q] == 0 || lengths[i] == 0) scores[q * n + i] = 0;

    int rc = reserve_order(ws, n);
    if (!rc) rc = reserve_queries(ws, num_queries);
    if (rc) return sw_error_set(err, rc, "out of memory");
    for (size_t q = 0; q < num_queries; q++) ws->queries[q].profile = NULL;
    search s = {.scoring = scoring, .queries = ws->queries, .num_queries = num_queries,
                .subjects = subjects, .n = n, .scores = scores};
    size_t m = 0;
    rc = prepare(&s, v, ws, queries, query_lens, longest_query, lengths, &m);
    if (longest_query == 0) m = 0; /* every query empty: no group to run */
    const size_t lanes = (size_t)v->lanes;
    for (size_t at = 0; at < m && rc == SW_OK; at += lanes)
        rc = run_group(&s, v, ws, ws->order + at, m - at < lanes ? m - at : lanes);
    for (size_t q = 0; q < num_queries; q++) sw_simd_profile_free(ws->queries[q].profile);
    if (rc) return sw_error_set(err, rc, "inter-sequence search: %s", sw_strerror(rc));
    return SW_OK;
}

int sw_inter_align_many(const sw_inter_variant *v, sw_inter_workspace *ws, const uint8_t *query,
                        size_t query_len, const sw_scoring *scoring, const uint8_t *const *subjects,
                        const size_t *lengths, size_t n, int32_t *scores, sw_error *err)
{
    return sw_inter_align_batch(v, ws, &query, &query_len, 1, scoring, subjects, lengths, n,
                                scores, err);
}
