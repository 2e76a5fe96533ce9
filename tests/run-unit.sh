#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run cmocka unit test binaries, as many at a time as there are CPUs
# (UNIT_JOBS); one summary line.
set -u
printf '%s\n' "$@" | "$(dirname "$0")/run-par.sh" unit "${UNIT_JOBS:-$(nproc)}" --
