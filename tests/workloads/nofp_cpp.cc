// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C++ workload for --call-graph dwarf (tests/e2e/t_lld.sh builds it with
 * -O2 -g -fomit-frame-pointer, with each linker there is): a known chain of
 * demangled names, a namespace, a class, a template, std::vector:
 *   main -> nfx::run_for<int> -> nfx::Chain::outer -> nfx::Chain::inner ->
 *   nfx::leaf (spins), for SECS seconds (argv[1], default 1).
 */
#include <cstdlib>
#include <ctime>
#include <vector>

static volatile unsigned long sink;

namespace nfx {

__attribute__((noinline)) unsigned long leaf(unsigned long seed)
{
	unsigned long x = seed;

	for (unsigned long i = 0; i < 200000; i++)
		x = x * 2862933555777941757ul + 3037000493ul + i;
	return x;
}

struct Chain {
	std::vector<unsigned long> v;

	__attribute__((noinline)) unsigned long inner(unsigned long seed)
	{
		unsigned long r = leaf(seed ^ 3);

		v.push_back(r);
		return r + v.size();
	}

	__attribute__((noinline)) unsigned long outer(unsigned long seed)
	{
		unsigned long r = inner(seed ^ 1);

		if (v.size() > 64)
			v.clear();
		return r + 1;
	}
};

template <class T> __attribute__((noinline)) unsigned long run_for(T seed)
{
	Chain c;
	unsigned long r = 0;

	for (int i = 0; i < 8; i++)
		r += c.outer(static_cast<unsigned long>(seed) + r);
	return r;
}

} // namespace nfx

static double now()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);

	while (now() < end)
		sink += nfx::run_for<int>(static_cast<int>(sink));
	return 0;
}
