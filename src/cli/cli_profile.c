/* swsearch profile: two multiple alignments merged by aligning their
 * profiles; the merged alignment, its score, and on request the column map. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_common.h"
#include "cli_output.h"
#include "sw_clock.h"
#include "sw_matrix.h"
#include "sw_profile_report.h"

static const char help[] =
    "usage: swsearch profile A.afa B.afa [options]\n"
    "\n"
    "Merges two multiple alignments of proteins (aligned FASTA, plain or\n"
    "zstd-compressed; '-' and '.' are gaps) by the best global alignment of\n"
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
    "      --matrix M        substitution matrix for expected (default BLOSUM62;\n"
    "                        a shipped name or a file in NCBI format)\n"
    "      --gap-open G      opening a gap (default 11 for expected, 0 for\n"
    "                        euclid); expected charges it for each residue of\n"
    "                        the first column against the gap\n"
    "      --gap-extend E    expected: each residue against a gap (default 1)\n"
    "  -t, --threads T       threads (default: all cores): tiles of cells in a\n"
    "                        wavefront, the same result as one thread\n"
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
    const char *path_a, *path_b, *out_path, *map_path, *matrix;
    sw_profile_format format;
    sw_profile_kind kind;
    long gap_open, gap_extend, threads;
    int open_given, quiet;
} profile_args;

static int parse_args(int argc, char **argv, profile_args *a)
{
    enum { OPT_MATRIX = 256, OPT_GAP_OPEN, OPT_GAP_EXTEND, OPT_MAP };
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},       {"format", required_argument, NULL, 'f'},
        {"score", required_argument, NULL, 's'},     {"matrix", required_argument, NULL, OPT_MATRIX},
        {"gap-open", required_argument, NULL, OPT_GAP_OPEN},
        {"gap-extend", required_argument, NULL, OPT_GAP_EXTEND},
        {"map", required_argument, NULL, OPT_MAP},   {"quiet", no_argument, NULL, 'q'},
        {"threads", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->matrix = "BLOSUM62";
    a->gap_open = 11;
    a->gap_extend = 1;
    opterr = 0;
    optind = 1;
    int c;
    cli_options_seen seen = {{0}};
    while ((c = getopt_long(argc, argv, ":o:f:s:t:qh", longopts, NULL)) != -1) {
        if (cli_option_once(&seen, c, longopts)) return CLI_EXIT_USAGE;
        switch (c) {
        case 'o': a->out_path = optarg; break;
        case 'f':
            if (!strcmp(optarg, "fasta")) a->format = SW_PROFILE_FASTA;
            else if (!strcmp(optarg, "clustal")) a->format = SW_PROFILE_CLUSTAL;
            else {
                cli_error("--format is 'fasta' or 'clustal', not '%s'", optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case 's':
            if (!strcmp(optarg, "expected")) a->kind = SW_PROFILE_EXPECTED;
            else if (!strcmp(optarg, "euclid")) a->kind = SW_PROFILE_EUCLID;
            else {
                cli_error("--score is 'expected' or 'euclid', not '%s'", optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case OPT_MATRIX: a->matrix = optarg; break;
        case OPT_GAP_OPEN:
            if (cli_parse_long("--gap-open", optarg, 0, 255, &a->gap_open)) return CLI_EXIT_USAGE;
            a->open_given = 1;
            break;
        case OPT_GAP_EXTEND:
            if (cli_parse_long("--gap-extend", optarg, 1, 255, &a->gap_extend)) return CLI_EXIT_USAGE;
            break;
        case OPT_MAP: a->map_path = optarg; break;
        case 't':
            if (cli_parse_long("--threads", optarg, 1, 4096, &a->threads)) return CLI_EXIT_USAGE;
            break;
        case 'q': a->quiet = 1; break;
        case 'h': fputs(help, stdout); return -1;
        case ':':
            cli_error("option '%s' needs a value; see 'swsearch profile --help'", argv[optind - 1]);
            return CLI_EXIT_USAGE;
        default:
            cli_error("unknown option '%s'; see 'swsearch profile --help'", argv[optind - 1]);
            return CLI_EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        cli_error("profile needs two aligned FASTA files, not %d; see 'swsearch profile --help'", argc - optind);
        return CLI_EXIT_USAGE;
    }
    if (a->kind == SW_PROFILE_EUCLID && !a->open_given) a->gap_open = 0;
    a->path_a = argv[optind];
    a->path_b = argv[optind + 1];
    return CLI_EXIT_OK;
}

int cli_profile(int argc, char **argv)
{
    profile_args a;
    int status = parse_args(argc, argv, &a);
    if (status) return status < 0 ? CLI_EXIT_OK : status;
    sw_error err;
    sw_error_clear(&err);
    sw_msa *ma = NULL, *mb = NULL;
    sw_profile *pa = NULL, *pb = NULL;
    sw_matrix *matrix = NULL;
    sw_profile_alignment *x = NULL;
    cli_output out = {0}, map = {0};
    int rc;
    if ((rc = sw_msa_read(a.path_a, &ma, &err)) || (rc = sw_msa_read(a.path_b, &mb, &err)) ||
        (rc = sw_matrix_load(a.matrix, &matrix, &err)))
        goto done;
    if (sw_matrix_alphabet(matrix)->kind != SW_ALPHABET_PROTEIN) {
        rc = sw_error_set(&err, SW_EINVAL, "--matrix %s: not a protein matrix", a.matrix);
        goto done;
    }
    const cli_input inputs[] = {{"an input alignment", a.path_a, NULL}, {"an input alignment", a.path_b, NULL}};
    if ((rc = cli_output_open(&out, a.out_path, inputs, 2, &err))) goto done;
    if (a.map_path) {
        if (a.out_path && !strcmp(a.map_path, a.out_path)) {
            rc = sw_error_set(&err, SW_EINVAL, "--map %s: the same file as -o", a.map_path);
            goto done;
        }
        if ((rc = cli_output_open(&map, a.map_path, inputs, 2, &err))) goto done;
    }
    const double t0 = sw_clock_seconds();
    if ((rc = sw_profile_from_msa(ma, &pa, &err)) || (rc = sw_profile_from_msa(mb, &pb, &err))) goto done;
    const sw_profile_scoring scoring = {a.kind, sw_matrix_table(matrix), (int)a.gap_open, (int)a.gap_extend};
    if ((rc = sw_profile_align_threads(pa, pb, &scoring, (int)a.threads, &x, &err))) goto done;
    const double seconds = sw_clock_seconds() - t0;
    const int threads = a.threads > 0 ? (int)a.threads : sw_clock_online_cpus();
    sw_profile_write_merged(out.file, a.format, ma, mb, x);
    if (a.map_path) {
        sw_profile_write_map(map.file, x);
        if ((rc = cli_output_commit(&map, &err))) goto done;
    }
    if ((rc = cli_output_commit(&out, &err))) goto done;
    if (!a.quiet) {
        const double cells = (double)sw_msa_columns(ma) * (double)sw_msa_columns(mb);
        fprintf(stderr,
                "swsearch: profile: %zu x %zu columns (%zu and %zu rows): score %lld (%.4f in %s units), %zu merged "
                "columns; %.3f s on %d CPU thread%s (%.3f GCUPS)\n",
                sw_msa_columns(ma), sw_msa_columns(mb), sw_msa_rows(ma), sw_msa_rows(mb),
                (long long)sw_profile_alignment_score(x),
                (double)sw_profile_alignment_score(x) / (SW_PROFILE_SCALE * SW_PROFILE_SCALE),
                a.kind == SW_PROFILE_EXPECTED ? "matrix" : "distance", sw_profile_alignment_length(x), seconds,
                threads, threads == 1 ? "" : "s", seconds > 0 ? cells / seconds / 1e9 : 0.0);
    }

done:
    if (rc) {
        cli_output_abort(&out);
        cli_output_abort(&map);
        cli_error("%s", err.message[0] ? err.message : sw_strerror(rc));
    }
    sw_profile_alignment_free(x);
    sw_profile_free(pa);
    sw_profile_free(pb);
    sw_msa_free(ma);
    sw_msa_free(mb);
    sw_matrix_free(matrix);
    return rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
