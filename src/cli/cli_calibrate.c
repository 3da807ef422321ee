/* swsearch calibrate: measures the GPU kernels afresh, caches the result,
 * and shows the threshold it gives for a database. */
#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "sw_calibrate.h"
#include "sw_db.h"
#include "sw_gpu_engine.h"
#include "sw_matrix.h"

static const char help[] =
    "usage: swsearch calibrate -d DB [--gpu ID]\n"
    "\n"
    "Measures the throughput of the GPU's inter-task kernels (a few threads per\n"
    "database sequence) and of its intra-task kernel (a thread block per\n"
    "sequence) over a range of sequence lengths, stores the figures in the\n"
    "calibration cache of this GPU model, and prints the predicted scan time of\n"
    "database DB for each length threshold; 'swsearch search' uses the best one\n"
    "unless --threshold says otherwise. The cache lies in $SWSEARCH_CACHE_DIR,\n"
    "else $XDG_CACHE_HOME/swsearch, else ~/.cache/swsearch.\n"
    "\n"
    "  -d, --db PREFIX   database prefix given to makedb\n"
    "      --gpu ID      CUDA device number (default 0)\n"
    "  -h, --help        this help\n";

int cli_calibrate(int argc, char **argv)
{
    enum { OPT_GPU = 256 };
    static const struct option longopts[] = {{"db", required_argument, NULL, 'd'},
                                             {"gpu", required_argument, NULL, OPT_GPU},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *db_path = NULL;
    long gpu = 0;
    opterr = 0;
    optind = 1;
    int c;
    cli_options_seen seen = {{0}};
    while ((c = getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
        if (cli_option_once(&seen, c, longopts)) return CLI_EXIT_USAGE;
        switch (c) {
        case 'd': db_path = optarg; break;
        case OPT_GPU:
            if (cli_parse_long("--gpu", optarg, 0, 1023, &gpu)) return CLI_EXIT_USAGE;
            break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        case ':':
            cli_error("option '%s' needs a value; see 'swsearch calibrate --help'", argv[optind - 1]);
            return CLI_EXIT_USAGE;
        default:
            cli_error("unknown option '%s'; see 'swsearch calibrate --help'", argv[optind - 1]);
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        cli_error("unexpected argument '%s'; see 'swsearch calibrate --help'", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (!db_path) {
        cli_error("calibrate needs -d DB; see 'swsearch calibrate --help'");
        return CLI_EXIT_USAGE;
    }

    sw_error err;
    sw_error_clear(&err);
    sw_db *db = NULL;
    sw_matrix *matrix = NULL;
    sw_scoring scoring;
    sw_calibration cal;
    char path[4096];
    int rc;
    if ((rc = sw_db_open(db_path, &db, &err)) || (rc = sw_matrix_load("BLOSUM62", &matrix, &err)) ||
        (rc = sw_scoring_init(&scoring, matrix, 11, 1, &err)) ||
        (rc = sw_calibration_measure((int)gpu, &scoring, &cal, &err)))
        goto done;
    printf("GPU %ld: %s; swsearch %s; query of %u residues; measured in %.2f s\n\n", gpu, cal.gpu_name,
           cal.version, cal.query_length, cal.seconds);
    printf("%10s %14s %14s\n", "length", "inter GCUPS", "intra GCUPS");
    for (size_t i = 0; i < cal.num_points; i++)
        printf("%10u %14.1f %14.1f\n", cal.length[i], cal.inter_gcups[i], cal.intra_gcups[i]);

    const uint32_t *lengths = sw_db_lengths(db);
    const uint64_t n = sw_db_num_seqs(db);
    double best_time = 0;
    const uint32_t best = sw_calibration_pick(&cal, lengths, n, &best_time);
    printf("\n%s: %llu sequences, %llu residues; predicted scan seconds per 1,000 query residues:\n", db_path,
           (unsigned long long)n, (unsigned long long)sw_db_num_residues(db));
    printf("%10s %10s %12s\n", "threshold", "seconds", "intra seqs");
    for (size_t i = 0; i <= cal.num_points; i++) {
        const uint32_t t = i < cal.num_points ? cal.length[i] : UINT32_MAX;
        uint64_t above = 0;
        for (uint64_t s = 0; s < n; s++) above += lengths[s] > t;
        char name[16];
        if (t == UINT32_MAX) snprintf(name, sizeof name, "none");
        else snprintf(name, sizeof name, "%u", t);
        printf("%10s %10.4f %12llu%s\n", name, 1000 * sw_calibration_predict(&cal, lengths, n, t),
               (unsigned long long)above, t == best ? "  <- chosen" : "");
    }
    if ((rc = sw_calibration_cache_path((int)gpu, path, sizeof path, &err)) ||
        (rc = sw_calibration_save(path, &cal, &err)))
        goto done;
    printf("\ncalibration saved to %s\n", path);

done:
    if (rc) cli_error("%s", err.message[0] ? err.message : sw_strerror(rc));
    sw_matrix_free(matrix);
    sw_db_close(db);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
