/* The GPU search: decompresses the database on all cores, hands it to the
 * GPU engine once per call (once per query batch: see sw_report.c), and
 * converts its hits to search results. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_calibrate.h"
#include "sw_clock.h"
#include "sw_gpu.h"
#include "sw_gpu_engine.h"
#include "sw_search.h"

typedef struct load_ctx {
    const sw_db *db;
    uint8_t *residues;
    uint64_t *chunk_offsets;
    size_t num_chunks;
    atomic_size_t next;
    atomic_int failed;
    pthread_mutex_t lock;
    sw_error err;
} load_ctx;

static void *load_worker(void *arg)
{
    load_ctx *c = arg;
    sw_error e;
    for (;;) {
        size_t i = atomic_fetch_add(&c->next, 1);
        if (i >= c->num_chunks || atomic_load(&c->failed)) break;
        if (sw_db_read_chunk(c->db, i, c->residues + c->chunk_offsets[i], &e) != SW_OK) {
            pthread_mutex_lock(&c->lock);
            if (!atomic_exchange(&c->failed, 1)) c->err = e;
            pthread_mutex_unlock(&c->lock);
            break;
        }
    }
    return NULL;
}

/* Reads every residue chunk into one buffer, chunks in parallel. */
static int load_all_residues(const sw_db *db, int threads, uint8_t **out, sw_error *err)
{
    load_ctx c;
    memset(&c, 0, sizeof c);
    c.db = db;
    c.num_chunks = sw_db_num_chunks(db);
    c.residues = malloc(sw_db_num_residues(db) ? sw_db_num_residues(db) : 1);
    c.chunk_offsets = malloc((c.num_chunks ? c.num_chunks : 1) * sizeof *c.chunk_offsets);
    if (!c.residues || !c.chunk_offsets) {
        free(c.residues);
        free(c.chunk_offsets);
        return sw_error_set(err, SW_ENOMEM, "out of memory loading the database");
    }
    uint64_t offset = 0;
    for (size_t i = 0; i < c.num_chunks; i++) {
        sw_db_chunk info;
        sw_db_chunk_info(db, i, &info);
        c.chunk_offsets[i] = offset;
        offset += info.num_residues;
    }
    atomic_init(&c.next, 0);
    atomic_init(&c.failed, 0);
    pthread_mutex_init(&c.lock, NULL);
    if (threads <= 0) threads = sw_clock_online_cpus();
    if ((size_t)threads > c.num_chunks) threads = c.num_chunks ? (int)c.num_chunks : 1;
    pthread_t *tids = malloc((size_t)threads * sizeof *tids);
    int started = 0;
    if (tids)
        for (; started < threads; started++)
            if (pthread_create(&tids[started], NULL, load_worker, &c) != 0) break;
    if (started == 0) load_worker(&c); /* no thread could start: load here */
    for (int t = 0; t < started; t++) pthread_join(tids[t], NULL);
    free(tids);
    pthread_mutex_destroy(&c.lock);
    free(c.chunk_offsets);
    if (atomic_load(&c.failed)) {
        free(c.residues);
        if (err) *err = c.err;
        return c.err.code ? c.err.code : SW_ECORRUPT;
    }
    *out = c.residues;
    return SW_OK;
}

int sw_search_gpu(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  const sw_search_options *options, sw_search_results **out, sw_error *err)
{
    double start = sw_clock_seconds();
    uint64_t nseqs = sw_db_num_seqs(db);
    size_t nq = sw_queries_count(queries);
    if (nseqs > UINT32_MAX)
        return sw_error_set(err, SW_ELIMIT, "the GPU engine takes at most %u database sequences",
                            UINT32_MAX);

    sw_gpu_info gpus[64];
    int ngpus = 0;
    int rc = sw_gpu_list(gpus, 64, &ngpus, err);
    if (rc) return rc;
    if (options->gpu_id < 0 || options->gpu_id >= ngpus)
        return sw_error_set(err, SW_ENODEV, "no GPU %d: this machine has %d (0 to %d)",
                            options->gpu_id, ngpus, ngpus - 1);

    sw_gpu_engine *engine = NULL;
    uint8_t *residues = NULL;
    uint32_t *tiebreak = NULL;
    const uint8_t **qptr = NULL;
    size_t *qlen = NULL, *counts = NULL;
    sw_gpu_hit *ghits = NULL;
    sw_hit *hits = NULL;
    sw_search_results *r = NULL;

    sw_gpu_engine_options eopt;
    memset(&eopt, 0, sizeof eopt);
    const char *threshold_source = "--threshold";
    eopt.intra_threshold = options->gpu_threshold;
    if (eopt.intra_threshold == 0) {
        sw_calibration cal;
        int measured = 0;
        if (nseqs && (rc = sw_calibration_get(options->gpu_id, scoring, options->note, options->note_user, &cal,
                                              &measured, err)))
            goto done;
        eopt.intra_threshold = nseqs ? sw_calibration_pick(&cal, sw_db_lengths(db), nseqs, NULL) : SW_GPU_NO_INTRA;
        threshold_source = measured ? "calibrated now" : "calibration cache";
    }
    if ((rc = sw_gpu_engine_create(options->gpu_id, scoring, options->top_n, &eopt, &engine, err)))
        goto done;
    if ((rc = load_all_residues(db, options->threads, &residues, err))) goto done;
    tiebreak = malloc((nseqs ? nseqs : 1) * sizeof *tiebreak);
    qptr = malloc((nq ? nq : 1) * sizeof *qptr);
    qlen = malloc((nq ? nq : 1) * sizeof *qlen);
    counts = calloc(nq ? nq : 1, sizeof *counts);
    size_t max_hits = nq * options->top_n;
    ghits = malloc((max_hits ? max_hits : 1) * sizeof *ghits);
    hits = malloc((options->top_n ? options->top_n : 1) * sizeof *hits);
    if (!tiebreak || !qptr || !qlen || !counts || !ghits || !hits) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory preparing the GPU search");
        goto done;
    }
    for (uint64_t s = 0; s < nseqs; s++) tiebreak[s] = (uint32_t)sw_db_original_index(db, s);
    for (size_t q = 0; q < nq; q++) qptr[q] = sw_queries_residues(queries, q, &qlen[q]);

    if ((rc = sw_gpu_engine_set_db(engine, residues, sw_db_lengths(db), tiebreak, nseqs, err)))
        goto done;
    free(residues);
    residues = NULL;
    double loaded = sw_clock_seconds();

    sw_gpu_stats gst;
    if ((rc = sw_gpu_engine_search(engine, qptr, qlen, nq, ghits, counts, &gst, err))) goto done;

    if ((rc = sw_results_create(nq, &r))) {
        sw_error_set(err, rc, "out of memory collecting results");
        goto done;
    }
    for (size_t q = 0; q < nq; q++) {
        const sw_gpu_hit *g = ghits + q * options->top_n;
        for (size_t i = 0; i < counts[q]; i++) {
            hits[i].score = g[i].score;
            hits[i].seq = g[i].seq;
            hits[i].original = tiebreak[g[i].seq];
        }
        if ((rc = sw_results_set_hits(r, q, hits, counts[q]))) {
            sw_error_set(err, rc, "out of memory collecting results");
            goto done;
        }
    }
    sw_search_stats st;
    memset(&st, 0, sizeof st);
    snprintf(st.engine, sizeof st.engine, "GPU %d (%s)", options->gpu_id, gpus[options->gpu_id].name);
    st.load_seconds = loaded - start;
    st.scan_seconds = gst.total_seconds;
    st.transfer_seconds = gst.transfer_seconds;
    st.cells = gst.cells;
    st.recomputed = gst.recomputed;
    st.gpu_threshold = eopt.intra_threshold;
    st.gpu_threshold_source = threshold_source;
    st.on_gpu = 1;
    sw_results_set_stats(r, &st);
    *out = r;
    r = NULL;

done:
    sw_results_free(r);
    sw_gpu_engine_free(engine);
    free(residues);
    free(tiebreak);
    free(qptr);
    free(qlen);
    free(counts);
    free(ghits);
    free(hits);
    return rc;
}

int sw_search_run(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  const sw_search_options *options, sw_search_results **out, sw_error *err)
{
    if (options->device == SW_DEVICE_CPU || (options->device == SW_DEVICE_AUTO && !sw_gpu_compiled()))
        return sw_search_cpu(db, queries, scoring, options, out, err);
    sw_error gpu_err;
    sw_error_clear(&gpu_err);
    int rc = sw_search_gpu(db, queries, scoring, options, out, &gpu_err);
    /* Only a missing or failing GPU falls back; bad data fails either way. */
    if (rc == SW_OK || options->device == SW_DEVICE_GPU || (rc != SW_ENODEV && rc != SW_EDEVICE)) {
        if (rc && err) *err = gpu_err;
        return rc;
    }
    if (options->note) {
        char note[1200];
        snprintf(note, sizeof note, "%s; searching on the CPU", gpu_err.message);
        options->note(options->note_user, note);
    }
    return sw_search_cpu(db, queries, scoring, options, out, err);
}
