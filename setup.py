"""Builds libsmv into the package (pyproject.toml has the metadata).

Two libraries go into site-packages/smv/:
  libsmv.so       the CPU-only build (make CUDA=0): needs no CUDA library,
                  so `import smv` works on any machine;
  libsmv_cuda.so  the CUDA build (make, sm_$SM), when nvcc is found or
                  SMV_PIP_CUDA=1 (SMV_PIP_CUDA=0: never). smv/_lib.py
                  loads it first and falls back to libsmv.so when it cannot
                  be loaded (no libcudart/libcusparse there).
SMV_JOBS sets make's -j (default 2); SM the GPU architecture (default 90).
"""

import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(HERE, "include", "smv.h")) as f:
        return re.search(r'#define SMV_VERSION_STRING "([^"]+)"',
                         f.read()).group(1)


def want_cuda():
    v = os.environ.get("SMV_PIP_CUDA", "auto")
    if v in ("0", "1"):
        return v == "1"
    cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    return bool(shutil.which("nvcc") or
                os.access(os.path.join(cuda_home, "bin", "nvcc"), os.X_OK))


def make(*args):
    jobs = os.environ.get("SMV_JOBS", "2")
    cmd = ["make", "-j" + jobs] + list(args)
    print("smv setup.py:", " ".join(cmd), flush=True)
    subprocess.check_call(cmd, cwd=HERE)


class BuildWithLib(build_py):
    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "smv")
        os.makedirs(dest, exist_ok=True)
        make("CUDA=0", "build-cpu/libsmv.so")
        shutil.copyfile(os.path.join(HERE, "build-cpu", "libsmv.so"),
                        os.path.join(dest, "libsmv.so"))
        if want_cuda():
            sm = os.environ.get("SM", "90")
            make("CUDA=1", "SM=" + sm, "build/libsmv.so")
            shutil.copyfile(os.path.join(HERE, "build", "libsmv.so"),
                            os.path.join(dest, "libsmv_cuda.so"))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # the wheel holds native code
        return True


os.makedirs(os.path.join(HERE, "build-python"), exist_ok=True)
setup(version=version(), cmdclass={"build_py": BuildWithLib},
      distclass=BinaryDistribution,
      options={"build": {"build_base": "build-python"},
               "egg_info": {"egg_base": "build-python"}})
