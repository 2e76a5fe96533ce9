#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The GPU bundle (make gpu-bundle, scripts/gpu-bundle.sh) on a machine
# without Debian's libraries, as the GPU machine of issue 33 is: a chroot
# that holds glibc's own files (libc6's libraries and dynamic loader),
# libgcc_s and libstdc++ (what any Linux with an NVIDIA driver has), the
# bundle of the build under test at /bundle, and the stand-in libcuda.so.1
# and libcupti.so.13 at /standin (that machine's driver and CUPTI), with the
# stand-in's own libraries that the bundle does not bring (libelf: NVIDIA's
# CUPTI needs none). Nothing else: no libelf, libdw, libzstd, libbpf,
# libunwind, liblzma, libz, libcurl... (the bundle's lib/zt must bring what
# zt and libztcupti.so load), no shell, no coreutils, no /etc. What zt needs
# there besides its files: /tmp (the GPU records' folder), /proc (its own
# path, to find lib/zt; the processes' maps; kallsyms), /dev/null, and
# /sys (BTF, for the BPF sampler: without /sys zt falls back to perf_event
# sampling and takes launch stacks inside the process; bound here read-only,
# without the mounts under it, for the normal path). Every command runs
# from outside with `chroot ROOT /bundle/bin/zt ...` in a clean
# environment; the checks read its output here. The mounts are made in a
# mount namespace of the test's own and undone before $T is removed, also
# on failure.
# ZT_GPU_BUNDLE_NS: set inside that namespace (the script runs itself again there)
if [ -z "${ZT_GPU_BUNDLE_NS:-}" ] && [ "$(id -u)" -eq 0 ] &&
	unshare -m --propagation private true 2> /dev/null; then
	ZT_GPU_BUNDLE_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gpulib.sh"
gpu_setup
case "$B" in *build-asan*) skip "the bundle is made of the plain build"; finish ;; esac
if [ -z "${ZT_GPU_BUNDLE_NS:-}" ]; then
	skip "the chroot needs root and a mount namespace of its own (unshare -m): not here"
	finish
fi
CHROOT=$(command -v chroot) || { skip "no chroot command"; finish; }
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$B/bundle/libztcupti.so" ] || [ ! -f "$G/gpucheck.cubin" ]; then
	fail "no $B/bundle/libztcupti.so or no $G/gpucheck.cubin: make tests-build builds them"
	finish
fi

R=$T/root
mounts=()
# undo the chroot's mounts (last first); while one stays, $T stays too
# (lib.sh's cleanup would remove it with rm -rf, into /proc and /sys)
chroot_down() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[i]}" 2> /dev/null || umount -l "${mounts[i]}"
	done
	mounts=()
	if grep -q " ${R}[/ ]" /proc/self/mountinfo; then
		echo "  (still mounted under $R: $T kept)"
		KEEP_T=1
		return 1
	fi
}
trap 'chroot_down; cleanup' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
mnt() { # mnt MOUNT-ARGS... TARGET
	mount "$@" || return 1
	mounts+=("${!#}")
}

# ---- the root ----------------------------------------------------------------------
# glibc's libraries where the host's are (/lib/x86_64-linux-gnu on Debian),
# its dynamic loader where the binaries ask for it (/lib64/ld-linux-x86-64.so.2)
libdir=$(ldd "$B/zt" | awk '$1 == "libc.so.6" { sub("/libc.so.6$", "", $3); print $3 }')
interp=$(readelf -l "$B/zt" | sed -n 's/.*interpreter: \(.*\)\]$/\1/p')
glibc=(ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1 libpthread.so.0 libdl.so.2 librt.so.1
	libresolv.so.2 libutil.so.1 libanl.so.1 libnss_files.so.2 libnss_dns.so.2 libnsl.so.1
	libBrokenLocale.so.1 libc_malloc_debug.so.0 libthread_db.so.1)
mkdir -p "$R$libdir" "$R$(dirname "$interp")" "$R/tmp" "$R/proc" "$R/sys" "$R/dev" "$R/standin"
chmod 1777 "$R/tmp"
for f in "${glibc[@]}" libgcc_s.so.1 libstdc++.so.6; do
	[ -e "$libdir/$f" ] && cp -L "$libdir/$f" "$R$libdir/"
done
[ -e "$R$interp" ] || ln -s "$libdir/$(basename "$interp")" "$R$interp"
"$root/scripts/gpu-bundle.sh" "$B" "$R/bundle" > "$T/bundle.txt" 2>&1
check "scripts/gpu-bundle.sh makes the bundle of $B" [ $? -eq 0 ]
sed 's/^/  /' "$T/bundle.txt"
bytes=$(find "$R/bundle" -type f -printf '%s\n' | awk '{ t += $1 } END { print t + 0 }')
check "the bundle is under 40 MiB ($bytes bytes)" [ "$bytes" -lt $((40 << 20)) ]
cp "$SD/libcuda.so.1" "$SD/libcupti.so.13" "$R/standin/"
# the stand-in's own libraries (the stand-in CUPTI reads cubins with
# libelf), but none that a file of the bundle needs: those must come from
# the bundle (a library of the bundle from the bundle: checked below)
needs=" $(find "$R/bundle" -type f \( -name '*.so*' -o -perm -u+x \) -exec readelf -d {} \; 2> /dev/null |
	sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | sort -u | tr '\n' ' ')"
skipre="^($(printf '%s|' "${glibc[@]}" | sed 's/[.+]/\\&/g')linux-vdso\.so\.1|libgcc_s\.so\.1|libstdc\+\+\.so\.6|libcuda\.so\.1|libcupti\.so\.13)$"
own=
while read -r so path; do
	[[ "$so" =~ $skipre ]] && continue
	[ -e "$R/bundle/lib/zt/$so" ] && continue
	[[ "$needs" == *" $so "* ]] && continue
	cp -L "$path" "$R/standin/$so" && own="$own $so"
done < <(LD_LIBRARY_PATH=$SD ldd "$SD/libcuda.so.1" "$SD/libcupti.so.13" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u)
: > "$R/dev/null"
mnt --bind /dev/null "$R/dev/null" &&
	mnt -t proc proc "$R/proc" &&
	mnt --bind /sys "$R/sys" &&
	mount -o remount,bind,ro "$R/sys"
check "the chroot's mounts: /dev/null, /proc, /sys (read-only)" [ $? -eq 0 -a "${#mounts[@]}" -eq 3 ]
others=$(find "$R" -path "$R/proc" -prune -o -path "$R/sys" -prune -o -path "$R/bundle" -prune -o \
	-path "$R/standin" -prune -o -path "$R$libdir" -prune -o \( -type f -o -type l \) -print | sed "s|^$R||" | tr '\n' ' ')
echo "  chroot $R: $libdir: $(ls "$R$libdir" | tr '\n' ' ')"
echo "  /standin: $(ls "$R/standin" | tr '\n' ' ')(the stand-in's own:${own:- none}); besides /bundle, /proc, /sys: $others"
check "nothing in the chroot but glibc, libgcc_s, libstdc++, the bundle, the stand-ins, /dev/null" \
	[ "$others" = "$interp /dev/null " -o "$others" = "/dev/null $interp " ]

# inroot NAME [VAR=VALUE...] -- CMD...: CMD in the chroot with only those
# variables; its stdout to $T/NAME.out, stderr to $T/NAME.err
inroot() {
	local n=$1 v=()
	shift
	while [ "$1" != -- ]; do v+=("$1"); shift; done
	shift
	timeout -k 5 60 env -i "${v[@]}" "$CHROOT" "$R" "$@" > "$T/$n.out" 2> "$T/$n.err" < /dev/null
}
# ldcheck NAME FILE: the dynamic loader in the chroot finds every library FILE
# needs (LD_LIBRARY_PATH=/standin, as for the programs): a library the
# bundle has from the bundle, the others from glibc's folder or /standin
ldcheck() {
	inroot "ld-$1" LD_LIBRARY_PATH=/standin -- "$interp" --list "$2"
	local st=$? bad
	bad=$(awk -v lib="$libdir/" -v b=/bundle/lib/zt/ '
		/not found/ { print; next }
		$2 == "=>" { if (system("test -e '"$R"'" b $1) == 0) { if ($3 != b $1) print }
			     else if (index($3, lib) != 1 && index($3, "/standin/") != 1) print }' "$T/ld-$1.out")
	bad=$bad$(grep -E 'error|not found' "$T/ld-$1.err")
	[ -z "$bad" ] || echo "$bad" | sed "s/^/    $1: /"
	[ "$st" -eq 0 ] && [ -z "$bad" ]
}
check "ld.so --list /bundle/bin/zt in the chroot: glibc's libraries only" \
	all 'ldcheck zt /bundle/bin/zt' \
	"! awk '\$2 == \"=>\"' '$T/ld-zt.out' | grep -v ' $libdir/'"
check "ld.so --list /bundle/lib/zt/libztcupti.so: every library found, the bundle's from /bundle/lib/zt" \
	ldcheck cupti /bundle/lib/zt/libztcupti.so
check "libztcupti.so's libunwind from the bundle" contains "$T/ld-cupti.out" '^\s*libunwind\.so\.[0-9]+ => /bundle/lib/zt/'
check "ld.so --list of the bundle's gpucheck_app and noperf.so: every library found" \
	all 'ldcheck app /bundle/tests/gpucheck_app' 'ldcheck noperf /bundle/tests/noperf.so'

# ---- zt record --gpu, script, report in the chroot ------------------------------------
crc=$("$G/cubin_crc" "$G/gpucheck.cubin")
envs=(HOME=/tmp ZT_CONFIG=/dev/null ZT_CACHE_DIR=/tmp/cache)
# gpu-check.sh's stand-in run: the stand-ins on LD_LIBRARY_PATH, the
# cubin's CRC as the real CUPTI computes it
inroot rec "${envs[@]}" LD_LIBRARY_PATH=/standin ZT_STANDIN_CUBIN_CRC="$crc" -- \
	/bundle/bin/zt record -v --gpu -g -o /tmp/app.data -- /bundle/tests/gpucheck_app /bundle/tests/gpucheck.cubin 65536 100 5
check "zt record -v --gpu -g of gpucheck_app in the chroot exits 0" [ $? -eq 0 ]
sed -n 's/^\(zt record: \|zt gpu: \|\[ zt record: \)/  | &/p' "$T/rec.err" | cut -c1-200
check "the program ran on the stand-in" contains "$T/rec.out" '^GC kernel name=gc_hot '
check "the bundle's libztcupti.so on the stand-in CUPTI" contains "$T/rec.err" '^zt gpu: CUPTI [0-9]+ from /standin/libcupti\.so\.13'
check "CPU samples recorded" contains "$T/rec.err" 'Captured and wrote .* \(([1-9][0-9]*) samples\)'
if [ -e /sys/kernel/btf/vmlinux ]; then
	check "CPU sampling by the BPF sampler, as outside (BTF from /sys)" contains "$T/rec.err" '^zt record: BPF program: [1-9]'
else
	skip "no BTF on this kernel: the BPF sampler is not run outside the chroot either"
fi
check "GPU records summed up" contains "$T/rec.err" 'GPU: 1 process, 18 kernels, 18 launches \(18 with stacks\)'
inroot script "${envs[@]}" -- /bundle/bin/zt script -i /tmp/app.data --gpu
check "zt script --gpu in the chroot exits 0" [ $? -eq 0 ]
inroot report "${envs[@]}" -- /bundle/bin/zt report -i /tmp/app.data --gpu --stdio
check "zt report --gpu --stdio in the chroot exits 0" [ $? -eq 0 ]
s=$T/script.out
while read -r _ _ k n _; do
	k=${k#name=} n=${n#launches=}
	got=$(grep -c "cuda:kernel:.* name=$k\$" "$s")
	check "$k: its $n launches recorded with its name ($got)" [ "$got" -eq "$n" ]
done < <(grep '^GC kernel ' "$T/rec.out")
check "the bundle's libztcupti.so was the one injected" contains "$s" 'cuda:info: library=/bundle/lib/zt/libztcupti\.so'
check "PC samples with stall reasons on gc_hot" \
	contains "$s" 'cuda:pcsample: .*stall=smsp__pcsamp_warps_issue_stalled_[a-z_]+ samples=[1-9][0-9]* function=gc_hot$'
check "the cubin in the recording" contains "$s" 'cuda:cubin: crc=0x[0-9a-f]+ size=[1-9]'
read -r with total < <(awk '
	/cuda:kernel:/ { if (inq) { t++; w += hit } inq = ($NF == "name=gc_hot"); hit = 0; next }
	inq && $2 ~ /^launch_hot\+/ && $3 == "(/bundle/tests/gpucheck_app)" { hit = 1 }
	inq && /^$/ { t++; w += hit; inq = 0 }
	END { if (inq) { t++; w += hit } print w + 0, t + 0 }' "$s")
check "gc_hot's launch stacks resolved through launch_hot ($with of $total)" [ "$total" -gt 0 -a "$with" -eq "$total" ]
check "zt report: gc_hot in the kernel table" contains "$T/report.out" '^ +[0-9.]+% +[0-9.]+[mun]?s +[0-9]+ .* gc_hot$'
check "zt report: gc_hot's launch site through launch_hot" contains "$T/report.out" '^ +\| +launch_hot$|--launch_hot$'
check "zt report: gc_hot's PC samples on gpucheck.cu lines" \
	bash -c "sed -n '/^# Kernel gc_hot:/,/^# *Self/p' '$T/report.out' | grep -qE '^ +[0-9]+ +[0-9.]+% +gpucheck\.cu:[0-9]+ +gc_hot '"
check "no library missing in any command (no 'cannot open shared object')" \
	bash -c "! grep -l 'cannot open shared object\|error while loading shared libraries\|not found' '$T'/*.err"

chroot_down
check "the chroot's mounts undone" [ $? -eq 0 ]
finish
