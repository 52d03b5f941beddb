# smv — plain Makefile. `make help` lists the targets and the variables.
#
# Layout and layers (mk/layers.mk): the library is src/<concern>/ (core, io,
# gen, cpu, spmm, solve, occupancy, order, dist, cuda/engine, cuda/rungs,
# cuda/solve, cuda/spmm, cuda/dist, nocuda); each folder is compiled with
# only the include paths it may use, so a header included across a layer
# boundary fails to build. The lab (lab/) sees the public headers and its
# own; the CLI (cli/) sees the lab's too.
#
# Configuration (mk/config.mk): CUDA, SAN, SM, MPI, NCCL and the compilers
# and flags are written to BUILD/config.stamp, which every object depends
# on: changing any of them rebuilds what it affects, no `make clean`.

SM ?= 90
SAN ?= 0
PREFIX ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || (test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc))
ifeq ($(origin CUDA),undefined)
  CUDA := $(if $(NVCC),1,0)
endif

# Each CUDA/SAN configuration gets its own build folder by default.
SUFFIX := $(if $(filter 0,$(CUDA)),-cpu,)$(if $(filter 1,$(SAN)),-san,)
BUILD ?= build$(SUFFIX)

CC ?= gcc
ifeq ($(CC),cc)
  CC := gcc
endif
CSTD := -std=c11
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT := -O2
ifeq ($(SAN),1)
  OPT := -O1 -g -fno-omit-frame-pointer
  SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif
CPPFLAGS += -Iinclude -D_POSIX_C_SOURCE=200809L
CFLAGS += $(CSTD) $(WARN) $(OPT) -fPIC -fopenmp $(SANFLAGS)
LDLIBS := -lz -lm
LDFLAGS += -fopenmp $(SANFLAGS)

NVCCFLAGS ?= -O3 -std=c++17 -arch=sm_$(SM) -lineinfo -Xcompiler -Wall,-Wextra,-fPIC
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcusparse -lcudart -lstdc++ -ldl -lpthread -lrt

include mk/layers.mk

# The lab (lab/): verification, records, timing, plots; on top of libsmv.
LAB_SRC := $(sort $(wildcard lab/*.c))
LAB_CU_SRC := $(sort $(wildcard lab/cuda/*.cu))
LAB_STUB_SRC := $(sort $(wildcard lab/nocuda/*.c))
CLI_SRC := $(sort $(filter-out cli/cmd_dist.c,$(wildcard cli/*.c)))
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_CXX := $(sort $(wildcard tests/cxx_*.cpp))
MICRO_SRC := $(sort $(wildcard micro/*.cu))
EXAMPLE_SRC := $(sort $(wildcard examples/*.c))

HOST_OBJ := $(HOST_SRC:%.c=$(BUILD)/obj/%.o)
ifeq ($(CUDA),1)
  ENGINE_OBJ := $(CU_SRC:%.cu=$(BUILD)/obj/%.o)
  LAB_ENGINE_OBJ := $(LAB_CU_SRC:%.cu=$(BUILD)/obj/%.o)
  LDLIBS += $(CUDA_LIBS)
  CPPFLAGS += -DSMV_HAVE_CUDA=1
  # Device tests (graph capture) call the CUDA runtime themselves.
  TEST_CPPFLAGS := -isystem $(CUDA_HOME)/include
else
  ENGINE_OBJ := $(STUB_SRC:%.c=$(BUILD)/obj/%.o)
  LAB_ENGINE_OBJ := $(LAB_STUB_SRC:%.c=$(BUILD)/obj/%.o)
endif
LIB_OBJ := $(HOST_OBJ) $(ENGINE_OBJ)
LAB_OBJ := $(LAB_SRC:%.c=$(BUILD)/obj/%.o) $(LAB_ENGINE_OBJ)
# What programs of the lab and the CLI link: the lab first, then the library.
LAB_LIBS := $(BUILD)/libsmvlab.a $(BUILD)/libsmv.a
include mk/dist.mk
include mk/config.mk
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%) $(TEST_CXX:tests/%.cpp=$(BUILD)/tests/%)
MICRO_BIN := $(MICRO_SRC:micro/%.cu=$(BUILD)/micro/%)
EXAMPLE_BIN := $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)

GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)

.PHONY: all lib cli run test tests micro experiments solver-bench fuzz format format-check install uninstall clean help
all: $(BUILD)/libsmv.a $(BUILD)/libsmv.so $(BUILD)/libsmvlab.a $(BUILD)/smv

lib: $(BUILD)/libsmv.a $(BUILD)/libsmv.so $(BUILD)/libsmvlab.a
cli: $(BUILD)/smv

# The library: each folder's include paths from mk/layers.mk.
$(BUILD)/obj/src/%.o: src/%.c $(CONFIG_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(call layer_inc,$<) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/src/cuda/%.o: src/cuda/%.cu $(CONFIG_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude $(call layer_inc,$<) -MMD -MP -c $< -o $@

# Layers above the library: lab/ sees the public headers and its own; cli/
# sees the lab's too. Nothing in lab/ includes cli/.
$(BUILD)/obj/lab/%.o: lab/%.c $(CONFIG_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ilab $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/lab/cuda/%.o: lab/cuda/%.cu $(CONFIG_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude -Ilab -MMD -MP -c $< -o $@

$(BUILD)/obj/cli/%.o: cli/%.c $(CONFIG_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ilab $(CFLAGS) -MMD -MP -c $< -o $@

# The commit is baked into the one object that reports it. The stamp file
# changes only when the commit does, so an unchanged tree rebuilds nothing.
$(BUILD)/obj/src/core/version.o: CPPFLAGS += -DSMV_GIT_COMMIT='"$(GIT_COMMIT)"'
$(BUILD)/obj/src/core/version.o: $(BUILD)/commit.stamp
$(BUILD)/commit.stamp: .FORCE
	@mkdir -p $(@D)
	@echo '$(GIT_COMMIT)' | cmp -s - $@ || echo '$(GIT_COMMIT)' >$@
.PHONY: .FORCE
.FORCE:

$(BUILD)/libsmv.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# The shared library (for the Python package and dynamic linking): the same
# objects, all position-independent; libsmv.so.0 (the soname) links to it.
SONAME := libsmv.so.0
$(BUILD)/libsmv.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) $^ $(LDLIBS) -o $@
	ln -sf libsmv.so $(BUILD)/$(SONAME)

$(BUILD)/libsmvlab.a: $(LAB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/smv: $(CLI_OBJ) $(LAB_LIBS) $(DIST_LIB)
	$(CLI_LD) $(LDFLAGS) $(CLI_OBJ) $(DIST_LIB) $(LAB_LIBS) $(DIST_LDLIBS) $(LDLIBS) -o $@

# Tests link both libraries and see the public headers, the lab's and
# tests/; the Matrix Market tests also check the reader's private number
# parser (src/io/mm_internal.h), test_pack rung 13's packed CSR
# (src/pack/pack.h), test_reuse the options check (src/core/internal.h).
$(BUILD)/tests/test_mm_%: TEST_PRIV := $(call layer_paths,io)
$(BUILD)/tests/test_pack: TEST_PRIV := $(call layer_paths,pack)
$(BUILD)/tests/test_reuse: TEST_PRIV := $(call layer_paths,core)
$(BUILD)/tests/%: tests/%.c tests/test.h $(LAB_LIBS) $(CONFIG_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TEST_PRIV) $(TEST_CPPFLAGS) $(CFLAGS) -MMD -MP -Itests -Ilab $< $(LAB_LIBS) $(LDFLAGS) $(LDLIBS) -o $@

# C++ test programs (e.g. the check against the toolkit's cuda_occupancy.h):
# built with g++, no GPU needed; CUDA_HOME/include must exist for that one.
$(BUILD)/tests/cxx_%: tests/cxx_%.cpp tests/test.h $(LAB_LIBS) $(CONFIG_STAMP)
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -O2 -Wall -Wextra $(SANFLAGS) -Iinclude -Itests -isystem $(CUDA_HOME)/include $< $(LAB_LIBS) $(LDFLAGS) $(LDLIBS) -o $@

RUN_MATRIX ?= lap3d:100
run: all
	$(BUILD)/smv bench $(RUN_MATRIX)

# The README's C example, built as a user would (only the public header).
$(BUILD)/examples/%: examples/%.c include/smv.h $(BUILD)/libsmv.a
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(OPT) $(SANFLAGS) -Iinclude $< $(BUILD)/libsmv.a $(LDFLAGS) $(LDLIBS) -o $@

tests: $(TEST_BIN) $(EXAMPLE_BIN) $(BUILD)/smv $(BUILD)/libsmv.so $(DIST_TEST_BIN)

test: tests
	@SMV_BUILD=$(BUILD) sh tests/run.sh $(BUILD)

# Microbenchmarks: one self-contained .cu each (micro/common.h shared helpers).
# (They use only libsmv's host functions: version, occupancy, smv_lab.h's
# declarations of the latter.)
micro: $(MICRO_BIN)
$(BUILD)/micro/%: micro/%.cu $(wildcard micro/*.h) $(BUILD)/libsmv.a
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude -Imicro $< $(BUILD)/libsmv.a -Xcompiler -fopenmp -lz -o $@

# Experiments behind kernel decisions (bench/experiments/*.cu): built
# against libsmv like the micros, run by hand on a GPU.
EXPERIMENT_SRC := $(sort $(wildcard bench/experiments/*.cu))
EXPERIMENT_BIN := $(EXPERIMENT_SRC:bench/experiments/%.cu=$(BUILD)/experiments/%)
experiments: $(EXPERIMENT_BIN)
$(BUILD)/experiments/%: bench/experiments/%.cu $(BUILD)/libsmv.a
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude $< $(BUILD)/libsmv.a -Xcompiler -fopenmp \
	  -L$(CUDA_HOME)/lib64 -Xlinker -rpath=$(CUDA_HOME)/lib64 -lcusparse -lz -lm -o $@

# The solver benchmark's programs (scripts/solvers/, run by
# scripts/gpu/solvers.sh on a GPU): smv's solver, the cuSPARSE + cuBLAS CG
# of NVIDIA's sample with host scalars, and the same loop captured in a
# CUDA graph (the fair anchor). Built here so CI compiles them.
SOLVER_BENCH_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
  -lcusparse -lcublas -lcudart -lstdc++ -ldl -lpthread -lrt -lz -lm
SOLVER_BENCH_BIN := $(BUILD)/cg_cusparse $(BUILD)/cg_graph $(BUILD)/solve_smv \
  $(BUILD)/cg_count
solver-bench: $(SOLVER_BENCH_BIN)
$(BUILD)/cg_cusparse: scripts/solvers/cg_cusparse.c scripts/solvers/cusparse_common.h scripts/solvers/timing.h $(BUILD)/libsmv.a
	$(CC) -O2 -std=c11 -fopenmp -Iinclude -isystem $(CUDA_HOME)/include $< \
	  $(BUILD)/libsmv.a $(SOLVER_BENCH_LIBS) -o $@
$(BUILD)/cg_graph: scripts/solvers/cg_graph.cu scripts/solvers/cusparse_common.h scripts/solvers/timing.h $(BUILD)/libsmv.a
	$(NVCC) -O2 -std=c++17 -arch=sm_$(SM) -Iinclude $< $(BUILD)/libsmv.a \
	  -L$(CUDA_HOME)/lib64 -lcusparse -lcublas -Xcompiler -fopenmp -lz -o $@
$(BUILD)/solve_smv: scripts/solvers/solve_smv.c scripts/solvers/timing.h $(BUILD)/libsmv.a
	$(CC) -O2 -std=c11 -fopenmp -Iinclude $< $(BUILD)/libsmv.a \
	  $(SOLVER_BENCH_LIBS) -o $@
# CG's iteration count under several summation orders (CPU only).
$(BUILD)/cg_count: scripts/solvers/cg_count.c $(BUILD)/libsmv.a
	$(CC) -O2 -std=c11 -Wall -Wextra -fopenmp -Iinclude $< $(BUILD)/libsmv.a \
	  $(LDLIBS) -o $@

include mk/fuzz.mk

# The include flags library folder LAYER (e.g. io, cuda/rungs) is compiled
# with (tests/cli/test_layers.sh checks that crossings fail to build).
.PHONY: layer-flags
layer-flags:
	@echo -Iinclude $(call layer_paths,$(LAYER))

FORMAT_FILES = $(shell git ls-files '*.c' '*.h' '*.cu' '*.cpp' 2>/dev/null)
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)

include mk/install.mk

clean:
	rm -rf build build-cpu build-san build-cpu-san build-fuzz

help:
	@echo 'Targets:'
	@echo '  make                  build/libsmv.a, libsmv.so, libsmvlab.a and the CLI build/smv'
	@echo '  make run              the main job: smv bench RUN_MATRIX (default lap3d:100; GPU if there)'
	@echo '  make test             build and run every test; last line "N passed, N failed, N skipped"'
	@echo '  make micro            the memory-hierarchy microbenchmarks (BUILD/micro/NAME)'
	@echo '  make experiments      bench/experiments/*.cu (run by hand on a GPU)'
	@echo '  make solver-bench     scripts/solvers/ programs (run by scripts/gpu/solvers.sh)'
	@echo '  make fuzz | fuzz-csr | fuzz-gen   libFuzzer targets (FUZZ_TIME seconds)'
	@echo '  make format | format-check        clang-format'
	@echo '  make install [PREFIX=/usr/local]  headers, libraries, smv, pkg-config and CMake files'
	@echo '  make uninstall [PREFIX=/usr/local]  removes what install wrote'
	@echo '  make dist-info | dist-model       the distributed layer (mk/dist.mk)'
	@echo '  make clean'
	@echo 'Variables (current value):'
	@echo '  CUDA=$(CUDA)   1 builds the CUDA engine (default: 1 when nvcc is found), 0 CPU-only'
	@echo '  SM=$(SM)       GPU architecture for nvcc -arch=sm_SM'
	@echo '  SAN=$(SAN)     1: host code with address + undefined-behaviour sanitizers'
	@echo '  MPI=$(MPI)     1 builds the distributed layer with mpicc (default: 1 when mpicc is found)'
	@echo '  NCCL=$(NCCL)  auto|0|1 (with MPI and CUDA; NCCL_HOME: a folder with include/nccl.h)'
	@echo '  BUILD=$(BUILD)  build folder (default build, build-cpu, build-san, build-cpu-san)'
	@echo '  PREFIX=$(PREFIX)  install prefix'
	@echo '  CC=$(CC) NVCC=$(NVCC) CUDA_HOME=$(CUDA_HOME) MPICC=$(MPICC) MPIRUN=$(MPIRUN)'
	@echo '  RUN_MATRIX=$(RUN_MATRIX)  FUZZ_TIME=$(FUZZ_TIME)'

# Header dependencies of objects and test programs.
-include $(shell find $(BUILD)/obj $(BUILD)/tests $(BUILD)/mpitests -name '*.d' 2>/dev/null)
