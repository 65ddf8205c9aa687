#!/usr/bin/env bash
# On a GPU machine (the device tool): GPU tests of the FFT and the solver, the solver step benchmark, and the
# Taylor-Green benchmark at Re = 1600 (256^3, t = 20). Expects kolmo, kolmo_tests, kolmo_solver_tests,
# kolmo_solver_bench and the bundle in .device/ (see ../shared/device/README.md). Logs and the Taylor-Green
# series/spectra come back under $OUT.
set -uo pipefail
tar xJf .device/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh
out=${OUT:-/tmp}
ngpu=$(nvidia-smi -L | wc -l)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1
for ranks in 1 $ngpu; do
  echo "== GPU tests, $ranks rank(s)"
  timeout ${TEST_TIMEOUT:-300} mpiexec -n $ranks .device/kolmo_tests "[gpu]" > $out/fft_gpu_np$ranks.log 2>&1; echo "fft exit $?"; tail -2 $out/fft_gpu_np$ranks.log
  timeout ${TEST_TIMEOUT:-300} mpiexec -n $ranks .device/kolmo_solver_tests "[gpu]" > $out/solver_gpu_np$ranks.log 2>&1; echo "solver exit $?"
  tail -2 $out/solver_gpu_np$ranks.log
  [ "$ngpu" -gt 1 ] || break
done
for n in ${SIZES:-256 512}; do
  for p in single double; do
    for rk in rk2 rk4; do
      mpiexec -n $ngpu .device/kolmo_solver_bench --n $n --precision $p --integrator $rk --steps 10 \
        --pieces ${PIECES:-1} 2>&1 | tee -a $out/solver_bench.log
    done
  done
done
if [ "${LARGE:-1}" = 1 ]; then
  # The largest single-GPU case: 1024^3 single precision, RK4 (memory and time per step).
  mpiexec -n $ngpu .device/kolmo_solver_bench --n 1024 --precision single --integrator rk4 --warmup 1 --steps 5 2>&1 |
    tee -a $out/solver_bench.log
fi
if [ "${TAYLOR_GREEN:-1}" = 1 ]; then
  echo "== Taylor-Green Re = 1600, 256^3"
  /usr/bin/time -f "wall %e s" .device/kolmo run configs/taylor_green_re1600.yaml --set output.directory=/tmp/tg \
    --set output.fields_every=0 --set output.checkpoint_wall_minutes=0 --set output.progress_every=500 2>&1 | tee $out/tg.log | tail -15
  cp /tmp/tg/series.h5 $out/tg_series.h5; cp /tmp/tg/spectra.h5 $out/tg_spectra.h5
fi
grep -E 'RESULT|dealiasing' $out/solver_bench.log
