/* The inter-sequence engine's driver: variants by name and CPU features, the
 * plain C kernel, and the loop that puts subjects into lanes, runs a kernel
 * over each group for the queries and recomputes the lanes that may have
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
 * scores' ceiling) and each group's transposed columns: groups run in the
 * outer loop and queries in the inner one, so a group's columns (columns x
 * lanes bytes) stay in cache while every query passes over them, and what
 * depends on a query alone (its striped profile) is made once per call.
 * The group's column profile (every lane's score against each query code,
 * column by column) depends on the subjects alone, so the queries of a
 * pack share it: a kernel builds it a tile of columns at a time and runs
 * every query of the pack over the tile, each carrying its H and E to the
 * next. A short query has few rows to spread the profile's cost over, so
 * sharing pays most there. A pack holds as many queries as keep their H
 * and E (2 x lanes bytes a residue) within PACK_STATE, in L2; a longer
 * query is a pack of its own, where the profile is built for it alone, as
 * a call per query would.
 *
 * Signed lanes. A lane holds H - 128 as a signed byte: adding a score
 * (-128..127) with signed saturation stops at H = 0, the local alignment's
 * floor, and at H = 255, in one instruction (unsigned lanes would add the
 * score plus a bias, then take the bias off). Gaps subtract with signed
 * saturation too, which takes at most 127 (see ceiling()).
 *
 * Padding is exact. A padded cell scores 0 against every query residue, so
 * its H is at most the largest H of the cells it extends, E or F (which
 * only lose), or 0: by induction no padded cell exceeds the best real cell
 * of its lane.
 *
 * Saturation. Lanes hold H in 0..255; a cell saturates only when
 * H(diagonal) + s > 255, that is H(diagonal) > 255 - gain (gain: the
 * table's largest score): so while a lane's best H stays at or below that
 * ceiling, every cell of it is exact, and a lane above it is recomputed by
 * the striped engine, which is exact in 16 and 32 bits. E and F clamp at 0
 * instead of going negative; H = max(0, ...) cannot tell. */
#include "sw_cpu_inter_impl.h"

#include <stdlib.h>
#include <string.h>

#include "sw_cpu_simd.h"

enum {
    ALIGNMENT = 64,
    /* H and E of a pack's queries: in L2 while they pass over a group */
    PACK_STATE = 1 << 19,
    /* A tile's column profile: in L1 while a pack passes over it. Its
     * memory has room for every code, so a pack of few codes, whose tiles
     * are long, is held to MAX_TILE columns. */
    TILE_PROFILE = 1 << 14,
    MAX_TILE = 64
};

/* Lanes of the plain C kernel: the same arithmetic as the SIMD kernels, so
 * that the driver (grouping, packs, padding, recomputation) is tested on
 * any CPU. */
enum { SCALAR_LANES = 16 };

struct sw_inter_workspace {
    /* The queries' H and E, their lanes' best, a group's transposed
     * columns, a tile's column profile */
    uint8_t *mem;
    size_t size;
    struct slot *order;
    size_t order_cap;
    sw_inter_query *queries;     /* a call's queries, as kernels get them */
    sw_simd_profile **profiles;  /* each made on the first of its lanes that saturates */
    struct pack *packs;
    size_t queries_cap;          /* of queries, profiles and packs */
    sw_simd_workspace *simd;     /* for recomputed lanes */
};

/* A subject in the sorted order. */
struct slot {
    size_t length;
    size_t index;
};

/* Consecutive queries that meet a group together (sw_inter_group). */
struct pack {
    size_t first, count;
    uint8_t codes[SW_CODE_LIMIT];
    size_t n_codes;
    size_t tile;
};

static uint8_t adds_u8(int h, int s)
{
    return (uint8_t)(h + s > UINT8_MAX ? UINT8_MAX : h + s < 0 ? 0 : h + s);
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
 * out in H itself (sw_cpu_inter_kernel.h keeps H - 128). Scores come from
 * the table, so tiles, a matter of cache, play no part. */
static void scalar_kernel(const sw_inter_group *g)
{
    const size_t L = SCALAR_LANES;
    for (size_t q = 0; q < g->num_queries; q++) {
        const sw_inter_query *query = &g->queries[q];
        uint8_t *h = query->h, *e = query->e;
        for (size_t l = 0; l < L; l++) {
            uint8_t best = 0;
            for (size_t i = 0; i < query->len; i++) h[i * L + l] = e[i * L + l] = 0;
            for (size_t j = 0; j < g->columns; j++) {
                uint8_t c = g->subjects[j * L + l];
                uint8_t diag = 0, f = 0;
                for (size_t i = 0; i < query->len; i++) {
                    int s = c & SW_INTER_PAD ? 0 : g->table[query->seq[i] * SW_CODE_LIMIT + c];
                    uint8_t hv = adds_u8(diag, s);
                    hv = max_u8(max_u8(hv, f), e[i * L + l]);
                    best = max_u8(best, hv);
                    diag = h[i * L + l];
                    h[i * L + l] = hv;
                    uint8_t gap = subs_u8(hv, g->gap_open_extend);
                    e[i * L + l] = max_u8(subs_u8(e[i * L + l], g->gap_extend), gap);
                    f = max_u8(subs_u8(f, g->gap_extend), gap);
                }
            }
            query->best[l] = best;
        }
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
    free(ws->profiles);
    free(ws->packs);
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
    sw_inter_query *queries = realloc(ws->queries, n * sizeof *queries);
    if (queries) ws->queries = queries;
    sw_simd_profile **profiles = realloc(ws->profiles, n * sizeof *profiles);
    if (profiles) ws->profiles = profiles;
    struct pack *packs = realloc(ws->packs, n * sizeof *packs);
    if (packs) ws->packs = packs;
    if (!queries || !profiles || !packs) return SW_ENOMEM;
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
    int ceiling;
    int gap_open_extend, gap_extend; /* as kernels take them */
    const sw_scoring *scoring;
    sw_inter_query *queries;
    sw_simd_profile **profiles;
    size_t num_queries;
    const struct pack *packs;
    size_t num_packs;
    const uint8_t *const *subjects;
    size_t n;
    int32_t *scores;
    uint8_t *columns; /* the group's subjects in lanes (sw_inter_group.subjects) */
    void *profile;    /* a tile's column profile (sw_inter_group.profile) */
} search;

/* The largest best H up to which a lane is exact, and the gap costs the
 * kernels take. Lanes subtract at most 127 (signed bytes); dearer costs
 * (open + extend > 127, which any extend > 127 implies) are cut to 127
 * with the ceiling: while every H is at most 127, both take any H, E or F
 * to 0, so they cannot tell. The table itself decides the gain, as in
 * sw_cpu_simd.c, so that a max_score that understates it cannot let a
 * saturated lane pass. */
static void ceiling(search *s)
{
    const sw_scoring *scoring = s->scoring;
    int hi = INT8_MIN;
    for (size_t i = 0; i < SW_CODE_LIMIT * SW_CODE_LIMIT; i++)
        hi = scoring->table[i] > hi ? scoring->table[i] : hi;
    s->ceiling = UINT8_MAX - (hi > 0 ? hi : 0);
    s->gap_open_extend = scoring->gap_open + scoring->gap_extend;
    s->gap_extend = scoring->gap_extend;
    if (s->gap_open_extend > INT8_MAX) {
        s->ceiling = s->ceiling < INT8_MAX ? s->ceiling : INT8_MAX;
        s->gap_open_extend = s->gap_open_extend < INT8_MAX ? s->gap_open_extend : INT8_MAX;
        s->gap_extend = s->gap_extend < INT8_MAX ? s->gap_extend : INT8_MAX;
    }
}

/* The exact score of a lane that may have saturated. The 8-bit pass is
 * already known to overflow, so the striped engine starts at 16 bits. */
static int recompute(const search *s, size_t q, sw_inter_workspace *ws, const uint8_t *subject,
                     size_t length, int32_t *score)
{
    int rc;
    sw_simd_profile **profile = &s->profiles[q];
    if (!*profile) {
        sw_simd_variant v = sw_simd_variant_default();
        v.first_width = 1;
        if ((rc = sw_simd_profile_create_variant(s->queries[q].seq, s->queries[q].len, s->scoring,
                                                 &v, profile)) != SW_OK)
            return rc;
    }
    if (!ws->simd && (rc = sw_simd_workspace_create(&ws->simd)) != SW_OK) return rc;
    int r = sw_simd_align(*profile, ws->simd, subject, length);
    if (r < 0) return r;
    *score = r;
    return SW_OK;
}

/* Runs order[0 .. count) (count <= lanes, sorted, lengths >= 1) against
 * every query: the group is put into lanes once and stays in cache while
 * the packs pass over it. */
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
    for (size_t k = 0; k < s->num_packs; k++) {
        const struct pack *p = &s->packs[k];
        const sw_inter_group g = {
            .queries = s->queries + p->first, .num_queries = p->count, .codes = p->codes,
            .n_codes = p->n_codes, .table = s->scoring->table,
            .gap_open_extend = s->gap_open_extend, .gap_extend = s->gap_extend,
            .subjects = cols, .columns = columns, .tile = p->tile, .profile = s->profile};
        v->kernel(&g);
        for (size_t q = p->first; q < p->first + p->count; q++) {
            const sw_inter_query *query = &s->queries[q];
            if (query->len == 0) continue; /* scored 0 already */
            int32_t *scores = s->scores + q * s->n;
            for (size_t l = 0; l < count; l++) {
                size_t i = order[l].index;
                int rc;
                if (query->best[l] <= s->ceiling) {
                    scores[i] = query->best[l];
                } else if ((rc = recompute(s, q, ws, s->subjects[i], order[l].length,
                                           &scores[i])) != SW_OK) {
                    return rc;
                }
            }
        }
    }
    return SW_OK;
}

/* Cuts the queries into packs, consecutive queries whose H and E fit in
 * PACK_STATE (a longer query alone), each with its codes and tile. */
static void cut_packs(search *s, struct pack *packs, size_t lanes)
{
    const size_t pack_residues = PACK_STATE / (2 * lanes);
    size_t num_packs = 0, residues = 0;
    int seen[SW_CODE_LIMIT] = {0};
    for (size_t q = 0, first = 0; q <= s->num_queries; q++) {
        if (q > first && (q == s->num_queries || residues + s->queries[q].len > pack_residues)) {
            struct pack *p = &packs[num_packs++];
            p->first = first;
            p->count = q - first;
            p->n_codes = 0;
            for (int c = 0; c < SW_CODE_LIMIT; c++)
                if (seen[c]) p->codes[p->n_codes++] = (uint8_t)c;
            size_t tile = TILE_PROFILE / ((p->n_codes ? p->n_codes : 1) * lanes);
            tile = tile / SW_INTER_COLUMN_STEP * SW_INTER_COLUMN_STEP;
            p->tile = tile < SW_INTER_COLUMN_STEP ? SW_INTER_COLUMN_STEP
                      : tile > MAX_TILE           ? MAX_TILE
                                                  : tile;
            first = q;
            residues = 0;
            memset(seen, 0, sizeof seen);
        }
        if (q == s->num_queries) break;
        residues += s->queries[q].len;
        for (size_t i = 0; i < s->queries[q].len; i++) seen[s->queries[q].seq[i]] = 1;
    }
    s->packs = packs;
    s->num_packs = num_packs;
}

/* The bytes of H and E of a pack's queries, each aligned to 64. */
static size_t state_bytes(const search *s, const struct pack *p, size_t lanes)
{
    size_t bytes = 0;
    for (size_t q = p->first; q < p->first + p->count; q++)
        bytes += 2 * round_up(s->queries[q].len * lanes, ALIGNMENT);
    return bytes;
}

/* Everything the groups share: the ceiling and gap costs, the queries and
 * their packs, the nonempty subjects sorted into ws->order[0 .. *sorted),
 * the memory laid out for the largest pack and the longest subject. */
static int prepare(search *s, const sw_inter_variant *v, sw_inter_workspace *ws,
                   const uint8_t *const *queries, const size_t *query_lens, const size_t *lengths,
                   size_t *sorted)
{
    ceiling(s);
    size_t m = 0, longest = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (lengths[i] == 0) continue;
        ws->order[m++] = (struct slot){lengths[i], i};
        longest = lengths[i] > longest ? lengths[i] : longest;
    }
    /* A sort of an empty list is undefined behaviour. */
    if (m > 1) qsort(ws->order, m, sizeof *ws->order, by_length);

    const size_t lanes = (size_t)v->lanes;
    for (size_t q = 0; q < s->num_queries; q++)
        s->queries[q] = (sw_inter_query){.seq = queries[q], .len = query_lens[q]};
    cut_packs(s, ws->packs, lanes);
    size_t state = 0, best = 0, profile = 0;
    for (size_t k = 0; k < s->num_packs; k++) {
        const struct pack *p = &s->packs[k];
        size_t bytes = state_bytes(s, p, lanes);
        state = bytes > state ? bytes : state;
        best = p->count * ALIGNMENT > best ? p->count * ALIGNMENT : best;
        bytes = p->tile * SW_CODE_LIMIT * lanes;
        profile = bytes > profile ? bytes : profile;
    }
    const size_t column_bytes = round_up(round_up(longest, SW_INTER_COLUMN_STEP) * lanes, ALIGNMENT);
    int rc = reserve_mem(ws, state + best + column_bytes + profile);
    if (rc) return rc;
    s->columns = ws->mem + state + best;
    s->profile = s->columns + column_bytes;

    /* Packs run one after the other, so each lays its queries out from the
     * start. */
    for (size_t k = 0; k < s->num_packs; k++) {
        const struct pack *p = &s->packs[k];
        size_t at = 0;
        for (size_t q = p->first; q < p->first + p->count; q++) {
            sw_inter_query *query = &s->queries[q];
            const size_t bytes = round_up(query->len * lanes, ALIGNMENT);
            query->h = ws->mem + at;
            query->e = ws->mem + at + bytes;
            query->best = ws->mem + state + (q - p->first) * ALIGNMENT;
            at += 2 * bytes;
        }
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
    if (!v || !v->kernel || v->lanes < 1 || v->lanes > ALIGNMENT || !ws || !scoring ||
        !scoring->table || scoring->gap_open < 0 || scoring->gap_open > UINT8_MAX ||
        scoring->gap_extend < 1 || scoring->gap_extend > UINT8_MAX ||
        (num_queries && (!queries || !query_lens)) || (n && (!subjects || !lengths)) ||
        (num_queries && n && !scores))
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
    for (size_t q = 0; q < num_queries; q++) ws->profiles[q] = NULL;
    search s = {.scoring = scoring, .queries = ws->queries, .profiles = ws->profiles,
                .num_queries = num_queries, .subjects = subjects, .n = n, .scores = scores};
    size_t m = 0;
    rc = prepare(&s, v, ws, queries, query_lens, lengths, &m);
    if (longest_query == 0) m = 0; /* every query empty: no group to run */
    const size_t lanes = (size_t)v->lanes;
    for (size_t at = 0; at < m && rc == SW_OK; at += lanes)
        rc = run_group(&s, v, ws, ws->order + at, m - at < lanes ? m - at : lanes);
    for (size_t q = 0; q < num_queries; q++) sw_simd_profile_free(ws->profiles[q]);
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
