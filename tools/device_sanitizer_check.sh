#!/usr/bin/env bash
# On a GPU machine (the device tool): the [gpu] test cases one at a time under NVIDIA's compute-sanitizer, the
# GPU's counterpart of tools/check_sanitizers.sh. Expects kolmo_tests, kolmo_solver_tests and the bundle in
# .device/ (see ../shared/device/README.md); compute-sanitizer from the machine's CUDA (/usr/local/cuda/bin).
#   STAGE=fft     memcheck over every [gpu] case of kolmo_tests (about 7 minutes on an H200: its longest case,
#                 the exact coefficients in double precision, alone takes 89 s)
#   STAGE=solver  memcheck over every [gpu] case of kolmo_solver_tests (15-36 s a case on an H200, about
#                 5 minutes in all)
#   STAGE=racecheck, STAGE=synccheck  that tool over the cases of kolmo's own shared-memory kernels (row and
#                 column FFTs, plane groups, products between row FFTs). synccheck takes about 2.5 minutes;
#                 racecheck is slower and hungrier: on an H200 host of 128 GiB its bookkeeping for the pruned
#                 transforms in double precision filled the host's memory (killed, exit 9), and the row FFTs
#                 in double precision need more than 120 s.
# CASES (an extended regular expression, default all) keeps the memcheck stages to the cases it matches.
# Each stage is meant to fit in one call of the device tool (10 minutes); CASE_TIMEOUT (default 150 s) bounds
# each case. API errors are not reported: NCCL's initialisation probes kernels built for other architectures
# (cudaFuncGetAttributes, "no kernel image"), which it handles. A line per case, and the sanitizer's log under $OUT.
set -uo pipefail
tar xJf .device/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh
out=${OUT:-/tmp}
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "no compute-sanitizer on this machine"; exit 1; }
"$cs" --version | tail -1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
found=0
check() {  # tool, program, test case name
  local tool=$1 program=$2 name=$3 t0=$SECONDS
  # Catch2 reads commas in a test spec as "or": escape them.
  timeout -k 5 "${CASE_TIMEOUT:-150}" "$cs" --tool "$tool" --report-api-errors no --error-exitcode 7 \
    ".device/$program" "${name//,/\\,}" > "$out/case.log" 2>&1
  local rc=$? summary
  summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/case.log" | tail -1 | sed 's/^=* *//')
  case $rc in
    0) ;;
    124|137) summary="stopped by CASE_TIMEOUT (what ran before is in the log)"; found=1 ;;
    *) found=1 ;;
  esac
  if grep -q SKIPPED "$out/case.log"; then summary="skipped, so not checked: $summary"; found=1; fi
  { echo "##### $tool $program: $name"; cat "$out/case.log"; } >> "$out/$tool.log"
  rm -f "$out/case.log"
  printf '%-9s exit %3d %4d s  %s: %s\n' "$tool" "$rc" $((SECONDS - t0)) "$name" "$summary"
}
cases() { ".device/$1" "[gpu]" --list-test-names-only | grep -E "${2:-.}" | grep -v '^$'; }
case ${STAGE:-fft} in
  fft) while IFS= read -r name; do check memcheck kolmo_tests "$name"; done < <(cases kolmo_tests "${CASES:-.}") ;;
  solver) while IFS= read -r name; do check memcheck kolmo_solver_tests "$name"; done \
    < <(cases kolmo_solver_tests "${CASES:-.}") ;;
  racecheck|synccheck)
    while IFS= read -r name; do check $STAGE kolmo_tests "$name"; done \
      < <(cases kolmo_tests "row FFTs|pruned dealiased|plane transforms in groups")
    while IFS= read -r name; do check $STAGE kolmo_solver_tests "$name"; done \
      < <(cases kolmo_solver_tests "products between the row FFTs") ;;
  *) echo "STAGE: fft, solver, racecheck or synccheck"; exit 2 ;;
esac
exit $found
