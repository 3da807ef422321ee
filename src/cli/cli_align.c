/* swsearch align: the best local alignment of two long DNA sequences, with
 * its score and coordinates as TSV or JSON, and on request the alignment
 * itself (TSV and JSON columns, PAF, MAF, a text window, an SVG picture). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "cli_output.h"
#include "sw_clock.h"
#include "sw_parse.h"
#include "sw_progress.h"
#include "swsearch.h"

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
    "      --match M       score of two equal bases among A, C, G, T (default " CLI_TEXT(SW_ALIGN_DEFAULT_MATCH) ")\n"
    "      --mismatch X    score of any other pair, zero or less (default " CLI_TEXT(SW_ALIGN_DEFAULT_MISMATCH) ")\n"
    "      --gap-open G    gap open penalty (default " CLI_TEXT(SW_ALIGN_DEFAULT_GAP_OPEN) ")\n"
    "      --gap-extend E  gap extension penalty (default " CLI_TEXT(SW_ALIGN_DEFAULT_GAP_EXTEND) "); a gap of k bases\n"
    "                      costs G + k*E, so the defaults charge 5 for the first\n"
    "                      base and 2 for each further one: the scores of the\n"
    "                      CUDAlign papers (+1, -3, -5, -2)\n"
    "  -t, --threads T     CPU engine threads (default: all cores)\n"
    "      --gpu ID        CUDA device number (default 0)\n"
    "      --gpus N        GPU engines: the forward pass on GPUs ID .. ID + N - 1\n"
    "                      of this machine (default 1): the cudalign engine cuts\n"
    "                      it into N column strips that run at once, each\n"
    "                      starting on the rows its left neighbour has done;\n"
    "                      the overlap engine into N row slices\n"
    "      --split S       with --gpus or under mpirun: columns (default) or\n"
    "                      rows, the forward pass in row slices instead (exact:\n"
    "                      slices whose row above changes are recomputed)\n"
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
    struct {
        int match, mismatch, gap_open, gap_extend;
    } scoring;
    sw_align_engine engine;
    long threads, gpu;
    int gpu_given;
    sw_align_format format;
    int quiet, progress, no_pruning;
    long best, gpus;
    int row_slices;
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
    if (sw_parse_long(from, 1, (long)SW_ALIGN_MAX_LENGTH, &f) || sw_parse_long(colon + 1, 1, (long)SW_ALIGN_MAX_LENGTH, &t) ||
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
           OPT_VIEW, OPT_PLOT, OPT_SPLIT };
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
        {"plot", required_argument, NULL, OPT_PLOT},  {"split", required_argument, NULL, OPT_SPLIT},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->scoring.match = SW_ALIGN_DEFAULT_MATCH;
    a->scoring.mismatch = SW_ALIGN_DEFAULT_MISMATCH;
    a->scoring.gap_open = SW_ALIGN_DEFAULT_GAP_OPEN;
    a->scoring.gap_extend = SW_ALIGN_DEFAULT_GAP_EXTEND;
    a->engine = SW_ALIGN_ENGINE_AUTO;
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
            static const cli_choice engines[] = {{"auto", SW_ALIGN_ENGINE_AUTO},
                                                 {"cpu", SW_ALIGN_ENGINE_CPU},
                                                 {"cudalign", SW_ALIGN_ENGINE_CUDALIGN},
                                                 {"overlap", SW_ALIGN_ENGINE_OVERLAP},
                                                 {NULL, 0}};
            int v;
            if (cli_parse_choice("--engine", optarg, engines, &v)) return CLI_EXIT_USAGE;
            a->engine = (sw_align_engine)v;
            break;
        }
        case OPT_MATCH:
            if (parse_score("--match", optarg, 1, SW_ALIGN_MAX_SCORE, "a positive score", &a->scoring.match))
                return CLI_EXIT_USAGE;
            break;
        case OPT_MISMATCH:
            if (parse_score("--mismatch", optarg, -SW_ALIGN_MAX_GAP, 0, "a score of zero or less",
                            &a->scoring.mismatch))
                return CLI_EXIT_USAGE;
            break;
        case OPT_GAP_OPEN:
            if (parse_score("--gap-open", optarg, 0, SW_ALIGN_MAX_GAP - 1, "a penalty of zero or more",
                            &a->scoring.gap_open))
                return CLI_EXIT_USAGE;
            break;
        case OPT_GAP_EXTEND:
            if (parse_score("--gap-extend", optarg, 1, SW_ALIGN_MAX_GAP, "a positive penalty",
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
            static const cli_choice formats[] = {{"tsv", SW_ALIGN_FORMAT_TSV},
                                                 {"json", SW_ALIGN_FORMAT_JSON},
                                                 {"paf", SW_ALIGN_FORMAT_PAF},
                                                 {"maf", SW_ALIGN_FORMAT_MAF},
                                                 {NULL, 0}};
            int v;
            if (cli_parse_choice("--format", optarg, formats, &v)) return CLI_EXIT_USAGE;
            a->format = (sw_align_format)v;
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
        case OPT_SPLIT:
            if (!strcmp(optarg, "columns")) a->row_slices = 0;
            else if (!strcmp(optarg, "rows")) a->row_slices = 1;
            else {
                fprintf(stderr, "swsearch align: --split: '%s' is not columns or rows\n", optarg);
                return CLI_EXIT_USAGE;
            }
            break;
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
    /* PAF and MAF are made of the alignment itself, as the view and the plot are. */
    if (a->format == SW_ALIGN_FORMAT_PAF || a->format == SW_ALIGN_FORMAT_MAF || a->view || a->plot_path)
        a->alignment = 1;
    a->path_a = argv[optind];
    a->path_b = files == 2 ? argv[optind + 1] : NULL;
    if (a->progress < 0) a->progress = !a->quiet && isatty(STDERR_FILENO);
    return CLI_EXIT_OK;
}

/* Progress of the two passes and of the alignment itself (the aligner's
 * pass 3). On a terminal one line is redrawn in place; elsewhere (a log file
 * under --progress) a line is appended now and then. */
typedef struct align_progress {
    int tty;
    int paths; /* pass 3 has begun */
    /* Its clock restarts when pass 2 begins, which is when pass 1 ends:
     * the call for pass 1 with done == total; and when pass 3 begins. */
    sw_progress line;
} align_progress;

static void format_duration(char *dst, size_t cap, double s)
{
    if (s < 120) snprintf(dst, cap, "%.0f s", s);
    else if (s < 2 * 3600) snprintf(dst, cap, "%.0f min", s / 60);
    else snprintf(dst, cap, "%.1f h", s / 3600);
}

static void draw_path_progress(align_progress *p, uint64_t done, uint64_t total)
{
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

static void draw_progress(void *user, int pass, uint64_t done, uint64_t total)
{
    align_progress *p = user;
    if (pass == 3) {
        if (!p->paths) {
            /* The passes' line goes; the clock restarts for the alignment. */
            p->paths = 1;
            sw_progress_end(&p->line);
            sw_progress_restart(&p->line);
        }
        draw_path_progress(p, done, total);
        return;
    }
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

static void print_summary(const sw_aligned_stats *r)
{
    /* The overlap engine computes some cells more than once; the forward
     * pass covers the whole matrix either way. */
    const uint64_t forward = r->x_length * r->y_length;
    const uint64_t cells = forward + r->start_cells + r->start_pruned;
    const double seconds = r->forward_seconds + r->start_seconds;
    const int processes = r->processes, gpus = r->gpus;
    fprintf(stderr, "swsearch: %s engine: ", sw_align_engine_name(r->engine));
    print_pass("forward", forward, r->forward_pruned, r->forward_seconds);
    if (r->strips > 0)
        fprintf(stderr, " [%d %s, %d column strip%s]", processes > 1 ? processes : gpus,
                processes > 1 ? "processes" : "GPUs", r->strips, r->strips == 1 ? "" : "s");
    else if (processes > 1 || gpus > 1)
        fprintf(stderr, " [%d %s, %d recomputation round%s, %lld slice%s recomputed]", processes > 1 ? processes : gpus,
                processes > 1 ? "processes" : "GPUs", r->rounds, r->rounds == 1 ? "" : "s", (long long)r->recomputed,
                r->recomputed == 1 ? "" : "s");
    else if (r->engine == SW_ALIGN_ENGINE_OVERLAP)
        fprintf(stderr, " [%lld chunks, %d recomputation round%s, %lld chunk%s recomputed]", (long long)r->chunks,
                r->rounds, r->rounds == 1 ? "" : "s", (long long)r->recomputed, r->recomputed == 1 ? "" : "s");
    /* With score 0 there is no alignment whose start the second pass could
     * look for. */
    if (r->found > 0)
        print_pass(r->engine == SW_ALIGN_ENGINE_OVERLAP ? ", start (cudalign)" : ", start",
                   r->start_cells + r->start_pruned, r->start_pruned, r->start_seconds);
    else fputs(", no start pass (nothing aligns)", stderr);
    fprintf(stderr, "; %.3e cells in %.3f s, %.2f GCUPS\n", (double)cells, seconds, gcups(cells, seconds));
}

/* The aligner with the command's settings; the GPUs ID .. ID + N - 1. */
static int configure(sw_aligner *al, const align_args *a, sw_error *err)
{
    int gpus[64];
    for (long k = 0; k < a->gpus; ++k) gpus[k] = (int)(a->gpu + k);
    int rc;
    if ((rc = sw_aligner_set_scores(al, a->scoring.match, a->scoring.mismatch, a->scoring.gap_open,
                                    a->scoring.gap_extend, err)) ||
        (rc = sw_aligner_set_engine(al, a->engine, err)) || (rc = sw_aligner_set_threads(al, (int)a->threads, err)) ||
        (rc = sw_aligner_set_gpus(al, gpus, (int)a->gpus, err)) || (rc = sw_aligner_set_best(al, (int)a->best, err)) ||
        (rc = sw_aligner_set_path(al, a->alignment, err)) || (rc = sw_aligner_set_pruning(al, !a->no_pruning, err)) ||
        (rc = sw_aligner_set_gpu_split(al, a->row_slices ? SW_ALIGN_SPLIT_ROWS : SW_ALIGN_SPLIT_COLUMNS, err)))
        return rc;
    return sw_aligner_set_messages(al, cli_warn, NULL, err);
}

int cli_align(int argc, char **argv)
{
    align_args a;
    int status = parse_args(argc, argv, &a);
    if (status) return status < 0 ? CLI_EXIT_OK : status;

    sw_error err;
    sw_error_clear(&err);
    sw_aligner *al = NULL;
    sw_aligned *result = NULL;
    cli_output out = {0}, plot = {0};
    int rc, rank = 0, ranks = 1, local_rank = 0;
    /* Under mpirun every rank reads both sequences and computes a slice of
     * the rows of the first; rank 0 alone writes the result. */
    if ((rc = sw_aligner_create(&al, &err)) || (rc = sw_aligner_set_mpi(al, 1, &err)) ||
        (rc = sw_aligner_get_rank(al, &rank, &ranks, &local_rank, &err)))
        goto done;
    if (ranks > 1) {
        if (rank != 0) {
            a.quiet = 1;
            a.progress = 0;
        }
        if (!a.gpu_given) a.gpu = local_rank;
        if (a.best > 1) {
            rc = sw_error_set(&err, SW_EINVAL, "--best runs in one process, not under mpirun with %d processes", ranks);
            goto done;
        }
    }
    if ((rc = configure(al, &a, &err))) goto done;
    rc = sw_aligner_read_files(al, a.path_a, a.path_b, &err);
    /* Open the output before the long computation, so a bad path fails early. */
    if (!rc && rank == 0) {
        const cli_input inputs[] = {{"the input", a.path_a, NULL}, {"the input", a.path_b, NULL}};
        rc = cli_output_open(&out, a.out_path, inputs, 2, &err);
        if (!rc && a.plot_path) {
            if (!a.plot_path[0]) rc = sw_error_set(&err, SW_EINVAL, "--plot needs a file name");
            else if (a.out_path && !strcmp(a.plot_path, a.out_path))
                rc = sw_error_set(&err, SW_EINVAL, "--plot %s: the same file as -o", a.plot_path);
            else if (sw_align_plot_format_of(a.plot_path) == SW_ALIGN_PLOT_PNG && !sw_align_png_supported())
                rc = sw_error_set(&err, SW_EINVAL,
                                  "--plot %s: this build writes no PNG (libpng was not found when it was built); "
                                  "name an .svg file",
                                  a.plot_path);
            else rc = cli_output_open_option(&plot, "--plot", a.plot_path, inputs, 2, &err);
        }
        const char *a_id = NULL;
        uint64_t a_length = 0;
        if (!rc && a.view && !(rc = sw_aligner_get_sequence(al, 0, &a_id, &a_length, &err)) && a.view_from > a_length)
            rc = sw_error_set(&err, SW_EINVAL, "--view %llu:%llu: %s has %llu bases", (unsigned long long)a.view_from,
                              (unsigned long long)a.view_to, a_id, (unsigned long long)a_length);
    }
    if ((rc = sw_aligner_agree(al, rc, &err))) goto done;

    /* On a terminal the aligner throttles the calls; elsewhere a line every 10 s. */
    align_progress progress = {.tty = isatty(STDERR_FILENO)};
    const sw_progress_style style = progress.tty
                                        ? (sw_progress_style){.tail = "\033[K", .redraw = 1}
                                        : (sw_progress_style){.prefix = "swsearch: ", .interval = 10};
    sw_progress_init(&progress.line, stderr, &style);
    if (a.progress &&
        (rc = sw_aligner_set_progress(al, draw_progress, &progress, progress.tty ? 1.0 : 2.0, &err)))
        goto done;
    const double t0 = sw_clock_seconds();
    /* The passes, then on rank 0 the alignments themselves, each checked by
     * re-scoring. */
    rc = sw_aligner_align(al, &result, &err);
    if (a.progress) sw_progress_end(&progress.line);
    if (rc || rank != 0) goto done;
    sw_aligned_stats st;
    if ((rc = sw_aligned_get_stats(result, &st, &err))) goto done;
    if (a.view) rc = sw_aligned_write_view(result, a.view_from, a.view_to, out.file, &err);
    else rc = sw_aligned_write(result, a.format, out.file, &err);
    if (rc) goto done;
    if (a.plot_path) {
        rc = sw_aligned_write_plot(result, sw_align_plot_format_of(a.plot_path), plot.file, &err);
        if ((rc = cli_output_check(&plot, rc, &err)) || (rc = cli_output_commit(&plot, &err))) goto done;
    }
    if ((rc = cli_output_check(&out, SW_OK, &err)) || (rc = cli_output_commit(&out, &err))) goto done;
    if (!a.quiet) {
        print_summary(&st);
        sw_aligned_info best;
        if (a.alignment && st.found && !(rc = sw_aligned_get(result, 0, &best, &err))) {
            fprintf(stderr,
                    "swsearch: alignment: %llu columns, %llu matches, %llu mismatches, %llu gap openings, %llu gap "
                    "bases, identity %.2f%%; %s found in %.3f s (%.3e cells computed, %.2f G a second",
                    (unsigned long long)best.columns, (unsigned long long)best.matches,
                    (unsigned long long)best.mismatches, (unsigned long long)best.gap_openings,
                    (unsigned long long)best.gap_bases, best.identity,
                    st.found > 1 ? "all alignments" : "the alignment", st.path_seconds, (double)st.path_cells,
                    gcups(st.path_cells, st.path_seconds));
            if (st.path_gpu_passes)
                fprintf(stderr, "; %.3e of them in %llu passes on the GPU, busy %.3f s", (double)st.path_gpu_cells,
                        (unsigned long long)st.path_gpu_passes, st.path_gpu_seconds);
            fprintf(stderr, ")\n");
        }
        if (a.best > 1)
            fprintf(stderr, "swsearch: best %ld: %d alignment%s in %.3f s (%d forward pass%s)\n", a.best, st.found,
                    st.found == 1 ? "" : "s", sw_clock_seconds() - t0, st.passes, st.passes == 1 ? "" : "es");
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
    sw_aligned_free(result);
    /* Leaves the MPI job, after the others' last words. */
    sw_aligner_free(al);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
