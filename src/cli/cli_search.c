/* swsearch search: loading, the search and its report, on the public API. */
#include <string.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_common.h"
#include "cli_search.h"
#include "sw_clock.h"
#include "swsearch.h"

static void cli_note(void *user, const char *message)
{
    (void)user;
    cli_error("%s", message);
}

static void draw_progress(void *user, uint64_t done, uint64_t total)
{
    cli_progress_draw(user, done, total);
}

int cli_search_configure(sw_search *s, const search_args *a, sw_message_fn note, sw_message_fn warn, void *user,
                         cli_progress *progress, sw_error *err)
{
    int rc;
    /* A server opens no path that a request names: a matrix comes by name,
     * or as the text the client read. */
    if (a->matrix_text) rc = sw_search_set_matrix_text(s, a->matrix, a->matrix_text, strlen(a->matrix_text), err);
    else if (a->for_server) rc = sw_search_set_matrix_name(s, a->matrix, err);
    else rc = sw_search_set_matrix(s, a->matrix, err);
    if (rc ||
        (rc = sw_search_set_gap_costs(s, (int)a->gap_open, (int)a->gap_extend, err)) ||
        (rc = sw_search_set_evalue(s, a->evalue, err)) || (rc = sw_search_set_top(s, (size_t)a->top, err)) ||
        (rc = sw_search_set_statistics(s, (sw_stats_method)a->stats, err)) ||
        (rc = sw_search_set_device(s, (sw_device)a->device, err)) ||
        (rc = sw_search_set_gpus(s, a->gpus.is_list ? a->gpus.list : NULL, a->gpus.count, err)) ||
        (rc = sw_search_set_gpu_memory(s, a->gpu_memory, err)) ||
        (rc = sw_search_set_gpu_threshold(s, a->threshold, err)) ||
        (rc = sw_search_set_threads(s, (int)a->threads, err)) ||
        (rc = sw_search_set_cpu_engine(s, cli_cpu_engine_name(a->cpu_engine), err)) ||
        (rc = sw_search_set_messages(s, note, user, err)) || (rc = sw_search_set_warnings(s, warn, user, err)) ||
        (rc = sw_search_set_progress(s, progress ? draw_progress : NULL, progress, err)))
        return rc;
    return SW_OK;
}

void cli_search_summary(FILE *to, const sw_db *db, const sw_search_summary *summary, double seconds,
                        const char *whole)
{
    const sw_search_summary st = *summary;
    fprintf(to,
            "swsearch: %zu queries x %llu sequences (%llu residues): %.3e cells on %s\n"
            "swsearch: scan %.3f s (%.1f GCUPS)",
            summary->queries, (unsigned long long)sw_db_num_seqs(db), (unsigned long long)sw_db_num_residues(db),
            (double)st.cells, st.engine, st.scan_seconds,
            st.scan_seconds > 0 ? (double)st.cells / st.scan_seconds / 1e9 : 0.0);
    if (st.threads) fprintf(to, ", %d threads", st.threads);
    if (summary->batches > 1) fprintf(to, ", queries in %zu batches", summary->batches);
    if (st.load_seconds > 0) {
        fprintf(to, ", database load %.3f s", st.load_seconds);
        if (st.gpu_start_seconds > 0)
            fprintf(to,
                    " (GPUs and slices %.3f s, GPU start %.3f s, decoding %.3f s beside it and %.3f s after it, "
                    "upload %.3f s)",
                    st.gpu_plan_seconds, st.gpu_start_seconds, st.decode_seconds, st.decode_wait_seconds,
                    st.upload_seconds);
        fprintf(to, ", transfers %.3f s, %llu scores recomputed", st.transfer_seconds,
                (unsigned long long)st.recomputed);
        if (st.gpu_streamed) fprintf(to, ", the database streamed to the GPUs in parts");
    }
    if (summary->alignments) {
        fprintf(to, ", %llu alignments", (unsigned long long)summary->alignments);
        if (summary->aligned_ahead)
            fprintf(to, " (%llu while the GPU scanned later queries)", (unsigned long long)summary->aligned_ahead);
        fprintf(to, ", %.3f s after the scan (subjects read in %.3f s)", summary->align_seconds,
                summary->read_seconds);
    }
    if (summary->statistics[0]) fprintf(to, "; E-values: %s", summary->statistics);
    if (st.gpu_threshold_source[0]) {
        if (st.gpu_qp_length) fprintf(to, ", query across the threads up to %u residues", st.gpu_qp_length);
        if (st.gpu_threshold == UINT32_MAX)
            fprintf(to, ", no intra-task kernel (%s)", st.gpu_threshold_source);
        else
            fprintf(to, ", intra-task kernel above %u residues (%s)", st.gpu_threshold, st.gpu_threshold_source);
    }
    fprintf(to, "; %s %.3f s\n", whole, seconds);
}

int cli_search(int argc, char **argv)
{
    search_args a;
    int status = cli_search_parse(argc, argv, 0, &a);
    if (status) return status < 0 ? CLI_EXIT_OK : status;
    if (a.server_path) return cli_search_client(&a);

    double t0 = sw_clock_seconds();
    sw_error err;
    sw_error_clear(&err);
    sw_gpus_warm *warm_up = NULL;
    sw_query_input *queries = NULL;
    sw_db *db = NULL;
    sw_search *search = NULL;
    cli_output out = {0};
    cli_progress progress;
    cli_progress_init(&progress, "searching");
    int rc, rank = 0;

    /* Under mpirun every rank opens the database and searches a share of
     * it; rank 0 alone reads the queries and writes the hits. */
    if ((rc = sw_search_create(&search, &err)) || (rc = sw_search_set_mpi(search, 1, &err)) ||
        (rc = sw_search_get_rank(search, &rank, NULL, NULL, NULL, &err)) ||
        (rc = cli_search_configure(search, &a, cli_note, cli_warn, NULL, rank == 0 ? &progress : NULL, &err)))
        goto done;
    /* The GPU's context starts while the input is read and decoded. */
    sw_search_warm_up(search, &warm_up, NULL);
    if ((rank == 0 &&
         (rc = a.query_kind == CLI_QUERY_PSSM  ? sw_query_input_open_pssm(search, a.query_path, &queries, &err)
               : a.query_kind == CLI_QUERY_MSA ? sw_query_input_open_msa(search, a.query_path, &queries, &err)
                                               : sw_query_input_open(a.query_path, &queries, &err))) ||
        (rc = sw_db_open(a.db_path, &db, &err)))
        goto agree;
    if (sw_db_alphabet(db) != SW_ALPHABET_PROTEIN) {
        rc = sw_error_set(&err, SW_EFORMAT, "%s: a DNA database; search compares proteins", a.db_path);
        goto agree;
    }
    /* Open the output before the long computation, so a bad path fails early. */
    if (rank == 0)
        rc = cli_output_open(&out, a.out_path,
                             (cli_input[]){{"the query file", a.query_path, NULL},
                                           {"the matrix file", a.matrix, NULL},
                                           {"the database", a.db_path, db}},
                             3, &err);
agree:
    if ((rc = sw_search_agree(search, rc, &err))) goto done;

    /* Queries are read, searched and written a batch at a time, so memory
     * does not grow with the query file; a damaged header file of the
     * database fails the search before any output. */
    if (a.iterations || a.save_pssm)
        rc = sw_search_write_iterated(search, db, queries, a.iterations ? (int)a.iterations : 1, a.inclusion,
                                      a.save_pssm, a.outfmt, out.file, &err);
    else
        rc = sw_search_write_input(search, db, queries, a.outfmt, rank == 0 ? out.file : NULL, &err);
    cli_progress_end(&progress);
    if (rank != 0) goto done;
    rc = cli_output_check(&out, rc, &err);
    if (rc || (rc = cli_output_commit(&out, &err))) goto done;
    if (a.verbose) {
        sw_search_summary summary;
        sw_search_get_summary(search, &summary, NULL);
        cli_search_summary(stderr, db, &summary, sw_clock_seconds() - t0, "whole command");
    }

done:
    if (rc) {
        cli_output_abort(&out);
        /* Under MPI rank 0 reports every rank's failure, naming the rank. */
        if (rank == 0) cli_error("%s", err.message[0] ? err.message : sw_strerror(rc));
    }
    sw_search_free(search);
    sw_db_close(db);
    sw_query_input_close(queries);
    sw_gpus_warm_free(warm_up);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
