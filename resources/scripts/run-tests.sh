#!/usr/bin/env bash
# Builds QRocket and runs the whole test suite, installing missing packages first:
#   1. clang-format check of every C++ file in the repository;
#   2. a -Werror build and every ctest test (unit, integration, system, interop, gui, fuzz);
#   3. an AddressSanitizer+UBSan build and the unit, fuzz, system and integration tests (the
#      client library's included) again under it; only the install-and-build package test is
#      left out there;
#   4. a ThreadSanitizer build of the remoting and client unit suites, run under it.
# Exits non-zero on the first failure. SKIP_SANITIZERS=1 skips steps 3 and 4 (faster local runs).
# At the end (or at the failure) it prints one line per stage with its duration.
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

# Stage timings: stage <name> <command...> runs one stage and records how long it took; the
# summary is printed on exit, whether the run passed or stopped at a failed stage.
stage_lines=()
current_stage=""
stage_started=0
stage() {
    local name=$1
    shift
    current_stage=$name
    stage_started=$SECONDS
    echo "== $name"
    "$@"
    stage_lines+=("$(printf '%-22s %5d s  ok' "$name" $((SECONDS - stage_started)))")
    current_stage=""
}
summary() {
    local rc=$?
    if [ -n "$current_stage" ]; then
        stage_lines+=("$(printf '%-22s %5d s  FAILED' "$current_stage" $((SECONDS - stage_started)))")
    fi
    if [ ${#stage_lines[@]} -gt 0 ]; then
        echo "== run-tests stages (total ${SECONDS} s)"
        printf '%s\n' "${stage_lines[@]}"
        # The host's disk as the run left it: a broker refuses sends above 90 % used.
        df -Ph "$top" "${TMPDIR:-/tmp}" | awk '{ print "   " $0 }'
    fi
    exit $rc
}
trap summary EXIT

stage "install dependencies" "$top/resources/scripts/install-deps.sh"

format_check() {
    mapfile -t sources < <(git ls-files '*.h' '*.cpp')
    if [ ${#sources[@]} -gt 0 ]; then
        clang-format --dry-run --Werror "${sources[@]}"
    fi
    echo "clang-format: ${#sources[@]} files clean"
}
stage "format check" format_check

jobs=${JOBS:-$(nproc)}
build_dir=${BUILD_DIR:-$top/build}
stage "build" env BUILD_DIR="$build_dir" "$top/resources/scripts/build.sh" -DQROCKET_WERROR=ON
stage "tests" ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --timeout 600

if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
    # -g1: line tables only. Reports keep file:line, and the objects are about 7x smaller, which
    # is most of the sanitizer builds' link time (a hundred test programs). -O1 (what the
    # sanitizers' authors advise): instrumented code at -O2 took 1.8x the compile time (13.1 s
    # against 7.3 s of CPU for pushconsumerimpl.cpp), and the sanitizer build was most of CI.
    sanitizer_flags=(-DQROCKET_WERROR=ON -DQROCKET_BUILD_BENCH=OFF -DQROCKET_BUILD_CONSOLE=OFF
        -DQROCKET_BUILD_EXAMPLES=OFF "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
    stage "sanitizer build" env BUILD_DIR="$top/build-asan" "$top/resources/scripts/build.sh" \
        "${sanitizer_flags[@]}" -DQROCKET_SANITIZE=address,undefined
    stage "sanitizer tests" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir "$top/build-asan" --output-on-failure -j "$jobs" --timeout 900 \
        -L 'unit|fuzz|system|integration' -LE 'package|nosanitize'
    # ThreadSanitizer on the client's and the remoting layer's threads. Qt is not instrumented:
    # QRocket's hand-offs through its event queue are annotated (tsanannotations.h) and Qt's own
    # internals suppressed (resources/sanitizers/tsan.supp), so a report here is QRocket's.
    tsan_tests="tst_remotingclient tst_remotinglimits tst_clientunits tst_clientframes tst_queuerecovery"
    stage "tsan build" env BUILD_DIR="$top/build-tsan" TARGETS="$tsan_tests" \
        "$top/resources/scripts/build.sh" "${sanitizer_flags[@]}" -DQROCKET_SANITIZE=thread
    stage "tsan tests" env \
        TSAN_OPTIONS="halt_on_error=1 suppressions=$top/resources/sanitizers/tsan.supp" \
        ctest --test-dir "$top/build-tsan" --output-on-failure -j "$jobs" --timeout 900 \
        -R "^($(echo "$tsan_tests" | tr ' ' '|'))\$"
fi
echo "run-tests: all passed"
