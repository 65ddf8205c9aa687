#!/usr/bin/env bash
# On a multi-GPU machine (the device tool): the FFT's GPU tests on every GPU, then double-precision pairs with
# the full wire, the single-precision wire and dealiased transforms, against cuFFTXt in the same run.
set -uo pipefail
tar xJf .device/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh
out=${OUT:-/tmp}
ngpu=$(nvidia-smi -L | wc -l)
mpiexec -n $ngpu .device/kolmo_tests "[gpu]" > $out/fft_gpu.log 2>&1; echo "GPU tests on $ngpu ranks: exit $?"; tail -2 $out/fft_gpu.log
for n in ${SIZES:-512 1024}; do
  for flags in "" "--single-wire" "--dealiased" "--dealiased --single-wire"; do
    mpiexec -n $ngpu .device/kolmo_fft_bench --n $n --precision double --warmup 3 --reps 10 $flags 2>&1 | tee -a $out/wire.log | grep -E "RESULT|bandwidth"
  done
  mpiexec -n $ngpu .device/kolmo_fft_bench --n $n --precision single --warmup 3 --reps 10 --dealiased 2>&1 | tee -a $out/wire.log | grep -E "RESULT"
done
