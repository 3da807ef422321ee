/* The framing of the server's protocol (cli_wire.h). */
#include "cli_wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int cli_wire_send(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == ENOTSOCK) w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int cli_wire_recv(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (r == 0) errno = 0;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static void put_u32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

static uint32_t get_u32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

int cli_wire_send_frame(int fd, int type, const void *data, size_t n)
{
    if (n > UINT32_MAX) {
        errno = EMSGSIZE;
        return -1;
    }
    unsigned char head[5];
    head[0] = (unsigned char)type;
    put_u32(head + 1, (uint32_t)n);
    return cli_wire_send(fd, head, sizeof head) || (n && cli_wire_send(fd, data, n)) ? -1 : 0;
}

unsigned char *cli_wire_end_data(int status, const char *message, size_t *n)
{
    size_t len = message ? strlen(message) : 0;
    unsigned char *b = malloc(4 + len);
    if (!b) return NULL;
    put_u32(b, (uint32_t)status);
    if (len) memcpy(b + 4, message, len);
    *n = 4 + len;
    return b;
}

int cli_wire_send_end(int fd, int status, const char *message)
{
    size_t n = 0;
    unsigned char *b = cli_wire_end_data(status, message, &n);
    if (!b) return -1;
    int rc = cli_wire_send_frame(fd, CLI_WIRE_END, b, n);
    free(b);
    return rc;
}

int cli_wire_recv_frame(int fd, int *type, char **data, size_t *n)
{
    unsigned char head[5];
    *data = NULL;
    if (cli_wire_recv(fd, head, sizeof head)) return -1;
    uint32_t len = get_u32(head + 1);
    if (len > CLI_WIRE_MAX_FRAME) {
        errno = EPROTO;
        return -1;
    }
    char *b = malloc((size_t)len + 1);
    if (!b) return -1;
    if (len && cli_wire_recv(fd, b, len)) {
        free(b);
        return -1;
    }
    b[len] = '\0';
    *type = head[0];
    *data = b;
    *n = len;
    return 0;
}

static int send_string(int fd, const char *s)
{
    size_t len = strlen(s);
    unsigned char head[4];
    put_u32(head, (uint32_t)len);
    return cli_wire_send(fd, head, 4) || (len && cli_wire_send(fd, s, len)) ? -1 : 0;
}

int cli_wire_send_request(int fd, int argc, char *const *argv, const char *query_name)
{
    unsigned char head[4];
    put_u32(head, (uint32_t)argc);
    if (cli_wire_send(fd, CLI_WIRE_HELLO, strlen(CLI_WIRE_HELLO)) || cli_wire_send(fd, head, 4)) return -1;
    for (int i = 0; i < argc; i++)
        if (send_string(fd, argv[i])) return -1;
    return send_string(fd, query_name);
}

/* A string of at most `max` bytes, without NUL bytes. */
static char *recv_string(int fd, size_t max, const char **why)
{
    unsigned char head[4];
    if (cli_wire_recv(fd, head, 4)) {
        *why = "the request ended early";
        return NULL;
    }
    uint32_t len = get_u32(head);
    if (len > max) {
        *why = "a string of the request is too long";
        return NULL;
    }
    char *s = malloc((size_t)len + 1);
    if (!s) {
        *why = "out of memory";
        return NULL;
    }
    if (len && cli_wire_recv(fd, s, len)) {
        free(s);
        *why = "the request ended early";
        return NULL;
    }
    s[len] = '\0';
    if (strlen(s) != len) {
        free(s);
        *why = "a string of the request holds a NUL byte";
        return NULL;
    }
    return s;
}

void cli_wire_free_args(int argc, char **argv)
{
    if (!argv) return;
    for (int i = 0; i < argc; i++) free(argv[i]);
    free(argv);
}

int cli_wire_recv_request(int fd, int *argc, char ***argv, char **query_name, const char **why)
{
    *argc = 0;
    *argv = NULL;
    *query_name = NULL;
    char hello[sizeof CLI_WIRE_HELLO - 1];
    if (cli_wire_recv(fd, hello, sizeof hello)) {
        *why = "the request ended early";
        return -1;
    }
    if (memcmp(hello, CLI_WIRE_HELLO, sizeof hello)) {
        *why = "not a swsearch request";
        return -1;
    }
    unsigned char head[4];
    if (cli_wire_recv(fd, head, 4)) {
        *why = "the request ended early";
        return -1;
    }
    uint32_t n = get_u32(head);
    if (n > CLI_WIRE_MAX_ARGS) {
        *why = "too many options";
        return -1;
    }
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v) {
        *why = "out of memory";
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!(v[i] = recv_string(fd, CLI_WIRE_MAX_ARG_BYTES, why))) {
            cli_wire_free_args((int)i, v);
            return -1;
        }
    }
    char *name = recv_string(fd, 4096, why);
    if (!name) {
        cli_wire_free_args((int)n, v);
        return -1;
    }
    *argc = (int)n;
    *argv = v;
    *query_name = name;
    return 0;
}
