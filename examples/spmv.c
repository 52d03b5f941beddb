/*
 * examples/spmv.c — the README's C example, compiled and run by `make test`.
 *
 *   build/examples/spmv [MATRIX]      (default lap3d:32)
 *
 * Loads a matrix (file or generator spec), computes y = 2*A*x - y on the GPU
 * when there is one (cuSPARSE-style phases: context, analysis, compute),
 * otherwise on the CPU, and checks the result against the serial reference.
 */
#include <math.h>
#include <smv.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  const char *spec = argc > 1 ? argv[1] : "lap3d:32";
  smv_error err;
  smv_csr *A = NULL;
  if (smv_load(spec, NULL, &A, &err) != SMV_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  double *x = malloc(sizeof(double) * (size_t)(A->cols ? A->cols : 1));
  double *y = malloc(sizeof(double) * (size_t)(A->rows ? A->rows : 1));
  double *ref = malloc(sizeof(double) * (size_t)(A->rows ? A->rows : 1));
  if (!x || !y || !ref) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (smv_index j = 0; j < A->cols; j++)
    x[j] = 1.0 / (1.0 + j);
  for (smv_index i = 0; i < A->rows; i++)
    y[i] = ref[i] = 0.5 * i;

  /* y = 2*A*x - y: on the GPU if there is one, else on the CPU. */
  const char *where = "GPU";
  smv_context *ctx = NULL;
  smv_matrix *dA = NULL;
  smv_status st = smv_context_create(0, &ctx);
  if (st == SMV_OK) {
    st = smv_matrix_create(ctx, A, SMV_F64, &dA); /* analysis, once */
    if (st == SMV_OK)
      st = smv_spmv_host_vectors(ctx, SMV_ALG_AUTO, 2.0, dA, x, -1.0, y);
    if (st != SMV_OK)
      fprintf(stderr, "GPU: %s\n", smv_context_error(ctx));
  } else {
    where = "CPU";
    st = smv_spmv_cpu(A, 2.0, x, -1.0, y);
  }
  smv_status rst = smv_spmv_ref(A, 2.0, x, -1.0, ref);

  double err_max = 0, ref_max = 0;
  for (smv_index i = 0; i < A->rows; i++) {
    err_max = fmax(err_max, fabs(y[i] - ref[i]));
    ref_max = fmax(ref_max, fabs(ref[i]));
  }
  int ok = st == SMV_OK && rst == SMV_OK && err_max <= 1e-12 * (ref_max + 1);
  printf("%s: %d x %d, nnz %lld on the %s: max |y - ref| = %.3g (%s)\n", spec,
         A->rows, A->cols, (long long)A->nnz, where, err_max,
         ok ? "ok" : smv_status_string(st != SMV_OK ? st : rst));

  smv_matrix_free(dA);
  smv_context_free(ctx);
  smv_csr_free(A);
  free(x), free(y), free(ref);
  return ok ? 0 : 1;
}
