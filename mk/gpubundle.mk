# SPDX-License-Identifier: GPL-2.0-or-later
# make gpu-bundle: zt, libztcupti.so and the shared libraries they load
# (those a machine with CUDA may lack: not glibc's, not CUDA's), with
# scripts/gpu-check.sh's programs, in one folder (GPU_BUNDLE, default
# gpu-bundle/, ignored by git) that is copied to a GPU machine and run
# there by scripts/gpu-check.sh (scripts/gpu-bundle.sh says what goes in).
# The bundle's libztcupti.so is linked again with a DT_RPATH of $ORIGIN
# only (its libraries beside it, for it and theirs; a DT_RPATH, unlike
# RUNPATH, also serves its libraries' own needs): libcupti.so.13 is the
# one the process loaded already (PyTorch's), else LD_LIBRARY_PATH's
# (scripts/gpu-check.sh points it at the CUDA toolkit's, or the stand-in).
GPU_BUNDLE ?= gpu-bundle
.PHONY: gpu-bundle
ifeq ($(CUPTI_WHY),)
BUNDLE_CUPTI := $(BUILD)/bundle/libztcupti.so
$(BUNDLE_CUPTI): $(CUPTI_OBJS) cupti/libztcupti.map mk/gpubundle.mk
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -shared $(ALL_LDFLAGS) -Wl,--version-script=cupti/libztcupti.map $(CUPTI_ZDEFS) \
		-Wl,-soname,libztcupti.so -o $@ $(CUPTI_OBJS) -L$(CUPTI_LIBDIR) \
		-Wl,--disable-new-dtags \
		-Wl,-rpath,'$$ORIGIN' -lcupti \
		$(shell $(PKG_CONFIG) --libs libunwind 2>/dev/null) -lz -lpthread -ldl

# built with the tests too: tests/e2e/t_gpu_check.sh and t_gpu_bundle.sh make
# a bundle of the build under test with scripts/gpu-bundle.sh
$(BUILD)/tests/.stamp-workloads: $(BUNDLE_CUPTI)

gpu-bundle: $(ZT) $(BUNDLE_CUPTI) $(GPUT)/gpucheck_app $(GPUT)/gpucheck.cubin $(GPUT)/noperf.so
	$(Q)scripts/gpu-bundle.sh $(BUILD) $(GPU_BUNDLE)
else
gpu-bundle:
	@echo "gpu-bundle: $(CUPTI_WHY)" >&2; exit 1
endif
