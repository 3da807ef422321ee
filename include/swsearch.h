/* swsearch.h: the public API of swsearch, exact Smith-Waterman search of
 * protein databases on GPUs and CPUs. Everything a program may call is here;
 * every handle is opaque and has a create (or open) and a free (or close)
 * function; every function that can fail returns an int: SW_OK (0) or a
 * negative SW_E* code, whose text sw_strerror() gives, with details (file,
 * line, problem) in the sw_error that the caller may pass.
 *
 * Scoring convention: a gap of k residues costs gap_open + k * gap_extend
 * (as in ssearch36 and BLAST: BLOSUM62 with 11/1 is the default).
 * Coordinates are 1-based and inclusive, as in BLAST's tabular output.
 *
 * A handle may be used by one thread at a time; different handles (a
 * database opened twice, two searches) by different threads at once. A
 * database is only read by a search, so several searches may share one. */
#ifndef SWSEARCH_H
#define SWSEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define SW_API __attribute__((visibility("default")))
#else
#define SW_API
#endif

/* ---- Version ---------------------------------------------------------- */

#define SW_VERSION_MAJOR 0
#define SW_VERSION_MINOR 3
#define SW_VERSION_PATCH 0
#define SW_VERSION_NUMBER (SW_VERSION_MAJOR * 10000 + SW_VERSION_MINOR * 100 + SW_VERSION_PATCH)
#define SW_VERSION_TEXT_(a, b, c) #a "." #b "." #c
#define SW_VERSION_TEXT(a, b, c) SW_VERSION_TEXT_(a, b, c)
#define SW_VERSION_STRING SW_VERSION_TEXT(SW_VERSION_MAJOR, SW_VERSION_MINOR, SW_VERSION_PATCH)

/* The library's version, which may differ from the header's a program was
 * built with: SW_VERSION_NUMBER and SW_VERSION_STRING of the library. */
SW_API unsigned sw_version_number(void);
SW_API const char *sw_version_string(void);

/* ---- Errors ----------------------------------------------------------- */

enum {
    SW_OK = 0,
    SW_ENOMEM = -1,      /* out of memory */
    SW_EIO = -2,         /* a read, write or rename failed */
    SW_EFORMAT = -3,     /* malformed input (FASTA, matrix, options) */
    SW_ECORRUPT = -4,    /* checksum mismatch or inconsistent database */
    SW_EVERSION = -5,    /* database written by an unsupported format version */
    SW_EINVAL = -6,      /* invalid argument */
    SW_ENOTFOUND = -7,   /* file or named resource does not exist */
    SW_ENODEV = -8,      /* no usable GPU */
    SW_EDEVICE = -9,     /* a GPU call failed */
    SW_ELIMIT = -10,     /* input beyond a documented limit */
    SW_EBUSY = -11       /* another process holds the lock (a database being written) */
};

/* Details of a failure: `message` is ready for a user, for example
 * "sp.fasta:1042: invalid residue '#' in sequence P12345". Every function
 * taking an sw_error accepts NULL. */
typedef struct sw_error {
    int code;
    char message[1024];
} sw_error;

/* The text of an SW_E* code ("out of memory", ...); never NULL. */
SW_API const char *sw_strerror(int code);

/* ---- Common choices --------------------------------------------------- */

typedef enum {
    SW_DEVICE_AUTO = 0, /* the GPUs when one is usable, else the CPU (with a message) */
    SW_DEVICE_CPU = 1,
    SW_DEVICE_GPU = 2   /* the GPUs or SW_ENODEV */
} sw_device;

typedef enum { SW_ALPHABET_PROTEIN = 0, SW_ALPHABET_DNA = 1 } sw_alphabet_kind;

typedef enum {
    SW_STATS_AUTO = 0,  /* NCBI's published parameters where they list the matrix and gap costs, else a fit */
    SW_STATS_TABLE = 1, /* NCBI's parameters; SW_ENOTFOUND where none are published */
    SW_STATS_FIT = 2    /* fitted to every database sequence's score for the query */
} sw_stats_method;

/* Receives messages that are not errors: a skipped empty sequence, "no
 * usable GPU; searching on the CPU", ... Called on the caller's thread. */
typedef void (*sw_message_fn)(void *user, const char *message);

/* One sequence given in memory: `header` is what follows '>' in FASTA (the
 * identifier up to the first blank, then an optional description; NULL or
 * "" names it "query<N>"), `residues` its letters (either case; NUL
 * terminated when `length` is 0). */
typedef struct sw_sequence {
    const char *header;
    const char *residues;
    size_t length;
} sw_sequence;

/* ---- Databases -------------------------------------------------------- */

typedef struct sw_db sw_db;

/* Opens the database that makedb (or sw_db_make) wrote at `path` (its
 * prefix: "db/sprot" for db/sprot.swi and its data files). */
SW_API int sw_db_open(const char *path, sw_db **out, sw_error *err);
SW_API void sw_db_close(sw_db *db);
SW_API uint64_t sw_db_num_seqs(const sw_db *db);
SW_API uint64_t sw_db_num_residues(const sw_db *db);
SW_API uint32_t sw_db_max_length(const sw_db *db);
SW_API sw_alphabet_kind sw_db_alphabet(const sw_db *db);

typedef struct sw_db_make_options {
    sw_alphabet_kind alphabet; /* SW_ALPHABET_PROTEIN (0) or SW_ALPHABET_DNA */
    int threads;               /* compression threads; 0: every core */
    int level;                 /* zstd level 1-22; 0: the library's default */
    sw_message_fn message;     /* warnings (skipped empty records, ...); may be NULL */
    void *message_user;
} sw_db_make_options;

/* Builds a database at `path` from the FASTA file `fasta_path` (plain or
 * zstd-compressed), replacing the one there in one step: a failure leaves
 * the old database as it was. `options` may be NULL (protein, defaults).
 * `seqs` and `residues` (may be NULL) receive the counts. */
SW_API int sw_db_make(const char *fasta_path, const char *path, const sw_db_make_options *options,
                      uint64_t *seqs, uint64_t *residues, sw_error *err);

/* ---- Database search -------------------------------------------------- */

typedef struct sw_search sw_search;
typedef struct sw_hits sw_hits;

/* A search's settings, BLAST's defaults: BLOSUM62, gap open 11, extend 1,
 * E-value 10, 500 hits a query, alignments computed, every GPU (else the
 * CPU), statistics SW_STATS_AUTO. */
SW_API int sw_search_create(sw_search **out, sw_error *err);
SW_API void sw_search_free(sw_search *s);

/* A shipped matrix by name ("BLOSUM62", "BLOSUM50", "PAM250", ...) or a
 * matrix file in NCBI's format. */
SW_API int sw_search_set_matrix(sw_search *s, const char *name_or_path, sw_error *err);
SW_API int sw_search_set_gap_costs(sw_search *s, int gap_open, int gap_extend, sw_error *err);
/* Hits with a larger E-value are left out. */
SW_API int sw_search_set_evalue(sw_search *s, double max_evalue, sw_error *err);
/* The best `top` hits a query, at most (1 or more). */
SW_API int sw_search_set_top(sw_search *s, size_t top, sw_error *err);
SW_API int sw_search_set_device(sw_search *s, sw_device device, sw_error *err);
/* The GPUs to use, CUDA device numbers (one listed twice gets two slices
 * of the database); NULL and 0: every GPU; NULL and N: the first N. */
SW_API int sw_search_set_gpus(sw_search *s, const int *gpus, int count, sw_error *err);
/* Device memory a search takes on each GPU, in bytes (0: its free memory
 * less a margin); a larger database is streamed in parts. */
SW_API int sw_search_set_gpu_memory(sw_search *s, uint64_t bytes, sw_error *err);
/* CPU threads; 0: every core. */
SW_API int sw_search_set_threads(sw_search *s, int threads, sw_error *err);
SW_API int sw_search_set_statistics(sw_search *s, sw_stats_method method, sw_error *err);
/* 0: scores, E-values and bit scores only; coordinates, counts and the
 * aligned rows stay empty (faster when many hits are kept). */
SW_API int sw_search_set_alignments(sw_search *s, int with_alignments, sw_error *err);
SW_API int sw_search_set_messages(sw_search *s, sw_message_fn fn, void *user, sw_error *err);

/* Searches the database with `num_queries` sequences given in memory, or
 * with every record of a FASTA file (plain or zstd-compressed; "-" is
 * standard input). The hits come in the program's order (`swsearch
 * search`): queries in input order, each query's hits in BLAST's order
 * (E-value, then score, then database order). */
SW_API int sw_search_run(sw_search *s, const sw_db *db, const sw_sequence *queries, size_t num_queries,
                         sw_hits **out, sw_error *err);
SW_API int sw_search_run_fasta(sw_search *s, const sw_db *db, const char *fasta_path, sw_hits **out,
                               sw_error *err);

/* Searches with a FASTA file and writes the hits to `out` as `swsearch
 * search --outfmt` would: "6" (BLAST tabular), "6 qseqid sseqid ...",
 * "7", "0" (pairwise), "json" or "tsv". Memory stays bounded by a batch
 * of queries, however long the file. */
SW_API int sw_search_write(sw_search *s, const sw_db *db, const char *fasta_path, const char *outfmt, FILE *out,
                           sw_error *err);

/* One hit, in BLAST's tabular field names. Strings belong to the sw_hits
 * and live until sw_hits_free(). Without alignments (see
 * sw_search_set_alignments) the coordinates, counts and rows are 0 and "". */
typedef struct sw_hit_info {
    const char *qseqid;   /* query identifier */
    const char *sseqid;   /* subject identifier */
    const char *stitle;   /* subject header: identifier and description */
    size_t qlen, slen;
    int score;            /* raw Smith-Waterman score */
    double bitscore;
    double evalue;
    size_t qstart, qend;  /* 1-based, inclusive */
    size_t sstart, send;
    size_t length;        /* alignment columns */
    size_t nident, mismatch, positive, gapopen, gaps;
    double pident;        /* 100 * nident / length */
    double ppos;          /* 100 * positive / length */
    double qcovhsp;       /* 100 * (qend - qstart + 1) / qlen */
    const char *qseq;     /* aligned query row, '-' for gaps */
    const char *sseq;     /* aligned subject row */
    const char *cigar;    /* M, I (query residue against a gap), D */
    const char *btop;     /* BLAST traceback operations */
} sw_hit_info;

SW_API void sw_hits_free(sw_hits *h);
SW_API size_t sw_hits_num_queries(const sw_hits *h);
/* Query q's identifier and residue count. */
SW_API const char *sw_hits_query_id(const sw_hits *h, size_t q);
SW_API size_t sw_hits_query_length(const sw_hits *h, size_t q);
/* How many hits query q has, and the i-th of them (0: the first). */
SW_API size_t sw_hits_count(const sw_hits *h, size_t q);
SW_API int sw_hits_get(const sw_hits *h, size_t q, size_t i, sw_hit_info *out, sw_error *err);
/* Which engine ran ("CPU simd (avx2)", "GPUs 0,1 (NVIDIA H100 ...)"). */
SW_API const char *sw_hits_engine(const sw_hits *h);

/* ---- Pairwise alignment of long DNA sequences ------------------------- */

typedef struct sw_aligner sw_aligner;
typedef struct sw_aligned sw_aligned;

/* The best local alignment of two DNA sequences (up to 2^31 bases each),
 * exact, with affine gaps, in memory linear in their lengths, on the GPU
 * (CUDAlign's wavefront or the overlap engine) or the CPU, as `swsearch
 * align` does. A, C, G and T count in either case; N and the other IUPAC
 * codes score as mismatches against everything. Defaults: match 1,
 * mismatch -3, gap open 3, extend 2; SW_DEVICE_AUTO; every core; the best
 * alignment with its path. */
SW_API int sw_aligner_create(sw_aligner **out, sw_error *err);
SW_API void sw_aligner_free(sw_aligner *a);
SW_API int sw_aligner_set_scores(sw_aligner *a, int match, int mismatch, int gap_open, int gap_extend,
                                 sw_error *err);
SW_API int sw_aligner_set_device(sw_aligner *a, sw_device device, sw_error *err);
/* The forward pass's row slices on `count` GPUs (`gpus` their CUDA device
 * numbers; NULL: 0, 1, ...); 0 or 1: one GPU, `gpus[0]` or 0. */
SW_API int sw_aligner_set_gpus(sw_aligner *a, const int *gpus, int count, sw_error *err);
SW_API int sw_aligner_set_threads(sw_aligner *a, int threads, sw_error *err);
/* The k best alignments that share no cell (1: the best alone). */
SW_API int sw_aligner_set_best(sw_aligner *a, int k, sw_error *err);
/* 0: score and coordinates only, no path (no CIGAR or counts). */
SW_API int sw_aligner_set_path(sw_aligner *a, int with_path, sw_error *err);
/* Aligns x (x_len letters) with y; a length of 0 means a NUL-terminated
 * string. */
SW_API int sw_aligner_run(sw_aligner *a, const char *x, size_t x_len, const char *y, size_t y_len, sw_aligned **out,
                          sw_error *err);

/* One alignment: score 0 when no pair of bases scores above zero (then
 * every other field is 0 or ""). Strings live until sw_aligned_free(). */
typedef struct sw_aligned_info {
    int score;
    uint64_t x_start, x_end; /* 1-based, inclusive */
    uint64_t y_start, y_end;
    uint64_t columns, matches, mismatches, gap_openings, gap_bases;
    double identity;         /* 100 * matches / columns */
    const char *cigar;       /* M, I (x against a gap), D (y against a gap) */
    const char *engine;      /* which engine ran the forward pass */
} sw_aligned_info;

SW_API size_t sw_aligned_count(const sw_aligned *r);
SW_API int sw_aligned_get(const sw_aligned *r, size_t i, sw_aligned_info *out, sw_error *err);
SW_API void sw_aligned_free(sw_aligned *r);

/* ---- Profile-profile alignment ---------------------------------------- */

typedef struct sw_profile_aligner sw_profile_aligner;
typedef struct sw_merged sw_merged;

typedef enum {
    /* The expected matrix score of a symbol of one column against one of
     * the other (f^T M g), maximised, with affine gaps in matrix units. */
    SW_PROFILE_SCORE_EXPECTED = 0,
    /* Hanif and Zimmermann's squared Euclidean distance between the two
     * columns' frequencies, the gap included, minimised (gap open 0 unless
     * set). */
    SW_PROFILE_SCORE_EUCLID = 1
} sw_profile_score;

/* The best global alignment of two multiple alignments (aligned FASTA,
 * Clustal or Stockholm) as profiles, merged into one alignment, as
 * `swsearch profile` does. Defaults: SW_PROFILE_SCORE_EXPECTED, BLOSUM62,
 * gap open 11, extend 1, rows weighed equally, SW_DEVICE_AUTO (GPU 0, else
 * every core). */
SW_API int sw_profile_aligner_create(sw_profile_aligner **out, sw_error *err);
SW_API void sw_profile_aligner_free(sw_profile_aligner *a);
SW_API int sw_profile_aligner_set_score(sw_profile_aligner *a, sw_profile_score score, sw_error *err);
SW_API int sw_profile_aligner_set_matrix(sw_profile_aligner *a, const char *name_or_path, sw_error *err);
SW_API int sw_profile_aligner_set_gap_costs(sw_profile_aligner *a, int gap_open, int gap_extend, sw_error *err);
/* Nonzero: Henikoff position-based weights for the rows. */
SW_API int sw_profile_aligner_set_weights(sw_profile_aligner *a, int henikoff, sw_error *err);
SW_API int sw_profile_aligner_set_device(sw_profile_aligner *a, sw_device device, sw_error *err);
SW_API int sw_profile_aligner_set_gpu(sw_profile_aligner *a, int gpu, sw_error *err);
SW_API int sw_profile_aligner_set_threads(sw_profile_aligner *a, int threads, sw_error *err);
/* Aligns the alignments in the files a_path and b_path ("-": standard
 * input, for one of them). */
SW_API int sw_profile_aligner_run(sw_profile_aligner *a, const char *a_path, const char *b_path, sw_merged **out,
                                  sw_error *err);

typedef struct sw_merged_info {
    size_t a_columns, a_rows, b_columns, b_rows;
    size_t columns;     /* of the merged alignment */
    int64_t score;      /* in 64 x 64ths of the matrix's (or distance) units, exact */
    double units;       /* the score in matrix (or distance) units */
    const char *engine; /* "GPU 0", "16 CPU threads" */
} sw_merged_info;

SW_API int sw_merged_get_info(const sw_merged *m, sw_merged_info *out, sw_error *err);
/* The merged alignment, every row of both inputs: format 0 aligned FASTA,
 * 1 Clustal. */
SW_API int sw_merged_write(const sw_merged *m, int format, FILE *out, sw_error *err);
/* "#score S", a header line, then a line a merged column: the 1-based
 * column of each input, '-' for a gap. */
SW_API int sw_merged_write_map(const sw_merged *m, FILE *out, sw_error *err);
SW_API void sw_merged_free(sw_merged *m);

#ifdef __cplusplus
}
#endif

#endif
