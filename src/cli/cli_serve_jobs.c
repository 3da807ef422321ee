/* Connections, the queue and the search thread of `swsearch serve`
 * (cli_serve_jobs.h). */
#include "cli_serve_jobs.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "cli_wire.h"
#include "sw_clock.h"

typedef struct frame {
    int type;
    unsigned char *data;
    size_t n;
} frame;

struct serve_job {
    serve_jobs *owner;
    int fd, slot;
    int holders; /* the connection, and the queue or search thread: the last frees (owner->lock) */
    int argc;
    char **argv, *query_name;
    search_args args;
    char *queries;
    size_t queries_len;
    double started;
    void *prepared; /* the handler's prepare's, until begin takes it */
    void *state; /* the handler's, once begun */
    unsigned long served; /* the round that last served it (0: none yet) */
    unsigned long first_scan; /* the first scan under way or begun since it came */
    /* The answer, guarded by owner->lock: frames queued by the search
     * thread, taken by the connection. */
    frame *frames;
    size_t head, tail, cap, pending;
    int finished, cancelled;
};

/* A connection's deadline, watched by the watchdog thread. */
typedef struct slot {
    int used, fd, reading;
    double deadline; /* 0: none */
} slot;

struct serve_jobs {
    serve_handler handler;
    int verbose;
    double timeout;
    pthread_mutex_t lock;
    /* getopt, which parses requests, keeps its state in globals: one
     * connection parses at a time. */
    pthread_mutex_t parse_lock;
    pthread_cond_t queued, changed;
    serve_job *queue[CLI_SERVE_MAX_QUEUED];
    size_t queue_head, queue_count;
    /* Begun jobs, in the order they came (the search thread's own). */
    serve_job *active[CLI_SERVE_MAX_QUEUED];
    size_t active_count; /* read by connections under `lock` */
    unsigned long scans; /* begun */
    int scanning;
    int stopping;
    slot slots[CLI_SERVE_MAX_CONNECTIONS];
    int connections;
    pthread_t search_thread, watchdog_thread;
};

/* ---- Deadlines ---- */

/* Waits on `cond` at most a fifth of a second: the watchdog's round, and
 * how often a waiting connection looks whether its client is gone. */
static void wait_briefly(pthread_cond_t *cond, pthread_mutex_t *lock)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(cond, lock, &until);
}

static void set_deadline(serve_jobs *j, int s, double seconds, int reading)
{
    pthread_mutex_lock(&j->lock);
    j->slots[s].deadline = seconds > 0 ? sw_clock_seconds() + seconds : 0;
    j->slots[s].reading = reading;
    pthread_mutex_unlock(&j->lock);
}

/* Past its deadline a socket is shut down: the connection's blocked read or
 * write returns, and its thread ends the request. */
static void *watchdog(void *arg)
{
    serve_jobs *j = arg;
    pthread_mutex_lock(&j->lock);
    while (!(j->stopping && j->connections == 0)) {
        const double now = sw_clock_seconds();
        for (int s = 0; s < CLI_SERVE_MAX_CONNECTIONS; s++) {
            slot *c = &j->slots[s];
            if (!c->used) continue;
            if ((c->deadline > 0 && now > c->deadline) || (j->stopping && c->reading)) {
                shutdown(c->fd, SHUT_RDWR);
                c->deadline = 0;
            }
        }
        wait_briefly(&j->changed, &j->lock);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* ---- Jobs ---- */

static void job_release(serve_job *job)
{
    serve_jobs *j = job->owner;
    pthread_mutex_lock(&j->lock);
    const int last = --job->holders == 0;
    pthread_mutex_unlock(&j->lock);
    if (!last) return;
    if (job->prepared && j->handler.drop) j->handler.drop(j->handler.user, job->prepared);
    for (size_t i = job->head; i < job->tail; i++) free(job->frames[i].data);
    free(job->frames);
    cli_wire_free_args(job->argc, job->argv);
    free(job->query_name);
    free(job->queries);
    free(job);
}

/* Queues a frame (owner->lock held); takes `data`. The bound on what is
 * left untaken applies to output (`bounded`), not to the end frame. */
static int push_frame(serve_job *job, int type, unsigned char *data, size_t n, int bounded)
{
    if (job->cancelled) {
        free(data);
        return -1;
    }
    if (bounded && job->pending + n > CLI_SERVE_MAX_PENDING_BYTES) {
        /* A client that leaves this much of its answer untaken is not
         * reading: its job ends rather than the server's memory filling. */
        job->cancelled = 1;
        free(data);
        return -1;
    }
    if (job->tail == job->cap) {
        if (job->head > 0) {
            memmove(job->frames, job->frames + job->head, (job->tail - job->head) * sizeof *job->frames);
            job->tail -= job->head;
            job->head = 0;
        } else {
            size_t cap = job->cap ? 2 * job->cap : 16;
            frame *f = realloc(job->frames, cap * sizeof *f);
            if (!f) {
                job->cancelled = 1;
                free(data);
                return -1;
            }
            job->frames = f;
            job->cap = cap;
        }
    }
    job->frames[job->tail++] = (frame){type, data, n};
    job->pending += n;
    return 0;
}

int serve_job_send(serve_job *job, int type, const void *data, size_t n)
{
    unsigned char *copy = malloc(n ? n : 1);
    serve_jobs *j = job->owner;
    pthread_mutex_lock(&j->lock);
    int rc = copy ? 0 : -1;
    if (copy) {
        if (n) memcpy(copy, data, n);
        rc = push_frame(job, type, copy, n, 1);
    } else {
        job->cancelled = 1;
    }
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    return rc;
}

int serve_job_cancelled(const serve_job *job)
{
    serve_jobs *j = job->owner;
    pthread_mutex_lock(&j->lock);
    const int c = job->cancelled;
    pthread_mutex_unlock(&j->lock);
    return c;
}

/* The end frame, which closes the answer (owner->lock held). */
static void finish(serve_job *job, int status, const char *message)
{
    size_t n = 0;
    unsigned char *data = cli_wire_end_data(status, message, &n);
    if (data) push_frame(job, CLI_WIRE_END, data, n, 0);
    else job->cancelled = 1;
    job->finished = 1;
    pthread_cond_broadcast(&job->owner->changed);
}

const search_args *serve_job_args(const serve_job *job) { return &job->args; }
const char *serve_job_query_name(const serve_job *job) { return job->query_name; }
double serve_job_started(const serve_job *job) { return job->started; }
void serve_job_set_state(serve_job *job, void *state) { job->state = state; }

void *serve_job_take_prepared(serve_job *job)
{
    void *p = job->prepared;
    job->prepared = NULL;
    return p;
}

unsigned long serve_job_scans(const serve_job *job)
{
    serve_jobs *j = job->owner;
    pthread_mutex_lock(&j->lock);
    const unsigned long n = j->scans + 1 > job->first_scan ? j->scans + 1 - job->first_scan : 0;
    pthread_mutex_unlock(&j->lock);
    return n;
}
void *serve_job_state(const serve_job *job) { return job->state; }

const char *serve_job_queries(const serve_job *job, size_t *length)
{
    *length = job->queries_len;
    return job->queries;
}

/* ---- The search thread ---- */

/* Ends a begun job (lock held, released around the handler). */
static void end_job(serve_jobs *j, size_t a, int abandon)
{
    serve_job *job = j->active[a];
    char message[1200] = "";
    int status = CLI_EXIT_FAILURE;
    pthread_mutex_unlock(&j->lock);
    const int done = j->handler.end(j->handler.user, job, abandon, &status, message, sizeof message);
    pthread_mutex_lock(&j->lock);
    if (!done) return;
    if (!job->cancelled) finish(job, status, message);
    else job->finished = 1;
    memmove(&j->active[a], &j->active[a + 1], (j->active_count - a - 1) * sizeof *j->active);
    j->active_count--;
    pthread_mutex_unlock(&j->lock);
    job_release(job);
    pthread_mutex_lock(&j->lock);
}

/* Begins the queued jobs (lock held, released around the handler): those
 * whose clients left are dropped unsearched; once stopping, none begins. */
static void begin_queued(serve_jobs *j)
{
    while (j->queue_count) {
        serve_job *job = j->queue[j->queue_head];
        j->queue_head = (j->queue_head + 1) % CLI_SERVE_MAX_QUEUED;
        j->queue_count--;
        if (j->stopping || job->cancelled) {
            if (job->cancelled) job->finished = 1;
            else finish(job, CLI_EXIT_FAILURE, "the server is stopping; the search was not run");
            pthread_mutex_unlock(&j->lock);
            job_release(job);
            pthread_mutex_lock(&j->lock);
            continue;
        }
        /* Counted as under way while it begins, so that the bound holds. */
        j->active[j->active_count++] = job;
        pthread_mutex_unlock(&j->lock);
        char message[1200] = "";
        const int status = j->handler.begin(j->handler.user, job, message, sizeof message);
        pthread_mutex_lock(&j->lock);
        if (status) {
            if (!job->cancelled) finish(job, status, message);
            else job->finished = 1;
            j->active_count--;
            pthread_mutex_unlock(&j->lock);
            job_release(job);
            pthread_mutex_lock(&j->lock);
        }
    }
}

static void *search_main(void *arg)
{
    serve_jobs *j = arg;
    serve_job *group[CLI_SERVE_MAX_QUEUED];
    unsigned long round = 0;
    pthread_mutex_lock(&j->lock);
    for (;;) {
        while (j->queue_count == 0 && j->active_count == 0 && !j->stopping) pthread_cond_wait(&j->queued, &j->lock);
        begin_queued(j);
        /* Jobs whose clients went away end here, unsearched from now on. */
        for (size_t a = 0; a < j->active_count;) {
            serve_job *job = j->active[a];
            const size_t before = j->active_count;
            if (job->cancelled) end_job(j, a, 1);
            if (j->active_count == before) a++;
        }
        if (j->active_count == 0) {
            if (j->stopping && j->queue_count == 0) break;
            continue;
        }
        /* The round goes to the job served longest ago (the earliest to
         * come among those never served), with every job that can share
         * its scan. */
        size_t lead = 0;
        for (size_t a = 1; a < j->active_count; a++)
            if (j->active[a]->served < j->active[lead]->served) lead = a;
        size_t n = 0;
        for (size_t a = 0; a < j->active_count; a++) {
            serve_job *job = j->active[a];
            if (a != lead && !j->handler.compatible(j->handler.user, j->active[lead], job)) continue;
            group[n++] = job;
        }
        round++;
        for (size_t k = 0; k < n; k++) group[k]->served = round;
        j->scans++;
        j->scanning = 1;
        pthread_mutex_unlock(&j->lock);
        j->handler.step(j->handler.user, group, n);
        pthread_mutex_lock(&j->lock);
        j->scanning = 0;
        for (size_t k = 0; k < n; k++) {
            for (size_t a = 0; a < j->active_count; a++)
                if (j->active[a] == group[k]) {
                    end_job(j, a, 0);
                    break;
                }
        }
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* ---- Connections ---- */

/* Ends a request that was never queued: its end frame sent directly, within
 * the write deadline. */
static void refuse(serve_jobs *j, serve_job *job, int status, const char *message)
{
    if (j->verbose) cli_error("serve: %s", message);
    set_deadline(j, job->slot, j->timeout, 0);
    cli_wire_send_end(job->fd, status, message);
}

/* Reads the query file to the client's end of sending. */
static int read_queries(serve_job *job, char *message, size_t cap)
{
    size_t have = 0, room = 1 << 16;
    char *buf = malloc(room);
    for (;;) {
        if (!buf) {
            snprintf(message, cap, "out of memory reading the queries");
            return -1;
        }
        if (have == room) {
            if (room >= CLI_SERVE_MAX_REQUEST_BYTES) {
                free(buf);
                snprintf(message, cap, "the queries are larger than a server takes (%zu bytes)",
                         (size_t)CLI_SERVE_MAX_REQUEST_BYTES);
                return -1;
            }
            char *more = realloc(buf, room * 2);
            if (!more) free(buf);
            buf = more;
            room *= 2;
            continue;
        }
        ssize_t r = read(job->fd, buf + have, room - have);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            free(buf);
            snprintf(message, cap, "reading the queries: %s", errno == EPIPE || errno == ENOTCONN ? "timed out" : strerror(errno));
            return -1;
        }
        if (r == 0) break;
        have += (size_t)r;
    }
    job->queries = buf;
    job->queries_len = have;
    return 0;
}

/* Sends what the search thread queued, until the end frame; a client that
 * goes away, or takes a part later than its deadline, cancels the job. */
static void answer(serve_jobs *j, serve_job *job)
{
    pthread_mutex_lock(&j->lock);
    for (;;) {
        while (job->head == job->tail && !job->finished && !job->cancelled) {
            wait_briefly(&j->changed, &j->lock);
            if (job->head != job->tail || job->finished || job->cancelled) break;
            /* A client that closed its end (killed, say) cancels its search. */
            struct pollfd p = {job->fd, 0, 0};
            pthread_mutex_unlock(&j->lock);
            const int gone = poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR));
            pthread_mutex_lock(&j->lock);
            if (gone) job->cancelled = 1;
        }
        if (job->cancelled || job->head == job->tail) break;
        frame f = job->frames[job->head++];
        job->pending -= f.n;
        pthread_mutex_unlock(&j->lock);
        set_deadline(j, job->slot, j->timeout, 0);
        const int failed = cli_wire_send_frame(job->fd, f.type, f.data, f.n);
        set_deadline(j, job->slot, 0, 0);
        free(f.data);
        pthread_mutex_lock(&j->lock);
        if (failed) job->cancelled = 1;
        if (failed || f.type == CLI_WIRE_END) break;
    }
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
}

static void *connection_main(void *arg)
{
    serve_job *job = arg;
    serve_jobs *j = job->owner;
    char message[1400];
    const char *why = NULL;
    int queued = 0;
    set_deadline(j, job->slot, j->timeout, 1);
    if (cli_wire_recv_request(job->fd, &job->argc, &job->argv, &job->query_name, &why)) {
        snprintf(message, sizeof message, "bad request: %s", why);
        refuse(j, job, CLI_EXIT_USAGE, message);
        goto done;
    }
    pthread_mutex_lock(&j->parse_lock);
    int st = cli_search_parse(job->argc, job->argv, 1, &job->args);
    pthread_mutex_unlock(&j->parse_lock);
    if (st) {
        refuse(j, job, CLI_EXIT_USAGE,
               st < 0 ? "bad request: --help is not a search"
                      : "bad request: the server rejected its options (its log says why)");
        goto done;
    }
    message[0] = '\0';
    if (j->handler.check && j->handler.check(j->handler.user, &job->args, message, sizeof message)) {
        refuse(j, job, CLI_EXIT_FAILURE, message);
        goto done;
    }
    if (read_queries(job, message, sizeof message)) {
        refuse(j, job, CLI_EXIT_FAILURE, message);
        goto done;
    }
    set_deadline(j, job->slot, 0, 0);
    if (j->handler.prepare) {
        message[0] = '\0';
        const int status = j->handler.prepare(j->handler.user, job, &job->prepared, message, sizeof message);
        if (status) {
            refuse(j, job, status, message);
            goto done;
        }
    }
    pthread_mutex_lock(&j->lock);
    if (j->stopping) {
        snprintf(message, sizeof message, "the server is stopping");
    } else if (j->queue_count + j->active_count >= CLI_SERVE_MAX_QUEUED) {
        snprintf(message, sizeof message, "the server is busy: %d requests are waiting; try again later",
                 CLI_SERVE_MAX_QUEUED);
    } else {
        job->started = sw_clock_seconds();
        job->first_scan = j->scans + (j->scanning ? 0 : 1);
        j->queue[(j->queue_head + j->queue_count++) % CLI_SERVE_MAX_QUEUED] = job;
        job->holders++;
        queued = 1;
        pthread_cond_signal(&j->queued);
    }
    pthread_mutex_unlock(&j->lock);
    if (!queued) {
        refuse(j, job, CLI_EXIT_FAILURE, message);
        goto done;
    }
    answer(j, job);

done:
    pthread_mutex_lock(&j->lock);
    j->slots[job->slot] = (slot){0};
    j->connections--;
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    close(job->fd);
    job_release(job);
    return NULL;
}

void serve_jobs_accept(serve_jobs *j, int fd)
{
    serve_job *job = calloc(1, sizeof *job);
    int s = -1;
    pthread_mutex_lock(&j->lock);
    for (int i = 0; job && !j->stopping && i < CLI_SERVE_MAX_CONNECTIONS && s < 0; i++)
        if (!j->slots[i].used) s = i;
    if (s >= 0) {
        j->slots[s] = (slot){.used = 1, .fd = fd};
        j->connections++;
    }
    pthread_mutex_unlock(&j->lock);
    if (s < 0) {
        /* Told at once, without reading its request: the socket's buffer
         * takes the short answer. */
        struct timeval tv = {1, 0};
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        cli_wire_send_end(fd, CLI_EXIT_FAILURE,
                          job ? "the server is busy: too many connections; try again later" : "out of memory");
        close(fd);
        free(job);
        return;
    }
    *job = (serve_job){.owner = j, .fd = fd, .slot = s, .holders = 1};
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attr, connection_main, job)) {
        pthread_mutex_lock(&j->lock);
        j->slots[s] = (slot){0};
        j->connections--;
        pthread_mutex_unlock(&j->lock);
        cli_wire_send_end(fd, CLI_EXIT_FAILURE, "the server is busy: no thread for the connection");
        close(fd);
        free(job);
    }
    pthread_attr_destroy(&attr);
}

int serve_jobs_start(const serve_handler *handler, int verbose, double timeout, serve_jobs **out)
{
    *out = NULL;
    serve_jobs *j = calloc(1, sizeof *j);
    if (!j) return -1;
    j->handler = *handler;
    j->verbose = verbose;
    j->timeout = timeout;
    pthread_mutex_init(&j->lock, NULL);
    pthread_mutex_init(&j->parse_lock, NULL);
    pthread_cond_init(&j->queued, NULL);
    pthread_cond_init(&j->changed, NULL);
    if (pthread_create(&j->search_thread, NULL, search_main, j)) {
        free(j);
        return -1;
    }
    if (pthread_create(&j->watchdog_thread, NULL, watchdog, j)) {
        pthread_mutex_lock(&j->lock);
        j->stopping = 1;
        pthread_cond_broadcast(&j->queued);
        pthread_mutex_unlock(&j->lock);
        pthread_join(j->search_thread, NULL);
        free(j);
        return -1;
    }
    *out = j;
    return 0;
}

void serve_jobs_stop(serve_jobs *j)
{
    if (!j) return;
    pthread_mutex_lock(&j->lock);
    j->stopping = 1;
    pthread_cond_broadcast(&j->queued);
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    pthread_join(j->search_thread, NULL);
    /* Connections send their answers within their deadlines; the watchdog
     * ends those still sending requests, and leaves once none is left. */
    pthread_join(j->watchdog_thread, NULL);
    pthread_mutex_destroy(&j->lock);
    pthread_mutex_destroy(&j->parse_lock);
    pthread_cond_destroy(&j->queued);
    pthread_cond_destroy(&j->changed);
    free(j);
}
