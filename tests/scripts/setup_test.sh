#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks scripts/setup.sh's decisions without installing anything: packages are made to look
# absent with BAM_SETUP_PRETEND_MISSING (which also forbids installing) and the package manager
# with BAM_SETUP_APT=none. Usage: setup_test.sh PATH/TO/setup.sh
set -uo pipefail
setup=$1
failures=0
expect() {  # expect NAME RC PATTERN -- ENV...: runs `env ENV... bash setup.sh demo`
  local name=$1 want_rc=$2 pattern=$3
  shift 4
  local out rc
  out=$(env "$@" bash "$setup" demo 2>&1)
  rc=$?
  if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$pattern" <<< "$out"; then
    printf 'FAIL %s: exit %s (wanted %s), output lacks "%s":\n%s\n' "$name" "$rc" "$want_rc" "$pattern" "$out"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

# No package manager, a required package absent: stop, naming it and where it was looked for.
expect no-apt-required 1 "libcli11-dev: looked for CLI/CLI.hpp under /usr/include" -- \
  BAM_SETUP_APT=none BAM_SETUP_PRETEND_MISSING=libcli11-dev
# No package manager, only an optional package absent: go on, saying what is skipped.
expect no-apt-optional 0 "optional, not found: python3-matplotlib" -- \
  BAM_SETUP_APT=none BAM_SETUP_PRETEND_MISSING=python3-matplotlib
# With apt-get: the one install command (as root it would run; pretending, it is only shown).
if command -v apt-get >/dev/null 2>&1; then
  expect apt-command 1 "apt-get install -y --no-install-recommends libfmt-dev" -- BAM_SETUP_PRETEND_MISSING=libfmt-dev
fi
# An unknown job is refused.
out=$(bash "$setup" deploy 2>&1)
if [ $? -eq 2 ] && grep -qF "unknown job 'deploy'" <<< "$out"; then echo "ok   unknown-job"; else
  echo "FAIL unknown-job: $out"; failures=$((failures + 1)); fi
exit $((failures > 0))
