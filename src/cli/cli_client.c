/* swsearch search --server: the request to a running `swsearch serve`, and
 * its answer written exactly as a direct search would write it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli_client.h"
#include "cli_output.h"
#include "cli_wire.h"

/* The query file goes to the server from a thread of its own: the server
 * writes a batch's hits while later queries are still arriving, and this
 * side must keep reading them. */
typedef struct sender {
    int from, to;
    int failed; /* errno of a failed read of the query file, else 0 */
    atomic_int holders; /* the sender thread and the request; the last one frees */
} sender;

static void release_sender(sender *s)
{
    if (atomic_fetch_sub(&s->holders, 1) == 1) free(s);
}

static void *send_queries(void *arg)
{
    sender *s = arg;
    char buf[1 << 16];
    for (;;) {
        ssize_t r = read(s->from, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            s->failed = errno;
            break;
        }
        if (r == 0 || cli_wire_send(s->to, buf, (size_t)r)) break;
    }
    shutdown(s->to, SHUT_WR);
    release_sender(s);
    return NULL;
}

/* A matrix given as a file goes to the server as its text (the server
 * opens no path a request names): *text malloc'ed, or NULL for a name. */
static int matrix_text_of(const char *matrix, char **text)
{
    *text = NULL;
    struct stat st;
    if (!strchr(matrix, '/') && !(stat(matrix, &st) == 0 && S_ISREG(st.st_mode))) return 0;
    FILE *f = fopen(matrix, "rb");
    if (!f) {
        cli_error("%s: %s", matrix, strerror(errno));
        return -1;
    }
    const size_t cap = CLI_WIRE_MAX_ARG_BYTES - 1;
    char *buf = malloc(cap + 1);
    size_t n = buf ? fread(buf, 1, cap + 1, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad || n > cap || memchr(buf, '\0', n)) {
        cli_error(bad ? "%s: cannot read the matrix file" : "%s: not a matrix file a server takes (more than %zu bytes, or binary)",
                  matrix, cap);
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    return 0;
}

int cli_search_client(const search_args *given)
{
    search_args request = *given;
    const search_args *a = &request;
    char *matrix_text = NULL;
    if (matrix_text_of(given->matrix, &matrix_text)) return CLI_EXIT_FAILURE;
    request.matrix_text = matrix_text;
    sw_error err;
    sw_error_clear(&err);
    const int is_stdin = !strcmp(a->query_path, "-");
    const char *query_name = is_stdin ? "<stdin>" : a->query_path;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (!a->server_path[0] || strlen(a->server_path) >= sizeof addr.sun_path) {
        cli_error("--server '%s': a socket path has 1 to %zu bytes", a->server_path, sizeof addr.sun_path - 1);
        free(matrix_text);
        return CLI_EXIT_USAGE;
    }
    strcpy(addr.sun_path, a->server_path);
    int qfd = is_stdin ? STDIN_FILENO : open(a->query_path, O_RDONLY | O_CLOEXEC);
    if (qfd < 0) {
        cli_error("%s: %s", a->query_path, strerror(errno));
        free(matrix_text);
        return CLI_EXIT_FAILURE;
    }
    cli_output out = {0};
    if (cli_output_open(&out, a->out_path,
                        (cli_input[]){{"the query file", a->query_path, NULL}, {"the matrix file", a->matrix, NULL}},
                        2, &err)) {
        cli_error("%s", err.message);
        if (!is_stdin) close(qfd);
        free(matrix_text);
        return CLI_EXIT_FAILURE;
    }
    int status = CLI_EXIT_FAILURE;
    int argc = 0;
    char **argv = NULL;
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof addr)) {
        cli_error("cannot reach a server at %s: %s", a->server_path, strerror(errno));
        goto done;
    }
    if (cli_search_forward_args(a, &argc, &argv)) {
        cli_error("out of memory");
        goto done;
    }
    if (cli_wire_send_request(sock, argc, argv, query_name)) {
        cli_error("sending the request to %s: %s", a->server_path, strerror(errno));
        goto done;
    }
    /* On the heap: a sender let go below may outlive this function. */
    sender *snd = malloc(sizeof *snd);
    pthread_t thread;
    if (snd) {
        *snd = (sender){.from = qfd, .to = sock};
        atomic_init(&snd->holders, 2);
    }
    if (!snd || pthread_create(&thread, NULL, send_queries, snd)) {
        free(snd);
        cli_error("cannot start a thread: out of resources");
        goto done;
    }
    int ended = 0;
    for (;;) {
        int type;
        char *data;
        size_t n;
        if (cli_wire_recv_frame(sock, &type, &data, &n)) break;
        if (type == CLI_WIRE_OUTPUT) {
            if (fwrite(data, 1, n, out.file) != n) {
                free(data);
                cli_output_check(&out, SW_OK, &err);
                cli_error("%s", err.message);
                status = CLI_EXIT_FAILURE;
                ended = 2;
                break;
            }
        } else if (type == CLI_WIRE_NOTE) {
            cli_error("%s", data);
        } else if (type == CLI_WIRE_WARNING) {
            cli_warn(NULL, data);
        } else if (type == CLI_WIRE_VERBOSE) {
            fputs(data, stderr);
        } else if (type == CLI_WIRE_END && n >= 4) {
            const unsigned char *b = (const unsigned char *)data;
            int s = (int)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]);
            status = s == CLI_EXIT_OK || s == CLI_EXIT_USAGE ? s : CLI_EXIT_FAILURE;
            if (status != CLI_EXIT_OK) cli_error("%s", n > 4 ? data + 4 : "the server's search failed");
            ended = 1;
        }
        free(data);
        if (ended) break;
    }
    if (ended == 1 && status == CLI_EXIT_OK) {
        pthread_join(thread, NULL);
        if (snd->failed) {
            cli_error("%s: %s", query_name, strerror(snd->failed));
            status = CLI_EXIT_FAILURE;
        }
        release_sender(snd);
    } else {
        /* The sender may wait on the query input forever: let it go. */
        shutdown(sock, SHUT_RDWR);
        pthread_detach(thread);
        release_sender(snd);
        if (!ended) cli_error("the server at %s closed the connection before answering", a->server_path);
        if (status == CLI_EXIT_OK) status = CLI_EXIT_FAILURE;
    }
    if (status == CLI_EXIT_OK && cli_output_commit(&out, &err)) {
        cli_error("%s", err.message);
        status = CLI_EXIT_FAILURE;
    }

done:
    if (status != CLI_EXIT_OK) cli_output_abort(&out);
    cli_wire_free_args(argc, argv);
    free(matrix_text);
    /* The socket and the query file stay open while a sender may use them;
     * the process ends right after. */
    if (status == CLI_EXIT_OK) {
        if (sock >= 0) close(sock);
        if (!is_stdin) close(qfd);
    }
    return status;
}
