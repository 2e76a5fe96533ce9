# SPDX-License-Identifier: GPL-2.0-or-later
# libztcupti.so, the CUPTI injection library (cupti/), its unit tests and
# benchmark: built when CUDA's CUPTI is found under CUDA_HOME (default
# /usr/local/cuda): include/cupti.h and cuda.h, lib64/libcupti.so (or the
# older extras/CUPTI layout). Without it everything else builds and the
# GPU tests are skipped, each saying so in one line. Included by the
# top-level Makefile after UNIT_BINS is defined.
#
# The library links libcupti (DT_NEEDED libcupti.so.13, RUNPATH to CUDA's
# lib64: LD_LIBRARY_PATH still comes first, so a stand-in or the
# application's own CUPTI wins), libunwind, zlib and pthread; never
# libcuda. Its objects are -fPIC -fvisibility=hidden and a version script
# exports InitializeInjection only. The tests and the benchmark link the
# same objects from $(BUILD)/cupti/libztcupti.a.

CUDA_HOME ?= /usr/local/cuda
CUPTI_INC := $(firstword $(foreach d,$(CUDA_HOME)/include $(CUDA_HOME)/extras/CUPTI/include,\
	$(if $(wildcard $(d)/cupti.h),$(d))))
CUPTI_LIBDIR := $(firstword $(foreach d,$(CUDA_HOME)/lib64 $(CUDA_HOME)/extras/CUPTI/lib64 \
	$(CUDA_HOME)/lib $(CUDA_HOME)/targets/x86_64-linux/lib,$(if $(wildcard $(d)/libcupti.so),$(d))))
CUPTI_WHY :=
ifeq ($(wildcard $(CUDA_HOME)/include/cuda.h),)
CUPTI_WHY := no CUDA toolkit at CUDA_HOME=$(CUDA_HOME) (no include/cuda.h)
else ifeq ($(CUPTI_INC),)
CUPTI_WHY := no cupti.h under CUDA_HOME=$(CUDA_HOME)
else ifeq ($(CUPTI_LIBDIR),)
CUPTI_WHY := no libcupti.so under CUDA_HOME=$(CUDA_HOME)
endif

CUPTI_SRCS := $(wildcard cupti/*.c)
CUPTI_OBJS := $(CUPTI_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/cupti/htab.o
CUPTI_LIB := $(BUILD)/libztcupti.so
CUPTI_AR := $(BUILD)/cupti/libztcupti.a
CUPTI_TEST_SRCS := $(wildcard tests/unit/test_cupti_*.c)
CUPTI_TEST_BINS := $(CUPTI_TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
CUPTI_TEST_HOBJS := $(patsubst %.c,$(BUILD)/%.o,$(filter-out %.bpf.c,$(wildcard tests/unit/cupti/*.c)))
CUPTI_USDT_BPF := $(BUILD)/tests/unit/cupti/usdt.bpf.o
CUPTI_BENCH := $(BUILD)/bench/cupti_bench
UNIT_BINS := $(filter-out $(CUPTI_TEST_BINS),$(UNIT_BINS))

.PHONY: cupti cupti-skip check-cupti-exports bench-cupti

ifeq ($(CUPTI_WHY),)
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
ifeq ($(shell $(PKG_CONFIG) --exists libunwind && echo y),)
$(error missing library for libztcupti.so: install the Debian package 'libunwind-dev' (or run scripts/setup.sh))
endif
ifeq ($(wildcard /usr/include/sys/sdt.h /usr/include/$(shell $(CC) -print-multiarch)/sys/sdt.h),)
$(error missing header for libztcupti.so: install the Debian package 'systemtap-sdt-dev' (or run scripts/setup.sh))
endif
endif
# frame pointers: zt's BPF sampler walks the launching thread's stack from
# the USDT probe, through the library's own frames first
CUPTI_CFLAGS := -fPIC -fvisibility=hidden -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-isystem $(CUPTI_INC) -isystem $(CUDA_HOME)/include \
	$(shell $(PKG_CONFIG) --cflags libunwind 2>/dev/null)
CUPTI_LIBS := -L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -Wl,--enable-new-dtags -lcupti \
	$(shell $(PKG_CONFIG) --libs libunwind 2>/dev/null) -lz -lpthread -ldl
# every symbol resolved at link time, except the sanitizers' (their
# runtime comes with the executable)
CUPTI_ZDEFS := $(if $(SANITIZE),,-Wl,-z,defs)

all: $(CUPTI_LIB)
cupti: $(CUPTI_LIB)
UNIT_BINS += $(CUPTI_TEST_BINS)

$(CUPTI_OBJS) $(CUPTI_TEST_HOBJS): ALL_CFLAGS += $(CUPTI_CFLAGS)

# the one hash table of libprof, compiled again for the shared object
$(BUILD)/cupti/htab.o: libprof/htab.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(CUPTI_AR): $(CUPTI_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(CUPTI_LIB): $(CUPTI_OBJS) cupti/libztcupti.map
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(ALL_LDFLAGS) -Wl,--version-script=cupti/libztcupti.map $(CUPTI_ZDEFS) \
		-Wl,-soname,libztcupti.so -o $@ $(CUPTI_OBJS) $(CUPTI_LIBS)

# the ABI checks of the shared object (also run by test_cupti_inject)
check-cupti-exports: $(CUPTI_LIB)
	$(Q)exp=$$(nm -D --defined-only $(CUPTI_LIB) | awk '{print $$3}' | sort | tr '\n' ' '); \
	  [ "$$exp" = "InitializeInjection " ] || { echo "libztcupti.so exports: $$exp" >&2; exit 1; }; \
	  ! readelf -d $(CUPTI_LIB) | grep -q 'libcuda\.' || { echo "libztcupti.so needs libcuda" >&2; exit 1; }; \
	  echo "  CHECK   $(CUPTI_LIB): exports InitializeInjection only, no libcuda"

# the USDT test's BPF program (clang's BPF target, like bpf/; usdt.bpf.h
# wants the uapi errno values)
$(CUPTI_USDT_BPF): tests/unit/cupti/usdt.bpf.c bpf/zt_kern.h
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -idirafter /usr/include/$(shell $(CC) -print-multiarch) -c $< -o $@

$(CUPTI_TEST_BINS): $(BUILD)/tests/unit/%: tests/unit/%.c $(CUPTI_AR) $(CUPTI_TEST_HOBJS) \
		$(UNIT_HOBJS) $(LIBZT) $(CUPTI_LIB) $(CUPTI_USDT_BPF)
	$(call msg,TEST,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CUPTI_CFLAGS) $(CMOCKA_CFLAGS) \
		-DZT_CUPTI_LIB='"$(abspath $(CUPTI_LIB))"' -DZT_USDT_BPF='"$(abspath $(CUPTI_USDT_BPF))"' \
		$(ALL_LDFLAGS) $(CUPTI_TEST_LDFLAGS) -o $@ $< $(CUPTI_TEST_HOBJS) $(CUPTI_AR) \
		$(UNIT_HOBJS) $(LIBZT) $(CMOCKA_LIBS) $(CUPTI_LIBS) $(LIBS)

# test_cupti_pcs replaces the CUPTI calls that need a GPU, in its own binary only
$(BUILD)/tests/unit/test_cupti_pcs: CUPTI_TEST_LDFLAGS := $(foreach f,cuptiGetContextId \
	cuptiPCSamplingEnable cuptiPCSamplingGetNumStallReasons cuptiPCSamplingGetStallReasons \
	cuptiPCSamplingSetConfigurationAttribute cuptiPCSamplingGetData cuptiPCSamplingDisable \
	cuptiGetGraphExecId cuptiGetGraphId,-Wl,--wrap=$(f))

$(CUPTI_BENCH): bench/cupti_bench.c $(CUPTI_AR) $(CUPTI_TEST_HOBJS) $(CUPTI_USDT_BPF)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CUPTI_CFLAGS) -DZT_USDT_BPF='"$(abspath $(CUPTI_USDT_BPF))"' \
		$(ALL_LDFLAGS) -o $@ $< $(CUPTI_TEST_HOBJS) $(CUPTI_AR) $(CUPTI_LIBS) $(LIBS)

bench-cupti: $(CUPTI_BENCH) $(CUPTI_LIB)
	$(Q)CUPTI_BENCH=$(abspath $(CUPTI_BENCH)) CUPTI_LIB=$(abspath $(CUPTI_LIB)) bench/cupti.sh
else
all: cupti-skip
check-unit: cupti-skip
cupti bench-cupti check-cupti-exports: cupti-skip
cupti-skip:
	@echo "  SKIP    libztcupti.so (the GPU library) and its tests: $(CUPTI_WHY)"
endif
