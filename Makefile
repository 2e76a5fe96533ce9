# SPDX-License-Identifier: GPL-2.0-or-later
# zt: one entry point for building, testing and benchmarking.
#
#   make                 build build/zt (BPF sampler included)
#   make check           unit tests, fuzz corpus replay, end-to-end tests
#   make check-unit      cmocka unit tests only
#   make SANITIZE=address,undefined check-unit    the same under ASan+UBSan (build-asan/)
#   make fuzz            libFuzzer binaries (clang) under build-fuzz/, libzt.a instrumented
#   make fuzz-run        each fuzz target for FUZZ_SECONDS (default 30) from its corpus
#   make bench           benchmarks: recorder against perf (root), symbolizer against
#                        addr2line and llvm-symbolizer, the GPU library's costs
#   make CUDA_HOME=DIR   where CUDA's CUPTI is for build/libztcupti.so (/usr/local/cuda)
#   make install PREFIX=/usr/local DESTDIR=    build/zt, its man pages, bash completion,
#                        libztcupti.so, the agent's systemd unit under $(DESTDIR)$(PREFIX)
#   make uninstall       remove exactly those files again (same PREFIX and DESTDIR)
#
# V=1 shows the commands. Objects go under $(BUILD)/, never next to sources.

CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
LLVM_STRIP ?= llvm-strip
PKG_CONFIG ?= pkg-config
PREFIX  ?= /usr/local

ifeq ($(SANITIZE),)
BUILD   ?= build
SANFLAGS :=
else
BUILD   ?= build-asan
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2)
endif

# Libraries, each found with pkg-config; a missing one names its Debian package.
PKGS := libbpf:libbpf-dev libelf:libelf-dev libdw:libdw-dev libdebuginfod:libdebuginfod-dev \
	liblzma:liblzma-dev libcrypto:libssl-dev zlib:zlib1g-dev libzstd:libzstd-dev \
	libprotobuf-c:libprotobuf-c-dev ncursesw:libncurses-dev \
	libmicrohttpd:libmicrohttpd-dev sqlite3:libsqlite3-dev libcurl:libcurl4-openssl-dev \
	capstone:libcapstone-dev libarchive:libarchive-dev
# libcurl and libmicrohttpd: headers only at build time, dlopen'ed by
# net/client.c and server/httpd.c when a command talks to or serves HTTP
# (linked, libcurl's ~30 libraries slowed every command's start-up from
# 1.9 to 4.7 ms, libmicrohttpd's GnuTLS by 1 ms); libarchive (ICU, libxml2,
# nettle...) by symbolizer/symarchive.c when a zt archive is written or read;
# Capstone by symbolizer/disasm.c when zt annotate decodes (linked
# statically, the relocation of its tables was 340 page faults at every
# command's start)
DLOPEN_PKGS := libdebuginfod libcurl libmicrohttpd libarchive capstone
pkg_names := $(foreach p,$(PKGS),$(word 1,$(subst :, ,$(p))))
# libtraceevent (libtraceevent-dev): optional, for the tracepoint fields zt
# script prints (formats/tracefmt.c); without it everything else builds and
# says so in one line
ifeq ($(filter clean help uninstall,$(MAKECMDGOALS)),)
HAVE_TRACEEVENT := $(shell $(PKG_CONFIG) --exists libtraceevent && echo y)
endif
ifeq ($(HAVE_TRACEEVENT),y)
pkg_names += libtraceevent
TRACEEVENT_DEF := -DZT_HAVE_TRACEEVENT
endif
ifeq ($(filter clean help uninstall,$(MAKECMDGOALS)),)
missing := $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(word 1,$(subst :, ,$(p))) && echo y),,$(word 2,$(subst :, ,$(p)))))
ifneq ($(strip $(missing)),)
$(error missing libraries: install the Debian packages '$(strip $(missing))' (or run scripts/setup.sh))
endif
endif

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(pkg_names) 2>/dev/null)
# libdebuginfod: headers only at build time, dlopen'ed when a server is asked
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(filter-out $(DLOPEN_PKGS),$(pkg_names)) 2>/dev/null) -ldl

CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	   -Wno-unused-parameter -Wno-missing-field-initializers
ALL_CFLAGS := -std=gnu11 $(CPPFLAGS) $(CFLAGS) $(WARN) $(SANFLAGS) -D_GNU_SOURCE $(TRACEEVENT_DEF) \
	      -I. -I$(BUILD) $(PKG_CFLAGS) \
	      -I/usr/include/libiberty -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)
# libiberty (demangling) has no pkg-config file: a static library in Debian
LIBIBERTY := $(firstword $(wildcard /usr/lib/$(shell $(CC) -print-multiarch)/libiberty.a /usr/lib/libiberty.a))
ifeq ($(filter clean help uninstall,$(MAKECMDGOALS)),)
ifeq ($(LIBIBERTY),)
$(error missing library: install the Debian package 'libiberty-dev' (or run scripts/setup.sh))
endif
endif
LIBS    := $(PKG_LIBS) $(LIBIBERTY) -lpthread
# build/zt links those libraries statically where Debian ships their .a
# files: each shared library costs start-up time (13 of them made zt's
# start 1.8 ms against 1.0 ms static, much of a warm 'zt symbolize').
# STATIC_LIBS=0, a sanitizer build or a missing .a: all dynamic.
STATIC_LIBS ?= 1
ZT_LIBS := $(LIBS)
ifeq ($(STATIC_LIBS)$(SANITIZE),1)
ifeq ($(filter clean help uninstall,$(MAKECMDGOALS)),)
PKG_SLIBS := $(filter-out -ldl -lpthread -pthread -lm,$(shell $(PKG_CONFIG) --static --libs $(filter-out $(DLOPEN_PKGS),$(pkg_names)) 2>/dev/null))
no_static := $(foreach l,$(sort $(PKG_SLIBS:-l%=%)),$(if $(filter /%,$(shell $(CC) -print-file-name=lib$(l).a)),,$(l)))
ifeq ($(strip $(no_static)),)
# -lm stays dynamic: glibc's static libm needs the static libc (its ifuncs)
ZT_LIBS := -Wl,-Bstatic $(PKG_SLIBS) $(LIBIBERTY) -Wl,-Bdynamic -lm -ldl -lpthread
endif
endif
endif

# ---- sources -------------------------------------------------------------
LIB_SRCS := $(wildcard libprof/*.c formats/*.c symbolizer/*.c session/*.c server/*.c net/*.c record/*.c) \
	    $(filter-out %.bpf.c,$(wildcard bpf/*.c))
CMD_SRCS := $(wildcard cmd/*.c)
BPF_SRCS := $(wildcard bpf/*.bpf.c)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_HELPERS := $(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c))
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
WL_SRCS  := $(wildcard tests/workloads/*.c)

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
# pprof's profile.proto, compiled by protoc-c at build time
.DEFAULT_GOAL := all
include mk/pprof.mk
include mk/web.mk
CMD_OBJS := $(CMD_SRCS:%.c=$(BUILD)/%.o)
SKELS    := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.skel.h)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
UNIT_HOBJS := $(UNIT_HELPERS:%.c=$(BUILD)/%.o)
FUZZ_REPLAY := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%-replay)
WL_BINS  := $(WL_SRCS:tests/workloads/%.c=$(BUILD)/tests/workloads/%)

LIBZT := $(BUILD)/libzt.a
ZT    := $(BUILD)/zt

# libztcupti.so (cupti/) when CUDA's CUPTI is found; its tests join UNIT_BINS
include mk/cupti.mk
include mk/gputest.mk
include mk/gpubench.mk
include mk/gpubundle.mk

.SECONDARY: $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.bpf.o)
.PHONY: bench-agent bench-python bench-serve bench-serve-scale bench-record bench-symbolize bench-script bench-report bench-top bench-flame bench-unwind bench-unwind-cmp all clean check check-unit check-fuzz check-e2e check-asan fuzz fuzz-run bench install uninstall help tests-build
all: $(ZT) $(BUILD)/tests/.stamp-workloads
ifneq ($(HAVE_TRACEEVENT),y)
all: traceevent-skip
.PHONY: traceevent-skip
traceevent-skip:
	@echo "  SKIP    tracepoint fields in zt script: no libtraceevent (install the Debian package 'libtraceevent-dev')"
endif

help:
	@sed -n '2,17p' Makefile

# ---- BPF -----------------------------------------------------------------
# usdt.bpf.h includes <linux/errno.h>, whose <asm/errno.h> is under the multiarch directory
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Wno-unused-function -Ibpf \
	      -I/usr/include/$(shell $(CC) -print-multiarch)

# (its headers from clang's -MMD, as the C objects': bpf/kunwind.h among them)
$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/zt_kern.h bpf/sample_event.h bpf/kunwind.h
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $@.d -MT $@ -c $< -o $@.tmp
	$(Q)$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# every object that may include a skeleton waits for them
$(LIB_OBJS) $(CMD_OBJS): | $(SKELS)

# ---- C -------------------------------------------------------------------
$(BUILD)/%.o: %.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIBZT): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(ZT): $(CMD_OBJS) $(LIBZT)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(CMD_OBJS) $(LIBZT) $(ZT_LIBS)

# ---- tests ---------------------------------------------------------------
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

$(BUILD)/tests/unit/%: tests/unit/%.c $(UNIT_HOBJS) $(LIBZT)
	$(call msg,TEST,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(UNIT_HOBJS) $(LIBZT) $(CMOCKA_LIBS) $(LIBS)

# test_httpd talks HTTP to the daemon through libcurl, which zt itself dlopens
$(BUILD)/tests/unit/test_httpd: CMOCKA_LIBS += $(shell $(PKG_CONFIG) --libs libcurl 2>/dev/null)

$(BUILD)/tests/fuzz/%-replay: tests/fuzz/%.c tests/fuzz/replay.c $(LIBZT)
	$(call msg,FUZZ,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< tests/fuzz/replay.c $(LIBZT) $(LIBS)

# Workloads with known hot functions: frame pointers everywhere. GCC 12 (and
# clang, at times) give a leaf that does not touch the stack no frame at all,
# whatever the flags: the workloads' leaves keep a volatile local for that.
WL_CFLAGS := -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline \
	     -fno-optimize-sibling-calls
$(BUILD)/tests/workloads/%: tests/workloads/%.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(WL_CFLAGS) -o $@ $< -lpthread

# ... except nofp, the --call-graph dwarf workload: built as distributions
# build, without frame pointers
$(BUILD)/tests/workloads/nofp: WL_CFLAGS := -O2 -g -fomit-frame-pointer
# and the same code with frame pointers: DWARF walks cut short by the stack
# copy are carried on by the frame-pointer chain
$(BUILD)/tests/workloads/nofp-fp: tests/workloads/nofp.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o $@ $< -lpthread
WL_BINS += $(BUILD)/tests/workloads/nofp-fp

# crafted worst-case recordings for tests/e2e/t_badinput.sh, written by zt's own writer
$(BUILD)/tests/ztgen: tests/e2e/ztgen.c $(LIBZT)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIBZT) $(LIBS)

$(BUILD)/tests/.stamp-workloads: $(WL_BINS) $(BUILD)/tests/ztgen
	@mkdir -p $(@D) && touch $@

tests-build: $(ZT) $(UNIT_BINS) $(FUZZ_REPLAY) $(BUILD)/tests/.stamp-workloads

check-unit: $(UNIT_BINS)
	$(Q)tests/run-unit.sh $(UNIT_BINS)

check-fuzz: $(FUZZ_REPLAY)
	$(Q)tests/run-fuzz-replay.sh $(BUILD) $(FUZZ_REPLAY)

# t_s3 drives test_s3_live against a local S3 server (until zt serve --symbols-s3 does)
check-e2e: $(ZT) $(BUILD)/tests/.stamp-workloads $(BUILD)/tests/unit/test_s3_live
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) tests/e2e/run.sh

check: check-unit check-fuzz check-e2e

# libFuzzer binaries for real fuzzing sessions (not part of check). The
# library is built with coverage instrumentation too (fuzzer-no-link), or
# libFuzzer sees only the target file and barely reaches the decoders.
FUZZ_SECONDS ?= 30
fuzz:
	@test -n "$$(find /usr/lib/llvm-*/lib/clang -name 'libclang_rt.fuzzer-x86_64.a' 2>/dev/null)" || \
		{ echo "fuzz: missing libFuzzer: install the Debian package 'libclang-rt-14-dev' (or run scripts/setup.sh --test)" >&2; exit 1; }
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(CLANG) SANITIZE=address,undefined \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link" build-fuzz/libzt.a
	$(Q)mkdir -p build-fuzz/tests/fuzz
	$(Q)for f in $(FUZZ_SRCS); do n=$$(basename $$f .c); \
		echo "  FUZZ    build-fuzz/tests/fuzz/$$n"; \
		$(CLANG) -std=gnu11 -g -O1 -D_GNU_SOURCE -I. -Ibuild-fuzz $(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined \
		  -o build-fuzz/tests/fuzz/$$n $$f build-fuzz/libzt.a $(LIBS) || exit 1; done

# every fuzz target for FUZZ_SECONDS from its corpus (new inputs go to a
# scratch directory, crashes to build-fuzz/crashes/); fails on a crash
fuzz-run: fuzz
	$(Q)tests/run-fuzz.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_SRCS:tests/fuzz/%.c=build-fuzz/tests/fuzz/%)

bench: bench-record bench-symbolize bench-script bench-report bench-top bench-flame bench-unwind bench-serve bench-serve-scale \
	bench-cupti bench-symbols bench-gpusym bench-python bench-agent

bench-record: $(ZT) $(BUILD)/tests/.stamp-workloads
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) bench/record.sh

# Python frames: the slowdown of python3.11 work under zt record -g with and without them
bench-python: $(ZT)
	$(Q)ZT=$(abspath $(ZT)) bench/python.sh

# the agent's own CPU: zt record -a -F 19 -g --push to a local zt serve, both cores busy,
# against perf record -a -F 19 -g in the same run
bench-agent: $(ZT)
	$(Q)ZT=$(abspath $(ZT)) bench/agent.sh

bench-symbolize: $(ZT)
	$(Q)ZT=$(abspath $(ZT)) bench/symbolize.sh

# zt symbols upload of /usr/lib and /usr/bin (first run, all-skips run) against llvm-gsymutil --convert
bench-symbols: $(ZT)
	$(Q)ZT=$(abspath $(ZT)) bench/symbols.sh

bench-script: $(ZT) $(BUILD)/tests/.stamp-workloads
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) bench/script.sh

bench-top: $(ZT) $(BUILD)/tests/.stamp-workloads
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) bench/top.sh

bench-flame: $(ZT) $(BUILD)/tests/.stamp-workloads
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) bench/flame.sh

bench-report: $(ZT) $(BUILD)/tests/.stamp-workloads
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) bench/report.sh

# zt serve at scale: SQLite against a two-shard ClickHouse cluster, 1,000 and 10,000 recordings
bench-serve-scale: $(ZT) $(BUILD)/tests/.stamp-workloads
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) bench/serve_scale.sh

# zt serve: ingest with 32 pushers, merged queries over 1,000 recordings
bench-serve: $(ZT) $(BUILD)/tests/.stamp-workloads
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) bench/serve.sh

bench-unwind: $(ZT) $(BUILD)/tests/.stamp-workloads
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) bench/unwind.sh

# libdwfl (zt's unwinder) against libunwind's remote API on the same
# --call-graph dwarf perf.data files. zt itself does not link libunwind
# (libztcupti.so does, for in-process launch stacks).
UNWIND_CMP := $(BUILD)/bench/unwind_cmp
$(UNWIND_CMP): bench/unwind_cmp.c $(LIBZT)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	@$(PKG_CONFIG) --exists libunwind-generic || \
		{ echo "bench: missing library: install the Debian package 'libunwind-dev' (or run scripts/setup.sh)" >&2; exit 1; }
	$(Q)$(CC) $(ALL_CFLAGS) $$($(PKG_CONFIG) --cflags libunwind-generic) $(ALL_LDFLAGS) -o $@ $< \
		$(LIBZT) $(LIBS) $$($(PKG_CONFIG) --libs libunwind-generic)

bench-unwind-cmp: $(UNWIND_CMP) $(ZT) $(BUILD)/tests/.stamp-workloads
	$(Q)ZT=$(abspath $(ZT)) WL=$(abspath $(BUILD)/tests/workloads) UNWIND_CMP=$(abspath $(UNWIND_CMP)) \
		bench/unwind_cmp.sh

install: $(ZT)
	install -D -m 755 $(ZT) $(DESTDIR)$(PREFIX)/bin/zt
	for m in man/*.[0-9]; do s=$${m##*.}; install -D -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man$$s/$$(basename $$m); done
	# the GPU injection library, where zt record --gpu looks for it (../lib/zt beside bin/zt)
	if [ -f $(BUILD)/libztcupti.so ]; then install -D -m 755 $(BUILD)/libztcupti.so \
		$(DESTDIR)$(PREFIX)/lib/zt/libztcupti.so; fi
	install -D -m 644 completion/zt.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/zt
	# the agent (zt record --push) as a systemd service, zt where this install put it,
	# and an example of its settings (for /etc/default/zt-agent)
	mkdir -p $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's|/usr/local/|$(PREFIX)/|g' dist/zt-agent.service \
		> $(DESTDIR)$(PREFIX)/lib/systemd/system/zt-agent.service
	chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/system/zt-agent.service
	install -D -m 644 dist/zt-agent.default $(DESTDIR)$(PREFIX)/share/zt/zt-agent.default
	# and the team server (zt serve) as one
	sed 's|/usr/local/|$(PREFIX)/|g' dist/zt-serve.service \
		> $(DESTDIR)$(PREFIX)/lib/systemd/system/zt-serve.service
	chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/system/zt-serve.service
	install -D -m 644 dist/zt-serve.default $(DESTDIR)$(PREFIX)/share/zt/zt-serve.default

# what install put there, and the directories of zt's own that it made
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/zt $(DESTDIR)$(PREFIX)/lib/zt/libztcupti.so \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/zt \
		$(DESTDIR)$(PREFIX)/lib/systemd/system/zt-agent.service \
		$(DESTDIR)$(PREFIX)/share/zt/zt-agent.default \
		$(DESTDIR)$(PREFIX)/lib/systemd/system/zt-serve.service \
		$(DESTDIR)$(PREFIX)/share/zt/zt-serve.default
	for m in man/*.[0-9]; do s=$${m##*.}; rm -f $(DESTDIR)$(PREFIX)/share/man/man$$s/$$(basename $$m); done
	-rmdir $(DESTDIR)$(PREFIX)/lib/zt $(DESTDIR)$(PREFIX)/share/zt 2>/dev/null

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
