# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the test helpers that run node: npm_once NAME DIR PACKAGE
# installs DIR's package.json (pinned) once, PACKAGE being the module to
# look for; parallel runs wait for each other. Returns 0, or 2 after a
# message naming NAME when node or npm is missing or the install fails.
npm_once() {
	local name=$1 dir=$2 pkg=$3 n=0
	if ! command -v node > /dev/null; then
		echo "$name: node not found: install the Debian packages 'nodejs npm'" >&2
		return 2
	fi
	[ -f "$dir/node_modules/$pkg/package.json" ] && return 0
	if ! command -v npm > /dev/null; then
		echo "$name: npm not found: install the Debian package 'npm'" >&2
		return 2
	fi
	# a lock directory: parallel test runs must not install at the same time
	until mkdir "$dir/.install-lock" 2> /dev/null; do
		n=$((n + 1))
		if [ $n -gt 600 ]; then
			echo "$name: '$dir/.install-lock' held for 2 minutes: remove it if no install runs" >&2
			return 2
		fi
		sleep 0.2
	done
	if [ ! -f "$dir/node_modules/$pkg/package.json" ] &&
	   ! (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2); then
		rmdir "$dir/.install-lock"
		echo "$name: 'npm install' failed in $dir (needs the npm registry once)" >&2
		return 2
	fi
	rmdir "$dir/.install-lock"
	return 0
}
