#!/usr/bin/env bash
# Prepare a fresh Debian/Ubuntu machine for cooptest: the system tools it calls
# (gcc with 32-bit support for ILP32 tasks, gcov/lcov for coverage, make for exported
# tests, cmocka for exported unit tests, clang for libFuzzer in benchmarks), chromium
# for the test that renders report.html in a headless browser, csmith
# for the differential test against gcc, afl++ for the AFL++ fuzzer (analyses.afl), and
# the Python package itself, editable, with
# the test dependencies.
#
#   bash scripts/setup.sh
#
# As root the missing Debian packages are installed with apt-get; otherwise the exact
# apt line is printed and the script stops, since nothing works without them.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

need=()
command -v gcc >/dev/null || need+=(gcc)
command -v gcov >/dev/null || need+=(gcc)
command -v lcov >/dev/null || need+=(lcov)
command -v make >/dev/null || need+=(make)
[ -f /usr/include/cmocka.h ] || need+=(libcmocka-dev)  # export --framework cmocka
command -v clang >/dev/null || need+=(clang)  # benchmarks/libraries.py: libFuzzer beside cooptest
echo 'int main(void){return 0;}' | gcc -m32 -x c -o /dev/null - 2>/dev/null || need+=(gcc-multilib)
if [ ${#need[@]} -gt 0 ]; then
  mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
  line="apt-get update && apt-get install -y ${need[*]}"
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${need[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "setup: missing system packages; as root run: $line" >&2
    exit 1
  fi
fi

# Optional: without chromium the browser test of report.html is skipped.
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing chromium" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: no chromium (the report.html browser test will be skipped); as root run:" \
         "apt-get install -y chromium" >&2
  fi
fi

# Optional: without csmith (and its headers, libcsmith-dev) the differential test
# against gcc (tests/soundness/test_differential.py, benchmarks/differential.py) is skipped.
if ! command -v csmith >/dev/null || [ ! -f /usr/include/csmith/csmith.h ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing csmith" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq csmith libcsmith-dev >/dev/null
  else
    echo "setup: no csmith (the differential test against gcc will be skipped); as root run:" \
         "apt-get install -y csmith libcsmith-dev" >&2
  fi
fi

# Optional: without afl++ (afl-fuzz, afl-clang-fast) the AFL++ fuzzer (--strategy afl,
# generate --fuzzer afl) is refused and its tests are skipped.
if ! command -v afl-fuzz >/dev/null || ! command -v afl-clang-fast >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing afl++" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq afl++ >/dev/null \
      || echo "setup: afl++ could not be installed (--strategy afl and --fuzzer afl are refused)" >&2
  else
    echo "setup: no afl++ (--strategy afl and --fuzzer afl are refused); as root run:" \
         "apt-get install -y afl++" >&2
  fi
fi

python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "setup: cooptest needs Python 3.11 or newer (found $(python3 --version))" >&2; exit 1; }
python3 -m pip install -q -e "$repo[dev]"
echo "setup: done ($(command -v cooptest))" >&2
