/* makedb: builds a swsearch database from a FASTA file (plain or zstd),
 * streaming each record from sw_fasta into sw_db_writer. */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sw_alphabet.h"
#include "sw_clock.h"
#include "sw_db_writer.h"
#include "sw_error.h"
#include "sw_fasta.h"
#include "sw_parse.h"
#include "sw_progress.h"

#ifndef SW_VERSION
#define SW_VERSION "unknown"
#endif

/* Exit statuses: bad data or a failed build, and a bad command line. */
enum { EXIT_DATA = 1, EXIT_USAGE = 2 };

/* A database stores lengths as uint32_t, with UINT32_MAX kept free. */
#define MAX_SEQUENCE_LENGTH ((uint64_t)UINT32_MAX - 1)
/* A file with thousands of empty records would bury everything else. */
#define MAX_WARNINGS_SHOWN 20
#define PROGRESS_INTERVAL 0.25

typedef struct makedb {
    int progress;        /* stderr is a terminal and not --quiet */
    sw_progress line;
    double start;
    uint64_t warnings;
    const sw_fasta *fasta;
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
 * terminal is not the bottleneck. */
static void show_reading(makedb *m)
{
    if (!sw_progress_due(&m->line, 0)) return;
    uint64_t size = sw_fasta_file_size(m->fasta);
    if (size)
        sw_progress_line(&m->line, "reading %3.0f%%",
                         100.0 * (double)sw_fasta_file_offset(m->fasta) / (double)size);
    else
        sw_progress_line(&m->line, "reading, %.0f MB so far",
                         (double)sw_fasta_bytes_read(m->fasta) / 1e6);
}

static void on_writer_progress(void *user, const char *phase, uint64_t done, uint64_t total)
{
    makedb *m = user;
    if (!m->progress || !sw_progress_due(&m->line, 0)) return;
    if (total)
        sw_progress_line(&m->line, "%s %3.0f%%", phase, 100.0 * (double)done / (double)total);
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

    sw_fasta *fasta = NULL;
    sw_db_writer *writer = NULL;
    sw_fasta_record rec;
    sw_db_build_stats stats;
    uint64_t seqs = 0;
    sw_fasta_options fopt = {
        .alphabet = dna ? sw_alphabet_dna() : sw_alphabet_protein(),
        .warn = on_warning,
        .warn_user = &m,
        .max_length = MAX_SEQUENCE_LENGTH,
    };
    sw_db_writer_options wopt = {
        .alphabet = dna ? SW_ALPHABET_DNA : SW_ALPHABET_PROTEIN,
        .threads = (int)threads,
        .compression_level = (int)level,
        .progress = on_writer_progress,
        .progress_user = &m,
    };
    int rc = sw_fasta_open(fasta_path, &fopt, &fasta, &err);
    if (rc) goto fail;
    m.fasta = fasta;

    /* Before anything is written, the lock file included: a build must not
     * replace or remove its own input. */
    rc = sw_db_writer_check_input(prefix, sw_fasta_fd(fasta),
                                  strcmp(fasta_path, "-") ? fasta_path : "<stdin>", &err);
    if (rc) goto fail;

    rc = sw_db_writer_create(prefix, &wopt, &writer, &err);
    if (rc) goto fail;

    while ((rc = sw_fasta_next(fasta, &rec, &err)) == 1) {
        rc = sw_db_writer_add(writer, rec.header, rec.header_len, rec.residues, rec.length,
                              &err);
        if (rc) goto fail;
        seqs++;
        /* Reading the clock per record would cost more than the record. */
        if (m.progress && (seqs & 1023) == 0) show_reading(&m);
    }
    if (rc == SW_ELIMIT) {
        size_t n = strlen(err.message);
        snprintf(err.message + n, sizeof err.message - n, ", the most a database holds");
    }
    if (rc < 0) goto fail;
    if (seqs == 0) {
        rc = sw_error_set(&err, SW_EFORMAT, "%s: no sequences",
                          strcmp(fasta_path, "-") ? fasta_path : "<stdin>");
        goto fail;
    }
    m.fasta = NULL;
    sw_fasta_close(fasta);
    fasta = NULL;

    rc = sw_db_writer_finish(writer, &stats, &err);
    if (rc) goto fail;
    sw_db_writer_free(writer);
    sw_progress_clear(&m.line);

    if (m.warnings > MAX_WARNINGS_SHOWN)
        message(&m, "%llu more warnings not shown",
                (unsigned long long)(m.warnings - MAX_WARNINGS_SHOWN));
    if (!quiet)
        message(&m, "%s: %llu sequences, %llu residues in %.1f s", prefix,
                (unsigned long long)stats.num_seqs, (unsigned long long)stats.num_residues,
                sw_clock_seconds() - m.start);
    return 0;

fail:
    /* Freeing an unfinished writer removes its temporary files: a failed
     * build leaves no partial database behind. */
    if (writer) sw_db_writer_free(writer);
    sw_fasta_close(fasta);
    if (!err.message[0]) sw_error_set(&err, rc, "%s", sw_strerror(rc));
    message(&m, "%s", err.message);
    return EXIT_DATA;

usage_error:
    message(&m, "%s", err.message);
    return EXIT_USAGE;
}
