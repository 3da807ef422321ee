/* The timeline of a search (sw_gpu_tuning.timeline, and the
 * bucket times of sw_gpu_tuning.profile): spans bracketed by events on their
 * streams, timed once the search's work is done. */
#include "sw_gpu_timeline.cuh"

#include <stdlib.h>

namespace sw_gpu_detail {

namespace {

int stream_index(const sw_gpu_engine *e, cudaStream_t st)
{
    if (st == e->s_scan) return 0;
    if (st == e->s_sel) return 1;
    if (st == e->s_copy) return 2;
    for (int i = 0; i < e->num_streams; ++i)
        if (st == e->s_bucket[i]) return SW_GPU_STREAM_BUCKET0 + i;
    for (int i = 0; i < SLOTS; ++i)
        if (st == e->s_giants[i]) return SW_GPU_STREAM_GIANTS0 + i;
    return -1;
}

} /* namespace */

int spans_wanted(const sw_gpu_engine *e) { return e->tune.timeline || e->tune.profile; }

/* Opens a span of the timeline on `st` (nothing unless spans_wanted());
 * *id is what span_end() takes. */
int span_begin(sw_gpu_engine *e, int kind, cudaStream_t st, size_t query, int bucket, size_t *id, sw_error *err)
{
    *id = SIZE_MAX;
    if (!spans_wanted(e)) return SW_OK;
    if (e->num_spans == e->spans_cap) {
        const size_t cap = e->spans_cap ? 2 * e->spans_cap : 256;
        sw_gpu_span *spans = (sw_gpu_span *)realloc(e->spans, cap * sizeof *spans);
        if (!spans) return sw_error_set(err, SW_ENOMEM, "out of memory");
        e->spans = spans;
        cudaEvent_t *events = (cudaEvent_t *)realloc(e->span_events, 2 * cap * sizeof *events);
        if (!events) return sw_error_set(err, SW_ENOMEM, "out of memory");
        e->span_events = events;
        e->spans_cap = cap;
    }
    const size_t i = e->num_spans;
    for (; e->span_events_made < 2 * i + 2; ++e->span_events_made)
        CK(cudaEventCreate(&e->span_events[e->span_events_made]), "event");
    sw_gpu_span *sp = &e->spans[i];
    sp->kind = kind;
    sp->stream = stream_index(e, st);
    sp->query = query;
    sp->bucket = bucket;
    sp->start = sp->end = 0;
    CK(cudaEventRecord(e->span_events[2 * i], st), "cudaEventRecord");
    e->num_spans = i + 1;
    *id = i;
    return SW_OK;
}

int span_end(sw_gpu_engine *e, size_t id, cudaStream_t st, sw_error *err)
{
    if (id != SIZE_MAX) CK(cudaEventRecord(e->span_events[2 * id + 1], st), "cudaEventRecord");
    return SW_OK;
}

/* Times every span of the search once its work is done, and adds each
 * bucket kernel's time to bucket_seconds[its statistics bucket]. */
int collect_timeline(sw_gpu_engine *e, double *bucket_seconds, sw_error *err)
{
    for (size_t i = 0; i < e->num_spans; ++i) {
        float ms = 0;
        CK(cudaEventSynchronize(e->span_events[2 * i + 1]), "cudaEventSynchronize");
        CK(cudaEventElapsedTime(&ms, e->span_origin, e->span_events[2 * i]), "cudaEventElapsedTime");
        e->spans[i].start = ms * 1e-3;
        CK(cudaEventElapsedTime(&ms, e->span_origin, e->span_events[2 * i + 1]), "cudaEventElapsedTime");
        e->spans[i].end = ms * 1e-3;
        if (e->spans[i].bucket >= 0) bucket_seconds[e->spans[i].bucket] += e->spans[i].end - e->spans[i].start;
    }
    return SW_OK;
}

int timeline_start(sw_gpu_engine *e, sw_error *err)
{
    e->num_spans = 0;
    if (!spans_wanted(e)) return SW_OK;
    cudaError_t ce = cudaSuccess;
    if (!e->span_origin) ce = cudaEventCreate(&e->span_origin);
    if (ce == cudaSuccess) ce = cudaEventRecord(e->span_origin, e->s_scan);
    if (ce != cudaSuccess) return sw_cuda_fail(err, ce, SW_GPU_WHO, "timeline event");
    return SW_OK;
}

} /* namespace sw_gpu_detail */

extern "C" int sw_gpu_engine_timeline(const sw_gpu_engine *e, const sw_gpu_span **spans, size_t *count,
                                      sw_error *err)
{
    *spans = nullptr;
    *count = 0;
    if (!e || !e->tune.timeline) return sw_error_set(err, SW_EINVAL, "GPU engine: no timeline was asked for");
    *spans = e->spans;
    *count = e->num_spans;
    return SW_OK;
}

extern "C" const char *sw_gpu_span_name(int kind)
{
    static const char *const names[] = {"profile", "inter", "intra", "wide", "select", "upload", "download",
                                        "launcher"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "?";
}
