/* The requests of `swsearch serve` as jobs, so that no client can hold up
 * another: each connection has a thread of its own that reads the whole
 * request, queues it as a job and sends the answer, while one search
 * thread answers the queued jobs in turn, writing each answer into the
 * job's memory, never into a socket. A deadline bounds how long a
 * connection may take to send its request and to take each part of its
 * answer (a watchdog shuts the socket down past it); a client that goes
 * away or stops reading cancels its job; beyond the bounds of the queue and
 * of the connections a client is told the server is busy. */
#ifndef CLI_SERVE_JOBS_H
#define CLI_SERVE_JOBS_H

#include <stddef.h>

#include "cli_search_args.h"

/* Bounds (the README's service section says what a client sees). */
#define CLI_SERVE_MAX_CONNECTIONS 128  /* open connections; more are told "busy" */
#define CLI_SERVE_MAX_QUEUED 32        /* requests waiting for the search thread */
/* The default of how long a client may take to send its whole request,
 * queries included, and to take each part of its answer
 * (serve --client-timeout). */
#define CLI_SERVE_CLIENT_SECONDS 30
#define CLI_SERVE_MAX_REQUEST_BYTES ((size_t)1 << 30) /* of queries */
#define CLI_SERVE_MAX_PENDING_BYTES ((size_t)1 << 28) /* of answer not yet taken */

typedef struct serve_job serve_job;
typedef struct serve_jobs serve_jobs;

/* What the search thread does with a job: `run` answers it through
 * serve_job_send() (output, notes, the -v summary) and returns the exit
 * status and message of its end frame. */
typedef struct serve_handler {
    /* Checks a parsed request against the server (its GPUs, ...): 0, or
     * nonzero with a message for the client. Called on the connection's
     * thread, before the job is queued. */
    int (*check)(void *user, search_args *a, char *message, size_t cap);
    /* Answers the job on the search thread. */
    int (*run)(void *user, serve_job *job, char *message, size_t cap);
    void *user;
} serve_handler;

/* `timeout`: how long a client may take to send its request, and each part
 * of the answer, in seconds. */
int serve_jobs_start(const serve_handler *handler, int verbose, double timeout, serve_jobs **out);

/* Takes connection `fd` (accepted), on a thread of its own; the server's
 * bounds may answer "busy" at once. */
void serve_jobs_accept(serve_jobs *j, int fd);

/* Stops: queued jobs are told the server is stopping, the job under way is
 * answered, connections get their answers within their deadlines. */
void serve_jobs_stop(serve_jobs *j);

/* The request of a job: its options and query file. */
const search_args *serve_job_args(const serve_job *job);
const char *serve_job_query_name(const serve_job *job);
/* The query file's bytes as the client sent them. */
const char *serve_job_queries(const serve_job *job, size_t *length);
/* When the job's request was accepted (sw_clock_seconds()). */
double serve_job_started(const serve_job *job);

/* A frame of the answer (cli_wire.h): queued for the connection to send.
 * -1 when the job is cancelled (its client went away, stopped reading, or
 * left more than CLI_SERVE_MAX_PENDING_BYTES untaken): the search should
 * stop. */
int serve_job_send(serve_job *job, int type, const void *data, size_t n);
int serve_job_cancelled(const serve_job *job);

#endif
