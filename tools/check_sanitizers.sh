#!/usr/bin/env bash
# The CPU tests under AddressSanitizer and UndefinedBehaviorSanitizer: a build of the host backend alone
# (KOLMO_CUDA=OFF: CUDA's runtime and ASan's shadow memory do not mix), every ctest but one, any report fatal.
#   bash tools/check_sanitizers.sh [build folder, default build-sanitize]
# Left out or changed under the sanitizers, and why:
# - package_find_package: it links the installed static libraries into a consumer built without sanitizers,
#   which cannot resolve their hooks;
# - app_safety and app_resample skip their memory checks (KOLMO_SANITIZED): ASan pads every allocation and
#   holds freed memory back, so the measured peak is not kolmo's;
# - app_cli runs kolmo check on a configuration that made the loader loop without an address-space limit
#   (KOLMO_SANITIZED): ASan's shadow memory reserves terabytes of addresses, which the limit refuses;
# - leaks are not checked (detect_leaks=0): MPICH leaves 1016 bytes from a module it loads, in every program.
# About 5 minutes to build and 5 to test on 2 cores (docs/results/sanitizers_cpu.log).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-sanitize}
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B "$build" -DKOLMO_CUDA=OFF -DKOLMO_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build "$build" -j2
# verify_asan_link_order=0: the tests preload a library of their own (yielding waits) beside ASan's runtime.
export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export KOLMO_SANITIZED=1
ctest --test-dir "$build" --output-on-failure -E '^package_find_package$'
