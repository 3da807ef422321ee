/* swsearch info and swsearch verify. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "swsearch.h"

/* Parses "-d DB" (and --help) for the database commands; returns -1 after
 * printing help. */
static int parse_db_args(int argc, char **argv, const char *help, const char **db)
{
    static const struct option longopts[] = {{"db", required_argument, NULL, 'd'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    *db = NULL;
    opterr = 0;
    optind = 1;
    int c;
    cli_options_seen seen = {{0}};
    while ((c = getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
        if (cli_option_once(&seen, c, longopts)) return CLI_EXIT_USAGE;
        switch (c) {
        case 'd': *db = optarg; break;
        case 'h': fputs(help, stdout); return -1;
        default: return cli_option_error(c, argv, argv[0]);
        }
    }
    if (optind < argc) {
        cli_error("unexpected argument '%s'; see 'swsearch %s --help'", argv[optind], argv[0]);
        return CLI_EXIT_USAGE;
    }
    if (!*db) {
        cli_error("%s needs -d DB; see 'swsearch %s --help'", argv[0], argv[0]);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* Parses the arguments and opens the database they name. Returns
 * CLI_EXIT_OK with *db open, -1 after printing help, or an exit status
 * after printing the error. */
static int open_db_args(int argc, char **argv, const char *help, const char **path, sw_db **db)
{
    int status = parse_db_args(argc, argv, help, path);
    if (status) return status;
    sw_error err;
    sw_error_clear(&err);
    if (sw_db_open(*path, db, &err)) {
        cli_error("%s", err.message);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

static void print_size(const char *label, uint64_t bytes)
{
    printf("  %-10s %12llu bytes (%.1f MiB)\n", label, (unsigned long long)bytes,
           (double)bytes / (1024.0 * 1024.0));
}

int cli_info(int argc, char **argv)
{
    const char *help = "usage: swsearch info -d DB\n"
                       "\n"
                       "Describes the database DB: format version, sequence and residue counts,\n"
                       "length statistics and histogram, file sizes.\n";
    const char *path;
    sw_db *db;
    int status = open_db_args(argc, argv, help, &path, &db);
    if (status) return status < 0 ? CLI_EXIT_OK : status;
    sw_db_info info;
    sw_error err;
    if (sw_db_get_info(db, &info, &err)) {
        cli_error("%s", err.message);
        sw_db_close(db);
        return CLI_EXIT_FAILURE;
    }
    uint64_t n = info.sequences, residues = info.residues;

    printf("database   %s\n", path);
    printf("format     version %u\n", info.format_version);
    printf("alphabet   %s\n", info.alphabet == SW_ALPHABET_PROTEIN ? "protein" : "DNA");
    printf("sequences  %llu\n", (unsigned long long)n);
    printf("residues   %llu\n", (unsigned long long)residues);
    if (n) {
        printf("lengths    min %u, median %u, mean %.1f, max %u\n", info.min_length, info.median_length,
               (double)residues / (double)n, info.max_length);
    }
    printf("chunks     %llu residue chunks, %llu header chunks\n", (unsigned long long)info.residue_chunks,
           (unsigned long long)info.header_chunks);
    printf("files\n");
    print_size("index", info.index_bytes);
    print_size("residues", info.residue_bytes);
    print_size("headers", info.header_bytes);
    if (info.residue_bytes)
        printf("  residue compression %.2fx\n", (double)residues / (double)info.residue_bytes);

    printf("length histogram\n");
    for (int k = 0; k < 32; k++) {
        uint64_t lo = (uint64_t)1 << k, hi = lo * 2 - 1, count = info.length_histogram[k];
        if (!count) continue;
        int bar = (int)(50.0 * (double)count / (double)n + 0.5);
        char range[48];
        snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)lo, (unsigned long long)hi);
        printf("  %-13s %10llu %6.2f%% ", range, (unsigned long long)count,
               100.0 * (double)count / (double)n);
        for (int b = 0; b < bar; b++) putchar('#');
        putchar('\n');
    }
    sw_db_close(db);
    return CLI_EXIT_OK;
}

static void draw_progress(void *user, uint64_t done, uint64_t total)
{
    cli_progress_draw(user, done, total);
}

int cli_verify(int argc, char **argv)
{
    const char *help = "usage: swsearch verify -d DB\n"
                       "\n"
                       "Checks every checksum of the database DB: the index, every residue chunk\n"
                       "and every header chunk. Reports the first damaged part and exits with\n"
                       "status 1 if there is one.\n";
    const char *path;
    sw_db *db;
    int status = open_db_args(argc, argv, help, &path, &db);
    if (status) return status < 0 ? CLI_EXIT_OK : status;
    sw_error err;
    sw_error_clear(&err);
    cli_progress progress;
    cli_progress_init(&progress, "verifying");
    int rc = sw_db_verify(db, draw_progress, &progress, &err);
    cli_progress_end(&progress);
    if (rc) {
        cli_error("%s", err.message);
    } else {
        printf("%s: OK (%llu sequences, %llu residues, all checksums match)\n", path,
               (unsigned long long)sw_db_num_seqs(db), (unsigned long long)sw_db_num_residues(db));
    }
    sw_db_close(db);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
