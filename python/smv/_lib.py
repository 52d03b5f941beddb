"""Loading libsmv.so and declaring the C functions the package calls.

Where the library is looked for, in order:
  1. the path in the environment variable SMV_LIB;
  2. libsmv.so next to this package (python/smv/libsmv.so);
  3. the source tree's build folders (build/, build-cpu/ beside python/);
  4. the system's library path (libsmv.so.0, e.g. after `make install`).

Every declaration mirrors include/smv.h; adding a binding (for example a
solver) is one `_declare(...)` line here and one function in the package.
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
    out = [os.path.join(_here, "libsmv.so")]
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
matrix_prepare_transpose = _declare("smv_matrix_prepare_transpose", I, P, P)
spmv_host = _declare("smv_spmv_host", I, P, I, D, P, c_double_p, D, c_double_p)
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
csr_transpose = _declare("smv_csr_transpose", I, CSR_P, ctypes.POINTER(CSR_P))
csr_free = _declare("smv_csr_free", None, CSR_P)
csr_check = _declare("smv_csr_check", I, CSR_P, P)
spmm_cpu = _declare(
    "smv_spmm_cpu", I, CSR_P, D, c_double_p, I64, D, c_double_p, I64, I, I
)


def _status_name(status):
    s = status_string(status)
    return s.decode().split(":")[0] if s else "SMV_ERR_%d" % status


_CREATE = object()  # check(..., ctx=CREATE): the context creation's error


def check(status, what, ctx=None):
    """Raise SmvError for a failed call; the message names the call, the
    status and, with a context (or CREATE for smv_context_create, whose
    reason smv keeps apart), smv's detailed error text."""
    if status == SMV_OK:
        return
    text = status_string(status)
    text = text.decode() if text else "status %d" % status
    detail = ""
    if ctx:
        d = context_error(None if ctx is _CREATE else ctx)
        detail = d.decode(errors="replace") if d else ""
    msg = "%s: %s" % (what, text)
    if detail:
        msg += ": " + detail
    raise SmvError(status, msg)


CREATE = _CREATE
