/* The slice operations over MPI (sw_pair_mpi.h), on the process's MPI job
 * (sw_mpi.h). A row travels after a flag that says whether a new row
 * follows. */
#include "sw_pair_mpi.h"

#include <stdlib.h>

#include "sw_mpi.h"

enum { TAG_FLAG = 71, TAG_ROW = 72 };

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
    m->ops = (sw_pair_slice_ops){m, sw_mpi_rank(m->job), sw_mpi_size(m->job), send_next, recv_prev, max_all, gather_all};
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
