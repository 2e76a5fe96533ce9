#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The main job on a fresh Debian 12 machine: install what is missing, build,
# record the whole system for a few seconds, and print the report.
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	echo "scripts/run.sh: run as root (system-wide recording loads BPF programs): sudo $0" >&2
	exit 1
fi
scripts/setup.sh
make -j"$(nproc)"
out=${ZT_OUTPUT:-/tmp/zt-demo.data}
echo "+ zt record -a -g -o $out -- sleep ${ZT_SECONDS:-5}"
build/zt record -a -g -o "$out" -- sleep "${ZT_SECONDS:-5}"
echo "+ zt report -i $out --stdio"
build/zt report -i "$out" --stdio --percent-limit 0.5 | head -n "${ZT_LINES:-60}"
