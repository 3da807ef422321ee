/* swsearch: dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "swsearch.h"

static void usage(FILE *out)
{
    fputs("usage: swsearch COMMAND [OPTIONS]\n"
          "\n"
          "Exact Smith-Waterman search of protein databases, and exact pairwise\n"
          "alignment of long DNA sequences.\n"
          "\n"
          "commands:\n"
          "  search     rank database sequences by local alignment score against queries\n"
          "  info       describe a database: counts, residues, length histogram\n"
          "  verify     check every checksum of a database\n"
          "  calibrate  measure the GPU kernels; the length threshold they call for\n"
          "  align      best local alignment of two DNA sequences of up to 2^31 bases\n"
          "  serve      hold a database in memory and on the GPU, answering searches\n"
          "             sent with 'search --server'\n"
          "  profile    merge two multiple alignments by aligning their profiles\n"
          "\n"
          "Databases are built with makedb. 'swsearch COMMAND --help' describes a command.\n"
          "  -h, --help     this help\n"
          "  --version      version and build features\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "search")) return cli_search(argc - 1, argv + 1);
    if (!strcmp(cmd, "info")) return cli_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "verify")) return cli_verify(argc - 1, argv + 1);
    if (!strcmp(cmd, "calibrate")) return cli_calibrate(argc - 1, argv + 1);
    if (!strcmp(cmd, "align")) return cli_align(argc - 1, argv + 1);
    if (!strcmp(cmd, "serve")) return cli_serve(argc - 1, argv + 1);
    if (!strcmp(cmd, "profile")) return cli_profile(argc - 1, argv + 1);
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("swsearch %s (database format %d; CPU engine %s; CUDA engines %s)\n", SW_VERSION,
               sw_db_format_current(), sw_cpu_simd_name(), sw_gpus_built() ? "built" : "not built");
        return CLI_EXIT_OK;
    }
    cli_error("unknown command '%s'; see 'swsearch --help'", cmd);
    return CLI_EXIT_USAGE;
}
