// SPDX-License-Identifier: GPL-2.0-or-later
// Symbolizer fixture: C++ with inlined STL code (map, sort, string,
// templates, lambdas, exceptions), for zt symbolize against addr2line and
// llvm-symbolizer (t_symbolize_parity.sh).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace zt_fixture {

template <typename T> struct Stats {
	T sum{}, min{}, max{};
	size_t n = 0;
	void add(const T &v)
	{
		if (!n || v < min)
			min = v;
		if (!n || max < v)
			max = v;
		sum = sum + v;
		n++;
	}
};

struct Word {
	std::string text;
	int count;
	bool operator<(const Word &o) const
	{
		return count != o.count ? count > o.count : text < o.text;
	}
};

class Shape {
public:
	virtual ~Shape() = default;
	virtual double area() const = 0;
	virtual std::string name() const = 0;
};

class Rect : public Shape {
	double w, h;

public:
	Rect(double w_, double h_) : w(w_), h(h_) {}
	double area() const override { return w * h; }
	std::string name() const override { return "rect " + std::to_string(w) + "x" + std::to_string(h); }
};

class Circle : public Shape {
	double r;

public:
	explicit Circle(double r_) : r(r_) {}
	double area() const override { return 3.14159265358979 * r * r; }
	std::string name() const override { return "circle " + std::to_string(r); }
};

static std::vector<std::string> split(const std::string &s, char sep)
{
	std::vector<std::string> out;
	std::string cur;

	for (char c : s) {
		if (c == sep) {
			if (!cur.empty())
				out.push_back(cur);
			cur.clear();
		} else {
			cur += c;
		}
	}
	if (!cur.empty())
		out.push_back(cur);
	return out;
}

__attribute__((noinline)) std::vector<Word> count_words(const std::string &text)
{
	std::map<std::string, int> m;

	for (const auto &w : split(text, ' '))
		m[w]++;
	std::vector<Word> v;
	for (const auto &kv : m)
		v.push_back(Word{ kv.first, kv.second });
	std::sort(v.begin(), v.end());
	return v;
}

template <typename K, typename V> V lookup_or(const std::unordered_map<K, V> &m, const K &k, V d)
{
	auto it = m.find(k);
	return it == m.end() ? d : it->second;
}

__attribute__((noinline)) long checked_div(long a, long b)
{
	if (!b)
		throw std::invalid_argument("division by zero");
	return a / b;
}

__attribute__((noinline)) Stats<double> shapes(int n)
{
	std::vector<std::unique_ptr<Shape>> v;
	Stats<double> st;

	for (int i = 0; i < n; i++) {
		if (i % 3)
			v.push_back(std::make_unique<Rect>(i, i + 1));
		else
			v.push_back(std::make_unique<Circle>(i));
	}
	std::stable_sort(v.begin(), v.end(),
			 [](const std::unique_ptr<Shape> &a, const std::unique_ptr<Shape> &b) {
				 return a->area() < b->area();
			 });
	for (const auto &s : v)
		st.add(s->area());
	return st;
}

} // namespace zt_fixture

int main(int argc, char **argv)
{
	using namespace zt_fixture;
	std::string text = "the quick brown fox jumps over the lazy dog the fox";
	std::unordered_map<std::string, long> um;
	std::vector<long> nums;
	std::function<long(long)> f = [&](long x) { return x * 3 + (long)um.size(); };

	for (int i = 1; i < argc; i++)
		text += std::string(" ") + argv[i];
	auto words = count_words(text);
	for (const auto &w : words)
		um[w.text] = w.count;
	for (int i = 0; i < 100; i++)
		nums.push_back(f(i * 7919 % 101));
	std::sort(nums.begin(), nums.end(), std::greater<long>());
	auto st = shapes(argc + 20);
	long q = 0;
	try {
		q = checked_div(nums[0], argc - 1);
	} catch (const std::exception &e) {
		std::printf("caught: %s\n", e.what());
	}
	std::printf("%s %ld %ld %.1f %ld\n", words.empty() ? "" : words[0].text.c_str(),
		    lookup_or(um, std::string("fox"), -1L), nums[0], st.max, q);
	return 0;
}
