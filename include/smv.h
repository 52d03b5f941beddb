/*
 * smv.h — sparse matrix-vector product y = alpha*A*x + beta*y (CSR), on the
 * CPU and on NVIDIA GPUs, plus the lab that explains its speed.
 *
 * The one public header of smv. Conventions (DEVELOPERS.md):
 *   - every function returns smv_status: SMV_OK = 0, errors negative;
 *     smv_status_string() names each code;
 *   - host data is transparent (smv_csr is a plain struct you may fill
 *     yourself), device data is opaque (smv_context, smv_matrix);
 *   - create/free pairs; every free is NULL-safe;
 *   - the library never prints and never exits: errors come back as a status
 *     plus, where a function takes one, an smv_error with file, line and
 * reason.
 *
 * Sections: status and errors; host CSR; Matrix Market I/O; generators and
 * loading; statistics; CPU SpMV; occupancy calculator; CUDA engine;
 * measurement (bench).
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

/* ======================================================================== */
/* Occupancy calculator (pure C, no GPU)                                     */
/* ======================================================================== */

/* How a row's shared-memory capacity per SM is chosen (see smv_occupancy_ex):
 * fixed (Maxwell, Pascal), a cudaFuncSetCacheConfig split (Fermi, Kepler), or
 * a carveout rounded up to a supported size (Volta and later). */
typedef enum {
  SMV_SMEM_FIXED = 0,        /* dedicated shared memory, nothing to choose  */
  SMV_SMEM_CACHE_CONFIG = 1, /* smem_configs = {prefer L1, [equal], shared} */
  SMV_SMEM_CARVEOUT = 2      /* smem_configs = the supported carveouts      */
} smv_smem_model;

#define SMV_ARCH_MAX_SMEM_CONFIGS 12

/* One row of the architecture table: the per-SM limits that decide how
 * many blocks of a kernel are resident at once. Byte counts are bytes,
 * register counts are 32-bit registers. The struct is plain data: a caller
 * may fill one for a GPU the table lacks and pass it to smv_occupancy. */
typedef struct {
  int cc_major, cc_minor;
  const char *name;          /* "Kepler GK110/GK208", ...                  */
  int max_threads_per_block; /* 1024 (512 on CC 1.x; not in table)        */
  int max_warps_per_sm;
  int max_blocks_per_sm;
  int regs_per_sm;             /* register file per SM                      */
  int regs_per_block;          /* most registers one block may hold         */
  int max_regs_per_thread;     /* 63 on CC 2.x and 3.0, 255 later           */
  int reg_alloc_unit;          /* registers are allocated in these units     */
  int reg_alloc_per_warp;      /* 1: the unit applies per warp; 0: per block */
  int warp_alloc_granularity;  /* warps per register partition (the SM's
                                  register file is split this many ways)    */
  int warp_alloc_compat;       /* 0, or a second granularity whose register
                                  limit must also allow a block (CC 6.0:
                                  GP10x's 4, as cuda_occupancy.h does)      */
  int smem_per_sm;             /* largest shared-memory capacity per SM     */
  int smem_per_block;          /* default max per block (48 KB)             */
  int smem_per_block_optin;    /* opt-in max (cudaFuncSetAttribute)         */
  int smem_alloc_unit;         /* bytes                                     */
  int smem_reserved_per_block; /* bytes the system takes per block (1 KB on
                                  CC >= 8.0)                                */
  smv_smem_model smem_model;
  int smem_config_count; /* entries used in smem_configs              */
  int smem_configs[SMV_ARCH_MAX_SMEM_CONFIGS]; /* capacities, ascending      */
  const char *source; /* where the numbers come from               */
} smv_arch;

/* Look up a compute capability; NULL if not in the table. */
const smv_arch *smv_arch_find(int cc_major, int cc_minor);
/* The whole table (for listing), *count rows, ascending compute
 * capability: 2.0 2.1 3.0 3.5 3.7 5.0 5.2 5.3 6.0 6.1 6.2 7.0 7.2 7.5 8.0
 * 8.6 8.7 8.9 9.0 10.0 12.0. */
const smv_arch *smv_arch_table(int *count);
/* Parse "3.5", "35", "sm_35", "sm_90a", "compute_120" into a compute
 * capability (not checked against the table). SMV_ERR_PARSE if malformed. */
smv_status smv_arch_parse_cc(const char *s, int *cc_major, int *cc_minor);

/* Bits of smv_occupancy_result.limited_by. */
#define SMV_LIMIT_WARPS 1u
#define SMV_LIMIT_BLOCKS 2u
#define SMV_LIMIT_REGS 4u
#define SMV_LIMIT_SMEM 8u

/* A per-limit block count for a resource the kernel does not use (0
 * registers, 0 bytes of shared memory): that limit never binds. */
#define SMV_OCC_UNLIMITED 2147483647

typedef struct {
  int blocks_per_sm; /* resident blocks per SM (0: cannot launch)      */
  int warps_per_sm;  /* blocks_per_sm * warps_per_block               */
  int max_warps_per_sm;
  double occupancy;    /* warps_per_sm / max_warps_per_sm               */
  unsigned limited_by; /* SMV_LIMIT_* bits of every limit that binds    */
  int blocks_by_warps; /* blocks each limit alone allows                */
  int blocks_by_blocks;
  int blocks_by_regs; /* SMV_OCC_UNLIMITED for 0 registers             */
  int blocks_by_smem; /* SMV_OCC_UNLIMITED when nothing is allocated   */
  /* The arithmetic behind the numbers above. */
  int warps_per_block;   /* ceil(threads / 32)                            */
  int regs_per_warp;     /* regs * 32 rounded up to the unit (per-warp)   */
  int regs_per_block;    /* registers allocated to one block              */
  int warps_by_regs;     /* warps per SM the register file holds          */
  size_t smem_per_block; /* allocated: request + reserved, rounded up     */
  int smem_per_sm;       /* the capacity per SM the model used (carveout) */
  int smem_optin;        /* 1: the request exceeds the default per-block
                            limit (needs cudaFuncAttributeMaxDynamic-
                            SharedMemorySize)                             */
} smv_occupancy_result;

/* The shared-memory preference, as CUDA offers it. cache_config is
 * cudaFuncSetCacheConfig (Fermi, Kepler; on Volta+ it maps to carveout 0,
 * 100 or 50 when carveout is default); carveout is
 * cudaFuncAttributePreferredSharedMemoryCarveout in percent of smem_per_sm
 * (Volta and later; -1 = no preference). Both are hints the driver
 * overrides when a single block would not fit. */
typedef enum {
  SMV_CACHE_PREFER_NONE = 0,
  SMV_CACHE_PREFER_SHARED = 1,
  SMV_CACHE_PREFER_L1 = 2,
  SMV_CACHE_PREFER_EQUAL = 3
} smv_cache_config;

#define SMV_CARVEOUT_DEFAULT (-1)
typedef struct {
  int carveout;                  /* SMV_CARVEOUT_DEFAULT or 0..100         */
  smv_cache_config cache_config; /* SMV_CACHE_PREFER_NONE by default       */
} smv_occupancy_options;
#define SMV_OCCUPANCY_OPTIONS_INIT                                             \
  { SMV_CARVEOUT_DEFAULT, SMV_CACHE_PREFER_NONE }

/* Resident blocks for a kernel of `threads_per_block` threads using
 * regs_per_thread registers and smem_per_block bytes of shared memory
 * (static + dynamic) on `arch`, with no shared-memory preference: the
 * largest capacity per SM, as cuda_occupancy.h and the runtime's
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor assume. Requests above the
 * default 48 KB per block assume the kernel opted in (r->smem_optin says
 * so). SMV_ERR_ARG for NULL pointers, threads outside
 * 1..max_threads_per_block, registers outside 0..max_regs_per_thread or
 * shared memory above smem_per_block_optin. A valid request whose block
 * still cannot fit (e.g. 1024 threads x 63 registers on CC 2.0 exceeds
 * regs_per_block) is SMV_OK with blocks_per_sm = 0. */
smv_status smv_occupancy(const smv_arch *arch, int threads_per_block,
                         int regs_per_thread, size_t smem_per_block,
                         smv_occupancy_result *r);
/* The same with a shared-memory preference (opt may be NULL = defaults;
 * SMV_ERR_ARG for a carveout outside -1..100 or an unknown cache_config). */
smv_status smv_occupancy_ex(const smv_arch *arch, int threads_per_block,
                            int regs_per_thread, size_t smem_per_block,
                            const smv_occupancy_options *opt,
                            smv_occupancy_result *r);

/* Shared memory per block as a function of the block size (e.g. the seed's
 * vector kernel: (block + 16) * sizeof(double)). */
typedef size_t (*smv_smem_fn)(int threads_per_block, void *user);

/* Choose a block size by occupancy: try every multiple of 32 from 32 to
 * min(max_block, arch->max_threads_per_block) (max_block <= 0: no extra
 * cap) and return the SMALLEST block reaching the highest warps per SM,
 * with its result. Shared memory per block is smem_fn(block, user) when
 * smem_fn is not NULL, else smem_fixed. Sizes whose request is invalid
 * (shared memory above the opt-in limit) are skipped; SMV_ERR_ARG if none
 * is valid or no block can be resident at all (*best_block = 0 then). */
smv_status smv_occupancy_best_block(const smv_arch *arch, int regs_per_thread,
                                    size_t smem_fixed, smv_smem_fn smem_fn,
                                    void *user, int max_block, int *best_block,
                                    smv_occupancy_result *best);

/* ======================================================================== */
/* CUDA engine                                                               */
/* ======================================================================== */

/* Everything here returns SMV_ERR_NO_DEVICE when smv was built without
 * CUDA, or when there is no driver or no GPU. */

typedef struct smv_context smv_context; /* device, stream, handles, error */
typedef struct smv_matrix smv_matrix;   /* a CSR matrix on the device     */

typedef enum { SMV_F64 = 0, SMV_F32 = 1 } smv_precision;

/* The kernel ladder (src/cuda/spmv_N_*.cu; numbers are stable). */
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
  SMV_ALG_COUNT = 10
} smv_alg;

/* "auto", "scalar", "vector", "vector-tex", ... ; NULL if out of range. */
const char *smv_alg_name(smv_alg alg);
/* Parse a name (or its number) into an alg. */
smv_status smv_alg_parse(const char *name, smv_alg *alg);

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

/* Create a context on CUDA device `device` (usually 0). */
smv_status smv_context_create(int device, smv_context **ctx);
void smv_context_free(smv_context *ctx);
/* Text of the last error on this context ("" if none). */
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
 * compute the per-matrix statistics and whatever preprocessing the rungs
 * need (cuSPARSE descriptors, buffers and preprocess). */
smv_status smv_matrix_create(smv_context *ctx, const smv_csr *A,
                             smv_precision prec, smv_matrix **dA);
void smv_matrix_free(smv_matrix *dA);
smv_precision smv_matrix_precision(const smv_matrix *dA);
void smv_matrix_dims(const smv_matrix *dA, int64_t *rows, int64_t *cols,
                     int64_t *nnz);

/* y = alpha*A*x + beta*y on device pointers (double* for SMV_F64, float*
 * for SMV_F32, matching the matrix). Asynchronous on the context's stream;
 * no allocation, no host synchronisation: it may be captured in a CUDA
 * graph. alpha and beta are rounded to float for SMV_F32. x and y must not
 * overlap (SMV_ERR_ARG, nothing launched).
 * Reproducibility (docs/engine.md, "Determinism"): rungs 1-5 and 9 use a
 * fixed summation order and give the same bits on every call with the same
 * inputs on the same device; so does cuSPARSE ALG2 (documented as
 * deterministic by NVIDIA). Rung 6 (atomics) and ALG1 are not
 * bit-reproducible; AUTO inherits the guarantee of the rung it picked
 * (ALG1 on large scattered matrices, else rung 9). */
smv_status smv_spmv(smv_context *ctx, smv_alg alg, double alpha,
                    const smv_matrix *dA, const void *x, double beta, void *y);
/* Convenience on host vectors (double, whatever the matrix precision):
 * copies in, runs, copies out, synchronises. x and y must not overlap
 * (SMV_ERR_ARG), as everywhere else. */
smv_status smv_spmv_host(smv_context *ctx, smv_alg alg, double alpha,
                         const smv_matrix *dA, const double *x, double beta,
                         double *y);

/* Device memory helpers for callers without CUDA headers (the CLI). */
smv_status smv_device_malloc(smv_context *ctx, size_t bytes, void **p);
void smv_device_free(smv_context *ctx, void *p);
smv_status smv_memcpy_h2d(smv_context *ctx, void *dst, const void *src,
                          size_t bytes);
smv_status smv_memcpy_d2h(smv_context *ctx, void *dst, const void *src,
                          size_t bytes);
smv_status smv_synchronize(smv_context *ctx);

/* A kernel's real resources (cudaFuncGetAttributes) and the runtime's own
 * occupancy figure for it. */
typedef struct {
  int regs_per_thread;
  size_t static_smem_bytes;
  size_t dynamic_smem_bytes; /* what the engine launches it with, per block
                                at the given block size (0 if none) */
  size_t local_bytes;
  int max_threads_per_block;
  int ptx_version, binary_version;
} smv_kernel_attrs;

/* Names of the engine's own kernels for `smv occupancy --kernel`. */
const char *smv_kernel_name(smv_alg alg);
smv_status smv_kernel_attributes(smv_context *ctx, smv_alg alg,
                                 smv_precision prec, int block,
                                 smv_kernel_attrs *out);
smv_status smv_kernel_occupancy_cuda(smv_context *ctx, smv_alg alg,
                                     smv_precision prec, int block,
                                     int *blocks_per_sm);
/* The block size the engine uses for a rung by default on this device. */
smv_status smv_kernel_default_block(smv_context *ctx, smv_alg alg,
                                    smv_precision prec, int *block);

/* ======================================================================== */
/* Measurement                                                               */
/* ======================================================================== */

/* How smv_bench_spmv times. Fill with smv_bench_options_init() (or pass
 * NULL for the defaults) and change what you need. Timed SpMVs compute
 * y = alpha*A*x + beta*y on the vectors given. */
typedef struct {
  int warmup;        /* untimed runs first (default 10)            */
  int runs;          /* timed runs (default 200)                   */
  int flush_l2;      /* also time with L2 flushed before each run */
  int graph_batch;   /* SpMVs captured per graph (0 = skip graph)  */
  int graph_replays; /* timed launches of that graph (default 20)  */
  /* Cap per timing mode, in seconds of SpMV time: when runs (or replays
   * times graph_batch) SpMVs would take longer, fewer are timed, never
   * fewer than 5 (3 replays). 0 = no cap (default). */
  double max_seconds;
  double alpha, beta; /* scalars of the timed SpMVs (default 1 and 0) */
} smv_bench_options;

/* Defaults: warmup 10, runs 200, flush_l2 0, graph_batch 0,
 * graph_replays 20, max_seconds 0, alpha 1, beta 0. */
static inline void smv_bench_options_init(smv_bench_options *o) {
  if (!o)
    return;
  o->warmup = 10;
  o->runs = 200;
  o->flush_l2 = 0;
  o->graph_batch = 0;
  o->graph_replays = 20;
  o->max_seconds = 0.0;
  o->alpha = 1.0;
  o->beta = 0.0;
}

/* Summary of the per-run times of one mode, in milliseconds. Percentiles
 * interpolate linearly between order statistics. */
typedef struct {
  double median_ms, min_ms, max_ms, p10_ms, p90_ms;
  int runs;
} smv_timing;

typedef struct {
  smv_timing warm;    /* L2-warm, one launch per timed event pair  */
  smv_timing flushed; /* L2 flushed before each run (runs 0 if off) */
  smv_timing graph;   /* per SpMV, from graph replays (runs 0 if off) */
  size_t flush_bytes; /* buffer written between flushed runs (0 if off) */
  char error[256];    /* why it failed ("" on success); modes timed
                         before the failure keep their numbers */
} smv_bench_result;

/* Time smv_spmv on the given device vectors with CUDA events, on the
 * context's stream. Runs are queued behind a short kernel that holds the
 * stream until every run of a batch is enqueued, so each event pair times
 * the GPU's work, not the host's launch rate (the graph mode shows what
 * the launch rate costs). L2 flushing writes a buffer of 4x the L2 size
 * between runs, outside the timed region. opt may be NULL (defaults).
 * Leaves y holding the last run's result. */
smv_status smv_bench_spmv(smv_context *ctx, smv_alg alg, const smv_matrix *dA,
                          const void *x, void *y, const smv_bench_options *opt,
                          smv_bench_result *r);
/* Device-to-device copy bandwidth (bytes read + written per second) of a
 * cudaMemcpy of `bytes`, median of several runs, in GB/s (1e9). */
smv_status smv_device_copy_bandwidth(smv_context *ctx, size_t bytes,
                                     double *gbps);

#ifdef __cplusplus
}
#endif
#endif /* SMV_H */
