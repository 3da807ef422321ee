/* makedb: builds a swsearch database from a FASTA file (plain or zstd)
 * through the public API's sw_db_make, drawing its progress. */
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sw_clock.h"
#include "sw_error.h"
#include "sw_parse.h"
#include "sw_progress.h"
#include "swsearch.h"

#ifndef SW_VERSION
#define SW_VERSION "unknown"
#endif

/* Exit statuses: bad data or a failed build, and a bad command line. */
enum { EXIT_DATA = 1, EXIT_USAGE = 2 };

/* A file with thousands of empty records would bury everything else. */
#define MAX_WARNINGS_SHOWN 20
#define PROGRESS_INTERVAL 0.25

typedef struct makedb {
    int progress;        /* stderr is a terminal and not --quiet */
    sw_progress line;
    double start;
    uint64_t warnings;
} makedb;

static void message(makedb *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void message(makedb *m, const char *fmt, ...)
{
    /* A message starts on a clean line. */
    sw_progress_clear(&m->line);
    va_list ap;
    va_start(ap, fmt);
    fputs("makedb: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Progress lines come at most every PROGRESS_INTERVAL seconds, so that the
 * terminal is not the bottleneck. Reading a pipe counts bytes of no known
 * total. */
static void on_progress(void *user, const char *phase, uint64_t done, uint64_t total)
{
    makedb *m = user;
    if (!m->progress || !sw_progress_due(&m->line, 0)) return;
    if (total)
        sw_progress_line(&m->line, "%s %3.0f%%", phase, 100.0 * (double)done / (double)total);
    else if (!strcmp(phase, "reading"))
        sw_progress_line(&m->line, "%s, %.0f MB so far", phase, (double)done / 1e6);
    else
        sw_progress_line(&m->line, "%s", phase);
}

static void on_warning(void *user, const char *text)
{
    makedb *m = user;
    if (++m->warnings <= MAX_WARNINGS_SHOWN) message(m, "%s", text);
}

static void usage(FILE *out)
{
    fputs("Usage: makedb [options] FASTA DB_PREFIX\n"
          "Builds a swsearch database from FASTA (plain or zstd-compressed; '-' reads\n"
          "standard input) and writes DB_PREFIX.swi (the index) and two data files,\n"
          "DB_PREFIX.<id>.swr and DB_PREFIX.<id>.swh, replacing the database that was\n"
          "there in one step. One makedb at a time writes a given DB_PREFIX.\n"
          "\n"
          "Options:\n"
          "  --threads N   compression threads (default: all cores)\n"
          "  --level N     zstd compression level, 1-22 (default: the library's)\n"
          "  --dna         nucleotide sequences (default: protein)\n"
          "  -q, --quiet   no progress and no summary; warnings and errors still print\n"
          "  -h, --help    print this help and exit\n"
          "  --version     print the version and exit\n"
          "Each option may be given once.\n",
          out);
}

enum { OPT_THREADS = 256, OPT_LEVEL, OPT_DNA, OPT_VERSION };

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"threads", required_argument, NULL, OPT_THREADS},
        {"level", required_argument, NULL, OPT_LEVEL},
        {"dna", no_argument, NULL, OPT_DNA},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    makedb m = {0};
    long threads = 0, level = 0;
    int dna = 0, quiet = 0;
    sw_error err;
    sw_error_clear(&err);

    /* Options are checked and worded as swsearch's are (sw_parse.h). */
    opterr = 0;
    int c;
    sw_options_seen seen = {{0}};
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        if (sw_parse_option_once(&seen, c, longopts, &err)) goto usage_error;
        switch (c) {
        case OPT_THREADS:
            if (sw_parse_option_long("--threads", optarg, 1, 4096, &threads, &err)) goto usage_error;
            break;
        case OPT_LEVEL:
            if (sw_parse_option_long("--level", optarg, 1, 22, &level, &err)) goto usage_error;
            break;
        case OPT_DNA: dna = 1; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case OPT_VERSION: printf("makedb (swsearch) %s\n", SW_VERSION); return 0;
        default:
            sw_parse_option_error(c, argv, "makedb --help", &err);
            goto usage_error;
        }
    }
    if (argc - optind != 2) {
        message(&m, "expected FASTA and DB_PREFIX; see 'makedb --help'");
        return EXIT_USAGE;
    }
    const char *fasta_path = argv[optind], *prefix = argv[optind + 1];
    if (!*prefix) {
        message(&m, "DB_PREFIX is empty");
        return EXIT_USAGE;
    }

    m.progress = !quiet && isatty(STDERR_FILENO);
    /* The first refresh waits one interval, so fast builds show none. */
    static const sw_progress_style style = {
        .prefix = "makedb: ", .tail = "\033[K", .interval = PROGRESS_INTERVAL, .first_waits = 1, .redraw = 1};
    sw_progress_init(&m.line, m.progress ? stderr : NULL, &style);
    m.start = m.line.start;

    sw_db_make_options opt = {
        .alphabet = dna ? SW_ALPHABET_DNA : SW_ALPHABET_PROTEIN,
        .threads = (int)threads,
        .level = (int)level,
        .message = on_warning,
        .message_user = &m,
        .progress = on_progress,
        .progress_user = &m,
    };
    uint64_t seqs = 0, residues = 0;
    /* A failed build leaves no partial database behind and the old one as
     * it was. */
    int rc = sw_db_make(fasta_path, prefix, &opt, &seqs, &residues, &err);
    if (rc) goto fail;
    sw_progress_clear(&m.line);

    if (m.warnings > MAX_WARNINGS_SHOWN)
        message(&m, "%llu more warnings not shown",
                (unsigned long long)(m.warnings - MAX_WARNINGS_SHOWN));
    if (!quiet)
        message(&m, "%s: %llu sequences, %llu residues in %.1f s", prefix,
                (unsigned long long)seqs, (unsigned long long)residues,
                sw_clock_seconds() - m.start);
    return 0;

fail:
    if (!err.message[0]) sw_error_set(&err, rc, "%s", sw_strerror(rc));
    message(&m, "%s", err.message);
    return EXIT_DATA;

usage_error:
    message(&m, "%s", err.message);
    return EXIT_USAGE;
}
