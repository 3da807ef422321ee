/* The slice operations over MPI (sw_pair_mpi.h), on the process's MPI job
 * (sw_mpi.h). A row travels after a flag that says whether a new row
 * follows. */
#include "sw_pair_mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sw_mpi.h"

enum { TAG_FLAG = 71, TAG_ROW = 72, TAG_COLUMN = 73 };

/* A piece of a column: this head, then count cells of two int32. */
typedef struct column_head {
    uint64_t first, count;
    int32_t best, abort;
} column_head;

struct sw_pair_mpi {
    sw_pair_slice_ops ops;
    sw_mpi *job;
};

int sw_pair_mpi_launched(void) { return sw_mpi_launched(); }

static int send_next(void *user, const sw_pair_edge *row, uint64_t n, int changed, sw_error *err)
{
    sw_pair_mpi *m = user;
    const int to = m->ops.rank + 1;
    int rc = sw_mpi_send(m->job, to, TAG_FLAG, &changed, sizeof changed, err);
    if (rc || !changed) return rc;
    return sw_mpi_send(m->job, to, TAG_ROW, row, n * sizeof *row, err);
}

static int recv_prev(void *user, sw_pair_edge *row, uint64_t n, int *changed, sw_error *err)
{
    sw_pair_mpi *m = user;
    const int from = m->ops.rank - 1;
    int rc = sw_mpi_recv(m->job, from, TAG_FLAG, changed, sizeof *changed, err);
    if (rc || !*changed) return rc;
    return sw_mpi_recv(m->job, from, TAG_ROW, row, n * sizeof *row, err);
}

static int max_all(void *user, int64_t value, int64_t *out, sw_error *err)
{
    sw_pair_mpi *m = user;
    return sw_mpi_max(m->job, value, out, err);
}

static int gather_all(void *user, const int64_t *mine, int64_t *all, sw_error *err)
{
    sw_pair_mpi *m = user;
    return sw_mpi_gather_all(m->job, mine, SW_PAIR_SPLIT_FIELDS, all, err);
}

static int send_column(void *user, uint64_t first, uint64_t count, const int32_t *cells, int32_t best, int abort,
                       sw_error *err)
{
    sw_pair_mpi *m = user;
    const uint64_t bytes = sizeof(column_head) + count * 8;
    char *msg = malloc(bytes);
    if (!msg) return sw_error_set(err, SW_ENOMEM, "out of memory for a piece of a column");
    const column_head head = {first, count, best, abort};
    memcpy(msg, &head, sizeof head);
    if (count) memcpy(msg + sizeof head, cells + 2 * first, count * 8);
    const int rc = sw_mpi_send(m->job, m->ops.rank + 1, TAG_COLUMN, msg, bytes, err);
    free(msg);
    return rc;
}

static int poll_column(void *user, sw_pair_column *column, int *got, sw_error *err)
{
    sw_pair_mpi *m = user;
    *got = 0;
    uint64_t bytes = 0;
    int rc = sw_mpi_probe(m->job, m->ops.rank - 1, TAG_COLUMN, &bytes, err);
    if (rc || bytes == UINT64_MAX) return rc;
    char *msg = malloc(bytes ? bytes : 1);
    if (!msg) return sw_error_set(err, SW_ENOMEM, "out of memory for a piece of a column");
    uint64_t n = 0;
    rc = sw_mpi_recv_upto(m->job, m->ops.rank - 1, TAG_COLUMN, msg, bytes, &n, err);
    column_head head = {0, 0, 0, 0};
    if (!rc && (n < sizeof head || (memcpy(&head, msg, sizeof head), n != sizeof head + head.count * 8)))
        rc = sw_error_set(err, SW_EIO, "a piece of a column of %llu bytes from rank %d does not add up",
                          (unsigned long long)n, m->ops.rank - 1);
    if (!rc) {
        *got = 1;
        if (head.count) memcpy(sw_pair_column_cells(column) + 2 * head.first, msg + sizeof head, head.count * 8);
        if (head.best > column->best) __atomic_store_n(&column->best, head.best, __ATOMIC_RELAXED);
        if (head.abort) __atomic_store_n(&column->abort, 1, __ATOMIC_RELEASE);
        else __atomic_store_n(&column->rows, head.first + head.count, __ATOMIC_RELEASE);
    }
    free(msg);
    return rc;
}

int sw_pair_mpi_start(sw_pair_mpi **out, sw_error *err)
{
    *out = NULL;
    sw_pair_mpi *m = calloc(1, sizeof *m);
    if (!m) return sw_error_set(err, SW_ENOMEM, "out of memory");
    int rc = sw_mpi_join(&m->job, err);
    if (rc) {
        free(m);
        return rc;
    }
    m->ops = (sw_pair_slice_ops){m,          sw_mpi_rank(m->job), sw_mpi_size(m->job), send_next, recv_prev,
                                 max_all,    gather_all,          send_column,         poll_column};
    *out = m;
    return SW_OK;
}

const sw_pair_slice_ops *sw_pair_mpi_ops(sw_pair_mpi *m) { return m ? &m->ops : NULL; }

int sw_pair_mpi_local_rank(const sw_pair_mpi *m) { return m ? sw_mpi_local_rank(m->job) : 0; }

void sw_pair_mpi_end(sw_pair_mpi *m)
{
    if (!m) return;
    sw_mpi_leave(m->job);
    free(m);
}
