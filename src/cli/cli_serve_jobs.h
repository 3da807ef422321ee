/* The requests of `swsearch serve` as jobs, so that no client can hold up
 * another: each connection has a thread of its own that reads the whole
 * request, queues it as a job and sends the answer, while one search
 * thread answers the jobs in rounds, writing each answer into the job's
 * memory, never into a socket. A round is one scan shared by every job
 * under way that can share it (the same scoring and engine), each giving
 * a share of its next queries; the round after goes to the job served
 * longest ago, so a job with one query waits at most for the round under
 * way and its own, however many queries the others have. A deadline
 * bounds how long a connection may take to send its request and to take
 * each part of its answer (a watchdog shuts the socket down past it); a
 * client that goes away or stops reading cancels its job, whose scan
 * stops if no other job shares it; beyond the bounds of the jobs and of
 * the connections a client is told the server is busy. */
#ifndef CLI_SERVE_JOBS_H
#define CLI_SERVE_JOBS_H

#include <stddef.h>

#include "cli_search_args.h"

/* Bounds (the README's service section says what a client sees). */
#define CLI_SERVE_MAX_CONNECTIONS 128  /* open connections; more are told "busy" */
#define CLI_SERVE_MAX_QUEUED 32        /* requests waiting or under way */
/* The default of how long a client may take to send its whole request,
 * queries included, and to take each part of its answer
 * (serve --client-timeout). */
#define CLI_SERVE_CLIENT_SECONDS 30
#define CLI_SERVE_MAX_REQUEST_BYTES ((size_t)1 << 30) /* of queries */
#define CLI_SERVE_MAX_PENDING_BYTES ((size_t)1 << 28) /* of answer not yet taken */

typedef struct serve_job serve_job;
typedef struct serve_jobs serve_jobs;

/* What the search thread does with jobs, which answer through
 * serve_job_send() (output, notes, the -v summary). */
typedef struct serve_handler {
    /* Checks a parsed request against the server (its GPUs, ...): 0, or
     * nonzero with a message for the client. Called on the connection's
     * thread, before the job is queued. */
    int (*check)(void *user, search_args *a, char *message, size_t cap);
    /* May be NULL. Called on the connection's thread once the queries are
     * read, before the job is queued: work on them that would hold up
     * every scan if the search thread did it (a PSSM parsed, an
     * alignment's PSSM built). 0 with *prepared (NULL: nothing), which
     * begin takes (serve_job_take_prepared) and `drop` frees where no
     * begin took it; or the exit status of the end frame and its message. */
    int (*prepare)(void *user, serve_job *job, void **prepared, char *message, size_t cap);
    void (*drop)(void *user, void *prepared);
    /* Starts a job (serve_job_set_state): 0, or the exit status of its end
     * frame and its message. */
    int (*begin)(void *user, serve_job *job, char *message, size_t cap);
    /* 1 when jobs a and b (begun) may share a round. */
    int (*compatible)(void *user, serve_job *a, serve_job *b);
    /* One round for n begun jobs. */
    void (*step)(void *user, serve_job *const *jobs, size_t n);
    /* After a round, or to end a job early (`abandon`: the client is gone
     * or the server stops): 1 once the job is done, its state freed, with
     * the exit status and message of its end frame; 0 while it goes on. */
    int (*end)(void *user, serve_job *job, int abandon, int *status, char *message, size_t cap);
    void *user;
} serve_handler;

/* `timeout`: how long a client may take to send its request, and each part
 * of the answer, in seconds. */
int serve_jobs_start(const serve_handler *handler, int verbose, double timeout, serve_jobs **out);

/* Takes connection `fd` (accepted), on a thread of its own; the server's
 * bounds may answer "busy" at once. */
void serve_jobs_accept(serve_jobs *j, int fd);

/* Stops: jobs not yet begun are told the server is stopping, those under
 * way are answered, connections get their answers within their deadlines. */
void serve_jobs_stop(serve_jobs *j);

/* The request of a job: its options and query file. */
const search_args *serve_job_args(const serve_job *job);
const char *serve_job_query_name(const serve_job *job);
/* The query file's bytes as the client sent them. */
const char *serve_job_queries(const serve_job *job, size_t *length);
/* When the job's request was accepted (sw_clock_seconds()). */
double serve_job_started(const serve_job *job);
/* The handler's state of a job. */
void serve_job_set_state(serve_job *job, void *state);
/* What prepare made for the job, now the caller's (NULL: nothing). */
void *serve_job_take_prepared(serve_job *job);
void *serve_job_state(const serve_job *job);
/* Scans the server ran, whoever's, from the one under way when the job
 * came (or the first after) to the last begun: how long it waited in
 * scans, its own included. */
unsigned long serve_job_scans(const serve_job *job);

/* A frame of the answer (cli_wire.h): queued for the connection to send.
 * -1 when the job is cancelled (its client went away, stopped reading, or
 * left more than CLI_SERVE_MAX_PENDING_BYTES untaken): the search should
 * stop. */
int serve_job_send(serve_job *job, int type, const void *data, size_t n);
int serve_job_cancelled(const serve_job *job);

#endif
