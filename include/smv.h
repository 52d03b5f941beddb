/*
 * smv.h — sparse matrix-vector product y = alpha*A*x + beta*y (CSR), on the
 * CPU and on NVIDIA GPUs, plus the lab that explains its speed.
 *
 * The public header of the library (the lab: smv_lab.h). Conventions
 * (DEVELOPERS.md):
 *   - every function returns smv_status: SMV_OK = 0, errors negative;
 *     smv_status_string() names each code;
 *   - host data is transparent (smv_csr is a plain struct you may fill
 *     yourself), device data is opaque (smv_context, smv_matrix);
 *   - create/free pairs; every free is NULL-safe;
 *   - the library never prints and never exits. Errors: one rule. Every
 *     function returns an smv_status; the text of an error (file, line and
 *     reason) goes to an smv_error * argument on host functions that take
 *     one (it may be NULL), and to the context on device functions (read it
 *     with smv_context_error; smv_context_create's own failure with
 *     smv_context_error(NULL), per thread);
 *   - option structs: each has an SMV_<NAME>_INIT macro giving its defaults
 *     (SMV_READ_OPTIONS_INIT, SMV_OCCUPANCY_OPTIONS_INIT,
 *     SMV_BENCH_OPTIONS_INIT); passing NULL for the options means the
 *     defaults;
 *   - threads: the host functions are reentrant (no global state). An
 *     smv_context is used by one thread at a time (it holds the last error
 *     text, the stream and a workspace). An smv_matrix may be shared by
 *     contexts on its device and used concurrently, with the limits stated
 *     at smv_spmv.
 *
 * Sections: status and errors; host CSR; Matrix Market I/O; generators and
 * loading; statistics; CPU SpMV; reordering; CUDA engine. The lab (occupancy
 * calculator, kernel introspection, timing) is in smv_lab.h.
 */
#ifndef SMV_H
#define SMV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SMV_VERSION_MAJOR 0
#define SMV_VERSION_MINOR 1
#define SMV_VERSION_PATCH 0
#define SMV_VERSION_STRING "0.1.0"

/* ======================================================================== */
/* Status and errors                                                         */
/* ======================================================================== */

typedef enum {
  SMV_OK = 0,
  SMV_ERR_ARG = -1,         /* invalid argument (NULL pointer, bad size...)  */
  SMV_ERR_NOMEM = -2,       /* host or device allocation failed              */
  SMV_ERR_IO = -3,          /* file missing, unreadable, unwritable          */
  SMV_ERR_PARSE = -4,       /* malformed input (Matrix Market, spec, ...)    */
  SMV_ERR_UNSUPPORTED = -5, /* valid but unsupported (complex, hermitian)    */
  SMV_ERR_OVERFLOW = -6,    /* size beyond what the index types hold         */
  SMV_ERR_DIM = -7,         /* dimension mismatch (vector length, ...)       */
  SMV_ERR_NO_DEVICE = -8,   /* built without CUDA, no driver or no GPU       */
  SMV_ERR_CUDA = -9,        /* a CUDA runtime call failed                    */
  SMV_ERR_CUSPARSE = -10,   /* a cuSPARSE call failed                        */
  SMV_ERR_INVALID_MATRIX = -11, /* CSR arrays inconsistent                   */
  SMV_ERR_NOT_FOUND = -12 /* named thing (kernel, arch, generator) unknown */
} smv_status;

/* Static string naming a status ("SMV_ERR_PARSE: malformed input"). */
const char *smv_status_string(smv_status s);

/* Detailed error: filled by functions that take one (the pointer may be
 * NULL). `message` is the full human-readable text, already including the
 * file and line where they apply: "m.mtx:7: column index 0 out of range
 * 1..5". `line` is 1-based, 0 when no line applies. A file name longer
 * than 239 bytes is shortened in the middle ("first...last"), in `file` and
 * in the message, so the prefix and the reason always fit. */
#define SMV_ERROR_TEXT 512
typedef struct {
  smv_status status;
  long line;
  char file[256];
  char message[SMV_ERROR_TEXT];
} smv_error;

/* Library version ("0.1.0") and the git commit it was built from. */
const char *smv_version(void);
const char *smv_git_commit(void);

/* Release a buffer the library allocated for the caller (vectors read from
 * files, ...). NULL-safe. */
void smv_free(void *p);

/* ======================================================================== */
/* Host CSR matrix                                                           */
/* ======================================================================== */

/* Row offsets say their width: smv_offset is int32 today. A matrix whose
 * nnz exceeds SMV_OFFSET_MAX is refused with SMV_ERR_OVERFLOW. Column
 * indices are int32 (SMV_INDEX_MAX), values are double. */
typedef int32_t smv_offset;
typedef int32_t smv_index;
#define SMV_OFFSET_BITS 32
#define SMV_OFFSET_MAX INT32_MAX
#define SMV_INDEX_MAX INT32_MAX

/* What the Matrix Market banner said (informational; the CSR is always
 * expanded to a general matrix). */
typedef enum {
  SMV_FIELD_REAL = 0,
  SMV_FIELD_INTEGER,
  SMV_FIELD_PATTERN,
  SMV_FIELD_COMPLEX /* never produced: complex input is refused */
} smv_field;

typedef enum {
  SMV_SYM_GENERAL = 0,
  SMV_SYM_SYMMETRIC,
  SMV_SYM_SKEW,
  SMV_SYM_HERMITIAN /* never produced: refused */
} smv_symmetry;

typedef enum { SMV_FORMAT_COORDINATE = 0, SMV_FORMAT_ARRAY } smv_format;

/* Compressed sparse row, zero-based. Invariants (smv_csr_check):
 *   row_ptr[0] = 0, row_ptr non-decreasing, row_ptr[rows] = nnz;
 *   0 <= col_idx[k] < cols; within a row columns are strictly increasing
 *   when `sorted` is set (the reader and generators always set it).
 * Explicit zeros are kept. Arrays may be NULL only when their length is 0
 * (row_ptr is never NULL: it has rows+1 entries). */
typedef struct {
  smv_index rows, cols;
  int64_t nnz;
  smv_offset *row_ptr; /* rows + 1 */
  smv_index *col_idx;  /* nnz */
  double *values;      /* nnz */
  int sorted;          /* columns sorted and unique within each row */
  smv_field field;     /* from the source, informational */
  smv_symmetry symmetry;
  smv_format format;
} smv_csr;

/* Allocate an uninitialised rows x cols matrix with room for nnz entries;
 * row_ptr is zeroed. SMV_ERR_NOMEM also when the arrays would exceed the
 * memory limit (SMV_MEM_LIMIT, else what the system has available; see
 * docs/matrix-market.md, "Memory guard"), before allocating anything. */
smv_status smv_csr_create(smv_index rows, smv_index cols, int64_t nnz,
                          smv_csr **A);
void smv_csr_free(smv_csr *A);
/* The memory guard for a caller's own arrays (vectors, workspaces): SMV_OK
 * if `bytes` fit under the limit above, else SMV_ERR_NOMEM with "WHAT needs
 * N GB of memory, more than the M GB available (SOURCE)" in err (or, when
 * SMV_MEM_LIMIT is set to something that is not a size, a message saying
 * so). Nothing is allocated. */
smv_status smv_memory_check(double bytes, const char *what, smv_error *err);
/* Deep copy (the arrays are copied as they are, not checked). */
smv_status smv_csr_copy(const smv_csr *A, smv_csr **B);
/* Check the invariants above; on failure err names the first violation.
 * Every function that indexes through a host CSR checks at least that
 * row_ptr is non-decreasing from 0 to nnz (so no loop leaves the arrays):
 * smv_csr_stats, the CPU SpMVs, the writers and smv_matrix_create (which
 * runs this whole check). */
smv_status smv_csr_check(const smv_csr *A, smv_error *err);

/* ======================================================================== */
/* Matrix Market I/O                                                         */
/* ======================================================================== */

/* Progress callback for long reads: bytes consumed of the input (for .gz,
 * compressed bytes) and the total (0 if unknown). Called about every 4 MB
 * of input and once at the end with done == total; only when set. */
typedef void (*smv_progress_fn)(void *user, uint64_t done, uint64_t total);

typedef struct {
  smv_progress_fn progress; /* may be NULL */
  void *progress_user;
} smv_read_options;
/* The defaults (no progress callback); the same as passing NULL. */
#define SMV_READ_OPTIONS_INIT                                                  \
  { NULL, NULL }

/* Read a Matrix Market matrix (coordinate or array; real, integer or
 * pattern; general, symmetric or skew-symmetric). gzip input (.mtx.gz) is
 * recognised by its magic bytes, whatever the name, and decompressed
 * transparently. Values are exactly what strtod gives (docs/matrix-market.md
 * lists what is accepted and refused).
 * Duplicates are summed, columns sorted within each row, explicit zeros
 * kept, symmetric halves mirrored. On error *A is NULL and err says file,
 * line and reason. opt may be NULL. */
smv_status smv_mm_read(const char *path, const smv_read_options *opt,
                       smv_csr **A, smv_error *err);
/* The same from an open stream (plain text or gzip); `name` is used in
 * error messages. The stream is not closed. */
smv_status smv_mm_read_file(FILE *f, const char *name,
                            const smv_read_options *opt, smv_csr **A,
                            smv_error *err);

/* Write coordinate real general, values with %.17g (exact round trip).
 * A path ending in .gz is written gzip-compressed. A regular file is
 * replaced only once the whole matrix is written (smv_file_open below): a
 * failed write (full disk) leaves it as it was. */
smv_status smv_mm_write(const char *path, const smv_csr *A, smv_error *err);
smv_status smv_mm_write_file(FILE *f, const smv_csr *A, smv_error *err);

/* Dense vectors as Matrix Market array files (n x 1; a 1 x n array and an
 * n x 1 or 1 x n coordinate file are accepted on reading, other shapes are
 * SMV_ERR_DIM). *v is allocated by the library: release with smv_free. */
smv_status smv_mm_read_vector(const char *path, double **v, int64_t *n,
                              smv_error *err);
/* The same when the caller knows the length it needs (x of a matrix with n
 * columns): a file whose size line declares another length, or a shape
 * that is not a vector, is SMV_ERR_DIM naming that line, before anything
 * is allocated (a 67-byte file may declare 2^31 values). */
smv_status smv_mm_read_vector_n(const char *path, int64_t n, double **v,
                                smv_error *err);
smv_status smv_mm_write_vector(const char *path, const double *v, int64_t n,
                               smv_error *err);
smv_status smv_mm_write_vector_file(FILE *f, const double *v, int64_t n,
                                    smv_error *err);

/* Output files that replace an existing file only when complete. A
 * regular file (or a new name) is written to a temporary file beside it
 * ("PATH.tmp-PID-N") that smv_file_close renames over PATH once every write,
 * the flush and the close succeeded; on a failure, or smv_file_discard, the
 * temporary is removed and PATH keeps its old contents. Devices
 * (/dev/stdout), pipes and symbolic links are written in place. smv_mm_write
 * and smv_mm_write_vector write every path this way. */
typedef struct smv_file smv_file;
smv_status smv_file_open(const char *path, smv_file **file, FILE **f,
                         smv_error *err);
/* Flush, check, close, move into place; SMV_ERR_IO naming the path if any
 * write failed. NULL-safe. */
smv_status smv_file_close(smv_file *file, smv_error *err);
/* Close and drop what was written (PATH untouched). NULL-safe. */
void smv_file_discard(smv_file *file);

/* ======================================================================== */
/* Generators and loading                                                    */
/* ======================================================================== */

/* Build a matrix from a generator spec, e.g. "lap2d:100", "lap3d:160",
 * "rand:2000000:16", "plaw:2000000:16", "band:1000:5", "denserow:1000:4",
 * "diag:10", "empty:5:7", with options after commas: "rand:1000:8,seed=3",
 * "rand:1000:8,cols=500". Deterministic for a given spec (same matrix on
 * every machine and thread count). The grammar is in the README (and
 * smv_generate_help()). Malformed specs give SMV_ERR_PARSE, an unknown
 * generator name SMV_ERR_NOT_FOUND, sizes beyond int32 SMV_ERR_OVERFLOW,
 * a matrix larger than the memory limit SMV_ERR_NOMEM ("needs N GB"),
 * before anything is allocated; err says what was expected. */
smv_status smv_generate(const char *spec, smv_csr **A, smv_error *err);
/* The permutations a spec's perm=rand applies: row_perm[i] is the new
 * index of old row i (rows entries), col_perm[j] that of old column j
 * (cols entries; equal to row_perm for a square matrix, so the generated
 * B = P A P^T maps x to P x and y to P y). The identity when the spec has
 * no perm=rand. Either array may be NULL; sizes are the generated
 * matrix's. Same errors as smv_generate. */
smv_status smv_generate_perm(const char *spec, smv_index *row_perm,
                             smv_index *col_perm, smv_error *err);
/* A spec's shape without generating it: rows, cols and nnz (each pointer
 * may be NULL). *exact is 1 when nnz is exact, 0 when it is an upper bound
 * (rmat: duplicates and loops are only known after drawing). Same errors
 * as smv_generate. */
smv_status smv_generate_shape(const char *spec, int64_t *rows, int64_t *cols,
                              int64_t *nnz, int *exact, smv_error *err);
/* Multi-line help text describing the grammar (static string). */
const char *smv_generate_help(void);
/* 1 if `s` looks like a generator spec (known name followed by ':'). */
int smv_is_spec(const char *s);

/* Load a MATRIX argument as the CLI takes it: an existing file is read as
 * Matrix Market; otherwise a string that smv_is_spec() accepts is
 * generated; otherwise SMV_ERR_IO naming the missing file. */
smv_status smv_load(const char *matrix, const smv_read_options *opt,
                    smv_csr **A, smv_error *err);

/* ======================================================================== */
/* Statistics                                                                */
/* ======================================================================== */

#define SMV_HIST_BINS                                                          \
  34 /* bin 0: empty rows; bin b>0: lengths in [2^(b-1), 2^b) */
typedef struct {
  int64_t rows, cols, nnz;
  int64_t row_min, row_max;
  double row_mean, row_stddev;
  int64_t empty_rows;
  int64_t hist[SMV_HIST_BINS];
  int64_t diag_entries; /* stored entries with i == j */
  int64_t bandwidth;    /* max |i - j| over stored entries */
} smv_stats;

smv_status smv_csr_stats(const smv_csr *A, smv_stats *s);

/* ======================================================================== */
/* CPU SpMV                                                                  */
/* ======================================================================== */

/* BLAS semantics for all of these: y = alpha*A*x + beta*y, where beta = 0
 * overwrites y (NaN/Inf already in y never leak) and alpha = 0 gives
 * beta*y without reading A's values or x. x has A->cols entries, y A->rows.
 * x and y must not overlap (in-place y = A*y is not supported): any shared
 * byte between the two ranges is SMV_ERR_ARG, and nothing is written. */

/* Serial reference: the oracle every other kernel is checked against.
 * Checks the whole matrix (smv_csr_check) first. */
smv_status smv_spmv_ref(const smv_csr *A, double alpha, const double *x,
                        double beta, double *y);
/* Fast path: OpenMP over fixed pieces of the merge path (rows + entries),
 * so one huge row is split across threads (serial without OpenMP).
 * Deterministic: the pieces depend on the matrix only, and rows that cross
 * pieces are summed in piece order, so the result is bit-identical for any
 * thread count (OMP_NUM_THREADS) and with or without OpenMP; a matrix of
 * fewer than 16384 rows + entries gives exactly smv_spmv_ref's bits.
 * Checks, in O(rows), before writing y: pointers, row_ptr[0] == 0,
 * row_ptr[rows] == nnz and row_ptr non-decreasing (else
 * SMV_ERR_INVALID_MATRIX, y untouched). Trusts column indices (O(nnz) to
 * check): validate untrusted input once with smv_csr_check. The reference
 * above checks everything. */
smv_status smv_spmv_cpu(const smv_csr *A, double alpha, const double *x,
                        double beta, double *y);
/* Single precision: values rounded to float, float accumulation. */
smv_status smv_spmv_cpu_f32(const smv_csr *A, float alpha, const float *x,
                            float beta, float *y);
/* Also returns |A|*|x| per row (for error bounds); absax may be NULL
 * (then it only validates A and x). */
smv_status smv_spmv_ref_abs(const smv_csr *A, const double *x, double *absax);
/* SMV_F64_F32V's error bound (smv_precision) for y = alpha*A*x + beta*y0,
 * per row: bound[i] (A->rows entries) >= |y_i - y_exact_i| for the
 * device's result in that mode, evaluated in f64 and rounded up by the
 * relative 2 g(n_i + 4) its own evaluation may lose. y0 is y before the
 * call (read only when beta != 0; may be NULL then). NaN or Inf in A, x
 * or y0 make that row's bound NaN or Inf. Checks A (smv_csr_check). */
smv_status smv_spmv_f32v_bound(const smv_csr *A, double alpha, const double *x,
                               double beta, const double *y0, double *bound);
/* SMV_OK if every finite value of A fits in f32 (|v| <= FLT_MAX; NaN and
 * Inf pass), else SMV_ERR_OVERFLOW with the first entry beyond it in err
 * ("row 3, column 7: value 1e+39 is beyond the f32 range ..."). What
 * smv_matrix_create checks before storing a matrix in SMV_F64_F32V. */
smv_status smv_csr_check_f32_range(const smv_csr *A, smv_error *err);

/* ---- Transpose on the CPU: y = alpha*A^T*x + beta*y ---------------------
 * x has A->rows entries, y A->cols. Same BLAS semantics as above. */

/* The CSR of A^T (= the CSC of A), a new matrix: rows of A^T list A's row
 * indices in increasing order. SMV_ERR_INVALID_MATRIX for a column index
 * out of range. Release with smv_csr_free. For many products with A^T,
 * transpose once and call smv_spmv_cpu on the result. */
smv_status smv_csr_transpose(const smv_csr *A, smv_csr **AT);
/* Serial reference (bit-identical to smv_spmv_ref on smv_csr_transpose(A)). */
smv_status smv_spmv_ref_t(const smv_csr *A, double alpha, const double *x,
                          double beta, double *y);
/* OpenMP, atomic-free, deterministic (the same result for any thread
 * count): rows split in up to 16 parts by entries, each part summing into
 * its own buffer of A->cols doubles (allocated per call), buffers added in
 * part order. */
smv_status smv_spmv_cpu_t(const smv_csr *A, double alpha, const double *x,
                          double beta, double *y);

/* ---- SpMM on the CPU: Y = alpha*A*X + beta*Y, k right-hand sides --------
 * X is A->cols x k, Y is A->rows x k, dense, both in `layout`:
 *   SMV_LAYOUT_ROW_MAJOR: element (i, c) at [i * ld + c], ld >= k;
 *   SMV_LAYOUT_COL_MAJOR: element (i, c) at [c * ld + i], ld >= the
 *                         matrix's rows (at least 1).
 * (cuSPARSE's dense-matrix convention.) k >= 1; k = 0 is a no-op. BLAS
 * semantics per column as for SpMV: beta = 0 never reads Y. Entries
 * between k (or rows) and ld are never touched. */
typedef enum { SMV_LAYOUT_ROW_MAJOR = 0, SMV_LAYOUT_COL_MAJOR = 1 } smv_layout;

/* Serial reference: column c of Y equals smv_spmv_ref on column c of X,
 * bit for bit. */
smv_status smv_spmm_ref(const smv_csr *A, double alpha, const double *X,
                        int64_t ldx, double beta, double *Y, int64_t ldy, int k,
                        smv_layout layout);
/* OpenMP over rows (dynamic chunks of rows; each row's sums in entry order,
 * so deterministic and bit-identical to the reference); each entry of A is
 * read once for all k columns. Trusts column indices like smv_spmv_cpu. */
smv_status smv_spmm_cpu(const smv_csr *A, double alpha, const double *X,
                        int64_t ldx, double beta, double *Y, int64_t ldy, int k,
                        smv_layout layout);

/* ======================================================================== */
/* Reordering (opt-in): RCM and degree orderings, permuting A and vectors    */
/* ======================================================================== */

/* A permutation of n items is an array perm of n smv_index values, a
 * bijection of 0..n-1: perm[i] is the NEW index of OLD item i (the
 * convention of smv_generate_perm). Permuting a vector moves x[i] to
 * position perm[i]; permuting a matrix symmetrically, B = P A P^T, moves
 * A(i, j) to B(perm[i], perm[j]), so B (P x) = P (A x): a solver run on B
 * and P b keeps every vector in the new order, and only its input b and
 * its output x are permuted (smv_vec_permute / smv_vec_unpermute).
 *
 * The orderings work on the pattern of A + A^T without the diagonal (the
 * graph with an edge i - j for every stored A(i, j) or A(j, i), i != j;
 * values are not read, explicit zeros count), so they suit unsymmetric
 * matrices too. They need a square matrix (SMV_ERR_DIM otherwise) and run
 * smv_csr_check first. Deterministic: the same matrix gives the same
 * permutation on every machine. Cost: O(nnz + rows) time (RCM: times the
 * few breadth-first searches of its start-node search, plus sorting each
 * row's neighbours by degree) and O(nnz + rows) memory (at most 12 bytes
 * per entry and 21 per row, freed before return). perm has A->rows
 * entries. */

/* Reverse Cuthill-McKee: a breadth-first order of each connected component
 * (components in the order of their lowest-numbered node), started from a
 * pseudo-peripheral node (the usual repeated search: from the component's
 * node of least degree, restart from the least-degree node of the deepest
 * level while the depth grows), neighbours taken in increasing degree (ties:
 * lower index first), the whole order then reversed. It gathers each row's
 * columns near the diagonal: on a 2D grid in random order it restores a
 * bandwidth close to the grid's side. Isolated nodes (empty rows with no
 * entry in their column) are components of their own. */
smv_status smv_order_rcm(const smv_csr *A, smv_index *perm, smv_error *err);
/* Degree ordering: nodes by increasing degree in A + A^T (stable: equal
 * degrees keep their order). Cheaper than RCM (a counting sort); groups
 * rows of like length, does not reduce the bandwidth. */
smv_status smv_order_degree(const smv_csr *A, smv_index *perm, smv_error *err);

/* SMV_OK if perm (n entries) is a bijection of 0..n-1, else SMV_ERR_ARG
 * with the first bad index in err: "WHAT[5] = 9 is outside 0..4 (not a
 * permutation)" or "WHAT[5] = 2 repeats WHAT[1] (not a permutation)". WHAT
 * names the array in the message ("row_perm"; NULL: "perm"). O(n) time,
 * 4 n bytes of memory. */
smv_status smv_perm_check(int64_t n, const smv_index *perm, const char *what,
                          smv_error *err);
/* inv[perm[i]] = i: the permutation that undoes perm (checked first). */
smv_status smv_perm_invert(int64_t n, const smv_index *perm, smv_index *inv,
                           smv_error *err);

/* B = P A Q^T: B(row_perm[i], col_perm[j]) = A(i, j), a new rows x cols
 * matrix with the same entries and values, columns sorted within each row
 * (B->sorted is set when they are also unique, as they are when A->sorted
 * is). row_perm has A->rows entries, col_perm A->cols; NULL means the
 * identity. For the symmetric permutation of a square matrix pass the same
 * array twice. Both permutations are checked (smv_perm_check: the error
 * names the array and the first bad index), and A with smv_csr_check.
 * Permuting by the inverses (smv_perm_invert) gives A back bit for bit when
 * A->sorted. O(nnz + rows + cols) time, a counting sort by new column (no
 * comparison sort, so one huge row costs no more than many short ones);
 * memory: B, plus 12 bytes per entry and 4 per row and column for the
 * sort. Release B with smv_csr_free; *B is NULL on error. */
smv_status smv_csr_permute(const smv_csr *A, const smv_index *row_perm,
                           const smv_index *col_perm, smv_csr **B,
                           smv_error *err);
/* y[perm[i]] = x[i] (into the new order) and its inverse
 * y[i] = x[perm[i]] (back to the old order), n entries each. perm is
 * checked (smv_perm_check); x and y must not overlap (SMV_ERR_ARG). */
smv_status smv_vec_permute(int64_t n, const smv_index *perm, const double *x,
                           double *y, smv_error *err);
smv_status smv_vec_unpermute(int64_t n, const smv_index *perm, const double *x,
                             double *y, smv_error *err);

/* What an ordering achieved, for reporting: *bandwidth = max |i - j| over
 * the stored entries (0 for nnz = 0), *profile = the envelope, the sum
 * over rows i of i - (the least column j <= i stored in row i, i if none):
 * the entries a skyline (profile) factorisation would hold below the
 * diagonal. Either pointer may be NULL. O(nnz) time, no memory. Column
 * indices are checked (SMV_ERR_INVALID_MATRIX naming the first bad one). */
smv_status smv_csr_bandwidth(const smv_csr *A, int64_t *bandwidth,
                             int64_t *profile, smv_error *err);

/* ======================================================================== */
/* CUDA engine                                                               */
/* ======================================================================== */

/* Everything here returns SMV_ERR_NO_DEVICE when smv was built without
 * CUDA, or when there is no driver or no GPU. */

typedef struct smv_context smv_context; /* device, stream, handles, error */
typedef struct smv_matrix smv_matrix;   /* a CSR matrix on the device     */

/* Precision of a device matrix.
 *   SMV_F64: double values, double vectors (double* x and y).
 *   SMV_F32: float values, float vectors (float* x and y), float sums.
 *   SMV_F64_F32V: lossy, opt-in, never chosen by smv itself. The vectors
 *     (x, y), alpha, beta and every product and sum are double, as in
 *     SMV_F64 (double* x and y); only the matrix's values are stored as
 *     float: each value is rounded once to f32 (round to nearest) at
 *     smv_matrix_create / _create_ex / _create_device. An entry streams in
 *     8 bytes (4 value + 4 index) instead of 12, for solvers that accept
 *     the values' rounding. A finite value of magnitude above FLT_MAX is
 *     refused (SMV_ERR_OVERFLOW, smv_csr_check_f32_range); NaN and Inf
 *     pass through; values below FLT_MIN become f32 subnormals or zero.
 *     Runs on rungs 9 (adaptive), 10 (tiled) and 2 (vector), and AUTO
 *     (rung 9 or 10, by AUTO's rule); every other rung, smv_spmv_t,
 *     SpMM and the solvers refuse such a matrix with SMV_ERR_UNSUPPORTED.
 *     The error bound, per row i of n_i entries, with u = 2^-53 and
 *     g(k) = k u / (1 - k u):
 *       |y_i - y_exact_i| <= |alpha| sum_j (2^-24 |a_ij| + 2^-150) |x_j|
 *          + g(n_i + 2) (|alpha| sum_j ((1 + 2^-24) |a_ij| + 2^-150) |x_j|
 *                        + |beta| |y0_i|)
 *     (the first term: |fl32(a) - a| <= 2^-24 |a| for |a| >= FLT_MIN, else
 *     <= 2^-150; the second: f64 summation in any order of the rounded
 *     products, then alpha and beta). smv_spmv_f32v_bound evaluates it;
 *     against a computed f64 result (smv_spmv_ref) allow twice it. */
typedef enum { SMV_F64 = 0, SMV_F32 = 1, SMV_F64_F32V = 2 } smv_precision;
/* Number of precisions (values 0 .. SMV_PRECISION_COUNT - 1). */
#define SMV_PRECISION_COUNT 3
/* "f64", "f32", "f64-f32v"; NULL if out of range. */
const char *smv_precision_name(smv_precision prec);
/* Parse one of those names (case-insensitive) into *prec; SMV_ERR_PARSE
 * for anything else, SMV_ERR_ARG for NULL. */
smv_status smv_precision_parse(const char *name, smv_precision *prec);

/* The kernel ladder (src/cuda/rungs/spmv_N_*.cu; numbers are stable). */
typedef enum {
  SMV_ALG_AUTO = 0,          /* the engine's choice for this matrix       */
  SMV_ALG_SCALAR = 1,        /* one thread per row                        */
  SMV_ALG_VECTOR = 2,        /* warp per row, shared-memory reduction     */
  SMV_ALG_VECTOR_TEX = 3,    /* + x through a texture object              */
  SMV_ALG_VECTOR_LDG = 4,    /* + x through the read-only path            */
  SMV_ALG_VECTOR_SHFL = 5,   /* + warp-shuffle reduction (seed's final)   */
  SMV_ALG_VECTOR_ATOMIC = 6, /* reduction by atomicAdd into y             */
  SMV_ALG_CUSPARSE_ALG1 = 7, /* cusparseSpMV CSR ALG1 (+ preprocess)      */
  SMV_ALG_CUSPARSE_ALG2 = 8, /* cusparseSpMV CSR ALG2 (+ preprocess)      */
  SMV_ALG_ADAPTIVE = 9,      /* lanes per row from the matrix, long rows
                                split in chunks (past the seed)           */
  SMV_ALG_TILED = 10,        /* rows packed in fixed-size tiles staged in
                                shared memory (after CSR-stream)          */
  SMV_ALG_MERGE = 11,        /* rung 10's tiles summed along the merge path
                                (rows + entries cut evenly per thread)    */
  SMV_ALG_HOT = 12,          /* rung 10 with the most used entries of x in
                                shared memory (power-law columns)         */
  SMV_ALG_PACKED = 13,       /* rung 10 on column indices packed per tile
                                in 16 bits (fewer bytes per entry)        */
  SMV_ALG_PIPE = 14,         /* rung 10's tiles copied to shared memory by
                                cp.async, tiles ahead (bytes in flight)   */
  SMV_ALG_COUNT = 15
} smv_alg;

/* Deprecated: rung 10's former name (it was called "stream", a word smv now
 * keeps for CUDA streams). Kept so existing code compiles; use
 * SMV_ALG_TILED. */
#define SMV_ALG_STREAM SMV_ALG_TILED

/* "auto", "scalar", "vector", "vector-tex", ... ; NULL if out of range. */
const char *smv_alg_name(smv_alg alg);
/* Parse a name (or its number, or its kernel's name) into an alg. Rung
 * 10's former names "stream" and "spmv_stream" are still accepted (so
 * scripts written for them keep working) and parse to SMV_ALG_TILED. */
smv_status smv_alg_parse(const char *name, smv_alg *alg);
/* One line on what the rung changes (the README's ladder table); NULL if
 * out of range. Names and descriptions come from one registry,
 * src/core/rungs.def. */
const char *smv_alg_description(smv_alg alg);
/* 1 if rung alg runs matrices of precision prec, else 0 (AUTO: 1 for
 * every precision). SMV_F64 and SMV_F32: every rung; SMV_F64_F32V: rungs
 * 2, 9 and 10 (smv_spmv refuses the others with SMV_ERR_UNSUPPORTED). No
 * device needed; the engine checks its rungs against it at context
 * creation. */
int smv_alg_runs_precision(smv_alg alg, smv_precision prec);

typedef struct {
  char name[256];
  int cc_major, cc_minor;
  int sm_count;
  int64_t global_mem_bytes;
  int l2_bytes;
  int max_threads_per_sm;
  int regs_per_sm;
  int smem_per_sm;
  int smem_per_block_optin;
  int clock_khz; /* SM clock, as the driver reports it */
  int mem_clock_khz;
  int mem_bus_bits;
  int runtime_version; /* cudaRuntimeGetVersion */
  int driver_version;  /* cudaDriverGetVersion */
  int ecc;
} smv_device_props;

/* Create a context on CUDA device `device` (usually 0). A context belongs
 * to one thread at a time: give each thread its own (they may share
 * matrices, see smv_spmv), or serialise the calls. */
smv_status smv_context_create(int device, smv_context **ctx);
/* Frees the context's stream, handles, texture objects and workspaces
 * (smv_spmv_host_vectors' buffers, the device solvers' buffer). */
void smv_context_free(smv_context *ctx);
/* Text of the last error on this context ("" if none); with NULL, the
 * reason the calling thread's last smv_context_create failed. */
const char *smv_context_error(const smv_context *ctx);
/* Run on the caller's stream (a cudaStream_t passed as void*); NULL = the
 * context's own stream. */
smv_status smv_context_set_stream(smv_context *ctx, void *cuda_stream);
void *smv_context_stream(const smv_context *ctx);
/* Override the block size of every rung (0 = the occupancy-derived
 * default). Must be a multiple of 32 in 32..1024. */
smv_status smv_context_set_block_size(smv_context *ctx, int block);
smv_status smv_device_props_get(smv_context *ctx, smv_device_props *p);

/* Analysis phase: upload a host CSR once (checked with smv_csr_check),
 * compute the per-matrix statistics, choose AUTO's rung by its rule (the
 * plan; docs/engine.md) and set up that rung. A rung's set-up is its
 * per-matrix state: rung 9's long-row lists, the tile lists of rungs 10
 * and 11, rung 12's launch and hot columns, cuSPARSE's descriptor, buffer
 * and preprocess for rungs 7 and 8. Only AUTO's rung is set up here (and
 * rungs 7 and 8 with SMV_MATRIX_CUSPARSE, rung 12 with SMV_MATRIX_HOT);
 * any other rung is set up by smv_matrix_prepare or on its first call
 * (see smv_spmv). prec SMV_F64_F32V rounds the values to float here and
 * refuses a finite value past FLT_MAX (SMV_ERR_OVERFLOW naming its row
 * and column); rungs 7, 8 and 12 cannot be asked for at creation
 * (SMV_MATRIX_CUSPARSE, SMV_MATRIX_HOT: SMV_ERR_UNSUPPORTED). */
smv_status smv_matrix_create(smv_context *ctx, const smv_csr *A,
                             smv_precision prec, smv_matrix **dA);

/* Options of smv_matrix_create_ex (flags are OR-ed). */
#define SMV_MATRIX_CUSPARSE                                                    \
  1u /* set up cuSPARSE ALG1 and ALG2 (rungs 7 and 8) at analysis */
#define SMV_MATRIX_TUNE 2u /* plan by measurement: smv_matrix_tune     */
/* Prepare rung 12's hot columns at analysis for any matrix that has them
 * (a second column array, 4 bytes per entry). Without it they are made
 * only where AUTO runs rung 12 (f32 power-law graphs past the L2), and
 * rung 12 called elsewhere runs without hot columns. smv_matrix_tune makes
 * them for its own timing and keeps them only if rung 12 wins. */
#define SMV_MATRIX_HOT 4u
/* Declare reuse: many SpMVs will run on this matrix (a solver's loop), so
 * an analysis that costs tens of SpMVs pays for itself. The same as
 * expected_calls at or above smv_matrix_reuse_threshold(tune_runs). With
 * reuse declared (and without SMV_MATRIX_TUNE, which times every rung)
 * AUTO's rung is planned by measurement among a short list, not by the
 * rule alone: the rule's pick, the compressed rungs where the matrix
 * qualifies (rung 13, packed: local columns past the L2), and cuSPARSE
 * ALG1 and ALG2; each is set up and timed as smv_matrix_tune does, the
 * fastest kept, the others' set-up released (rung 13's packed arrays
 * too). The plan's reason then begins "reuse declared (...): planned by
 * measurement among ...". Without reuse declared AUTO never runs a
 * compressed rung. */
#define SMV_MATRIX_REUSE 8u
typedef struct {
  unsigned flags;
  int tune_runs;          /* timed runs per candidate (0 = default 10)   */
  int64_t expected_calls; /* SpMVs the caller will run on the matrix, 0:
                             unknown (the default; no reuse declared
                             unless SMV_MATRIX_REUSE); < 0 is SMV_ERR_ARG */
} smv_matrix_options;

/* How many candidates a reuse plan times at most: the rule's pick, rung
 * 13, cuSPARSE ALG1 and ALG2. */
#define SMV_REUSE_CANDIDATES_MAX 4
/* The SpMVs a reuse plan must expect to repay its measurement by 20 times:
 * timing costs about SMV_REUSE_CANDIDATES_MAX x (2 warm-up + runs) SpMVs
 * (runs = tune_runs, 0 meaning 10), plus each candidate's set-up (rung
 * 13 packs the column indices on the host, a pass over 4 bytes per entry;
 * cuSPARSE its preprocess); the factor 20 keeps the timed runs at 5% or
 * less of the calls they plan (the set-ups come on top; the plan record
 * reports them in tune_ms). 20 x 4 x (2 + 10) = 960 by default.
 * tune_runs < 0 counts as 0. Host arithmetic: the CPU-only build answers
 * the same, as does smv_matrix_reuse_declared. */
int64_t smv_matrix_reuse_threshold(int tune_runs);
/* 1 if opt declares reuse (SMV_MATRIX_REUSE, or expected_calls at or above
 * the threshold of its tune_runs), else 0 (also for NULL). */
int smv_matrix_reuse_declared(const smv_matrix_options *opt);

/* smv_matrix_create with options (opt NULL = smv_matrix_create; a
 * zero-initialised struct means the same). Unknown flags, tune_runs
 * outside 0..100000 and expected_calls < 0 are SMV_ERR_ARG. */
smv_status smv_matrix_create_ex(smv_context *ctx, const smv_csr *A,
                                smv_precision prec,
                                const smv_matrix_options *opt, smv_matrix **dA);

/* Set up rung `alg` on the matrix ahead of its first call (SMV_ALG_AUTO:
 * the plan's rung): what the rung keeps per matrix is made now (it
 * allocates and synchronises), so a later smv_spmv of that rung allocates
 * nothing and may be captured in a CUDA graph. A rung already set up
 * costs nothing. When A^T has been built (smv_matrix_prepare_transpose),
 * the rung is set up on it too, for smv_spmv_t. Must not be called inside
 * a stream capture (SMV_ERR_UNSUPPORTED). */
smv_status smv_matrix_prepare(smv_context *ctx, smv_matrix *dA, smv_alg alg);

/* A matrix from CSR arrays already on the GPU (CuPy, PyTorch, ...): no
 * host round trip of the entries. row_ptr (rows + 1 int32), col_idx (nnz
 * int32) and values (nnz doubles for values_prec SMV_F64, floats for
 * SMV_F32; not SMV_F64_F32V) are device pointers of ctx's device; the matrix is
 * made in precision `prec` (values converted on the device when it differs).
 * The arrays are copied into the matrix's own memory: the caller may free or
 * change them once the call returns. The copy is checked on the device
 * (row_ptr[0] = 0, non-decreasing, row_ptr[rows] = nnz; 0 <= col_idx < cols;
 * columns need not be sorted within a row) and the statistics the plan
 * needs are computed there; only the row offsets ((rows + 1) * 4 bytes)
 * are copied to the host, for the rungs' plans. Bad input is SMV_ERR_ARG
 * with the first bad row or entry in the context's error (a host pointer
 * or one of another device too); sizes beyond int32 SMV_ERR_OVERFLOW, and
 * so is, for prec SMV_F64_F32V from f64 values, a finite value past
 * FLT_MAX (its row, column and value in the context's error). Runs
 * on the context's stream, after the work queued there (set the stream
 * that wrote the arrays with smv_context_set_stream), and synchronises it.
 * opt as smv_matrix_create_ex (NULL = defaults). */
smv_status
smv_matrix_create_device(smv_context *ctx, int64_t rows, int64_t cols,
                         int64_t nnz, const int32_t *row_ptr,
                         const int32_t *col_idx, const void *values,
                         smv_precision values_prec, smv_precision prec,
                         const smv_matrix_options *opt, smv_matrix **dA);

/* Plan by measurement, like an autotuner: time every candidate (the rungs
 * src/core/rungs.def marks as tuned: every rung of ours but 2, 3, 4 and
 * 6, plus cuSPARSE ALG1 and ALG2) on scratch vectors (x random, alpha 1,
 * beta 0), 2 warm-up runs then `runs` timed ones (0 = 10) each, CUDA
 * events, and make the fastest median the matrix's AUTO rung. A rung set
 * up for the measurement is released again unless it won (rung 12's hot
 * columns too, unless asked for with SMV_MATRIX_HOT); what the matrix held
 * before stays. Synchronises; must not be called inside a stream capture
 * (SMV_ERR_UNSUPPORTED). */
smv_status smv_matrix_tune(smv_context *ctx, smv_matrix *dA, int runs);

/* The matrix's plan and analysis record. Times are host wall-clock
 * milliseconds of each synchronised step of the analysis. */
typedef struct {
  smv_alg alg;      /* what SMV_ALG_AUTO runs on this matrix            */
  int measured;     /* 1: chosen by smv_matrix_tune, 0: by the heuristic */
  char reason[512]; /* why: the statistics that decided, or the timings  */
  int ncandidates;  /* measured candidates (0 unless measured)          */
  struct {
    smv_alg alg;
    double ms; /* median of the timed runs; < 0 if the rung failed       */
  } candidates[SMV_ALG_COUNT];
  double upload_ms;         /* allocate and copy the CSR arrays        */
  double stats_ms;          /* statistics from the host CSR            */
  double plan_ms;           /* the heuristic's choice                  */
  double prep_ms;           /* set-up of our rungs at analysis (AUTO's
                               rung, what its rule read, flags)       */
  double tune_ms;           /* smv_matrix_tune (0 if never called)     */
  double cusparse_ms[2];    /* ALG1, ALG2: cusparseSpMV_bufferSize,
                               buffer allocation and cusparseSpMV_
                               preprocess (0: not prepared)            */
  size_t cusparse_bytes[2]; /* their buffers held now (0: none)        */
  size_t device_bytes;      /* everything the matrix holds on the GPU  */
} smv_matrix_plan_info;

smv_status smv_matrix_plan(const smv_matrix *dA, smv_matrix_plan_info *p);
/* Device memory the matrix holds: CSR arrays, cuSPARSE buffers prepared so
 * far, the state of every rung set up (0 for NULL). */
size_t smv_matrix_device_bytes(const smv_matrix *dA);
void smv_matrix_free(smv_matrix *dA);
smv_precision smv_matrix_precision(const smv_matrix *dA);
void smv_matrix_dims(const smv_matrix *dA, int64_t *rows, int64_t *cols,
                     int64_t *nnz);

/* y = alpha*A*x + beta*y on device pointers (double* for SMV_F64 and
 * SMV_F64_F32V, float* for SMV_F32, matching the matrix). Asynchronous on
 * the context's stream; no allocation, no host synchronisation: it may be
 * captured in a CUDA graph. alpha and beta are rounded to float for
 * SMV_F32. x and y must not overlap (SMV_ERR_ARG, nothing launched). A
 * rung that does not run the matrix's precision (smv_alg_runs_precision:
 * SMV_F64_F32V runs rungs 2, 9, 10 and AUTO) is SMV_ERR_UNSUPPORTED,
 * nothing launched.
 *
 * Reproducibility (docs/engine.md, "Determinism"): rungs 1-5, 9, 10 and 12
 * use a fixed summation order and give the same bits on every call with the
 * same inputs on the same device; so does cuSPARSE ALG2 (documented as
 * deterministic by NVIDIA). Rung 6 (atomics) and ALG1 are not
 * bit-reproducible; AUTO inherits the guarantee of the rung it picked.
 *
 * One exception: the first call of a rung that is not set up on this
 * matrix (not AUTO's rung, not named by smv_matrix_prepare or a creation
 * flag, never run on it) sets it up then (smv_matrix_prepare: it
 * allocates and synchronises). Inside a stream capture that call fails
 * with SMV_ERR_UNSUPPORTED and a message saying so, allocating nothing:
 * call smv_matrix_prepare, or run the rung once, before capturing.
 *
 * The matrix is not const: some rungs write to it. Sharing one matrix:
 *   - the first call of a rung not set up on it sets it up (above), which
 *     writes the matrix: set up every rung the threads will run
 *     (smv_matrix_prepare) before sharing it;
 *   - rungs 1-6 only read it: any number of contexts, threads and streams
 *     may run them on one matrix at once;
 *   - rungs 7 and 8 (cuSPARSE) set the matrix's vector descriptors on the
 *     host at every call and share its one cuSPARSE workspace: calls on
 *     one matrix must come from one thread at a time and must not overlap
 *     on the device (one stream, or the previous call finished);
 *   - rung 9 on a matrix with rows of several chunks (rows longer than
 *     its long-row threshold) writes the matrix's partial sums and
 *     counters: two such SpMVs on one matrix must not overlap on the
 *     device (same stream, or the first finished);
 *   - rungs 10 and 12 share one set of partial sums and counters for rows
 *     longer than a tile, and rung 12 counts its tiles on every call: two
 *     SpMVs of rung 12, or of rungs 10 and 12 on a matrix with such rows,
 *     or two of rung 10 on one, must not overlap on the device;
 *   - AUTO runs rung 9, 10, 12 or a cuSPARSE rung, so it has their limits. */
smv_status smv_spmv(smv_context *ctx, smv_alg alg, double alpha, smv_matrix *dA,
                    const void *x, double beta, void *y);
/* smv_spmv on host vectors (double, whatever the matrix precision): copies
 * x (and y when beta != 0) to the device, runs, copies y back and
 * synchronises. Allocates nothing per call: the device and staging buffers
 * are a workspace kept in the context, grown on demand and freed by
 * smv_context_free, so calls on one context must not overlap (one thread at
 * a time). x and y must not overlap (SMV_ERR_ARG), as everywhere else. */
smv_status smv_spmv_host_vectors(smv_context *ctx, smv_alg alg, double alpha,
                                 smv_matrix *dA, const double *x, double beta,
                                 double *y);
/* Deprecated: the former name of smv_spmv_host_vectors (same call; kept so
 * existing code compiles and links). */
smv_status smv_spmv_host(smv_context *ctx, smv_alg alg, double alpha,
                         smv_matrix *dA, const double *x, double beta,
                         double *y);

/* ---- Transpose on the device: y = alpha*A^T*x + beta*y -------------------
 * x has the matrix's rows entries, y its cols. Runs the ordinary SpMV rung
 * `alg` on a second device matrix holding A^T (CSR of A^T = CSC of A):
 * atomic-free and deterministic whenever the rung is. A^T is built on the
 * first transposed product (a copy of A back to the host, a counting sort,
 * an upload: it allocates and synchronises), or ahead of time by
 * smv_matrix_prepare_transpose, which must come first when the product is
 * to be captured in a CUDA graph (capturing an unprepared matrix is
 * SMV_ERR_ARG). It is freed with the matrix. */
smv_status smv_matrix_prepare_transpose(smv_context *ctx, smv_matrix *dA);
smv_status smv_spmv_t(smv_context *ctx, smv_alg alg, double alpha,
                      smv_matrix *dA, const void *x, double beta, void *y);
smv_status smv_spmv_t_host(smv_context *ctx, smv_alg alg, double alpha,
                           smv_matrix *dA, const double *x, double beta,
                           double *y);

/* ---- SpMM on the device: Y = alpha*A*X + beta*Y ---------------------------
 * X and Y dense, k columns, layout and leading dimensions as for
 * smv_spmm_cpu (in elements). The SpMM ladder (src/cuda/spmm/spmm_N_*.cu,
 * table of contents in src/cuda/spmm/spmm.cu; values are stable): */
typedef enum {
  SMV_SPMM_AUTO = 0,          /* the plan's choice (smv_spmm_choose)      */
  SMV_SPMM_OURS = 1,          /* rung 1: row-major k >= 8 a group of lanes
                                 per row, columns across the lanes; else
                                 register tiles of 8 columns (gather)     */
  SMV_SPMM_CUSPARSE_ALG1 = 2, /* cusparseSpMM CUSPARSE_SPMM_CSR_ALG1       */
  SMV_SPMM_CUSPARSE_ALG2 = 3, /* CUSPARSE_SPMM_CSR_ALG2                    */
  SMV_SPMM_CUSPARSE_ALG3 = 4, /* CUSPARSE_SPMM_CSR_ALG3                    */
  SMV_SPMM_SPMV = 5,          /* rung 2: one smv_spmv (AUTO) per column; needs
                                 contiguous columns: column-major (k <= 16),
                                 or k = 1 with ldx = ldy = 1                  */
  SMV_SPMM_ROWVEC = 6,        /* rung 3: row-major, 16-byte loads along k,
                                 (col, val) pairs loaded once per warp and
                                 shuffled, several rows per warp             */
  SMV_SPMM_ROWSPLIT = 7,      /* rung 4: rung 3 + rows longer than a chunk cut
                                 into chunks, partial sums summed in order by
                                 a second kernel (deterministic)             */
  SMV_SPMM_COLSPLIT = 8,      /* rung 5: any layout (made for column-major):
                                 lanes split each row, tiles of 8 columns,
                                 long rows cut into chunks as rung 4         */
  SMV_SPMM_COLTRANS = 9,      /* rung 6: column-major through the row-major
                                 rung the plan picks (rung 9 below 8
                                 columns): X transposed to a row-major
                                 workspace, Y transposed back (alpha, beta
                                 applied)                                    */
  SMV_SPMM_KSLICE = 10,       /* rung 7: row-major, rung 4 once per slice of
                                 columns sized to the L2; a measured loss,
                                 never chosen by AUTO                        */
  SMV_SPMM_ROWPIPE = 11,      /* rung 8: row-major, rung 4 with the row kernel
                                 pipelined across rows (the next row's
                                 offsets and pairs load during this row);
                                 AUTO's rung for X rows of <= 256 bytes   */
  SMV_SPMM_ROWGATHER = 12,    /* rung 9: row-major, rung 5 with each entry's
                                 X row read as 16-byte vectors and 4+
                                 entries a lane; AUTO's rung for row-major
                                 k < 8 (and rung 6's inside there)         */
  SMV_SPMM_ROWSTREAM = 13,    /* rung 10: row-major X rows of a whole warp
                                 (f32 k = 128, 256; f64 k = 64, 128): a
                                 warp streams 32 rows' entries as one
                                 sequence, long rows in rung 4's chunks    */
  SMV_SPMM_COLBAND = 14,      /* rung 11: row-major, A split once into
                                 bands of columns whose X rows fit a share
                                 of the L2, run band by band (Y passes:
                                 2 x bands - 1); a measured loss, never
                                 chosen by AUTO                           */
  SMV_SPMM_ALG_COUNT = 15
} smv_spmm_alg;
/* "auto", "ours", "cusparse-alg1", ...; NULL if out of range. */
const char *smv_spmm_alg_name(smv_spmm_alg alg);
smv_status smv_spmm_alg_parse(const char *name, smv_spmm_alg *alg);

/* SpMM's plan: what AUTO runs for a matrix and a product, from the
 * matrix's statistics and the product's shape (no device, no timing:
 * smv_spmm_tune measures instead). */
typedef struct {
  int64_t rows, cols, nnz, row_max;
  double row_mean;
  int k;
  smv_layout layout;
  int f32; /* 1: float values and operands, 0: double          */
  int64_t ldx, ldy;
  /* Rows of fewer than SMV_SPMM_SHORT_ROW entries (empty ones included):
   * a graph's rows are mostly short, a stencil's are not. 0 if unknown. */
  int64_t short_rows;
} smv_spmm_shape;
/* The shape of a product on a matrix with statistics st (smv_csr_stats):
 * every field above. */
void smv_spmm_shape_of(const smv_stats *st, int k, smv_layout layout, int f32,
                       int64_t ldx, int64_t ldy, smv_spmm_shape *s);
typedef struct {
  smv_spmm_alg alg; /* never AUTO                                     */
  int64_t chunk;    /* rows longer than this are split (0: none)      */
  int vec;          /* elements per load along k (rungs 3, 4, 6, 8-10) */
  char why[256];    /* one line: the rule that chose alg              */
} smv_spmm_choice;
/* SMV_ERR_ARG for NULL or a shape with k < 1 or an unknown layout. */
smv_status smv_spmm_choose(const smv_spmm_shape *s, smv_spmm_choice *c);
/* Column-major products with at least this many columns go through
 * rung 6 (transposes, the row-major plan's rung inside); fewer through
 * rung 6 with rung 9 inside when rows and columns hold at least
 * SMV_SPMM_NARROW_MEAN entries on the mean (nnz / max(rows, cols)), else
 * rung 5. Row-major products with fewer go through rung 9. */
#define SMV_SPMM_COLTRANS_K 8
#define SMV_SPMM_NARROW_MEAN 8
/* Row-major products of k >= SMV_SPMM_COLTRANS_K columns whose X row is
 * at most this many bytes (k x 4 for f32, k x 8 for f64), with k one full
 * pass of rung 8 (a power of two from the vector width), go through
 * rung 8 (rowpipe); 512-byte rows on a graph (below) through rung 10;
 * others through rung 4 (or 3). */
#define SMV_SPMM_ROWPIPE_BYTES 256
/* A row of fewer entries than this is short (smv_spmm_shape.short_rows:
 * the histogram bins 0..4 of smv_stats). Rung 10 runs on 512-byte X rows
 * where at least half the rows are short and a row is longer than
 * SMV_SPMM_CHUNK (a graph: hubs and many short rows). */
#define SMV_SPMM_SHORT_ROW 16
/* Rung 2 (one smv_spmv per column) takes column-major products of at most
 * this many columns: past it every other rung wins, and its k launches
 * per call fill the device's launch queue when calls are queued back to
 * back. */
#define SMV_SPMM_SPMV_KMAX 16
/* A matrix with a row longer than this many entries has its long rows
 * split by rungs 4, 5, 8, 9 and 10, in chunks of this many entries (8 rounds of
 * a warp at 32 entries a round), or fewer, down to 64, when that would leave
 * SMs idle (fewer chunks than 16 per SM): the chunk size the plan names is this
 * starting size. */
#define SMV_SPMM_CHUNK 256

/* Device pointers (double* or float*, the matrix's precision), on the
 * context's stream, asynchronous. X and Y must not overlap (SMV_ERR_ARG).
 * Rungs 1, 3, 5 and 9 without long rows never allocate and may be
 * captured in a CUDA graph; rungs 4, 5 and 9 on a matrix with rows longer
 * than SMV_SPMM_CHUNK list the chunks (a copy of the row offsets to the
 * host, once) and keep a workspace of chunks x k partial sums with the
 * matrix (grown to the largest k seen), so run them once with the
 * largest k before capturing (rung 6 likewise for its row-major copies of
 * X and Y, cols x k + rows x k elements: AUTO runs rung 6 on column-major
 * products of 8+ columns, and of 2..7 where rows and columns hold
 * SMV_SPMM_NARROW_MEAN+ entries on the mean). That workspace is the
 * matrix's: products with one matrix on several streams at once need
 * rungs 1 or 3, or a matrix each. Rung 2 runs smv_spmv, whose AUTO may
 * set up on its first call. The cuSPARSE algorithms allocate their workspace on
 * the first call for a given shape (kept with the matrix, as large as the
 * largest seen), so run them once before capturing. A combination cuSPARSE
 * refuses (an algorithm/layout it lacks) is SMV_ERR_UNSUPPORTED with cuSPARSE's
 * reason. */
smv_status smv_spmm(smv_context *ctx, smv_spmm_alg alg, double alpha,
                    smv_matrix *dA, const void *X, int64_t ldx, double beta,
                    void *Y, int64_t ldy, int k, smv_layout layout);
/* Host arrays (double, whatever the matrix precision): copies in, runs,
 * copies out, synchronises. */
smv_status smv_spmm_host(smv_context *ctx, smv_spmm_alg alg, double alpha,
                         smv_matrix *dA, const double *X, int64_t ldx,
                         double beta, double *Y, int64_t ldy, int k,
                         smv_layout layout);
/* The plan for a product with this matrix (smv_spmm_choose on its
 * statistics). */
smv_status smv_spmm_plan(smv_context *ctx, const smv_matrix *dA, int k,
                         smv_layout layout, int64_t ldx, int64_t ldy,
                         smv_spmm_choice *c);
/* Plan by measurement: run every rung of ours that accepts the shape and
 * the heuristic's choice (each checked against the first on a random X,
 * to 1e-3 of |y| + 1 for f32, 1e-9 for f64: a sanity check) `runs` times on
 * device buffers it allocates (X random, Y zero, alpha 1, beta 0), and
 * give the fastest median in c (why names the times). AUTO (and
 * smv_spmm_plan) then run that rung for this k and layout on this matrix
 * (the last 8 pairs tuned are kept with it). Synchronises; not while the
 * stream is captured. */
smv_status smv_spmm_tune(smv_context *ctx, smv_matrix *dA, int k,
                         smv_layout layout, int runs, smv_spmm_choice *c);

/* Device memory helpers for callers without CUDA headers (the CLI). */
smv_status smv_device_malloc(smv_context *ctx, size_t bytes, void **p);
void smv_device_free(smv_context *ctx, void *p);
smv_status smv_memcpy_h2d(smv_context *ctx, void *dst, const void *src,
                          size_t bytes);
smv_status smv_memcpy_d2h(smv_context *ctx, void *dst, const void *src,
                          size_t bytes);
smv_status smv_synchronize(smv_context *ctx);

#ifdef __cplusplus
}
#endif
#endif /* SMV_H */
