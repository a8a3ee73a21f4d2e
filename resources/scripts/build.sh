#!/usr/bin/env bash
# Configures and builds QRocket into a build folder (default ./build, override with BUILD_DIR).
# Extra arguments are passed to cmake's configure step, e.g. -DQROCKET_SANITIZE=address,undefined.
# TARGETS="a b" builds only those targets (default: everything).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$top/build}
jobs=${JOBS:-$(nproc)}
# ccache: rewrite absolute paths below the checkout so that another clone of the same sources
# (CI's fresh clone, a second work tree) hits the same cache entries.
export CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=true
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
targets=()
for t in ${TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$jobs" "${targets[@]}"
