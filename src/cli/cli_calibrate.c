/* swsearch calibrate: measures the GPU kernels afresh on each GPU model of
 * the GPUs asked for, caches the result, and shows the threshold it gives
 * for a database. */
#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "swsearch.h"

static const char help[] =
    "usage: swsearch calibrate -d DB [--gpus G | --gpu ID]\n"
    "\n"
    "Measures the throughput of the GPU's inter-task kernels (a few threads per\n"
    "database sequence) and of its intra-task kernel (a thread block per\n"
    "sequence) over a range of sequence lengths, stores the figures in the\n"
    "calibration cache of this GPU model, and prints the predicted scan time of\n"
    "database DB for each length threshold; 'swsearch search' uses the best one\n"
    "unless --threshold says otherwise. Each model among the GPUs is measured\n"
    "once, on the first GPU of that model. The cache lies in\n"
    "$SWSEARCH_CACHE_DIR, else $XDG_CACHE_HOME/swsearch, else ~/.cache/swsearch.\n"
    "\n"
    "  -d, --db PREFIX   database prefix given to makedb\n"
    "      --gpus G      all (default), a number N (the first N) or a list of\n"
    "                    CUDA device numbers such as 0,2\n"
    "      --gpu ID      one GPU, CUDA device number ID\n"
    "  -h, --help        this help\n";

/* Measures GPU `gpu`, prints its table and what it predicts for `db`,
 * and caches it. */
static int calibrate_one(int gpu, const sw_db *db, const char *db_path, sw_error *err)
{
    sw_gpu_calibration cal;
    char path[4096];
    int rc = sw_gpu_calibrate(gpu, db, &cal, err);
    if (rc) return rc;
    printf("GPU %d: %s; swsearch %s; query of %u residues; measured in %.2f s\n\n", gpu, cal.gpu_name,
           cal.version, cal.query_length, cal.seconds);
    printf("%10s %14s %14s\n", "length", "inter GCUPS", "intra GCUPS");
    for (size_t i = 0; i < cal.num_points; i++)
        printf("%10u %14.1f %14.1f\n", cal.length[i], cal.inter_gcups[i], cal.intra_gcups[i]);

    printf("\n%s: %llu sequences, %llu residues; predicted scan seconds per 1,000 query residues:\n", db_path,
           (unsigned long long)sw_db_num_seqs(db), (unsigned long long)sw_db_num_residues(db));
    printf("%10s %10s %12s\n", "threshold", "seconds", "intra seqs");
    for (size_t i = 0; i <= cal.num_points; i++) {
        const uint32_t t = i < cal.num_points ? cal.length[i] : SW_GPU_THRESHOLD_NONE;
        char name[16];
        if (t == SW_GPU_THRESHOLD_NONE) snprintf(name, sizeof name, "none");
        else snprintf(name, sizeof name, "%u", t);
        printf("%10s %10.4f %12llu%s\n", name, 1000 * cal.predicted[i], (unsigned long long)cal.above[i],
               t == cal.chosen ? "  <- chosen" : "");
    }
    if ((rc = sw_gpu_calibration_save(&cal, path, sizeof path, err))) return rc;
    printf("\ncalibration saved to %s\n", path);
    return SW_OK;
}

int cli_calibrate(int argc, char **argv)
{
    enum { OPT_GPU = 256, OPT_GPUS };
    static const struct option longopts[] = {{"db", required_argument, NULL, 'd'},
                                             {"gpu", required_argument, NULL, OPT_GPU},
                                             {"gpus", required_argument, NULL, OPT_GPUS},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *db_path = NULL;
    cli_gpus gpus;
    memset(&gpus, 0, sizeof gpus);
    opterr = 0;
    optind = 1;
    int c;
    cli_options_seen seen = {{0}};
    while ((c = getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
        if (cli_option_once(&seen, c, longopts)) return CLI_EXIT_USAGE;
        switch (c) {
        case 'd': db_path = optarg; break;
        case OPT_GPU:
            if (cli_parse_gpu(optarg, &gpus)) return CLI_EXIT_USAGE;
            break;
        case OPT_GPUS:
            if (cli_parse_gpus(optarg, &gpus)) return CLI_EXIT_USAGE;
            break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        default: return cli_option_error(c, argv, "calibrate");
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
    sw_gpu_props gpu[CLI_MAX_GPUS];
    int n = 0;
    int rc;
    /* The devices asked for, in order, as a search takes them; measured
     * with the scoring a search takes by default. */
    if ((rc = sw_db_open(db_path, &db, &err)) ||
        (rc = sw_gpus_select(gpus.is_list ? gpus.list : NULL, gpus.count, gpu, CLI_MAX_GPUS, &n, &err)))
        goto done;
    for (int i = 0; i < n && rc == SW_OK; i++) {
        int model_seen = -1;
        for (int k = 0; k < i && model_seen < 0; k++)
            if (!strcmp(gpu[k].name, gpu[i].name)) model_seen = gpu[k].id;
        if (model_seen == gpu[i].id) continue; /* listed twice */
        if (model_seen >= 0) {
            printf("\nGPU %d: %s, the model of GPU %d, which was measured\n", gpu[i].id, gpu[i].name, model_seen);
            continue;
        }
        if (i) printf("\n");
        rc = calibrate_one(gpu[i].id, db, db_path, &err);
    }

done:
    if (rc) cli_error("%s", err.message[0] ? err.message : sw_strerror(rc));
    sw_db_close(db);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
