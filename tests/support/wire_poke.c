/* A misbehaving client of `swsearch serve`, for tests/cli/test_serve_cli.sh:
 *   wire_poke garbage SOCKET      sends bytes that are no request; prints
 *                                 the server's exit status and message
 *   wire_poke cut SOCKET          sends half a request, then hangs up
 *   wire_poke silent SOCKET       connects and hangs up at once
 *   wire_poke vanish SOCKET FASTA sends a whole request and its queries,
 *                                 then hangs up without reading the answer
 *   wire_poke request SOCKET FASTA ARG...
 *                                 sends a request of these options (after
 *                                 "search") and the queries, reads the answer
 *                                 and prints its exit status and message
 *   wire_poke stall SOCKET SECONDS FASTA ARG...
 *                                 the same request, then reads nothing for
 *                                 SECONDS before hanging up
 *   wire_poke idle SOCKET SECONDS connects and sends nothing for SECONDS
 *   wire_poke hold SOCKET N SECONDS
 *                                 opens N connections that send nothing, for
 *                                 SECONDS
 *   wire_poke drip SOCKET SECONDS sends a request a byte a second; exits 0 if
 *                                 the server ends the connection within
 *                                 SECONDS, 1 if not
 * Exits 0 when it did what it was asked. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int connect_to(const char *path)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) {
        perror(path);
        exit(1);
    }
    return fd;
}

/* Sends all n bytes: 0, or 1 when the server has hung up; any other
 * failure ends the program. */
static int send_all(int fd, const void *p, size_t n)
{
    for (size_t off = 0; off < n;) {
        const ssize_t r = send(fd, (const char *)p + off, n - off, MSG_NOSIGNAL);
        if (r > 0) {
            off += (size_t)r;
        } else if (r < 0 && (errno == EPIPE || errno == ECONNRESET)) {
            return 1;
        } else {
            perror("send");
            exit(1);
        }
    }
    return 0;
}

static void put(int fd, const void *p, size_t n)
{
    if (send_all(fd, p, n)) {
        perror("send");
        exit(1);
    }
}

static void put_string(int fd, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    unsigned char b[4] = {(unsigned char)(n >> 24), (unsigned char)(n >> 16), (unsigned char)(n >> 8),
                          (unsigned char)n};
    put(fd, b, 4);
    put(fd, s, n);
}

/* A request of `n` options (after "search") and the file's bytes. A
 * server may answer a refused request and hang up before the bytes are all
 * sent: the rest is then dropped and the answer read, as a client would. */
static void send_request(int fd, const char *fasta, int n, char **args)
{
    put(fd, "SWSEARCH/1\n", 11);
    uint32_t count = (uint32_t)n + 1;
    unsigned char b[4] = {0, 0, 0, (unsigned char)count};
    put(fd, b, 4);
    put_string(fd, "search");
    for (int i = 0; i < n; i++) put_string(fd, args[i]);
    put_string(fd, fasta);
    FILE *f = fopen(fasta, "rb");
    if (!f) exit(1);
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0 && !send_all(fd, buf, k)) {
    }
    fclose(f);
    shutdown(fd, SHUT_WR);
}

static int read_exact(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

/* Reads frames up to the end frame; prints its status and message. */
static int print_end(int fd)
{
    for (;;) {
        unsigned char head[5];
        if (read_exact(fd, head, 5)) return 1;
        uint32_t n = (uint32_t)head[1] << 24 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 8 | head[4];
        char *body = calloc(n + 1, 1);
        if (!body || read_exact(fd, body, n)) return 1;
        if (head[0] == 'E' && n >= 4) {
            printf("status %u: %s\n", (unsigned)(unsigned char)body[3], body + 4);
            free(body);
            return 0;
        }
        free(body);
    }
}

static void pause_for(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    if (!strcmp(argv[1], "hold") && argc == 5) {
        int n = atoi(argv[3]);
        for (int i = 0; i < n; i++) connect_to(argv[2]);
        pause_for(atof(argv[4]));
        return 0;
    }
    int fd = connect_to(argv[2]);
    if (!strcmp(argv[1], "request") && argc >= 4) {
        send_request(fd, argv[3], argc - 4, argv + 4);
        return print_end(fd);
    }
    if (!strcmp(argv[1], "stall") && argc >= 5) {
        send_request(fd, argv[4], argc - 5, argv + 5);
        pause_for(atof(argv[3]));
        return 0;
    }
    if (!strcmp(argv[1], "idle") && argc == 4) {
        pause_for(atof(argv[3]));
        return 0;
    }
    if (!strcmp(argv[1], "drip") && argc == 4) {
        const char hello[] = "SWSEARCH/1\n\0\0\0\3";
        const int seconds = atoi(argv[3]);
        for (int i = 0; i < seconds; i++) {
            if (send(fd, hello + (size_t)i % (sizeof hello - 1), 1, MSG_NOSIGNAL) != 1) return 0;
            struct pollfd p = {fd, POLLIN, 0};
            if (poll(&p, 1, 1000) > 0) {
                char c;
                if (read(fd, &c, 1) <= 0) return 0; /* hung up on */
                return 0;                           /* an answer: the server ended it */
            }
        }
        return 1;
    }
    if (!strcmp(argv[1], "garbage")) {
        const char junk[] = "GET / HTTP/1.0\r\n\r\n\x01\x02\x03";
        put(fd, junk, sizeof junk);
        shutdown(fd, SHUT_WR);
        unsigned char head[5];
        size_t got = 0;
        while (got < 5) {
            ssize_t r = read(fd, head + got, 5 - got);
            if (r <= 0) return 1;
            got += (size_t)r;
        }
        uint32_t n = (uint32_t)head[1] << 24 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 8 | head[4];
        char *body = calloc(n + 1, 1);
        got = 0;
        while (got < n) {
            ssize_t r = read(fd, body + got, n - got);
            if (r <= 0) {
                free(body);
                return 1;
            }
            got += (size_t)r;
        }
        int ok = head[0] == 'E' && n >= 4;
        if (ok) printf("status %u: %s\n", (unsigned)body[3], body + 4);
        free(body);
        return ok ? 0 : 1;
    }
    if (!strcmp(argv[1], "cut")) {
        put(fd, "SWSEARCH/1\n", 11);
        unsigned char b[4] = {0, 0, 0, 3};
        put(fd, b, 4);
        put_string(fd, "search");
        return 0; /* two strings short */
    }
    if (!strcmp(argv[1], "silent")) return 0;
    if (!strcmp(argv[1], "vanish") && argc == 4) {
        put(fd, "SWSEARCH/1\n", 11);
        unsigned char b[4] = {0, 0, 0, 1};
        put(fd, b, 4);
        put_string(fd, "search");
        put_string(fd, argv[3]);
        FILE *f = fopen(argv[3], "rb");
        if (!f) return 1;
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) put(fd, buf, n);
        fclose(f);
        shutdown(fd, SHUT_WR);
        close(fd); /* without reading a byte */
        return 0;
    }
    return 2;
}
