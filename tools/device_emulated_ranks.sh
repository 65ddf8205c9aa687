#!/usr/bin/env bash
# On one GPU (the device tool): one rank's work of transforms over 2, 4 and 8 ranks (kolmo_fft_bench
# --emulate-ranks), by the copies, the fused routes and the strided one, its own rows copied or placed
# (ROUTES), full and dealiased, at 512^3 and 1024^3; the FFT's GPU tests on 1 rank and on 2 and 4 ranks
# sharing the GPU (p2p through CUDA IPC; MPI staged through the host; NCCL refuses two ranks on one GPU); the
# one-GPU pair against cuFFT's 3D plan.
# Logs under $OUT: phases.log (one line per case, for tools/fft_model.py), emulated.log (the tables),
# gpu_tests_np1.log, gpu_tests_np2.log, gpu_tests_np4.log, one_gpu.log.
# Build here (Release, sm_90), then, with DIR=/work/main/.device_<name>:
#   mkdir -p $DIR && cp build/tests/kolmo_tests build/tools/kolmo_fft_bench tools/device_emulated_ranks.sh $DIR
#   /work/shared/device/bundle $DIR/bundle.tar.xz $DIR/kolmo_tests $DIR/kolmo_fft_bench
# and run `bash .device_<name>/device_emulated_ranks.sh .device_<name>` with that folder carried.
# Environment: RANKS (emulated rank counts, default 2 4 8), ROUTES (default: copies fused realigned
# strided placed),
# MODES (full dealiased), SPLITS (the spectral splits, --spectral-split: default even; "even kept_rows" times
# both; the benchmark times rank 0, the widest rank and, dealiased, the rank with the most kept ky planes),
# SIZES (default 512 1024), PRECISIONS (single double),
# SKIP_EMULATION, SKIP_ONE_GPU, SKIP_TESTS (set: none of the emulation, cuFFT's pair, the GPU tests),
# BENCH_TIMEOUT (s per size and precision, default 120), TEST_TIMEOUT (s a test run, default 300), TESTS_NP1,
# TESTS_NP2, TESTS_NP4.
set -uo pipefail
dir=${1:-.device}
tar xJf $dir/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh && cd $dir
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $out/one_gpu.log
start=$(date +%s)
emulate() {  # n precision reps
  timeout ${BENCH_TIMEOUT:-120} ./kolmo_fft_bench --n $1 --precision $2 --backend cuda \
    --emulate-ranks ${RANKS:-2 4 8} --routes ${ROUTES:-copies fused realigned strided placed} --modes ${MODES:-full dealiased} \
    --spectral-split ${SPLITS:-even} --warmup 2 --reps $3 --log $out/phases.log >> $out/emulated.log 2>&1
  echo "== emulated ranks, $1^3 $2: exit $?, at $(( $(date +%s) - start )) s"
}
tests() {  # ranks filter
  # kolmo_tests "[gpu]" on one rank takes 230 s on one H200 (docs/results/gpu_tests_h200_session52.log).
  timeout ${TEST_TIMEOUT:-300} mpiexec -n $1 ./kolmo_tests "$2" > $out/gpu_tests_np$1.log 2>&1
  echo "== GPU tests, $1 rank(s): exit $?, at $(( $(date +%s) - start )) s"; tail -3 $out/gpu_tests_np$1.log
}
if [ -z "${SKIP_EMULATION:-}" ]; then
  for n in ${SIZES:-512 1024}; do
    for p in ${PRECISIONS:-single double}; do
      emulate $n $p $([ $n -ge 1024 ] && echo 7 || echo 10)
    done
  done
fi
if [ -z "${SKIP_ONE_GPU:-}" ]; then
  for n in ${SIZES:-512 1024}; do
    for p in ${PRECISIONS:-single double}; do
      timeout 60 ./kolmo_fft_bench --n $n --precision $p --backend cuda --warmup 3 --reps 10 >> $out/one_gpu.log 2>&1
    done
  done
  echo "== one GPU against cuFFT, at $(( $(date +%s) - start )) s"; grep RESULT $out/one_gpu.log
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  tests 1 "${TESTS_NP1:-[gpu]}"
  # The emulated-ranks cases are one rank's local work: two ranks sharing the GPU would only repeat them, and
  # they took the two-rank run past 200 s (docs/results/gpu_tests_h200_session26.log).
  tests 2 "${TESTS_NP2:-[gpu]~GPU: emulated*}"
  tests 4 "${TESTS_NP4:-GPU: exact coefficients and serial FFTW agreement*}"
fi
[ -f $out/emulated.log ] && grep -E "^  (full|dealiased|\()" $out/emulated.log
