"""Loading libsmv.so and declaring the C functions the package calls.

Where the library is looked for, in order:
  1. the path in the environment variable SMV_LIB;
  2. next to this package (what `pip install .` puts there):
     libsmv_cuda.so (the CUDA build) first, then libsmv.so (the CPU-only
     build, which needs no CUDA library); a CUDA build that cannot be
     loaded (no libcudart/libcusparse on this machine) is skipped, so the
     package imports and runs on the CPU anywhere;
  3. the source tree's build folders (build/, build-cpu/ beside python/);
  4. the system's library path (libsmv.so.0, e.g. after `make install`).
Both builds export the same functions (the CPU-only one answers
SMV_ERR_NO_DEVICE for the device ones), so nothing else depends on which
was loaded.

Every declaration mirrors include/smv.h (and include/smv_solve.h for the
solvers); adding a binding is one `_declare(...)` line here and one function
in the package.
"""

import ctypes
import ctypes.util
import os

c_int64_p = ctypes.POINTER(ctypes.c_int64)
c_double_p = ctypes.POINTER(ctypes.c_double)
c_float_p = ctypes.POINTER(ctypes.c_float)

# smv_status codes (include/smv.h).
SMV_OK = 0
SMV_ERR_ARG = -1
SMV_ERR_NOMEM = -2
SMV_ERR_DIM = -7
SMV_ERR_NO_DEVICE = -8
SMV_ERR_OVERFLOW = -6
SMV_ERR_UNSUPPORTED = -5

SMV_F64 = 0
SMV_F32 = 1
SMV_F64_F32V = 2  # f32 values, f64 vectors and sums (lossy, opt-in: smv.h)
SMV_LAYOUT_ROW_MAJOR = 0
SMV_LAYOUT_COL_MAJOR = 1
INT32_MAX = 2**31 - 1


class Csr(ctypes.Structure):
    """smv_csr: the plain host CSR struct (int32 offsets and indices)."""

    _fields_ = [
        ("rows", ctypes.c_int32),
        ("cols", ctypes.c_int32),
        ("nnz", ctypes.c_int64),
        ("row_ptr", ctypes.POINTER(ctypes.c_int32)),
        ("col_idx", ctypes.POINTER(ctypes.c_int32)),
        ("values", c_double_p),
        ("sorted", ctypes.c_int),
        ("field", ctypes.c_int),
        ("symmetry", ctypes.c_int),
        ("format", ctypes.c_int),
    ]


# smv_matrix_options.flags (include/smv.h).
SMV_MATRIX_CUSPARSE = 1
SMV_MATRIX_TUNE = 2
SMV_MATRIX_HOT = 4
SMV_MATRIX_REUSE = 8


class MatrixOptions(ctypes.Structure):
    """smv_matrix_options, field for field (include/smv.h): two 4-byte
    ints, then the int64 at byte 8 (no padding), 16 bytes in all;
    src/core/reuse.c asserts the same offsets at compile time and the
    Python tests check these."""

    _fields_ = [
        ("flags", ctypes.c_uint),
        ("tune_runs", ctypes.c_int),
        ("expected_calls", ctypes.c_int64),
    ]


class Error(ctypes.Structure):
    """smv_error: the detailed error the host (CPU) functions fill."""

    _fields_ = [
        ("status", ctypes.c_int),
        ("line", ctypes.c_long),
        ("file", ctypes.c_char * 256),
        ("message", ctypes.c_char * 512),  # SMV_ERROR_TEXT
    ]


# smv_solve.h: smv_precond and smv_method.
SMV_PRECOND_NONE = 0
SMV_PRECOND_JACOBI = 1
SMV_PRECOND_CHEBYSHEV = 2
SMV_METHOD_CG = 0
SMV_METHOD_BICGSTAB = 1
SMV_METHOD_PAGERANK = 2


class SolveOptions(ctypes.Structure):
    """smv_solve_options, field for field (include/smv_solve.h); fill it
    with solve_options_init before setting fields. The progress callback
    is a plain pointer left NULL (no Python callback crosses into C)."""

    _fields_ = [
        ("tol", ctypes.c_double),
        ("maxit", ctypes.c_int),
        ("precond", ctypes.c_int),  # smv_precond
        ("use_x0", ctypes.c_int),
        ("history", c_double_p),
        ("history_len", ctypes.c_int),
        ("progress", ctypes.c_void_p),  # smv_solve_progress_fn
        ("progress_user", ctypes.c_void_p),
        ("progress_every", ctypes.c_int),
        ("alg", ctypes.c_int),  # smv_alg
        ("check_every", ctypes.c_int),
        ("use_graph", ctypes.c_int),
        ("persistent", ctypes.c_int),
        ("cheb_degree", ctypes.c_int),
        ("damping", ctypes.c_double),
        ("personalization", c_double_p),
    ]


class SolveResult(ctypes.Structure):
    """smv_solve_result, field for field (include/smv_solve.h)."""

    _fields_ = [
        ("iterations", ctypes.c_int),
        ("relres", ctypes.c_double),
        ("converged", ctypes.c_int),
        ("breakdown", ctypes.c_int),
        ("history_count", ctypes.c_int),
        ("graph_used", ctypes.c_int),
        ("checks", ctypes.c_int),
        ("persistent", ctypes.c_int),
        ("precision_limited", ctypes.c_int),
        ("seconds", ctypes.c_double),
    ]


class SmvError(RuntimeError):
    """An smv call failed: `status` is the smv_status code, `name` its
    name (e.g. SMV_ERR_DIM), the message smv's own text."""

    def __init__(self, status, message):
        self.status = status
        self.name = _status_name(status)
        super().__init__(message)


_here = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("SMV_LIB")
    if env:
        return [env]
    out = [os.path.join(_here, "libsmv_cuda.so"),
           os.path.join(_here, "libsmv.so")]
    root = os.path.dirname(os.path.dirname(_here))
    for b in ("build", "build-cpu"):
        out.append(os.path.join(root, b, "libsmv.so"))
    found = ctypes.util.find_library("smv")
    out.append(found or "libsmv.so.0")
    return out


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError(
        "smv: cannot load libsmv.so; build it with `make` (or set SMV_LIB "
        "to its path). Tried: " + "; ".join(tried)
    )


# Shared cores (issue 25 item 15): libgomp reads OMP_WAIT_POLICY once, when
# it is loaded (with libsmv, below); its default keeps a waiting thread
# spinning, which on cores shared with other work stalls every parallel
# region of the CPU solvers and products. Passive waits unless the user
# chose a policy, as the CLI does. (A process that loaded libgomp before
# importing smv keeps the policy it started with.)
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
lib, path = _load()

P = ctypes.c_void_p
I64 = ctypes.c_int64
D = ctypes.c_double
I = ctypes.c_int
CSR_P = ctypes.POINTER(Csr)


def _declare(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


status_string = _declare("smv_status_string", ctypes.c_char_p, I)
version = _declare("smv_version", ctypes.c_char_p)
context_create = _declare("smv_context_create", I, I, ctypes.POINTER(P))
context_free = _declare("smv_context_free", None, P)
context_error = _declare("smv_context_error", ctypes.c_char_p, P)
matrix_create = _declare("smv_matrix_create", I, P, CSR_P, I, ctypes.POINTER(P))
matrix_free = _declare("smv_matrix_free", None, P)
MOPT_P = ctypes.POINTER(MatrixOptions)
matrix_create_ex = _declare("smv_matrix_create_ex", I, P, CSR_P, I, MOPT_P,
                            ctypes.POINTER(P))
matrix_reuse_threshold = _declare("smv_matrix_reuse_threshold", I64, I)
matrix_reuse_declared = _declare("smv_matrix_reuse_declared", I, MOPT_P)
matrix_prepare_transpose = _declare("smv_matrix_prepare_transpose", I, P, P)
spmv_host = _declare("smv_spmv_host_vectors", I, P, I, D, P, c_double_p, D,
                     c_double_p)
context_set_stream = _declare("smv_context_set_stream", I, P, P)
spmv = _declare("smv_spmv", I, P, I, D, P, P, D, P)
spmv_t = _declare("smv_spmv_t", I, P, I, D, P, P, D, P)
spmm = _declare("smv_spmm", I, P, I, D, P, P, I64, D, P, I64, I, I)
matrix_create_device = _declare(
    "smv_matrix_create_device", I, P, I64, I64, I64, P, P, P, I, I, MOPT_P,
    ctypes.POINTER(P))
synchronize = _declare("smv_synchronize", I, P)
spmv_t_host = _declare("smv_spmv_t_host", I, P, I, D, P, c_double_p, D, c_double_p)
spmm_host = _declare(
    "smv_spmm_host", I, P, I, D, P, c_double_p, I64, D, c_double_p, I64, I, I
)
spmv_cpu = _declare("smv_spmv_cpu", I, CSR_P, D, c_double_p, D, c_double_p)
spmv_cpu_f32 = _declare(
    "smv_spmv_cpu_f32", I, CSR_P, ctypes.c_float, c_float_p, ctypes.c_float,
    c_float_p
)
spmv_cpu_t = _declare("smv_spmv_cpu_t", I, CSR_P, D, c_double_p, D, c_double_p)
spmv_f32v_bound = _declare("smv_spmv_f32v_bound", I, CSR_P, D, c_double_p, D,
                           c_double_p, c_double_p)
csr_check_f32_range = _declare("smv_csr_check_f32_range", I, CSR_P,
                               ctypes.POINTER(Error))
alg_runs_precision = _declare("smv_alg_runs_precision", I, I, I)
csr_transpose = _declare("smv_csr_transpose", I, CSR_P, ctypes.POINTER(CSR_P))
csr_free = _declare("smv_csr_free", None, CSR_P)
csr_check = _declare("smv_csr_check", I, CSR_P, P)
spmm_cpu = _declare(
    "smv_spmm_cpu", I, CSR_P, D, c_double_p, I64, D, c_double_p, I64, I, I
)


alg_name = _declare("smv_alg_name", ctypes.c_char_p, I)
spmm_alg_name = _declare("smv_spmm_alg_name", ctypes.c_char_p, I)

# Solvers (include/smv_solve.h).
ERR_P = ctypes.POINTER(Error)
OPT_P = ctypes.POINTER(SolveOptions)
RES_P = ctypes.POINTER(SolveResult)
solve_options_init = _declare("smv_solve_options_init", None, OPT_P)
cg = _declare("smv_cg", I, CSR_P, c_double_p, c_double_p, OPT_P, RES_P, ERR_P)
cg_f32 = _declare("smv_cg_f32", I, CSR_P, c_float_p, c_float_p, OPT_P, RES_P,
                  ERR_P)
bicgstab = _declare("smv_bicgstab", I, CSR_P, c_double_p, c_double_p, OPT_P,
                    RES_P, ERR_P)
bicgstab_f32 = _declare("smv_bicgstab_f32", I, CSR_P, c_float_p, c_float_p,
                        OPT_P, RES_P, ERR_P)
pagerank = _declare("smv_pagerank", I, CSR_P, c_double_p, OPT_P, RES_P, ERR_P)
pagerank_f32 = _declare("smv_pagerank_f32", I, CSR_P, c_float_p, OPT_P, RES_P,
                        ERR_P)
cg_cuda = _declare("smv_cg_cuda", I, P, P, P, P, OPT_P, RES_P)
bicgstab_cuda = _declare("smv_bicgstab_cuda", I, P, P, P, P, OPT_P, RES_P)
solve_cuda_host = _declare("smv_solve_cuda_host", I, P, P, I, c_double_p,
                           c_double_p, OPT_P, RES_P)
pagerank_cuda = _declare("smv_pagerank_cuda", I, P, CSR_P, I, c_double_p,
                         OPT_P, RES_P)


def names(fn):
    """{name: number} of an enum whose names come from fn(i) (e.g.
    smv_alg_name), for i = 0, 1, ... until fn answers NULL."""
    out = {}
    while True:
        s = fn(len(out))
        if not s:
            return out
        out[s.decode()] = len(out)


# SpMV algorithms (smv_alg, the registry src/core/rungs.def) and SpMM
# algorithms (smv_spmm_alg) by name, as the library names them.
SPMV_ALGS = names(alg_name)
SPMM_ALGS = names(spmm_alg_name)

_alg_parse = _declare("smv_alg_parse", I, ctypes.c_char_p, ctypes.POINTER(I))
_spmm_alg_parse = _declare("smv_spmm_alg_parse", I, ctypes.c_char_p,
                           ctypes.POINTER(I))


def parse_alg(name, spmm=False):
    """The number of an SpMV (or SpMM) algorithm name as the library reads
    it (smv_alg_parse / smv_spmm_alg_parse: the names above, kernel names
    and documented former names such as rung 10's 'stream'), or None."""
    if not isinstance(name, str):
        return None
    v = I()
    fn = _spmm_alg_parse if spmm else _alg_parse
    return v.value if fn(name.encode(), ctypes.byref(v)) == SMV_OK else None


def _status_name(status):
    s = status_string(status)
    return s.decode().split(":")[0] if s else "SMV_ERR_%d" % status


_CREATE = object()  # check(..., ctx=CREATE): the context creation's error


def check(status, what, ctx=None, err=None):
    """Raise SmvError for a failed call; the message names the call, the
    status and smv's detailed error text: from the context for device calls
    (or CREATE for smv_context_create, whose reason smv keeps apart), from
    the smv_error `err` for host calls that fill one."""
    if status == SMV_OK:
        return
    text = status_string(status)
    text = text.decode() if text else "status %d" % status
    detail = ""
    if ctx:
        d = context_error(None if ctx is _CREATE else ctx)
        detail = d.decode(errors="replace") if d else ""
    elif err is not None:
        detail = err.message.decode(errors="replace")
    msg = "%s: %s" % (what, text)
    if detail:
        msg += ": " + detail
    raise SmvError(status, msg)


CREATE = _CREATE
