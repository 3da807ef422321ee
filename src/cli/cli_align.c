/* swsearch align: the best local alignment of two long DNA sequences, with
 * its score and coordinates as TSV or JSON, and on request the alignment
 * itself (TSV and JSON columns, PAF, MAF, a text window, an SVG picture). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "sw_clock.h"
#include "sw_pair.h"
#include "sw_pair_input.h"
#include "sw_pair_mpi.h"
#include "sw_pair_path.h"
#include "sw_pair_plot.h"
#include "sw_pair_report.h"
#include "sw_pair_view.h"
#include "sw_parse.h"
#include "sw_raster.h"

static const char help[] =
    "usage: swsearch align A.fasta [B.fasta] [options]\n"
    "\n"
    "Finds the best local alignment (exact Smith-Waterman, affine gaps) of two\n"
    "DNA sequences of up to 2^31 bases each, in memory linear in their lengths,\n"
    "and writes its score and coordinates. The sequences come from two FASTA\n"
    "files of one record each or from one file of two records (plain or\n"
    "zstd-compressed). A, C, G and T count in either case; N and the other IUPAC\n"
    "codes score as mismatches against everything; any other character is an\n"
    "error.\n"
    "\n"
    "  -e, --engine E      auto (default: with a usable GPU, overlap where one\n"
    "                      sequence is at least 8 times the other, else\n"
    "                      cudalign; without one the CPU engine, with a note),\n"
    "                      cpu, cudalign (GPU wavefront engine) or overlap (GPU\n"
    "                      engine for a short sequence against a long one); the\n"
    "                      GPU engines fail when no GPU is usable\n"
    "      --match M       score of two equal bases among A, C, G, T (default 1)\n"
    "      --mismatch X    score of any other pair, zero or less (default -3)\n"
    "      --gap-open G    gap open penalty (default 3)\n"
    "      --gap-extend E  gap extension penalty (default 2); a gap of k bases\n"
    "                      costs G + k*E, so the defaults charge 5 for the first\n"
    "                      base and 2 for each further one: the scores of the\n"
    "                      CUDAlign papers (+1, -3, -5, -2)\n"
    "  -t, --threads T     CPU engine threads (default: all cores)\n"
    "      --gpu ID        CUDA device number (default 0)\n"
    "      --gpus N        GPU engines: cut the forward pass's rows into N slices\n"
    "                      on GPUs ID .. ID + N - 1 of this machine, one each\n"
    "                      (default 1; exact: slices whose row above changes\n"
    "                      are recomputed)\n"
    "      --no-pruning    GPU engine: compute every cell of the matrix; by default\n"
    "                      it skips the parts where no alignment can reach the\n"
    "                      best score found so far (exact either way)\n"
    "  -k, --best K        the K best alignments that do not overlap (default 1):\n"
    "                      each is the best alignment that uses no pair of\n"
    "                      bases inside the box (start to end in both\n"
    "                      sequences) of a better one; one forward and one\n"
    "                      start pass each\n"
    "  -f, --format F      tsv (default), json, paf or maf (paf and maf give the\n"
    "                      alignment itself, as --alignment does)\n"
    "  -a, --alignment     find the alignment itself, every column of it, in\n"
    "                      memory linear in the lengths (after a GPU engine the\n"
    "                      large pieces on that GPU, the rest on the CPU; for\n"
    "                      related 5 Mbp sequences a third of the two passes'\n"
    "                      time): TSV and JSON add matches,\n"
    "                      mismatches, gap openings, gap bases, identity and\n"
    "                      the CIGAR, and the summary line its counts\n"
    "      --view FROM:TO  write the alignment's columns whose base of the first\n"
    "                      sequence lies in FROM..TO (1-based) as text, in\n"
    "                      blocks of 60, instead of the table\n"
    "      --plot FILE     draw the alignment (with --best, every one) over the\n"
    "                      two sequences into FILE: a PNG picture for a name\n"
    "                      ending in .png, else SVG\n"
    "  -o, --out FILE      write the result to FILE instead of standard output;\n"
    "                      a file appears or is replaced only when the run has\n"
    "                      succeeded (a symlink's target is replaced, its mode\n"
    "                      kept); a device, pipe or /dev/fd/N is written in\n"
    "                      place; an input or a database file is refused\n"
    "      --progress      show progress even when stderr is not a terminal\n"
    "                      (on a terminal it is shown unless -q is given)\n"
    "  -q, --quiet         no progress and no summary line on stderr; warnings\n"
    "                      and errors still show\n"
    "  -h, --help          this help\n"
    "Each option may be given once.\n"
    "\n"
    "TSV: a header line '#a_id b_id score a_start a_end b_start b_end' (tab\n"
    "separated), then one line an alignment, best first. Identifiers are the headers up to the first\n"
    "blank ('seq1' or 'seq2' for a bare '>'). Coordinates are 1-based and\n"
    "inclusive; when no pair of bases scores above zero, the score and every\n"
    "coordinate are 0.\n"
    "JSON: one object with a_id, a_length, b_id, b_length, score, a_start,\n"
    "a_end, b_start, b_end (null when the score is 0), engine (the one that\n"
    "ran), cells (cells computed by both passes), pruned (cells skipped by\n"
    "pruning), seconds (their time) and overlap (the overlap engine's chunks,\n"
    "recomputation rounds and recomputed chunks; null for other engines); with\n"
    "--best, alignments: the list of {score, a_start, a_end, b_start, b_end},\n"
    "best first, the top-level fields being the first's and cells and seconds\n"
    "those of all passes.\n"
    "PAF (minimap2's format, the first sequence as the query): query name,\n"
    "length, start (0-based), end, strand (+), target name, length, start, end,\n"
    "matching bases, alignment columns, mapping quality 255, then tp:A:P,\n"
    "AS:i: the score, NM:i: mismatches plus gap bases, cg:Z: the CIGAR (M a\n"
    "pair of bases, I a base of the first sequence against a gap, D one of the\n"
    "second). MAF: a block an alignment, the first sequence's row first.\n"
    "\n"
    "The first pass over the whole matrix finds the best score and where it\n"
    "ends; the second runs backwards from that end to find where it starts.\n"
    "Unless -q is given, a summary line on stderr tells the engine, the cells\n"
    "and time of each pass and the throughput in GCUPS (billions of matrix\n"
    "cells per second, pruned cells included, as CUDAlign counts them).\n";

typedef struct align_args {
    const char *path_a, *path_b, *out_path;
    sw_pair_scoring scoring;
    sw_pair_engine engine;
    long threads, gpu;
    int gpu_given;
    sw_pair_report_format format;
    int quiet, progress, no_pruning;
    long best, gpus;
    int format_given, alignment;
    const char *plot_path;
    int view;
    uint64_t view_from, view_to;
} align_args;

/* --view FROM:TO: two positions, 1 <= FROM <= TO. */
static int parse_view(const char *text, align_args *a)
{
    const char *colon = strchr(text, ':');
    char from[32];
    long f, t;
    if (!colon || colon == text || (size_t)(colon - text) >= sizeof from) goto bad;
    memcpy(from, text, (size_t)(colon - text));
    from[colon - text] = 0;
    if (sw_parse_long(from, 1, (long)SW_PAIR_MAX_LENGTH, &f) || sw_parse_long(colon + 1, 1, (long)SW_PAIR_MAX_LENGTH, &t) ||
        f > t)
        goto bad;
    a->view = 1;
    a->view_from = (uint64_t)f;
    a->view_to = (uint64_t)t;
    return 0;
bad:
    cli_error("--view needs FROM:TO, two positions of the first sequence with 1 <= FROM <= TO, not '%s'", text);
    return -1;
}

/* Like cli_parse_long, with a message that says what kind of value the
 * option wants, since a sign is the usual mistake with scores. */
static int parse_score(const char *option, const char *text, long min, long max, const char *rule,
                       int *out)
{
    long v;
    if (sw_parse_long(text, min, max, &v) != SW_OK) {
        cli_error("%s needs %s, a whole number from %ld to %ld, not '%s'", option, rule, min, max, text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Returns CLI_EXIT_OK to go on, -1 after --help, or CLI_EXIT_USAGE. */
static int parse_args(int argc, char **argv, align_args *a)
{
    enum { OPT_MATCH = 256, OPT_MISMATCH, OPT_GAP_OPEN, OPT_GAP_EXTEND, OPT_GPU, OPT_PROGRESS, OPT_NO_PRUNING, OPT_GPUS,
           OPT_VIEW, OPT_PLOT };
    static const struct option longopts[] = {
        {"engine", required_argument, NULL, 'e'},   {"match", required_argument, NULL, OPT_MATCH},
        {"mismatch", required_argument, NULL, OPT_MISMATCH},
        {"gap-open", required_argument, NULL, OPT_GAP_OPEN},
        {"gap-extend", required_argument, NULL, OPT_GAP_EXTEND},
        {"threads", required_argument, NULL, 't'},  {"gpu", required_argument, NULL, OPT_GPU},
        {"format", required_argument, NULL, 'f'},   {"out", required_argument, NULL, 'o'},
        {"progress", no_argument, NULL, OPT_PROGRESS}, {"no-pruning", no_argument, NULL, OPT_NO_PRUNING}, {"quiet", no_argument, NULL, 'q'},
        {"best", required_argument, NULL, 'k'},     {"gpus", required_argument, NULL, OPT_GPUS},
        {"alignment", no_argument, NULL, 'a'},      {"view", required_argument, NULL, OPT_VIEW},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    /* CUDAlign's +1, -3 and gaps of -5 for the first base, -2 for each
     * further one, in our convention of open + k * extend. */
    a->scoring = (sw_pair_scoring){.match = 1, .mismatch = -3, .gap_open = 3, .gap_extend = 2};
    a->engine = SW_PAIR_ENGINE_AUTO;
    a->progress = -1;
    a->best = 1;
    a->gpus = 1;
    opterr = 0;
    optind = 1;
    int c;
    cli_options_seen seen = {{0}};
    while ((c = getopt_long(argc, argv, ":e:t:f:o:k:aqh", longopts, NULL)) != -1) {
        if (cli_option_once(&seen, c, longopts)) return CLI_EXIT_USAGE;
        switch (c) {
        case 'e': {
            static const cli_choice engines[] = {{"auto", SW_PAIR_ENGINE_AUTO},
                                                 {"cpu", SW_PAIR_ENGINE_CPU},
                                                 {"cudalign", SW_PAIR_ENGINE_CUDALIGN},
                                                 {"overlap", SW_PAIR_ENGINE_OVERLAP},
                                                 {NULL, 0}};
            int v;
            if (cli_parse_choice("--engine", optarg, engines, &v)) return CLI_EXIT_USAGE;
            a->engine = (sw_pair_engine)v;
            break;
        }
        case OPT_MATCH:
            if (parse_score("--match", optarg, 1, SW_PAIR_MAX_SCORE, "a positive score", &a->scoring.match))
                return CLI_EXIT_USAGE;
            break;
        case OPT_MISMATCH:
            if (parse_score("--mismatch", optarg, -SW_PAIR_MAX_GAP, 0, "a score of zero or less",
                            &a->scoring.mismatch))
                return CLI_EXIT_USAGE;
            break;
        case OPT_GAP_OPEN:
            if (parse_score("--gap-open", optarg, 0, SW_PAIR_MAX_GAP - 1, "a penalty of zero or more",
                            &a->scoring.gap_open))
                return CLI_EXIT_USAGE;
            break;
        case OPT_GAP_EXTEND:
            if (parse_score("--gap-extend", optarg, 1, SW_PAIR_MAX_GAP, "a positive penalty",
                            &a->scoring.gap_extend))
                return CLI_EXIT_USAGE;
            break;
        case 't':
            if (cli_parse_long("--threads", optarg, 1, 4096, &a->threads)) return CLI_EXIT_USAGE;
            break;
        case OPT_GPU:
            if (cli_parse_long("--gpu", optarg, 0, 1023, &a->gpu)) return CLI_EXIT_USAGE;
            a->gpu_given = 1;
            break;
        case 'f': {
            static const cli_choice formats[] = {{"tsv", SW_PAIR_REPORT_TSV},
                                                 {"json", SW_PAIR_REPORT_JSON},
                                                 {"paf", SW_PAIR_REPORT_PAF},
                                                 {"maf", SW_PAIR_REPORT_MAF},
                                                 {NULL, 0}};
            int v;
            if (cli_parse_choice("--format", optarg, formats, &v)) return CLI_EXIT_USAGE;
            a->format = (sw_pair_report_format)v;
            a->format_given = 1;
            break;
        }
        case 'a': a->alignment = 1; break;
        case OPT_VIEW:
            if (parse_view(optarg, a)) return CLI_EXIT_USAGE;
            break;
        case OPT_PLOT: a->plot_path = optarg; break;
        case 'o': a->out_path = optarg; break;
        case OPT_GPUS:
            if (cli_parse_long("--gpus", optarg, 1, 64, &a->gpus)) return CLI_EXIT_USAGE;
            break;
        case 'k':
            if (cli_parse_long("--best", optarg, 1, 100000, &a->best)) return CLI_EXIT_USAGE;
            break;
        case OPT_PROGRESS: a->progress = 1; break;
        case OPT_NO_PRUNING: a->no_pruning = 1; break;
        case 'q': a->quiet = 1; break;
        case 'h': fputs(help, stdout); return -1;
        default: return cli_option_error(c, argv, "align");
        }
    }
    const int files = argc - optind;
    if (files < 1) {
        cli_error("align needs one FASTA file of two sequences or two files of one; see "
                  "'swsearch align --help'");
        return CLI_EXIT_USAGE;
    }
    if (files > 2) {
        cli_error("align takes one FASTA file of two sequences or two files of one, not %d files; see "
                  "'swsearch align --help'",
                  files);
        return CLI_EXIT_USAGE;
    }
    if (a->view && a->format_given) {
        cli_error("--view writes the alignment as text; it takes no --format");
        return CLI_EXIT_USAGE;
    }
    if (sw_pair_report_needs_paths(a->format) || a->view || a->plot_path) a->alignment = 1;
    a->path_a = argv[optind];
    a->path_b = files == 2 ? argv[optind + 1] : NULL;
    if (a->progress < 0) a->progress = !a->quiet && isatty(STDERR_FILENO);
    return CLI_EXIT_OK;
}

/* Progress of the two passes. On a terminal one line is redrawn in place;
 * elsewhere (a log file under --progress) a line is appended now and then. */
typedef struct align_progress {
    int tty;
    /* Its clock restarts when pass 2 begins, which is when pass 1 ends:
     * the call for pass 1 with done == total. */
    sw_progress line;
} align_progress;

static void format_duration(char *dst, size_t cap, double s)
{
    if (s < 120) snprintf(dst, cap, "%.0f s", s);
    else if (s < 2 * 3600) snprintf(dst, cap, "%.0f min", s / 60);
    else snprintf(dst, cap, "%.1f h", s / 3600);
}

static void draw_progress(void *user, int pass, uint64_t done, uint64_t total)
{
    align_progress *p = user;
    if (done >= total) {
        /* Not a line of progress: it neither waits for nor delays one. */
        sw_progress_due(&p->line, 1);
        if (p->tty) sw_progress_end(&p->line);
        else fprintf(stderr, "swsearch: pass %d/2: done in %.1f s\n", pass, sw_progress_elapsed(&p->line));
        sw_progress_restart(&p->line);
        fflush(stderr);
        return;
    }
    if (!sw_progress_due(&p->line, 0)) return;
    const double frac = total ? (double)done / (double)total : 0;
    char left[64] = "";
    if (frac > 0.001) {
        char d[32];
        format_duration(d, sizeof d, sw_progress_left(&p->line, frac));
        /* The second pass stops once it finds the start, so its total, and
         * the time left, are upper bounds. */
        snprintf(left, sizeof left, ", %s%s left", pass == 2 ? "at most " : "", d);
    }
    sw_progress_line(&p->line, "pass %d/2: %.1f%% of %.1e cells%s", pass, 100 * frac, (double)total, left);
}

static void draw_path_progress(void *user, uint64_t done, uint64_t total)
{
    align_progress *p = user;
    if (done >= total || !sw_progress_due(&p->line, 0)) return;
    const double frac = total ? (double)done / (double)total : 0;
    char left[64] = "";
    if (frac > 0.001) {
        char d[32];
        format_duration(d, sizeof d, sw_progress_left(&p->line, frac));
        snprintf(left, sizeof left, ", about %s left", d);
    }
    sw_progress_line(&p->line, "alignment: %.1f%% of about %.1e cells%s", 100 * frac, (double)total, left);
}

static double gcups(uint64_t cells, double seconds)
{
    return seconds > 0 ? (double)cells / seconds / 1e9 : 0.0;
}

/* `swept`: the cells of the pass's matrix that it covered, computed or
 * pruned; GCUPS counts those, as the CUDAlign papers do. */
static void print_pass(const char *name, uint64_t swept, uint64_t pruned, double seconds)
{
    fprintf(stderr, "%s pass %.3e cells", name, (double)swept);
    if (pruned) fprintf(stderr, " (%.1f%% pruned)", 100.0 * (double)pruned / (double)swept);
    fprintf(stderr, " in %.3f s (%.2f GCUPS)", seconds, gcups(swept, seconds));
}

static void print_summary(const sw_pair_result *r, uint64_t a_len, uint64_t b_len, int processes, int gpus)
{
    /* The overlap engine computes some cells more than once; the forward
     * pass covers the whole matrix either way. */
    const uint64_t forward = a_len * b_len;
    const uint64_t cells = forward + r->reverse_cells + r->reverse_pruned;
    const double seconds = r->forward_seconds + r->reverse_seconds;
    fprintf(stderr, "swsearch: %s engine: ", sw_pair_engine_name(r->engine));
    print_pass("forward", forward, r->forward_pruned, r->forward_seconds);
    if (processes > 1 || gpus > 1)
        fprintf(stderr, " [%d %s, %d recomputation round%s, %lld slice%s recomputed]", processes > 1 ? processes : gpus,
                processes > 1 ? "processes" : "GPUs", r->rounds, r->rounds == 1 ? "" : "s", (long long)r->recomputed,
                r->recomputed == 1 ? "" : "s");
    else if (r->engine == SW_PAIR_ENGINE_OVERLAP)
        fprintf(stderr, " [%lld chunks, %d recomputation round%s, %lld chunk%s recomputed]", (long long)r->chunks,
                r->rounds, r->rounds == 1 ? "" : "s", (long long)r->recomputed, r->recomputed == 1 ? "" : "s");
    /* With score 0 there is no alignment whose start the second pass could
     * look for. */
    if (r->score > 0)
        print_pass(r->engine == SW_PAIR_ENGINE_OVERLAP ? ", start (cudalign)" : ", start",
                   r->reverse_cells + r->reverse_pruned, r->reverse_pruned, r->reverse_seconds);
    else fputs(", no start pass (nothing aligns)", stderr);
    fprintf(stderr, "; %.3e cells in %.3f s, %.2f GCUPS\n", (double)cells, seconds, gcups(cells, seconds));
}

int cli_align(int argc, char **argv)
{
    align_args a;
    int status = parse_args(argc, argv, &a);
    if (status) return status < 0 ? CLI_EXIT_OK : status;

    sw_error err;
    sw_error_clear(&err);
    sw_pair_seq seq_a, seq_b;
    memset(&seq_a, 0, sizeof seq_a);
    memset(&seq_b, 0, sizeof seq_b);
    cli_output out = {0}, plot = {0};
    sw_pair_result *results = NULL;
    sw_pair_path **paths = NULL;
    int found = 0;
    sw_pair_mpi *mpi = NULL;
    int rc, rank = 0;
    /* Under mpirun every rank reads both sequences and computes a slice of
     * the rows of the first; rank 0 alone writes the result. */
    if (sw_pair_mpi_launched()) {
        if ((rc = sw_pair_mpi_start(&mpi, &err))) goto done;
        rank = sw_pair_mpi_ops(mpi)->rank;
        if (rank != 0) {
            a.quiet = 1;
            a.progress = 0;
        }
        if (!a.gpu_given) a.gpu = sw_pair_mpi_local_rank(mpi);
        if (!sw_pair_best_allowed((int)a.best, sw_pair_mpi_ops(mpi))) {
            rc = sw_error_set(&err, SW_EINVAL, "--best runs in one process, not under mpirun with %d processes",
                              sw_pair_mpi_ops(mpi)->ranks);
            goto done;
        }
    }
    results = calloc((size_t)a.best, sizeof *results);
    paths = calloc((size_t)a.best, sizeof *paths);
    if (!results || !paths) {
        rc = sw_error_set(&err, SW_ENOMEM, "out of memory for %ld results", a.best);
        goto done;
    }
    rc = sw_pair_read(a.path_a, a.path_b, &seq_a, &seq_b, cli_warn, NULL, &err);
    if (!rc) rc = sw_pair_check_scoring(&a.scoring, seq_a.length, seq_b.length, &err);
    /* Open the output before the long computation, so a bad path fails early. */
    if (!rc && rank == 0) {
        const cli_input inputs[] = {{"the input", a.path_a, NULL}, {"the input", a.path_b, NULL}};
        rc = cli_output_open(&out, a.out_path, inputs, 2, &err);
        if (!rc && a.plot_path) {
            if (!a.plot_path[0]) rc = sw_error_set(&err, SW_EINVAL, "--plot needs a file name");
            else if (a.out_path && !strcmp(a.plot_path, a.out_path))
                rc = sw_error_set(&err, SW_EINVAL, "--plot %s: the same file as -o", a.plot_path);
            else if (sw_pair_plot_format_of(a.plot_path) == SW_PAIR_PLOT_PNG && !sw_raster_png_supported())
                rc = sw_error_set(&err, SW_EINVAL,
                                  "--plot %s: this build writes no PNG (libpng was not found when it was built); "
                                  "name an .svg file",
                                  a.plot_path);
            else rc = cli_output_open_option(&plot, "--plot", a.plot_path, inputs, 2, &err);
        }
        if (!rc && a.view && a.view_from > seq_a.length)
            rc = sw_error_set(&err, SW_EINVAL, "--view %llu:%llu: %s has %llu bases", (unsigned long long)a.view_from,
                              (unsigned long long)a.view_to, seq_a.id, (unsigned long long)seq_a.length);
    }
    if (mpi) rc = sw_pair_split_agree(sw_pair_mpi_ops(mpi), rc, &err);
    if (rc) goto done;

    /* On a terminal sw_pair throttles the calls; elsewhere a line every 10 s. */
    align_progress progress = {.tty = isatty(STDERR_FILENO)};
    const sw_progress_style style = progress.tty
                                        ? (sw_progress_style){.tail = "\033[K", .redraw = 1}
                                        : (sw_progress_style){.prefix = "swsearch: ", .interval = 10};
    sw_progress_init(&progress.line, stderr, &style);
    sw_pair_options opt = {
        .engine = a.engine,
        .threads = (int)a.threads,
        .device = (int)a.gpu,
        .progress = a.progress ? draw_progress : NULL,
        .progress_user = &progress,
        .progress_interval = progress.tty ? 1.0 : 2.0,
        .note = cli_warn,
        .no_pruning = a.no_pruning,
        .slices = mpi ? sw_pair_mpi_ops(mpi) : NULL,
        .gpus = (int)a.gpus,
    };
    const double t0 = sw_clock_seconds();
    if (a.best > 1) {
        rc = sw_pair_align_best(seq_a.codes, seq_a.length, seq_b.codes, seq_b.length, &a.scoring, &opt, (int)a.best,
                                results, &found, &err);
    } else {
        rc = sw_pair_align(seq_a.codes, seq_a.length, seq_b.codes, seq_b.length, &a.scoring, &opt, &results[0], &err);
        found = results[0].score > 0;
    }
    if (a.progress) sw_progress_end(&progress.line);
    if (mpi) rc = sw_pair_split_agree(sw_pair_mpi_ops(mpi), rc, &err);
    if (rc || rank != 0) goto done;
    /* The alignments themselves, each checked by re-scoring. */
    const double t_path = sw_clock_seconds();
    uint64_t path_cells = 0, gpu_cells = 0, gpu_passes = 0;
    double gpu_busy = 0;
    if (a.alignment) {
        sw_progress_restart(&progress.line);
        /* The k-th of --best keeps out of the boxes of the better ones, as
         * its passes did. */
        sw_pair_box *boxes = found > 1 ? malloc((size_t)found * sizeof *boxes) : NULL;
        if (found > 1 && !boxes) {
            rc = sw_error_set(&err, SW_ENOMEM, "out of memory");
            goto done;
        }
        for (int k = 0; k < found && !rc; ++k) {
            /* The splits' passes go where the result's passes went: a
             * GPU engine's result has its large splits done on that GPU. */
            const sw_pair_path_options po = {
                .threads = (int)a.threads,
                .progress = a.progress ? draw_path_progress : NULL,
                .progress_user = &progress,
                .forbidden = boxes,
                .forbidden_count = k,
                .gpu = results[k].engine != SW_PAIR_ENGINE_CPU,
                .gpu_device = (int)a.gpu,
            };
            rc = sw_pair_path_find(seq_a.codes, seq_a.length, seq_b.codes, seq_b.length, &a.scoring, &results[k], &po,
                                   &paths[k], &err);
            if (boxes)
                boxes[k] = (sw_pair_box){results[k].a_start, results[k].a_end, results[k].b_start, results[k].b_end};
            if (!rc) {
                path_cells += sw_pair_path_cells(paths[k]);
                gpu_cells += sw_pair_path_gpu_cells(paths[k]);
                gpu_passes += sw_pair_path_gpu_passes(paths[k]);
                gpu_busy += sw_pair_path_gpu_busy_seconds(paths[k]);
            }
        }
        free(boxes);
        if (a.progress) sw_progress_end(&progress.line);
        if (rc) goto done;
    }
    const double path_seconds = sw_clock_seconds() - t_path;
    const int rounds = found < a.best ? found + 1 : found;
    if (a.view) {
        if (!found) fprintf(out.file, "Nothing aligns: no pair of bases scores above zero.\n");
        for (int k = 0; k < found; ++k) {
            if (k) fputc('\n', out.file);
            sw_pair_view_write(out.file, &seq_a, &seq_b, &results[k], paths[k], a.view_from, a.view_to);
        }
    } else {
        sw_pair_report_write(out.file, a.format, &seq_a, &seq_b, &a.scoring, results,
                             a.alignment ? (const sw_pair_path *const *)paths : NULL, found, rounds, a.best > 1);
    }
    if (a.plot_path) {
        rc = sw_pair_plot_write(plot.file, sw_pair_plot_format_of(a.plot_path), &seq_a, &seq_b, results,
                                (const sw_pair_path *const *)paths, found, &err);
        if ((rc = cli_output_check(&plot, rc, &err)) || (rc = cli_output_commit(&plot, &err))) goto done;
    }
    if ((rc = cli_output_check(&out, SW_OK, &err)) || (rc = cli_output_commit(&out, &err))) goto done;
    if (!a.quiet) {
        print_summary(&results[0], seq_a.length, seq_b.length, mpi ? sw_pair_mpi_ops(mpi)->ranks : 1,
                      results[0].engine != SW_PAIR_ENGINE_CPU ? (int)a.gpus : 1);
        if (a.alignment && found) {
            const sw_pair_path_summary ps = sw_pair_path_get_summary(paths[0]);
            fprintf(stderr,
                    "swsearch: alignment: %llu columns, %llu matches, %llu mismatches, %llu gap openings, %llu gap "
                    "bases, identity %.2f%%; %s found in %.3f s (%.3e cells computed, %.2f G a second",
                    (unsigned long long)ps.columns, (unsigned long long)ps.matches,
                    (unsigned long long)ps.mismatches, (unsigned long long)ps.gap_openings,
                    (unsigned long long)ps.gap_bases, sw_pair_path_identity(&ps),
                    found > 1 ? "all alignments" : "the alignment", path_seconds, (double)path_cells,
                    gcups(path_cells, path_seconds));
            if (gpu_passes)
                fprintf(stderr, "; %.3e of them in %llu passes on the GPU, busy %.3f s", (double)gpu_cells,
                        (unsigned long long)gpu_passes, gpu_busy);
            fprintf(stderr, ")\n");
        }
        if (a.best > 1)
            fprintf(stderr, "swsearch: best %ld: %d alignment%s in %.3f s (%d forward pass%s)\n", a.best, found,
                    found == 1 ? "" : "s", sw_clock_seconds() - t0, rounds, rounds == 1 ? "" : "es");
    }

done:
    if (rc) {
        cli_output_abort(&out);
        cli_output_abort(&plot);
        /* Every rank fails together; rank 0 speaks for them unless its
         * own message is only that another failed. */
        const char *why = err.message[0] ? err.message : sw_strerror(rc);
        if (rank == 0) cli_error("%s", why);
        else if (!strstr(why, "another process")) cli_error("rank %d: %s", rank, why);
    }
    for (int k = 0; paths && k < found; ++k) sw_pair_path_free(paths[k]);
    free(paths);
    free(results);
    sw_pair_seq_free(&seq_a);
    sw_pair_seq_free(&seq_b);
    sw_pair_mpi_end(mpi);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
