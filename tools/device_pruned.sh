#!/usr/bin/env bash
# On a GPU machine (the device tool): the pruned one-rank dealiased route (kolmo's own column FFTs) against
# the other ways, its GPU tests, and the solver step that uses it. Expects kolmo_tests, kolmo_fft_bench,
# kolmo_solver_bench and the bundle in ${DEVICE_DIR:-.device}. Logs under $OUT.
# Env: TESTS (1: run the GPU tests of the pruned route first), SIZES (FFT grids), WAYS, SOLVER (solver
# benchmark cases "n:precision:integrator ..."; empty for none).
set -uo pipefail
dir=${DEVICE_DIR:-.device}
tar xJf $dir/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh && cd $dir
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1
if [ "${TESTS:-1}" = 1 ]; then
  timeout ${TEST_TIMEOUT:-300} ./kolmo_tests "${TEST_FILTER:-*pruned*}" > $out/pruned_tests.log 2>&1
  echo "tests exit $?"; tail -3 $out/pruned_tests.log
fi
for n in ${SIZES:-256 512 1024}; do
  for p in single double; do
    ./kolmo_fft_bench --n $n --precision $p --backend cuda --warmup 3 --reps 10 --no-peer 2>&1 |
      grep -E "pair" | sed "s/^/full $n $p: /" | tee -a $out/pruned_fft.log
    for way in ${WAYS:-rows masked_x pruned}; do
      ./kolmo_fft_bench --n $n --precision $p --backend cuda --dealiased --one-rank-way $way --warmup 3 \
        --reps 10 --no-peer 2>&1 | grep -E "pair|phases|rror" | sed "s/^/$way $n $p: /" | tee -a $out/pruned_fft.log
    done
  done
done
for case in ${SOLVER-512:single:rk4}; do
  IFS=: read n p rk <<< "$case"
  ./kolmo_solver_bench --n $n --precision $p --integrator $rk --steps 10 2>&1 | tee -a $out/pruned_solver.log |
    grep -E "RESULT|dealiasing"
done
