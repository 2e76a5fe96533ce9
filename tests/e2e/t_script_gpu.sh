#!/usr/bin/env bash
# zt script on a zt record --gpu recording (written by ztgen gpu): kernels
# with their launch stacks resolved like the samples', memory operations,
# PC samples summed (with their frames), cubins, counters and warnings;
# time order among the samples; --gpu, --cpu, -G, --folded --gpu,
# demangling options; the CPU part unchanged
# for the tools that parse perf script's samples.
. "$(dirname "$0")/lib.sh"
cd "$T"
not() { ! "$@"; }
ZTGEN=$(dirname "$WL")/ztgen
HOT=$WL/hot

# stackcollapse-perf.pl's parsing, as t_script.sh has it (abridged: no
# inline or Java rules): headers start with the name, a blank line ends
# a sample, frame lines without a header before them are dropped
collapse() {
	perl -e '
	my (%c, @st, $name, $w);
	while (<>) {
		chomp;
		if ($_ eq "") {
			$c{join(";", $name, @st)} += $w if defined $name;
			@st = (); undef $name; next;
		}
		if (/^(\S.+?)\s+(\d+)\/*(\d+)*\s+/) {
			($name = $1) =~ tr/ /_/;
			$w = (/:\s*(\d+)*\s+(\S+):\s*$/ && $1) ? $1 : 1;
			next;
		}
		next unless /^\s*(\w+)\s*(.+) \((.*)\)/;
		my $f = $2;
		$f =~ s/\+0x[\da-f]+$//;
		unshift @st, $f;
	}
	print "$_ $c{$_}\n" for sort keys %c;
	'
}

# the file offset of function $1 in $HOT, plus $2
offset() {
	local v off va sz
	v=$((16#$(nm "$HOT" | awk -v f="$1" '$3 == f { print $1 }') + $2))
	while read -r off va sz; do
		if ((v >= va && v < va + sz)); then
			printf '%x\n' $((v - va + off))
			return
		fi
	done < <(readelf -lW "$HOT" | awk '$1 == "LOAD" { print $2, $3, $5 }')
}

stack="$(offset zt_hot_a 4) $(offset zt_round 8) $(offset run_for 32) $(offset main 50)"
# shellcheck disable=SC2086
"$ZTGEN" gpu 250 g.data "$HOT" $stack
check "ztgen gpu writes a recording" [ -s g.data ]

"$ZT" script -i g.data > all.txt 2> all.err
check "script exits 0" [ $? -eq 0 ]
check "the lost records are said on stderr" contains all.err 'process 4343 lost 5 GPU activity records'
check "nothing else on stderr" [ "$(wc -l < all.err)" = 1 ]
check "250 CPU samples" [ "$(grep -c ' cpu-clock: $' all.txt)" = 250 ]
check "255 kernels (250 + 2 of a graph + 3 of another process)" \
	[ "$(grep -c ' cuda:kernel: ' all.txt)" = 255 ]
check "kernel line: header, fields, demangled name last" \
	contains all.txt '^ +launcher +4243 +[0-9]+\.[0-9]{6}: cuda:kernel: dev=0 ctx=1 stream=7 dur=300\.000us grid=256,1,1 block=128,1,1 regs=32 smem=0\+0 lmem=0 corr=9 name=matmul_f32$'
check "a template name" contains all.txt 'name=torch::native::relu_kernel<float>$'
check "launch stacks resolved through the frame table" \
	[ "$(grep -A4 ' corr=3 name=' all.txt | grep -cE $'^\t +[0-9a-f]+ (zt_hot_a\\+0x4|zt_round\\+0x8|run_for\\+0x20|main\\+0x32) \\(.*/hot\\)$')" = 4 ]
check "the samples' frames read the same" \
	[ "$(grep -A4 -m1 ' cpu-clock: $' all.txt | tail -4)" = "$(grep -A4 ' corr=3 name=' all.txt | tail -4)" ]
check "every 10th launch over the rate: no stack, said" \
	[ "$(grep -c ' launch=ratelimited name=' all.txt)" = 25 ]
check "kernels of no launch: said" [ "$(grep -c ' launch=none name=' all.txt)" = 3 ]
check "a runtime launch: its nested driver launch's stack" \
	contains <(grep -A1 ' corr=15 name=' all.txt) $'^\t +[0-9a-f]+ zt_hot_a\\+0x4'
check "a launch the BPF sampler took (USDT): its stack" \
	contains <(grep -A1 ' corr=11 name=' all.txt) $'^\t +[0-9a-f]+ zt_hot_a\\+0x4'
check "graph kernels: their graph launch's stack" \
	[ "$(grep -A1 ' graph=9 node=3 ' all.txt | grep -c zt_hot_a)" = 2 ]
check "a kernel without a stack: header and an empty line" \
	[ "$(grep -A1 ' corr=1 launch=ratelimited' all.txt | tail -1)" = "" ]
check "copies: direction, memory kinds, bytes, throughput" \
	[ "$(grep -cE 'cuda:memcpy: dev=0 ctx=1 stream=7 dur=100\.000us kind=HtoD src=(pageable|pinned) dst=device bytes=1048576 rate=10\.49GB/s corr=10000[0-2]$' all.txt)" = 3 ]
check "a copy back" contains all.txt 'cuda:memcpy: .* kind=DtoH src=device dst=pageable bytes=1048576 rate=5\.24GB/s corr=200001$'
check "a memset" contains all.txt 'cuda:memset: .* dst=device bytes=4096 value=0 rate=2\.05GB/s corr=200000$'
check "an overhead" contains all.txt '^ +trainer +4242 +1\.000050: cuda:overhead: kind=cupti_buffer_flush object=thread:4242,4243 dur=1\.000us$'
check "time order across samples and GPU records" \
	awk '/^ *[^ \t]+ +[0-9]+ +[0-9]+\.[0-9]+: / { t = $3 + 0; if (t < last) exit 1; last = t }' all.txt
check "PC samples summed over the three batches" \
	contains all.txt '^ +trainer +4242 cuda:pcsample: cubin=0x1234abcd5678ef01 pc=0x0 stall=selected samples=3 function=matmul_f32$'
check "20 PC sample lines, after the last timed record" \
	[ "$(grep -c 'cuda:pcsample:' all.txt)" = 20 -a \
	  "$(grep -n 'cuda:pcsample:' all.txt | head -1 | cut -d: -f1)" -gt "$(grep -n 'cuda:memcpy: .*DtoH' all.txt | cut -d: -f1)" ]
check "stall reasons by name" contains all.txt 'pc=0x10 stall=long_scoreboard samples=6 function=torch::native::relu_kernel<float>$'
check "the cubin" contains all.txt 'cuda:cubin: crc=0x1234abcd5678ef01 size=64 module=3 ctx=1$'
check "info and warnings" contains all.txt '^ +trainer +4242 cuda:info: cupti_version=23$' && \
	contains all.txt '^ +infer +4343 cuda:warning: PC sampling is not supported on this device$'
check "counters" contains all.txt '^ +infer +4343 cuda:counters: .*dropped_records=5 '

# --gpu, --cpu
"$ZT" script -i g.data --gpu > gpu.txt 2> gpu.err
check "--gpu: exit 0" [ $? -eq 0 ]
check "--gpu: no samples" not contains gpu.txt 'cpu-clock'
check "--gpu: the GPU records of the default output" \
	cmp -s <(grep 'cuda:' all.txt) <(grep 'cuda:' gpu.txt)
check "--gpu: with their stacks (250 - 25 over the rate + 2 of the graph)" [ "$(grep -c zt_hot_a gpu.txt)" = 227 ]
"$ZT" script -i g.data --cpu > cpu.txt 2> cpu.err
check "--cpu: exit 0, no GPU records, no GPU warnings" \
	all "[ $? -eq 0 ]" "not contains cpu.txt 'cuda:'" '[ ! -s cpu.err ]'
check "--cpu: 250 samples" [ "$(grep -c ' cpu-clock: $' cpu.txt)" = 250 ]
collapse < all.txt > c-all.txt
collapse < cpu.txt > c-cpu.txt
check "stackcollapse of the default output == of --cpu (GPU lines passed over)" \
	cmp -s c-all.txt c-cpu.txt
check "... and it holds the samples" [ "$(awk '{ s += $NF } END { print s }' c-cpu.txt)" = 250000000 ]
"$ZT" script -i g.data --gpu --cpu > /dev/null 2> both.err
check "--gpu --cpu: usage error" all "[ $? -eq 129 ]" "contains both.err 'cannot be used together'"
"$ZT" script -i g.data --gpu --folded > gf.txt 2> /dev/null
check "--gpu --folded: GPU stacks holding every PC sample" \
	[ "$(awk '{ s += $NF } END { print s }' gf.txt)" = "$(grep 'cuda:pcsample:' gpu.txt | sed 's/.* samples=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s }')" ]
check "--gpu --folded: launch stack, kernel, stall reason" \
	contains gf.txt '^launcher;main;run_for;zt_round;zt_hot_a;matmul_f32_\[g\];long_scoreboard_\[gs\] [0-9]+$'
check "--gpu --folded: launches past the rate show their kernel's sampled stack (no [no launch stack])" \
	bash -c "! grep -q 'no launch stack' gf.txt"
"$ZT" script -i g.data --folded > f.txt 2> /dev/null
check "--folded: the CPU samples only" [ "$(awk '{ s += $NF } END { print s }' f.txt)" = 250 ]

# -G, names, fields
"$ZT" script -i g.data --gpu -G > G.txt 2> /dev/null
check "-G: one line per GPU record" not grep -q $'^\t\\|^$' G.txt
check "-G: every record" [ "$(wc -l < G.txt)" = "$(grep -c 'cuda:' gpu.txt)" ]
"$ZT" script -i g.data --gpu --no-demangle > nd.txt 2> /dev/null
check "--no-demangle: mangled names" contains nd.txt 'name=_Z10matmul_f32PKfS0_Pfi$' && \
	contains nd.txt 'function=_ZN5torch6native11relu_kernelIfEEvPT_i$'
"$ZT" script -i g.data --gpu --full-signature > fs.txt 2> /dev/null
check "--full-signature: parameter lists" \
	contains fs.txt 'name=matmul_f32\(float const\*, float const\*, float\*, int\)$'
"$ZT" script -i g.data --gpu --ns > ns.txt 2> /dev/null
check "--ns: nanoseconds" contains ns.txt '^ +launcher +4243 +1\.001220000: cuda:kernel: '
"$ZT" script -i g.data --gpu -F comm,pid > F.txt 2> /dev/null
check "-F comm,pid: no time" contains F.txt '^ +launcher +4242 cuda:kernel: ' && \
	not contains F.txt '[0-9]\.[0-9]{6}:'
"$ZT" script -i g.data --gpu -F comm,tid,time > F2.txt 2> /dev/null
check "-F without ip: no frames" not grep -q $'^\t' F2.txt
"$ZT" script -i g.data -q > q.txt 2> q.err
check "-q: no warning" [ ! -s q.err ]

# a recording without GPU records
"$ZTGEN" stacks 10 cpu.data
"$ZT" script -i cpu.data --gpu > n.txt 2> n.err
check "--gpu on a CPU recording: nothing, a warning" \
	all '[ ! -s n.txt ]' "contains n.err 'has no GPU records'"
"$ZT" script -i cpu.data > n2.txt 2> n2.err
check "a CPU recording: no cuda lines" not contains n2.txt 'cuda:'

# the filters select GPU records by the process and thread that launched
# them (infer's 3 kernels have no launch) and by their time
nk() { "$ZT" script --gpu -i g.data "$@" 2> /dev/null | grep -c ' cuda:kernel: '; }
check "--pid 4343: its 3 kernels" [ "$(nk --pid 4343)" = 3 ]
check "--comm launcher: the 252 it launched" [ "$(nk --comm launcher)" = 252 ]
check "--tid 4242: none (the launcher is 4243)" [ "$(nk --tid 4242)" = 0 ]
k1=$(nk --time 0%-50%)
k2=$(nk --time 50%-100%)
check "--time halves: $k1 + $k2 of 255 kernels" [ "$k1" -gt 0 -a "$k2" -gt 0 -a \
	  $((k1 + k2)) -ge 255 -a "$k1" -lt 255 -a "$k2" -lt 255 ]
"$ZT" script --folded --gpu -i g.data --comm launcher > fo1.txt 2> /dev/null
"$ZT" script --folded --gpu -i g.data --comm infer > fo2.txt 2> /dev/null
check "--folded --gpu --comm: the launcher's PC samples, none of infer" \
	[ -s fo1.txt -a ! -s fo2.txt ]

# the other readers of the file
"$ZT" report --stdio -i g.data > r.txt 2> r.err
check "zt report reads it (the CPU samples)" all "[ $? -eq 0 ]" "contains r.txt 'zt_hot_a'"
"$ZT" script -i g.data 2> pipe.err | head -1 > /dev/null
check "zt script | head: exit 0" [ "${PIPESTATUS[0]}" -eq 0 ]
"$ZT" script -i g.data > /dev/full 2> full.err
check "full disk: exit 1" all "[ $? -eq 1 ]" "contains full.err 'cannot write the output'"
finish
