/* The one MPI job of a process: joining it (Open MPI's mpirun), this
 * process's rank among all and among those of its machine, and the few
 * collectives the distributed engines use (sw_pair_mpi.h for megabase
 * alignment, sw_search_ranks.h for database search). Messages travel as
 * bytes in pieces of at most 1 GiB, since MPI counts are int. Builds
 * without MPI compile the same functions, which refuse to join. */
#ifndef SW_MPI_H
#define SW_MPI_H

#include <stdint.h>

#include "sw_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sw_mpi sw_mpi;

/* Whether an MPI launcher started this process as one of several. */
int sw_mpi_launched(void);

/* 1 when this build has MPI. */
int sw_mpi_supported(void);

/* Joins the job (MPI_Init on MPI_COMM_WORLD); errors then come back as
 * codes, so every rank can report and leave. MPI's own state refuses a
 * second join in a process. */
int sw_mpi_join(sw_mpi **out, sw_error *err);

/* Leaves the job (MPI_Finalize) and frees m; may be NULL. */
void sw_mpi_leave(sw_mpi *m);

int sw_mpi_rank(const sw_mpi *m);
int sw_mpi_size(const sw_mpi *m);
/* This rank's number among the ranks of its machine, and their count. */
int sw_mpi_local_rank(const sw_mpi *m);
int sw_mpi_local_size(const sw_mpi *m);

/* `n` bytes to rank `to` / from rank `from`, under `tag` (below 1000). */
int sw_mpi_send(sw_mpi *m, int to, int tag, const void *bytes, uint64_t n, sw_error *err);
int sw_mpi_recv(sw_mpi *m, int from, int tag, void *bytes, uint64_t n, sw_error *err);

/* A message sent without waiting (`n` at most 1 GiB): `bytes` must stay
 * as they are until sw_mpi_finish(), which waits for it and frees it. */
typedef struct sw_mpi_request sw_mpi_request;
int sw_mpi_post(sw_mpi *m, int to, int tag, const void *bytes, uint64_t n, sw_mpi_request **out, sw_error *err);
int sw_mpi_finish(sw_mpi_request *r, sw_error *err);

/* A message of at most `cap` bytes (at most 1 GiB) from rank `from` under
 * `tag`, waiting without spinning; *got: its size. */
int sw_mpi_recv_upto(sw_mpi *m, int from, int tag, void *bytes, uint64_t cap, uint64_t *got, sw_error *err);

/* Whether a message from rank `from` under `tag` has come: *bytes its
 * size, or UINT64_MAX when none has (it is then left for later). */
int sw_mpi_probe(sw_mpi *m, int from, int tag, uint64_t *bytes, sw_error *err);

/* Collective: rank 0's `n` bytes into every rank's `bytes` (every rank
 * passes the same n). */
int sw_mpi_broadcast(sw_mpi *m, void *bytes, uint64_t n, sw_error *err);

/* Collective: the largest of every rank's `value`, on every rank. */
int sw_mpi_max(sw_mpi *m, int64_t value, int64_t *out, sw_error *err);

/* Collective: SW_OK when every rank's `status` is SW_OK, else this rank's
 * own (`err` as the caller left it); where only others failed, rank 0 gets
 * the first failing rank's code and message ("rank 2 of 3: ..."), the
 * others SW_EIO ("another process of the run failed"). */
int sw_mpi_agree(sw_mpi *m, int status, sw_error *err);

/* Collective: every rank's `count` values, on every rank, rank by rank
 * into all[rank * count ..]. */
int sw_mpi_gather_all(sw_mpi *m, const int64_t *mine, int count, int64_t *all, sw_error *err);

/* Collective: every rank's `n` bytes to rank 0, which receives them in
 * *all (malloc'ed, rank by rank) and their sizes in sizes[rank] (room for
 * sw_mpi_size() of them); the others pass NULL for both. Sizes may differ
 * between ranks. */
int sw_mpi_gather(sw_mpi *m, const void *mine, uint64_t n, void **all, uint64_t *sizes, sw_error *err);

#ifdef __cplusplus
}
#endif

#endif
