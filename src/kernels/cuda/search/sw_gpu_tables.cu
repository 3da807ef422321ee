/* The substitution tables of the GPU engine: residue classes (codes with
 * equal rows and columns), and per search the 16- and 32-bit tables and the
 * queries as rows of them, uploaded. */
#include "sw_gpu_tables.cuh"

#include <stdlib.h>
#include <string.h>

namespace sw_gpu_detail {

namespace {

int score_of(const sw_gpu_engine *e, const search_ctx *c, int row, int col, int pad)
{
    if (row == (int)c->query_rows - 1 || col == (int)e->subject_classes - 1) return pad;
    int qcode = -1, scode = -1;
    for (int x = 0; x < SW_CODE_LIMIT; ++x) {
        if (qcode < 0 && c->row_of_code[x] == row) qcode = x;
        if (scode < 0 && e->subject_col[e->class_of[x]] == col) scode = x;
    }
    return e->table[qcode * SW_CODE_LIMIT + scode];
}

} /* namespace */

void compute_classes(sw_gpu_engine *e)
{
    e->num_classes = 0;
    for (int a = 0; a < SW_CODE_LIMIT; ++a) {
        e->class_of[a] = -1;
        for (int c = 0; c < e->num_classes && e->class_of[a] < 0; ++c) {
            const int b = e->class_rep[c];
            int same = 1;
            for (int x = 0; x < SW_CODE_LIMIT && same; ++x)
                same = e->table[a * SW_CODE_LIMIT + x] == e->table[b * SW_CODE_LIMIT + x] &&
                       e->table[x * SW_CODE_LIMIT + a] == e->table[x * SW_CODE_LIMIT + b];
            if (same) e->class_of[a] = c;
        }
        if (e->class_of[a] < 0) {
            e->class_rep[e->num_classes] = a;
            e->class_of[a] = e->num_classes++;
        }
    }
}

/* Tables for this search: rows are the residue classes of the queries plus a
 * padding row, columns the classes of the database plus a padding column.
 * The 32-bit table is one word per score. The 16-bit table repeats every
 * score 32 times, once per lane, so that the loads of a warp never collide
 * in a shared-memory bank (random lookups into one shared table cost almost
 * four bank cycles per load). */
/* Query positions' scores by table column, SW_GK_QUERY_PAD rows of
 * padding scores before and after each PSSM query (what the 32-bit kernel
 * reads at the wavefront's ends), into e->d_pssm. A column serves every
 * code of a class, so the PSSM must score them alike (sw_pssm gives every
 * code beyond the protein alphabet a row's lowest score, and the shipped
 * matrices have no two protein codes alike). */
static int build_pssm(sw_gpu_engine *e, search_ctx *c, const int8_t *const *rows, const size_t *lens, size_t nq, int pad,
               sw_error *err)
{
    const uint32_t sc = e->subject_classes;
    int rep[SW_CODE_LIMIT]; /* a code of each column */
    for (uint32_t col = 0; col < sc; ++col) rep[col] = -1;
    for (int x = 0; x < SW_CODE_LIMIT; ++x) {
        const int col = e->subject_col[e->class_of[x]];
        if (col >= 0 && rep[col] < 0) rep[col] = x;
    }
    size_t total = 0;
    for (size_t q = 0; q < nq; ++q)
        if (rows[q]) total += lens[q] + 2 * SW_GK_QUERY_PAD;
    int32_t *host = (int32_t *)malloc((total ? total : 1) * sc * sizeof(int32_t));
    if (!host) return sw_error_set(err, SW_ENOMEM, "out of memory");
    size_t at = 0;
    int high = 0;
    for (size_t q = 0; q < nq; ++q) {
        if (!rows[q]) {
            c->pssm_offset[q] = SIZE_MAX;
            continue;
        }
        for (size_t i = 0; i < (size_t)SW_GK_QUERY_PAD * sc; ++i) host[at * sc + i] = pad;
        at += SW_GK_QUERY_PAD;
        c->pssm_offset[q] = at * sc;
        for (size_t i = 0; i < lens[q]; ++i, ++at) {
            const int8_t *r = rows[q] + i * SW_CODE_LIMIT;
            for (int x = 0; x < SW_CODE_LIMIT; ++x) {
                const int col = e->subject_col[e->class_of[x]];
                if (col >= 0 && r[x] != r[rep[col]]) {
                    free(host);
                    return sw_error_set(err, SW_ENODEV,
                                        "GPU engine: PSSM query %zu scores codes %d and %d apart at position %zu, "
                                        "which the matrix scores alike",
                                        q, x, rep[col], i + 1);
                }
            }
            for (uint32_t col = 0; col + 1 < sc; ++col) {
                host[at * sc + col] = r[rep[col]];
                if (r[rep[col]] > high) high = r[rep[col]];
            }
            host[at * sc + sc - 1] = pad;
        }
        for (size_t i = 0; i < (size_t)SW_GK_QUERY_PAD * sc; ++i) host[at * sc + i] = pad;
        at += SW_GK_QUERY_PAD;
    }
    /* A PSSM may score above the matrix: the 16-bit kernels flag scores
     * that may have saturated by the highest score of this search. */
    if (32767 - high < c->limit) c->limit = 32767 - high;
    int rc = ensure((void **)&e->d_pssm, &e->pssm_cap, (total ? total : 1) * sc * sizeof(int32_t), "PSSM", err);
    cudaError_t ce;
    if (!rc && (ce = sw_cuda_upload(e->d_pssm, host, total * sc * sizeof(int32_t), 0)) != cudaSuccess)
        rc = sw_cuda_fail(err, ce, SW_GPU_WHO, "upload PSSM queries");
    free(host);
    return rc;
}

const int32_t *query_pssm(const sw_gpu_engine *e, const search_ctx *c, size_t q)
{
    return c->pssm_offset && c->pssm_offset[q] != SIZE_MAX ? e->d_pssm + c->pssm_offset[q] : nullptr;
}

int build_tables(sw_gpu_engine *e, search_ctx *c, const uint8_t *const *queries, const int8_t *const *rows,
                 const size_t *lens, size_t nq, sw_error *err)
{
    int row_of_class[SW_CODE_LIMIT];
    for (int i = 0; i < SW_CODE_LIMIT; ++i) row_of_class[i] = -1;
    int nrows = 0;
    for (size_t q = 0; q < nq; ++q)
        for (size_t i = 0; i < lens[q]; ++i) {
            const uint8_t code = queries[q][i];
            if (code >= SW_CODE_LIMIT)
                return sw_error_set(err, SW_EINVAL, "GPU engine: residue code %d in query %zu", code, q);
            if (row_of_class[e->class_of[code]] < 0) row_of_class[e->class_of[code]] = nrows++;
        }
    c->query_rows = (uint32_t)nrows + 1;
    for (int x = 0; x < SW_CODE_LIMIT; ++x) {
        const int r = row_of_class[e->class_of[x]];
        c->row_of_code[x] = r;
    }
    /* Padding scores are <= 0 (see align_kernel). */
    const int pad = e->min_score < 0 ? e->min_score : 0;
    const uint32_t sc = e->subject_classes;
    c->table16_words = c->query_rows * sc * 32;
    c->table32_words = (c->query_rows * sc + 3) & ~3u;
    c->smem16 = sw_gk_align_smem(c->table16_words);
    c->smem32 = sw_gk_align_smem(c->table32_words);
    c->limit = 32767 - e->max_score;

    uint32_t *t16 = (uint32_t *)calloc(c->table16_words + c->table32_words, 4);
    if (!t16) return sw_error_set(err, SW_ENOMEM, "out of memory");
    uint32_t *t32 = t16 + c->table16_words;
    int *s = (int *)malloc((size_t)c->query_rows * sc * sizeof(int));
    if (!s) {
        free(t16);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    for (uint32_t r = 0; r < c->query_rows; ++r)
        for (uint32_t a = 0; a < sc; ++a) s[r * sc + a] = score_of(e, c, (int)r, (int)a, pad);
    for (uint32_t r = 0; r < c->query_rows; ++r)
        for (uint32_t a = 0; a < sc; ++a)
            for (uint32_t lane = 0; lane < 32; ++lane) t16[(r * sc + a) * 32 + lane] = (uint16_t)s[r * sc + a];
    for (uint32_t r = 0; r < c->query_rows; ++r)
        for (uint32_t a = 0; a < sc; ++a) t32[r * sc + a] = (uint32_t)s[r * sc + a];
    free(s);

    /* Queries, each between SW_GK_QUERY_PAD padding rows. */
    size_t total = SW_GK_QUERY_PAD;
    for (size_t q = 0; q < nq; ++q) total += lens[q] + SW_GK_QUERY_PAD;
    uint8_t *rows_host = (uint8_t *)malloc(total);
    if (!rows_host) {
        free(t16);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    const uint8_t pad_row = (uint8_t)(c->query_rows - 1);
    memset(rows_host, pad_row, total);
    size_t at = SW_GK_QUERY_PAD;
    for (size_t q = 0; q < nq; ++q) {
        c->query_offset[q] = at;
        for (size_t i = 0; i < lens[q]; ++i) rows_host[at + i] = (uint8_t)c->row_of_code[queries[q][i]];
        at += lens[q] + SW_GK_QUERY_PAD;
    }
    int rc = SW_OK;
    cudaError_t ce;
    if ((rc = ensure((void **)&e->d_table16, &e->table16_cap, c->table16_words * 4, "substitution table", err)) ||
        (rc = ensure((void **)&e->d_table32, &e->table32_cap, c->table32_words * 4, "substitution table", err)) ||
        (rc = ensure((void **)&e->d_query, &e->query_cap, total, "queries", err))) {
    } else if ((ce = sw_cuda_upload(e->d_table16, t16, c->table16_words * 4, 0)) != cudaSuccess ||
               (ce = sw_cuda_upload(e->d_table32, t32, c->table32_words * 4, 0)) != cudaSuccess ||
               (ce = sw_cuda_upload(e->d_query, rows_host, total, 0)) != cudaSuccess) {
        rc = sw_cuda_fail(err, ce, SW_GPU_WHO, "upload tables and queries");
    }
    free(rows_host);
    free(t16);
    if (!rc && c->pssm_offset) rc = build_pssm(e, c, rows, lens, nq, pad, err);
    return rc;
}

} /* namespace sw_gpu_detail */
