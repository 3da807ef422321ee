/* The CPU SIMD engine: striped query profiles, per-thread workspaces, and the
 * 8 -> 16 -> 32-bit cascade that keeps every score exact. The kernels are in
 * sw_cpu_simd_striped.h, instantiated by sw_cpu_simd_{sse2,avx2}.c.
 *
 * The variant (instruction set and starting width) is chosen once, before the
 * profiles are made, by CPU features (sw_simd_variant_default) or by name
 * (sw_simd_variant_select, for tests and benchmarks); each profile keeps the
 * kernel table of its variant, so the align loop dispatches through it with
 * no further choice. */
#include "sw_cpu_simd.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sw_align_ref.h"
#include "sw_cpu_simd_impl.h"

/* Lane widths of the cascade: 8, 16 and 32 bits. Most database sequences
 * score far below 255 against a query, so the 8-bit pass, with twice the
 * lanes of the 16-bit one, settles nearly all of them. */
enum { WIDTHS = 3 };

/* Profiles and workspaces are aligned to a cache line, which covers every
 * vector size in use. */
enum { ALIGNMENT = 64 };

struct sw_simd_profile {
    const sw_simd_kernels *kernels; /* NULL: every subject goes to the reference */
    int first_width;                /* where the cascade starts, 0..WIDTHS-1 */
    uint8_t *query; /* NULL for position-specific rows */
    int8_t *rows;   /* query_len x SW_CODE_LIMIT scores: the matrix's row of each residue, or a PSSM's */
    size_t query_len;
    int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
    sw_scoring scoring;             /* .table points at the copy above */
    int bias;                       /* of the 8-bit profile */
    int ceiling[WIDTHS];
    size_t seg_len[WIDTHS];
    void *striped[WIDTHS];
};

struct sw_simd_workspace {
    void *mem;
    size_t size;
};

sw_simd_variant sw_simd_variant_default(void)
{
    sw_simd_variant v = {NULL, 0};
#if SW_SIMD_X86
    v.kernels = __builtin_cpu_supports("avx2") ? &sw_simd_kernels_avx2 : &sw_simd_kernels_sse2;
#endif
    return v;
}

int sw_simd_variant_select(const char *name, sw_simd_variant *out)
{
    if (!name || !out) return SW_EINVAL;
    size_t n = strcspn(name, "/");
    const char *width = name + n;
    int first_width;
    if (!*width) first_width = 0;
    else if (strcmp(width, "/16") == 0) first_width = 1;
    else if (strcmp(width, "/32") == 0) first_width = 2;
    else return SW_EINVAL;
    sw_simd_variant v = sw_simd_variant_default();
    if (n == 4 && strncmp(name, "avx2", n) == 0) {
        /* The default already is AVX2 where the CPU has it, else SSE2. */
    } else if (n == 4 && strncmp(name, "sse2", n) == 0) {
#if SW_SIMD_X86
        v.kernels = &sw_simd_kernels_sse2;
#endif
    } else if (n == 6 && strncmp(name, "scalar", n) == 0) {
        v.kernels = NULL;
    } else {
        return SW_EINVAL;
    }
    v.first_width = first_width;
    *out = v;
    return SW_OK;
}

const char *sw_simd_variant_name(const sw_simd_variant *v)
{
    return v->kernels ? v->kernels->name : "scalar";
}

const char *sw_simd_isa(void)
{
    sw_simd_variant v = sw_simd_variant_default();
    return sw_simd_variant_name(&v);
}

/* Same bound as the reference engine (see sw_align_ref.c): refuse what could
 * pass INT32_MAX, which also keeps the 32-bit lanes from wrapping. */
static int exceeds_int32(size_t query_len, size_t subject_len, int max_score)
{
    size_t shorter = query_len < subject_len ? query_len : subject_len;
    return max_score > 0 && shorter > (size_t)(INT32_MAX / max_score);
}

static void *aligned_zalloc(size_t bytes)
{
    bytes = (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    void *p = aligned_alloc(ALIGNMENT, bytes ? bytes : ALIGNMENT);
    if (p) memset(p, 0, bytes);
    return p;
}

/* Lays out the striped profile of `width` (see sw_simd_pass for the layout). */
static int build_striped(sw_simd_profile *p, int width)
{
    size_t elem = (size_t)1 << width; /* bytes per lane */
    size_t lanes = p->kernels->vector_bytes / elem;
    size_t seg_len = (p->query_len + lanes - 1) / lanes;
    void *prof = aligned_zalloc(SW_CODE_LIMIT * seg_len * p->kernels->vector_bytes);
    if (!prof) return SW_ENOMEM;
    int bias = width == 0 ? p->bias : 0;
    for (size_t c = 0; c < SW_CODE_LIMIT; c++) {
        for (size_t s = 0; s < seg_len; s++) {
            for (size_t l = 0; l < lanes; l++) {
                size_t q = l * seg_len + s;
                size_t at = (c * seg_len + s) * lanes + l;
                if (q >= p->query_len) continue; /* padding stays 0 */
                int v = p->rows[q * SW_CODE_LIMIT + c] + bias;
                if (width == 0) ((uint8_t *)prof)[at] = (uint8_t)v;
                if (width == 1) ((int16_t *)prof)[at] = (int16_t)v;
                if (width == 2) ((int32_t *)prof)[at] = v;
            }
        }
    }
    p->striped[width] = prof;
    p->seg_len[width] = seg_len;
    return SW_OK;
}

int sw_simd_profile_create(const uint8_t *query, size_t query_len, const sw_scoring *scoring,
                           sw_simd_profile **out)
{
    sw_simd_variant v = sw_simd_variant_default();
    return sw_simd_profile_create_variant(query, query_len, scoring, &v, out);
}

/* A profile of `query` (codes) or, with query NULL, of position-specific
 * `rows`; scoring's table is read only for a query. */
static int profile_create(const uint8_t *query, const int8_t *rows, size_t query_len, const sw_scoring *scoring,
                          const sw_simd_variant *variant, sw_simd_profile **out)
{
    if (!out) return SW_EINVAL;
    *out = NULL;
    if (!scoring || (query && !scoring->table) || !variant || (query_len && !query && !rows)) return SW_EINVAL;
    for (size_t i = 0; query && i < query_len; i++)
        if (query[i] >= SW_CODE_LIMIT) return SW_EINVAL;

    sw_simd_profile *p = calloc(1, sizeof *p);
    if (!p) return SW_ENOMEM;
    p->rows = malloc(query_len ? query_len * SW_CODE_LIMIT : 1);
    if (query) p->query = malloc(query_len ? query_len : 1);
    if (!p->rows || (query && !p->query)) {
        sw_simd_profile_free(p);
        return SW_ENOMEM;
    }
    p->query_len = query_len;
    p->scoring = *scoring;
    p->scoring.table = p->table;
    p->scoring.rows = NULL; /* the profile keeps its own rows */
    int lo = INT8_MAX, hi = INT8_MIN;
    if (query) {
        if (query_len) memcpy(p->query, query, query_len);
        memcpy(p->table, scoring->table, sizeof p->table);
        for (size_t i = 0; i < query_len; i++)
            memcpy(p->rows + i * SW_CODE_LIMIT, p->table + (size_t)query[i] * SW_CODE_LIMIT, SW_CODE_LIMIT);
        /* The ceilings come from the table itself, so that a max_score that
         * understates it cannot let a saturated lane pass as exact. */
        for (size_t i = 0; i < SW_CODE_LIMIT * SW_CODE_LIMIT; i++) {
            lo = p->table[i] < lo ? p->table[i] : lo;
            hi = p->table[i] > hi ? p->table[i] : hi;
        }
    } else {
        if (query_len && rows) memcpy(p->rows, rows, query_len * SW_CODE_LIMIT);
        for (size_t i = 0; i < query_len * SW_CODE_LIMIT; i++) {
            lo = p->rows[i] < lo ? p->rows[i] : lo;
            hi = p->rows[i] > hi ? p->rows[i] : hi;
        }
        if (query_len == 0) lo = hi = 0;
        p->scoring.max_score = 0;
    }

    p->kernels = variant->kernels;
    p->first_width = variant->first_width;
    if (hi > p->scoring.max_score) p->scoring.max_score = hi;
    int gain = hi > 0 ? hi : 0;
    p->bias = lo < 0 ? -lo : 0;
    /* A lane saturates only when a cell plus its score passes the lane's
     * top; while the best cell stays at or below top - gain (top - bias -
     * gain for the biased 8-bit lanes), no cell can have. bias + gain <=
     * 255, so the 8-bit ceiling is never negative. */
    p->ceiling[0] = UINT8_MAX - p->bias - gain;
    p->ceiling[1] = INT16_MAX - gain;
    p->ceiling[2] = INT32_MAX;

    if (p->kernels && query_len) {
        for (int w = p->first_width; w < WIDTHS; w++) {
            int rc = build_striped(p, w);
            if (rc) {
                sw_simd_profile_free(p);
                return rc;
            }
        }
    }
    *out = p;
    return SW_OK;
}

int sw_simd_profile_create_variant(const uint8_t *query, size_t query_len, const sw_scoring *scoring,
                                   const sw_simd_variant *variant, sw_simd_profile **out)
{
    if (query_len && !query) {
        if (out) *out = NULL;
        return SW_EINVAL;
    }
    static const uint8_t none[1];
    if (scoring && scoring->rows) return profile_create(NULL, scoring->rows, query_len, scoring, variant, out);
    return profile_create(query ? query : none, NULL, query_len, scoring, variant, out);
}

int sw_simd_profile_create_rows(const int8_t *rows, size_t query_len, const sw_scoring *scoring,
                                const sw_simd_variant *variant, sw_simd_profile **out)
{
    if (query_len && !rows) {
        if (out) *out = NULL;
        return SW_EINVAL;
    }
    return profile_create(NULL, rows, query_len, scoring, variant, out);
}

void sw_simd_profile_free(sw_simd_profile *p)
{
    if (!p) return;
    for (int w = 0; w < WIDTHS; w++) free(p->striped[w]);
    free(p->query);
    free(p->rows);
    free(p);
}

int sw_simd_workspace_create(sw_simd_workspace **out)
{
    if (!out) return SW_EINVAL;
    *out = calloc(1, sizeof **out);
    return *out ? SW_OK : SW_ENOMEM;
}

void sw_simd_workspace_free(sw_simd_workspace *w)
{
    if (!w) return;
    free(w->mem);
    free(w);
}

/* Grows, never shrinks: a thread that met a long query keeps the room, so
 * the search loop allocates nothing once warm. */
static int workspace_reserve(sw_simd_workspace *w, size_t bytes)
{
    if (bytes <= w->size) return SW_OK;
    size_t want = bytes > 2 * w->size ? bytes : 2 * w->size;
    void *mem = aligned_zalloc(want);
    if (!mem) return SW_ENOMEM;
    free(w->mem);
    w->mem = mem;
    w->size = want;
    return SW_OK;
}

static int align_pass(const sw_simd_profile *p, sw_simd_workspace *w, const uint8_t *subject,
                      size_t subject_len, size_t *end_column, int target, size_t *last_column)
{
    if (!p || !w || (subject_len && !subject)) return SW_EINVAL;
    if (end_column) *end_column = 0;
    if (last_column) *last_column = 0;
    for (size_t j = 0; j < subject_len; j++)
        if (subject[j] >= SW_CODE_LIMIT) return SW_EINVAL;
    if (exceeds_int32(p->query_len, subject_len, p->scoring.max_score)) return SW_ELIMIT;
    if (p->query_len == 0 || subject_len == 0) return 0;

    if (!p->kernels) {
        if (end_column || last_column) return SW_EINVAL; /* the reference engine tracks no column */
        sw_ref_result r;
        int rc = p->query ? sw_ref_align(p->query, p->query_len, subject, subject_len, &p->scoring, &r)
                          : sw_ref_align_rows(p->rows, p->query_len, subject, subject_len, &p->scoring, &r);
        return rc ? rc : r.score;
    }

    const size_t vb = p->kernels->vector_bytes;
    /* open + extend may reach 510; in 8-bit lanes, where every H <= 255,
     * a cost of 255 already takes any H to 0, as the full cost would. */
    const int open_extend = p->scoring.gap_open + p->scoring.gap_extend;
    for (int width = p->first_width; width < WIDTHS; width++) {
        size_t seg_bytes = p->seg_len[width] * vb;
        int rc = workspace_reserve(w, 3 * seg_bytes);
        if (rc) return rc;
        sw_simd_pass pass = {
            .profile = p->striped[width],
            .seg_len = p->seg_len[width],
            .subject = subject,
            .subject_len = subject_len,
            .gap_open_extend = width == 0 && open_extend > UINT8_MAX ? UINT8_MAX : open_extend,
            .gap_extend = p->scoring.gap_extend,
            .bias = width == 0 ? p->bias : 0,
            .ceiling = p->ceiling[width],
            .h_a = w->mem,
            .h_b = (char *)w->mem + seg_bytes,
            .e = (char *)w->mem + 2 * seg_bytes,
            .end_column = end_column,
            .last_column = last_column,
            .target = target,
        };
        int score = p->kernels->striped[width](&pass);
        if (score != SW_SIMD_SATURATED) return score;
    }
    /* Unreachable: the 32-bit ceiling is INT32_MAX and exceeds_int32 holds
     * every score below it. */
    return SW_ELIMIT;
}

int sw_simd_align(const sw_simd_profile *p, sw_simd_workspace *w, const uint8_t *subject,
                  size_t subject_len)
{
    return align_pass(p, w, subject, subject_len, NULL, 0, NULL);
}

int sw_simd_align_end(const sw_simd_profile *p, sw_simd_workspace *w, const uint8_t *subject,
                      size_t subject_len, size_t *end_column)
{
    if (!end_column) return SW_EINVAL;
    return align_pass(p, w, subject, subject_len, end_column, 0, NULL);
}

int sw_simd_align_last(const sw_simd_profile *p, sw_simd_workspace *w, const uint8_t *subject,
                       size_t subject_len, int target, size_t *last_column)
{
    if (!last_column || target < 1) return SW_EINVAL;
    return align_pass(p, w, subject, subject_len, NULL, target, last_column);
}

int sw_simd_trace_shape(const sw_simd_profile *p, size_t *seg_len, size_t *lanes)
{
    if (!p || !p->kernels || !p->kernels->trace16 || !p->striped[1]) return SW_EINVAL;
    *seg_len = p->seg_len[1];
    *lanes = p->kernels->vector_bytes / sizeof(int16_t);
    return SW_OK;
}

int sw_simd_trace_columns(const sw_simd_profile *p, const uint8_t *subject, size_t columns, int16_t *h,
                          int16_t *h_scratch, int16_t *e, uint16_t *cells)
{
    size_t seg_len, lanes;
    if (sw_simd_trace_shape(p, &seg_len, &lanes) != SW_OK || !h || !h_scratch || !e ||
        (columns && !subject))
        return SW_EINVAL;
    for (size_t j = 0; j < columns; j++)
        if (subject[j] >= SW_CODE_LIMIT) return SW_EINVAL;
    sw_simd_trace_pass pass = {
        .profile = p->striped[1],
        .seg_len = seg_len,
        .subject = subject,
        .columns = columns,
        .gap_open_extend = p->scoring.gap_open + p->scoring.gap_extend,
        .gap_extend = p->scoring.gap_extend,
        .h = h,
        .h_scratch = h_scratch,
        .e = e,
        .cells = cells,
    };
    p->kernels->trace16(&pass);
    return SW_OK;
}
