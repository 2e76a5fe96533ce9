// SPDX-License-Identifier: GPL-2.0-or-later
// dwarfsyms fixture (C++, -O2): namespaces, methods defined out of line
// (DW_AT_specification), templates, a lambda, constructors, inlined methods.
extern volatile int g_cxx;
volatile int g_cxx;

namespace zt {
namespace fixture {

template <typename T> struct Acc {
	T v;
	explicit Acc(T start);
	__attribute__((always_inline)) inline void add(T x)
	{
		v += x * 3;
		g_cxx ^= (int)v;
	}
	T get() const;
};

template <typename T> Acc<T>::Acc(T start) : v(start)
{
	g_cxx += 1;
}

template <typename T> __attribute__((noinline)) T Acc<T>::get() const
{
	return v + g_cxx;
}

template <typename F> __attribute__((always_inline)) inline int apply(F f, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += f(i);
	return s;
}

namespace {
__attribute__((noinline)) int hidden(int x)
{
	return apply([x](int i) { return i * x + g_cxx; }, x);
}
} // namespace

struct Shape {
	virtual ~Shape() {}
	virtual int area() const = 0;
};

struct Square : Shape {
	int side;
	explicit Square(int s) : side(s) {}
	int area() const override;
};

__attribute__((noinline)) int Square::area() const
{
	return side * side;
}

__attribute__((noinline)) long run(int n)
{
	Acc<int> a(n);
	Acc<long> b(n);
	Square sq(n);
	Shape *sh = &sq;

	for (int i = 0; i < n; i++) {
		a.add(i);
		b.add(i + 1);
	}
	return a.get() + b.get() + hidden(n) + sh->area();
}

} // namespace fixture
} // namespace zt

int main(int argc, char **argv)
{
	return (int)(zt::fixture::run(argc) & 1);
}
