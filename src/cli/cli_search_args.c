/* The options of `swsearch search`: parsed for a search, for its request to
 * a server and by the server, and written back as arguments for a server. */
#include "cli_search_args.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "swsearch.h"

static void search_usage(FILE *out)
{
    fputs("usage: swsearch search -q QUERIES -d DB [options]\n"
          "\n"
          "Scores every query of the FASTA file QUERIES against every sequence of the\n"
          "database DB (built by makedb) by exact Smith-Waterman local alignment with\n"
          "affine gaps, gives each hit a bit score, an E-value and its alignment, and\n"
          "writes the hits with E-values up to -e as BLAST's tabular output.\n"
          "\n"
          "  -q, --query FILE      query sequences, FASTA (plain or zstd-compressed)\n"
          "      --pssm FILE       a PSSM as the query instead: PSI-BLAST's ASCII PSSM\n"
          "                        (psiblast -out_ascii_pssm) or a profile swsearch\n"
          "                        saved; its scores are in the units of -m's matrix\n"
          "      --msa FILE        a multiple alignment as the query instead (aligned\n"
          "                        FASTA, Stockholm or A3M; its first row is the query):\n"
          "                        its PSSM, with sequence weights and pseudocounts in\n"
          "                        PSI-BLAST's manner (docs/STATISTICS.md)\n"
          "      --iterations N    iterated searches, as psiblast's -num_iterations:\n"
          "                        each round's hits of a query with an E-value up to\n"
          "                        --inclusion-evalue are aligned to it and their\n"
          "                        profile (a PSSM) is searched next, up to N rounds or\n"
          "                        until a round includes nothing new (0: until then,\n"
          "                        at most 100 rounds); the output is each query's\n"
          "                        last round. The queries still iterating are searched\n"
          "                        together in each round\n"
          "      --inclusion-evalue X  E-value up to which hits enter the profile\n"
          "                        (default 0.002, as psiblast's)\n"
          "      --save-pssm FILE  write the profile the last round's hits make\n"
          "                        (swsearch's format; --pssm reads it; one query)\n"
          "  -d, --db PREFIX       database prefix given to makedb\n"
          "  -o, --out FILE        write the results to FILE instead of standard output;\n"
          "                        a file appears or is replaced only when the search\n"
          "                        has succeeded (a symlink's target is replaced, its\n"
          "                        mode kept); a device, pipe or /dev/fd/N is written\n"
          "                        in place; an input or a database file is refused\n"
          "      --outfmt F        6 (default): BLAST's tabular output, 12 columns:\n"
          "                        qseqid sseqid pident length mismatch gapopen qstart\n"
          "                        qend sstart send evalue bitscore; \"6 FIELD...\": your\n"
          "                        columns (BLAST's names, or MMseqs2's); 7: the same\n"
          "                        with BLAST's comment lines; 0: BLAST's pairwise\n"
          "                        report with the alignments; json: one JSON object\n"
          "                        per hit and line; tsv: the table of scores of\n"
          "                        swsearch 0.x (no E-values, no -e). docs/OUTPUT.md\n"
          "                        lists every field\n"
          "  -e, --evalue X        report hits with an E-value up to X (default 10)\n"
          "  -n, --top N           at most N hits per query, the best by score\n"
          "                        (default 500, as BLAST's max_target_seqs)\n"
          "      --stats S         how E-values are computed: table (NCBI's published\n"
          "                        parameters for the matrix and gap costs), fit (fitted\n"
          "                        to this search's scores, as ssearch36 does), or auto\n"
          "                        (default: table where NCBI lists the matrix and gap\n"
          "                        costs, else fit); see docs/STATISTICS.md\n"
          "  -m, --matrix M        substitution matrix: a name (BLOSUM45, BLOSUM50,\n"
          "                        BLOSUM62, BLOSUM80, BLOSUM90, PAM30, PAM70, PAM250)\n"
          "                        or a file in NCBI format (default " CLI_DEFAULT_MATRIX ")\n"
          "      --gap-open G      gap open penalty (default " CLI_TEXT(CLI_DEFAULT_GAP_OPEN) ")\n"
          "      --gap-extend E    gap extension penalty (default " CLI_TEXT(CLI_DEFAULT_GAP_EXTEND) "); a gap of k\n"
          "                        residues costs G + k*E, as in BLAST and ssearch36\n"
          "      --device D        auto (default: the GPU when one is usable, else the\n"
          "                        CPU), gpu or cpu\n"
          "      --gpus G          the GPUs to search on: all (default), a number N\n"
          "                        (the first N) or a list of CUDA device numbers such\n"
          "                        as 0,2; the database is cut into slices of equal\n"
          "                        work, one a GPU, and the output is the same\n"
          "      --gpu ID          one GPU, CUDA device number ID\n"
          "      --gpu-memory SIZE GPU memory the database may take on each GPU (such\n"
          "                        as 20G; default: its free memory less a margin;\n"
          "                        the kernels' working buffers come on top); a\n"
          "                        database larger than that stays on the GPUs as far\n"
          "                        as it fits and is streamed in parts beyond, read\n"
          "                        from its files once for each batch of queries\n"
          "      --threshold N     GPU: database sequences longer than N residues go\n"
          "                        to the intra-task kernel ('none': never); default:\n"
          "                        calibrated for this GPU (see 'swsearch calibrate'),\n"
          "                        and at least 4096\n"
          "  -t, --threads T       CPU threads (default: all cores)\n"
          "      --cpu-engine E    auto (default): for each query length, striped or\n"
          "                        inter-sequence SIMD, whichever is faster when both\n"
          "                        are timed on the database at the start; striped or\n"
          "                        inter: that engine for every query; reference\n"
          "                        (scalar, slow; for checks); all give the same hits\n"
          "  -v, --verbose         print timing and throughput to stderr\n"
          "      --server SOCKET   send the search to 'swsearch serve' listening on the\n"
          "                        local socket SOCKET, which holds its database in\n"
          "                        memory and on the GPU: the same output, without\n"
          "                        loading the database (no -d)\n"
          "  -h, --help            this help\n"
          "Each option may be given once.\n"
          "\n"
          "Hits are ordered by E-value, then score, then position in the database\n"
          "FASTA (tsv: by score); only positive scores are reported. Residues U, O and\n"
          "J score as C, K and the better of I and L, as in ssearch36.\n",
          out);
}


/* An E-value bound: a positive number (1e-5, 0.01, 10) or "inf". */
static int cli_parse_evalue(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (!strcmp(text, "inf")) v = HUGE_VAL;
    else if (end == text || *end || errno == ERANGE || !(v > 0) || isnan(v)) {
        cli_error("-e/--evalue takes a positive number such as 10 or 1e-5 (or inf), not '%s'", text);
        return CLI_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

int cli_search_parse(int argc, char **argv, int for_server, search_args *a)
{
    enum {
        OPT_GAP_OPEN = 256,
        OPT_GAP_EXTEND,
        OPT_CPU_ENGINE,
        OPT_DEVICE,
        OPT_GPU,
        OPT_GPUS,
        OPT_GPU_MEMORY,
        OPT_THRESHOLD,
        OPT_OUTFMT,
        OPT_STATS,
        OPT_SERVER,
        OPT_MATRIX_TEXT,
        OPT_PSSM,
        OPT_MSA,
        OPT_ITERATIONS,
        OPT_INCLUSION,
        OPT_SAVE_PSSM,
        OPT_QUERY_KIND
    };
    static const struct option longopts[] = {
        {"query", required_argument, NULL, 'q'},     {"db", required_argument, NULL, 'd'},
        {"out", required_argument, NULL, 'o'},       {"top", required_argument, NULL, 'n'},
        {"matrix", required_argument, NULL, 'm'},    {"threads", required_argument, NULL, 't'},
        {"gap-open", required_argument, NULL, OPT_GAP_OPEN},
        {"gap-extend", required_argument, NULL, OPT_GAP_EXTEND},
        {"cpu-engine", required_argument, NULL, OPT_CPU_ENGINE},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"gpu", required_argument, NULL, OPT_GPU},
        {"gpus", required_argument, NULL, OPT_GPUS},
        {"gpu-memory", required_argument, NULL, OPT_GPU_MEMORY},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"outfmt", required_argument, NULL, OPT_OUTFMT},
        {"evalue", required_argument, NULL, 'e'},
        {"stats", required_argument, NULL, OPT_STATS},
        {"server", required_argument, NULL, OPT_SERVER},
        {"matrix-text", required_argument, NULL, OPT_MATRIX_TEXT},
        {"pssm", required_argument, NULL, OPT_PSSM},
        {"msa", required_argument, NULL, OPT_MSA},
        {"iterations", required_argument, NULL, OPT_ITERATIONS},
        {"inclusion-evalue", required_argument, NULL, OPT_INCLUSION},
        {"save-pssm", required_argument, NULL, OPT_SAVE_PSSM},
        {"query-kind", required_argument, NULL, OPT_QUERY_KIND},
        {"verbose", no_argument, NULL, 'v'},         {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->matrix = CLI_DEFAULT_MATRIX;
    a->top = 500;
    a->outfmt = "6";
    a->evalue = 10.0;
    a->inclusion = 0.002;
    a->stats = SW_STATS_AUTO;
    a->gap_open = CLI_DEFAULT_GAP_OPEN;
    a->gap_extend = CLI_DEFAULT_GAP_EXTEND;
    opterr = 0;
    optind = 1;
    int c;
    cli_options_seen seen = {{0}};
    while ((c = getopt_long(argc, argv, ":q:d:o:n:m:t:e:vh", longopts, NULL)) != -1) {
        if (cli_option_once(&seen, c, longopts)) return CLI_EXIT_USAGE;
        switch (c) {
        case OPT_ITERATIONS:
            /* 0: until no round includes anything new, as psiblast's
             * -num_iterations 0, within the most rounds taken. */
            if (cli_parse_long("--iterations", optarg, 0, CLI_MAX_ITERATIONS, &a->iterations)) return CLI_EXIT_USAGE;
            if (a->iterations == 0) a->iterations = CLI_MAX_ITERATIONS;
            break;
        case OPT_INCLUSION: {
            char *end = NULL;
            a->inclusion = strtod(optarg, &end);
            if (!*optarg || *end || !(a->inclusion >= 0)) {
                cli_error("--inclusion-evalue takes a number of 0 or more such as 0.002, not '%s'", optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        }
        case OPT_SAVE_PSSM: a->save_pssm = optarg; break;
        case 'q':
        case OPT_PSSM:
        case OPT_MSA:
            if (a->query_path) {
                cli_error("give the query once: -q, --pssm or --msa");
                return CLI_EXIT_USAGE;
            }
            a->query_path = optarg;
            a->query_kind = c == OPT_PSSM ? CLI_QUERY_PSSM : c == OPT_MSA ? CLI_QUERY_MSA : CLI_QUERY_FASTA;
            break;
        case 'd': a->db_path = optarg; break;
        case 'o': a->out_path = optarg; break;
        case 'm': a->matrix = optarg; break;
        case 'v': a->verbose = 1; break;
        case 'n':
            if (cli_parse_long("--top", optarg, 1, 1000000, &a->top)) return CLI_EXIT_USAGE;
            break;
        case 't':
            if (cli_parse_long("--threads", optarg, 1, 4096, &a->threads)) return CLI_EXIT_USAGE;
            break;
        case OPT_GAP_OPEN:
            if (cli_parse_gap_open(optarg, &a->gap_open)) return CLI_EXIT_USAGE;
            break;
        case OPT_GAP_EXTEND:
            if (cli_parse_gap_extend(optarg, &a->gap_extend)) return CLI_EXIT_USAGE;
            break;
        case OPT_CPU_ENGINE: {
            /* "simd": the default's name before there were two SIMD engines. */
            static const cli_choice engines[] = {{"auto", CLI_CPU_ENGINE_AUTO},
                                                 {"striped", CLI_CPU_ENGINE_STRIPED},
                                                 {"inter", CLI_CPU_ENGINE_INTER},
                                                 {"reference", CLI_CPU_ENGINE_REFERENCE},
                                                 {"simd", CLI_CPU_ENGINE_AUTO},
                                                 {NULL, 0}};
            if (cli_parse_choice("--cpu-engine", optarg, engines, &a->cpu_engine)) return CLI_EXIT_USAGE;
            break;
        }
        case OPT_DEVICE:
            if (cli_parse_choice("--device", optarg, cli_device_choices, &a->device)) return CLI_EXIT_USAGE;
            break;
        case OPT_OUTFMT: a->outfmt = optarg; break;
        case OPT_SERVER: a->server_path = optarg; break;
        case OPT_MATRIX_TEXT:
            /* Only in requests: the client sends a matrix file's text. */
            if (!for_server) {
                cli_error("unknown option '--matrix-text'; see 'swsearch search --help'");
                return CLI_EXIT_USAGE;
            }
            a->matrix_text = optarg;
            break;
        case OPT_QUERY_KIND: {
            /* Only in requests: what the query text the client sends is. */
            static const cli_choice kinds[] = {
                {"fasta", CLI_QUERY_FASTA}, {"pssm", CLI_QUERY_PSSM}, {"msa", CLI_QUERY_MSA}, {NULL, 0}};
            if (!for_server) {
                cli_error("unknown option '--query-kind'; see 'swsearch search --help'");
                return CLI_EXIT_USAGE;
            }
            if (cli_parse_choice("--query-kind", optarg, kinds, &a->query_kind)) return CLI_EXIT_USAGE;
            break;
        }
        case 'e':
            if (cli_parse_evalue(optarg, &a->evalue)) return CLI_EXIT_USAGE;
            break;
        case OPT_STATS: {
            static const cli_choice stats[] = {{"auto", SW_STATS_AUTO},
                                               {"table", SW_STATS_TABLE},
                                               {"fit", SW_STATS_FIT},
                                               {NULL, 0}};
            if (cli_parse_choice("--stats", optarg, stats, &a->stats)) return CLI_EXIT_USAGE;
            break;
        }
        case OPT_GPU:
            if (cli_parse_gpu(optarg, &a->gpus)) return CLI_EXIT_USAGE;
            break;
        case OPT_GPUS:
            if (cli_parse_gpus(optarg, &a->gpus)) return CLI_EXIT_USAGE;
            break;
        case OPT_GPU_MEMORY:
            if (cli_parse_size("--gpu-memory", optarg, (uint64_t)1 << 20, &a->gpu_memory)) return CLI_EXIT_USAGE;
            break;
        case OPT_THRESHOLD:
            if (!strcmp(optarg, "none")) {
                a->threshold = UINT32_MAX;
            } else {
                long t;
                if (cli_parse_long("--threshold", optarg, 1, 1000000000, &t)) return CLI_EXIT_USAGE;
                a->threshold = (uint32_t)t;
            }
            break;
        case 'h': search_usage(stdout); return -1;
        default: return cli_option_error(c, argv, "search");
        }
    }
    if (optind < argc) {
        cli_error("unexpected argument '%s'; see 'swsearch search --help'", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    a->for_server = for_server;
    if (for_server) {
        /* What a server takes: search options only, never a path of its own. */
        if (a->query_path || a->db_path || a->out_path || a->server_path || a->save_pssm) {
            cli_error("a request to the server may not name files (-q, -d, -o, --server, --save-pssm)");
            return CLI_EXIT_USAGE;
        }
        if (a->iterations) {
            cli_error("a server runs single searches, not --iterations");
            return CLI_EXIT_USAGE;
        }
    } else if (a->server_path) {
        if (a->iterations || a->save_pssm) {
            cli_error("a server runs single searches, not --iterations or --save-pssm");
            return CLI_EXIT_USAGE;
        }
        if (!a->query_path || a->db_path) {
            cli_error("search --server needs -q QUERIES (or --pssm, --msa) and no -d: the server searches its own "
                      "database; see 'swsearch search --help'");
            return CLI_EXIT_USAGE;
        }
    } else if (!a->query_path || !a->db_path) {
        cli_error("search needs -q QUERIES (or --pssm, --msa) and -d DB; see 'swsearch search --help'");
        return CLI_EXIT_USAGE;
    }
    /* A bad --outfmt is a usage error, found before anything is read. */
    sw_error err;
    if (sw_search_check_format(a->outfmt, &err)) {
        cli_error("%s", err.message);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

const char *cli_cpu_engine_name(int engine)
{
    switch (engine) {
    case CLI_CPU_ENGINE_REFERENCE: return "reference";
    case CLI_CPU_ENGINE_STRIPED: return "striped";
    case CLI_CPU_ENGINE_INTER: return "inter";
    default: return "auto";
    }
}

int cli_search_forward_args(const search_args *a, int *argc, char ***argv)
{
    char buf[64];
    const char *pairs[24][2];
    int n = 0;
    char top[24], open[24], ext[24], threads[24], threshold[24], memory[24];
    snprintf(top, sizeof top, "%ld", a->top);
    snprintf(open, sizeof open, "%ld", a->gap_open);
    snprintf(ext, sizeof ext, "%ld", a->gap_extend);
    if (isinf(a->evalue)) snprintf(buf, sizeof buf, "inf");
    else snprintf(buf, sizeof buf, "%.17g", a->evalue);
    pairs[n][0] = "--top", pairs[n++][1] = top;
    pairs[n][0] = "--matrix", pairs[n++][1] = a->matrix;
    if (a->matrix_text) pairs[n][0] = "--matrix-text", pairs[n++][1] = a->matrix_text;
    pairs[n][0] = "--gap-open", pairs[n++][1] = open;
    pairs[n][0] = "--gap-extend", pairs[n++][1] = ext;
    pairs[n][0] = "--outfmt", pairs[n++][1] = a->outfmt;
    if (a->query_kind != CLI_QUERY_FASTA)
        pairs[n][0] = "--query-kind", pairs[n++][1] = a->query_kind == CLI_QUERY_PSSM ? "pssm" : "msa";
    pairs[n][0] = "--evalue", pairs[n++][1] = buf;
    pairs[n][0] = "--stats", pairs[n++][1] = a->stats == SW_STATS_TABLE ? "table" : a->stats == SW_STATS_FIT ? "fit" : "auto";
    pairs[n][0] = "--device", pairs[n++][1] = a->device == SW_DEVICE_CPU ? "cpu" : a->device == SW_DEVICE_GPU ? "gpu" : "auto";
    /* Without --gpu or --gpus the server's own GPUs. */
    if (a->gpus.option) pairs[n][0] = a->gpus.option, pairs[n++][1] = a->gpus.value;
    if (a->gpu_memory) {
        snprintf(memory, sizeof memory, "%llu", (unsigned long long)a->gpu_memory);
        pairs[n][0] = "--gpu-memory", pairs[n++][1] = memory;
    }
    pairs[n][0] = "--cpu-engine", pairs[n++][1] = cli_cpu_engine_name(a->cpu_engine);
    if (a->threads) {
        snprintf(threads, sizeof threads, "%ld", a->threads);
        pairs[n][0] = "--threads", pairs[n++][1] = threads;
    }
    if (a->threshold) {
        if (a->threshold == UINT32_MAX) snprintf(threshold, sizeof threshold, "none");
        else snprintf(threshold, sizeof threshold, "%u", a->threshold);
        pairs[n][0] = "--threshold", pairs[n++][1] = threshold;
    }
    char **v = calloc((size_t)(2 * n + 2), sizeof *v);
    if (!v) return -1;
    int k = 0;
    v[k++] = strdup("search");
    for (int i = 0; i < n; i++) {
        v[k++] = strdup(pairs[i][0]);
        v[k++] = strdup(pairs[i][1]);
    }
    if (a->verbose) v[k++] = strdup("--verbose");
    for (int i = 0; i < k; i++)
        if (!v[i]) {
            for (int j = 0; j < k; j++) free(v[j]);
            free(v);
            return -1;
        }
    *argc = k;
    *argv = v;
    return 0;
}
