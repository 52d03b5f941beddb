/*
 * create.c — smv_dist objects: layout agreement, creation from each rank's
 * rows or from a matrix on one rank, row partitions, info and free.
 */
#include "dist.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

smv_status dist_fail(smv_dist *D, smv_error *err, smv_status st,
                     const char *file, int line, const char *fmt, ...) {
  char text[SMV_ERROR_TEXT - 64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  /* The source position helps the maintainers; the reason helps the user. */
  char full[SMV_ERROR_TEXT];
  snprintf(full, sizeof full, "%s:%d: %s", file, line, text);
  if (D)
    snprintf(D->err, sizeof D->err, "%s", full);
  if (err) {
    memset(err, 0, sizeof *err);
    err->status = st;
    snprintf(err->message, sizeof err->message, "%s", full);
  }
  return st;
}

smv_status dist_mpi_fail(smv_dist *D, smv_error *err, int rc, const char *call,
                         const char *file, int line) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
    snprintf(text, sizeof text, "MPI error %d", rc);
  /* The call as written ("MPI_Isend(...)"): keep only its name. */
  int n = (int)strcspn(call, "(");
  return dist_fail(D, err, SMV_ERR_IO, file, line, "%.*s failed: %s", n, call,
                   text);
}

smv_status dist_agree(smv_dist *D, smv_status st, smv_error *err) {
  int mine = (int)st, worst = 0;
  DIST_MPI(D, err, MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MIN, D->comm));
  if (worst != SMV_OK && st == SMV_OK)
    return dist_fail(D, err, (smv_status)worst, __FILE__, __LINE__,
                     "another rank failed (%s)",
                     smv_status_string((smv_status)worst));
  return st;
}

const char *smv_dist_exchange_name(smv_dist_exchange e) {
  switch (e) {
  case SMV_DIST_EXCHANGE_AUTO:
    return "auto";
  case SMV_DIST_EXCHANGE_HOST:
    return "host";
  case SMV_DIST_EXCHANGE_CUDA_AWARE:
    return "cuda-aware";
  case SMV_DIST_EXCHANGE_NCCL:
    return "nccl";
  }
  return "?";
}

smv_status smv_dist_partition_rows(const smv_offset *row_ptr, int64_t rows,
                                   int parts, smv_dist_partition how,
                                   int64_t *offsets) {
  if (!offsets || parts < 1 || rows < 0 ||
      (how == SMV_DIST_PART_NNZ && !row_ptr))
    return SMV_ERR_ARG;
  if (how != SMV_DIST_PART_NNZ && how != SMV_DIST_PART_ROWS)
    return SMV_ERR_ARG;
  offsets[0] = 0;
  int64_t nnz = how == SMV_DIST_PART_NNZ ? row_ptr[rows] : 0;
  int64_t i = 0;
  for (int r = 1; r < parts; r++) {
    if (how == SMV_DIST_PART_ROWS) {
      offsets[r] = rows * r / parts;
      continue;
    }
    /* First row whose start reaches r/P of the entries: block r-1 then
     * holds about nnz/P entries (a row longer than that makes one block
     * big and leaves its neighbours small or empty). Without entries,
     * fall back to rows. */
    if (nnz == 0) {
      offsets[r] = rows * r / parts;
      continue;
    }
    int64_t target = nnz * r / parts;
    while (i < rows && row_ptr[i] < target)
      i++;
    offsets[r] = i;
  }
  offsets[parts] = rows;
  return SMV_OK;
}

static void dist_release(smv_dist *D) {
  dist_cuda_release(D);
  smv_csr_free(D->loc);
  smv_csr_free(D->rem);
  free(D->row_off);
  free(D->col_off);
  free(D->ghost_col);
  free(D->recv_rank);
  free(D->recv_start);
  free(D->send_rank);
  free(D->send_start);
  free(D->send_idx);
  free(D->rem_rows);
  free(D->rem_y);
  free(D->send_buf);
  free(D->recv_buf);
  free(D->reqs);
}

void smv_dist_free(smv_dist *D) {
  if (!D)
    return;
  dist_release(D);
  if (D->comm != MPI_COMM_NULL)
    MPI_Comm_free(&D->comm); /* nothing to report from a free */
  free(D);
}

/* Agree on the row and column layout: gather every rank's row offset and
 * count, check they tile the rows, and set the owned column ranges. */
static smv_status agree_layout(smv_dist *D, int64_t row_offset,
                               int32_t local_rows, int64_t local_cols,
                               smv_error *err) {
  int P = D->size;
  int64_t mine[3] = {row_offset, local_rows, local_cols};
  int64_t *all = malloc((size_t)P * 3 * sizeof *all);
  D->row_off = malloc(((size_t)P + 1) * sizeof *D->row_off);
  D->col_off = malloc(((size_t)P + 1) * sizeof *D->col_off);
  smv_status st = SMV_OK;
  if (!all || !D->row_off || !D->col_off)
    st = dist_fail(D, err, SMV_ERR_NOMEM, __FILE__, __LINE__,
                   "out of memory for the layout of %d ranks", P);
  st = dist_agree(D, st, err);
  if (st != SMV_OK) {
    free(all);
    return st;
  }
  int rc = MPI_Allgather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, D->comm);
  if (rc != MPI_SUCCESS) {
    free(all);
    return dist_mpi_fail(D, err, rc, "MPI_Allgather", __FILE__, __LINE__);
  }
  /* Every rank sees the same table, so every rank reaches the same verdict
   * without another round. */
  int64_t next = 0;
  int given_cols = 0;
  for (int r = 0; r < P && st == SMV_OK; r++) {
    if (all[3 * r] != next)
      st = dist_fail(D, err, SMV_ERR_DIM, __FILE__, __LINE__,
                     "rank %d starts at row %lld, expected %lld (row blocks "
                     "must tile the rows in rank order)",
                     r, (long long)all[3 * r], (long long)next);
    D->row_off[r] = next;
    next += all[3 * r + 1];
    given_cols += all[3 * r + 2] >= 0;
  }
  D->row_off[P] = next;
  if (st == SMV_OK && next != D->grows)
    st = dist_fail(D, err, SMV_ERR_DIM, __FILE__, __LINE__,
                   "the ranks' rows add up to %lld, not the %lld global rows",
                   (long long)next, (long long)D->grows);
  if (st == SMV_OK && given_cols != 0 && given_cols != P)
    st = dist_fail(D, err, SMV_ERR_ARG, __FILE__, __LINE__,
                   "local_cols given on %d of %d ranks (all or none)",
                   given_cols, P);
  if (st == SMV_OK) {
    D->col_off[0] = 0;
    for (int r = 0; r < P; r++) {
      if (given_cols)
        D->col_off[r + 1] = D->col_off[r] + all[3 * r + 2];
      else if (D->grows == D->gcols)
        D->col_off[r + 1] = D->row_off[r + 1];
      else
        D->col_off[r + 1] = D->gcols * (r + 1) / P;
    }
    if (D->col_off[P] != D->gcols)
      st = dist_fail(D, err, SMV_ERR_DIM, __FILE__, __LINE__,
                     "local_cols add up to %lld, not the %lld global columns",
                     (long long)D->col_off[P], (long long)D->gcols);
  }
  for (int r = 0; r < P && st == SMV_OK; r++)
    if (D->col_off[r + 1] - D->col_off[r] > INT32_MAX)
      st = dist_fail(D, err, SMV_ERR_OVERFLOW, __FILE__, __LINE__,
                     "rank %d would own %lld entries of x (int32 per rank)", r,
                     (long long)(D->col_off[r + 1] - D->col_off[r]));
  free(all);
  if (st == SMV_OK)
    D->ncols = (int32_t)(D->col_off[D->rank + 1] - D->col_off[D->rank]);
  return st;
}

/* What both constructors start with: err cleared, *out = NULL (a NULL out
 * is an error naming fn), *opt defaulted to *defaults when NULL. */
static smv_status create_begin(const char *fn, smv_dist **out,
                               const smv_dist_options **opt,
                               smv_dist_options *defaults, smv_error *err) {
  if (err)
    memset(err, 0, sizeof *err);
  if (!out)
    return dist_fail(NULL, err, SMV_ERR_ARG, __FILE__, __LINE__,
                     "%s: NULL output pointer", fn);
  *out = NULL;
  smv_dist_options_init(defaults);
  if (!*opt)
    *opt = defaults;
  return SMV_OK;
}

smv_status smv_dist_create(MPI_Comm comm, int64_t global_rows,
                           int64_t global_cols, int64_t row_offset,
                           int32_t local_rows, const int32_t *row_ptr,
                           const int64_t *col_idx, const double *values,
                           const smv_dist_options *opt, smv_dist **out,
                           smv_error *err) {
  smv_dist_options defaults;
  smv_status st0 = create_begin("smv_dist_create", out, &opt, &defaults, err);
  if (st0 != SMV_OK)
    return st0;
  smv_dist *D = calloc(1, sizeof *D);
  if (!D)
    return dist_fail(NULL, err, SMV_ERR_NOMEM, __FILE__, __LINE__,
                     "out of memory for smv_dist");
  D->comm = MPI_COMM_NULL;
  D->device = -1;
  D->backend = opt->backend;
  D->alg = opt->alg;
  D->grows = global_rows;
  D->gcols = global_cols;
  D->nrows = local_rows;
  int rc = MPI_Comm_dup(comm, &D->comm);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_set_errhandler(D->comm, MPI_ERRORS_RETURN);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_rank(D->comm, &D->rank);
  if (rc == MPI_SUCCESS)
    rc = MPI_Comm_size(D->comm, &D->size);
  if (rc != MPI_SUCCESS) {
    dist_mpi_fail(NULL, err, rc, "MPI_Comm_dup", __FILE__, __LINE__);
    smv_dist_free(D);
    return SMV_ERR_IO;
  }
  /* Local checks first, then one agreement, so a bad argument on one rank
   * fails every rank instead of leaving the others in a collective. */
  smv_status st = SMV_OK;
  if (global_rows < 0 || global_cols < 0 || local_rows < 0 || row_offset < 0)
    st = dist_fail(D, err, SMV_ERR_ARG, __FILE__, __LINE__,
                   "negative size or offset (rows %lld, cols %lld, local "
                   "rows %d, row offset %lld)",
                   (long long)global_rows, (long long)global_cols,
                   (int)local_rows, (long long)row_offset);
  else if (!row_ptr)
    st = dist_fail(D, err, SMV_ERR_ARG, __FILE__, __LINE__,
                   "row_ptr is NULL (it has local_rows + 1 entries)");
  else if (row_ptr[0] != 0)
    st = dist_fail(D, err, SMV_ERR_INVALID_MATRIX, __FILE__, __LINE__,
                   "row_ptr[0] is %d, not 0", (int)row_ptr[0]);
  else if (row_ptr[local_rows] > 0 && (!col_idx || !values))
    st = dist_fail(D, err, SMV_ERR_ARG, __FILE__, __LINE__,
                   "col_idx or values is NULL with %d entries",
                   (int)row_ptr[local_rows]);
  else if (opt->backend != SMV_DIST_CPU && opt->backend != SMV_DIST_CUDA)
    st = dist_fail(D, err, SMV_ERR_ARG, __FILE__, __LINE__,
                   "unknown backend %d", (int)opt->backend);
  else if ((int)opt->exchange < 0 || opt->exchange > SMV_DIST_EXCHANGE_NCCL)
    st = dist_fail(D, err, SMV_ERR_ARG, __FILE__, __LINE__,
                   "unknown exchange path %d", (int)opt->exchange);
  else if (opt->backend == SMV_DIST_CPU &&
           opt->exchange != SMV_DIST_EXCHANGE_AUTO &&
           opt->exchange != SMV_DIST_EXCHANGE_HOST)
    st = dist_fail(D, err, SMV_ERR_ARG, __FILE__, __LINE__,
                   "the CPU backend exchanges through host MPI only, not %s",
                   smv_dist_exchange_name(opt->exchange));
  else if (opt->local_cols < -1 || opt->local_cols > INT32_MAX)
    st = dist_fail(D, err, SMV_ERR_ARG, __FILE__, __LINE__,
                   "local_cols %lld out of range (-1 or 0..2^31-1)",
                   (long long)opt->local_cols);
  for (int32_t i = 0; st == SMV_OK && i < local_rows; i++)
    if (row_ptr[i + 1] < row_ptr[i])
      st = dist_fail(D, err, SMV_ERR_INVALID_MATRIX, __FILE__, __LINE__,
                     "row_ptr decreases at local row %d", (int)i);
  st = dist_agree(D, st, err);
  if (st == SMV_OK)
    st = agree_layout(D, row_offset, local_rows, opt->local_cols, err);
  if (st == SMV_OK)
    st = dist_build(D, row_ptr, col_idx, values, err);
  if (st == SMV_OK && D->backend == SMV_DIST_CUDA)
    st = dist_cuda_setup(D, opt, err);
  else if (st == SMV_OK)
    D->exchange = SMV_DIST_EXCHANGE_HOST;
  if (st == SMV_OK) {
    int64_t mine = row_ptr[local_rows];
    rc = MPI_Allreduce(&mine, &D->gnnz, 1, MPI_INT64_T, MPI_SUM, D->comm);
    if (rc != MPI_SUCCESS)
      st = dist_mpi_fail(D, err, rc, "MPI_Allreduce", __FILE__, __LINE__);
  }
  if (st != SMV_OK) {
    smv_dist_free(D);
    return st;
  }
  *out = D;
  return SMV_OK;
}

/* Send each rank its rows of A (root) as local row pointers, int64 global
 * columns and values; then create as from each rank's own rows. */
smv_status smv_dist_create_from_root(MPI_Comm comm, int root, const smv_csr *A,
                                     const smv_dist_options *opt,
                                     smv_dist **out, smv_error *err) {
  smv_dist_options defaults;
  smv_status st0 =
      create_begin("smv_dist_create_from_root", out, &opt, &defaults, err);
  if (st0 != SMV_OK)
    return st0;
  int rank, size, rc;
  if ((rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS ||
      (rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
    return dist_mpi_fail(NULL, err, rc, "MPI_Comm_rank", __FILE__, __LINE__);
  if (root < 0 || root >= size)
    return dist_fail(NULL, err, SMV_ERR_ARG, __FILE__, __LINE__,
                     "root %d is not a rank of a %d-rank communicator", root,
                     size);
  /* Root: check and partition; header[] = status, rows, cols; then per rank
   * (first row, rows, entries). */
  int64_t head[3] = {SMV_OK, 0, 0};
  int64_t *part = NULL;    /* 3 per rank, root only */
  int64_t *offsets = NULL; /* size + 1, root only   */
  smv_error local_err;
  memset(&local_err, 0, sizeof local_err);
  if (rank == root) {
    smv_status st = SMV_OK;
    if (!A)
      st = dist_fail(NULL, &local_err, SMV_ERR_ARG, __FILE__, __LINE__,
                     "the root's matrix is NULL");
    else if ((st = smv_csr_check(A, &local_err)) == SMV_OK) {
      part = malloc((size_t)size * 3 * sizeof *part);
      offsets = malloc(((size_t)size + 1) * sizeof *offsets);
      if (!part || !offsets)
        st = dist_fail(NULL, &local_err, SMV_ERR_NOMEM, __FILE__, __LINE__,
                       "out of memory for a %d-rank partition", size);
      else if ((st = smv_dist_partition_rows(A->row_ptr, A->rows, size,
                                             opt->partition, offsets)) !=
               SMV_OK)
        dist_fail(NULL, &local_err, st, __FILE__, __LINE__,
                  "unknown partition %d", (int)opt->partition);
      for (int r = 0; st == SMV_OK && r < size; r++) {
        part[3 * r] = offsets[r];
        part[3 * r + 1] = offsets[r + 1] - offsets[r];
        part[3 * r + 2] = A->row_ptr[offsets[r + 1]] - A->row_ptr[offsets[r]];
      }
    }
    head[0] = st;
    if (st == SMV_OK) {
      head[1] = A->rows;
      head[2] = A->cols;
    }
  }
  if ((rc = MPI_Bcast(head, 3, MPI_INT64_T, root, comm)) != MPI_SUCCESS) {
    free(part);
    free(offsets);
    return dist_mpi_fail(NULL, err, rc, "MPI_Bcast", __FILE__, __LINE__);
  }
  if (head[0] != SMV_OK) {
    free(part);
    free(offsets);
    if (rank == root) {
      if (err)
        *err = local_err;
      return (smv_status)head[0];
    }
    return dist_fail(NULL, err, (smv_status)head[0], __FILE__, __LINE__,
                     "the root rank %d could not split its matrix (%s)", root,
                     smv_status_string((smv_status)head[0]));
  }
  int64_t me[3];
  rc = MPI_Scatter(part, 3, MPI_INT64_T, me, 3, MPI_INT64_T, root, comm);
  if (rc != MPI_SUCCESS) {
    free(part);
    free(offsets);
    return dist_mpi_fail(NULL, err, rc, "MPI_Scatter", __FILE__, __LINE__);
  }
  int32_t nrows = (int32_t)me[1];
  int nnz = (int)me[2];
  int32_t *rp = malloc(((size_t)nrows + 1) * sizeof *rp);
  int64_t *ci = malloc(((size_t)nnz + 1) * sizeof *ci);
  double *va = malloc(((size_t)nnz + 1) * sizeof *va);
  int *cnt = NULL, *dsp = NULL;
  int64_t *gcol = NULL; /* root: the columns widened to int64 */
  int ok = rp && ci && va;
  if (rank == root) {
    cnt = malloc((size_t)size * sizeof *cnt);
    dsp = malloc((size_t)size * sizeof *dsp);
    gcol = malloc(((size_t)A->nnz + 1) * sizeof *gcol);
    ok = ok && cnt && dsp && gcol;
  }
  int all_ok = 0;
  rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  smv_status st = SMV_OK;
  if (rc != MPI_SUCCESS)
    st = dist_mpi_fail(NULL, err, rc, "MPI_Allreduce", __FILE__, __LINE__);
  else if (!all_ok)
    st = dist_fail(NULL, err, SMV_ERR_NOMEM, __FILE__, __LINE__,
                   "out of memory scattering the matrix (%d rows, %d "
                   "entries here)",
                   (int)nrows, nnz);
  /* Row pointers: rank r gets root rows offsets[r]..offsets[r+1] (+1 for
   * the closing pointer), then rebases them to 0. */
  if (st == SMV_OK && rank == root)
    for (int r = 0; r < size; r++) {
      cnt[r] = (int)(offsets[r + 1] - offsets[r]) + 1;
      dsp[r] = (int)offsets[r];
    }
  if (st == SMV_OK &&
      (rc =
           MPI_Scatterv(rank == root ? A->row_ptr : NULL, cnt, dsp, MPI_INT32_T,
                        rp, nrows + 1, MPI_INT32_T, root, comm)) != MPI_SUCCESS)
    st = dist_mpi_fail(NULL, err, rc, "MPI_Scatterv", __FILE__, __LINE__);
  if (st == SMV_OK && rank == root) {
    for (int r = 0; r < size; r++) {
      cnt[r] = (int)part[3 * r + 2];
      dsp[r] = A->row_ptr[offsets[r]];
    }
    for (int64_t k = 0; k < A->nnz; k++)
      gcol[k] = A->col_idx[k];
  }
  if (st == SMV_OK &&
      (rc = MPI_Scatterv(gcol, cnt, dsp, MPI_INT64_T, ci, nnz, MPI_INT64_T,
                         root, comm)) != MPI_SUCCESS)
    st = dist_mpi_fail(NULL, err, rc, "MPI_Scatterv", __FILE__, __LINE__);
  if (st == SMV_OK &&
      (rc = MPI_Scatterv(rank == root ? A->values : NULL, cnt, dsp, MPI_DOUBLE,
                         va, nnz, MPI_DOUBLE, root, comm)) != MPI_SUCCESS)
    st = dist_mpi_fail(NULL, err, rc, "MPI_Scatterv", __FILE__, __LINE__);
  if (st == SMV_OK) {
    int32_t base = rp[0];
    for (int32_t i = 0; i <= nrows; i++)
      rp[i] -= base;
    st = smv_dist_create(comm, head[1], head[2], me[0], nrows, rp, ci, va, opt,
                         out, err);
  }
  free(rp);
  free(ci);
  free(va);
  free(cnt);
  free(dsp);
  free(gcol);
  free(part);
  free(offsets);
  return st;
}

smv_status smv_dist_get_info(const smv_dist *D, smv_dist_info *info) {
  if (!D || !info)
    return SMV_ERR_ARG;
  memset(info, 0, sizeof *info);
  info->global_rows = D->grows;
  info->global_cols = D->gcols;
  info->global_nnz = D->gnnz;
  info->row_offset = D->row_off[D->rank];
  info->col_offset = D->col_off[D->rank];
  info->local_rows = D->nrows;
  info->local_cols = D->ncols;
  info->nnz_local = D->loc->nnz;
  info->nnz_remote = D->rem->nnz;
  info->ghosts = D->nghost;
  info->send_entries = D->nsend_total;
  info->recv_neighbors = D->nrecv;
  info->send_neighbors = D->nsend;
  info->backend = D->backend;
  info->exchange = D->exchange;
  info->device = D->device;
  return SMV_OK;
}

const char *smv_dist_note(const smv_dist *D) { return D ? D->note : ""; }
const char *smv_dist_error(const smv_dist *D) { return D ? D->err : ""; }
