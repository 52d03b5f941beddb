# mk/layers.mk — the library's folders (src/<concern>/) and what each may
# include, included by the Makefile.
#
# Every folder is compiled with -Iinclude (the public headers), its own
# folder and the folders it USES below, nothing else: a private header of
# another concern is not on the path, so including it fails to build.
# Relative includes ("../x.h") would walk around this; tests/ci/layers.sh
# refuses them. One direction only: core is the leaf; the CUDA rungs see
# the engine, the engine never sees the rungs (it reaches them through the
# registry, src/core/rungs.def).

LIB_DIRS := core io gen cpu spmm solve occupancy order pack
CU_DIRS := cuda/engine cuda/rungs cuda/solve cuda/spmm

USES_core :=
USES_io := core
USES_gen := core
USES_cpu := core
USES_spmm := core
USES_solve := core
USES_occupancy := core
USES_order := core
USES_pack := core
USES_dist := core
USES_nocuda := core
USES_cuda/engine := core
USES_cuda/rungs := core cuda/engine pack
USES_cuda/solve := core solve cuda/engine
USES_cuda/spmm := core cuda/engine
USES_cuda/dist := dist

HOST_SRC := $(sort $(foreach d,$(LIB_DIRS),$(wildcard src/$d/*.c)))
CU_SRC := $(sort $(foreach d,$(CU_DIRS),$(wildcard src/$d/*.cu)))
STUB_SRC := $(sort $(wildcard src/nocuda/*.c))

# -I flags of folder $(1) (e.g. io, cuda/rungs): itself and what it uses.
layer_paths = $(addprefix -Isrc/,$(1) $(USES_$(1)))
# ... of the folder a source file $(1) (src/<folder>/file) lives in.
layer_inc = $(call layer_paths,$(patsubst src/%/,%,$(dir $(1))))

# A new folder must say what it uses before anything in it builds.
LAYER_FOLDERS := $(patsubst src/%/,%,$(sort $(dir $(wildcard src/*/*.c src/*/*.cu src/cuda/*/*.cu))))
$(foreach d,$(LAYER_FOLDERS),$(if $(filter undefined,$(origin USES_$(d))),\
  $(error mk/layers.mk: src/$(d)/ has no USES_$(d) line)))
