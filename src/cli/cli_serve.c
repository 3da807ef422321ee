/* swsearch serve: a database held in memory, and on the GPU, answering
 * `swsearch search --server` requests on a local socket; connections,
 * deadlines and the queue are cli_serve_jobs.h's. A request that is
 * garbage, or a client that goes away, ends that request only; SIGTERM,
 * SIGINT or SIGHUP ends the server once the search under way is answered. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "cli_search.h"
#include "cli_serve_jobs.h"
#include "cli_wire.h"
#include "sw_clock.h"
#include "swsearch.h"

/* The longest query a client may send, in residues: a hundred times the
 * longest known protein, so that a client streaming one endless sequence
 * ends its own request instead of filling the server's memory. */
#define CLI_SERVE_MAX_QUERY 4000000

/* Queries of one scan, shared by the requests under way: enough that a
 * GPU scan keeps every GPU busy and its fixed costs small, few enough that
 * a request arriving during a scan waits for one scan of this size at
 * most before its own. */
#define CLI_SERVE_SCAN_QUERIES 64

static void serve_usage(FILE *out)
{
    fputs("usage: swsearch serve -d DB --socket PATH [options]\n"
          "\n"
          "Loads the database DB once, into memory and onto the GPUs, and answers\n"
          "'swsearch search --server PATH' on the local socket PATH, each request\n"
          "exactly as a direct search would: connections are taken at once, and the\n"
          "requests under way share each scan of the database, a share of each one's\n"
          "queries at a time (beyond 32 requests, a client is told the server is\n"
          "busy). A client that goes away cancels its search. Stops on SIGTERM,\n"
          "SIGINT or SIGHUP once the searches under way are answered, and removes\n"
          "PATH.\n"
          "\n"
          "  -d, --db PREFIX       database prefix given to makedb\n"
          "      --socket PATH     the socket to listen on; an existing socket that no\n"
          "                        server answers is replaced, any other file is refused\n"
          "      --device D        auto (default), gpu or cpu: cpu answers every request\n"
          "                        on the CPU\n"
          "      --gpus G          the GPUs that hold the database, a slice on each:\n"
          "                        all (default), a number N (the first N) or a list\n"
          "                        of CUDA device numbers such as 0,2; a request may\n"
          "                        name only these\n"
          "      --gpu ID          one GPU, CUDA device number ID\n"
          "      --gpu-memory SIZE GPU memory the database takes on each GPU (such as\n"
          "                        20G; default: its free memory less a margin; the\n"
          "                        kernels' working buffers come on top); a larger\n"
          "                        database is streamed in parts beyond it\n"
          "  -t, --threads T       CPU threads (default: all cores), unless a request\n"
          "                        gives its own\n"
          "      --client-timeout S  seconds a client may take to send its whole\n"
          "                        request and to take each part of its answer\n"
          "                        (default 30); a slower one is cut off\n"
          "      --scan-queries N  queries of one scan, shared by the requests under\n"
          "                        way (default 64): a request waits at most for the\n"
          "                        scan under way before its first\n"
          "  -v, --verbose         a line on stderr for each request\n"
          "  -h, --help            this help\n",
          out);
}

/* Set by SIGTERM and SIGINT; the accept loop polls it. */
static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

typedef struct server {
    const char *db_path;
    sw_db *db;
    sw_search *search; /* holds the database between requests */
    int device;    /* SW_DEVICE_* the server allows */
    cli_gpus gpus; /* --gpus or --gpu: the GPUs that hold the database */
    uint64_t gpu_memory; /* --gpu-memory; 0: not given */
    long threads;
    long client_timeout; /* seconds */
    long scan_queries;   /* queries of one scan, shared by the requests under way */
    int verbose;
} server;

/* The answer's output: stdio buffers it, each flush becomes a frame. */
static ssize_t output_write(void *cookie, const char *buf, size_t n)
{
    return serve_job_send(cookie, CLI_WIRE_OUTPUT, buf, n) ? -1 : (ssize_t)n;
}

static void send_note(void *user, const char *message)
{
    serve_job_send(user, CLI_WIRE_NOTE, message, strlen(message));
}

static void send_warning(void *user, const char *message)
{
    serve_job_send(user, CLI_WIRE_WARNING, message, strlen(message));
}

/* On the connection's thread: what this server cannot do for the request. */
static int check_request(void *user, search_args *a, char *message, size_t cap)
{
    server *sv = user;
    if (a->gpus.option && !cli_gpus_same(&a->gpus, &sv->gpus) && a->device != SW_DEVICE_CPU &&
        sv->device != SW_DEVICE_CPU) {
        char ours[1100], theirs[1100];
        cli_gpus_describe(&sv->gpus, ours, sizeof ours);
        cli_gpus_describe(&a->gpus, theirs, sizeof theirs);
        snprintf(message, cap, "this server uses %s, not %s", ours, theirs);
        return -1;
    }
    if (a->gpu_memory && a->gpu_memory != sv->gpu_memory && a->device != SW_DEVICE_CPU && sv->device != SW_DEVICE_CPU) {
        snprintf(message, cap, "this server's GPU memory is its own (serve --gpu-memory)");
        return -1;
    }
    return 0;
}

/* A request under way: its queries, its output and its share of the
 * server's scans. */
typedef struct request_state {
    search_args a;
    int fd; /* the queries as the connection read them */
    sw_query_input *queries;
    FILE *out;
    sw_request *request;
} request_state;

static int job_cancelled(void *user) { return serve_job_cancelled(user); }

static void state_free(request_state *st)
{
    if (!st) return;
    sw_request_free(st->request);
    if (st->out) fclose(st->out);
    sw_query_input_close(st->queries);
    if (st->fd >= 0) close(st->fd);
    free(st);
}

/* The request's options as this server runs them: its device, GPUs and
 * threads. */
static void request_args(const server *sv, const serve_job *job, search_args *a)
{
    *a = *serve_job_args(job);
    if (sv->device == SW_DEVICE_CPU) a->device = SW_DEVICE_CPU;
    if (!a->threads) a->threads = sv->threads;
    a->gpus = sv->gpus;
    a->gpu_memory = sv->gpu_memory;
}

/* On the connection's thread: a PSSM parsed, or an alignment's PSSM built,
 * with the request's scoring, so that a large one holds up no scan; its
 * errors name the client's file and line, as a direct search's do. */
static int prepare_request(void *user, serve_job *job, void **prepared, char *message, size_t cap)
{
    server *sv = user;
    *prepared = NULL;
    search_args a;
    request_args(sv, job, &a);
    if (a.query_kind == CLI_QUERY_FASTA) return CLI_EXIT_OK;
    sw_error err;
    sw_error_clear(&err);
    size_t len = 0;
    const char *text = serve_job_queries(job, &len);
    sw_search *scoring = NULL;
    sw_query_input *in = NULL;
    int rc = sw_search_create(&scoring, &err);
    if (rc == SW_OK) rc = cli_search_configure(scoring, &a, NULL, NULL, NULL, NULL, &err);
    if (rc == SW_OK)
        rc = a.query_kind == CLI_QUERY_PSSM
                 ? sw_query_input_parse_pssm(scoring, text, len, serve_job_query_name(job), CLI_SERVE_MAX_QUERY, &in,
                                             &err)
                 : sw_query_input_parse_msa(scoring, text, len, serve_job_query_name(job), CLI_SERVE_MAX_QUERY, &in,
                                            &err);
    sw_search_free(scoring);
    if (rc) {
        snprintf(message, cap, "%s", err.message[0] ? err.message : sw_strerror(rc));
        return CLI_EXIT_FAILURE;
    }
    *prepared = in;
    return CLI_EXIT_OK;
}

static void drop_prepared(void *user, void *prepared)
{
    (void)user;
    sw_query_input_close(prepared);
}

/* On the search thread: a request's settings taken and its queries opened
 * (a PSSM's already parsed); its scans come in rounds shared with other
 * requests. */
static int begin_request(void *user, serve_job *job, char *message, size_t cap)
{
    server *sv = user;
    sw_error err;
    sw_error_clear(&err);
    request_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(message, cap, "out of memory");
        return CLI_EXIT_FAILURE;
    }
    st->fd = -1;
    st->queries = serve_job_take_prepared(job);
    search_args *a = &st->a;
    request_args(sv, job, a);
    int rc = SW_OK;
    if (!st->queries) {
        size_t len = 0;
        const char *text = serve_job_queries(job, &len);
        /* The queries the connection read, to the library's reader. */
        st->fd = memfd_create("swsearch-request", MFD_CLOEXEC);
        rc = st->fd >= 0 && cli_wire_send(st->fd, text, len) == 0 && lseek(st->fd, 0, SEEK_SET) == 0
                 ? SW_OK
                 : sw_error_set(&err, SW_EIO, "cannot hold the queries");
        if (rc == SW_OK)
            rc = sw_query_input_open_fd(st->fd, serve_job_query_name(job), CLI_SERVE_MAX_QUERY, &st->queries, &err);
    }
    if (rc == SW_OK) {
        st->out = fopencookie(job, "w", (cookie_io_functions_t){.write = output_write});
        if (!st->out) rc = sw_error_set(&err, SW_ENOMEM, "out of memory");
        else setvbuf(st->out, NULL, _IOFBF, 1 << 16);
    }
    if (rc == SW_OK) rc = cli_search_configure(sv->search, a, send_note, send_warning, job, NULL, &err);
    if (rc == SW_OK) rc = sw_search_set_cancel(sv->search, job_cancelled, job, &err);
    if (rc == SW_OK) rc = sw_request_create(sv->search, sv->db, st->queries, a->outfmt, st->out, &st->request, &err);
    sw_search_set_cancel(sv->search, NULL, NULL, NULL);
    if (rc) {
        state_free(st);
        if (sv->verbose) fprintf(stderr, "swsearch: serve: %s\n", err.message[0] ? err.message : sw_strerror(rc));
        snprintf(message, cap, "%s", err.message[0] ? err.message : sw_strerror(rc));
        return CLI_EXIT_FAILURE;
    }
    serve_job_set_state(job, st);
    return CLI_EXIT_OK;
}

static int compatible_requests(void *user, serve_job *a, serve_job *b)
{
    (void)user;
    const request_state *x = serve_job_state(a), *y = serve_job_state(b);
    return sw_request_compatible(x->request, y->request);
}

/* One scan for the requests of a round. */
static void step_requests(void *user, serve_job *const *jobs, size_t n)
{
    server *sv = user;
    sw_request *reqs[CLI_SERVE_MAX_QUEUED];
    for (size_t k = 0; k < n; k++) reqs[k] = ((request_state *)serve_job_state(jobs[k]))->request;
    sw_error err;
    sw_error_clear(&err);
    const double t0 = sw_clock_seconds();
    size_t before = 0, after = 0;
    sw_search_summary sum;
    for (size_t k = 0; k < n; k++)
        if (sw_request_get_summary(reqs[k], &sum, NULL) == SW_OK) before += sum.queries;
    /* A failed scan is told to each request by its status. */
    sw_search_step(sv->search, reqs, n, (size_t)sv->scan_queries, &err);
    for (size_t k = 0; k < n; k++)
        if (sw_request_get_summary(reqs[k], &sum, NULL) == SW_OK) after += sum.queries;
    if (sv->verbose)
        fprintf(stderr, "swsearch: serve: scan of %zu queries for %zu request%s in %.3f s\n", after - before, n,
                n == 1 ? "" : "s", sw_clock_seconds() - t0);
}

/* After a round: a finished request's summary and end; output so far sent. */
static int end_request(void *user, serve_job *job, int abandon, int *status, char *message, size_t cap)
{
    server *sv = user;
    request_state *st = serve_job_state(job);
    sw_error err;
    sw_error_clear(&err);
    int done = 0;
    int rc = sw_request_status(st->request, &done, &err);
    if (!done && !abandon) {
        /* What this round wrote goes to the client now. */
        fflush(st->out);
        return 0;
    }
    if (!done) rc = sw_error_set(&err, SW_ECANCELED, "the search was cancelled");
    sw_search_summary summary;
    memset(&summary, 0, sizeof summary);
    sw_request_get_summary(st->request, &summary, NULL);
    if (fflush(st->out) && rc == SW_OK) rc = sw_error_set(&err, SW_EIO, "error sending results");
    const double seconds = sw_clock_seconds() - serve_job_started(job);
    if (rc == SW_OK && st->a.verbose) {
        char *summary_text = NULL;
        size_t summary_len = 0;
        FILE *m = open_memstream(&summary_text, &summary_len);
        if (m) {
            cli_search_summary(m, sv->db, &summary, seconds, "answered by the server in");
            fclose(m);
            serve_job_send(job, CLI_WIRE_VERBOSE, summary_text, summary_len);
        }
        free(summary_text);
    }
    if (serve_job_cancelled(job) && rc)
        sw_error_set(&err, rc, "the client went away or stopped reading its answer");
    if (sv->verbose) {
        const unsigned long scans = serve_job_scans(job);
        fprintf(stderr, "swsearch: serve: %zu queries, %llu hits in %.3f s, within %lu scan%s%s%s\n",
                summary.queries, (unsigned long long)summary.hits, seconds, scans, scans == 1 ? "" : "s",
                rc ? ": " : "", rc ? err.message : "");
    }
    snprintf(message, cap, "%s", rc ? (err.message[0] ? err.message : sw_strerror(rc)) : "");
    state_free(st);
    serve_job_set_state(job, NULL);
    *status = rc ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
    return 1;
}

/* Binds PATH: a socket file no server answers is replaced; anything else
 * that exists is left alone and refused. */
static int listen_on(const char *path, int *out)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    /* An empty name would bind an abstract socket, which has no file and so
     * no permissions: anyone on the machine could search. */
    if (!path[0] || strlen(path) >= sizeof addr.sun_path) {
        cli_error("--socket '%s': a socket path has 1 to %zu bytes", path, sizeof addr.sun_path - 1);
        return CLI_EXIT_USAGE;
    }
    strcpy(addr.sun_path, path);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            cli_error("%s exists and is not a socket; refusing to replace it", path);
            return CLI_EXIT_FAILURE;
        }
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int answered = probe >= 0 && connect(probe, (struct sockaddr *)&addr, sizeof addr) == 0;
        if (probe >= 0) close(probe);
        if (answered) {
            cli_error("a server already listens on %s", path);
            return CLI_EXIT_FAILURE;
        }
        if (unlink(path) && errno != ENOENT) {
            cli_error("%s: cannot remove the stale socket: %s", path, strerror(errno));
            return CLI_EXIT_FAILURE;
        }
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        cli_error("socket: %s", strerror(errno));
        return CLI_EXIT_FAILURE;
    }
    /* Only this user may connect. */
    mode_t old = umask(077);
    int bound = bind(fd, (struct sockaddr *)&addr, sizeof addr);
    umask(old);
    if (bound || listen(fd, 64)) {
        cli_error("%s: %s", path, strerror(errno));
        close(fd);
        return CLI_EXIT_FAILURE;
    }
    *out = fd;
    return CLI_EXIT_OK;
}

/* One search of a short query with the default options: the GPU engine is
 * made and the database uploaded before the first client comes. */
static void warm_up(server *sv)
{
    int p[2];
    if (pipe(p)) return;
    static const char query[] = ">warm-up\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ\n";
    ssize_t w = write(p[1], query, sizeof query - 1);
    close(p[1]);
    sw_query_input *q = NULL;
    sw_error err;
    char *text = NULL;
    size_t len = 0;
    FILE *sink = open_memstream(&text, &len);
    char *argv[] = {"search", NULL};
    search_args a;
    if (w > 0 && sink && cli_search_parse(1, argv, 1, &a) == CLI_EXIT_OK &&
        sw_query_input_open_fd(p[0], "warm-up", 0, &q, &err) == SW_OK) {
        a.device = sv->device;
        a.gpus = sv->gpus;
        a.gpu_memory = sv->gpu_memory;
        a.threads = sv->threads;
        if (cli_search_configure(sv->search, &a, NULL, NULL, NULL, NULL, &err) ||
            sw_search_write_input(sv->search, sv->db, q, a.outfmt, sink, &err))
            cli_error("warm-up search: %s", err.message);
    }
    sw_query_input_close(q);
    if (sink) fclose(sink);
    free(text);
    close(p[0]);
}

int cli_serve(int argc, char **argv)
{
    enum { OPT_SOCKET = 256, OPT_DEVICE, OPT_GPU, OPT_GPUS, OPT_GPU_MEMORY, OPT_CLIENT_TIMEOUT, OPT_SCAN_QUERIES };
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},       {"socket", required_argument, NULL, OPT_SOCKET},
        {"device", required_argument, NULL, OPT_DEVICE}, {"gpu", required_argument, NULL, OPT_GPU},
        {"gpus", required_argument, NULL, OPT_GPUS},
        {"gpu-memory", required_argument, NULL, OPT_GPU_MEMORY},
        {"client-timeout", required_argument, NULL, OPT_CLIENT_TIMEOUT},
        {"scan-queries", required_argument, NULL, OPT_SCAN_QUERIES},
        {"threads", required_argument, NULL, 't'},  {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    server sv;
    memset(&sv, 0, sizeof sv);
    sv.client_timeout = CLI_SERVE_CLIENT_SECONDS;
    sv.scan_queries = CLI_SERVE_SCAN_QUERIES;
    const char *socket_path = NULL;
    opterr = 0;
    optind = 1;
    int c;
    cli_options_seen seen = {{0}};
    while ((c = getopt_long(argc, argv, ":d:t:vh", longopts, NULL)) != -1) {
        if (cli_option_once(&seen, c, longopts)) return CLI_EXIT_USAGE;
        switch (c) {
        case 'd': sv.db_path = optarg; break;
        case OPT_SOCKET: socket_path = optarg; break;
        case 'v': sv.verbose = 1; break;
        case 't':
            if (cli_parse_long("--threads", optarg, 1, 4096, &sv.threads)) return CLI_EXIT_USAGE;
            break;
        case OPT_GPU:
            if (cli_parse_gpu(optarg, &sv.gpus)) return CLI_EXIT_USAGE;
            break;
        case OPT_GPUS:
            if (cli_parse_gpus(optarg, &sv.gpus)) return CLI_EXIT_USAGE;
            break;
        case OPT_GPU_MEMORY:
            if (cli_parse_size("--gpu-memory", optarg, (uint64_t)1 << 20, &sv.gpu_memory)) return CLI_EXIT_USAGE;
            break;
        case OPT_DEVICE:
            if (cli_parse_choice("--device", optarg, cli_device_choices, &sv.device)) return CLI_EXIT_USAGE;
            break;
        case OPT_CLIENT_TIMEOUT:
            if (cli_parse_long("--client-timeout", optarg, 1, 86400, &sv.client_timeout)) return CLI_EXIT_USAGE;
            break;
        case OPT_SCAN_QUERIES:
            if (cli_parse_long("--scan-queries", optarg, 1, 1 << 20, &sv.scan_queries)) return CLI_EXIT_USAGE;
            break;
        case 'h': serve_usage(stdout); return CLI_EXIT_OK;
        default: return cli_option_error(c, argv, "serve");
        }
    }
    if (optind < argc) {
        cli_error("unexpected argument '%s'; see 'swsearch serve --help'", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (!sv.db_path || !socket_path) {
        cli_error("serve needs -d DB and --socket PATH; see 'swsearch serve --help'");
        return CLI_EXIT_USAGE;
    }

    sw_error err;
    sw_error_clear(&err);
    int rc;
    int listen_fd = -1;
    if ((rc = sw_db_open(sv.db_path, &sv.db, &err))) goto fail;
    if (sw_db_alphabet(sv.db) != SW_ALPHABET_PROTEIN) {
        rc = sw_error_set(&err, SW_EFORMAT, "%s: a DNA database; search compares proteins", sv.db_path);
        goto fail;
    }
    double t0 = sw_clock_seconds();
    /* The database checked and decoded once, on the server's threads. */
    if ((rc = sw_search_create(&sv.search, &err)) || (rc = sw_search_set_threads(sv.search, (int)sv.threads, &err)) ||
        (rc = sw_search_hold(sv.search, sv.db, &err)))
        goto fail;
    if (sv.device == SW_DEVICE_AUTO) {
        /* Without a usable GPU every request goes to the CPU: say so once. */
        int ngpus = 0;
        sw_error gerr;
        sw_error_clear(&gerr);
        if (sw_gpus_list(NULL, 0, &ngpus, &gerr) != SW_OK || ngpus == 0) {
            cli_error("%s; serving on the CPU", gerr.message[0] ? gerr.message : "no usable GPU");
            sv.device = SW_DEVICE_CPU;
        }
    }
    if (sv.device != SW_DEVICE_CPU && sw_gpus_built()) warm_up(&sv);
    int status = listen_on(socket_path, &listen_fd);
    if (status) {
        sw_search_free(sv.search);
        sw_db_close(sv.db);
        return status;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: poll returns */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    /* A closed terminal ends the server as SIGTERM does, socket removed. */
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (sv.verbose)
        fprintf(stderr, "swsearch: serve: %s (%llu sequences) ready in %.3f s on %s\n", sv.db_path,
                (unsigned long long)sw_db_num_seqs(sv.db), sw_clock_seconds() - t0, socket_path);
    struct stat mine;
    int have_mine = fstat(listen_fd, &mine) == 0 && stat(socket_path, &mine) == 0;
    serve_jobs *jobs = NULL;
    const serve_handler handler = {.check = check_request,
                                   .prepare = prepare_request,
                                   .drop = drop_prepared,
                                   .begin = begin_request,
                                   .compatible = compatible_requests,
                                   .step = step_requests,
                                   .end = end_request,
                                   .user = &sv};
    if (serve_jobs_start(&handler, sv.verbose, (double)sv.client_timeout, &jobs)) {
        cli_error("serve: cannot start its threads");
        stop_requested = 1;
    }
    while (!stop_requested) {
        struct pollfd pfd = {listen_fd, POLLIN, 0};
        int ready = poll(&pfd, 1, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            cli_error("poll: %s", strerror(errno));
            break;
        }
        int conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (conn < 0) continue; /* the client left already, or EINTR */
        serve_jobs_accept(jobs, conn);
    }
    /* No new connections; the request under way is answered, queued ones
     * are told the server stops. */
    close(listen_fd);
    listen_fd = -1;
    serve_jobs_stop(jobs);
    /* Remove the socket only if it is still the one this server made. */
    struct stat now;
    if (have_mine && stat(socket_path, &now) == 0 && now.st_ino == mine.st_ino && now.st_dev == mine.st_dev)
        unlink(socket_path);
    if (sv.verbose) fprintf(stderr, "swsearch: serve: stopped\n");
    sw_search_free(sv.search);
    sw_db_close(sv.db);
    return CLI_EXIT_OK;

fail:
    cli_error("%s", err.message[0] ? err.message : sw_strerror(rc));
    sw_search_free(sv.search);
    sw_db_close(sv.db);
    return CLI_EXIT_FAILURE;
}
