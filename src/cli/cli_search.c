/* swsearch search: loading, the search and its report. */
#include "cli.h"
#include "cli_client.h"
#include "cli_common.h"
#include "cli_search.h"
#include "sw_clock.h"
#include "sw_db.h"
#include "sw_gpu.h"
#include "sw_matrix.h"
#include "sw_queries.h"
#include "sw_report.h"
#include "sw_search.h"

static void cli_note(void *user, const char *message)
{
    (void)user;
    cli_error("%s", message);
}

static void draw_progress(void *user, uint64_t done, uint64_t total)
{
    cli_progress_draw(user, done, total);
}

int cli_search_report(const search_args *a, const char *db_path, sw_db *db, sw_resident *resident,
                      sw_query_reader *queries, FILE *out, void (*note)(void *, const char *), void *note_user,
                      cli_progress *progress, sw_report_summary *summary, sw_error *err)
{
    sw_matrix *matrix = NULL;
    sw_outfmt *format = NULL;
    sw_scoring scoring;
    int rc;
    if ((rc = sw_outfmt_parse(a->outfmt, &format, err)) || (rc = sw_matrix_load(a->matrix, &matrix, err)) ||
        (rc = sw_scoring_init(&scoring, matrix, (int)a->gap_open, (int)a->gap_extend, err)))
        goto done;
    sw_search_options opt = {
        .top_n = (size_t)a->top,
        .threads = (int)a->threads,
        .cpu_engine = (sw_cpu_engine)a->cpu_engine,
        .device = (sw_device)a->device,
        .gpus = a->gpus.is_list ? a->gpus.list : NULL,
        .num_gpus = a->gpus.count,
        .gpu_memory = a->gpu_memory,
        .gpu_threshold = a->threshold,
        .progress = progress ? draw_progress : NULL,
        .progress_user = progress,
        .note = note,
        .note_user = note_user,
        .resident = resident,
    };
    /* Queries are read, searched and written a batch at a time, so memory
     * does not grow with the query file. */
    sw_report_options report = {
        .format = format,
        .stats = (sw_stats_method)a->stats,
        .matrix_name = sw_matrix_name(matrix),
        .max_evalue = a->evalue,
        .run =
            {
                .version = SW_VERSION,
                .db_path = db_path,
                .db_seqs = sw_db_num_seqs(db),
                .db_residues = sw_db_num_residues(db),
                .matrix = a->matrix,
                .gap_open = (int)a->gap_open,
                .gap_extend = (int)a->gap_extend,
                .evalue_cutoff = a->evalue,
                .table = sw_matrix_table(matrix),
            },
    };
    rc = sw_report_search(out, db, queries, &scoring, &opt, &report, NULL, summary, err);
done:
    sw_matrix_free(matrix);
    sw_outfmt_free(format);
    return rc;
}

void cli_search_summary(FILE *to, const sw_db *db, const sw_report_summary *summary, double seconds,
                        const char *whole)
{
    const sw_search_stats st = summary->stats;
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
    if (st.gpu_threshold_source) {
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
    /* The GPU's context starts while the input is read and decoded. */
    sw_gpu_warm_up *warm_up =
        a.device != SW_DEVICE_CPU ? sw_gpu_warm_up_start(a.gpus.list, a.gpus.is_list ? a.gpus.count : 0) : NULL;
    sw_error err;
    sw_error_clear(&err);
    sw_query_reader *queries = NULL;
    sw_db *db = NULL;
    cli_output out = {0};
    int rc;

    if ((rc = sw_queries_open(a.query_path, sw_alphabet_protein(), cli_warn, NULL, &queries, &err)) ||
        (rc = sw_db_open(a.db_path, &db, &err)) ||
        /* A damaged header chunk fails the run before any output, not when
         * a hit happens to fall into it. */
        (rc = sw_db_check_headers(db, &err)))
        goto done;
    if (sw_db_alphabet(db) != SW_ALPHABET_PROTEIN) {
        rc = sw_error_set(&err, SW_EFORMAT, "%s: a DNA database; search compares proteins", a.db_path);
        goto done;
    }
    /* Open the output before the long computation, so a bad path fails early. */
    if ((rc = cli_output_open(&out, a.out_path,
                              (cli_input[]){{"the query file", a.query_path, NULL},
                                            {"the matrix file", a.matrix, NULL},
                                            {"the database", a.db_path, db}},
                              3, &err)))
        goto done;

    cli_progress progress;
    cli_progress_init(&progress, "searching");
    sw_report_summary summary;
    rc = cli_search_report(&a, a.db_path, db, NULL, queries, out.file, cli_note, NULL, &progress, &summary, &err);
    cli_progress_end(&progress);
    rc = cli_output_check(&out, rc, &err);
    if (rc || (rc = cli_output_commit(&out, &err))) goto done;
    if (a.verbose) cli_search_summary(stderr, db, &summary, sw_clock_seconds() - t0, "whole command");

done:
    if (rc) {
        cli_output_abort(&out);
        cli_error("%s", err.message[0] ? err.message : sw_strerror(rc));
    }
    sw_db_close(db);
    sw_queries_close(queries);
    sw_gpu_warm_up_finish(warm_up);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
