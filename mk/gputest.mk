# SPDX-License-Identifier: GPL-2.0-or-later
# What the GPU tests run, under $(BUILD)/tests/gpu/, built when CUDA is
# found (mk/cupti.mk decides, and says what it skipped when it is not):
#   kernels.cubin         nvcc -cubin -lineinfo of tests/gpu/kernels.cu (a real cubin)
#   kernels-nolines.cubin the same without -lineinfo (names only)
#   cubins/               the cubin symbolizer's fixtures (tests/unit/test_cubin.c,
#                         tests/e2e/t_cubin.sh): symtest.cu -lineinfo for sm_75 (REL),
#                         sm_90 and sm_100 (RELA), the same without -lineinfo and with
#                         -G (full device debug info), and rdc_a.cu + rdc_b.cu built
#                         -rdc=true and device-linked by nvlink
#   cubin_cmp             zt's cubin symbolizer against CUPTI's cuptiGetSassToSourceCorrelation
#   cubin_crc             prints a cubin's CRC with the real libcupti (works without a GPU)
#   cuda_app              a driver-API CUDA program that loads kernels.cubin
#   vecadd                a runtime-API CUDA program as nvcc builds them (cudart inside)
#   standin/libcuda.so.1, standin/libcupti.so.13
#                         a stand-in driver and CUPTI that let cuda_app run and inject
#                         libztcupti.so without a GPU (tests/gpu/standin_*.c)
ifeq ($(CUPTI_WHY),)
NVCC ?= $(CUDA_HOME)/bin/nvcc
GPUT := $(BUILD)/tests/gpu
CUDA_INC := -I$(CUDA_HOME)/include
GPU_TEST_BINS := $(GPUT)/standin/libcuda.so.1 $(GPUT)/standin/libcupti.so.13 $(GPUT)/cuda_app \
		 $(GPUT)/cubin_crc $(GPUT)/gpucheck_app $(GPUT)/noperf.so
ifneq ($(wildcard $(NVCC)),)
GPU_TEST_BINS += $(GPUT)/kernels.cubin $(GPUT)/kernels-nolines.cubin $(GPUT)/vecadd \
		 $(GPUT)/gpucheck.cubin
CUBIN_ARCHS := 75 90 100
CUBIN_FIXTURES := $(foreach a,$(CUBIN_ARCHS),$(GPUT)/cubins/symtest_sm$(a).cubin \
	$(GPUT)/cubins/rdc_sm$(a).cubin) $(GPUT)/cubins/symtest_noline.cubin \
	$(GPUT)/cubins/symtest_g.cubin
GPU_TEST_BINS += $(CUBIN_FIXTURES) $(GPUT)/cubin_cmp
endif
GPU_TEST_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE $(CUDA_INC)

$(GPUT)/standin/libcupti.so.13: tests/gpu/standin_cupti.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(GPU_TEST_CFLAGS) -shared -fPIC -fvisibility=hidden -Wl,-soname,libcupti.so.13 \
		-o $@ $< -lelf -lpthread

$(GPUT)/standin/libcuda.so.1: tests/gpu/standin_cuda.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(GPU_TEST_CFLAGS) -shared -fPIC -fvisibility=hidden -Wl,-soname,libcuda.so.1 \
		-o $@ $< -ldl

# linked against the toolkit's stub libcuda; runs on the stand-in (or a real driver)
$(GPUT)/cuda_app: tests/gpu/cuda_app.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(GPU_TEST_CFLAGS) -fno-omit-frame-pointer -fno-inline -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda

# scripts/gpu-check.sh's program and kernels (it runs on a GPU and on the stand-in)
$(GPUT)/gpucheck_app: tests/gpu/gpucheck_app.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(GPU_TEST_CFLAGS) -fno-omit-frame-pointer -fno-inline -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda

# perf_event_open and bpf refused, as in a container (the GPU-only path of record --gpu)
$(GPUT)/noperf.so: tests/gpu/noperf.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(GPU_TEST_CFLAGS) -shared -fPIC -o $@ $<

$(GPUT)/gpucheck.cubin: tests/gpu/gpucheck.cu
	$(call msg,NVCC,$@)
	@mkdir -p $(@D)
	$(Q)$(NVCC) -cubin -lineinfo -arch=sm_90 -o $@ $<

$(GPUT)/cubin_crc: tests/gpu/cubin_crc.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(GPU_TEST_CFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64 -lcupti \
		-Wl,-rpath,$(CUDA_HOME)/lib64

$(GPUT)/kernels.cubin: tests/gpu/kernels.cu
	$(call msg,NVCC,$@)
	@mkdir -p $(@D)
	$(Q)$(NVCC) -cubin -lineinfo -arch=sm_90 -o $@ $<

# the same without -lineinfo: kernel and device-function names only
$(GPUT)/kernels-nolines.cubin: tests/gpu/kernels.cu
	$(call msg,NVCC,$@)
	@mkdir -p $(@D)
	$(Q)$(NVCC) -cubin -arch=sm_90 -o $@ $<

$(GPUT)/cubins/symtest_sm%.cubin: tests/gpu/symtest.cu tests/gpu/symtest.cuh
	$(call msg,NVCC,$@)
	@mkdir -p $(@D)
	$(Q)$(NVCC) -cubin -lineinfo -arch=sm_$* -o $@ $<

$(GPUT)/cubins/symtest_noline.cubin: tests/gpu/symtest.cu tests/gpu/symtest.cuh
	$(call msg,NVCC,$@)
	@mkdir -p $(@D)
	$(Q)$(NVCC) -cubin -arch=sm_90 -o $@ $<

$(GPUT)/cubins/symtest_g.cubin: tests/gpu/symtest.cu tests/gpu/symtest.cuh
	$(call msg,NVCC,$@)
	@mkdir -p $(@D)
	$(Q)$(NVCC) -cubin -G -arch=sm_90 -o $@ $<

# separate compilation: a relocatable cubin of each unit, device-linked by nvlink
define rdc_unit
$(GPUT)/cubins/rdc/$(1)_sm$(2).cubin: tests/gpu/$(1).cu tests/gpu/symtest.cuh
	$$(call msg,NVCC,$$@)
	@mkdir -p $$(@D)
	$$(Q)$$(NVCC) -rdc=true -cubin -lineinfo -arch=sm_$(2) -o $$@ $$<
endef
$(foreach a,$(CUBIN_ARCHS),$(foreach u,rdc_a rdc_b,$(eval $(call rdc_unit,$(u),$(a)))))

$(GPUT)/cubins/rdc_sm%.cubin: $(GPUT)/cubins/rdc/rdc_a_sm%.cubin $(GPUT)/cubins/rdc/rdc_b_sm%.cubin
	$(call msg,NVLINK,$@)
	$(Q)$(CUDA_HOME)/bin/nvlink -arch=sm_$* -o $@ $^

$(GPUT)/cubin_cmp: tests/gpu/cubin_cmp.c $(LIBZT)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CUDA_INC) $(ALL_LDFLAGS) -o $@ $< $(LIBZT) $(LIBS) \
		-L$(CUPTI_LIBDIR) -lcupti -Wl,-rpath,$(CUPTI_LIBDIR)

# test_cubin reads the fixtures (and the sources, for the lines they mark)
$(BUILD)/tests/unit/test_cubin: ALL_CFLAGS += -DZT_TEST_CUBINS='"$(abspath $(GPUT)/cubins)"' \
	-DZT_TEST_SRCDIR='"$(abspath tests/gpu)"'
$(BUILD)/tests/unit/test_cubin: | $(CUBIN_FIXTURES)

$(GPUT)/vecadd: tests/gpu/vecadd.cu
	$(call msg,NVCC,$@)
	@mkdir -p $(@D)
	$(Q)$(NVCC) -O1 -Xcompiler -fno-omit-frame-pointer -o $@ $<

$(BUILD)/tests/.stamp-workloads: $(GPU_TEST_BINS)
endif
