# mk/fuzz.mk — libFuzzer targets (clang), included by the Makefile.
#   make fuzz      the Matrix Market reader
#   make fuzz-csr  the host-CSR entry points (smv_csr_check, CPU SpMVs,
#                  stats, writer; built with OpenMP)
#   make fuzz-gen  the generator grammar
# Each runs FUZZ_TIME seconds, seeded from and adding to its committed
# corpus (tests/fuzz/corpus*). The sources are compiled in one command, so
# they get every library folder's include path.
FUZZ_TIME ?= 60
FUZZ_BUILD := build-fuzz
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_CC = clang $(CSTD) $(FUZZ_FLAGS) -Iinclude $(addprefix -Isrc/,$(LIB_DIRS)) -D_POSIX_C_SOURCE=200809L
.PHONY: fuzz-csr fuzz-gen

fuzz: $(FUZZ_BUILD)/fuzz_mm
	@mkdir -p $(FUZZ_BUILD)/corpus
	$(FUZZ_BUILD)/fuzz_mm -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	  -dict=tests/fuzz/mm.dict -artifact_prefix=$(FUZZ_BUILD)/ \
	  $(FUZZ_BUILD)/corpus tests/fuzz/corpus
fuzz-csr: $(FUZZ_BUILD)/fuzz_csr
	$(FUZZ_BUILD)/fuzz_csr -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	  -max_len=65536 -artifact_prefix=$(FUZZ_BUILD)/csr- tests/fuzz/corpus-csr
fuzz-gen: $(FUZZ_BUILD)/fuzz_gen
	$(FUZZ_BUILD)/fuzz_gen -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	  -max_len=256 -dict=tests/fuzz/gen.dict -artifact_prefix=$(FUZZ_BUILD)/gen- \
	  tests/fuzz/corpus-gen

$(FUZZ_BUILD)/fuzz_mm: tests/fuzz/fuzz_mm.c $(HOST_SRC) $(STUB_SRC) include/smv.h
	@mkdir -p $(@D)
	$(FUZZ_CC) tests/fuzz/fuzz_mm.c $(HOST_SRC) $(STUB_SRC) -lz -lm -o $@
$(FUZZ_BUILD)/fuzz_csr: tests/fuzz/fuzz_csr.c $(HOST_SRC) $(STUB_SRC) include/smv.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -fopenmp tests/fuzz/fuzz_csr.c $(HOST_SRC) $(STUB_SRC) -lz -lm -o $@
$(FUZZ_BUILD)/fuzz_gen: tests/fuzz/fuzz_gen.c $(HOST_SRC) $(STUB_SRC) include/smv.h
	@mkdir -p $(@D)
	$(FUZZ_CC) tests/fuzz/fuzz_gen.c $(HOST_SRC) $(STUB_SRC) -lz -lm -o $@
