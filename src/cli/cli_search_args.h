/* The options of `swsearch search`, shared by the search, its --server
 * client and `swsearch serve`. */
#ifndef CLI_SEARCH_ARGS_H
#define CLI_SEARCH_ARGS_H

#include <stdint.h>

#include "cli_common.h"

/* The most rounds of an iterated search (--iterations 0 asks for rounds
 * until nothing new is included, within these). */
#define CLI_MAX_ITERATIONS 100

typedef struct search_args {
    const char *query_path, *db_path, *out_path, *matrix, *outfmt, *server_path;
    long top, gap_open, gap_extend, threads;
    cli_gpus gpus; /* --gpus or --gpu; none given: every GPU */
    uint64_t gpu_memory; /* --gpu-memory; 0: not given */
    double evalue;
    int stats;
    uint32_t threshold;
    int cpu_engine, device, verbose;
    /* A request to a server: for_server set; a matrix file is sent as its
     * text (--matrix-text, read by the client), named by `matrix`; else
     * `matrix` must be a shipped matrix's name (a server opens no path a
     * request names). */
    int for_server;
    const char *matrix_text;
    /* What query_path holds: FASTA (-q), a PSSM (--pssm) or a multiple
     * alignment whose PSSM is the query (--msa); in a request, what the
     * query text the client sends is (--query-kind). */
    int query_kind;
    /* An iterated search (--iterations N, 0: not one; --iterations 0 is
     * stored as CLI_MAX_ITERATIONS), PSI-BLAST's way. */
    long iterations;
    double inclusion;         /* --inclusion-evalue */
    const char *save_pssm;    /* --save-pssm, or NULL */
} search_args;

enum { CLI_QUERY_FASTA = 0, CLI_QUERY_PSSM = 1, CLI_QUERY_MSA = 2 };

/* --cpu-engine's values, and the engine's name as the library takes it. */
enum { CLI_CPU_ENGINE_AUTO = 0, CLI_CPU_ENGINE_REFERENCE = 1, CLI_CPU_ENGINE_STRIPED = 2, CLI_CPU_ENGINE_INTER = 3 };
const char *cli_cpu_engine_name(int engine);

/* Parses `swsearch search` options (argv[0] is the command's name). A
 * server's request (`for_server`) must not name files. CLI_EXIT_OK,
 * CLI_EXIT_USAGE after an error message, or -1 after --help. */
int cli_search_parse(int argc, char **argv, int for_server, search_args *a);

/* The search options of `a` as arguments that cli_search_parse() takes back
 * (for a server): argv[0] is "search"; free with cli_wire_free_args(). 0, or
 * -1 when out of memory. */
int cli_search_forward_args(const search_args *a, int *argc, char ***argv);

#endif
