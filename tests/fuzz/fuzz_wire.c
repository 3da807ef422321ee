/* Fuzz target of the readers of the server protocol (src/cli/cli_wire.h):
 * what `swsearch serve` reads from any process that connects to its socket,
 * and what `swsearch search --server` reads back from whatever listens
 * there. Neither may crash, hang or hand out a request outside its bounds.
 *
 * Input: one configuration byte, then the bytes that arrive on the socket
 * before the other side shuts it down:
 *   bit 0 clear: a request, read by the server's reader;
 *   bit 0 set:   answer frames, read by the client's reader until it fails. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli_wire.h"
#include "fuzz_common.h"

/* A socket whose peer has sent `data` and shut its side down. */
static int arriving(const uint8_t *data, size_t size, int *peer)
{
    int fds[2];
    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    /* Inputs stay far below a socket's buffer, so the write completes
     * before anyone reads. */
    FUZZ_CHECK(cli_wire_send(fds[0], data, size) == 0);
    FUZZ_CHECK(shutdown(fds[0], SHUT_WR) == 0);
    *peer = fds[0];
    return fds[1];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536) return 0;
    const int frames = data[0] & 1;
    int peer;
    const int fd = arriving(data + 1, size - 1, &peer);
    if (!frames) {
        int argc;
        char **argv;
        char *name;
        const char *why = NULL;
        if (cli_wire_recv_request(fd, &argc, &argv, &name, &why) == 0) {
            FUZZ_CHECK(argc >= 0 && argc <= CLI_WIRE_MAX_ARGS);
            for (int i = 0; i < argc; i++) FUZZ_CHECK(argv[i] && strlen(argv[i]) <= CLI_WIRE_MAX_ARG_BYTES);
            FUZZ_CHECK(argv[argc] == NULL);
            FUZZ_CHECK(name != NULL);
            cli_wire_free_args(argc, argv);
            free(name);
        } else {
            FUZZ_CHECK(why != NULL && why[0] != '\0');
            FUZZ_CHECK(argv == NULL && name == NULL);
        }
    } else {
        int type;
        char *body;
        size_t n;
        while (cli_wire_recv_frame(fd, &type, &body, &n) == 0) {
            FUZZ_CHECK(body != NULL && body[n] == '\0' && n <= CLI_WIRE_MAX_FRAME);
            FUZZ_CHECK(type >= 0 && type <= 255);
            free(body);
        }
    }
    close(fd);
    close(peer);
    return 0;
}
