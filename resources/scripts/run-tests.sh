#!/usr/bin/env bash
# Builds QRocket and runs the whole test suite, installing missing packages first:
#   1. clang-format check of every C++ file in the repository;
#   2. a -Werror build and every ctest test (unit, integration, system, interop, gui, fuzz);
#   3. an AddressSanitizer+UBSan build and the unit, fuzz and system tests again under it.
# Exits non-zero on the first failure. SKIP_SANITIZERS=1 skips step 3 (faster local runs).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

# Both build folders and the tests' stores take ~4 GB; say so before installing or building
# anything, rather than failing half-way through a link with "No space left on device".
need_mb=${QROCKET_NEED_DISK_MB:-5000}
for dir in "$top" "${TMPDIR:-/tmp}"; do
    free_mb=$(df -Pm "$dir" | awk 'NR == 2 { print $4 }')
    if [ -n "$free_mb" ] && [ "$free_mb" -lt "$need_mb" ]; then
        echo "run-tests: only ${free_mb} MB free under $dir; the build and tests need about" \
            "${need_mb} MB (set QROCKET_NEED_DISK_MB to change the check)" >&2
        exit 1
    fi
done

"$top/resources/scripts/install-deps.sh"

echo "== clang-format check"
mapfile -t sources < <(git ls-files '*.h' '*.cpp')
if [ ${#sources[@]} -gt 0 ]; then
    clang-format --dry-run --Werror "${sources[@]}"
fi
echo "clang-format: ${#sources[@]} files clean"

jobs=${JOBS:-$(nproc)}
echo "== build (warnings are errors)"
BUILD_DIR=${BUILD_DIR:-$top/build} "$top/resources/scripts/build.sh" -DQROCKET_WERROR=ON
echo "== tests"
ctest --test-dir "${BUILD_DIR:-$top/build}" --output-on-failure -j "$jobs" --timeout 600

if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
    echo "== AddressSanitizer + UBSan build"
    BUILD_DIR="$top/build-asan" "$top/resources/scripts/build.sh" -DQROCKET_WERROR=ON \
        -DQROCKET_SANITIZE=address,undefined -DQROCKET_BUILD_BENCH=OFF -DQROCKET_BUILD_CONSOLE=OFF
    echo "== tests under ASan/UBSan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir "$top/build-asan" --output-on-failure -j "$jobs" --timeout 900 -L 'unit|fuzz|system'
fi
echo "run-tests: all passed"
