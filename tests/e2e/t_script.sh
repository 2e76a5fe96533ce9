#!/usr/bin/env bash
# zt script: perf script's default text (checked against real perf's), -F,
# -G, and --folded equal to what stackcollapse-perf.pl makes of the text.
. "$(dirname "$0")/lib.sh"
cd "$T"
not() { ! "$@"; }

# stackcollapse-perf.pl's parsing with its default options, rewritten here
# (FlameGraph is not packaged in Debian): a header line names the process
# and gives the weight (the period, or 1); frame lines "ADDR SYM+0xOFF (DSO)"
# are stacked root first; a blank line ends a sample; output sorted.
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
		my ($f, $m, $k, @p) = ($2, $3, 0);
		$f =~ s/\+0x[\da-f]+$//;
		next if $f =~ /^\(/;
		for my $x (split /->/, $f) {
			if ($x eq "[unknown]") {
				if ($m ne "[unknown]") { ($x = $m) =~ s:.*/::; } else { $x = "unknown"; }
				$x = "[$x]";
			}
			$x =~ s/;/:/g;
			$x =~ s/\((?!anonymous namespace\)).*// unless $x =~ /\.\(.*\)\./;
			$x =~ tr/"\x27//d;
			$x =~ s/^L// if $name =~ /^java/ && $x =~ m:/:;
			$x .= "_[i]" if $k++ && $x !~ /_\[i\]/;
			push @p, $x;
		}
		unshift @st, @p;
	}
	print "$_ $c{$_}\n" for sort keys %c;
	'
}

# The structure of perf script's default output for a -g recording: a
# header "comm TID TIME: PERIOD EVENT: " (no [CPU] without -a), frame lines
# "\t%16x sym+0xoff (dso)", a blank line. Prints the number of samples, or
# the first line that does not fit.
HDR='^[^ 	].* +[0-9]+ +[0-9]+[.][0-9][0-9][0-9][0-9][0-9][0-9]: +[0-9]+ [^ ]+: $'
FRAME='^	[ 0-9a-f]+ ([^ ].*[+]0x[0-9a-f]+|[[]unknown[]]) [(].+[)]$'
structure() {
	awk -v hdr="$HDR" -v frame="$FRAME" '
	state == 0 { if ($0 !~ hdr) { print "bad header " NR ": " $0; bad = 1; exit } n++; state = 1; next }
	state == 1 { if ($0 == "") { state = 0; next }
		     if ($0 !~ frame || substr($0, 18, 1) != " " || substr($0, 17, 1) == " ") { print "bad frame " NR ": " $0; bad = 1; exit } }
	END { if (!bad) { if (state) print "no blank line at the end"; else print n } }' "$1"
}

"$ZT" record -g -o w.data -- "$WL/hot" hot 1 2> rec.err
check "record exits 0" [ $? -eq 0 ]
n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' rec.err)
"$ZT" script -i w.data > s.txt 2> s.err
check "script exits 0" [ $? -eq 0 ]
check "nothing on stderr" [ ! -s s.err ]
st=$(structure s.txt)
echo "  structure: $st (record: ${n:-?} samples)"
check "every sample is header, frame lines, blank line" [ "$st" = "${n:-x}" ]
check "zt_hot_a frames, DSO-relative, with the binary's path" \
	contains s.txt $'^\t {8,}[0-9a-f]+ zt_hot_a\\+0x[0-9a-f]+ \\(.*/hot\\)$'
check "header: comm tid time period event" contains s.txt '^hot +[0-9]+ +[0-9]+\.[0-9]{6}: +[0-9]+ cpu-clock: $'
check "no [cpu] without -a" not contains s.txt '^hot +[0-9]+ \['
check "time order" awk '/^[^\t]/ { t = $3 + 0; if (t < last) exit 1; last = t }' s.txt

# folded stacks: counts are samples; what stackcollapse-perf.pl makes of
# the text (without the period, which it would use as the weight)
"$ZT" script -i w.data --folded > f.txt
check "--folded exits 0" [ $? -eq 0 ]
check "--folded counts sum to the samples" [ "$(awk '{ s += $NF } END { print s }' f.txt)" = "${n:-x}" ]
check "--folded has hot;...;main;run_for;zt_round;zt_hot_a" \
	contains f.txt '^hot;(.*;)?main;run_for;zt_round;zt_hot_a [0-9]+$'
check "--folded sorted bytewise" env LC_ALL=C sort -c f.txt
"$ZT" script -i w.data -F -period | collapse > c.txt
check "stackcollapse of zt script -F -period == zt script --folded" cmp -s c.txt f.txt
"$ZT" script -i w.data | collapse > cw.txt
check "stackcollapse of the default output weighs by period" \
	[ "$(awk '{ s += $NF } END { print s }' cw.txt)" = "$(awk '/^[^\t]/ && NF { s += $(NF-1) } END { print s }' s.txt)" ]
"$ZT" script -i w.data --inline -F -period | collapse > ci.txt
"$ZT" script -i w.data --inline --folded > fi.txt
check "--inline: folded == stackcollapse of the text" cmp -s ci.txt fi.txt

# -F, -G, --ns
"$ZT" script -i w.data -F comm,tid,time > F1.txt
check "-F comm,tid,time: header only, %16s comm" \
	not grep -qvE '^ +hot +[0-9]+ +[0-9]+\.[0-9]{6}: $' F1.txt
"$ZT" script -i w.data -F +pid,-period > F2.txt
check "-F +pid,-period" contains F2.txt '^hot +[0-9]+/[0-9]+ +[0-9.]+: cpu-clock: $'
"$ZT" script -i w.data -F ip,sym > F3.txt
check "-F ip,sym: frames without offsets or DSO" contains F3.txt $'^\t +[0-9a-f]+ zt_hot_a$'
"$ZT" script -i w.data -F comm,+pid > /dev/null 2>&1
check "-F: mixing a list and +field is a usage error" [ $? -eq 129 ]
"$ZT" script -i w.data -F nosuch > /dev/null 2> F4.err
check "-F: unknown field is a usage error" [ $? -eq 129 ]
"$ZT" script -i w.data -G > G.txt
check "-G: one line per sample, absolute address" \
	contains G.txt '^ +hot +[0-9]+ +[0-9.]+: +[0-9]+ cpu-clock: +[0-9a-f]{12,} zt_hot_a\+0x[0-9a-f]+ \(.*/hot\)$'
check "-G: as many lines as samples" [ "$(wc -l < G.txt)" = "${n:-x}" ]
"$ZT" script -i w.data --ns -F time > ns.txt
check "--ns: nanoseconds" contains ns.txt '^ *[0-9]+\.[0-9]{9}: $'

# a closed pipe is a normal end; a full disk is not
"$ZT" script -i w.data 2> pipe.err | head -1 > /dev/null
check "zt script | head: exit 0" [ "${PIPESTATUS[0]}" -eq 0 ]
check "zt script | head: no message" [ ! -s pipe.err ]
"$ZT" script -i w.data > /dev/full 2> full.err
check "full disk: exit 1" [ $? -eq 1 ]
check "full disk: said" contains full.err 'cannot write the output'
"$ZT" script -i missing.data 2> miss.err
check "missing input: exit 1" [ $? -eq 1 ]
check "missing input: named" contains miss.err "cannot open 'missing.data'"

# the same workload under real perf: its lines fit the same patterns.
# perf 6.1 here sometimes dies in its build-id code ("assertion failed at
# util/build-id.c", "stack smashing detected"), on some recordings every
# time: record with --buildid-mmap -B (as t_report.sh), and record again
# until every perf script output the checks need comes out of one file
perf_fields="comm,tid,time comm,pid,tid,event,ip,sym ip,dso"
perf_outputs() {
	local f
	perf script -i p.data > p.txt 2> /dev/null || return 1
	perf script -i p.data -F -period > pp.txt 2> /dev/null || return 1
	for f in $perf_fields; do
		perf script -i p.data -F $f > "pf0-$f.txt" 2> /dev/null || return 1
	done
}
if command -v perf > /dev/null; then
	perf_good=0
	for try in 1 2 3 4 5 6; do
		perf record -q --buildid-mmap -B -e cpu-clock -g -o p.data -- "$WL/hot" hot 0.5 \
			> /dev/null 2>&1 && perf_outputs && { perf_good=1; break; }
	done
	check "perf recorded a file its own perf script reads (6 tries)" [ $perf_good -eq 1 ]
	pst=$(structure p.txt)
	echo "  perf script structure: $pst"
	check "perf script's output fits the same patterns" grep -qxE '[0-9]+' <<< "$pst"
	check "perf script has the same zt_hot_a lines" \
		contains p.txt $'^\t {8,}[0-9a-f]+ zt_hot_a\\+0x[0-9a-f]+ \\(.*/hot\\)$'
	collapse < pp.txt > pc.txt
	check "perf's folded stacks have the same shape" \
		contains pc.txt '^hot;(.*;)?main;run_for;zt_round;zt_hot_a [0-9]+$'
	for f in $perf_fields; do
		sed -n '1,3p' "pf0-$f.txt" | sed 's/[0-9a-f]/0/g; s/hot /comm /' > pf.txt
		"$ZT" script -i w.data -F $f | sed -n '1,3p' | sed 's/[0-9a-f]/0/g; s/hot /comm /' > zf.txt
		# same columns: the lines match once digits are masked (widths may differ by digits)
		check "-F $f: same line shapes as perf" \
			[ "$(sed 's/0\+/0/g; s/ \+/ /g' pf.txt | head -1)" = "$(sed 's/0\+/0/g; s/ \+/ /g' zf.txt | head -1)" ]
	done
	"$ZT" script -i p.data > pd.txt 2> pd.err
	check "perf.data: read, or said to be unsupported" \
		bash -c "[ -s pd.txt ] || grep -q 'not supported yet' pd.err"
else
	echo "  (perf not installed: comparison with perf script skipped)"
fi
finish
