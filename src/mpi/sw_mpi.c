/* The MPI job (sw_mpi.h). */
#include "sw_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long env_long(const char *name)
{
    const char *v = getenv(name);
    return v ? strtol(v, NULL, 10) : 0;
}

int sw_mpi_launched(void) { return env_long("OMPI_COMM_WORLD_SIZE") > 1 || env_long("PMI_SIZE") > 1; }

struct sw_mpi {
    int rank, size, local_rank, local_size;
};

int sw_mpi_rank(const sw_mpi *m) { return m ? m->rank : 0; }
int sw_mpi_size(const sw_mpi *m) { return m ? m->size : 1; }
int sw_mpi_local_rank(const sw_mpi *m) { return m ? m->local_rank : 0; }
int sw_mpi_local_size(const sw_mpi *m) { return m ? m->local_size : 1; }

#ifdef SW_HAVE_MPI
#include <mpi.h>

#define PIECE ((uint64_t)1 << 30)
/* Tags of sw_mpi_gather's pieces: above the callers'. */
enum { TAG_GATHER = 1000 };

int sw_mpi_supported(void) { return 1; }

static int mpi_fail(sw_error *err, int code, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    return sw_error_set(err, SW_EIO, "MPI: %s: %.*s", what, len, text);
}

/* Waits for a request without spinning: a rank that waits for the others
 * (rank 0 while they search, the others while rank 0 reports) would
 * otherwise keep a core busy that its own threads, or a rank beside it,
 * need. The sleeps grow to a millisecond, which is nothing against a
 * search. */
static int wait_for(MPI_Request *request, MPI_Status *status)
{
    long pause = 10000; /* nanoseconds */
    for (;;) {
        int done = 0;
        const int rc = MPI_Test(request, &done, status);
        if (rc != MPI_SUCCESS || done) return rc;
        struct timespec ts = {0, pause};
        nanosleep(&ts, NULL);
        if (pause < 1000000) pause *= 2;
    }
}

static int wait_gently(MPI_Request *request) { return wait_for(request, MPI_STATUS_IGNORE); }

int sw_mpi_join(sw_mpi **out, sw_error *err)
{
    *out = NULL;
    int started = 0, ended = 0;
    MPI_Initialized(&started);
    MPI_Finalized(&ended);
    if (started || ended) return sw_error_set(err, SW_EINVAL, "MPI: this process has joined its job already");
    sw_mpi *m = calloc(1, sizeof *m);
    if (!m) return sw_error_set(err, SW_ENOMEM, "out of memory");
    int rc = MPI_Init(NULL, NULL);
    if (rc != MPI_SUCCESS) {
        free(m);
        return mpi_fail(err, rc, "joining the job");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    m->local_size = 1;
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &m->local_rank);
        MPI_Comm_size(node, &m->local_size);
        MPI_Comm_free(&node);
    }
    *out = m;
    return SW_OK;
}

void sw_mpi_leave(sw_mpi *m)
{
    if (!m) return;
    MPI_Finalize();
    free(m);
}

int sw_mpi_send(sw_mpi *m, int to, int tag, const void *bytes, uint64_t n, sw_error *err)
{
    (void)m;
    for (uint64_t off = 0; off < n; off += PIECE) {
        const int count = (int)(n - off < PIECE ? n - off : PIECE);
        int rc = MPI_Send((const char *)bytes + off, count, MPI_BYTE, to, tag, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "sending to another rank");
    }
    return SW_OK;
}

int sw_mpi_recv(sw_mpi *m, int from, int tag, void *bytes, uint64_t n, sw_error *err)
{
    (void)m;
    for (uint64_t off = 0; off < n; off += PIECE) {
        const int count = (int)(n - off < PIECE ? n - off : PIECE);
        int rc = MPI_Recv((char *)bytes + off, count, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "receiving from another rank");
    }
    return SW_OK;
}

int sw_mpi_broadcast(sw_mpi *m, void *bytes, uint64_t n, sw_error *err)
{
    (void)m;
    for (uint64_t off = 0; off < n; off += PIECE) {
        const int count = (int)(n - off < PIECE ? n - off : PIECE);
        MPI_Request request;
        int rc = MPI_Ibcast((char *)bytes + off, count, MPI_BYTE, 0, MPI_COMM_WORLD, &request);
        if (rc == MPI_SUCCESS) rc = wait_gently(&request);
        if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "broadcasting");
    }
    return SW_OK;
}

struct sw_mpi_request {
    MPI_Request request;
};

int sw_mpi_post(sw_mpi *m, int to, int tag, const void *bytes, uint64_t n, sw_mpi_request **out, sw_error *err)
{
    (void)m;
    *out = NULL;
    if (n > PIECE) return sw_error_set(err, SW_EINVAL, "MPI: a message of %llu bytes", (unsigned long long)n);
    sw_mpi_request *r = malloc(sizeof *r);
    if (!r) return sw_error_set(err, SW_ENOMEM, "out of memory");
    int rc = MPI_Isend(bytes, (int)n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &r->request);
    if (rc != MPI_SUCCESS) {
        free(r);
        return mpi_fail(err, rc, "sending to another rank");
    }
    *out = r;
    return SW_OK;
}

int sw_mpi_finish(sw_mpi_request *r, sw_error *err)
{
    if (!r) return SW_OK;
    int rc = wait_gently(&r->request);
    free(r);
    return rc == MPI_SUCCESS ? SW_OK : mpi_fail(err, rc, "sending to another rank");
}

int sw_mpi_recv_upto(sw_mpi *m, int from, int tag, void *bytes, uint64_t cap, uint64_t *got, sw_error *err)
{
    (void)m;
    *got = 0;
    if (cap > PIECE) return sw_error_set(err, SW_EINVAL, "MPI: room for %llu bytes", (unsigned long long)cap);
    MPI_Request request;
    int rc = MPI_Irecv(bytes, (int)cap, MPI_BYTE, from, tag, MPI_COMM_WORLD, &request);
    MPI_Status status;
    if (rc == MPI_SUCCESS) rc = wait_for(&request, &status);
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "receiving from another rank");
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    *got = (uint64_t)count;
    return SW_OK;
}

int sw_mpi_probe(sw_mpi *m, int from, int tag, uint64_t *bytes, sw_error *err)
{
    (void)m;
    *bytes = UINT64_MAX;
    int flag = 0;
    MPI_Status status;
    const int rc = MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &status);
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "waiting for another rank");
    if (flag) {
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        *bytes = (uint64_t)count;
    }
    return SW_OK;
}

int sw_mpi_max(sw_mpi *m, int64_t value, int64_t *out, sw_error *err)
{
    (void)m;
    MPI_Request request;
    int rc = MPI_Iallreduce(&value, out, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD, &request);
    if (rc == MPI_SUCCESS) rc = wait_gently(&request);
    return rc == MPI_SUCCESS ? SW_OK : mpi_fail(err, rc, "reducing");
}

/* Pieces of a gather, sent and received without spinning. */
static int send_gently(int to, const void *bytes, uint64_t n, sw_error *err)
{
    for (uint64_t off = 0; off < n; off += PIECE) {
        const int count = (int)(n - off < PIECE ? n - off : PIECE);
        MPI_Request request;
        int rc = MPI_Isend((const char *)bytes + off, count, MPI_BYTE, to, TAG_GATHER, MPI_COMM_WORLD, &request);
        if (rc == MPI_SUCCESS) rc = wait_gently(&request);
        if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "sending to rank 0");
    }
    return SW_OK;
}

static int recv_gently(int from, void *bytes, uint64_t n, sw_error *err)
{
    for (uint64_t off = 0; off < n; off += PIECE) {
        const int count = (int)(n - off < PIECE ? n - off : PIECE);
        MPI_Request request;
        int rc = MPI_Irecv((char *)bytes + off, count, MPI_BYTE, from, TAG_GATHER, MPI_COMM_WORLD, &request);
        if (rc == MPI_SUCCESS) rc = wait_gently(&request);
        if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "receiving from another rank");
    }
    return SW_OK;
}

int sw_mpi_gather_all(sw_mpi *m, const int64_t *mine, int count, int64_t *all, sw_error *err)
{
    (void)m;
    const int rc = MPI_Allgather(mine, count, MPI_INT64_T, all, count, MPI_INT64_T, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? SW_OK : mpi_fail(err, rc, "gathering");
}

int sw_mpi_gather(sw_mpi *m, const void *mine, uint64_t n, void **all, uint64_t *sizes, sw_error *err)
{
    uint64_t size = n;
    MPI_Request request;
    int rc = MPI_Igather(&size, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &request);
    if (rc == MPI_SUCCESS) rc = wait_gently(&request);
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "gathering sizes");
    if (m->rank != 0) return send_gently(0, mine, n, err);
    uint64_t total = 0;
    for (int r = 0; r < m->size; r++) total += sizes[r];
    char *buf = malloc(total ? total : 1);
    if (!buf) {
        /* The other ranks are sending and MPI has no way to receive a
         * message without room for it: without the memory, the job ends
         * rather than leaving them waiting. */
        sw_error_set(err, SW_ENOMEM, "out of memory gathering the ranks' results (%llu bytes)",
                     (unsigned long long)total);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return SW_ENOMEM;
    }
    int status = SW_OK;
    uint64_t at = 0;
    for (int r = 0; r < m->size; r++) {
        if (r == 0) {
            if (n) memcpy(buf, mine, n);
        } else {
            int got = recv_gently(r, buf + at, sizes[r], status ? NULL : err);
            if (!status) status = got;
        }
        at += sizes[r];
    }
    if (status) {
        free(buf);
        return status;
    }
    *all = buf;
    return SW_OK;
}

#else

int sw_mpi_supported(void) { return 0; }

int sw_mpi_join(sw_mpi **out, sw_error *err)
{
    *out = NULL;
    return sw_error_set(err, SW_EINVAL,
                        "started by an MPI launcher, but this swsearch was built without MPI support "
                        "(install Open MPI's development files and build again)");
}

void sw_mpi_leave(sw_mpi *m) { (void)m; }

static int no_mpi(sw_error *err) { return sw_error_set(err, SW_EINVAL, "built without MPI support"); }

int sw_mpi_send(sw_mpi *m, int to, int tag, const void *bytes, uint64_t n, sw_error *err)
{
    (void)m, (void)to, (void)tag, (void)bytes, (void)n;
    return no_mpi(err);
}

int sw_mpi_recv(sw_mpi *m, int from, int tag, void *bytes, uint64_t n, sw_error *err)
{
    (void)m, (void)from, (void)tag, (void)bytes, (void)n;
    return no_mpi(err);
}

int sw_mpi_broadcast(sw_mpi *m, void *bytes, uint64_t n, sw_error *err)
{
    (void)m, (void)bytes, (void)n;
    return no_mpi(err);
}

int sw_mpi_max(sw_mpi *m, int64_t value, int64_t *out, sw_error *err)
{
    (void)m, (void)value, (void)out;
    return no_mpi(err);
}

int sw_mpi_gather_all(sw_mpi *m, const int64_t *mine, int count, int64_t *all, sw_error *err)
{
    (void)m, (void)mine, (void)count, (void)all;
    return no_mpi(err);
}

int sw_mpi_gather(sw_mpi *m, const void *mine, uint64_t n, void **all, uint64_t *sizes, sw_error *err)
{
    (void)m, (void)mine, (void)n, (void)all, (void)sizes;
    return no_mpi(err);
}

int sw_mpi_post(sw_mpi *m, int to, int tag, const void *bytes, uint64_t n, sw_mpi_request **out, sw_error *err)
{
    (void)m, (void)to, (void)tag, (void)bytes, (void)n;
    *out = NULL;
    return no_mpi(err);
}

int sw_mpi_finish(sw_mpi_request *r, sw_error *err)
{
    (void)r, (void)err;
    return SW_OK;
}

int sw_mpi_recv_upto(sw_mpi *m, int from, int tag, void *bytes, uint64_t cap, uint64_t *got, sw_error *err)
{
    (void)m, (void)from, (void)tag, (void)bytes, (void)cap;
    *got = 0;
    return no_mpi(err);
}

int sw_mpi_probe(sw_mpi *m, int from, int tag, uint64_t *bytes, sw_error *err)
{
    (void)m, (void)from, (void)tag;
    *bytes = UINT64_MAX;
    return no_mpi(err);
}

#endif

int sw_mpi_agree(sw_mpi *m, int status, sw_error *err)
{
    /* Every rank's outcome to rank 0, which names the first failure; then
     * the verdict to all. */
    struct outcome {
        int32_t status;
        char message[sizeof(((sw_error *)0)->message)];
    } mine;
    memset(&mine, 0, sizeof mine);
    mine.status = status;
    if (status)
        snprintf(mine.message, sizeof mine.message, "%s", err && err->message[0] ? err->message : sw_strerror(status));
    const int root = sw_mpi_rank(m) == 0, size = sw_mpi_size(m);
    sw_error local;
    sw_error_clear(&local);
    uint64_t *sizes = root ? calloc((size_t)size, sizeof *sizes) : NULL;
    void *all = NULL;
    int rc = root && !sizes ? sw_error_set(&local, SW_ENOMEM, "out of memory")
                            : sw_mpi_gather(m, &mine, sizeof mine, root ? &all : NULL, sizes, &local);
    int64_t first = 0; /* 1 + the first failing rank; 0: none */
    for (int r = 0; rc == SW_OK && root && r < size && !first; r++)
        if (((const struct outcome *)all)[r].status) first = r + 1;
    if (rc == SW_OK) rc = sw_mpi_broadcast(m, &first, sizeof first, &local);
    int result = status;
    if (rc) {
        if (!status && err) *err = local;
        result = status ? status : rc;
    } else if (!status && first) {
        const struct outcome *o = root ? &((const struct outcome *)all)[first - 1] : NULL;
        result = o ? sw_error_set(err, o->status, "rank %d of %d: %s", (int)first - 1, size, o->message)
                   : sw_error_set(err, SW_EIO, "another process of the run failed");
    }
    free(all);
    free(sizes);
    return result;
}
