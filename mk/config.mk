# mk/config.mk — the build follows its configuration, included by the
# Makefile after every switch is known (mk/dist.mk decides MPI and NCCL).
#
# BUILD/config.stamp holds the switches and the tools and flags they set;
# it is rewritten only when they change, and every object, library and
# program depends on it. So `make`, then `make MPI=1` (or installing Open
# MPI and running `make` again), `SM=100`, `SAN=1 BUILD=build` or another
# CC rebuilds what the switch affects, never a mix of old and new objects.
# CUDA and SAN also pick the build folder's name (build, build-cpu, ...),
# but the stamp keeps a BUILD= given by hand honest too.

CONFIG_STAMP := $(BUILD)/config.stamp
CONFIG := CUDA=$(CUDA) SAN=$(SAN) SM=$(SM) MPI=$(MPI) NCCL=$(NCCL_FOUND) \
  CC=$(CC) CXX=$(CXX) NVCC=$(NVCC) MPICC=$(MPICC) CUDA_HOME=$(CUDA_HOME) \
  CPPFLAGS=$(CPPFLAGS) CFLAGS=$(CFLAGS) NVCCFLAGS=$(NVCCFLAGS) \
  LDFLAGS=$(LDFLAGS) LDLIBS=$(LDLIBS)

$(CONFIG_STAMP): .FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(CONFIG)' | cmp -s - $@ || printf '%s\n' '$(CONFIG)' >$@
