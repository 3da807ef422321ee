/* The GPU search: decompresses the database on all cores, hands it to the
 * GPU engine once per call (once per query batch: see sw_report.c), and
 * converts its hits to search results. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_calibrate.h"
#include "sw_clock.h"
#include "sw_gpu.h"
#include "sw_gpu_engine.h"
#include "sw_resident.h"
#include "sw_search.h"

/* Hands each finished query's hits to the caller's query_done, in the
 * form of the results. */
typedef struct done_relay {
    const sw_search_options *options;
    const uint32_t *tiebreak;
    sw_hit *hits; /* top_n entries */
} done_relay;

/* The database decoded on a thread of its own while the GPU engine starts:
 * both take a good part of the load. */
typedef struct decode_job {
    const sw_db *db;
    int threads;
    uint8_t *residues;
    int rc;
    sw_error err;
    double seconds;
    pthread_t thread;
    int started; /* decode_start was called */
    int running; /* on its own thread, not yet joined */
} decode_job;

static void *decode_db(void *arg)
{
    decode_job *j = arg;
    const double t0 = sw_clock_seconds();
    sw_error_clear(&j->err);
    j->rc = sw_db_read_all_residues(j->db, j->threads, &j->residues, &j->err);
    j->seconds = sw_clock_seconds() - t0;
    return NULL;
}

static void decode_start(decode_job *j, const sw_db *db, int threads)
{
    memset(j, 0, sizeof *j);
    j->db = db;
    j->threads = threads;
    j->started = 1;
    j->running = !pthread_create(&j->thread, NULL, decode_db, j);
}

/* The decoded residues (*out, the caller's to free), or the decoder's error. */
static int decode_finish(decode_job *j, uint8_t **out, sw_error *err)
{
    *out = NULL;
    if (!j->started) return SW_OK;
    if (j->running) pthread_join(j->thread, NULL);
    else decode_db(j); /* no thread could be started: decode here */
    j->started = j->running = 0;
    *out = j->residues;
    j->residues = NULL;
    if (j->rc) {
        *err = j->err;
        return j->rc;
    }
    return SW_OK;
}

/* Waits for a decoding that is no longer wanted and frees what it made. */
static void decode_abandon(decode_job *j)
{
    uint8_t *unused = NULL;
    sw_error ignored;
    decode_finish(j, &unused, &ignored);
    free(unused);
}

static void relay_query_done(void *user, size_t query, const sw_gpu_hit *hits, size_t count,
                             const int32_t *scores)
{
    done_relay *r = user;
    for (size_t i = 0; i < count; i++) {
        r->hits[i].score = hits[i].score;
        r->hits[i].seq = hits[i].seq;
        r->hits[i].original = r->tiebreak[hits[i].seq];
    }
    r->options->query_done(r->options->query_done_user, query, r->hits, count, scores);
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

    /* A resident database remembers the GPU and its threshold: asking the
     * driver and the calibration again costs a one-query search more than
     * a third of its time. */
    sw_gpu_info gpu;
    uint32_t kept_threshold = 0;
    int rc;
    if (!options->resident || !sw_resident_gpu_known(options->resident, options->gpu_id, &gpu, &kept_threshold)) {
        sw_gpu_info gpus[64];
        int ngpus = 0;
        if (!(rc = sw_gpu_list(gpus, 64, &ngpus, err)) && (options->gpu_id < 0 || options->gpu_id >= ngpus))
            rc = sw_error_set(err, SW_ENODEV, "no GPU %d: this machine has %d (0 to %d)", options->gpu_id, ngpus,
                              ngpus - 1);
        if (rc) return rc;
        gpu = gpus[options->gpu_id];
    }
    /* A GPU is there: decode beside the engine's start. */
    decode_job decode;
    memset(&decode, 0, sizeof decode);
    if (!options->resident) decode_start(&decode, db, options->threads);
    const double gpu_started = sw_clock_seconds();

    sw_gpu_engine *engine = NULL;
    uint8_t *residues = NULL;
    uint32_t *tiebreak = NULL;
    const uint8_t **qptr = NULL;
    size_t *qlen = NULL, *counts = NULL;
    sw_gpu_hit *ghits = NULL;
    sw_hit *hits = NULL;
    sw_search_results *r = NULL;

    double engine_made = gpu_started, decoded = gpu_started;
    sw_gpu_engine_options eopt;
    memset(&eopt, 0, sizeof eopt);
    eopt.keep_all_scores = options->keep_all_scores;
    int32_t *all_scores = NULL;
    const char *threshold_source = "--threshold";
    eopt.intra_threshold = options->gpu_threshold;
    if (eopt.intra_threshold == 0 && kept_threshold) {
        eopt.intra_threshold = kept_threshold;
        threshold_source = "calibration cache";
    } else if (eopt.intra_threshold == 0) {
        sw_calibration cal;
        int measured = 0;
        if (nseqs && (rc = sw_calibration_get(options->gpu_id, scoring, options->note, options->note_user, &cal,
                                              &measured, err)))
            goto done;
        eopt.intra_threshold = nseqs ? sw_calibration_pick(&cal, sw_db_lengths(db), nseqs, NULL) : SW_GPU_NO_INTRA;
        threshold_source = measured ? "calibrated now" : "calibration cache";
        if (options->resident) sw_resident_gpu_remember(options->resident, options->gpu_id, &gpu, eopt.intra_threshold);
    }
    /* The kernels with the query across the threads take every length up to
     * theirs, whatever the calibration (which weighs the other two kernels)
     * says; a threshold given with --threshold below that cuts them there,
     * so that longer sequences go to the intra-task kernel as asked, and the
     * intra-task kernel keeps the longest ones. */
    eopt.qp_max_length = SW_GPU_DEFAULT_QP_LENGTH;
    if (options->gpu_threshold && !options->gpu_threshold_kept) {
        if (eopt.intra_threshold < eopt.qp_max_length) eopt.qp_max_length = eopt.intra_threshold;
        eopt.qp_giants = SW_GPU_NO_GIANTS;
    }
    if (options->resident) {
        /* Decoded and (for these settings) uploaded already: borrowed. */
        if (sw_resident_db(options->resident) != db) {
            rc = sw_error_set(err, SW_EINVAL, "the resident database is another database");
            goto done;
        }
        if ((rc = sw_resident_gpu_engine(options->resident, options->gpu_id, scoring, options->top_n, &eopt,
                                         &engine, err)))
            goto done;
        tiebreak = (uint32_t *)sw_resident_tiebreak(options->resident);
    } else {
        if ((rc = sw_gpu_engine_create(options->gpu_id, scoring, options->top_n, &eopt, &engine, err)))
            goto done;
        engine_made = sw_clock_seconds();
        if ((rc = decode_finish(&decode, &residues, err))) goto done;
        decoded = sw_clock_seconds();
        tiebreak = malloc((nseqs ? nseqs : 1) * sizeof *tiebreak);
    }
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
    for (size_t q = 0; q < nq; q++) qptr[q] = sw_queries_residues(queries, q, &qlen[q]);
    if (!options->resident) {
        for (uint64_t s = 0; s < nseqs; s++) tiebreak[s] = (uint32_t)sw_db_original_index(db, s);
        if ((rc = sw_gpu_engine_set_db(engine, residues, sw_db_lengths(db), tiebreak, nseqs, err)))
            goto done;
    }
    if (options->residues_out && !options->resident) {
        free(*options->residues_out);
        *options->residues_out = residues;
    } else {
        free(residues);
    }
    residues = NULL;
    double loaded = sw_clock_seconds();

    if (options->keep_all_scores) {
        if (nseqs && nq > SIZE_MAX / sizeof(int32_t) / nseqs) {
            rc = sw_error_set(err, SW_ENOMEM, "too many scores to keep: %zu queries x %llu sequences", nq,
                              (unsigned long long)nseqs);
            goto done;
        }
        all_scores = malloc(nq * nseqs * sizeof *all_scores + 1);
        if (!all_scores) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory keeping every score (%zu queries x %llu sequences)",
                              nq, (unsigned long long)nseqs);
            goto done;
        }
        if ((rc = sw_gpu_engine_set_score_sink(engine, all_scores, err))) goto done;
    }
    done_relay relay = {options, tiebreak, NULL};
    if (options->query_done) {
        relay.hits = malloc((options->top_n ? options->top_n : 1) * sizeof *relay.hits);
        if (!relay.hits) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory preparing the GPU search");
            goto done;
        }
        if ((rc = sw_gpu_engine_set_query_done(engine, relay_query_done, &relay, err))) goto done;
    }
    sw_gpu_stats gst;
    rc = sw_gpu_engine_search(engine, qptr, qlen, nq, ghits, counts, &gst, err);
    free(relay.hits);
    /* A kept engine must not point at this call's buffers afterwards. */
    sw_gpu_engine_set_query_done(engine, NULL, NULL, NULL);
    if (options->keep_all_scores) sw_gpu_engine_set_score_sink(engine, NULL, NULL);
    if (rc) goto done;

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
    snprintf(st.engine, sizeof st.engine, "GPU %d (%.80s)", options->gpu_id, gpu.name);
    st.load_seconds = loaded - start;
    if (!options->resident) {
        st.gpu_start_seconds = engine_made - start;
        st.decode_seconds = decode.seconds;
        st.decode_wait_seconds = decoded - engine_made;
        st.upload_seconds = loaded - decoded;
    }
    st.scan_seconds = gst.total_seconds;
    st.transfer_seconds = gst.transfer_seconds;
    st.cells = gst.cells;
    st.recomputed = gst.recomputed;
    /* The limits as the engine's plan applied them: the query-across-threads
     * entry's, and the one below the intra-task entry's. */
    st.gpu_qp_length = 0;
    st.gpu_threshold = SW_GPU_NO_INTRA;
    for (size_t b = 0; b < gst.num_buckets; ++b) {
        if (gst.buckets[b].qp) st.gpu_qp_length = gst.buckets[b].max_length;
        if (gst.buckets[b].intra && b > 0) st.gpu_threshold = gst.buckets[b - 1].max_length;
    }
    st.gpu_threshold_source = threshold_source;
    st.on_gpu = 1;
    sw_results_set_stats(r, &st);
    if (all_scores) {
        sw_results_adopt_all_scores(r, all_scores, nseqs);
        all_scores = NULL;
    }
    *out = r;
    r = NULL;

done:
    if (decode.running) decode_abandon(&decode);
    sw_results_free(r);
    if (rc == SW_EDEVICE && options->resident) sw_resident_drop_engine(options->resident);
    if (!options->resident) {
        sw_gpu_engine_free(engine);
        free(tiebreak);
    }
    free(residues);
    free(qptr);
    free(qlen);
    free(counts);
    free(ghits);
    free(hits);
    free(all_scores);
    return rc;
}
