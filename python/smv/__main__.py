"""python -m smv: the package's version, the library it loaded, and
whether a GPU is usable (with the device's name when it is)."""

import sys

import smv


def main():
    print("smv %s" % smv.__version__)
    print("library: %s" % smv.library_path)
    print("package: %s" % smv.__path__[0])
    if smv.has_cuda():
        print("gpu: usable (CUDA device 0)")
        return 0
    import ctypes

    ctx = ctypes.c_void_p()
    st = smv._lib.context_create(0, ctypes.byref(ctx))
    why = smv._lib.context_error(None)
    why = why.decode(errors="replace") if why else smv._lib._status_name(st)
    print("gpu: not usable (%s); products run on the CPU" % why)
    return 0


if __name__ == "__main__":
    sys.exit(main())
