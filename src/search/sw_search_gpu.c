/* The GPU search: decompresses the database on all cores, hands it to the
 * GPU engines of a team, a slice of it on each GPU, once per call (once
 * per query batch: see sw_report.c), and collects their merged hits as
 * search results. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_clock.h"
#include "sw_gpu_engine.h"
#include "sw_gpu_team.h"
#include "sw_resident.h"
#include "sw_search.h"

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

static void relay_query_done(void *user, size_t query, const sw_hit *hits, size_t count, const int32_t *scores)
{
    const sw_search_options *o = user;
    o->query_done(o->query_done_user, query, hits, count, scores);
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

    sw_gpu_team_config config;
    memset(&config, 0, sizeof config);
    config.gpus = options->gpus;
    config.num_gpus = options->num_gpus;
    config.scoring = scoring;
    config.top_n = options->top_n;
    config.note = options->note;
    config.note_user = options->note_user;
    config.gpu_memory = options->gpu_memory;
    config.threads = options->threads;
    config.engine.keep_all_scores = options->keep_all_scores;
    /* 0: each GPU's calibration picks it for its slice. */
    config.engine.intra_threshold = options->gpu_threshold;
    /* The kernels with the query across the threads take every length up to
     * theirs, whatever the calibration (which weighs the other two kernels)
     * says; a threshold given with --threshold below that cuts them there,
     * so that longer sequences go to the intra-task kernel as asked, and the
     * intra-task kernel keeps the longest ones. */
    config.engine.qp_max_length = SW_GPU_DEFAULT_QP_LENGTH;
    if (options->gpu_threshold && !options->gpu_threshold_kept) {
        if (options->gpu_threshold < config.engine.qp_max_length) config.engine.qp_max_length = options->gpu_threshold;
        config.engine.qp_giants = SW_GPU_NO_GIANTS;
    }

    sw_gpu_team *team = NULL;
    uint8_t *residues = NULL;
    uint32_t *tiebreak = NULL;
    const uint8_t **qptr = NULL;
    const int8_t **qrows = NULL;
    size_t *qlen = NULL, *counts = NULL;
    sw_hit *hits = NULL;
    int32_t *all_scores = NULL;
    sw_search_results *r = NULL;
    decode_job decode;
    memset(&decode, 0, sizeof decode);
    double engine_made = start, decoded = start, gpu_started = start, planned = start;
    int rc;

    if (options->resident) {
        /* Decoded and (for these settings) loaded already: borrowed. */
        if (sw_resident_db(options->resident) != db) {
            rc = sw_error_set(err, SW_EINVAL, "the resident database is another database");
            goto done;
        }
        if ((rc = sw_resident_gpu_team(options->resident, &config, &team, err))) goto done;
    } else {
        /* The GPUs are there before the database is decoded for them; a
         * team that streams reads the database file itself, a part at a
         * time, and nothing is decoded whole. */
        if ((rc = sw_gpu_team_plan(db, &config, &team, err))) goto done;
        planned = sw_clock_seconds();
        const int streams = sw_gpu_team_streams(team);
        if (!streams) decode_start(&decode, db, options->threads);
        gpu_started = sw_clock_seconds();
        if ((rc = sw_gpu_team_start(team, err))) goto done;
        engine_made = sw_clock_seconds();
        if (streams) {
            rc = sw_gpu_team_load(team, NULL, NULL, err);
            decoded = engine_made;
        } else if ((rc = decode_finish(&decode, &residues, err)) == SW_OK) {
            decoded = sw_clock_seconds();
            tiebreak = malloc((nseqs ? nseqs : 1) * sizeof *tiebreak);
            if (!tiebreak) rc = sw_error_set(err, SW_ENOMEM, "out of memory preparing the GPU search");
            for (uint64_t s = 0; tiebreak && s < nseqs; s++) tiebreak[s] = (uint32_t)sw_db_original_index(db, s);
            if (rc == SW_OK) rc = sw_gpu_team_load(team, residues, tiebreak, err);
        }
        if (rc) goto done;
        if (options->residues_out && residues) {
            free(*options->residues_out);
            *options->residues_out = residues;
            residues = NULL;
        }
        free(residues);
        residues = NULL;
    }
    double loaded = sw_clock_seconds();

    qptr = malloc((nq ? nq : 1) * sizeof *qptr);
    qlen = malloc((nq ? nq : 1) * sizeof *qlen);
    counts = calloc(nq ? nq : 1, sizeof *counts);
    size_t max_hits = nq * options->top_n;
    hits = malloc((max_hits ? max_hits : 1) * sizeof *hits);
    if (!qptr || !qlen || !counts || !hits) {
        rc = sw_error_set(err, SW_ENOMEM, "out of memory preparing the GPU search");
        goto done;
    }
    for (size_t q = 0; q < nq; q++) qptr[q] = sw_queries_residues(queries, q, &qlen[q]);
    if (sw_queries_any_rows(queries)) {
        if (!(qrows = malloc((nq ? nq : 1) * sizeof *qrows))) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory preparing the GPU search");
            goto done;
        }
        for (size_t q = 0; q < nq; q++) qrows[q] = sw_queries_rows(queries, q);
    }
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
    }
    sw_gpu_stats gst;
    sw_gpu_team_set_stop(team, options->cancelled, options->cancelled_user);
    rc = sw_gpu_team_search(team, qptr, qrows, qlen, nq, hits, counts, all_scores,
                            options->query_done ? relay_query_done : NULL, (void *)options, &gst, err);
    sw_gpu_team_set_stop(team, NULL, NULL); /* a held team outlives this search */
    if (rc) goto done;

    if ((rc = sw_results_create(nq, &r))) {
        sw_error_set(err, rc, "out of memory collecting results");
        goto done;
    }
    for (size_t q = 0; q < nq; q++) {
        if ((rc = sw_results_set_hits(r, q, hits + q * options->top_n, counts[q]))) {
            sw_error_set(err, rc, "out of memory collecting results");
            goto done;
        }
    }
    sw_search_stats st;
    memset(&st, 0, sizeof st);
    snprintf(st.engine, sizeof st.engine, "%s", sw_gpu_team_name(team));
    st.load_seconds = loaded - start;
    if (!options->resident) {
        st.gpu_plan_seconds = planned - start;
        st.gpu_start_seconds = engine_made - gpu_started;
        st.decode_seconds = decode.seconds;
        st.decode_wait_seconds = decoded - engine_made;
        st.upload_seconds = loaded - decoded;
    }
    st.scan_seconds = gst.total_seconds;
    st.transfer_seconds = gst.transfer_seconds;
    st.cells = gst.cells;
    st.recomputed = gst.recomputed;
    /* The limits as the first slice's plan applied them: the
     * query-across-threads entry's, and the one below the intra-task
     * entry's. */
    st.gpu_qp_length = 0;
    st.gpu_threshold = SW_GPU_NO_INTRA;
    for (size_t b = 0; b < gst.num_buckets; ++b) {
        if (gst.buckets[b].qp) st.gpu_qp_length = gst.buckets[b].max_length;
        if (gst.buckets[b].intra && b > 0) st.gpu_threshold = gst.buckets[b - 1].max_length;
    }
    for (int k = 1; k < sw_gpu_team_size(team); k++)
        st.gpu_thresholds_differ |= sw_gpu_team_threshold(team, k) != sw_gpu_team_threshold(team, 0);
    st.gpu_threshold_source = options->gpu_threshold               ? "--threshold"
                              : !sw_gpu_team_calibration_used(team) ? "no longer sequences"
                              : sw_gpu_team_calibrated_now(team)    ? "calibrated now"
                                                                    : "calibration cache";
    st.on_gpu = 1;
    st.gpu_streamed = sw_gpu_team_streams(team);
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
    if (rc == SW_EDEVICE && options->resident) sw_resident_drop_team(options->resident);
    if (!options->resident) sw_gpu_team_free(team);
    free(residues);
    free(tiebreak);
    free(qptr);
    free(qrows);
    free(qlen);
    free(counts);
    free(hits);
    free(all_scores);
    return rc;
}
