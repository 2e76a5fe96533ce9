# SPDX-License-Identifier: GPL-2.0-or-later
# GPU symbolization against CUPTI's own answers, built when CUDA is found
# (after mk/gputest.mk, whose NVCC and GPU_TEST_CFLAGS it uses):
#   tests/gpu/cupti_line   CUPTI's file:line for KERNEL+0xOFFSET of a cubin
#                          (cuptiGetSassToSourceCorrelation: no GPU needed), the
#                          oracle of tests/e2e/t_symbolize_cubin.sh
#   bench/gpusym_bench     make bench-gpusym: zt's cubin symbolizer (cold, with its
#                          symbol cache, warm) against CUPTI per PC, on 100 cubins
#                          nvcc builds from bench/gpusym_kernels.cu (kept under
#                          $(BUILD)/bench/gpusym/ for the next run)
.PHONY: bench-gpusym
ifeq ($(CUPTI_WHY),)
GPUSYM_BENCH := $(BUILD)/bench/gpusym_bench
CUPTI_LINK := -L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -lcupti

$(BUILD)/tests/gpu/cupti_line: tests/gpu/cupti_line.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(GPU_TEST_CFLAGS) -isystem $(CUPTI_INC) -o $@ $< $(CUPTI_LINK)

$(BUILD)/tests/.stamp-workloads: $(BUILD)/tests/gpu/cupti_line

$(GPUSYM_BENCH): bench/gpusym_bench.c $(LIBZT)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -isystem $(CUPTI_INC) $(ALL_LDFLAGS) -o $@ $< $(LIBZT) $(LIBS) \
		$(CUPTI_LINK)

bench-gpusym: $(GPUSYM_BENCH)
	$(Q)GPUSYM_BENCH=$(abspath $(GPUSYM_BENCH)) NVCC=$(NVCC) \
		GPUSYM_DIR=$(abspath $(BUILD))/bench/gpusym bench/gpusym.sh
else
bench-gpusym: cupti-skip
endif
