/* The host side of the band sweep (sw_pair_band_host.h), compiled once for
 * both pairwise GPU engines. */
#include "sw_pair_band_host.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

namespace {

/* `bytes` of host memory into a new device allocation *out, there on
 * return (sw_cuda_upload, on the pass's stream); frees `host` (malloc'd by
 * the caller, which may pass NULL when that failed). */
int copy_to_device(void *host, size_t bytes, void **out, const char *what, cudaStream_t stream, sw_error *err)
{
    if (!host) return sw_error_set(err, SW_ENOMEM, "out of memory for %s", what);
    cudaError_t e = cudaMalloc(out, bytes);
    if (e == cudaSuccess) e = sw_cuda_upload(*out, host, bytes, stream);
    free(host);
    if (e != cudaSuccess) {
        char doing[96];
        snprintf(doing, sizeof doing, "copying %s", what);
        return sw_cuda_fail(err, e, SW_PAIR_WHO, doing);
    }
    return SW_OK;
}

/* A pass's boundary row into the kernels' form (H - oe, F) on the device. */
int upload_edge(const sw_pair_edge *row, long long n, int oe, int2 **out, cudaStream_t stream, sw_error *err)
{
    int2 *host = (int2 *)malloc((size_t)n * sizeof(int2));
    if (host)
        for (long long j = 0; j < n; ++j) host[j] = make_int2(row[j].h - oe, row[j].f);
    return copy_to_device(host, (size_t)n * sizeof(int2), (void **)out, "a boundary row", stream, err);
}

/* The pass's forbidden boxes on the device (*dev, to free), rows and
 * columns swapped when the engine runs the pair transposed, into p. */
int upload_boxes(const sw_pair_pass *pass, bool transposed, sw_pair_args *p, sw_pair_box **dev, cudaStream_t stream,
                 sw_error *err)
{
    *dev = nullptr;
    const int count = pass->forbidden_count;
    if (count <= 0) return SW_OK;
    sw_pair_box *host = (sw_pair_box *)malloc((size_t)count * sizeof(sw_pair_box));
    if (host)
        for (int k = 0; k < count; ++k) {
            const sw_pair_box x = pass->forbidden[k];
            host[k] = transposed ? sw_pair_box{x.b_lo, x.b_hi, x.a_lo, x.a_hi} : x;
        }
    const int rc = copy_to_device(host, (size_t)count * sizeof(sw_pair_box), (void **)dev, "the forbidden boxes", stream, err);
    if (rc) return rc;
    p->boxes = *dev;
    p->box_count = count;
    p->reversed = pass->reversed;
    return SW_OK;
}

} // namespace

extern "C" sw_pair_args sw_pair_band_args(const sw_pair_scoring *s, const uint8_t *a, long long m, const uint8_t *b,
                                          long long n)
{
    sw_pair_args p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.b = b;
    p.m = m;
    p.n = n;
    p.match = s->match;
    p.mismatch = s->mismatch;
    p.open = s->gap_open;
    p.ext = s->gap_extend;
    p.oe = p.open + p.ext;
    p.open_col0 = p.open;
    p.bands = (m + SW_PAIR_BAND_ROWS - 1) / SW_PAIR_BAND_ROWS;
    /* Far beyond any honest wait: a warp waits at most for another to
     * finish a band (tens of nanoseconds a column). */
    p.stall_ns = 20000000000ull + 400ull * (unsigned long long)n;
    return p;
}

extern "C" int sw_pair_band_upload_bounds(const sw_pair_pass *pass, int transposed, sw_pair_args *p, int2 **top,
                                          sw_pair_box **boxes, cudaStream_t stream, sw_error *err)
{
    *top = nullptr;
    if (pass->top) {
        const int rc = upload_edge(pass->top, p->n, p->oe, top, stream, err);
        if (rc) return rc;
    }
    p->top = *top;
    p->last_row_wanted = pass->bottom != nullptr;
    return upload_boxes(pass, transposed != 0, p, boxes, stream, err);
}

extern "C" int sw_pair_band_download_row(const int2 *dev, long long n, int oe, sw_pair_edge *row, sw_error *err)
{
    int2 *host = (int2 *)malloc((size_t)n * sizeof(int2));
    if (!host) return sw_error_set(err, SW_ENOMEM, "out of memory for a boundary row");
    const cudaError_t e = cudaMemcpy(host, dev, (size_t)n * sizeof(int2), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        for (long long j = 0; j < n; ++j) row[j] = sw_pair_edge{host[j].x + oe, host[j].y};
    free(host);
    if (e != cudaSuccess) return sw_cuda_fail(err, e, SW_PAIR_WHO, "copying the last row");
    return SW_OK;
}

extern "C" int sw_pair_band_map_counter(unsigned long long **host, unsigned long long **dev, sw_error *err)
{
    SW_PAIR_CK(cudaHostAlloc(host, sizeof **host, cudaHostAllocMapped), "allocating");
    **host = 0;
    SW_PAIR_CK(cudaHostGetDevicePointer(dev, *host, 0), "mapping the progress counter");
    return SW_OK;
}

extern "C" int sw_pair_band_wait(const sw_pair_pass *pass, cudaEvent_t stop, const unsigned long long *cells_host,
                                 sw_error *err)
{
    /* Polls 50 us apart at first, up to 2 ms: a short pass (the small
     * splits of an alignment) is not kept waiting for a long sleep. */
    long sleep_ns = 50 * 1000;
    for (;;) {
        const cudaError_t q = cudaEventQuery(stop);
        if (pass->cells_done) {
            const unsigned long long seen = *(volatile const unsigned long long *)cells_host;
            if (seen > __atomic_load_n(pass->cells_done, __ATOMIC_RELAXED))
                __atomic_store_n(pass->cells_done, (uint64_t)seen, __ATOMIC_RELAXED);
        }
        if (q == cudaSuccess) return SW_OK;
        if (q != cudaErrorNotReady) return sw_cuda_fail(err, q, SW_PAIR_WHO, "running the kernel");
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
        if (sleep_ns < 2 * 1000 * 1000) sleep_ns *= 2;
    }
}

extern "C" int sw_pair_band_resident_warps(const void *kernel, int device, long long *out, sw_error *err)
{
    int sms = 0, per_sm = 0;
    SW_PAIR_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "querying the GPU");
    const int threads = SW_PAIR_WARPS_PER_BLOCK * SW_PAIR_LANES;
    SW_PAIR_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0), "occupancy");
    *out = (long long)per_sm * sms * SW_PAIR_WARPS_PER_BLOCK;
    if (*out < 2) return sw_error_set(err, SW_EDEVICE, "GPU pairwise engine: the kernel does not fit the GPU");
    return SW_OK;
}

/* As many warps as fit (or as asked), then as few as keep the same number
 * of rounds, so the last round has every warp busy. Unless asked, no more
 * warps than the sweep has tiles: warp g starts g tiles after warp 0, and
 * warp 0's next band waits for the last warp's, so with more warps than
 * tiles a round lasts G tiles instead of n / SW_PAIR_CHUNK and the extra
 * warps only wait. */
extern "C" long long sw_pair_band_warps(long long resident, long long bands, long long n, int asked)
{
    long long G = asked > 0 ? (long long)asked : resident;
    if (G > resident) G = resident;
    if (asked <= 0 && G > (n + SW_PAIR_CHUNK - 1) / SW_PAIR_CHUNK) G = (n + SW_PAIR_CHUNK - 1) / SW_PAIR_CHUNK;
    if (G > bands) G = bands;
    const long long rounds = (bands + G - 1) / G;
    G = (bands + rounds - 1) / rounds;
    if (bands > 1 && G < 2) G = 2;
    return G;
}

extern "C" int sw_pair_links_reserve(sw_pair_links *l, long long G, long long n, sw_error *err)
{
    SW_PAIR_CK(cudaMalloc(&l->ring, (size_t)G * SW_PAIR_RING * sizeof(int2)), "allocating the rings");
    SW_PAIR_CK(cudaMalloc(&l->row, (size_t)n * sizeof(int2)), "allocating the row between rounds");
    SW_PAIR_CK(cudaMalloc(&l->counters, (size_t)4 * G * SW_PAIR_PAD * sizeof(unsigned long long)),
               "allocating the counters");
    SW_PAIR_CK(cudaMalloc(&l->records, (size_t)G * sizeof(sw_pair_record)), "allocating the results");
    l->warps = G;
    l->cols = n;
    return SW_OK;
}

extern "C" int sw_pair_links_launch(sw_pair_links *l, const void *kernel, sw_pair_args *p, long long G,
                                    cudaStream_t stream, int cooperative, sw_error *err)
{
    if (G > l->warps || p->n > l->cols)
        return sw_error_set(err, SW_EINVAL, "GPU pairwise engine: internal error: links too small");
    const size_t pad = SW_PAIR_PAD;
    SW_PAIR_CK(cudaMemsetAsync(l->counters, 0, (size_t)4 * G * pad * sizeof(unsigned long long), stream),
               "clearing the counters");
    p->workers = G;
    p->ring = l->ring;
    p->row = l->row;
    p->produced = l->counters;
    p->consumed = l->counters + (size_t)G * pad;
    p->stopped = l->counters + (size_t)2 * G * pad;
    p->records = l->records;
    void *args[] = {p};
    const dim3 grid((unsigned)((G + SW_PAIR_WARPS_PER_BLOCK - 1) / SW_PAIR_WARPS_PER_BLOCK)),
        block(SW_PAIR_WARPS_PER_BLOCK * SW_PAIR_LANES);
    if (cooperative)
        SW_PAIR_CK(cudaLaunchCooperativeKernel(kernel, grid, block, args, 0, stream), "launching the kernel");
    else
        SW_PAIR_CK(cudaLaunchKernel(kernel, grid, block, args, 0, stream), "launching the kernel");
    return SW_OK;
}

extern "C" void sw_pair_links_free(sw_pair_links *l)
{
    cudaFree(l->ring);
    cudaFree(l->row);
    cudaFree(l->counters);
    cudaFree(l->records);
    memset(l, 0, sizeof *l);
}
