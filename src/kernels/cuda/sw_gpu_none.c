/* GPU discovery and the GPU engine for builds without the CUDA toolkit:
 * there is never a GPU, and every call says so. */
#include "sw_gpu.h"
#include "sw_gpu_engine.h"
#include "sw_pair_gpu.h"
#include "sw_pair_overlap.h"
#include "sw_profile_gpu.h"

#include <string.h>

static int no_cuda(sw_error *err)
{
    return sw_error_set(err, SW_ENODEV, "this swsearch was built without CUDA support");
}

int sw_gpu_compiled(void) { return 0; }

int sw_gpu_list(sw_gpu_info *infos, int max, int *count, sw_error *err)
{
    (void)infos;
    (void)max;
    *count = 0;
    return no_cuda(err);
}

int sw_gpu_memory(int device, unsigned long long *free_bytes, unsigned long long *total_bytes, sw_error *err)
{
    (void)device;
    *free_bytes = *total_bytes = 0;
    return no_cuda(err);
}

sw_gpu_warm_up *sw_gpu_warm_up_start(const int *devices, int count)
{
    (void)devices;
    (void)count;
    return NULL;
}

sw_gpu_warm_up *sw_gpu_warm_up_start_share(int first, int local, int k)
{
    (void)first, (void)local, (void)k;
    return NULL;
}

void sw_gpu_warm_up_finish(sw_gpu_warm_up *w) { (void)w; }

int sw_gpu_engine_create(int device, const sw_scoring *scoring, size_t top_n,
                         const sw_gpu_engine_options *opt, sw_gpu_engine **out, sw_error *err)
{
    (void)device;
    (void)scoring;
    (void)top_n;
    (void)opt;
    *out = NULL;
    return no_cuda(err);
}

int sw_gpu_engine_set_db(sw_gpu_engine *e, const uint8_t *residues, const uint32_t *lengths,
                         const uint32_t *tiebreak, uint64_t num_seqs, sw_error *err)
{
    (void)e;
    (void)residues;
    (void)lengths;
    (void)tiebreak;
    (void)num_seqs;
    return no_cuda(err);
}

int sw_gpu_engine_set_db_pieces(sw_gpu_engine *e, const sw_gpu_db_piece *pieces, size_t num_pieces,
                                const uint32_t *lengths, const uint32_t *tiebreak, uint64_t num_seqs, sw_error *err)
{
    (void)e;
    (void)pieces;
    (void)num_pieces;
    (void)lengths;
    (void)tiebreak;
    (void)num_seqs;
    return no_cuda(err);
}

int sw_gpu_engine_set_db_from(sw_gpu_engine *e, sw_gpu_piece_fn next, void *user, const uint32_t *lengths,
                              const uint32_t *tiebreak, uint64_t num_seqs, sw_error *err)
{
    (void)e;
    (void)next;
    (void)user;
    (void)lengths;
    (void)tiebreak;
    (void)num_seqs;
    return no_cuda(err);
}

int sw_gpu_engine_reserve_parts(sw_gpu_engine *e, uint64_t max_seqs, uint64_t max_residues, uint32_t max_length,
                                sw_error *err)
{
    (void)e;
    (void)max_seqs;
    (void)max_residues;
    (void)max_length;
    return no_cuda(err);
}

int sw_gpu_engine_part_buffer(sw_gpu_engine *e, uint8_t **residues, uint32_t **lengths, uint32_t **tiebreak,
                              sw_error *err)
{
    (void)e;
    *residues = NULL;
    *lengths = *tiebreak = NULL;
    return no_cuda(err);
}

int sw_gpu_engine_load_part(sw_gpu_engine *e, uint64_t num_seqs, sw_error *err)
{
    (void)e;
    (void)num_seqs;
    return no_cuda(err);
}

int sw_gpu_engine_fits(uint64_t num_seqs, uint64_t residues, size_t budget)
{
    (void)num_seqs;
    (void)residues;
    (void)budget;
    return 0;
}

size_t sw_gpu_engine_default_budget(unsigned long long free_bytes, unsigned long long total_bytes)
{
    (void)free_bytes;
    (void)total_bytes;
    return 0;
}

int sw_gpu_engine_search(sw_gpu_engine *e, const uint8_t *const *queries,
                         const size_t *query_lengths, size_t num_queries, sw_gpu_hit *hits,
                         size_t *counts, sw_gpu_stats *stats, sw_error *err)
{
    (void)e;
    (void)queries;
    (void)query_lengths;
    (void)num_queries;
    (void)hits;
    (void)counts;
    (void)stats;
    return no_cuda(err);
}

int sw_gpu_engine_search_rows(sw_gpu_engine *e, const uint8_t *const *queries, const int8_t *const *rows,
                              const size_t *query_lengths, size_t num_queries, sw_gpu_hit *hits,
                              size_t *counts, sw_gpu_stats *stats, sw_error *err)
{
    (void)rows;
    return sw_gpu_engine_search(e, queries, query_lengths, num_queries, hits, counts, stats, err);
}

int sw_gpu_engine_timeline(const sw_gpu_engine *e, const sw_gpu_span **spans, size_t *count, sw_error *err)
{
    (void)e;
    *spans = NULL;
    *count = 0;
    return no_cuda(err);
}

const char *sw_gpu_span_name(int kind)
{
    (void)kind;
    return "?";
}

int sw_gpu_engine_set_score_sink(sw_gpu_engine *e, int32_t *scores, sw_error *err)
{
    (void)e;
    (void)scores;
    return no_cuda(err);
}

int sw_gpu_engine_set_query_done(sw_gpu_engine *e, sw_gpu_query_done_fn fn, void *user, sw_error *err)
{
    (void)e;
    (void)fn;
    (void)user;
    return no_cuda(err);
}

int sw_gpu_engine_set_stop(sw_gpu_engine *e, sw_gpu_stop_fn fn, void *user, sw_error *err)
{
    (void)e;
    (void)fn;
    (void)user;
    return no_cuda(err);
}

int sw_gpu_engine_device_launch_available(void) { return 0; }

size_t sw_gpu_engine_qp_shape_count(void) { return 0; }

int sw_gpu_engine_qp_shape(size_t index, int *group_size, int *columns, int *multipass)
{
    (void)index;
    (void)group_size;
    (void)columns;
    (void)multipass;
    return SW_EINVAL;
}

void sw_gpu_engine_free(sw_gpu_engine *e) { (void)e; }

static int no_pair_gpu(sw_error *err)
{
    return sw_error_set(err, SW_ENODEV, "no GPU engine: this swsearch was built without CUDA support");
}

int sw_pair_gpu_usable(int device, sw_error *err)
{
    (void)device;
    no_pair_gpu(err);
    return 0;
}

int sw_pair_gpu_run(const sw_pair_pass *pass, const sw_pair_gpu_options *opt, sw_pair_hit *out,
                    sw_pair_gpu_stats *stats, sw_error *err)
{
    (void)pass;
    (void)opt;
    memset(out, 0, sizeof *out);
    if (stats) memset(stats, 0, sizeof *stats);
    return no_pair_gpu(err);
}

int sw_pair_gpu_strips_run(const sw_pair_pass *pass, const sw_pair_gpu_strips *strips, sw_pair_hit *out,
                           sw_pair_gpu_strip_stats *stats, sw_error *err)
{
    (void)pass;
    (void)strips;
    (void)stats;
    memset(out, 0, sizeof *out);
    return no_pair_gpu(err);
}

int sw_pair_gpu_column_alloc(uint64_t rows, sw_pair_column **out, sw_error *err)
{
    (void)rows;
    *out = NULL;
    return no_pair_gpu(err);
}

void sw_pair_gpu_column_free(sw_pair_column *c) { (void)c; }

int sw_pair_gpu_strip_capacity(int device, int share, uint64_t *rows_in_flight, double *speed, sw_error *err)
{
    (void)device;
    (void)share;
    *rows_in_flight = 0;
    *speed = 0;
    return no_pair_gpu(err);
}

int sw_pair_gpu_rows_open(int device, const uint8_t *a, uint64_t a_len, const uint8_t *b, uint64_t b_len,
                          const sw_pair_scoring *scoring, sw_pair_gpu_rows **out, sw_error *err)
{
    (void)device;
    (void)a;
    (void)a_len;
    (void)b;
    (void)b_len;
    (void)scoring;
    *out = NULL;
    return no_pair_gpu(err);
}

int sw_pair_gpu_rows_run(sw_pair_gpu_rows *g, const sw_pair_rows_job *jobs, int count, int32_t *const *h,
                         int32_t *const *d, uint64_t *cells, sw_error *err)
{
    (void)g;
    (void)jobs;
    (void)count;
    (void)h;
    (void)d;
    if (cells) *cells = 0;
    return no_pair_gpu(err);
}

void sw_pair_gpu_rows_close(sw_pair_gpu_rows *g) { (void)g; }

int sw_pair_overlap_run(const sw_pair_pass *pass, const sw_pair_overlap_options *opt, sw_pair_hit *out,
                        sw_pair_overlap_stats *stats, sw_error *err)
{
    (void)pass;
    (void)opt;
    memset(out, 0, sizeof *out);
    if (stats) memset(stats, 0, sizeof *stats);
    return no_pair_gpu(err);
}

int sw_profile_gpu_align(const sw_profile_gpu_scoring *s, const sw_profile_gpu_pair *pairs, size_t count,
                         const sw_profile_gpu_options *opt, sw_profile_gpu_result *results,
                         sw_profile_gpu_stats *stats, sw_error *err)
{
    (void)s;
    (void)pairs;
    (void)count;
    (void)opt;
    (void)results;
    (void)stats;
    return no_cuda(err);
}
