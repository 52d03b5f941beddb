/*
 * dist.h — internals of the distributed layer (the C files of src/dist, built
 * with mpicc into libsmv_dist.a). Not installed.
 */
#ifndef SMV_DIST_INTERNAL_H
#define SMV_DIST_INTERNAL_H

#include "dist_device.h"
#include "smv_dist.h"

struct smv_dist {
  MPI_Comm comm; /* our duplicate, MPI_ERRORS_RETURN */
  int rank, size;
  int64_t grows, gcols, gnnz;
  int64_t *row_off, *col_off; /* size + 1 each */
  int32_t nrows, ncols;       /* this rank's rows and owned x entries */

  smv_csr *loc; /* nrows x ncols, columns - col_off[rank]           */
  smv_csr *rem; /* nremrows x nghost: the rows with off-rank entries,
                   columns index ghost_col                            */
  int32_t nremrows;
  int32_t *rem_rows; /* local row of each remote-block row (nremrows)   */
  double *rem_y;     /* the remote block's product, before it is added  */
  int32_t nghost;
  int64_t *ghost_col; /* sorted global columns of the ghosts           */

  /* Halo plan: ghosts arrive grouped by owner (ascending rank, since
   * ownership is contiguous), so recv block k is ghost entries
   * recv_start[k] .. recv_start[k+1] from rank recv_rank[k]. Sends:
   * send_idx (owned x indices) in blocks send_start[k].. for send_rank[k]. */
  int nrecv, nsend;
  int *recv_rank, *recv_start, *send_rank, *send_start;
  int32_t nsend_total;
  int32_t *send_idx;
  double *send_buf, *recv_buf; /* host staging (nsend_total, nghost)   */
  MPI_Request *reqs;           /* nrecv + nsend                        */

  smv_dist_backend backend;
  smv_dist_exchange exchange; /* resolved, never AUTO                */
  smv_alg alg;
  int device;
  smv_context *ctx;
  smv_matrix *dloc, *drem;
  int32_t *d_send_idx, *d_rem_rows;
  double *d_rem_y;
  double *d_send, *d_recv; /* device halo buffers          */
  double *d_x, *d_y;       /* for smv_dist_spmv_host        */
  struct smv_nccl *nccl;   /* NCCL path only               */

  char note[512];
  char err[SMV_ERROR_TEXT];
};

/* Record an error on D (if not NULL) and in err (if not NULL); returns st. */
smv_status dist_fail(smv_dist *D, smv_error *err, smv_status st,
                     const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* An MPI return code as an error naming the call. */
smv_status dist_mpi_fail(smv_dist *D, smv_error *err, int rc, const char *call,
                         const char *file, int line);

#define DIST_MPI(D, err, call)                                                 \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ != MPI_SUCCESS)                                                    \
      return dist_mpi_fail(D, err, rc_, #call, __FILE__, __LINE__);            \
  } while (0)

/* The exchange, split for overlap: start posts receives and sends (after
 * packing); finish waits and leaves the ghosts where the remote block reads
 * them (recv_buf on the CPU backend, d_recv on CUDA). */
smv_status dist_halo_start(smv_dist *D, const double *x);
smv_status dist_halo_finish(smv_dist *D);

/* Build the halo plan and the two blocks from this rank's rows (columns
 * global). Called by smv_dist_create after the layout is agreed. */
smv_status dist_build(smv_dist *D, const int32_t *row_ptr,
                      const int64_t *col_idx, const double *values,
                      smv_error *err);

/* Set up the CUDA backend (device, blocks uploaded, buffers, exchange
 * path resolved). */
smv_status dist_cuda_setup(smv_dist *D, const smv_dist_options *opt,
                           smv_error *err);
void dist_cuda_release(smv_dist *D);

/* Collective agreement on a status: the most negative one anywhere. A
 * failed MPI call here returns SMV_ERR_IO with its text in err. */
smv_status dist_agree(smv_dist *D, smv_status st, smv_error *err);

#endif
