/* The choice between the striped and the inter-sequence CPU engines
 * (sw_cpu_choice.h).
 *
 * Why time rather than rule. Which engine wins depends on the CPU (the
 * inter-sequence engine has 64 lanes with AVX-512BW, 32 with AVX2, where the
 * striped one has 32 at most), on the query's length (the striped engine
 * wastes most of its lanes on a query shorter than a vector, the
 * inter-sequence one builds per subject column a profile of the distinct
 * residues of a pack of queries, shared by the pack), and on the database (lengths, and how often a lane passes
 * 8 bits and is recomputed). Timing both on the database's own sequences,
 * with the search's own queries, weighs all of that on the machine at hand.
 *
 * The sample. Groups of consecutive sequences (a database is sorted by
 * length, so a group is like the blocks the search hands its threads), as
 * many as the inter-sequence engine has lanes, each starting where the
 * database's residues reach a half, a quarter, three quarters, then every
 * eighth: the cells of a search are spread over the residues, not over the
 * sequences. A group lies inside one chunk, which the caller reads, so that
 * the chunk the search reads anyway is decoded once.
 *
 * The budget. A class is timed in steps: its middle query (in query order)
 * on one group; up to 16 of its queries on 3 groups; on 7. The
 * inter-sequence engine takes a step's queries in one batch, as the search
 * does. A step runs only while the time spent stays within 1/SHARE of what
 * the class's share of the search is expected to take at the faster
 * engine's measured speed on `threads` threads; the first step always
 * runs, as the estimate needs it. */
#include "sw_cpu_choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sw_clock.h"

enum {
    MAX_GROUPS = 7, /* sample groups, timed 1, 3 or 7 at a time */
    MAX_TIMED = 16, /* queries of a class timed together */
    SHARE = 50      /* timing: at most 1/SHARE of the class's expected time */
};

/* Where each group starts, in sixteenths of the database's residues. The
 * order (van der Corput's) makes the first 1, 3 and 7 groups spread
 * evenly each. */
static const int group_at[MAX_GROUPS] = {8, 4, 12, 2, 6, 10, 14};

typedef struct sample {
    uint64_t first[MAX_GROUPS]; /* the group's first sequence */
    size_t chunk[MAX_GROUPS];   /* the chunk that holds it */
    size_t at[MAX_GROUPS + 1];  /* group g is seqs[at[g] .. at[g + 1]) */
    int groups;                 /* that exist: fewer in a small database */
    int read;                   /* groups read so far */
    const uint8_t **seqs;
    size_t *lengths;
} sample;

/* What the timing of every class shares. */
typedef struct timing {
    const sw_db *db;
    const sw_scoring *scoring;
    const sw_cpu_choice *choice;
    int threads;
    sw_cpu_sample_reader read;
    void *read_user;
    sample s;
    sw_simd_workspace *simd;
    sw_inter_workspace *inter;
    int32_t *scores;            /* MAX_TIMED x the sample's sequences */
} timing;

/* The calling thread's CPU time, not sw_clock_seconds(): the timed runs
 * are short, and a run that another process preempts must not lose for
 * it. */
static double thread_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int sw_cpu_choice_class(size_t length)
{
    int c = 0;
    while (c < SW_CPU_CHOICE_CLASSES - 1 && length > ((size_t)16 << c)) c++;
    return c;
}

/* The chunk that holds sequence `seq`, and its first and end sequences. */
static size_t chunk_of(const sw_db *db, uint64_t seq, uint64_t *first, uint64_t *end)
{
    size_t nchunks = sw_db_num_chunks(db);
    for (size_t c = 0; c < nchunks; c++) {
        sw_db_chunk info;
        sw_db_chunk_info(db, c, &info);
        if (seq < info.first_seq + info.num_seqs) {
            *first = info.first_seq;
            *end = info.first_seq + info.num_seqs;
            return c;
        }
    }
    *first = *end = 0;
    return nchunks;
}

/* Places the groups (not yet read). */
static int plan_sample(const sw_db *db, size_t lanes, sample *s)
{
    const uint64_t n = sw_db_num_seqs(db), total = sw_db_num_residues(db);
    const uint32_t *len = sw_db_lengths(db);
    memset(s, 0, sizeof *s);
    if (n == 0 || total == 0) return SW_OK;
    /* pos[k]: the first sequence with at least k/16 of the residues before it. */
    uint64_t pos[16] = {0}, sum = 0;
    int k = 1;
    for (uint64_t i = 0; i < n && k < 16; i++) {
        while (k < 16 && sum * 16 >= total * (uint64_t)k) pos[k++] = i;
        sum += len[i];
    }
    while (k < 16) pos[k++] = n - 1;
    for (int g = 0; g < MAX_GROUPS; g++) {
        uint64_t chunk_first, chunk_end, first = pos[group_at[g]];
        size_t chunk = chunk_of(db, first, &chunk_first, &chunk_end);
        if (chunk == sw_db_num_chunks(db)) continue;
        uint64_t count = chunk_end - chunk_first < lanes ? chunk_end - chunk_first : lanes;
        if (first + count > chunk_end) first = chunk_end - count;
        /* In a small database groups would overlap: those are left out. */
        int overlaps = 0;
        for (int h = 0; h < s->groups; h++)
            if (first < s->first[h] + (s->at[h + 1] - s->at[h]) && s->first[h] < first + count) overlaps = 1;
        if (overlaps) continue;
        s->first[s->groups] = first;
        s->chunk[s->groups] = chunk;
        s->at[s->groups + 1] = s->at[s->groups] + (size_t)count;
        s->groups++;
    }
    s->seqs = calloc(s->at[s->groups] + 1, sizeof *s->seqs);
    s->lengths = calloc(s->at[s->groups] + 1, sizeof *s->lengths);
    if (!s->seqs || !s->lengths) return SW_ENOMEM;
    for (int g = 0; g < s->groups; g++)
        for (size_t i = s->at[g]; i < s->at[g + 1]; i++) s->lengths[i] = len[s->first[g] + (i - s->at[g])];
    return SW_OK;
}

static void free_sample(sample *s)
{
    free(s->seqs);
    free(s->lengths);
}

/* Reads the first `want` groups, those not read yet. */
static int read_groups(timing *t, int want, sw_error *err)
{
    sample *s = &t->s;
    for (; s->read < want; s->read++) {
        const int g = s->read;
        const uint8_t *residues;
        int rc = t->read(t->read_user, s->chunk[g], s->first[g], s->at[g + 1] - s->at[g], &residues, err);
        if (rc != SW_OK) return rc;
        for (size_t i = s->at[g]; i < s->at[g + 1]; i++) {
            s->seqs[i] = residues;
            residues += s->lengths[i];
        }
    }
    return SW_OK;
}

static size_t sample_residues(const sample *s, int groups)
{
    size_t r = 0;
    for (size_t i = 0; i < s->at[groups]; i++) r += s->lengths[i];
    return r;
}

static int time_striped(timing *t, sw_simd_profile *const *profiles, size_t k, size_t n, double *seconds,
                        sw_error *err)
{
    double start = thread_seconds();
    for (size_t q = 0; q < k; q++)
        for (size_t i = 0; i < n; i++) {
            int r = sw_simd_align(profiles[q], t->simd, t->s.seqs[i], t->s.lengths[i]);
            if (r < 0) return sw_error_set(err, r, "timing the striped engine: %s", sw_strerror(r));
        }
    *seconds = thread_seconds() - start;
    return SW_OK;
}

static int time_inter(timing *t, const uint8_t *const *queries, const size_t *query_lens, size_t k, size_t n,
                      double *seconds, sw_error *err)
{
    double start = thread_seconds();
    int rc = sw_inter_align_batch(&t->choice->inter, t->inter, queries, query_lens, k, t->scoring,
                                  t->s.seqs, t->s.lengths, n, t->scores, err);
    *seconds = thread_seconds() - start;
    return rc;
}

/* Queries of a class timed together, each with its striped profile
 * (made before the clock starts: a search makes it once for the whole
 * database). */
typedef struct timed_set {
    size_t k;
    const uint8_t *seqs[MAX_TIMED];
    size_t lens[MAX_TIMED];
    sw_simd_profile *profiles[MAX_TIMED];
    uint64_t residues;
} timed_set;

/* k of the class's queries members[0 .. count), spread in query order;
 * with k = 1, the middle one. */
static int make_set(const timing *t, const sw_query_set *queries, const size_t *members, size_t count,
                    size_t k, timed_set *set, sw_error *err)
{
    memset(set, 0, sizeof *set);
    set->k = k;
    for (size_t j = 0; j < k; j++) {
        set->seqs[j] = sw_queries_residues(queries, members[(2 * j + 1) * count / (2 * k)], &set->lens[j]);
        set->residues += set->lens[j];
        int rc = sw_simd_profile_create_variant(set->seqs[j], set->lens[j], t->scoring, &t->choice->striped,
                                                &set->profiles[j]);
        if (rc != SW_OK) return sw_error_set(err, rc, "timing the striped engine: %s", sw_strerror(rc));
    }
    return SW_OK;
}

static void free_set(timed_set *set)
{
    for (size_t j = 0; j < set->k; j++) sw_simd_profile_free(set->profiles[j]);
}

/* Times both engines on the queries members[0 .. count) of one class
 * (count > 0, none empty): their seconds on equal cells. */
static int time_class(timing *t, const sw_query_set *queries, const size_t *members, size_t count,
                      uint64_t class_residues, double *striped, double *inter, sw_error *err)
{
    timed_set sets[2];
    memset(sets, 0, sizeof sets);
    int rc = make_set(t, queries, members, count, 1, &sets[0], err);
    if (rc == SW_OK)
        rc = make_set(t, queries, members, count, count < MAX_TIMED ? count : MAX_TIMED, &sets[1], err);

    const double class_cells = (double)class_residues * (double)sw_db_num_residues(t->db);
    const int threads = t->threads > 0 ? t->threads : 1;
    double ts = 0, ti = 0, cells = 0, spent = 0;
    const timed_set *last_set = NULL;
    int last_groups = 0;
    for (int step = 0; step < 3 && rc == SW_OK; step++) {
        const timed_set *set = &sets[step == 0 ? 0 : 1];
        int groups = step == 0 ? 1 : step == 1 ? 3 : 7;
        if (groups > t->s.groups) groups = t->s.groups;
        if (last_set && set->k == last_set->k && groups == last_groups) continue; /* nothing new */
        const double step_cells = (double)set->residues * (double)sample_residues(&t->s, groups);
        if (step > 0) {
            double expected = class_cells * (ts < ti ? ts : ti) / cells / threads;
            if (spent + step_cells * (ts + ti) / cells > expected / SHARE) break;
        }
        double start = sw_clock_seconds(), a = 0, b = 0;
        if ((rc = read_groups(t, groups, err)) != SW_OK) break;
        const size_t n = t->s.at[groups];
        /* The one that runs first meets cold caches and grows its
         * workspace: the established engine takes that. */
        if ((rc = time_striped(t, set->profiles, set->k, n, &a, err)) != SW_OK ||
            (rc = time_inter(t, set->seqs, set->lens, set->k, n, &b, err)) != SW_OK)
            break;
        ts += a;
        ti += b;
        cells += step_cells;
        spent += sw_clock_seconds() - start;
        last_set = set;
        last_groups = groups;
    }
    *striped = ts;
    *inter = ti;
    free_set(&sets[0]);
    free_set(&sets[1]);
    return rc;
}

/* Times every class that has queries; the faster engine takes each. */
static int choose_by_timing(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring, int threads,
                            sw_cpu_sample_reader read, void *read_user, sw_cpu_choice *c, sw_error *err)
{
    const size_t nq = sw_queries_count(queries);
    timing t;
    memset(&t, 0, sizeof t);
    t.db = db;
    t.scoring = scoring;
    t.choice = c;
    t.threads = threads;
    t.read = read;
    t.read_user = read_user;
    size_t *members = malloc((nq ? nq : 1) * sizeof *members);
    int rc = members ? plan_sample(db, (size_t)c->inter.lanes, &t.s) : SW_ENOMEM;
    if (rc == SW_OK) rc = sw_simd_workspace_create(&t.simd);
    if (rc == SW_OK) rc = sw_inter_workspace_create(&t.inter);
    if (rc == SW_OK && !(t.scores = malloc((MAX_TIMED * t.s.at[t.s.groups] + 1) * sizeof *t.scores)))
        rc = SW_ENOMEM;
    if (rc != SW_OK) {
        sw_error_set(err, rc, "out of memory choosing the CPU engine");
        goto done;
    }
    for (int cls = 0; cls < SW_CPU_CHOICE_CLASSES && t.s.groups > 0; cls++) {
        size_t count = 0;
        uint64_t residues = 0;
        for (size_t q = 0; q < nq; q++) {
            size_t len;
            sw_queries_residues(queries, q, &len);
            /* An empty query costs nothing on either engine. */
            if (len == 0 || sw_cpu_choice_class(len) != cls) continue;
            members[count++] = q;
            residues += len;
        }
        if (count == 0) continue;
        if ((rc = time_class(&t, queries, members, count, residues, &c->striped_seconds[cls],
                             &c->inter_seconds[cls], err)) != SW_OK)
            break;
        if (c->inter_seconds[cls] < c->striped_seconds[cls])
            for (size_t i = 0; i < count; i++) c->inter_of[members[i]] = 1;
    }
done:
    free(members);
    free(t.scores);
    free_sample(&t.s);
    sw_simd_workspace_free(t.simd);
    sw_inter_workspace_free(t.inter);
    return rc;
}

int sw_cpu_choose(const sw_db *db, const sw_query_set *queries, const sw_scoring *scoring,
                  sw_cpu_engine engine, int threads, sw_cpu_sample_reader read, void *read_user,
                  sw_cpu_choice *out, sw_error *err)
{
    double start = sw_clock_seconds();
    memset(out, 0, sizeof *out);
    if (engine != SW_CPU_ENGINE_AUTO && engine != SW_CPU_ENGINE_STRIPED && engine != SW_CPU_ENGINE_INTER)
        return sw_error_set(err, SW_EINVAL, "no such choice of CPU engine");
    const size_t nq = sw_queries_count(queries);
    out->striped = sw_simd_variant_default();
    int rc = sw_inter_variant_best(&out->inter);
    if (rc != SW_OK) return sw_error_set(err, rc, "no inter-sequence engine: %s", sw_strerror(rc));
    out->inter_of = calloc(nq ? nq : 1, 1);
    if (!out->inter_of) return sw_error_set(err, SW_ENOMEM, "out of memory choosing the CPU engine");
    if (engine == SW_CPU_ENGINE_INTER) memset(out->inter_of, 1, nq);
    if (engine == SW_CPU_ENGINE_AUTO)
        rc = read ? choose_by_timing(db, queries, scoring, threads, read, read_user, out, err)
                  : sw_error_set(err, SW_EINVAL, "no reader of the sample");
    if (rc != SW_OK) {
        sw_cpu_choice_free(out);
        return rc;
    }
    for (size_t q = 0; q < nq; q++) out->num_inter += out->inter_of[q];
    out->seconds = sw_clock_seconds() - start;
    return SW_OK;
}

void sw_cpu_choice_free(sw_cpu_choice *c)
{
    if (!c) return;
    free(c->inter_of);
    c->inter_of = NULL;
    c->num_inter = 0;
}

void sw_cpu_choice_describe(const sw_cpu_choice *c, size_t num_queries, char *buf, size_t size)
{
    const char *striped = sw_simd_variant_name(&c->striped);
    if (c->num_inter == 0)
        snprintf(buf, size, "striped (%s)", striped);
    else if (c->num_inter == num_queries)
        snprintf(buf, size, "inter (%s)", c->inter.name);
    else
        snprintf(buf, size, "striped (%s) + inter (%s)", striped, c->inter.name);
}
