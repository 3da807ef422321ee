/* The public database search (include/swsearch.h): a search's settings,
 * query inputs, a database held between runs (sw_resident.h), runs through
 * the batched report of `swsearch search` (sw_report.h) and their summary,
 * and the hit sets, whose every field is what the program prints. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sw_alphabet.h"
#include "sw_api_internal.h"
#include "sw_clock.h"
#include "sw_db.h"
#include "sw_gpu.h"
#include "sw_matrix.h"
#include "sw_mpi.h"
#include "sw_outfmt.h"
#include "sw_pssm.h"
#include "sw_queries.h"
#include "sw_report.h"
#include "sw_resident.h"
#include "sw_search.h"
#include "sw_search_ranks.h"
#include "swsearch.h"

#define SW_MAX_GPUS 64

struct sw_search {
    char *matrix_spec; /* as given: a name or a path */
    sw_matrix *matrix;
    int gap_open, gap_extend;
    double evalue;
    size_t top;
    sw_device device;
    int gpus[SW_MAX_GPUS];
    int num_gpus, gpus_listed;
    uint64_t gpu_memory;
    int threads;
    sw_stats_method stats;
    int alignments;
    sw_cpu_engine cpu_engine;
    uint32_t gpu_threshold;
    sw_message_fn message;
    void *message_user;
    sw_message_fn warn; /* NULL: to `message` */
    void *warn_user;
    sw_progress_fn progress;
    void *progress_user;
    const sw_db *held_db; /* with `resident`, its decoded copy (sw_search_hold) */
    sw_resident *resident;
    sw_search_summary summary; /* of the last run */
    sw_mpi *job;               /* NULL: one process (sw_search_set_mpi) */
    sw_search_ranks *ranks;    /* the job's search of the last database run */
    sw_cancel_fn cancel;
    void *cancel_user;
    /* The scanner of the last sw_search_step, kept for later steps with the
     * same engine (what its first scan found, a resident copy), and the
     * engine it was made for. */
    sw_report_scanner *scanner;
    struct engine_key *scan_key;
    /* During an iterated search's rounds: who is told of each query's hits
     * (sw_report_options.tap). */
    int (*tap)(void *user, const sw_outfmt_query *query, const sw_outfmt_hit *hits, size_t n, sw_error *err);
    void *tap_user;
};

/* What requests must share to share a scan (sw_request_compatible). */
typedef struct engine_key {
    const sw_db *db;
    int8_t table[SW_CODE_LIMIT * SW_CODE_LIMIT];
    int gap_open, gap_extend;
    sw_device device;
    int gpus[SW_MAX_GPUS];
    int num_gpus, gpus_listed;
    uint64_t gpu_memory;
    int threads;
    sw_cpu_engine cpu_engine;
    uint32_t gpu_threshold;
    const sw_resident *resident; /* the held copy the request's database had */
} engine_key;

static int same_engine(const engine_key *a, const engine_key *b)
{
    if (a->db != b->db || memcmp(a->table, b->table, sizeof a->table) || a->gap_open != b->gap_open ||
        a->gap_extend != b->gap_extend || a->device != b->device || a->num_gpus != b->num_gpus ||
        a->gpus_listed != b->gpus_listed || a->gpu_memory != b->gpu_memory || a->threads != b->threads ||
        a->cpu_engine != b->cpu_engine || a->gpu_threshold != b->gpu_threshold || a->resident != b->resident)
        return 0;
    return !a->gpus_listed || !memcmp(a->gpus, b->gpus, (size_t)a->num_gpus * sizeof *a->gpus);
}

/* Queries read through a trampoline, so that their warnings reach the
 * search that reads them, whichever it is. */
struct sw_query_input {
    sw_query_reader *reader;
    sw_message_fn warn;
    void *warn_user;
};

typedef struct stored_query {
    char *id;
    size_t length, first, count;
} stored_query;

struct sw_hits {
    stored_query *queries;
    size_t num_queries, queries_cap;
    sw_hit_info *hits;
    size_t num_hits, hits_cap;
    char engine[160];
};

int sw_search_create(sw_search **out, sw_error *err)
{
    sw_error_clear(err);
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_search_create: no place for the search");
    *out = NULL;
    sw_search *s = calloc(1, sizeof *s);
    if (!s || !(s->matrix_spec = strdup(SW_DEFAULT_MATRIX))) {
        free(s);
        return sw_error_set(err, SW_ENOMEM, "out of memory");
    }
    int rc = sw_matrix_load(s->matrix_spec, &s->matrix, err);
    if (rc) {
        sw_search_free(s);
        return rc;
    }
    s->gap_open = SW_DEFAULT_GAP_OPEN;
    s->gap_extend = SW_DEFAULT_GAP_EXTEND;
    s->evalue = 10.0;
    s->top = 500;
    s->device = SW_DEVICE_AUTO;
    s->stats = SW_STATS_AUTO;
    s->alignments = 1;
    *out = s;
    return SW_OK;
}

void sw_search_free(sw_search *s)
{
    if (!s) return;
    sw_report_scanner_free(s->scanner);
    free(s->scan_key);
    sw_search_ranks_free(s->ranks);
    sw_mpi_leave(s->job);
    sw_resident_free(s->resident);
    sw_matrix_free(s->matrix);
    free(s->matrix_spec);
    free(s);
}

/* Takes matrix `m` (loaded from `spec`, as the output names it) if it
 * scores proteins with the search's gap costs; frees it otherwise. */
static int adopt_matrix(sw_search *s, const char *spec, sw_matrix *m, int rc, sw_error *err)
{
    char *copy = rc == SW_OK ? strdup(spec) : NULL;
    if (rc == SW_OK && !copy) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    sw_scoring check;
    if (rc == SW_OK) rc = sw_scoring_init(&check, m, s->gap_open, s->gap_extend, err);
    if (rc == SW_OK && sw_matrix_alphabet(m)->kind != SW_ALPHABET_PROTEIN)
        rc = sw_error_set(err, SW_EINVAL, "%s: a DNA matrix; a search compares proteins", spec);
    if (rc) {
        sw_matrix_free(m);
        free(copy);
        return rc;
    }
    sw_matrix_free(s->matrix);
    free(s->matrix_spec);
    s->matrix = m;
    s->matrix_spec = copy;
    return SW_OK;
}

int sw_search_set_matrix(sw_search *s, const char *name_or_path, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_matrix", "search");
    if (!name_or_path || !*name_or_path) return sw_error_set(err, SW_EINVAL, "sw_search_set_matrix: no matrix named");
    sw_matrix *m = NULL;
    int rc = sw_matrix_load(name_or_path, &m, err);
    return adopt_matrix(s, name_or_path, m, rc, err);
}

int sw_search_set_matrix_name(sw_search *s, const char *name, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_matrix_name", "search");
    if (!name || !*name) return sw_error_set(err, SW_EINVAL, "sw_search_set_matrix_name: no matrix named");
    sw_matrix *m = NULL;
    int rc = sw_matrix_load_name(name, &m, err);
    return adopt_matrix(s, name, m, rc, err);
}

int sw_search_set_matrix_text(sw_search *s, const char *label, const char *text, size_t length, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_matrix_text", "search");
    if (!label || !*label || !text) return sw_error_set(err, SW_EINVAL, "sw_search_set_matrix_text: missing argument");
    sw_matrix *m = NULL;
    int rc = sw_matrix_parse(text, length, label, &m, err);
    return adopt_matrix(s, label, m, rc, err);
}

int sw_search_set_gap_costs(sw_search *s, int gap_open, int gap_extend, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_gap_costs", "search");
    sw_scoring check;
    int rc = sw_scoring_init(&check, s->matrix, gap_open, gap_extend, err);
    if (rc) return rc;
    s->gap_open = gap_open;
    s->gap_extend = gap_extend;
    return SW_OK;
}

int sw_search_set_evalue(sw_search *s, double max_evalue, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_evalue", "search");
    if (!(max_evalue > 0)) return sw_error_set(err, SW_EINVAL, "the E-value cutoff must be above 0, not %g", max_evalue);
    s->evalue = max_evalue;
    return SW_OK;
}

int sw_search_set_top(sw_search *s, size_t top, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_top", "search");
    /* The program's bound: hit lists are allocated whole. */
    if (top < 1 || top > 1000000) return sw_error_set(err, SW_EINVAL, "top must be from 1 to 1000000, not %zu", top);
    s->top = top;
    return SW_OK;
}

int sw_search_set_device(sw_search *s, sw_device device, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_device", "search");
    if (device != SW_DEVICE_AUTO && device != SW_DEVICE_CPU && device != SW_DEVICE_GPU)
        return sw_error_set(err, SW_EINVAL, "unknown device %d", (int)device);
    s->device = device;
    return SW_OK;
}

int sw_search_set_gpus(sw_search *s, const int *gpus, int count, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_gpus", "search");
    if (count < 0 || count > SW_MAX_GPUS)
        return sw_error_set(err, SW_EINVAL, "a search uses 1 to %d GPUs, not %d", SW_MAX_GPUS, count);
    if (gpus && count == 0) return sw_error_set(err, SW_EINVAL, "an empty list of GPUs");
    for (int i = 0; gpus && i < count; i++) {
        if (gpus[i] < 0) return sw_error_set(err, SW_EINVAL, "no GPU %d", gpus[i]);
        s->gpus[i] = gpus[i];
    }
    s->num_gpus = count;
    s->gpus_listed = gpus != NULL;
    return SW_OK;
}

int sw_search_set_gpu_memory(sw_search *s, uint64_t bytes, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_gpu_memory", "search");
    s->gpu_memory = bytes;
    return SW_OK;
}

int sw_search_set_threads(sw_search *s, int threads, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_threads", "search");
    if (threads < 0 || threads > 4096) return sw_error_set(err, SW_EINVAL, "threads must be from 0 to 4096, not %d", threads);
    s->threads = threads;
    return SW_OK;
}

int sw_search_set_statistics(sw_search *s, sw_stats_method method, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_statistics", "search");
    if (method != SW_STATS_AUTO && method != SW_STATS_TABLE && method != SW_STATS_FIT)
        return sw_error_set(err, SW_EINVAL, "unknown statistics method %d", (int)method);
    s->stats = method;
    return SW_OK;
}

int sw_search_set_alignments(sw_search *s, int with_alignments, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_alignments", "search");
    s->alignments = with_alignments != 0;
    return SW_OK;
}

int sw_search_set_messages(sw_search *s, sw_message_fn fn, void *user, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_messages", "search");
    s->message = fn;
    s->message_user = user;
    return SW_OK;
}

int sw_search_set_cpu_engine(sw_search *s, const char *name, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_cpu_engine", "search");
    /* "simd", the name of the default before there were two SIMD engines,
     * still means the default. */
    if (name && (!strcmp(name, "auto") || !strcmp(name, "simd"))) s->cpu_engine = SW_CPU_ENGINE_AUTO;
    else if (name && !strcmp(name, "striped")) s->cpu_engine = SW_CPU_ENGINE_STRIPED;
    else if (name && !strcmp(name, "inter")) s->cpu_engine = SW_CPU_ENGINE_INTER;
    else if (name && !strcmp(name, "reference")) s->cpu_engine = SW_CPU_ENGINE_REFERENCE;
    else
        return sw_error_set(err, SW_EINVAL, "the CPU engine is 'auto', 'striped', 'inter' or 'reference', not '%s'",
                            name ? name : "");
    return SW_OK;
}

int sw_search_set_gpu_threshold(sw_search *s, uint32_t length, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_gpu_threshold", "search");
    s->gpu_threshold = length;
    return SW_OK;
}

int sw_search_set_progress(sw_search *s, sw_progress_fn fn, void *user, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_progress", "search");
    s->progress = fn;
    s->progress_user = user;
    return SW_OK;
}

int sw_search_set_warnings(sw_search *s, sw_message_fn fn, void *user, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_warnings", "search");
    s->warn = fn;
    s->warn_user = user;
    return SW_OK;
}

int sw_search_set_mpi(sw_search *s, int use, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_mpi", "search");
    if (!use || s->job || !sw_mpi_launched()) return SW_OK;
    return sw_mpi_join(&s->job, err);
}

int sw_search_get_rank(const sw_search *s, int *rank, int *ranks, int *local_rank, int *local_ranks, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_get_rank", "search");
    if (rank) *rank = sw_mpi_rank(s->job);
    if (ranks) *ranks = sw_mpi_size(s->job);
    if (local_rank) *local_rank = sw_mpi_local_rank(s->job);
    if (local_ranks) *local_ranks = sw_mpi_local_size(s->job);
    return SW_OK;
}

int sw_search_agree(sw_search *s, int status, sw_error *err)
{
    if (!s || !s->job) return status;
    return sw_mpi_agree(s->job, status, err);
}

/* Where several ranks share a machine: those given no GPUs take every k-th
 * of the GPUs (of the first N where N was set), k the ranks on the
 * machine, or share one where there are fewer GPUs than ranks; those given
 * no threads divide the cores. */
static void share_machine(const sw_search *s, sw_search_options *opt, int *gpus)
{
    const int local = sw_mpi_local_rank(s->job), k = sw_mpi_local_size(s->job);
    if (k <= 1) return;
    if (!s->threads) {
        const int cpus = sw_clock_online_cpus() / k;
        opt->threads = cpus > 1 ? cpus : 1;
    }
    if (s->gpus_listed || s->device == SW_DEVICE_CPU || !sw_gpu_compiled()) return;
    sw_gpu_info infos[SW_MAX_GPUS];
    int count = 0;
    if (sw_gpu_list(infos, SW_MAX_GPUS, &count, NULL) || count <= 0) return;
    if (s->num_gpus && s->num_gpus < count) count = s->num_gpus;
    opt->gpus = gpus;
    opt->num_gpus = sw_gpu_share(count, local, k, gpus);
}

int sw_search_warm_up(const sw_search *s, sw_gpus_warm **out, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_warm_up", "search");
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_search_warm_up: no place for the warm-up");
    *out = NULL;
    if (s->device == SW_DEVICE_CPU) return SW_OK;
    const int k = sw_mpi_local_size(s->job);
    if (k > 1 && !s->gpus_listed) return sw_api_gpus_warm(sw_gpu_warm_up_start_share(s->num_gpus, sw_mpi_local_rank(s->job), k), out, err);
    return sw_gpus_warm_up(s->gpus_listed ? s->gpus : NULL, s->num_gpus, out, err);
}

int sw_search_get_gpus(const sw_search *s, int *gpus, int max, int *count, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_get_gpus", "search");
    if (!count || max < 0 || (max && !gpus)) return sw_error_set(err, SW_EINVAL, "sw_search_get_gpus: bad arguments");
    int shared[SW_MAX_GPUS];
    sw_search_options opt = {.gpus = s->gpus_listed ? s->gpus : NULL, .num_gpus = s->num_gpus};
    if (s->job) share_machine(s, &opt, shared);
    int n = opt.num_gpus;
    if (n > max) n = max;
    for (int i = 0; i < n; i++) gpus[i] = opt.gpus ? opt.gpus[i] : i;
    *count = n;
    return SW_OK;
}

int sw_search_check_format(const char *outfmt, sw_error *err)
{
    sw_error_clear(err);
    if (!outfmt) return sw_error_set(err, SW_EINVAL, "sw_search_check_format: no format given");
    sw_outfmt *format = NULL;
    int rc = sw_outfmt_parse(outfmt, &format, err);
    sw_outfmt_free(format);
    return rc;
}

int sw_search_hold(sw_search *s, const sw_db *db, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_hold", "search");
    /* A kept scanner may point at the resident copy. */
    sw_report_scanner_free(s->scanner);
    s->scanner = NULL;
    sw_resident_free(s->resident);
    s->resident = NULL;
    s->held_db = NULL;
    if (!db) return SW_OK;
    int rc = sw_db_check_headers(db, err);
    if (rc == SW_OK) rc = sw_resident_create(db, s->threads, 1, &s->resident, err);
    if (rc == SW_OK) s->held_db = db;
    return rc;
}

int sw_search_set_cancel(sw_search *s, sw_cancel_fn fn, void *user, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_set_cancel", "search");
    s->cancel = fn;
    s->cancel_user = user;
    return SW_OK;
}

int sw_search_get_summary(const sw_search *s, sw_search_summary *out, sw_error *err)
{
    sw_error_clear(err);
    if (!s || !out) return sw_error_set(err, SW_EINVAL, "sw_search_get_summary: missing argument");
    *out = s->summary;
    return SW_OK;
}

static void warn_of_search(const sw_search *s, sw_message_fn *fn, void **user)
{
    *fn = s->warn ? s->warn : s->message;
    *user = s->warn ? s->warn_user : s->message_user;
}

/* ---- Query inputs ---- */

static void input_warn(void *user, const char *message)
{
    sw_query_input *in = user;
    if (in->warn) in->warn(in->warn_user, message);
}

static int input_new(sw_query_input **out, sw_error *err)
{
    sw_error_clear(err);
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_query_input_open: no place for the input");
    *out = calloc(1, sizeof **out);
    return *out ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory");
}

int sw_query_input_open(const char *fasta_path, sw_query_input **out, sw_error *err)
{
    int rc = input_new(out, err);
    if (rc) return rc;
    if (!fasta_path) rc = sw_error_set(err, SW_EINVAL, "sw_query_input_open: no file named");
    else rc = sw_queries_open(fasta_path, sw_alphabet_protein(), input_warn, *out, &(*out)->reader, err);
    if (rc) {
        sw_query_input_close(*out);
        *out = NULL;
    }
    return rc;
}

int sw_query_input_open_fd(int fd, const char *name, uint64_t max_length, sw_query_input **out, sw_error *err)
{
    int rc = input_new(out, err);
    if (rc) return rc;
    if (fd < 0) rc = sw_error_set(err, SW_EINVAL, "sw_query_input_open_fd: no descriptor (%d)", fd);
    else
        rc = sw_queries_open_fd(fd, name ? name : "<queries>", sw_alphabet_protein(), max_length, input_warn, *out,
                                &(*out)->reader, err);
    if (rc) {
        sw_query_input_close(*out);
        *out = NULL;
    }
    return rc;
}

/* The query of a PSSM, its name split as a FASTA header's: identifier,
 * then description. */
static int input_of_pssm(const sw_pssm *p, const char *name, const char *source, sw_query_input **out,
                         sw_error *err)
{
    char *id = strdup(name && *name ? name : "query1");
    if (!id) return sw_error_set(err, SW_ENOMEM, "out of memory");
    char *desc = id + strcspn(id, " \t");
    if (*desc) {
        *desc++ = '\0';
        desc += strspn(desc, " \t");
    }
    sw_query_set *set = NULL;
    int rc = sw_queries_create(&set, err);
    if (rc == SW_OK) rc = sw_queries_add_profile(set, id, desc, p->query, p->length, p->scores, err);
    free(id);
    if (rc == SW_OK) rc = input_new(out, err);
    if (rc == SW_OK) {
        rc = sw_queries_open_set(set, source, &(*out)->reader, err);
        set = NULL;
        if (rc) {
            free(*out);
            *out = NULL;
        }
    }
    sw_queries_free(set);
    return rc;
}

/* The query of a PSSM read from `source`, for the search `s`: at most
 * `max_length` positions (0: no bound). */
static int input_of_read_pssm(const sw_search *s, const sw_pssm *p, const char *source, uint64_t max_length,
                              sw_query_input **out, sw_error *err)
{
    const char *mine = sw_matrix_name(s->matrix);
    /* Scores in another matrix's units would get the wrong statistics. */
    if (p->matrix[0] && strcmp(p->matrix, mine ? mine : s->matrix_spec))
        return sw_error_set(err, SW_EINVAL, "%s: a PSSM made for %s; the search uses %s", source, p->matrix,
                            mine ? mine : s->matrix_spec);
    if (max_length && p->length > max_length)
        return sw_error_set(err, SW_ELIMIT, "%s: the PSSM has %zu positions, more than the %llu a query may have",
                            source, p->length, (unsigned long long)max_length);
    return input_of_pssm(p, p->label, source, out, err);
}

/* The query of an alignment (sw_query_input_open_msa), read from `source`;
 * its length bounded before its PSSM takes memory and time. */
static int input_of_msa(const sw_search *s, const sw_msa *m, const char *source, uint64_t max_length,
                        sw_query_input **out, sw_error *err)
{
    if (max_length) {
        const uint8_t *query = sw_msa_row(m, 0);
        uint64_t residues = 0;
        for (size_t c = 0; c < sw_msa_columns(m); c++) residues += query[c] != SW_MSA_GAP;
        if (residues > max_length)
            return sw_error_set(err, SW_ELIMIT, "%s: the query (the first row) has %llu residues, more than %llu",
                                source, (unsigned long long)residues, (unsigned long long)max_length);
    }
    sw_pssm_options o;
    sw_pssm_options_init(&o);
    o.gap_open = s->gap_open;
    o.gap_extend = s->gap_extend;
    sw_pssm *p = NULL;
    int rc = sw_pssm_from_msa(m, s->matrix, &o, &p, err);
    if (rc == SW_OK) rc = input_of_pssm(p, sw_msa_name(m, 0), source, out, err);
    sw_pssm_free(p);
    return rc;
}

int sw_query_input_open_pssm(const sw_search *s, const char *path, sw_query_input **out, sw_error *err)
{
    SW_API_CHECK(s, "sw_query_input_open_pssm", "search");
    if (!path || !out) return sw_error_set(err, SW_EINVAL, "sw_query_input_open_pssm: missing argument");
    *out = NULL;
    sw_pssm *p = NULL;
    int rc = sw_pssm_read(path, s->matrix, &p, err);
    if (rc == SW_OK) rc = input_of_read_pssm(s, p, strcmp(path, "-") ? path : "<stdin>", 0, out, err);
    sw_pssm_free(p);
    return rc;
}

int sw_query_input_parse_pssm(const sw_search *s, const char *text, size_t len, const char *name,
                              uint64_t max_length, sw_query_input **out, sw_error *err)
{
    SW_API_CHECK(s, "sw_query_input_parse_pssm", "search");
    if ((!text && len) || !out) return sw_error_set(err, SW_EINVAL, "sw_query_input_parse_pssm: missing argument");
    *out = NULL;
    if (!name) name = "<pssm>";
    sw_pssm *p = NULL;
    int rc = sw_pssm_parse(text ? text : "", len, name, s->matrix, &p, err);
    if (rc == SW_OK) rc = input_of_read_pssm(s, p, name, max_length, out, err);
    sw_pssm_free(p);
    return rc;
}

int sw_query_input_open_msa(const sw_search *s, const char *path, sw_query_input **out, sw_error *err)
{
    SW_API_CHECK(s, "sw_query_input_open_msa", "search");
    if (!path || !out) return sw_error_set(err, SW_EINVAL, "sw_query_input_open_msa: missing argument");
    *out = NULL;
    sw_msa *m = NULL;
    int rc = sw_msa_read(path, &m, err);
    if (rc == SW_OK) rc = input_of_msa(s, m, path, 0, out, err);
    sw_msa_free(m);
    return rc;
}

int sw_query_input_parse_msa(const sw_search *s, const char *text, size_t len, const char *name,
                             uint64_t max_length, sw_query_input **out, sw_error *err)
{
    SW_API_CHECK(s, "sw_query_input_parse_msa", "search");
    if ((!text && len) || !out) return sw_error_set(err, SW_EINVAL, "sw_query_input_parse_msa: missing argument");
    *out = NULL;
    if (!name) name = "<msa>";
    sw_msa *m = NULL;
    int rc = sw_msa_parse(text ? text : "", len, name, &m, err);
    if (rc == SW_OK) rc = input_of_msa(s, m, name, max_length, out, err);
    sw_msa_free(m);
    return rc;
}

void sw_query_input_close(sw_query_input *in)
{
    if (!in) return;
    sw_queries_close(in->reader);
    free(in);
}

/* ---- Runs ---- */

/* The format whose fields the hits are made of: it also tells the report
 * what to compute (statistics always; the alignment and the rows when
 * asked). */
static const char *const FIELDS_ALIGNED = "6 qseqid sseqid stitle qlen slen score evalue bitscore qseq sseq cigar btop";
static const char *const FIELDS_SCORES = "6 qseqid sseqid stitle qlen slen score evalue bitscore";

static char *prefix_of(const sw_db *db)
{
    const char *index = sw_db_path(db, SW_DB_FILE_INDEX);
    char *p = strdup(index ? index : "");
    size_t n = p ? strlen(p) : 0;
    if (n > 4 && !strcmp(p + n - 4, ".swi")) p[n - 4] = '\0';
    return p;
}

static void keep_summary(sw_search_summary *o, const sw_report_summary *r)
{
    const sw_search_stats *st = &r->stats;
    memset(o, 0, sizeof *o);
    o->queries = r->queries;
    o->batches = r->batches;
    o->query_residues = r->query_residues;
    snprintf(o->engine, sizeof o->engine, "%s", st->engine);
    o->threads = st->threads;
    o->on_gpu = st->on_gpu;
    o->scan_seconds = st->scan_seconds;
    o->cells = st->cells;
    o->load_seconds = st->load_seconds;
    o->gpu_plan_seconds = st->gpu_plan_seconds;
    o->gpu_start_seconds = st->gpu_start_seconds;
    o->decode_seconds = st->decode_seconds;
    o->decode_wait_seconds = st->decode_wait_seconds;
    o->upload_seconds = st->upload_seconds;
    o->transfer_seconds = st->transfer_seconds;
    o->recomputed = st->recomputed;
    o->gpu_streamed = st->gpu_streamed;
    o->gpu_qp_length = st->gpu_qp_length;
    o->gpu_threshold = st->gpu_threshold;
    o->gpu_thresholds_differ = st->gpu_thresholds_differ;
    snprintf(o->gpu_threshold_source, sizeof o->gpu_threshold_source, "%s",
             st->gpu_threshold_source ? st->gpu_threshold_source : "");
    o->hits = r->hits;
    o->alignments = r->alignments;
    o->aligned_ahead = r->aligned_ahead;
    o->align_seconds = r->align_seconds;
    o->read_seconds = r->read_seconds;
    snprintf(o->statistics, sizeof o->statistics, "%s", r->statistics);
}

/* What every header of a search of `db` (at `db_path`) by `s` names. */
static sw_outfmt_run run_of(const sw_search *s, const sw_db *db, const char *db_path)
{
    return (sw_outfmt_run){
        .version = SW_VERSION_STRING,
        .db_path = db_path,
        .db_seqs = sw_db_num_seqs(db),
        .db_residues = sw_db_num_residues(db),
        .matrix = s->matrix_spec,
        .gap_open = s->gap_open,
        .gap_extend = s->gap_extend,
        .evalue_cutoff = s->evalue,
        .table = sw_matrix_table(s->matrix),
    };
}

static int report(sw_search *s, const sw_db *db, sw_query_reader *queries, const char *outfmt, FILE *out,
                  int (*sink)(void *, const sw_outfmt_query *, const sw_outfmt_hit *, size_t, sw_error *),
                  void *sink_user, char *engine, size_t engine_cap, sw_error *err)
{
    memset(&s->summary, 0, sizeof s->summary);
    /* Under MPI every rank comes here for every run: rank 0 runs the
     * report with the other ranks searching beside it, which serve its
     * batches until it ends, whatever failed where (sw_search_ranks.h). */
    const int worker = s->job && sw_mpi_rank(s->job) != 0;
    if (s->job && (!s->ranks || sw_search_ranks_db(s->ranks) != db)) {
        sw_search_ranks_free(s->ranks);
        s->ranks = NULL;
        int rc = sw_search_ranks_create(s->job, db, &s->ranks, err);
        if (rc) return rc;
    }
    const int held = !s->job && s->resident && s->held_db == db;
    sw_outfmt *format = NULL;
    sw_scoring scoring;
    memset(&scoring, 0, sizeof scoring);
    char *db_path = prefix_of(db);
    int rc = db_path ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory");
    if (rc == SW_OK && sw_db_alphabet(db) != SW_ALPHABET_PROTEIN)
        rc = sw_error_set(err, SW_EFORMAT, "a DNA database; search compares proteins");
    /* A damaged header chunk fails the run before any output, not when a
     * hit happens to fall into it (a held database was checked once). */
    if (rc == SW_OK && !held && !worker) rc = sw_db_check_headers(db, err);
    if (rc == SW_OK && !worker) rc = sw_outfmt_parse(outfmt, &format, err);
    if (rc == SW_OK) rc = sw_scoring_init(&scoring, s->matrix, s->gap_open, s->gap_extend, err);
    /* The engine's settings, as every rank takes them. */
    int gpus[SW_MAX_GPUS];
    sw_search_options opt = {
        .top_n = s->top,
        .threads = s->threads,
        .cpu_engine = s->cpu_engine,
        .device = s->device,
        .gpus = s->gpus_listed ? s->gpus : NULL,
        .num_gpus = s->num_gpus,
        .gpu_memory = s->gpu_memory,
        .gpu_threshold = s->gpu_threshold,
        .note = s->message,
        .note_user = s->message_user,
        .cancelled = s->cancel,
        .cancelled_user = s->cancel_user,
    };
    if (s->job) share_machine(s, &opt, gpus);
    if (worker) {
        sw_error failed;
        sw_error_clear(&failed);
        if (err) failed = *err;
        rc = sw_search_ranks_serve(s->ranks, &scoring, &opt, rc, &failed, err);
        free(db_path);
        return rc;
    }
    if (rc == SW_OK) {
        /* Rank 0, or a process alone: progress, the held database, the
         * other ranks. */
        opt.progress = s->progress;
        opt.progress_user = s->progress_user;
        opt.resident = held ? s->resident : NULL;
        opt.ranks = s->ranks;
        sw_report_options rep = {
            .format = format,
            .stats = s->stats,
            .matrix_name = sw_matrix_name(s->matrix),
            .max_evalue = s->evalue,
            .run = run_of(s, db, db_path),
            .sink = sink,
            .sink_user = sink_user,
            .tap = s->tap,
            .tap_user = s->tap_user,
        };
        sw_report_summary summary;
        memset(&summary, 0, sizeof summary);
        rc = sw_report_search(out, db, queries, &scoring, &opt, &rep, NULL, &summary, err);
        if (rc == SW_OK && engine) snprintf(engine, engine_cap, "%s", summary.stats.engine);
        keep_summary(&s->summary, &summary);
    }
    if (s->ranks) {
        sw_error ended;
        const int end_rc = sw_search_ranks_end(s->ranks, rc, &ended);
        if (rc == SW_OK && end_rc) {
            rc = end_rc;
            if (err) *err = ended;
        }
    }
    sw_outfmt_free(format);
    free(db_path);
    return rc;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * size);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

typedef struct collect {
    sw_hits *h;
    int aligned;
} collect;

static int text(const char *field, const sw_outfmt_query *q, const sw_outfmt_hit *hit, const char **out,
                sw_error *err)
{
    char *s = NULL;
    int rc = sw_outfmt_field_text(field, q, hit, &s, err);
    if (rc == SW_OK) *out = s;
    return rc;
}

static int collect_query(void *user, const sw_outfmt_query *q, const sw_outfmt_hit *hits, size_t n, sw_error *err)
{
    collect *c = user;
    sw_hits *h = c->h;
    if (grow((void **)&h->queries, &h->queries_cap, h->num_queries + 1, sizeof *h->queries) ||
        grow((void **)&h->hits, &h->hits_cap, h->num_hits + n, sizeof *h->hits))
        return sw_error_set(err, SW_ENOMEM, "out of memory keeping hits");
    stored_query *sq = &h->queries[h->num_queries];
    memset(sq, 0, sizeof *sq);
    sq->length = q->length;
    sq->first = h->num_hits;
    sw_outfmt_hit none = {.header = ""};
    const char *id = NULL;
    int rc = text("qseqid", q, &none, &id, err);
    if (rc) return rc;
    sq->id = (char *)id;
    h->num_queries++;
    for (size_t i = 0; i < n; i++) {
        const sw_outfmt_hit *x = &hits[i];
        sw_hit_info *o = &h->hits[h->num_hits];
        memset(o, 0, sizeof *o);
        o->qseqid = sq->id;
        o->qlen = q->length;
        o->slen = x->length;
        o->score = x->score;
        o->bitscore = x->bits;
        o->evalue = x->evalue;
        o->qseq = o->sseq = o->cigar = o->btop = "";
        h->num_hits++; /* counted before its strings, so that sw_hits_free frees what was made */
        sq->count++;
        if ((rc = text("sseqid", q, x, &o->sseqid, err)) || (rc = text("stitle", q, x, &o->stitle, err))) return rc;
        const sw_alignment *a = x->alignment;
        if (!c->aligned || !a) continue;
        o->qstart = a->query_start;
        o->qend = a->query_end;
        o->sstart = a->subject_start;
        o->send = a->subject_end;
        o->length = a->length;
        o->nident = a->identities;
        o->mismatch = a->mismatches;
        o->positive = a->positives;
        o->gapopen = a->gap_opens;
        o->gaps = a->gaps;
        o->pident = sw_outfmt_percent(a->identities, a->length);
        o->ppos = sw_outfmt_percent(a->positives, a->length);
        o->qcovhsp = sw_outfmt_percent(a->query_end - a->query_start + 1, q->length);
        if ((rc = text("qseq", q, x, &o->qseq, err)) || (rc = text("sseq", q, x, &o->sseq, err)) ||
            (rc = text("cigar", q, x, &o->cigar, err)) || (rc = text("btop", q, x, &o->btop, err)))
            return rc;
    }
    return SW_OK;
}

/* A rank other than 0 of an MPI job: it reads no queries and writes
 * nothing, but searches its share of each batch (see report()). */
static int is_worker(const sw_search *s) { return s->job && sw_mpi_rank(s->job) != 0; }

static int run_reader(sw_search *s, const sw_db *db, sw_query_reader *queries, sw_hits **out, sw_error *err)
{
    sw_hits *h = calloc(1, sizeof *h);
    if (!h) return sw_error_set(err, SW_ENOMEM, "out of memory");
    collect c = {h, s->alignments};
    int rc = report(s, db, queries, s->alignments ? FIELDS_ALIGNED : FIELDS_SCORES, NULL, collect_query, &c,
                    h->engine, sizeof h->engine, err);
    if (rc) {
        sw_hits_free(h);
        return rc;
    }
    *out = h;
    return SW_OK;
}

/* Queries given in memory become a FASTA text in an anonymous file, read
 * by the same reader as a query file, after a check that names the query
 * at fault (the reader's messages would name lines of the text). */
static int queries_in_memory(const sw_sequence *queries, size_t n, sw_query_reader **out, sw_error *err)
{
    const sw_alphabet *protein = sw_alphabet_protein();
    for (size_t i = 0; i < n; i++) {
        const sw_sequence *q = &queries[i];
        const char *header = q->header ? q->header : "";
        size_t len = q->residues && !q->length ? strlen(q->residues) : q->length;
        if (!q->residues || len == 0) return sw_error_set(err, SW_EFORMAT, "query %zu (%.64s): no residues", i + 1, header);
        if (strpbrk(header, "\r\n"))
            return sw_error_set(err, SW_EFORMAT, "query %zu: a line break in its header", i + 1);
        for (size_t k = 0; k < len; k++) {
            unsigned char ch = (unsigned char)q->residues[k];
            if (sw_alphabet_encode(protein, ch) == SW_CODE_INVALID) {
                char shown[16];
                sw_error_quote(shown, sizeof shown, &ch, 1, 4);
                return sw_error_set(err, SW_EFORMAT, "query %zu (%.64s): invalid residue '%s' at position %zu", i + 1,
                                    header[0] ? header : "no header", shown, k + 1);
            }
        }
    }
    int fd = memfd_create("swsearch-queries", MFD_CLOEXEC);
    if (fd < 0) return sw_error_set(err, SW_EIO, "cannot hold the queries: memfd_create failed");
    FILE *f = fdopen(dup(fd), "w");
    int rc = f ? SW_OK : sw_error_set(err, SW_EIO, "cannot hold the queries");
    for (size_t i = 0; rc == SW_OK && i < n; i++) {
        const sw_sequence *q = &queries[i];
        size_t len = q->length ? q->length : strlen(q->residues);
        fprintf(f, ">%s\n", q->header ? q->header : "");
        fwrite(q->residues, 1, len, f);
        fputc('\n', f);
    }
    if (f && (fclose(f) != 0) && rc == SW_OK) rc = sw_error_set(err, SW_EIO, "cannot hold the queries");
    if (rc == SW_OK && lseek(fd, 0, SEEK_SET) != 0) rc = sw_error_set(err, SW_EIO, "cannot hold the queries");
    if (rc == SW_OK) rc = sw_queries_open_fd(fd, "<queries>", protein, 0, NULL, NULL, out, err);
    /* The reader reads the descriptor it was given, left open: the reader
     * is closed before the descriptor (see sw_search_run). */
    if (rc) close(fd);
    return rc == SW_OK ? fd : rc;
}

int sw_search_run(sw_search *s, const sw_db *db, const sw_sequence *queries, size_t num_queries, sw_hits **out,
                  sw_error *err)
{
    SW_API_CHECK(s, "sw_search_run", "search");
    if (!db || !out) return sw_error_set(err, SW_EINVAL, "sw_search_run: missing argument");
    *out = NULL;
    if (is_worker(s)) return run_reader(s, db, NULL, out, err);
    if (num_queries && !queries) return sw_error_set(err, SW_EINVAL, "sw_search_run: missing argument");
    if (num_queries == 0) return sw_error_set(err, SW_EINVAL, "no queries given");
    sw_query_reader *reader = NULL;
    int fd = queries_in_memory(queries, num_queries, &reader, err);
    if (fd < 0) return fd;
    int rc = run_reader(s, db, reader, out, err);
    sw_queries_close(reader);
    close(fd);
    return rc;
}

int sw_search_run_fasta(sw_search *s, const sw_db *db, const char *fasta_path, sw_hits **out, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_run_fasta", "search");
    if (!db || !out) return sw_error_set(err, SW_EINVAL, "sw_search_run_fasta: missing argument");
    *out = NULL;
    if (is_worker(s)) return run_reader(s, db, NULL, out, err);
    if (!fasta_path) return sw_error_set(err, SW_EINVAL, "sw_search_run_fasta: missing argument");
    sw_query_input *in = NULL;
    int rc = sw_query_input_open(fasta_path, &in, err);
    if (rc == SW_OK) {
        warn_of_search(s, &in->warn, &in->warn_user);
        rc = run_reader(s, db, in->reader, out, err);
    }
    sw_query_input_close(in);
    return rc;
}

int sw_search_write(sw_search *s, const sw_db *db, const char *fasta_path, const char *outfmt, FILE *out,
                    sw_error *err)
{
    SW_API_CHECK(s, "sw_search_write", "search");
    if (db && is_worker(s)) return report(s, db, NULL, outfmt ? outfmt : "6", NULL, NULL, NULL, NULL, 0, err);
    if (!db || !fasta_path || !out) return sw_error_set(err, SW_EINVAL, "sw_search_write: missing argument");
    sw_query_input *in = NULL;
    int rc = sw_query_input_open(fasta_path, &in, err);
    if (rc == SW_OK) rc = sw_search_write_input(s, db, in, outfmt, out, err);
    sw_query_input_close(in);
    return rc;
}

int sw_search_write_input(sw_search *s, const sw_db *db, sw_query_input *in, const char *outfmt, FILE *out,
                          sw_error *err)
{
    SW_API_CHECK(s, "sw_search_write_input", "search");
    if (db && is_worker(s)) return report(s, db, NULL, outfmt ? outfmt : "6", NULL, NULL, NULL, NULL, 0, err);
    if (!db || !in || !out) return sw_error_set(err, SW_EINVAL, "sw_search_write_input: missing argument");
    warn_of_search(s, &in->warn, &in->warn_user);
    int rc = report(s, db, in->reader, outfmt ? outfmt : "6", out, NULL, NULL, NULL, 0, err);
    in->warn = NULL;
    return rc;
}

/* ---- Iterated search ---- */

/* One round's hits with an E-value up to the inclusion threshold: their
 * database numbers and their rows over the query's positions (the subject's
 * residue where the alignment pairs one with the query position, a gap
 * where the query position is in a gap or outside the alignment; the
 * subject's residues against gaps in the query are left out, as in
 * PSI-BLAST's query-anchored alignment). */
typedef struct included {
    double inclusion;
    size_t length; /* of the query */
    uint64_t *seqs;
    uint8_t **rows;
    size_t n, cap;
} included;

static void included_clear(included *x)
{
    for (size_t i = 0; i < x->n; i++) free(x->rows[i]);
    free(x->rows);
    free(x->seqs);
    x->rows = NULL;
    x->seqs = NULL;
    x->n = x->cap = 0;
}

static int include_hits(void *user, const sw_outfmt_query *q, const sw_outfmt_hit *hits, size_t n, sw_error *err)
{
    included *x = user;
    for (size_t i = 0; i < n; i++) {
        const sw_outfmt_hit *h = &hits[i];
        if (!(h->evalue <= x->inclusion) || !h->alignment || !h->residues) continue;
        if (x->n == x->cap) {
            size_t cap = x->cap ? 2 * x->cap : 64;
            uint64_t *seqs = realloc(x->seqs, cap * sizeof *seqs);
            if (seqs) x->seqs = seqs;
            uint8_t **rows = realloc(x->rows, cap * sizeof *rows);
            if (rows) x->rows = rows;
            if (!seqs || !rows) return sw_error_set(err, SW_ENOMEM, "out of memory keeping included hits");
            x->cap = cap;
        }
        uint8_t *row = malloc(q->length ? q->length : 1);
        if (!row) return sw_error_set(err, SW_ENOMEM, "out of memory keeping included hits");
        memset(row, SW_MSA_GAP, q->length);
        const sw_alignment *a = h->alignment;
        size_t qi = a->query_start - 1, sj = a->subject_start - 1;
        for (size_t k = 0; k < a->num_runs; k++) {
            const uint32_t kind = SW_OP_KIND(a->runs[k]), len = SW_OP_LEN(a->runs[k]);
            if (kind == SW_OP_M)
                for (uint32_t t = 0; t < len; t++) row[qi + t] = h->residues[sj + t];
            if (kind != SW_OP_D) qi += len;
            if (kind != SW_OP_I) sj += len;
        }
        x->seqs[x->n] = h->seq;
        x->rows[x->n++] = row;
    }
    return SW_OK;
}

static int by_seq(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether round `now` includes a sequence that round `before` did not. */
static int includes_new(const included *now, const included *before)
{
    uint64_t *old = malloc((before->n ? before->n : 1) * sizeof *old);
    if (!old) return 1;
    if (before->n) memcpy(old, before->seqs, before->n * sizeof *old);
    qsort(old, before->n, sizeof *old, by_seq);
    int found = 0;
    for (size_t i = 0; i < now->n && !found; i++)
        found = !bsearch(&now->seqs[i], old, before->n, sizeof *old, by_seq);
    free(old);
    return found;
}

/* The PSSM of the query and the included rows (the query first). */
static int profile_of(const sw_search *s, const char *id, const uint8_t *query, size_t length, const included *x,
                      sw_pssm **out, sw_error *err)
{
    const size_t n = x->n + 1;
    const uint8_t **rows = malloc(n * sizeof *rows);
    const char **names = malloc(n * sizeof *names);
    int rc = rows && names ? SW_OK : sw_error_set(err, SW_ENOMEM, "out of memory building the profile");
    sw_msa *m = NULL;
    if (rc == SW_OK) {
        rows[0] = query;
        names[0] = id;
        for (size_t i = 0; i < x->n; i++) {
            rows[i + 1] = x->rows[i];
            names[i + 1] = "hit";
        }
        rc = sw_msa_from_rows(names, rows, n, length, &m, err);
    }
    if (rc == SW_OK) {
        sw_pssm_options o;
        sw_pssm_options_init(&o);
        o.label = id;
        o.gap_open = s->gap_open;
        o.gap_extend = s->gap_extend;
        rc = sw_pssm_from_msa(m, s->matrix, &o, out, err);
    }
    sw_msa_free(m);
    free(rows);
    free(names);
    return rc;
}

/* Whether profile `next` scores every code of every position as the round
 * that made it searched: `now` (NULL: the query itself, with the matrix),
 * so that searching with it would repeat that round. */
static int scores_as(const sw_pssm *next, const sw_pssm *now, const uint8_t *query, size_t length,
                     const sw_matrix *m, sw_error *err, int *same)
{
    *same = 0;
    if (now) {
        *same = !memcmp(next->scores, now->scores, length * SW_CODE_LIMIT);
        return SW_OK;
    }
    sw_pssm *alone = NULL;
    int rc = sw_pssm_from_query(query, length, m, NULL, &alone, err);
    if (rc == SW_OK) *same = !memcmp(next->scores, alone->scores, length * SW_CODE_LIMIT);
    sw_pssm_free(alone);
    return rc;
}

/* One query of an iterated search. */
typedef struct iter_query {
    char *id, *desc;
    uint8_t *query;
    size_t length;
    sw_pssm *profile;         /* NULL: the query itself (a plain query's first round) */
    size_t profile_sequences; /* the sequences its profile holds */
    included now, before;     /* this round's inclusions and the last round's */
    int round;                /* the round it is in, or its last one when done */
    int done;
    char *text;               /* the block this round wrote: the answer once done */
    size_t text_len;
} iter_query;

/* A round over the queries still iterating (`active`, in input order); the
 * report hands them over in that order, each to the sink (which writes its
 * block as formats 7 and 0 name its round) and then to the tap. */
typedef struct iter_round {
    iter_query *qs;
    const size_t *active;
    size_t next;
    const sw_outfmt *format;
    sw_outfmt_run run;
} iter_round;

static int iter_sink(void *user, const sw_outfmt_query *q, const sw_outfmt_hit *hits, size_t n, sw_error *err)
{
    iter_round *r = user;
    iter_query *x = &r->qs[r->active[r->next]];
    free(x->text);
    x->text = NULL;
    x->text_len = 0;
    FILE *mem = open_memstream(&x->text, &x->text_len);
    if (!mem) return sw_error_set(err, SW_ENOMEM, "out of memory");
    r->run.iteration = x->round;
    r->run.profile_sequences = x->profile_sequences;
    int rc = sw_outfmt_write_query(mem, r->format, &r->run, q, hits, n, err);
    fclose(mem);
    if (rc == SW_OK && !x->text) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    return rc;
}

static int iter_tap(void *user, const sw_outfmt_query *q, const sw_outfmt_hit *hits, size_t n, sw_error *err)
{
    iter_round *r = user;
    return include_hits(&r->qs[r->active[r->next++]].now, q, hits, n, err);
}

static void iter_query_clear(iter_query *x)
{
    included_clear(&x->now);
    included_clear(&x->before);
    sw_pssm_free(x->profile);
    free(x->text);
    free(x->query);
    free(x->id);
    free(x->desc);
}

/* The queries of `in`, each with its first round's profile (a profile
 * given as the query) or none. */
static int iter_read(sw_query_input *in, double inclusion, iter_query **out, size_t *count, sw_error *err)
{
    *out = NULL;
    *count = 0;
    size_t cap = 0;
    int rc = SW_OK;
    for (;;) {
        sw_query_set *batch = NULL;
        int more = sw_queries_next_batch(in->reader, 0, 0, &batch, err);
        if (more < 0) rc = more;
        if (more <= 0) break;
        for (size_t i = 0; i < sw_queries_count(batch) && rc == SW_OK; i++) {
            if (*count == cap) {
                cap = cap ? 2 * cap : 16;
                iter_query *more_qs = realloc(*out, cap * sizeof **out);
                if (!more_qs) {
                    rc = sw_error_set(err, SW_ENOMEM, "out of memory");
                    break;
                }
                *out = more_qs;
            }
            iter_query *x = &(*out)[(*count)++];
            memset(x, 0, sizeof *x);
            x->now.inclusion = x->before.inclusion = inclusion;
            x->profile_sequences = 1;
            size_t length;
            const uint8_t *residues = sw_queries_residues(batch, i, &length);
            x->length = x->now.length = x->before.length = length;
            x->id = strdup(sw_queries_id(batch, i));
            x->desc = strdup(sw_queries_description(batch, i));
            x->query = malloc(length ? length : 1);
            if (!x->id || !x->desc || !x->query) {
                rc = sw_error_set(err, SW_ENOMEM, "out of memory");
                break;
            }
            if (length) memcpy(x->query, residues, length);
            const int8_t *rows = sw_queries_rows(batch, i);
            if (rows && (rc = sw_pssm_new(length, x->id, &x->profile, err)) == SW_OK) {
                memcpy(x->profile->scores, rows, length * SW_CODE_LIMIT);
                memcpy(x->profile->query, x->query, length);
            }
        }
        sw_queries_free(batch);
        if (rc) break;
    }
    if (rc == SW_OK && !*count) rc = sw_error_set(err, SW_EINVAL, "an iterated search needs a query");
    return rc;
}

int sw_search_write_iterated(sw_search *s, const sw_db *db, sw_query_input *in, int iterations, double inclusion,
                             const char *save_pssm, const char *outfmt, FILE *out, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_write_iterated", "search");
    if (!db || !in || !out) return sw_error_set(err, SW_EINVAL, "sw_search_write_iterated: missing argument");
    if (s->job) return sw_error_set(err, SW_EINVAL, "iterated searches run in one process, not under MPI");
    if (iterations < 1) return sw_error_set(err, SW_EINVAL, "iterations must be at least 1 (got %d)", iterations);
    if (!(inclusion >= 0)) return sw_error_set(err, SW_EINVAL, "the inclusion E-value must be 0 or more");
    if (outfmt && !strcmp(outfmt, "tsv"))
        return sw_error_set(err, SW_EINVAL, "an iterated search needs E-values: not --outfmt tsv");
    sw_outfmt *format = NULL;
    int rc = sw_outfmt_parse(outfmt ? outfmt : "6", &format, err);
    if (rc) return rc;
    warn_of_search(s, &in->warn, &in->warn_user);
    iter_query *qs = NULL;
    size_t nq = 0;
    rc = iter_read(in, inclusion, &qs, &nq, err);
    in->warn = NULL;
    if (rc == SW_OK && save_pssm && nq > 1)
        rc = sw_error_set(err, SW_EINVAL, "--save-pssm takes one query (the input holds %zu)", nq);
    /* Every round searches the database again: it stays decoded, and on
     * the GPUs, from the first round to the last (unless the caller holds
     * it already), where its decoded copy takes at most a quarter of the
     * machine's memory; a larger one is read again each round, as a
     * search of a database larger than memory reads it. */
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const double memory = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    const int hold = rc == SW_OK && iterations > 1 && !s->resident &&
                     (double)sw_db_num_residues(db) <= memory / 4;
    if (hold) rc = sw_search_hold(s, db, err);
    size_t *active = malloc((nq ? nq : 1) * sizeof *active);
    char *db_path = prefix_of(db);
    if (rc == SW_OK && (!active || !db_path)) rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    iter_round r = {qs, active, 0, format, {0}};
    if (rc == SW_OK) r.run = run_of(s, db, db_path);
    for (int round = 1; rc == SW_OK; round++) {
        /* The queries still iterating, each with its profile. */
        size_t na = 0;
        sw_query_set *set = NULL;
        sw_query_reader *reader = NULL;
        rc = sw_queries_create(&set, err);
        for (size_t i = 0; i < nq && rc == SW_OK; i++) {
            iter_query *x = &qs[i];
            if (x->done) continue;
            active[na++] = i;
            x->round = round;
            included_clear(&x->before);
            x->before = x->now;
            x->now = (included){inclusion, x->length, NULL, NULL, 0, 0};
            rc = sw_queries_add_profile(set, x->id, x->desc, x->query, x->length,
                                        x->profile ? x->profile->scores : NULL, err);
        }
        if (rc == SW_OK && !na) {
            sw_queries_free(set);
            break;
        }
        if (rc == SW_OK) {
            rc = sw_queries_open_set(set, "the profiles", &reader, err);
            set = NULL;
        }
        sw_queries_free(set);
        if (rc == SW_OK) {
            r.next = 0;
            s->tap = iter_tap;
            s->tap_user = &r;
            rc = report(s, db, reader, outfmt ? outfmt : "6", NULL, iter_sink, &r, NULL, 0, err);
            s->tap = NULL;
            s->tap_user = NULL;
            if (rc == SW_OK && r.next != na)
                rc = sw_error_set(err, SW_EINVAL, "an iterated round reported %zu of its %zu queries", r.next, na);
        }
        sw_queries_close(reader);
        /* Each query whose round included nothing new, or that reached the
         * last round, keeps this round's block as its answer, and so does
         * one whose inclusions make a profile that scores as this round's
         * query did (copies of the query, or nothing above the threshold:
         * the next round would repeat this one); the others search with
         * the profile of their inclusions next. */
        for (size_t k = 0; k < na && rc == SW_OK; k++) {
            iter_query *x = &qs[active[k]];
            int last = round == iterations || (round > 1 && !includes_new(&x->now, &x->before));
            sw_pssm *next = NULL;
            if (!last || save_pssm) rc = profile_of(s, x->id, x->query, x->length, &x->now, &next, err);
            if (rc == SW_OK && !last) {
                int same = 0;
                rc = scores_as(next, x->profile, x->query, x->length, s->matrix, err, &same);
                last = same;
            }
            if (rc == SW_OK && last && save_pssm) rc = sw_pssm_save(next, save_pssm, err);
            if (last) {
                sw_pssm_free(next);
                x->done = 1;
                continue;
            }
            sw_pssm_free(x->profile);
            x->profile = next;
            x->profile_sequences = x->now.n + 1;
        }
    }
    /* The answer: each query's last block, in input order, between the
     * format's head and tail. */
    if (rc == SW_OK) rc = sw_outfmt_begin(out, format, &r.run, err);
    for (size_t i = 0; i < nq && rc == SW_OK; i++)
        if (qs[i].text_len && fwrite(qs[i].text, 1, qs[i].text_len, out) != qs[i].text_len)
            rc = sw_error_set(err, SW_EIO, "error writing results");
    if (rc == SW_OK) rc = sw_outfmt_end(out, format, &r.run, nq, err);
    if (hold) {
        sw_error ignored;
        sw_search_hold(s, NULL, &ignored);
    }
    for (size_t i = 0; i < nq; i++) iter_query_clear(&qs[i]);
    free(qs);
    free(active);
    free(db_path);
    sw_outfmt_free(format);
    return rc;
}

/* ---- Requests ---- */

struct sw_request {
    engine_key key;
    sw_scoring scoring; /* its table is key.table */
    char *matrix_spec, *matrix_name, *db_path;
    sw_outfmt *format;
    sw_query_input *in;
    sw_report_request *report;
};

void sw_request_free(sw_request *r)
{
    if (!r) return;
    sw_report_request_free(r->report);
    if (r->in) r->in->warn = NULL;
    sw_outfmt_free(r->format);
    free(r->matrix_spec);
    free(r->matrix_name);
    free(r->db_path);
    free(r);
}

int sw_request_create(sw_search *s, const sw_db *db, sw_query_input *in, const char *outfmt, FILE *out,
                      sw_request **req, sw_error *err)
{
    SW_API_CHECK(s, "sw_request_create", "search");
    if (!db || !in || !out || !req) return sw_error_set(err, SW_EINVAL, "sw_request_create: missing argument");
    *req = NULL;
    if (s->job) return sw_error_set(err, SW_EINVAL, "sw_request_create: requests are not shared across MPI ranks");
    if (sw_db_alphabet(db) != SW_ALPHABET_PROTEIN)
        return sw_error_set(err, SW_EFORMAT, "a DNA database; search compares proteins");
    const int held = s->resident && s->held_db == db;
    /* A damaged header chunk fails the request before any output (a held
     * database was checked once). */
    int rc = held ? SW_OK : sw_db_check_headers(db, err);
    if (rc) return rc;
    sw_request *r = calloc(1, sizeof *r);
    if (!r) return sw_error_set(err, SW_ENOMEM, "out of memory");
    engine_key *k = &r->key;
    k->db = db;
    memcpy(k->table, sw_matrix_table(s->matrix), sizeof k->table);
    k->gap_open = s->gap_open;
    k->gap_extend = s->gap_extend;
    k->device = s->device;
    memcpy(k->gpus, s->gpus, sizeof k->gpus);
    k->num_gpus = s->num_gpus;
    k->gpus_listed = s->gpus_listed;
    k->gpu_memory = s->gpu_memory;
    k->threads = s->threads;
    k->cpu_engine = s->cpu_engine;
    k->gpu_threshold = s->gpu_threshold;
    k->resident = held ? s->resident : NULL;
    r->matrix_spec = strdup(s->matrix_spec);
    r->matrix_name = sw_matrix_name(s->matrix) ? strdup(sw_matrix_name(s->matrix)) : NULL;
    r->db_path = prefix_of(db);
    if (!r->matrix_spec || !r->db_path || (sw_matrix_name(s->matrix) && !r->matrix_name))
        rc = sw_error_set(err, SW_ENOMEM, "out of memory");
    if (rc == SW_OK) rc = sw_outfmt_parse(outfmt ? outfmt : "6", &r->format, err);
    if (rc == SW_OK) rc = sw_scoring_init(&r->scoring, s->matrix, s->gap_open, s->gap_extend, err);
    r->scoring.table = k->table;
    if (rc == SW_OK) {
        sw_report_request_config c = {
            .out = out,
            .queries = in->reader,
            .report =
                {
                    .format = r->format,
                    .stats = s->stats,
                    .matrix_name = r->matrix_name,
                    .max_evalue = s->evalue,
                    .run =
                        {
                            .version = SW_VERSION_STRING,
                            .db_path = r->db_path,
                            .db_seqs = sw_db_num_seqs(db),
                            .db_residues = sw_db_num_residues(db),
                            .matrix = r->matrix_spec,
                            .gap_open = s->gap_open,
                            .gap_extend = s->gap_extend,
                            .evalue_cutoff = s->evalue,
                            .table = k->table,
                        },
                },
            .top_n = s->top,
            .note = s->message,
            .note_user = s->message_user,
            .cancelled = s->cancel,
            .cancelled_user = s->cancel_user,
        };
        rc = sw_report_request_create(&c, db, &r->scoring, &r->report, err);
    }
    if (rc) {
        sw_request_free(r);
        return rc;
    }
    r->in = in;
    warn_of_search(s, &in->warn, &in->warn_user);
    *req = r;
    return SW_OK;
}

int sw_request_compatible(const sw_request *a, const sw_request *b)
{
    return a && b && same_engine(&a->key, &b->key);
}

int sw_search_step(sw_search *s, sw_request *const *reqs, size_t n, size_t max_queries, sw_error *err)
{
    SW_API_CHECK(s, "sw_search_step", "search");
    if (n == 0) return SW_OK;
    if (!reqs) return sw_error_set(err, SW_EINVAL, "sw_search_step: no requests given");
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) return sw_error_set(err, SW_EINVAL, "sw_search_step: request %zu is missing", i);
        if (!same_engine(&reqs[i]->key, &reqs[0]->key))
            return sw_error_set(err, SW_EINVAL, "sw_search_step: request %zu cannot share a scan with request 0", i);
    }
    const engine_key *k = &reqs[0]->key;
    /* The held copy must still be the one the requests were made with. */
    if (k->resident && (k->resident != s->resident || s->held_db != k->db))
        return sw_error_set(err, SW_EINVAL, "sw_search_step: the database the requests were made with is no longer held");
    if (!s->scanner || !s->scan_key || !same_engine(s->scan_key, k)) {
        sw_report_scanner_free(s->scanner);
        s->scanner = NULL;
        if (!s->scan_key && !(s->scan_key = malloc(sizeof *s->scan_key)))
            return sw_error_set(err, SW_ENOMEM, "out of memory");
        *s->scan_key = *k;
        const sw_search_options opt = {
            .threads = k->threads,
            .cpu_engine = k->cpu_engine,
            .device = k->device,
            .gpus = k->gpus_listed ? s->scan_key->gpus : NULL,
            .num_gpus = k->num_gpus,
            .gpu_memory = k->gpu_memory,
            .gpu_threshold = k->gpu_threshold,
            .resident = (sw_resident *)k->resident,
        };
        int rc = sw_report_scanner_create(k->db, &reqs[0]->scoring, &opt, 1, &s->scanner, err);
        if (rc) return rc;
    }
    sw_report_request **rr = malloc(n * sizeof *rr);
    if (!rr) return sw_error_set(err, SW_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) rr[i] = reqs[i]->report;
    int rc = sw_report_round(s->scanner, rr, n, max_queries, err);
    free(rr);
    return rc;
}

int sw_request_status(const sw_request *r, int *done, sw_error *err)
{
    SW_API_CHECK(r, "sw_request_status", "request");
    return sw_report_request_status(r->report, done, err);
}

int sw_request_get_summary(const sw_request *r, sw_search_summary *out, sw_error *err)
{
    SW_API_CHECK(r, "sw_request_get_summary", "request");
    if (!out) return sw_error_set(err, SW_EINVAL, "sw_request_get_summary: missing argument");
    keep_summary(out, sw_report_request_summary(r->report));
    return SW_OK;
}

/* ---- Hit sets ---- */

void sw_hits_free(sw_hits *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->num_hits; i++) {
        sw_hit_info *o = &h->hits[i];
        free((char *)o->sseqid);
        free((char *)o->stitle);
        if (*o->qseq) free((char *)o->qseq);
        if (*o->sseq) free((char *)o->sseq);
        if (*o->cigar) free((char *)o->cigar);
        if (*o->btop) free((char *)o->btop);
    }
    for (size_t q = 0; q < h->num_queries; q++) free(h->queries[q].id);
    free(h->hits);
    free(h->queries);
    free(h);
}

size_t sw_hits_num_queries(const sw_hits *h) { return h ? h->num_queries : 0; }

const char *sw_hits_query_id(const sw_hits *h, size_t q) { return h && q < h->num_queries ? h->queries[q].id : NULL; }

size_t sw_hits_query_length(const sw_hits *h, size_t q) { return h && q < h->num_queries ? h->queries[q].length : 0; }

size_t sw_hits_count(const sw_hits *h, size_t q) { return h && q < h->num_queries ? h->queries[q].count : 0; }

const char *sw_hits_engine(const sw_hits *h) { return h ? h->engine : ""; }

int sw_hits_get(const sw_hits *h, size_t q, size_t i, sw_hit_info *out, sw_error *err)
{
    sw_error_clear(err);
    if (!h || !out) return sw_error_set(err, SW_EINVAL, "sw_hits_get: missing argument");
    if (q >= h->num_queries)
        return sw_error_set(err, SW_EINVAL, "query %zu of %zu: out of range", q, h->num_queries);
    if (i >= h->queries[q].count)
        return sw_error_set(err, SW_EINVAL, "hit %zu of query %zu, which has %zu: out of range", i, q,
                            h->queries[q].count);
    *out = h->hits[h->queries[q].first + i];
    return SW_OK;
}
