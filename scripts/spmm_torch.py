#!/usr/bin/env python3
"""spmm_torch.py — time torch.sparse.mm (CSR) on the matrices `smv bench-spmm
--dump DIR` wrote, for the same k, layouts and precisions, so the SpMM summary
can put torch beside smv and cuSPARSE (issue 22). Run on the GPU machine by
scripts/gpu/spmm.sh; without torch or CUDA it says so and exits 0.

  scripts/spmm_torch.py --dump DIR --k 1,4,32,128 --prec both --layout both \
      --runs 30 --csv OUT.csv

Each case: X random in [-1, 1) on the device (row-major: contiguous cols x k;
col-major: the transpose of a contiguous k x cols, i.e. Fortran order), one
torch.sparse.mm checked against a float64 numpy product on column 0 (bound:
(row length + 2) eps times sum |a||x| per row, the usual summation bound), then `runs` calls timed by CUDA events after
3 warm-ups, median in microseconds. CSV: matrix,prec,order,k,alg,verify,warm_us.
"""
import argparse
import csv
import os
import sys

import numpy as np


def load(path):
    with open(path, "rb") as f:
        rows, cols, nnz = np.frombuffer(f.read(24), dtype=np.int64)
        rp = np.frombuffer(f.read(4 * (rows + 1)), dtype=np.int32)
        ci = np.frombuffer(f.read(4 * nnz), dtype=np.int32)
        va = np.frombuffer(f.read(8 * nnz), dtype=np.float64)
    return int(rows), int(cols), rp, ci, va


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--k", default="1,4,32,128")
    ap.add_argument("--prec", default="both", choices=["f32", "f64", "both"])
    ap.add_argument("--layout", default="both", choices=["row", "col", "both"])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--csv", required=True)
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("spmm_torch: torch is not installed: skipped")
        return 0
    if not torch.cuda.is_available():
        print("spmm_torch: no CUDA device for torch: skipped")
        return 0
    ks = [int(k) for k in a.k.split(",")]
    precs = ["f32", "f64"] if a.prec == "both" else [a.prec]
    lays = ["row", "col"] if a.layout == "both" else [a.layout]
    dev = torch.device("cuda")
    print("spmm_torch: torch %s on %s" % (torch.__version__,
                                          torch.cuda.get_device_name(0)))
    out = open(a.csv, "w", newline="")
    w = csv.writer(out)  # quotes names with commas ("rmat:20:16,perm=rand")
    w.writerow(["matrix", "prec", "order", "k", "alg", "verify", "warm_us"])
    files = sorted(f for f in os.listdir(a.dump) if f.endswith(".csr"))
    for fn in files:
        name = fn[:-4]
        rows, cols, rp, ci, va = load(os.path.join(a.dump, fn))
        lens = np.diff(rp).astype(np.float64)
        row_of = np.repeat(np.arange(rows), np.diff(rp))
        for prec in precs:
            dt = torch.float32 if prec == "f32" else torch.float64
            eps = np.finfo(np.float32 if prec == "f32" else np.float64).eps
            A = torch.sparse_csr_tensor(
                torch.from_numpy(rp.astype(np.int64)).to(dev),
                torch.from_numpy(ci.astype(np.int64)).to(dev),
                torch.from_numpy(va.copy()).to(dev, dt), size=(rows, cols))
            # The values as torch holds them, for the reference.
            vh = A.values().double().cpu().numpy()
            for k in ks:
                if rows * k > (1 << 29) or cols * k > (1 << 29):
                    continue
                for lay in lays:
                    g = torch.Generator(device=dev).manual_seed(k)
                    if lay == "row":
                        X = torch.rand((cols, k), generator=g, device=dev,
                                       dtype=dt) * 2 - 1
                    else:
                        X = (torch.rand((k, cols), generator=g, device=dev,
                                        dtype=dt) * 2 - 1).t()
                    verdict = "PASS"
                    try:
                        Y = torch.sparse.mm(A, X)
                        torch.cuda.synchronize()
                    except RuntimeError as e:
                        print("  %s %s %s k=%d: %s" % (name, prec, lay, k,
                                                       str(e)[:200]))
                        w.writerow([name, prec, lay, k, "torch", "ERROR",
                                    "nan"])
                        continue
                    x0 = X[:, 0].double().cpu().numpy()
                    y0 = Y[:, 0].double().cpu().numpy()
                    ref = np.bincount(row_of, weights=vh * x0[ci],
                                      minlength=rows)
                    bound = np.bincount(row_of, weights=np.abs(vh * x0[ci]),
                                        minlength=rows)
                    bad = np.abs(y0 - ref) > (lens + 2) * eps * bound + 1e-300
                    if bad.any():
                        i = int(np.argmax(bad))
                        print("  %s %s %s k=%d: torch row %d got %r want %r" %
                              (name, prec, lay, k, i, y0[i], ref[i]))
                        verdict = "FAIL"
                    ts = []
                    if verdict == "PASS":
                        for _ in range(3):
                            torch.sparse.mm(A, X)
                        e0 = torch.cuda.Event(enable_timing=True)
                        e1 = torch.cuda.Event(enable_timing=True)
                        for _ in range(a.runs):
                            e0.record()
                            torch.sparse.mm(A, X)
                            e1.record()
                            e1.synchronize()
                            ts.append(e0.elapsed_time(e1) * 1000.0)
                    us = float(np.median(ts)) if ts else float("nan")
                    w.writerow([name, prec, lay, k, "torch", verdict,
                                "%.3f" % us])
                    out.flush()
                    print("  torch %-24s %s %s k=%3d %s %10.2f us" %
                          (name, prec, lay, k, verdict, us))
                    del X, Y
            del A
            torch.cuda.empty_cache()
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
