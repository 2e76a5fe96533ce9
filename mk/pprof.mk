# SPDX-License-Identifier: GPL-2.0-or-later
# pprof export: profile.proto -> $(BUILD)/formats/profile.pb-c.[ch] with
# protoc-c at build time, compiled into libzt.a. Included by the top-level
# Makefile after LIB_OBJS is defined; libprotobuf-c comes through PKGS.

PROTOC_C ?= protoc-c
PPROF_GEN_C := $(BUILD)/formats/profile.pb-c.c
PPROF_GEN_H := $(BUILD)/formats/profile.pb-c.h
PPROF_GEN_O := $(BUILD)/formats/profile.pb-c.o

ifeq ($(filter clean help,$(MAKECMDGOALS)),)
ifeq ($(shell command -v $(PROTOC_C) 2>/dev/null),)
$(error missing tool: install the Debian package 'protobuf-c-compiler' (or run scripts/setup.sh))
endif
endif

LIB_OBJS += $(PPROF_GEN_O)
# also when included after the archive's rule was read
$(BUILD)/libzt.a: $(PPROF_GEN_O)

$(PPROF_GEN_C) $(PPROF_GEN_H) &: formats/profile.proto
	$(call msg,PROTOC,$@)
	@mkdir -p $(@D)
	$(Q)$(PROTOC_C) --c_out=$(BUILD) formats/profile.proto

# generated code: our strict warnings are not its business
$(PPROF_GEN_O): $(PPROF_GEN_C) $(PPROF_GEN_H)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 $(CFLAGS) -w $(SANFLAGS) -I$(BUILD) $(PKG_CFLAGS) -MMD -MP -c $< -o $@

# whatever includes the generated header waits for it
$(BUILD)/formats/pprof.o $(BUILD)/formats/pprofread.o $(BUILD)/server/norm.o $(BUILD)/server/query.o $(BUILD)/tests/unit/test_pprof \
  $(BUILD)/tests/unit/test_norm $(BUILD)/tests/unit/test_pprofread $(BUILD)/tests/unit/test_query: \
  | $(PPROF_GEN_H)
