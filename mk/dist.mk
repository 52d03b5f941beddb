# mk/dist.mk — the distributed layer (issue 11), included by the Makefile.
#
# MPI ?= auto: 1 when mpicc is on PATH (MPI=0 forces it off). With MPI:
#   build/libsmv_dist.a  src/dist/*.c (mpicc) + the GPU side (src/cuda/dist/
#                        device.cu with CUDA, src/dist/nodevice.c without)
#                        + NCCL (src/cuda/dist/nccl.cu when found, else
#                        src/dist/nonccl.c); link it before libsmv.a
#   build/smv            linked with mpicc: `mpirun -np N smv spmv|bench`
#   build/mpitests/      MPI test programs, run by tests/cli/test_dist.sh
# NCCL ?= auto (with MPI and CUDA): NCCL_HOME, else $(CUDA_HOME), else /usr;
# the first with include/nccl.h and lib{,64,/x86_64-linux-gnu}/libnccl.so[.2].
# NCCL=0 forces it off; NCCL=1 makes a missing NCCL an error.

# Included before the Makefile names its first target: keep `all` the default.
.DEFAULT_GOAL := all

MPICC ?= $(shell command -v mpicc 2>/dev/null)
MPIRUN ?= $(shell command -v mpirun 2>/dev/null)
ifeq ($(origin MPI),undefined)
  MPI := $(if $(MPICC),1,0)
endif
NCCL ?= auto
NCCL_HOME ?=

DIST_LIB :=
DIST_LDLIBS :=
DIST_TEST_BIN :=
CLI_LD := $(CC)

ifeq ($(MPI),1)
  ifeq ($(MPICC),)
    $(error MPI=1 but no mpicc found (apt-get install libopenmpi-dev openmpi-bin, or set MPICC))
  endif
  CPPFLAGS += -DSMV_HAVE_MPI=1
  DIST_C := src/dist/build.c src/dist/create.c src/dist/cuda.c src/dist/spmv.c
  NCCL_FOUND :=
  ifeq ($(CUDA),1)
    DIST_CU := src/cuda/dist/device.cu
    ifneq ($(NCCL),0)
      NCCL_FOUND := $(shell for d in $(if $(NCCL_HOME),$(NCCL_HOME),$(CUDA_HOME) /usr); do \
        for l in lib lib64 lib/x86_64-linux-gnu; do for f in libnccl.so libnccl.so.2; do \
        if [ -f $$d/include/nccl.h ] && [ -e $$d/$$l/$$f ]; then echo $$d $$d/$$l/$$f; exit 0; fi; \
        done; done; done)
    endif
  else
    DIST_C += src/dist/nodevice.c
  endif
  ifeq ($(NCCL),1)
    ifeq ($(NCCL_FOUND),)
      $(error NCCL=1 but no nccl.h + libnccl found (set NCCL_HOME))
    endif
  endif
  ifneq ($(NCCL_FOUND),)
    NCCL_DIR := $(word 1,$(NCCL_FOUND))
    NCCL_LIBFILE := $(word 2,$(NCCL_FOUND))
    DIST_CU += src/cuda/dist/nccl.cu
    DIST_LDLIBS += $(NCCL_LIBFILE) -Wl,-rpath,$(dir $(NCCL_LIBFILE))
  else
    DIST_C += src/dist/nonccl.c
  endif
  DIST_OBJ := $(DIST_C:%.c=$(BUILD)/obj/%.o) $(DIST_CU:%.cu=$(BUILD)/obj/%.o)
  DIST_LIB := $(BUILD)/libsmv_dist.a
  CLI_SRC += cli/cmd_dist.c
  CLI_LD := $(MPICC)
  DIST_TEST_SRC := $(sort $(wildcard tests/mpi_*.c))
  DIST_TEST_BIN := $(DIST_TEST_SRC:tests/%.c=$(BUILD)/mpitests/%)
endif

# mpicc wraps $(CC) with MPI's include and library flags.
$(BUILD)/obj/src/dist/%.o: src/dist/%.c $(CONFIG_STAMP)
	@mkdir -p $(@D)
	OMPI_CC=$(CC) MPICH_CC=$(CC) $(MPICC) $(CPPFLAGS) $(call layer_paths,dist) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/cli/cmd_dist.o: cli/cmd_dist.c $(CONFIG_STAMP)
	@mkdir -p $(@D)
	OMPI_CC=$(CC) MPICH_CC=$(CC) $(MPICC) $(CPPFLAGS) -Ilab $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/src/cuda/dist/%.o: src/cuda/dist/%.cu $(CONFIG_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude $(call layer_paths,cuda/dist) $(if $(NCCL_DIR),-I$(NCCL_DIR)/include) -MMD -MP -c $< -o $@

$(BUILD)/libsmv_dist.a: $(DIST_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/mpitests/%: tests/%.c tests/test.h $(DIST_LIB) $(BUILD)/libsmv.a $(CONFIG_STAMP)
	@mkdir -p $(@D)
	OMPI_CC=$(CC) MPICH_CC=$(CC) $(MPICC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -Itests $< $(DIST_LIB) $(BUILD)/libsmv.a $(LDFLAGS) $(DIST_LDLIBS) $(LDLIBS) -o $@

.PHONY: dist-info
dist-info:
	@echo "MPI=$(MPI) MPICC=$(MPICC) MPIRUN=$(MPIRUN) CUDA=$(CUDA) NCCL=$(if $(NCCL_FOUND),$(NCCL_LIBFILE),none)"

# The scaling model of bench/results/<device>/dist.md (no MPI run needed,
# but it reuses the library's partition, so it links libsmv_dist).
.PHONY: dist-model
dist-model: $(BUILD)/dist_model
$(BUILD)/dist_model: lab/model/dist_model.c $(DIST_LIB) $(BUILD)/libsmv.a
	OMPI_CC=$(CC) MPICH_CC=$(CC) $(MPICC) $(CPPFLAGS) $(CFLAGS) $< $(DIST_LIB) $(BUILD)/libsmv.a $(LDFLAGS) $(DIST_LDLIBS) $(LDLIBS) -o $@

# `make install` also installs the distributed layer when it was built:
# smv_dist.h, libsmv_dist.a and smv-dist.pc (MPI's compile and link flags as
# mpicc reports them, NCCL and, with CUDA, the CUDA runtime); CMake's
# smv::dist target (cmake/smvConfig.cmake.in) carries the same.
ifeq ($(MPI),1)
MPI_CFLAGS = $(shell $(MPICC) --showme:compile 2>/dev/null || $(MPICC) -compile-info 2>/dev/null | cut -d' ' -f2- | tr ' ' '\n' | grep -E '^-(I|pthread|D)' | tr '\n' ' ')
MPI_LIBS = $(shell $(MPICC) --showme:link 2>/dev/null || $(MPICC) -link-info 2>/dev/null | cut -d' ' -f2- | tr ' ' '\n' | grep -E '^-(L|l|Wl|pthread)' | tr '\n' ' ')
SMV_DIST_LIBS = $(MPI_LIBS) $(DIST_LDLIBS) $(if $(filter 1,$(CUDA)),$(CUDA_LIBS))
install: install-dist
uninstall: uninstall-dist
.PHONY: install-dist uninstall-dist
install-dist: $(DIST_LIB)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/smv_dist.h $(DESTDIR)$(PREFIX)/include/smv_dist.h
	install -m 644 $(DIST_LIB) $(DESTDIR)$(PREFIX)/lib/libsmv_dist.a
	$(INSTALL_SUBST) -e 's|@MPI_CFLAGS@|$(strip $(MPI_CFLAGS))|g' \
	  -e 's|@DIST_LIBS@|$(strip $(SMV_DIST_LIBS))|g' smv-dist.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/smv-dist.pc
uninstall-dist:
	rm -f $(DESTDIR)$(PREFIX)/include/smv_dist.h $(DESTDIR)$(PREFIX)/lib/libsmv_dist.a \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig/smv-dist.pc
endif

# CI compiles every .cu file. Where NCCL is missing (CI: Debian does not
# package it), nccl.cu is compiled, not linked, against tests/ci/nccl.h, a
# declarations-only stand-in of the NCCL calls it makes.
.PHONY: cu-compile-check
cu-compile-check: $(BUILD)/cucheck/nccl.o
$(BUILD)/cucheck/nccl.o: src/cuda/dist/nccl.cu src/dist/dist_device.h tests/ci/nccl.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Iinclude $(call layer_paths,cuda/dist) $(if $(NCCL_DIR),-I$(NCCL_DIR)/include,-Itests/ci) -c $< -o $@
