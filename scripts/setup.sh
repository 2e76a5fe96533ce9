#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what zt needs to build, test and benchmark on Debian 12 (idempotent).
# Usage: scripts/setup.sh [--test]   (--test adds what the test suite needs)
set -euo pipefail

pkgs=(make gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev libdw-dev
      libdebuginfod-dev liblzma-dev libiberty-dev libssl-dev zlib1g-dev libzstd-dev
      libncurses-dev protobuf-c-compiler libprotobuf-c-dev
      libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev)
# libcapstone-dev: the disassembler of zt annotate
pkgs+=(libcapstone-dev)
# libtraceevent-dev: tracepoint fields in zt script (optional to the build)
pkgs+=(libtraceevent-dev)
# libarchive-dev: the tar files of zt archive (written and read)
pkgs+=(libarchive-dev)
# libztcupti.so (cupti/, built when CUDA's CUPTI is found): libunwind-dev for
# in-process launch stacks, systemtap-sdt-dev for <sys/sdt.h> (the USDT
# probe zt:launch that zt record's BPF sampler attaches to)
pkgs+=(libunwind-dev systemtap-sdt-dev)
if [ "${1:-}" = "--test" ]; then
	# cmocka: unit tests; linux-perf: reference recordings and benchmarks;
	# procps/util-linux: ps, setpriv in the end-to-end scripts; file/binutils: checks
	# tmux: drives the TUIs (report, top) in the tests; chromium (headless) and
	# libxml2-utils (xmllint): the flame graph SVG in a real browser
	# debuginfod: a local server for the symbolizer tests; libc6-dbg: libc's
	# debug files, a real /usr/lib/debug/.build-id tree
	pkgs+=(libcmocka-dev linux-perf procps util-linux binutils debuginfod libc6-dbg time tmux chromium libxml2-utils)
	# (libunwind-dev, in the list above, also serves the unwinder benchmark:
	# bench/unwind_cmp.c, libunwind's remote API against libdwfl)
	# libclang-rt-14-dev: libFuzzer and the sanitizers' runtime for clang
	# (make fuzz, make fuzz-run)
	pkgs+=(libclang-rt-14-dev)
	# man-db: t_install checks that man(1) finds the installed pages
	pkgs+=(man-db)
	# curl: the zt serve tests talk to the server's HTTP API with it;
	# lld: a binary laid out as lld lays it out, iproute2: loopback in a
	# network namespace of its own (t_serve_debuginfod)
	pkgs+=(curl lld iproute2)
	# openssl: t_serve makes a self-signed certificate for zt serve's TLS;
	# zstd: t_serve_symbols sends a zstd-encoded upload made by the zstd tool
	pkgs+=(openssl zstd)
	# g++: C++ test programs (demangled names, test_dwarfsyms); xz-utils:
	# MiniDebugInfo sections (test_debugfind); python3: a CRC32 reference
	# (test_debugfind); perl: t_hostile's byte-level edits. A minimal
	# Debian has none of the first three.
	pkgs+=(g++ xz-utils python3 perl)
	# t_perf_parity: real Debian programs perf and zt must name alike:
	# sqlite3 (a stripped C library with .dynsym only, libc with libc6-dbg),
	# clang-14 (C++ libraries, libLLVM-14 and libclang-cpp, .dynsym only),
	# python3.11 with python3.11-dbg (a program with a detached debug file)
	pkgs+=(sqlite3 clang-14 python3.11 python3.11-dbg)
	# python3.11-venv: t_python's virtualenv (python3.11-dbg's python3.11d
	# is its debug build)
	pkgs+=(python3.11-venv)
	# duktape-dev: /usr/share/duktape/duktape.c, a ~100k-line C program
	# (t_symbolize_parity: zt symbolize against addr2line and llvm-symbolizer)
	pkgs+=(duktape-dev)
	# golang-go (Go 1.19): stripped and unstripped Go programs for the
	# .gopclntab symbol source (test_gopclntab, t_go), go tool addr2line
	pkgs+=(golang-go)
	# clickhouse-server, clickhouse-client (18.16 on Debian 12): the
	# ClickHouse back end of zt serve (tests/e2e/chlib.sh runs private
	# servers as plain processes with configs of their own; the system
	# service is never used, see the install step below)
	pkgs+=(clickhouse-server clickhouse-client)
	# node and npm: an independent pprof decoder (npm's pprof-format) and a
	# local S3 server (s3rver, t_s3) in the tests, installed by the tests
	# themselves (tests/e2e/npm-once.sh); a machine may have node and npm
	# from elsewhere (a nodejs with npm inside)
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		pkgs+=(nodejs npm)
	fi
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null; then SUDO=sudo; else
		echo "setup: missing packages: ${missing[*]}; run as root: apt-get install ${missing[*]}" >&2
		exit 1
	fi
else
	SUDO=
fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# clickhouse-server's postinst starts the system service (invoke-rc.d ...
# || exit 1): in a container without init that start can fail and with it
# the whole install, and on a systemd host it would leave a server on
# ports 8123/9000. The tests never use that service, so the ClickHouse
# packages are installed on their own, with a policy-rc.d that refuses
# service starts (exit 101: invoke-rc.d then succeeds without starting
# anything). Docker images already have one, and then it is left as it is.
ch=() rest=()
for p in "${missing[@]}"; do
	case $p in clickhouse-*) ch+=("$p") ;; *) rest+=("$p") ;; esac
done
if [ ${#rest[@]} -gt 0 ]; then
	$SUDO apt-get install -y -qq --no-install-recommends "${rest[@]}" >/dev/null
fi
if [ ${#ch[@]} -gt 0 ]; then
	policy=/usr/sbin/policy-rc.d
	if [ ! -e "$policy" ]; then
		trap '$SUDO rm -f "$policy"' EXIT
		printf '#!/bin/sh\n# scripts/setup.sh: no service starts while ClickHouse installs\nexit 101\n' |
			$SUDO tee "$policy" >/dev/null
		$SUDO chmod 755 "$policy"
	fi
	$SUDO apt-get install -y -qq --no-install-recommends "${ch[@]}" >/dev/null
fi
