/* A misbehaving client of `swsearch serve`, for tests/cli/test_serve_cli.sh:
 *   wire_poke garbage SOCKET      sends bytes that are no request; prints
 *                                 the server's exit status and message
 *   wire_poke cut SOCKET          sends half a request, then hangs up
 *   wire_poke silent SOCKET       connects and hangs up at once
 *   wire_poke vanish SOCKET FASTA sends a whole request and its queries,
 *                                 then hangs up without reading the answer
 * Exits 0 when it did what it was asked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
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

static void put(int fd, const void *p, size_t n)
{
    if (send(fd, p, n, MSG_NOSIGNAL) != (ssize_t)n) {
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

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    int fd = connect_to(argv[2]);
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
