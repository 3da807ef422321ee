/* The substitution tables of the GPU engine (private). */
#ifndef SW_GPU_TABLES_CUH
#define SW_GPU_TABLES_CUH

#include "sw_gpu_engine_state.cuh"

namespace sw_gpu_detail {

/* Residue codes with equal rows and columns of e->table share a class
 * (e->class_of, e->class_rep, e->num_classes). */
void compute_classes(sw_gpu_engine *e);

/* The tables and query rows of a search on the GPU (e->d_table16,
 * e->d_table32, e->d_query) and their sizes in `c`; with `rows` (PSSM
 * queries: rows[q] NULL for a query scored through the table), each PSSM
 * query's scores by table column (e->d_pssm, c->pssm_offset). */
int build_tables(sw_gpu_engine *e, search_ctx *c, const uint8_t *const *queries, const int8_t *const *rows,
                 const size_t *lens, size_t nq, sw_error *err);

/* Query q's PSSM scores on the GPU (the first real row), or NULL. */
const int32_t *query_pssm(const sw_gpu_engine *e, const search_ctx *c, size_t q);

} /* namespace sw_gpu_detail */

#endif
