// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of zt_demangle: C++, Rust legacy and v0, and names left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "symbolizer/demangle.h"

static void expect(const char *in, int params, const char *out)
{
	char *d = zt_demangle(in, params);

	if (!out) {
		assert_null(d);
		return;
	}
	assert_non_null(d);
	assert_string_equal(d, out);
	free(d);
}

static void test_cxx(void **state)
{
	expect("_ZN6fuzzer6Fuzzer4LoopERSt6vectorINS_9SizedFileESaIS2_EE", 0, "fuzzer::Fuzzer::Loop");
	expect("_ZN6fuzzer6Fuzzer4LoopERSt6vectorINS_9SizedFileESaIS2_EE", 1,
	       "fuzzer::Fuzzer::Loop(std::vector<fuzzer::SizedFile, std::allocator<fuzzer::SizedFile> >&)");
	expect("_Z3fooi", 1, "foo(int)");
	expect("_ZNKSt6vectorIiSaIiEE4sizeEv", 0, "std::vector<int, std::allocator<int> >::size");
}

static void test_rust(void **state)
{
	/* legacy (Itanium-shaped with a hash) and v0 */
	expect("_ZN4core3fmt5write17h0123456789abcdefE", 0, "core::fmt::write");
	expect("_RNvCs15kBYyAo9fc_7mycrate7example", 0, "mycrate::example");
}

/* PLT stubs (NAME@plt): NAME demangled, the suffix kept, as perf shows them */
static void test_plt(void **state)
{
	expect("_Znwm@plt", 0, "operator new@plt");
	expect("_Znwm@plt", 1, "operator new(unsigned long)@plt");
	expect("_ZdlPvm@plt", 1, "operator delete(void*, unsigned long)@plt");
	expect("_ZN4core3fmt5write17h0123456789abcdefE@plt", 0, "core::fmt::write@plt");
	expect("strlen@plt", 0, NULL);
	expect("@plt", 0, NULL); /* an IRELATIVE stub */
	expect("_Zgarbage@plt", 1, NULL);
}

static void test_plain(void **state)
{
	expect("main", 0, NULL);
	expect("_start", 0, NULL);
	expect("", 0, NULL);
	expect("_Z", 0, NULL);        /* not valid: left alone */
	expect("_Zgarbage!!", 0, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_rust),
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
