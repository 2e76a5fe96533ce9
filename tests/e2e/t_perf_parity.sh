#!/usr/bin/env bash
# zt report names rows as perf report does on real Debian programs: a
# stripped C library user (sqlite3: libsqlite3 has only .dynsym, libc its
# libc6-dbg debug file), C++ libraries with .dynsym names only (clang-14:
# libLLVM-14, libclang-cpp), a program with a detached debug file
# (python3.11 with python3.11-dbg) and a system-wide recording of all
# three. For --sort sym, dso,sym and comm,dso,sym, perf's top 20 rows of
# --no-children must be zt's too, with shares within 0.1 points.
. "$(dirname "$0")/lib.sh"
cd "$T"
TOP=20
for c in sqlite3 clang++-14 python3.11 python3; do
	command -v "$c" > /dev/null || fail "$c missing: scripts/setup.sh --test installs it"
done
[ -d /usr/lib/debug/.build-id ] || fail "no debug files: scripts/setup.sh --test installs libc6-dbg, python3.11-dbg"
[ "$fails" -eq 0 ] || finish

cat > w.sql << 'EOF'
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 600000)
INSERT INTO t SELECT x, hex(randomblob(16)) FROM c;
CREATE INDEX ti ON t(b);
SELECT count(*), sum(length(b)) FROM t WHERE b LIKE '%AB%';
SELECT a % 97, count(*) FROM t GROUP BY 1 ORDER BY 2 DESC LIMIT 3;
EOF
cat > w.py << 'EOF'
import json, re
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
s = 0
for i in range(60000):
    d = {"k%d" % j: [j, str(j)] for j in range(8)}
    s += len(json.dumps(d)) + len(re.findall(r"\d+", json.dumps(d)))
print(fib(21), s)
EOF
cat > w.cpp << 'EOF'
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
template <int N> struct F {
	static int v(std::map<std::string, int> &m) { m[std::to_string(N)] = N; return F<N - 1>::v(m) + N; }
};
template <> struct F<0> { static int v(std::map<std::string, int> &) { return 0; } };
int main()
{
	std::map<std::string, int> m;
	std::regex r("[a-z]+([0-9]*)");
	std::vector<std::function<int(int)>> fs;
	for (int i = 0; i < 10; i++) fs.push_back([i](int x) { return x * i; });
	std::ostringstream o;
	o << F<120>::v(m) << std::regex_match("abc12", r);
	std::cout << o.str() << fs.size() << std::endl;
}
EOF

# the kernel's symbols as they are now, for both tools; zt report takes
# them from --kallsyms where it has the option, else from /proc/kallsyms
cp /proc/kallsyms ksyms
zk=()
"$ZT" report --help 2>&1 | grep -q -- '--kallsyms' && zk=(--kallsyms ksyms)

# perf 6.1 on this kernel sometimes crashes (build-id handling): -B, and
# record again when it fails or perf cannot read what it wrote
precord() {
	local o=$1 i
	shift
	for i in 1 2 3; do
		perf record -B -e cpu-clock -F 1999 -g -o "$o" "$@" > /dev/null 2> "$o.rec.err" &&
			perf report -i "$o" --stdio > /dev/null 2> "$o.rep.err" && return 0
	done
	echo "    perf record of $o failed 3 times:"
	perf_stderr "$o.rec.err"; perf_stderr "$o.rep.err"
	rm -f "$o"
	return 1
}
preport() { perf_retry report "$@"; }

# compare NAME SORT: perf's top rows against zt's, as multisets (equal
# names may be several rows: overloads, same-named statics); unresolved
# rows are perf's 0x%016x and zt's [module+0x..]
compare() {
	local d=$1 k=$2
	if ! preport -i "$d.perf" --kallsyms ksyms --stdio --no-children -g none --sort "$k" > "p.$d.$k.txt"; then
		unavailable "$d --sort $k: perf report failed"
		return
	fi
	"$ZT" report -i "$d.perf" "${zk[@]}" --stdio --no-children -g none --sort "$k" > "z.$d.$k.txt" 2> "z.$d.$k.err" ||
		fail "$d --sort $k: zt report failed"
	if python3 - "p.$d.$k.txt" "z.$d.$k.txt" "$TOP" > "cmp.$d.$k.txt" << 'EOF'; then
import re, sys
def rows(path):
    out = []
    for l in open(path, errors="replace"):
        if l.startswith("#"):
            continue
        m = re.match(r"^\s+(\d+\.\d+)%\s+(.*\S)\s*$", l)
        if not m:
            continue
        name = re.sub(r"\s+", " ", m.group(2))
        name = re.sub(r"\[[^\]\s]+\+0x([0-9a-f]+)\]$", lambda x: "0x%016x" % int(x.group(1), 16), name)
        out.append([float(m.group(1)), name])
    return out
p, z, top = rows(sys.argv[1]), rows(sys.argv[2]), int(sys.argv[3])
bad = 0
merged = set()
for share, name in p[:top]:
    if name in merged:
        continue
    cands = [r for r in z if r[1] == name]
    best = min(cands, key=lambda r: abs(r[0] - share), default=None)
    if best is not None and abs(best[0] - share) <= 0.1 + 1e-9:
        z.remove(best)
        continue
    # perf 6.1 under load sometimes lists one function of one DSO as two
    # rows of --sort sym (its hist tree splits the entry; perf report -v and
    # --sort dso,sym show one): then zt's one row is their sum
    total = sum(r[0] for r in p if r[1] == name)
    if len(cands) == 1 and total > share and abs(cands[0][0] - total) <= 0.1 + 1e-9:
        z.remove(cands[0])
        merged.add(name)
        continue
    bad += 1
    print("    perf %6.2f%% %s | zt %s" % (share, name, "%.2f%%" % best[0] if best else "missing"))
print("%d of perf's top %d rows differ" % (bad, min(top, len(p))))
sys.exit(1 if bad or not p else 0)
EOF
		ok "$d --sort $k: $(tail -1 "cmp.$d.$k.txt")"
	else
		fail "$d --sort $k: $(tail -1 "cmp.$d.$k.txt")"
		sed '$d' "cmp.$d.$k.txt"
	fi
}

# Debian's own binaries by their paths: a PATH may put other builds first
# (pyenv's python3.11 has no -dbg file)
# (a recording perf cannot make or read: its checks are "reference unavailable")
precord sqlite.perf -- sh -c '/usr/bin/sqlite3 :memory: < w.sql > /dev/null'
precord clang.perf -- /usr/bin/clang++-14 -O2 -c w.cpp -o w.o
precord python.perf -- /usr/bin/python3.11 w.py
precord sys.perf -a -- sh -c '/usr/bin/sqlite3 :memory: < w.sql > /dev/null & /usr/bin/python3.11 w.py > /dev/null &
	/usr/bin/clang++-14 -O1 -c w.cpp -o w1.o; wait'

for d in sqlite clang python sys; do
	for k in sym dso,sym comm,dso,sym; do
		if [ -s "$d.perf" ]; then compare "$d" "$k"
		else unavailable "$d --sort $k: perf record failed"; fi
	done
done
# C++ names without parameter lists, as perf; --full-signature keeps them
if [ -s clang.perf ]; then
	"$ZT" report -i clang.perf --stdio --no-children -g none --sort sym > cxx.txt 2> cxx.err
	"$ZT" report -i clang.perf --stdio --no-children -g none --sort sym --full-signature > cxxf.txt 2> cxxf.err
	check "C++ names without parameter lists" contains cxx.txt '\] llvm::[A-Za-z_:]+$'
	check "--full-signature: with them" contains cxxf.txt '\] llvm::[A-Za-z_:<>]+\(.*\)( const)?$'
fi
finish
