/*
 * smv_dist.h — distributed SpMV on MPI: y = alpha*A*x + beta*y with the rows
 * of A, and the entries of x and y, spread over the ranks of a communicator
 * (PETSc's MPIAIJ layout). Built into libsmv_dist.a when smv finds mpicc;
 * link it before libsmv.a. smv.h stays free of MPI; this header needs mpi.h.
 *
 * Layout:
 *   - rank r owns the contiguous rows [row_offset(r), row_offset(r+1)) and
 *     the matching entries of y;
 *   - rank r owns the contiguous entries [col_offset(r), col_offset(r+1))
 *     of x: the same ranges as the rows for a square matrix; for a
 *     rectangular one an even split of the columns (rank r gets
 *     floor(r*cols/P) .. floor((r+1)*cols/P)), unless the caller gives its
 *     own with smv_dist_options.local_cols;
 *   - global sizes and offsets are int64, so the whole matrix may exceed
 *     2^31 rows or entries; each rank's part stays within int32 (rows,
 *     entries and ghost columns per rank < 2^31).
 * Each rank splits its rows into a local block (columns it owns, indexed
 * from col_offset) and a remote block whose columns are the compressed
 * ghost columns (the off-rank x entries it needs, sorted by global index).
 * The halo plan (who sends which owned x entries to whom) is built once at
 * creation (MPI_Alltoall of counts, MPI_Alltoallv of indices).
 *
 * One SpMV: post the halo exchange, run the local block (beta as given),
 * wait, add the remote block (beta = 1). Exchange paths: host-staged MPI
 * (default), device buffers handed to a CUDA-aware MPI, or NCCL group
 * send/recv when smv was built with NCCL and each rank has its own GPU.
 *
 * Every function is collective over the communicator unless it says
 * otherwise, returns smv_status, never prints, and checks every MPI call
 * (the library duplicates the communicator and sets MPI_ERRORS_RETURN on
 * its copy). Errors found on one rank during creation are agreed on, so
 * every rank returns an error together rather than some waiting forever.
 */
#ifndef SMV_DIST_H
#define SMV_DIST_H

#include "smv.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct smv_dist smv_dist; /* opaque: plan, blocks, buffers */

typedef enum {
  SMV_DIST_CPU = 0, /* smv_spmv_cpu per rank; host vectors            */
  SMV_DIST_CUDA = 1 /* smv_spmv per rank on its GPU; device vectors   */
} smv_dist_backend;

typedef enum {
  SMV_DIST_EXCHANGE_AUTO = 0, /* NCCL if built, GPUs distinct; else MPI    */
  SMV_DIST_EXCHANGE_HOST = 1, /* host-staged MPI (the CPU backend's only) */
  SMV_DIST_EXCHANGE_CUDA_AWARE = 2, /* device pointers to MPI              */
  SMV_DIST_EXCHANGE_NCCL = 3        /* ncclSend/ncclRecv on a stream       */
} smv_dist_exchange;

typedef enum {
  SMV_DIST_PART_NNZ = 0, /* row blocks with about nnz/P entries each    */
  SMV_DIST_PART_ROWS = 1 /* row blocks with about rows/P rows each       */
} smv_dist_partition;

typedef struct {
  smv_dist_backend backend;
  int device;  /* CUDA: -1 = node-local rank mod device count (default) */
  smv_alg alg; /* CUDA kernel for both blocks (default SMV_ALG_AUTO)     */
  smv_dist_exchange exchange; /* default AUTO: see smv_dist_exchange_used */
  /* AUTO and CUDA_AWARE trust MPIX_Query_cuda_support(); 1 = take the
   * device path even when the query says no (for an MPI that is CUDA-aware
   * but cannot say so). */
  int force_cuda_aware;
  /* NCCL refuses two ranks on one GPU; smv then falls back to MPI (see
   * smv_dist_note). 1 = ask NCCL anyway, so creation fails with NCCL's own
   * refusal (for checking that the refusal is real). */
  int force_nccl;
  smv_dist_partition partition; /* smv_dist_create_from_root only        */
  int64_t local_cols;           /* entries of x this rank owns; -1 = the default
                                   layout above (all ranks -1, or all ranks >= 0)  */
} smv_dist_options;

static inline void smv_dist_options_init(smv_dist_options *o) {
  if (!o)
    return;
  o->backend = SMV_DIST_CPU;
  o->device = -1;
  o->alg = SMV_ALG_AUTO;
  o->exchange = SMV_DIST_EXCHANGE_AUTO;
  o->force_cuda_aware = 0;
  o->force_nccl = 0;
  o->partition = SMV_DIST_PART_NNZ;
  o->local_cols = -1;
}

/* Create from each rank's own rows: this rank holds global rows
 * [row_offset, row_offset + local_rows) of a global_rows x global_cols
 * matrix, as CSR with local row pointers (row_ptr[0] = 0, local_rows + 1
 * entries) and GLOBAL column indices (int64, 0 <= col < global_cols).
 * Row blocks must tile 0..global_rows in rank order. Columns need not be
 * sorted within a row; duplicates are kept (summed by the product). The
 * arrays are copied: the caller keeps them. opt may be NULL (defaults). */
smv_status smv_dist_create(MPI_Comm comm, int64_t global_rows,
                           int64_t global_cols, int64_t row_offset,
                           int32_t local_rows, const int32_t *row_ptr,
                           const int64_t *col_idx, const double *values,
                           const smv_dist_options *opt, smv_dist **D,
                           smv_error *err);

/* Create from a whole matrix held by rank `root` (A is read only there;
 * other ranks may pass NULL): the root splits it by opt->partition and
 * scatters each rank its rows. */
smv_status smv_dist_create_from_root(MPI_Comm comm, int root, const smv_csr *A,
                                     const smv_dist_options *opt, smv_dist **D,
                                     smv_error *err);

/* Free (collective only in that it releases a duplicated communicator and,
 * with NCCL, the NCCL communicator). NULL-safe. */
void smv_dist_free(smv_dist *D);

/* The contiguous row blocks of a partition of a CSR's row pointer over
 * `parts` ranks: offsets[0] = 0 ... offsets[parts] = rows (parts + 1
 * entries). Not collective. */
smv_status smv_dist_partition_rows(const smv_offset *row_ptr, int64_t rows,
                                   int parts, smv_dist_partition how,
                                   int64_t *offsets);

/* The block of a partition that holds index v: the k with offsets[k] <= v
 * < offsets[k + 1] (offsets as smv_dist_partition_rows makes them, parts +
 * 1 entries), skipping empty blocks; -1 when v is outside [offsets[0],
 * offsets[parts]). The owner of a row or a column. Not collective. */
int smv_dist_row_owner(const int64_t *offsets, int parts, int64_t v);

/* Sizes: global rows and columns; this rank's first row and row count,
 * first owned column and owned column count (= its x length). Not
 * collective. */
typedef struct {
  int64_t global_rows, global_cols, global_nnz;
  int64_t row_offset, col_offset;
  int32_t local_rows, local_cols;
  int64_t nnz_local, nnz_remote; /* entries of the two blocks             */
  int32_t ghosts;                /* distinct off-rank columns received    */
  int32_t send_entries;          /* x entries this rank sends per SpMV    */
  int32_t recv_neighbors, send_neighbors; /* ranks exchanged with         */
  smv_dist_backend backend;
  smv_dist_exchange exchange; /* the path in use (never AUTO)            */
  int device;                 /* CUDA device, -1 on the CPU backend      */
} smv_dist_info;
smv_status smv_dist_get_info(const smv_dist *D, smv_dist_info *info);
/* Why the exchange path differs from the one asked for ("" if it does
 * not), e.g. "NCCL refused: ranks 0 and 1 share GPU ...; using host-staged
 * MPI". Not collective. */
const char *smv_dist_note(const smv_dist *D);
/* Text of the last error on D ("" if none). Not collective. */
const char *smv_dist_error(const smv_dist *D);
/* Name of an exchange path ("host", "cuda-aware", "nccl", "auto"). */
const char *smv_dist_exchange_name(smv_dist_exchange e);

/* y = alpha*A*x + beta*y on distributed vectors: x holds this rank's
 * local_cols owned entries, y its local_rows entries. Host pointers on the
 * CPU backend, device pointers on the CUDA backend (double). beta = 0
 * overwrites y. Returns when y is complete on this rank. */
smv_status smv_dist_spmv(smv_dist *D, double alpha, const double *x,
                         double beta, double *y);
/* The same on host vectors whatever the backend (copies for CUDA). */
smv_status smv_dist_spmv_host(smv_dist *D, double alpha, const double *x,
                              double beta, double *y);

/* Vectors: scatter a global vector held by `root` (length global rows when
 * rows != 0, else global columns) into each rank's owned part, and gather
 * owned parts back (y_global significant on root only; it must have room
 * for the global length there). Host memory. Global lengths above INT_MAX
 * are SMV_ERR_OVERFLOW here (MPI counts are int). */
smv_status smv_dist_scatter_vector(smv_dist *D, int root, int rows,
                                   const double *global, double *local);
smv_status smv_dist_gather_vector(smv_dist *D, int root, int rows,
                                  const double *local, double *global);

/* Phase timing of smv_dist_spmv on host vectors x (local_cols entries) and
 * y (local_rows; overwritten): on the CUDA backend they are copied to the
 * device once and every timed run works on device memory. Each mode runs `runs`
 * times after `warmup` untimed runs; every run starts at a barrier and its
 * time is this rank's MPI_Wtime interval (GPU work synchronised), and the
 * slowest rank's interval of each run is kept too. Medians in ms. */
typedef struct {
  double exchange_ms; /* halo only: pack, send/recv, unpack           */
  double local_ms;    /* local block only                             */
  double remote_ms;   /* remote block only (ghosts as they stand)     */
  double compute_ms;  /* local + remote, no exchange                  */
  double total_ms;    /* smv_dist_spmv: exchange overlapped with local */
  /* The same, max over ranks per run, then the median over runs. */
  double max_exchange_ms, max_compute_ms, max_total_ms;
  /* Share of the exchange hidden behind the local block, from the max
   * figures: (compute + exchange - total) / exchange, clamped to 0..1;
   * NaN when no rank has anything to exchange. */
  double hidden;
  int runs;
} smv_dist_timing;
smv_status smv_dist_time(smv_dist *D, const double *x, double *y, int warmup,
                         int runs, smv_dist_timing *t);

#ifdef __cplusplus
}
#endif
#endif /* SMV_DIST_H */
