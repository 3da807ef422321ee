/* The slice operations over MPI (sw_pair_mpi.h). Rows travel as bytes in
 * pieces of at most 1 GiB (MPI counts are int), after a flag that says
 * whether a new row follows. */
#include "sw_pair_mpi.h"

#include <stdlib.h>
#include <string.h>

static long env_long(const char *name)
{
    const char *v = getenv(name);
    return v ? strtol(v, NULL, 10) : 0;
}

int sw_pair_mpi_launched(void)
{
    return env_long("OMPI_COMM_WORLD_SIZE") > 1 || env_long("PMI_SIZE") > 1;
}

#ifdef SW_HAVE_MPI
#include <mpi.h>

enum { TAG_FLAG = 71, TAG_ROW = 72 };
#define PIECE (1 << 30)

struct sw_pair_mpi {
    sw_pair_slice_ops ops;
    int local_rank;
};

static int mpi_fail(sw_error *err, int code, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    return sw_error_set(err, SW_EIO, "MPI: %s: %.*s", what, len, text);
}

static int send_next(void *user, const sw_pair_edge *row, uint64_t n, int changed, sw_error *err)
{
    const sw_pair_mpi *m = user;
    const int to = m->ops.rank + 1;
    int rc = MPI_Send(&changed, 1, MPI_INT, to, TAG_FLAG, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "sending to the next rank");
    if (!changed) return SW_OK;
    const char *bytes = (const char *)row;
    for (uint64_t off = 0, total = n * sizeof *row; off < total; off += PIECE) {
        const int count = (int)(total - off < PIECE ? total - off : PIECE);
        rc = MPI_Send(bytes + off, count, MPI_BYTE, to, TAG_ROW, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "sending a row to the next rank");
    }
    return SW_OK;
}

static int recv_prev(void *user, sw_pair_edge *row, uint64_t n, int *changed, sw_error *err)
{
    const sw_pair_mpi *m = user;
    const int from = m->ops.rank - 1;
    int rc = MPI_Recv(changed, 1, MPI_INT, from, TAG_FLAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "receiving from the previous rank");
    if (!*changed) return SW_OK;
    char *bytes = (char *)row;
    for (uint64_t off = 0, total = n * sizeof *row; off < total; off += PIECE) {
        const int count = (int)(total - off < PIECE ? total - off : PIECE);
        rc = MPI_Recv(bytes + off, count, MPI_BYTE, from, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "receiving a row from the previous rank");
    }
    return SW_OK;
}

static int max_all(void *user, int64_t value, int64_t *out, sw_error *err)
{
    (void)user;
    const int rc = MPI_Allreduce(&value, out, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? SW_OK : mpi_fail(err, rc, "reducing");
}

static int gather_all(void *user, const int64_t *mine, int64_t *all, sw_error *err)
{
    (void)user;
    const int rc = MPI_Allgather(mine, SW_PAIR_SPLIT_FIELDS, MPI_INT64_T, all, SW_PAIR_SPLIT_FIELDS, MPI_INT64_T,
                                 MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? SW_OK : mpi_fail(err, rc, "gathering the results");
}

int sw_pair_mpi_start(sw_pair_mpi **out, sw_error *err)
{
    *out = NULL;
    sw_pair_mpi *m = calloc(1, sizeof *m);
    if (!m) return sw_error_set(err, SW_ENOMEM, "out of memory");
    /* MPI_Init may run once in a process: MPI's own state says whether it
     * did, so one caller a process joins the job. */
    int started = 0, ended = 0;
    MPI_Initialized(&started);
    MPI_Finalized(&ended);
    if (started || ended) {
        free(m);
        return sw_error_set(err, SW_EINVAL, "MPI: this process has joined its job already");
    }
    int rc = MPI_Init(NULL, NULL);
    if (rc != MPI_SUCCESS) {
        free(m);
        return mpi_fail(err, rc, "joining the job");
    }
    /* Errors come back as codes, so every rank can report and leave. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1, local = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    m->local_rank = local;
    m->ops = (sw_pair_slice_ops){m, rank, size, send_next, recv_prev, max_all, gather_all};
    *out = m;
    return SW_OK;
}

const sw_pair_slice_ops *sw_pair_mpi_ops(sw_pair_mpi *m) { return &m->ops; }

int sw_pair_mpi_local_rank(const sw_pair_mpi *m) { return m->local_rank; }

void sw_pair_mpi_end(sw_pair_mpi *m)
{
    if (!m) return;
    MPI_Finalize();
    free(m);
}

#else

int sw_pair_mpi_start(sw_pair_mpi **out, sw_error *err)
{
    *out = NULL;
    return sw_error_set(err, SW_EINVAL,
                        "started by an MPI launcher, but this swsearch was built without MPI support "
                        "(install Open MPI's development files and build again)");
}

const sw_pair_slice_ops *sw_pair_mpi_ops(sw_pair_mpi *m)
{
    (void)m;
    return NULL;
}

int sw_pair_mpi_local_rank(const sw_pair_mpi *m)
{
    (void)m;
    return 0;
}

void sw_pair_mpi_end(sw_pair_mpi *m) { (void)m; }

#endif
