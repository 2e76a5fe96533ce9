# SPDX-License-Identifier: GPL-2.0-or-later
# zt serve's web page, embedded: server/web/index.html -> a C array in
# $(BUILD)/server/web_index.c (od and sed, no xxd), compiled into libzt.a.
# Included by the top-level Makefile after LIB_OBJS is defined.

WEB_PAGE_C := $(BUILD)/server/web_index.c
WEB_PAGE_O := $(BUILD)/server/web_index.o

LIB_OBJS += $(WEB_PAGE_O)
$(BUILD)/libzt.a: $(WEB_PAGE_O)

$(WEB_PAGE_C): server/web/index.html mk/web.mk
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q){ echo '/* generated from server/web/index.html by mk/web.mk */'; \
	  echo '#include <stddef.h>'; \
	  echo 'extern const unsigned char zt_web_index_html[];'; \
	  echo 'extern const size_t zt_web_index_html_len;'; \
	  echo 'const unsigned char zt_web_index_html[] = {'; \
	  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0 };'; \
	  echo 'const size_t zt_web_index_html_len = sizeof(zt_web_index_html) - 1;'; } > $@.tmp && mv $@.tmp $@

$(WEB_PAGE_O): $(WEB_PAGE_C)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@
