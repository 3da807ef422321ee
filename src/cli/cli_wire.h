/* What `swsearch search --server` and `swsearch serve` say to each other over
 * a local (Unix) socket.
 *
 * Request, client to server: the line "SWSEARCH/1\n", the search options as
 * strings (a 4-byte big-endian count, then each as a 4-byte length and its
 * bytes; "--query-kind pssm" or "msa" among them when the query file is a
 * PSSM or an alignment, not FASTA), the name of the query file (same
 * encoding), then the query file's bytes as they are on disk until the
 * client shuts its side down.
 *
 * Answer, server to client: frames of a type byte, a 4-byte big-endian
 * length and that many bytes: 'O' output, 'N' a note and 'W' a warning
 * (about the input) for standard error, 'V' the -v summary, and last 'E': a 4-byte exit status and the error
 * message (empty on success). An answer without 'E' is a server that went
 * away. */
#ifndef CLI_WIRE_H
#define CLI_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define CLI_WIRE_HELLO "SWSEARCH/1\n"
enum {
    CLI_WIRE_OUTPUT = 'O',
    CLI_WIRE_NOTE = 'N',
    CLI_WIRE_WARNING = 'W',
    CLI_WIRE_VERBOSE = 'V',
    CLI_WIRE_END = 'E'
};

/* Bounds a server holds requests to. */
#define CLI_WIRE_MAX_ARGS 64
#define CLI_WIRE_MAX_ARG_BYTES 65536
/* A frame the client accepts (output comes in frames of the server's buffer). */
#define CLI_WIRE_MAX_FRAME ((uint32_t)1 << 26)

/* All of buf, retrying after signals and short writes (no SIGPIPE); 0, or
 * -1 with errno set. */
int cli_wire_send(int fd, const void *buf, size_t n);
/* Exactly n bytes; 0, or -1 (errno set; 0 for an end of input). */
int cli_wire_recv(int fd, void *buf, size_t n);

int cli_wire_send_frame(int fd, int type, const void *data, size_t n);
/* The end frame: exit status and message. */
int cli_wire_send_end(int fd, int status, const char *message);
/* The end frame's data (malloc'ed, *n bytes), for a frame sent later. */
unsigned char *cli_wire_end_data(int status, const char *message, size_t *n);
/* The next frame; *data is malloc'ed (NUL-terminated, n + 1 bytes). 0, or -1. */
int cli_wire_recv_frame(int fd, int *type, char **data, size_t *n);

/* The request's header: hello, options, query name. */
int cli_wire_send_request(int fd, int argc, char *const *argv, const char *query_name);
/* Reads and checks it. On success 0, with argv (argc entries and a NULL, all
 * malloc'ed; free with cli_wire_free_args) and the query name; else -1 with
 * `why` saying what was wrong. */
int cli_wire_recv_request(int fd, int *argc, char ***argv, char **query_name, const char **why);
void cli_wire_free_args(int argc, char **argv);

#endif
