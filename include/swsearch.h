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
    SW_EBUSY = -11,      /* another process holds the lock (a database being written) */
    SW_ECANCELED = -12   /* stopped because its caller asked (sw_search_set_cancel) */
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

/* The protein scoring when none is given (searches, profiles, calibration):
 * BLAST's blastp, BLOSUM62 and a gap of k residues costing 11 + k. */
#define SW_DEFAULT_MATRIX "BLOSUM62"
#define SW_DEFAULT_GAP_OPEN 11
#define SW_DEFAULT_GAP_EXTEND 1
/* The DNA scoring of pairwise alignment when none is given: CUDAlign's +1,
 * -3 and gaps of -5 for the first base, -2 for each further one. */
#define SW_ALIGN_DEFAULT_MATCH 1
#define SW_ALIGN_DEFAULT_MISMATCH -3
#define SW_ALIGN_DEFAULT_GAP_OPEN 3
#define SW_ALIGN_DEFAULT_GAP_EXTEND 2

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

/* What `swsearch info` tells of an open database. The paths belong to the
 * database and live until sw_db_close(). */
typedef struct sw_db_info {
    unsigned format_version;   /* of the files (docs/FORMAT.md) */
    sw_alphabet_kind alphabet;
    uint64_t sequences, residues;
    /* The sequences sorted by length: the first, the (n/2 + 1)-th (the
     * median, the upper one for even n) and the last; 0 when empty. */
    uint32_t min_length, median_length, max_length;
    /* length_histogram[k]: how many sequences have 2^k to 2^(k+1) - 1
     * residues (an empty one counts in [0]). */
    uint64_t length_histogram[32];
    uint64_t residue_chunks, header_chunks; /* zstd chunks, each checksummed */
    const char *index_path, *residue_path, *header_path;
    uint64_t index_bytes, residue_bytes, header_bytes; /* the files' sizes */
    uint64_t header_text_bytes; /* the headers' text, uncompressed */
} sw_db_info;

SW_API int sw_db_get_info(const sw_db *db, sw_db_info *out, sw_error *err);

/* Reads every chunk of the database and checks every checksum, as `swsearch
 * verify` does; the error (SW_ECORRUPT, SW_EIO where a read failed) names
 * the file, the first damaged chunk and its sequences. `progress` (may be
 * NULL) gets the chunks checked of all, on the caller's thread. */
SW_API int sw_db_verify(const sw_db *db, void (*progress)(void *user, uint64_t done, uint64_t total), void *user,
                        sw_error *err);
/* Whether the file at `path` starts as a file of a swsearch database does
 * (its index, residues or headers): 1 or 0. */
SW_API int sw_db_is_file(const char *path);

typedef struct sw_db_make_options {
    sw_alphabet_kind alphabet; /* SW_ALPHABET_PROTEIN (0) or SW_ALPHABET_DNA */
    int threads;               /* compression threads; 0: every core */
    int level;                 /* zstd level 1-22; 0: the library's default */
    sw_message_fn message;     /* warnings (skipped empty records, ...); may be NULL */
    void *message_user;
    /* How far the build has come, on the caller's thread; may be NULL. The
     * phases, in order: "reading" (bytes of the FASTA file read, of its
     * size; of total 0, the bytes so far, where the size is not known, as
     * from a pipe), then "sorting", "compressing residues", "compressing
     * headers" and "writing index", each from done 0 to done == total. */
    void (*progress)(void *user, const char *phase, uint64_t done, uint64_t total);
    void *progress_user;
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
/* A shipped matrix by name only, never a file (for a service whose clients
 * must not make it open paths of their choosing); or a matrix given as the
 * text of a file in NCBI's format, `label` naming it in messages and in the
 * output's headers (as the path would). */
SW_API int sw_search_set_matrix_name(sw_search *s, const char *name, sw_error *err);
SW_API int sw_search_set_matrix_text(sw_search *s, const char *label, const char *text, size_t length,
                                     sw_error *err);
SW_API int sw_search_set_gap_costs(sw_search *s, int gap_open, int gap_extend, sw_error *err);
/* Hits with a larger E-value are left out. */
SW_API int sw_search_set_evalue(sw_search *s, double max_evalue, sw_error *err);
/* The best `top` hits a query, at most (1 or more). */
SW_API int sw_search_set_top(sw_search *s, size_t top, sw_error *err);
SW_API int sw_search_set_device(sw_search *s, sw_device device, sw_error *err);
/* The GPUs to use, CUDA device numbers (one listed twice gets two slices
 * of the database); NULL and 0: every GPU; NULL and N: the first N. */
SW_API int sw_search_set_gpus(sw_search *s, const int *gpus, int count, sw_error *err);
/* Device memory the database may take on each GPU, in bytes (0: its free
 * memory less a margin), the part kept there and the buffers that stream the
 * rest; the kernels' working buffers come on top. A larger database is
 * streamed in parts. */
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

/* The CPU engine by name, every one exact: "auto" (the default; "simd" is
 * another name for it): per class of query length, the striped or the
 * inter-sequence SIMD engine, whichever is faster when both are timed at
 * the start of a search on a sample of the database; "striped" or "inter"
 * to force one; "reference" (the scalar reference engine: slow, for
 * checks; it runs on the CPU only, so it makes SW_DEVICE_AUTO the CPU).
 * sw_hits_engine() names the engines that ran. */
SW_API int sw_search_set_cpu_engine(sw_search *s, const char *name, sw_error *err);
/* GPU: database sequences longer than `length` residues go to the
 * intra-task kernel (a thread block a sequence), the others to the
 * inter-task kernels; 0 (the default): the length that the GPU model's
 * calibration picks for the database (sw_gpu_calibrate), at least 4096;
 * SW_GPU_THRESHOLD_NONE: never. */
#define SW_GPU_THRESHOLD_NONE UINT32_MAX
SW_API int sw_search_set_gpu_threshold(sw_search *s, uint32_t length, sw_error *err);
/* Called on the caller's thread every few tenths of a second during a
 * run: how far it has come, `done` of `total` (units of its own: the
 * alignment cells of a batch of queries, or the share of the query file
 * read); done == total at the end of each batch. */
typedef void (*sw_progress_fn)(void *user, uint64_t done, uint64_t total);
SW_API int sw_search_set_progress(sw_search *s, sw_progress_fn fn, void *user, sw_error *err);
/* Warnings about the queries (an empty record skipped, ...), apart from
 * the other messages; NULL (the default): they go to the function of
 * sw_search_set_messages. */
SW_API int sw_search_set_warnings(sw_search *s, sw_message_fn fn, void *user, sw_error *err);
/* SW_OK when sw_search_write takes `outfmt`; else SW_EFORMAT, the message
 * naming what is wrong ("unknown field 'x'", ...). */
SW_API int sw_search_check_format(const char *outfmt, sw_error *err);

/* A query file opened for sw_search_write_input, read a batch at a time
 * from where the last run left it. */
typedef struct sw_query_input sw_query_input;
/* A FASTA file (plain or zstd-compressed; "-" is standard input). */
SW_API int sw_query_input_open(const char *fasta_path, sw_query_input **out, sw_error *err);
/* The same from the open descriptor `fd` (a pipe, a socket; left open),
 * named `name` in messages; a query longer than `max_length` residues (0:
 * no bound) fails the run with SW_ELIMIT as soon as it passes the bound,
 * before it is all in memory. */
SW_API int sw_query_input_open_fd(int fd, const char *name, uint64_t max_length, sw_query_input **out,
                                  sw_error *err);
/* A PSSM as the query: one query whose position-specific scores replace
 * the matrix's (PSI-BLAST's ASCII PSSM from `psiblast -out_ascii_pssm`, or
 * a profile swsearch saved), read with the settings of `s`, whose matrix
 * must be the one the PSSM's scores are in (its statistics apply). */
SW_API int sw_query_input_open_pssm(const sw_search *s, const char *path, sw_query_input **out, sw_error *err);
/* Iterated searches, as PSI-BLAST's: each query of `in` (a sequence, or a
 * profile from sw_query_input_open_pssm/_msa) is searched; its hits with
 * an E-value up to `inclusion` (and within the search's E-value) are
 * aligned to it, their exact alignments make a query-anchored multiple
 * alignment, whose PSSM (sw_query_input_open_msa's method) is searched
 * next; up to `iterations` rounds, fewer when a round includes nothing
 * new. The queries still iterating are searched together in each round,
 * and each ends as it would alone. Each query's last round is written to
 * `out` in `outfmt`, in input order (formats 7 and 0 name the round and
 * the sequences its profile holds); `save_pssm` (NULL: none; the input
 * must then hold one query) receives the profile that the last round's
 * inclusions make, in swsearch's saved format. Between rounds the
 * database stays in memory (and on the GPUs), held as sw_search_hold()
 * holds it, unless the caller holds it already or its decoded copy would
 * take more than a quarter of the machine's memory. One process only (not
 * under MPI). */
SW_API int sw_search_write_iterated(sw_search *s, const sw_db *db, sw_query_input *in, int iterations,
                                    double inclusion, const char *save_pssm, const char *outfmt, FILE *out,
                                    sw_error *err);
/* A PSSM built from a multiple alignment as the query (aligned FASTA,
 * Stockholm or A3M; its first row is the query), in PSI-BLAST's manner:
 * position-based sequence weights and pseudocounts, scores in the units of
 * the matrix of `s`. An alignment of one sequence scores exactly as that
 * sequence does. */
SW_API int sw_query_input_open_msa(const sw_search *s, const char *path, sw_query_input **out, sw_error *err);
/* sw_query_input_open_pssm and sw_query_input_open_msa of a file's `len`
 * bytes held in memory (a server's client sends them: the server opens no
 * path a client names), parsed now; `name` (NULL: "<pssm>", "<msa>") stands
 * for the file's path in messages and wherever the file's name counts (a
 * PSI-BLAST PSSM's label, an A3M alignment told by its name), so the query
 * is the one the file gives. A query longer than `max_length` positions
 * (0: no bound) fails with SW_ELIMIT, an alignment's before its PSSM is
 * built. */
SW_API int sw_query_input_parse_pssm(const sw_search *s, const char *text, size_t len, const char *name,
                                     uint64_t max_length, sw_query_input **out, sw_error *err);
SW_API int sw_query_input_parse_msa(const sw_search *s, const char *text, size_t len, const char *name,
                                    uint64_t max_length, sw_query_input **out, sw_error *err);
SW_API void sw_query_input_close(sw_query_input *in);
/* sw_search_write with the queries of `in`, to its end. */
SW_API int sw_search_write_input(sw_search *s, const sw_db *db, sw_query_input *in, const char *outfmt, FILE *out,
                                 sw_error *err);

/* Several processes under MPI, as `mpirun -np R swsearch search` runs them,
 * on one machine or many. With `use` nonzero, a process that an MPI
 * launcher (Open MPI's mpirun) started as one of several joins the job
 * here (MPI_Init on MPI_COMM_WORLD; MPI_Finalize in sw_search_free(), so
 * one search a process may join). Every rank then opens the same database
 * and makes the same runs with the same settings (sw_search_write_input,
 * sw_search_write, sw_search_run_fasta, sw_search_run): each searches a
 * share of the database of equal residues, reading only the chunks that
 * hold it, on its GPUs or its CPU cores. Where several ranks share a
 * machine, those that were given no GPUs take every k-th GPU of it (k
 * ranks on the machine; a GPU each when there are as many), and those
 * given no thread count divide its cores. Rank 0 alone reads the queries
 * and writes or returns the hits, byte for byte those of one process (the
 * E-values for the whole database); the other ranks pass NULL for the
 * queries, the file and the output, and get no hits. A failure on any rank
 * fails the run on every rank (rank 0's error names the rank). A process
 * started alone runs alone. A library built without MPI refuses a process
 * launched as one of several (SW_EINVAL, "built without MPI support"). A
 * held database (sw_search_hold) is not used under MPI. */
SW_API int sw_search_set_mpi(sw_search *s, int use, sw_error *err);
/* This process's rank among `ranks` (0 of 1 when alone), and its rank and
 * the count of ranks on its machine. Any may be NULL. */
SW_API int sw_search_get_rank(const sw_search *s, int *rank, int *ranks, int *local_rank, int *local_ranks,
                              sw_error *err);
/* The GPUs a run of `s` uses in this process: those set with
 * sw_search_set_gpus, or under MPI this rank's share of its machine's
 * (see sw_search_set_mpi); into gpus[0 .. *count - 1] (room for `max`).
 * *count 0: every GPU of the machine. For sw_gpus_warm_up(). */
SW_API int sw_search_get_gpus(const sw_search *s, int *gpus, int max, int *count, sw_error *err);
typedef struct sw_gpus_warm sw_gpus_warm;
/* Starts the GPUs that a run of `s` will use, as sw_gpus_warm_up() does,
 * choosing them on its own thread (under MPI, finding this rank's share
 * starts the driver); nothing for a CPU search. *out NULL or a warm-up,
 * for sw_gpus_warm_free(). */
SW_API int sw_search_warm_up(const sw_search *s, sw_gpus_warm **out, sw_error *err);
/* Collective under MPI: every rank passes its own `status` (of a check of
 * its own, such as opening the queries or the output) and gets SW_OK when
 * every rank's is SW_OK, else its own (with `err` as the caller left it);
 * where only others failed, rank 0 gets the first failing rank's code and
 * message ("rank 2 of 3: ..."), so that rank 0 alone need report, and the
 * others SW_EIO ("another process of the run failed"). Alone: `status`,
 * `err` untouched. */
SW_API int sw_search_agree(sw_search *s, int status, sw_error *err);

/* Before its first run, a search checks the database's header file (so that
 * damage fails it before any output), and a GPU run decodes the database
 * and loads it onto the GPUs. A program that answers one search after
 * another (`swsearch serve`) holds the database instead: checked and
 * decoded (on the search's threads) once, and after the first GPU run kept
 * on the GPUs with their engines for every later run of `s` on `db` that
 * asks for the same GPUs, scoring and top (another choice replaces what
 * the GPUs hold). `db` must stay open while held; NULL lets it go, as do
 * sw_search_free and holding another database. */
SW_API int sw_search_hold(sw_search *s, const sw_db *db, sw_error *err);

/* What a run did, as `swsearch search -v` tells it: figures of the engine
 * (for the first batch of queries: the engine and the GPU threshold; for
 * all batches: times and counts) and of the report. */
typedef struct sw_search_summary {
    size_t queries, batches;          /* queries read; batches they were searched in */
    uint64_t query_residues;
    char engine[160];                 /* as sw_hits_engine() */
    int threads;                      /* CPU threads (0: not on the CPU) */
    int on_gpu;                       /* 1: the GPU engine ran */
    double scan_seconds;              /* aligning: the CPU's reading and aligning, the GPU's kernels */
    uint64_t cells;                   /* sum over queries of query length x database residues */
    /* GPU: loading the database (0: held from before) and its parts:
     * finding the GPUs, slicing and reading calibrations; starting the
     * engines; decoding beside that start and after it; the upload. */
    double load_seconds;
    double gpu_plan_seconds, gpu_start_seconds, decode_seconds, decode_wait_seconds, upload_seconds;
    double transfer_seconds;          /* GPU: host-device copies */
    uint64_t recomputed;              /* GPU: scores redone in wider arithmetic */
    int gpu_streamed;                 /* GPU: the database did not fit and was streamed in parts */
    uint32_t gpu_qp_length;           /* GPU: query across the threads up to this length */
    uint32_t gpu_threshold;           /* GPU: intra-task kernel above (SW_GPU_THRESHOLD_NONE: none) */
    int gpu_thresholds_differ;        /* GPU: the slices' calibrations picked different thresholds */
    /* GPU: where the threshold came from ("--threshold", "calibrated now",
     * "calibration cache"); "" when no GPU ran. */
    char gpu_threshold_source[32];
    uint64_t hits;                    /* reported */
    uint64_t alignments;              /* computed (and re-scored) */
    uint64_t aligned_ahead;           /* of which while the GPU scanned later queries */
    double align_seconds;             /* reading subjects and aligning, after the scan */
    double read_seconds;              /* of which reading the subjects */
    char statistics[256];             /* how the E-values came about (the first query's) */
} sw_search_summary;

/* The summary of the last run of `s`, whatever its outcome (as far as it
 * went); all zero before the first. */
SW_API int sw_search_get_summary(const sw_search *s, sw_search_summary *out, sw_error *err);

/* Asked from the search's threads between pieces of work (a few database
 * sequences on the CPU, a query or a streamed part on a GPU): nonzero stops
 * the run, which fails with SW_ECANCELED and writes nothing more. It must
 * be quick and safe to call from any thread. NULL (the default): never. */
typedef int (*sw_cancel_fn)(void *user);
SW_API int sw_search_set_cancel(sw_search *s, sw_cancel_fn fn, void *user, sw_error *err);

/* ---- Requests: several searches sharing scans -------------------------- */

/* A request is a search written as sw_search_write_input() would write it,
 * answered a share of its queries at a time by sw_search_step(), together
 * with other requests: a service answering several clients scans the
 * database once for all of them instead of once per client, and a client
 * with one query need not wait for another's thousands. */
typedef struct sw_request sw_request;

/* A request for the queries of `in` against `db`, written to `out` in
 * `outfmt`, with the settings that `s` has now (matrix, gap costs, E-value,
 * top, statistics, alignments, device, GPUs, threads, messages, warnings
 * and the cancel function); later changes of `s` do not reach it. `in` and
 * `out` are borrowed until sw_request_free(). */
SW_API int sw_request_create(sw_search *s, const sw_db *db, sw_query_input *in, const char *outfmt, FILE *out,
                             sw_request **req, sw_error *err);
/* 1 when requests a and b may share a step: the same database, scoring and
 * engine settings (device, GPUs, GPU memory, threads, CPU engine, GPU
 * threshold) and the same statistics method; else 0. Formats, E-values,
 * tops and alignments may differ. */
SW_API int sw_request_compatible(const sw_request *a, const sw_request *b);
/* One scan for `n` compatible requests: each unfinished request gives its
 * next queries, a fair share of at most `max_queries` queries in all (0:
 * the bounds of a batch of sw_search_write_input), at least one each;
 * they are searched together, on the database held by `s` when it holds
 * `db` (sw_search_hold), and each request's hits are written to its own
 * output. A failure of one request (its queries, its output, its cancel
 * function) ends that request only, which sw_request_status() tells; the
 * return is SW_OK, or the failure of the scan itself, which ends every
 * request of the step. A request whose queries are all answered is
 * finished, its output complete (format 7's and json's ends written). */
SW_API int sw_search_step(sw_search *s, sw_request *const *reqs, size_t n, size_t max_queries, sw_error *err);
/* *done: 1 once the request is finished (answered, or failed); the return
 * is SW_OK, or the code of its failure with its message in `err`. */
SW_API int sw_request_status(const sw_request *r, int *done, sw_error *err);
/* What the scans did for the request so far: its own queries, hits and
 * alignments; the engine's figures of the scans it took part in. */
SW_API int sw_request_get_summary(const sw_request *r, sw_search_summary *out, sw_error *err);
SW_API void sw_request_free(sw_request *r);

/* ---- Engines and GPUs ------------------------------------------------- */

/* The database format that this library writes (makedb) and reads. */
SW_API int sw_db_format_current(void);
/* The CPU engine's SIMD variant on this machine: "avx2" or "sse2". */
SW_API const char *sw_cpu_simd_name(void);
/* 1 when the library has its CUDA engines, else 0. */
SW_API int sw_gpus_built(void);

typedef struct sw_gpu_props {
    int id;                   /* CUDA device number */
    char name[256];           /* the model: "NVIDIA H100 80GB HBM3" */
    int compute_major, compute_minor;
    int multiprocessors;
    uint64_t memory;          /* bytes */
} sw_gpu_props;

/* The usable GPUs of the machine: up to `max` into `out` (may be NULL when
 * max is 0), their number in *count. SW_ENODEV, the message saying why,
 * without the CUDA engines, a driver or a device. */
SW_API int sw_gpus_list(sw_gpu_props *out, int max, int *count, sw_error *err);
/* The GPUs that a search given `gpus` and `count` (as sw_search_set_gpus)
 * runs on, a slice of the database each, in order: up to `max` into `out`,
 * their number in *n. SW_ENODEV without the GPUs asked for. */
SW_API int sw_gpus_select(const int *gpus, int count, sw_gpu_props *out, int max, int *n, sw_error *err);

/* Starting the CUDA driver and a GPU's context takes a noticeable part of
 * a short search: a program about to search on `gpus` and `count` (as
 * sw_search_set_gpus) has it done on threads of their own, one a GPU,
 * while it reads its input. It does nothing without threads, a driver or
 * the GPUs (any error shows where the GPUs are used). sw_gpus_warm_free
 * waits for the threads and frees them (NULL is fine). */
typedef struct sw_gpus_warm sw_gpus_warm;
SW_API int sw_gpus_warm_up(const int *gpus, int count, sw_gpus_warm **out, sw_error *err);
SW_API void sw_gpus_warm_free(sw_gpus_warm *w);

/* The throughput of a GPU's inter-task kernels (a few threads a database
 * sequence) and of its intra-task kernel (a thread block a sequence) over
 * a range of subject lengths, measured with a search's default scoring,
 * and the scan time that each length threshold predicts for a database.
 * Searches read it from a cache of each GPU model ($SWSEARCH_CACHE_DIR,
 * else $XDG_CACHE_HOME/swsearch, else ~/.cache/swsearch), measuring a
 * model not found there. */
#define SW_GPU_CALIBRATION_POINTS 24
typedef struct sw_gpu_calibration {
    int gpu;                  /* CUDA device number */
    char gpu_name[256];
    char version[32];         /* of swsearch that measured */
    uint32_t query_length;    /* residues of the query measured with */
    double seconds;           /* what the measurement took */
    size_t num_points;        /* lengths measured */
    uint32_t length[SW_GPU_CALIBRATION_POINTS];
    double inter_gcups[SW_GPU_CALIBRATION_POINTS], intra_gcups[SW_GPU_CALIBRATION_POINTS];
    /* For the database: row i's threshold is length[i], the last row's
     * (num_points) SW_GPU_THRESHOLD_NONE; the predicted scan seconds per
     * query residue, and the database sequences above the threshold. */
    double predicted[SW_GPU_CALIBRATION_POINTS + 1];
    uint64_t above[SW_GPU_CALIBRATION_POINTS + 1];
    uint32_t chosen;          /* the threshold of least predicted time */
} sw_gpu_calibration;

/* Measures GPU `gpu` afresh (a second or two) and predicts for `db`. */
SW_API int sw_gpu_calibrate(int gpu, const sw_db *db, sw_gpu_calibration *out, sw_error *err);
/* Stores the measurement in the cache of its GPU model, where searches
 * find it; `path` (`cap` bytes, may be NULL) receives the file's path. */
SW_API int sw_gpu_calibration_save(const sw_gpu_calibration *c, char *path, size_t cap, sw_error *err);

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
/* match 1 to SW_ALIGN_MAX_SCORE, mismatch -SW_ALIGN_MAX_GAP to 0, gap_open 0
 * to SW_ALIGN_MAX_GAP - 1, gap_extend 1 to SW_ALIGN_MAX_GAP (limits below). */
SW_API int sw_aligner_set_scores(sw_aligner *a, int match, int mismatch, int gap_open, int gap_extend,
                                 sw_error *err);
SW_API int sw_aligner_set_device(sw_aligner *a, sw_device device, sw_error *err);
/* The forward pass on `count` GPUs (`gpus` their CUDA device numbers;
 * NULL: 0, 1, ...; a number may repeat, its strips then share that GPU);
 * 0 or 1: one GPU, `gpus[0]` or 0. The cudalign engine cuts it into
 * column strips that run at once (sw_aligner_set_gpu_split()); the
 * overlap engine into row slices. */
SW_API int sw_aligner_set_gpus(sw_aligner *a, const int *gpus, int count, sw_error *err);
SW_API int sw_aligner_set_threads(sw_aligner *a, int threads, sw_error *err);
/* The k best alignments that share no cell (1, the default: the best
 * alone; at most 100000). */
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

/* Limits: bases in a sequence; the match score; a penalty (gap open plus
 * extend, or minus the mismatch score). Scores stay in 32 bits: the match
 * score times the shorter length may be at most SW_ALIGN_MAX_SCORE.
 * sw_aligner_set_scores() checks each score alone; these limits are checked
 * when the sequences are known (SW_ELIMIT). */
#define SW_ALIGN_MAX_LENGTH 2147483648
#define SW_ALIGN_MAX_SCORE 536870912
#define SW_ALIGN_MAX_GAP 65536

/* The engines of the forward pass (the start pass of the overlap engine
 * runs on cudalign). */
typedef enum {
    SW_ALIGN_ENGINE_AUTO = 0,     /* with a usable GPU, overlap where one sequence is at least 8 times the
                                   * other, else cudalign; without one cpu, with a message */
    SW_ALIGN_ENGINE_CPU = 1,
    SW_ALIGN_ENGINE_CUDALIGN = 2, /* GPU wavefront engine; SW_ENODEV without a usable GPU */
    SW_ALIGN_ENGINE_OVERLAP = 3   /* GPU engine for a short sequence against a long one; SW_ENODEV likewise */
} sw_align_engine;

/* "auto", "cpu", "cudalign", "overlap"; "?" for another value. */
SW_API const char *sw_align_engine_name(sw_align_engine engine);
/* The engine by name; replaces what sw_aligner_set_device() chose (and
 * that replaces this). */
SW_API int sw_aligner_set_engine(sw_aligner *a, sw_align_engine engine, sw_error *err);
/* 0: the GPU engines compute every cell. Pruning (the default, 1) skips
 * only cells where no alignment can reach the best score found so far, so
 * the result is the same; turning it off is for measuring it. */
SW_API int sw_aligner_set_pruning(sw_aligner *a, int pruning, sw_error *err);

/* How the cudalign engine cuts a forward pass between GPUs, and any engine
 * between MPI ranks (sw_aligner_set_mpi()): column strips,
 * each strip starting on the rows the strip on its left has finished
 * (CUDAlign 4.0; the default), or row slices, each started early from a
 * row of zeros and recomputed where the row above differs (the method of
 * several processes, kept for comparison). */
typedef enum {
    SW_ALIGN_SPLIT_COLUMNS = 0,
    SW_ALIGN_SPLIT_ROWS = 1
} sw_align_split;
SW_API int sw_aligner_set_gpu_split(sw_aligner *a, sw_align_split split, sw_error *err);

/* Progress of a run: `pass` 1 (forward), 2 (start) or 3 (the paths), `done`
 * cells of `total` in it. Passes 1 and 2 end with a call where done ==
 * total (the start pass's total is an upper bound: it stops once it finds
 * the start). Pass 3 opens with a call (3, 0, 0), then reports each path
 * in turn, its total an estimate, ending with done == total. Called on the
 * thread that runs the aligner, in passes 1 and 2 every `interval` seconds
 * (0: 1 s). `fn` NULL: none (the default). */
typedef void (*sw_align_progress_fn)(void *user, int pass, uint64_t done, uint64_t total);
SW_API int sw_aligner_set_progress(sw_aligner *a, sw_align_progress_fn fn, void *user, double interval,
                                   sw_error *err);
/* Messages that are not errors: an empty record skipped while reading
 * files, why the engine asked for is not the one used ("GPU engine
 * unavailable (...): running on the CPU engine"). NULL: none. */
SW_API int sw_aligner_set_messages(sw_aligner *a, sw_message_fn fn, void *user, sw_error *err);

/* Several processes under MPI. With `use` nonzero, a process that an MPI
 * launcher (Open MPI's mpirun) started as one of several joins the job
 * here (MPI_Init, with MPI_COMM_WORLD; MPI_Finalize in sw_aligner_free(),
 * so one aligner a process may join): every rank reads both sequences and
 * runs the aligner, which runs the forward and start passes in column
 * strips of y, one a rank, each rank's last column sent to the next as it
 * fills (with sw_aligner_set_gpu_split(SW_ALIGN_SPLIT_ROWS): the forward
 * pass in row slices of x); rank 0's result alone holds the alignments
 * and the paths (the others' hold none). A process started alone runs alone. A
 * library built without MPI refuses a process launched as one of several
 * (SW_EINVAL, "built without MPI support") and runs one started alone.
 * Several processes take neither best-K nor several GPUs a process. */
SW_API int sw_aligner_set_mpi(sw_aligner *a, int use, sw_error *err);
/* This process's rank among `ranks` (0 of 1 when alone), and its rank among
 * those of its machine (a GPU each, for example). Any may be NULL. */
SW_API int sw_aligner_get_rank(const sw_aligner *a, int *rank, int *ranks, int *local_rank, sw_error *err);
/* Collective under MPI: every rank passes its own `status` (of a check of
 * its own, such as opening an output) and gets SW_OK when every rank's is
 * SW_OK, else its own (with `err` as the caller left it), or SW_EIO
 * ("another process of the run failed") where only another's failed. Alone:
 * `status`, `err` untouched. */
SW_API int sw_aligner_agree(sw_aligner *a, int status, sw_error *err);

/* Reads x and y as `swsearch align` does: from FASTA files (plain or
 * zstd-compressed) of one record each, or with path_y NULL from one file
 * of two records; errors name the file, the line and the problem; an
 * empty record is skipped with a message. Their identifiers (the header up
 * to the first blank; "seq1" or "seq2" for a bare '>') name them in the
 * outputs. The scores are checked against the lengths. The sequences stay
 * in the aligner, for sw_aligner_align(), until the next read. */
SW_API int sw_aligner_read_files(sw_aligner *a, const char *path_x, const char *path_y, sw_error *err);
/* The identifier and length of the sequence read: `which` 0 (x) or 1 (y).
 * The identifier lives until the next read or sw_aligner_free(). */
SW_API int sw_aligner_get_sequence(const sw_aligner *a, int which, const char **id, uint64_t *length,
                                   sw_error *err);
/* Aligns the sequences read (SW_EINVAL where none were). */
SW_API int sw_aligner_align(sw_aligner *a, sw_aligned **out, sw_error *err);
/* sw_aligner_read_files(), then sw_aligner_align(). */
SW_API int sw_aligner_run_files(sw_aligner *a, const char *path_x, const char *path_y, sw_aligned **out,
                                sw_error *err);

/* What a run did, for a summary. The best alignment's passes: cells
 * computed (the overlap engine's, recomputed ones included; the forward
 * pass covers x_length * y_length), cells skipped by pruning, seconds;
 * rounds, chunks and recomputed: the overlap engine's or the slices'
 * (several processes or GPUs) recomputation rounds after the first, chunks
 * of the first round and chunks recomputed over all rounds. The paths: 0
 * when they were not asked for. Strings live until sw_aligned_free(). */
typedef struct sw_aligned_stats {
    const char *x_id, *y_id;  /* the files' identifiers; "x" and "y" for sw_aligner_run() */
    uint64_t x_length, y_length;
    sw_align_engine engine;   /* the engine of the best alignment's forward pass */
    int found;                /* alignments that score above 0 */
    int passes;               /* forward passes: found, and one more where the last found none */
    int processes;            /* MPI ranks the forward pass was cut between (1: one process) */
    int gpus;                 /* GPUs it was cut between in this process (1 on the CPU engine) */
    uint64_t forward_cells, forward_pruned;
    double forward_seconds;
    uint64_t start_cells, start_pruned; /* 0 where nothing aligns: no start pass */
    double start_seconds;
    int rounds;
    int64_t chunks, recomputed;
    double path_seconds;      /* every path */
    uint64_t path_cells;      /* cells their divide and conquer computed */
    uint64_t path_gpu_cells, path_gpu_passes; /* of those, on the GPU, and its passes */
    double path_gpu_seconds;  /* while at least one of those passes was on the GPU */
    int strips;               /* column strips of the forward pass across GPUs (0: not in strips) */
} sw_aligned_stats;

SW_API int sw_aligned_get_stats(const sw_aligned *r, sw_aligned_stats *out, sw_error *err);

typedef enum {
    SW_ALIGN_FORMAT_TSV = 0,  /* a header line, then a line an alignment (one of zeros when none) */
    SW_ALIGN_FORMAT_JSON = 1, /* one object: the best alignment, engine, cells, seconds; best-K: the list */
    SW_ALIGN_FORMAT_PAF = 2,  /* minimap2's, x the query, the CIGAR in cg:Z: (needs the paths) */
    SW_ALIGN_FORMAT_MAF = 3   /* a block an alignment, x's row first (needs the paths) */
} sw_align_format;

/* Writes the result as `swsearch align --format` does (TSV and JSON with
 * the paths' columns where the paths were found). SW_EINVAL for PAF or MAF
 * without paths. Write errors are the caller's to see (ferror). */
SW_API int sw_aligned_write(const sw_aligned *r, sw_align_format format, FILE *out, sw_error *err);
/* The columns whose base of x lies in from..to (1-based, 1 <= from <= to)
 * as text, in blocks of 60, each alignment in turn, as `swsearch align
 * --view` writes them (needs the paths). */
SW_API int sw_aligned_write_view(const sw_aligned *r, uint64_t from, uint64_t to, FILE *out, sw_error *err);

typedef enum { SW_ALIGN_PLOT_SVG = 0, SW_ALIGN_PLOT_PNG = 1 } sw_align_plot_format;

/* What a file name asks for: PNG for a name ending in ".png" (any case),
 * else SVG. */
SW_API sw_align_plot_format sw_align_plot_format_of(const char *path);
/* 1 where this library writes PNG (libpng was found when it was built). */
SW_API int sw_align_png_supported(void);
/* Draws every alignment's path over the two sequences, as `swsearch align
 * --plot` does (needs the paths). PNG: SW_EINVAL without PNG support,
 * SW_EIO when a write fails; SVG: write errors are the caller's (ferror). */
SW_API int sw_aligned_write_plot(const sw_aligned *r, sw_align_plot_format format, FILE *out, sw_error *err);

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

/* Receives pair k's merge, as soon as it is made, on one of the library's
 * threads (several at once); the merge is freed after the call. A nonzero
 * return (an SW_E* code with `err` set) stops the run as a failure of pair k. */
typedef int (*sw_merged_fn)(void *user, size_t pair, const sw_merged *m, sw_error *err);

typedef struct sw_pairs_info {
    int on_gpu;     /* 1: every pair was aligned on the GPU in one batch */
    int threads;    /* the threads that read, aligned (on the CPU) and handed out the pairs */
    uint64_t cells; /* the pairs' columns multiplied, summed over the pairs handed out */
} sw_pairs_info;

/* Many pairs: pair k aligns the alignments of a_paths[k] and b_paths[k]
 * and goes to `done`. On the GPU every pair is read on the threads, all are
 * aligned at once, then handed out on the threads; on the CPU (asked, or
 * under SW_DEVICE_AUTO when no GPU is usable or the scores do not fit it)
 * each thread reads, aligns and hands out one pair at a time. No pair
 * starts after a failure. A pair's failure is named by names[k] ("list:12:
 * ..."; `names` may be NULL: "pair 13: ..."). `info` may be NULL. */
SW_API int sw_profile_aligner_run_pairs(sw_profile_aligner *a, size_t count, const char *const *a_paths,
                                        const char *const *b_paths, const char *const *names, sw_merged_fn done,
                                        void *user, sw_pairs_info *info, sw_error *err);
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
