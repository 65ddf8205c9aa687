#!/usr/bin/env bash
# On a GPU machine (the device tool): GPU tests of the FFT, then the one-GPU benchmark against cuFFT's 3D plan.
# Expects the programs and bundle in .device/ (see ../shared/device/README.md). Writes logs under $OUT.
set -uo pipefail
tar xJf .device/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh && cd .device
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
ngpu=$(nvidia-smi -L | wc -l)
for ranks in 1 2 4; do
  [ "$ranks" -le "$ngpu" ] || continue
  echo "== GPU tests, $ranks rank(s)"
  timeout ${TEST_TIMEOUT:-300} mpiexec -n $ranks ./kolmo_tests "[gpu]" > $out/gpu_tests_np$ranks.log 2>&1; echo "exit $?"; tail -4 $out/gpu_tests_np$ranks.log
done
if [ "$ngpu" -eq 1 ]; then
  for n in ${SIZES:-256 512 1024}; do
    for p in single double; do
      ./kolmo_fft_bench --n $n --precision $p --backend cuda --warmup 5 --reps ${REPS:-20} 2>&1 | tee -a $out/bench.log
    done
  done
  # One GPU, dealiased pairs by each way of dropping modes (the automatic choice does not time kept rows yet).
  for p in single double; do
    for way in copies rows masked_x; do
      ./kolmo_fft_bench --n 512 --precision $p --backend cuda --dealiased --one-rank-way $way --warmup 3 \
        --reps 10 --no-peer 2>&1 | tee -a $out/bench.log | grep RESULT | sed "s/$/ ($way)/"
    done
  done
else
  for n in ${SIZES:-512 1024}; do
    for p in single double; do
      mpiexec -n $ngpu ./kolmo_fft_bench --n $n --precision $p --backend cuda --exchange nccl --warmup 3 \
        --reps ${REPS:-10} 2>&1 | tee -a $out/bench.log
    done
  done
  # The exchange in pieces, overlapping FFTs and packing (count chosen by timing; the header line says which).
  for n in ${SIZES:-512 1024}; do
    for extra in "" "--dealiased"; do
      mpiexec -n $ngpu ./kolmo_fft_bench --n $n --precision single --backend cuda --exchange nccl --pieces 0 \
        $extra --warmup 3 --reps ${REPS:-10} 2>&1 | tee -a $out/bench.log | grep -E "pieces|RESULT"
    done
  done
  # MPI staged through host memory is slow here (3-4 GB/s): a small grid shows the gap.
  mpiexec -n $ngpu ./kolmo_fft_bench --n 256 --precision single --backend cuda --exchange isend_irecv \
    --warmup 2 --reps 5 2>&1 | tee -a $out/bench.log
fi
grep RESULT $out/bench.log
