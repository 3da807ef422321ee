/* swsearch profile: two multiple alignments merged by aligning their
 * profiles; the merged alignment, its score, and on request the column map. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "cli_output.h"
#include "sw_cleanup.h"
#include "sw_clock.h"

static const char help[] =
    "usage: swsearch profile A.afa B.afa [options]\n"
    "       swsearch profile --pairs LIST [options]\n"
    "\n"
    "Merges two multiple alignments of proteins (aligned FASTA, plain or\n"
    "zstd-compressed, or Clustal or Stockholm, recognised by their first line;\n"
    "'-' and '.' are gaps) by the best global alignment of\n"
    "their profiles, as progressive aligners do at every step. Every input row\n"
    "keeps its name, its residues and its alignment's columns; the columns of\n"
    "one alignment that face a gap in the other get a gap in the other's rows.\n"
    "\n"
    "  -o, --out FILE        the merged alignment to FILE (default: standard\n"
    "                        output); it appears only when the run succeeds\n"
    "  -f, --format F        fasta (default: aligned FASTA, 60 columns a line)\n"
    "                        or clustal\n"
    "  -s, --score S         expected (default: the expected score of a symbol of\n"
    "                        one column against one of the other, maximised: the\n"
    "                        matrix between residues, -gap-extend between a\n"
    "                        residue and a gap, so a column pair scores what its\n"
    "                        pairs of rows add to a sum-of-pairs score) or euclid\n"
    "                        (Hanif and Zimmermann: the squared Euclidean\n"
    "                        distance of the two columns' frequencies, gap\n"
    "                        included, minimised; a column against a gap costs\n"
    "                        its distance to a column of gaps)\n"
    "      --matrix M        substitution matrix for expected (default " CLI_DEFAULT_MATRIX ";\n"
    "                        a shipped name or a file in NCBI format)\n"
    "      --gap-open G      opening a gap (default " CLI_TEXT(CLI_DEFAULT_GAP_OPEN) " for expected, 0 for\n"
    "                        euclid); expected charges it for each residue of\n"
    "                        the first column against the gap\n"
    "      --gap-extend E    expected: each residue against a gap (default " CLI_TEXT(CLI_DEFAULT_GAP_EXTEND) ")\n"
    "  -w, --weights W       none (default: every row counts alike) or henikoff\n"
    "                        (position-based weights, so that many similar rows\n"
    "                        do not outvote the rest)\n"
    "      --device D        auto (default: the GPU when one is usable and the\n"
    "                        scores fit its 32-bit arithmetic, else the CPU), gpu\n"
    "                        or cpu; every engine gives the same alignment\n"
    "      --gpu ID          CUDA device number (default 0)\n"
    "  -t, --threads T       CPU threads (default: all cores): tiles of cells in a\n"
    "                        wavefront, the same result as one thread\n"
    "      --pairs LIST      merge many pairs: each line of LIST names A.afa, B.afa\n"
    "                        and the output file, separated by blanks (paths\n"
    "                        without blanks; '#' lines and blank lines skipped);\n"
    "                        on the GPU all pairs go in batches; on the CPU they\n"
    "                        run side by side on the threads; each output\n"
    "                        appears whole once its pair is done; the first\n"
    "                        error stops the run; two lines may not name one\n"
    "                        output\n"
    "      --map FILE        also write the column map: the score, then for every\n"
    "                        merged column the column of A and of B (1-based,\n"
    "                        '-' for a gap)\n"
    "  -q, --quiet           no summary line on stderr\n"
    "  -h, --help            this help\n"
    "Each option may be given once.\n"
    "\n"
    "Profiles hold each column's frequencies of the 27 protein letters and the\n"
    "gap in 64ths; scores are integers in 64 x 64ths of the matrix's units, so\n"
    "the result is exact and the same on every engine (docs/PROFILE.md). The\n"
    "summary line gives the score in matrix units (expected) or in distance\n"
    "units (euclid), the merged length and the time.\n";

typedef struct profile_args {
    const char *path_a, *path_b, *out_path, *map_path, *matrix, *pairs_path;
    int format; /* 0: aligned FASTA, 1: Clustal (sw_merged_write) */
    sw_profile_score kind;
    long gap_open, gap_extend, threads, gpu;
    int open_given, quiet, weighted, device;
} profile_args;

static int parse_args(int argc, char **argv, profile_args *a)
{
    enum { OPT_MATRIX = 256, OPT_GAP_OPEN, OPT_GAP_EXTEND, OPT_MAP, OPT_PAIRS, OPT_DEVICE, OPT_GPU };
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},       {"format", required_argument, NULL, 'f'},
        {"score", required_argument, NULL, 's'},     {"matrix", required_argument, NULL, OPT_MATRIX},
        {"gap-open", required_argument, NULL, OPT_GAP_OPEN},
        {"gap-extend", required_argument, NULL, OPT_GAP_EXTEND},
        {"map", required_argument, NULL, OPT_MAP},   {"quiet", no_argument, NULL, 'q'},
        {"threads", required_argument, NULL, 't'},  {"pairs", required_argument, NULL, OPT_PAIRS},
        {"weights", required_argument, NULL, 'w'},   {"device", required_argument, NULL, OPT_DEVICE},
        {"gpu", required_argument, NULL, OPT_GPU},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->matrix = CLI_DEFAULT_MATRIX;
    a->gap_open = CLI_DEFAULT_GAP_OPEN;
    a->gap_extend = CLI_DEFAULT_GAP_EXTEND;
    opterr = 0;
    optind = 1;
    int c;
    cli_options_seen seen = {{0}};
    while ((c = getopt_long(argc, argv, ":o:f:s:t:w:qh", longopts, NULL)) != -1) {
        if (cli_option_once(&seen, c, longopts)) return CLI_EXIT_USAGE;
        switch (c) {
        case 'o': a->out_path = optarg; break;
        case 'f': {
            static const cli_choice formats[] = {{"fasta", 0},
                                                 {"clustal", 1},
                                                 {NULL, 0}};
            int v;
            if (cli_parse_choice("--format", optarg, formats, &v)) return CLI_EXIT_USAGE;
            a->format = v;
            break;
        }
        case 's': {
            static const cli_choice kinds[] = {{"expected", SW_PROFILE_SCORE_EXPECTED},
                                               {"euclid", SW_PROFILE_SCORE_EUCLID},
                                               {NULL, 0}};
            int v;
            if (cli_parse_choice("--score", optarg, kinds, &v)) return CLI_EXIT_USAGE;
            a->kind = (sw_profile_score)v;
            break;
        }
        case OPT_MATRIX: a->matrix = optarg; break;
        case OPT_GAP_OPEN:
            if (cli_parse_gap_open(optarg, &a->gap_open)) return CLI_EXIT_USAGE;
            a->open_given = 1;
            break;
        case OPT_GAP_EXTEND:
            if (cli_parse_gap_extend(optarg, &a->gap_extend)) return CLI_EXIT_USAGE;
            break;
        case OPT_MAP: a->map_path = optarg; break;
        case OPT_PAIRS: a->pairs_path = optarg; break;
        case OPT_DEVICE:
            if (cli_parse_choice("--device", optarg, cli_device_choices, &a->device)) return CLI_EXIT_USAGE;
            break;
        case OPT_GPU:
            if (cli_parse_long("--gpu", optarg, 0, 1023, &a->gpu)) return CLI_EXIT_USAGE;
            break;
        case 'w': {
            static const cli_choice weights[] = {{"none", 0}, {"henikoff", 1}, {NULL, 0}};
            if (cli_parse_choice("--weights", optarg, weights, &a->weighted)) return CLI_EXIT_USAGE;
            break;
        }
        case 't':
            if (cli_parse_long("--threads", optarg, 1, 4096, &a->threads)) return CLI_EXIT_USAGE;
            break;
        case 'q': a->quiet = 1; break;
        case 'h': fputs(help, stdout); return -1;
        default: return cli_option_error(c, argv, "profile");
        }
    }
    if (a->kind == SW_PROFILE_SCORE_EUCLID && !a->open_given) a->gap_open = 0;
    if (a->pairs_path) {
        if (argc - optind != 0 || a->out_path || a->map_path) {
            cli_error("--pairs names the inputs and outputs of every pair: it takes no files, -o or --map");
            return CLI_EXIT_USAGE;
        }
        return CLI_EXIT_OK;
    }
    if (argc - optind != 2) {
        cli_error("profile needs two aligned FASTA files, not %d; see 'swsearch profile --help'", argc - optind);
        return CLI_EXIT_USAGE;
    }
    a->path_a = argv[optind];
    a->path_b = argv[optind + 1];
    return CLI_EXIT_OK;
}

/* One pair of a --pairs list. */
typedef struct pair_job {
    char *a, *b, *out;
    unsigned long line;
} pair_job;

typedef struct batch {
    const profile_args *args;
    pair_job *jobs;
    size_t count;
} batch;

/* Reads LIST: every line "A B OUT". */
static int read_pairs(const char *path, pair_job **out, size_t *count, sw_error *err)
{
    *out = NULL;
    *count = 0;
    FILE *f = fopen(path, "r");
    if (!f) return sw_error_set(err, SW_EIO, "%s: %s", path, strerror(errno));
    size_t cap = 0;
    pair_job *jobs = NULL;
    char *line = NULL;
    size_t line_cap = 0;
    unsigned long number = 0;
    int rc = SW_OK;
    while (getline(&line, &line_cap, f) >= 0) {
        ++number;
        char *save = NULL, *word[4];
        int words = 0;
        for (char *w = strtok_r(line, " \t\r\n", &save); w && words < 4; w = strtok_r(NULL, " \t\r\n", &save))
            word[words++] = w;
        if (words == 0 || word[0][0] == '#') continue;
        if (words != 3) {
            rc = sw_error_set(err, SW_EFORMAT, "%s:%lu: expected 'A.afa B.afa OUT', %s", path, number,
                              words < 3 ? "too few paths" : "more than three paths");
            break;
        }
        if (*count == cap) {
            cap = cap ? 2 * cap : 64;
            pair_job *grown = realloc(jobs, cap * sizeof *grown);
            if (!grown) {
                rc = sw_error_set(err, SW_ENOMEM, "out of memory");
                break;
            }
            jobs = grown;
        }
        pair_job *j = &jobs[(*count)++];
        j->a = strdup(word[0]);
        j->b = strdup(word[1]);
        j->out = strdup(word[2]);
        j->line = number;
        if (!j->a || !j->b || !j->out) {
            rc = sw_error_set(err, SW_ENOMEM, "out of memory");
            break;
        }
    }
    if (!rc && ferror(f)) rc = sw_error_set(err, SW_EIO, "%s: %s", path, strerror(errno));
    if (!rc && *count == 0) rc = sw_error_set(err, SW_EFORMAT, "%s: no pairs", path);
    free(line);
    fclose(f);
    *out = jobs;
    return rc;
}

static void free_pairs(pair_job *jobs, size_t count)
{
    for (size_t k = 0; k < count; ++k) {
        free(jobs[k].a);
        free(jobs[k].b);
        free(jobs[k].out);
    }
    free(jobs);
}

/* The file an output path names, for comparing the outputs of pairs: the
 * real path of an existing file (a link's target: what is replaced), else
 * of its folder with the name appended, else the path as given. "-" is
 * standard output, whatever is in the working folder. */
static char *output_identity(const char *path)
{
    if (!strcmp(path, "-")) return strdup(path);
    char *real = realpath(path, NULL);
    if (real) return real;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    char *real_dir = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (!real_dir) return strdup(path);
    const size_t n = strlen(real_dir) + strlen(base) + 2;
    char *id = malloc(n);
    if (id) snprintf(id, n, "%s/%s", strcmp(real_dir, "/") ? real_dir : "", base);
    free(real_dir);
    return id;
}

typedef struct output_of {
    char *id;
    size_t job;
} output_of;

static int by_identity_then_line(const void *x, const void *y)
{
    const output_of *a = x, *b = y;
    const int c = strcmp(a->id, b->id);
    return c ? c : (a->job > b->job) - (a->job < b->job);
}

/* Two pairs that write one file would leave only the merge that finished
 * last: refused before any pair runs, naming the list's first line whose
 * output an earlier line already writes. */
static int distinct_outputs(const char *list, const pair_job *jobs, size_t count, sw_error *err)
{
    output_of *o = calloc(count, sizeof *o);
    int rc = o ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory for %zu pairs", count);
    for (size_t k = 0; !rc && k < count; ++k) {
        o[k] = (output_of){output_identity(jobs[k].out), k};
        if (!o[k].id) rc = sw_error_set(err, SW_ENOMEM, "out of memory for %zu pairs", count);
    }
    if (!rc) {
        qsort(o, count, sizeof *o, by_identity_then_line);
        /* In each run of one file, sorted by line, the first two lines
         * clash; of all such clashes, the one whose second line comes first. */
        size_t first = 0, second = count;
        for (size_t k = 1; k < count; ++k)
            if (!strcmp(o[k].id, o[k - 1].id) && (k == 1 || strcmp(o[k - 1].id, o[k - 2].id)) &&
                o[k].job < second) {
                first = o[k - 1].job;
                second = o[k].job;
            }
        if (second < count) {
            const int same_name = !strcmp(jobs[first].out, jobs[second].out);
            rc = sw_error_set(err, SW_EINVAL,
                              "%s:%lu: output %s is also the output of line %lu%s%s%s: every pair needs a file of "
                              "its own",
                              list, jobs[second].line, jobs[second].out, jobs[first].line, same_name ? "" : " (",
                              same_name ? "" : jobs[first].out, same_name ? "" : ")");
        }
    }
    for (size_t k = 0; o && k < count; ++k) free(o[k].id);
    free(o);
    return rc;
}

/* Writes a pair's merge into its output, on one of the library's threads;
 * the output appears only on success. */
static int write_pair(void *user, size_t k, const sw_merged *m, sw_error *err)
{
    const batch *bt = user;
    const pair_job *j = &bt->jobs[k];
    cli_output out = {0};
    const cli_input inputs[] = {{"an input alignment", j->a, NULL}, {"an input alignment", j->b, NULL}};
    int rc = cli_output_open(&out, j->out, inputs, 2, err);
    if (!rc && !(rc = sw_merged_write(m, bt->args->format, out.file, err))) rc = cli_output_commit(&out, err);
    if (rc) cli_output_abort(&out);
    return rc;
}

/* --matrix, named in the message when it is no protein matrix. */
static int set_matrix(sw_profile_aligner *aligner, const char *matrix, sw_error *err)
{
    int rc = sw_profile_aligner_set_matrix(aligner, matrix, err);
    if (rc == SW_EINVAL && err) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        rc = sw_error_set(err, rc, "--matrix %s", why);
    }
    return rc;
}

/* The settings every pair shares, from the command line. */
static int make_aligner(const profile_args *a, sw_profile_aligner **out, sw_error *err)
{
    sw_profile_aligner *aligner = NULL;
    int rc;
    (void)((rc = sw_profile_aligner_create(&aligner, err)) ||
           (rc = sw_profile_aligner_set_score(aligner, a->kind, err)) ||
           (rc = set_matrix(aligner, a->matrix, err)) ||
           (rc = sw_profile_aligner_set_gap_costs(aligner, (int)a->gap_open, (int)a->gap_extend, err)) ||
           (rc = sw_profile_aligner_set_weights(aligner, a->weighted, err)) ||
           (rc = sw_profile_aligner_set_device(aligner, (sw_device)a->device, err)) ||
           (rc = sw_profile_aligner_set_gpu(aligner, (int)a->gpu, err)) ||
           (rc = sw_profile_aligner_set_threads(aligner, (int)a->threads, err)));
    if (rc) {
        sw_profile_aligner_free(aligner);
        aligner = NULL;
    }
    *out = aligner;
    return rc;
}

static int run_pairs(const profile_args *a)
{
    sw_error err;
    sw_error_clear(&err);
    sw_profile_aligner *aligner = NULL;
    pair_job *jobs = NULL;
    size_t count = 0;
    const char **paths = NULL;
    char **names = NULL;
    int rc = read_pairs(a->pairs_path, &jobs, &count, &err);
    if (!rc) rc = distinct_outputs(a->pairs_path, jobs, count, &err);
    if (!rc) rc = make_aligner(a, &aligner, &err);
    /* Each output in flight holds a cleanup slot. */
    int threads = a->threads > 0 ? (int)a->threads : sw_clock_online_cpus();
    if (threads > SW_CLEANUP_MAX_PATHS / 2) threads = SW_CLEANUP_MAX_PATHS / 2;
    if (!rc) rc = sw_profile_aligner_set_threads(aligner, threads, &err);
    if (!rc && (!(paths = calloc(2 * (count ? count : 1), sizeof *paths)) ||
                !(names = calloc(count ? count : 1, sizeof *names))))
        rc = sw_error_set(&err, SW_ENOMEM, "out of memory");
    for (size_t k = 0; !rc && k < count; k++) {
        paths[k] = jobs[k].a;
        paths[count + k] = jobs[k].b;
        /* A pair's failure is named by the list's file and line. */
        size_t n = strlen(a->pairs_path) + 24;
        if (!(names[k] = malloc(n))) rc = sw_error_set(&err, SW_ENOMEM, "out of memory");
        else snprintf(names[k], n, "%s:%lu", a->pairs_path, jobs[k].line);
    }
    batch bt = {a, jobs, count};
    sw_pairs_info info = {0};
    const double t0 = sw_clock_seconds();
    if (!rc)
        rc = sw_profile_aligner_run_pairs(aligner, count, paths, paths + count, (const char *const *)names, write_pair,
                                          &bt, &info, &err);
    const double seconds = sw_clock_seconds() - t0;
    char where[64];
    if (info.on_gpu) snprintf(where, sizeof where, "GPU %ld", a->gpu);
    else snprintf(where, sizeof where, "%d CPU thread%s", info.threads ? info.threads : 1, info.threads > 1 ? "s" : "");
    if (rc) cli_error("%s", err.message[0] ? err.message : sw_strerror(rc));
    else if (!a->quiet)
        fprintf(stderr, "swsearch: profile: %zu pairs, %.3e cells in %.3f s on %s (%.3f GCUPS)\n", count,
                (double)info.cells, seconds, where, seconds > 0 ? (double)info.cells / seconds / 1e9 : 0.0);
    for (size_t k = 0; names && k < count; k++) free(names[k]);
    free(names);
    free(paths);
    free_pairs(jobs, count);
    sw_profile_aligner_free(aligner);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}

int cli_profile(int argc, char **argv)
{
    profile_args a;
    int status = parse_args(argc, argv, &a);
    if (status) return status < 0 ? CLI_EXIT_OK : status;
    if (a.pairs_path) return run_pairs(&a);
    sw_error err;
    sw_error_clear(&err);
    /* One pair through the public API (include/swsearch.h). */
    sw_profile_aligner *aligner = NULL;
    sw_merged *merged = NULL;
    cli_output out = {0}, map = {0};
    int rc;
    if ((rc = make_aligner(&a, &aligner, &err))) goto done;
    /* Outputs open before the long computation, so a bad path fails early. */
    const cli_input inputs[] = {{"an input alignment", a.path_a, NULL}, {"an input alignment", a.path_b, NULL}};
    if ((rc = cli_output_open(&out, a.out_path, inputs, 2, &err))) goto done;
    if (a.map_path) {
        if (a.out_path && !strcmp(a.map_path, a.out_path)) {
            rc = sw_error_set(&err, SW_EINVAL, "--map %s: the same file as -o", a.map_path);
            goto done;
        }
        if ((rc = cli_output_open_option(&map, "--map", a.map_path, inputs, 2, &err))) goto done;
    }
    const double t0 = sw_clock_seconds();
    if ((rc = sw_profile_aligner_run(aligner, a.path_a, a.path_b, &merged, &err))) goto done;
    const double seconds = sw_clock_seconds() - t0;
    sw_merged_info info;
    if ((rc = sw_merged_get_info(merged, &info, &err)) || (rc = sw_merged_write(merged, a.format, out.file, &err)))
        goto done;
    if (a.map_path) {
        if ((rc = sw_merged_write_map(merged, map.file, &err)) || (rc = cli_output_commit(&map, &err))) goto done;
    }
    if ((rc = cli_output_commit(&out, &err))) goto done;
    if (!a.quiet) {
        const double cells = (double)info.a_columns * (double)info.b_columns;
        fprintf(stderr,
                "swsearch: profile: %zu x %zu columns (%zu and %zu rows): score %lld (%.4f in %s units), %zu merged "
                "columns; %.3f s on %s (%.3f GCUPS)\n",
                info.a_columns, info.b_columns, info.a_rows, info.b_rows, (long long)info.score, info.units,
                a.kind == SW_PROFILE_SCORE_EXPECTED ? "matrix" : "distance", info.columns, seconds, info.engine,
                seconds > 0 ? cells / seconds / 1e9 : 0.0);
    }

done:
    if (rc) {
        cli_output_abort(&out);
        cli_output_abort(&map);
        cli_error("%s", err.message[0] ? err.message : sw_strerror(rc));
    }
    sw_merged_free(merged);
    sw_profile_aligner_free(aligner);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
