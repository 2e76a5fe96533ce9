#!/usr/bin/env bash
# Every environment variable zt's sources read is in the manual: zt(1) lists
# them all, and each is also named by some other page. The names come from
# the sources themselves: getenv("X") and the wrappers around it, getenv of
# a macro (#define M "X", in the tree or in libdebuginfod's header), and
# string literals of the families zt reads (ZT_*, AWS_*, DEBUGINFOD_*,
# XDG_*, SUDO_*, CUDA_*).
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
man=$src/man
cd "$T"

# env_names DIR...: the names, one a line
env_names() {
	local files
	files=$(find "$@" -name '*.[ch]' -not -path '*/tests/*' 2>/dev/null)
	[ -n "$files" ] || return 0
	{
		grep -hoE '\b(secure_getenv|getenv|env|env_id)\("[A-Za-z_][A-Za-z0-9_]*"' $files |
			sed -E 's/.*\("//; s/"$//'
		grep -hoE '"(ZT|AWS|DEBUGINFOD|XDG|SUDO|CUDA)_[A-Z0-9_]+"' $files | tr -d '"'
		# getenv(MACRO): its #define here, or libdebuginfod's
		grep -hoE '\b(secure_)?getenv\([A-Z][A-Z0-9_]*\)' $files | sed -E 's/.*\(//; s/\)$//' |
			while read -r m; do
				cat $files /usr/include/elfutils/debuginfod.h 2>/dev/null |
					sed -nE "s/^#define[[:space:]]+$m[[:space:]]+\"([A-Za-z0-9_]+)\".*/\1/p"
			done
	} | sort -u
}

# the check must be able to fail: a source with an undocumented name is caught
mkdir -p fake/cmd
printf 'const char *a = getenv("ZT_NOT_DOCUMENTED");\n#define MY_VAR "ZT_VIA_MACRO"\nconst char *b = secure_getenv(MY_VAR);\n' > fake/cmd/x.c
fake=$(env_names fake)
check "the scan finds getenv(\"X\")" grep -qx ZT_NOT_DOCUMENTED <<< "$fake"
check "the scan finds getenv(MACRO)" grep -qx ZT_VIA_MACRO <<< "$fake"

names=$(env_names "$src/cmd" "$src/libprof" "$src/net" "$src/symbolizer" "$src/session" \
	"$src/formats" "$src/bpf" "$src/server" "$src/cupti")
count=$(wc -l <<< "$names")
check "the sources read some variables ($count)" [ "$count" -ge 10 ]
for must in HOME ZT_TOKEN DEBUGINFOD_URLS NO_COLOR ZT_CONFIG; do
	check "the scan finds $must" grep -qx "$must" <<< "$names"
done
# the pages as text: troff's font changes (\fB...\fR) out
mkdir -p pages
for f in "$man"/*.[0-9]; do sed 's/\\f[BIRP]//g' "$f" > "pages/$(basename "$f")"; done
for v in $names; do
	check "$v is in zt(1)" grep -qw -- "$v" pages/zt.1
	check "$v is in a command's page" bash -c "grep -lw -- '$v' pages/zt-*.1 | grep -q ."
done
finish
