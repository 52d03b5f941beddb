# smv — plain Makefile.
#
#   make                  library build/libsmv.a, lab build/libsmvlab.a and CLI
#                         build/smv (CUDA if nvcc found)
#   make CUDA=0           CPU-only build (in build-cpu/), links and runs without nvcc
#   make SAN=1            host code with address + undefined-behaviour sanitizers
#   make run              the main job: build, then benchmark SpMV on a generated
#                         matrix (RUN_MATRIX, default lap3d:100; GPU if there, else CPU)
#   make test             build and run every test; last line "N passed, N failed, N skipped"
#   make micro            the memory-hierarchy microbenchmarks (build/micro/NAME)
#   make fuzz             libFuzzer target for the Matrix Market reader (FUZZ_TIME seconds)
#   make fuzz-csr / fuzz-gen  libFuzzer on the host-CSR entry points / generator specs
#   make format / format-check
#   make install PREFIX=/usr/local
#   (every build also makes the shared library BUILD/libsmv.so, soname
#   libsmv.so.0, which the Python package in python/smv loads)
#
# Variables: CUDA (auto), SM (90), SAN (0), BUILD (derived), NVCC, CC, PREFIX,
#            MPI (auto: 1 when mpicc is found), MPICC, MPIRUN,
#            NCCL (auto when MPI and CUDA), NCCL_HOME (a folder with include/nccl.h
#            and lib/libnccl.so*, e.g. the nvidia-nccl-cu13 wheel's nvidia/nccl).

SM ?= 90
SAN ?= 0
PREFIX ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || (test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc))
ifeq ($(origin CUDA),undefined)
  CUDA := $(if $(NVCC),1,0)
endif

# Each configuration gets its own build folder so objects never mix.
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
CPPFLAGS += -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L
CFLAGS += $(CSTD) $(WARN) $(OPT) -fPIC -fopenmp $(SANFLAGS)
LDLIBS := -lz -lm
LDFLAGS += -fopenmp $(SANFLAGS)

NVCCFLAGS ?= -O3 -std=c++17 -arch=sm_$(SM) -lineinfo -Xcompiler -Wall,-Wextra,-fPIC
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcusparse -lcudart -lstdc++ -ldl -lpthread -lrt

HOST_SRC := $(sort $(wildcard src/*.c))
CU_SRC := $(sort $(wildcard src/cuda/*.cu))
STUB_SRC := $(sort $(wildcard src/nocuda/*.c))
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
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%) $(TEST_CXX:tests/%.cpp=$(BUILD)/tests/%)
MICRO_BIN := $(MICRO_SRC:micro/%.cu=$(BUILD)/micro/%)
EXAMPLE_BIN := $(EXAMPLE_SRC:examples/%.c=$(BUILD)/examples/%)

GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)

.PHONY: all lib cli run test tests micro experiments fuzz format format-check install clean help
all: $(BUILD)/libsmv.a $(BUILD)/libsmv.so $(BUILD)/libsmvlab.a $(BUILD)/smv

lib: $(BUILD)/libsmv.a $(BUILD)/libsmv.so $(BUILD)/libsmvlab.a
cli: $(BUILD)/smv

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/src/cuda/%.o: src/cuda/%.cu include/smv.h include/smv_lab.h $(wildcard src/cuda/*.h) src/internal.h src/rungs.def include/smv_solve.h src/solve_internal.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude -Isrc -c $< -o $@

# The lab's CUDA timing code: public headers only (no engine internals).
$(BUILD)/obj/lab/cuda/%.o: lab/cuda/%.cu include/smv.h include/smv_lab.h lab/lab.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude -Ilab -c $< -o $@

# Layers: lab/ sees the library's public headers and its own; cli/ sees the
# lab's too. Nothing in lab/ includes cli/.
$(BUILD)/obj/lab/%.o: CPPFLAGS += -Ilab
$(BUILD)/obj/cli/%.o: CPPFLAGS += -Ilab

# The commit is baked into the one object that reports it. The stamp file
# changes only when the commit does, so an unchanged tree rebuilds nothing
# (forcing version.o every time re-archived the library and relinked every
# program on every make).
$(BUILD)/obj/src/version.o: CPPFLAGS += -DSMV_GIT_COMMIT='"$(GIT_COMMIT)"'
$(BUILD)/obj/src/version.o: $(BUILD)/commit.stamp
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

$(BUILD)/tests/%: tests/%.c tests/test.h $(LAB_LIBS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(CFLAGS) -MMD -MP -Itests -Ilab $< $(LAB_LIBS) $(LDFLAGS) $(LDLIBS) -o $@

# C++ test programs (e.g. the check against the toolkit's cuda_occupancy.h):
# built with g++, no GPU needed; CUDA_HOME/include must exist for that one.
$(BUILD)/tests/cxx_%: tests/cxx_%.cpp tests/test.h $(LAB_LIBS)
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
micro: $(MICRO_BIN)
# (They use only libsmv's host functions: version, occupancy, smv_lab.h's
# declarations of the latter.)
$(BUILD)/micro/%: micro/%.cu $(wildcard micro/*.h) $(BUILD)/libsmv.a
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude -Imicro $< $(BUILD)/libsmv.a -Xcompiler -fopenmp -lz -o $@

# Experiments behind kernel decisions (bench/experiments/*.cu, issue 8):
# built against libsmv like the micros, run by hand on a GPU.
EXPERIMENT_SRC := $(sort $(wildcard bench/experiments/*.cu))
EXPERIMENT_BIN := $(EXPERIMENT_SRC:bench/experiments/%.cu=$(BUILD)/experiments/%)
experiments: $(EXPERIMENT_BIN)
$(BUILD)/experiments/%: bench/experiments/%.cu $(BUILD)/libsmv.a
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude $< $(BUILD)/libsmv.a -Xcompiler -fopenmp \
	  -L$(CUDA_HOME)/lib64 -Xlinker -rpath=$(CUDA_HOME)/lib64 -lcusparse -lz -lm -o $@

# Fuzzing the Matrix Market reader with libFuzzer (clang). FUZZ_TIME in seconds.
FUZZ_TIME ?= 60
FUZZ_BUILD := build-fuzz
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
fuzz: $(FUZZ_BUILD)/fuzz_mm
	@mkdir -p $(FUZZ_BUILD)/corpus
	$(FUZZ_BUILD)/fuzz_mm -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	  -dict=tests/fuzz/mm.dict -artifact_prefix=$(FUZZ_BUILD)/ \
	  $(FUZZ_BUILD)/corpus tests/fuzz/corpus
$(FUZZ_BUILD)/fuzz_mm: tests/fuzz/fuzz_mm.c $(HOST_SRC) $(STUB_SRC) include/smv.h
	@mkdir -p $(@D)
	clang $(CSTD) $(FUZZ_FLAGS) -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L tests/fuzz/fuzz_mm.c $(HOST_SRC) $(STUB_SRC) -lz -lm -o $@

# Two more libFuzzer targets (issue 9), same FUZZ_TIME, each seeded from and
# adding to its committed corpus: the host-CSR entry points (smv_csr_check,
# the CPU SpMVs, stats, writer; built with OpenMP) and the generator grammar.
FUZZ_CC = clang $(CSTD) $(FUZZ_FLAGS) -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L
fuzz-csr: $(FUZZ_BUILD)/fuzz_csr
	$(FUZZ_BUILD)/fuzz_csr -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	  -max_len=65536 -artifact_prefix=$(FUZZ_BUILD)/csr- tests/fuzz/corpus-csr
fuzz-gen: $(FUZZ_BUILD)/fuzz_gen
	$(FUZZ_BUILD)/fuzz_gen -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	  -max_len=256 -dict=tests/fuzz/gen.dict -artifact_prefix=$(FUZZ_BUILD)/gen- \
	  tests/fuzz/corpus-gen
$(FUZZ_BUILD)/fuzz_csr: tests/fuzz/fuzz_csr.c $(HOST_SRC) $(STUB_SRC) include/smv.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -fopenmp tests/fuzz/fuzz_csr.c $(HOST_SRC) $(STUB_SRC) -lz -lm -o $@
$(FUZZ_BUILD)/fuzz_gen: tests/fuzz/fuzz_gen.c $(HOST_SRC) $(STUB_SRC) include/smv.h
	@mkdir -p $(@D)
	$(FUZZ_CC) tests/fuzz/fuzz_gen.c $(HOST_SRC) $(STUB_SRC) -lz -lm -o $@
.PHONY: fuzz-csr fuzz-gen

FORMAT_FILES = $(shell git ls-files '*.c' '*.h' '*.cu' '*.cpp' 2>/dev/null)
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)

SMV_VERSION = $(shell sed -n 's/^\#define SMV_VERSION_STRING "\(.*\)"/\1/p' include/smv.h)
install: all
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/smv.h $(DESTDIR)$(PREFIX)/include/smv.h
	install -m 644 include/smv_lab.h $(DESTDIR)$(PREFIX)/include/smv_lab.h
	install -m 644 include/smv_solve.h $(DESTDIR)$(PREFIX)/include/smv_solve.h
	install -m 644 $(BUILD)/libsmv.a $(DESTDIR)$(PREFIX)/lib/libsmv.a
	install -m 644 $(BUILD)/libsmvlab.a $(DESTDIR)$(PREFIX)/lib/libsmvlab.a
	install -m 755 $(BUILD)/libsmv.so $(DESTDIR)$(PREFIX)/lib/libsmv.so.$(SMV_VERSION)
	ln -sf libsmv.so.$(SMV_VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libsmv.so
	install -m 755 $(BUILD)/smv $(DESTDIR)$(PREFIX)/bin/smv
	if [ -d $(BUILD)/micro ]; then install -d $(DESTDIR)$(PREFIX)/libexec/smv/micro && \
	  install -m 755 $(BUILD)/micro/* $(DESTDIR)$(PREFIX)/libexec/smv/micro/; fi
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(SMV_VERSION)|' \
	  -e 's|@LIBS_PRIVATE@|-fopenmp $(LDLIBS)|' smv.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/smv.pc
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(SMV_VERSION)|' \
	  smv-lab.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/smv-lab.pc

clean:
	rm -rf build build-cpu build-san build-cpu-san build-fuzz

help:
	@sed -n '2,14p' Makefile

# Header (and included .c) dependencies of objects and test programs.
-include $(shell find $(BUILD)/obj $(BUILD)/tests $(BUILD)/mpitests -name '*.d' 2>/dev/null)
