#!/usr/bin/env bash
# On a GPU machine (the device tool): run C2 of Pouquet et al. (2010), the MHD Taylor-Green flow with the
# conducting field (configs/mhd_taylor_green_c2.yaml: nu = eta = 1e-3, single precision, RK4, CFL 0.5,
# t = 0..10), at 256^3 and 512^3 on one GPU. Run from the repository root (it reads configs/); expects kolmo
# (and, for the GPU check of the initial field, kolmo_solver_tests) and the bundle in $DEVICE_DIR (default
# .device; see ../shared/device/README.md). Under $OUT: a folder per grid, mhd_c2_<n>/ with the run's
# run.log, series.h5 and spectra.h5 (7 files in all with the GPU test's log; the device tool returns 8).
# Then, on this machine, with the reference series given by path (never committed):
#   /usr/bin/python3 tools/kolmo_post.py tgmhd FILES_AT/mhd_c2_512 FILES_AT/mhd_c2_256 \
#       --reference /work/reference_m3lb/A_re1000_n512/series.dat -o docs/results/mhd_taylor_green_c2.png
# Time on one H100 (estimate): about 1800 steps at 256^3 (~12 ms each) and 3400 at 512^3 (~87 ms): ~0.5 and
# ~5 minutes; SIZES="512" runs one grid alone.
set -uo pipefail
dev=${DEVICE_DIR:-.device}
tar xJf $dev/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
if [ -x $dev/kolmo_solver_tests ]; then
  timeout ${TEST_TIMEOUT:-120} $dev/kolmo_solver_tests "GPU: the conducting Taylor-Green b*" > $out/mhd_c2_gpu_test.log 2>&1
  echo "GPU test of the initial field: exit $?"; tail -2 $out/mhd_c2_gpu_test.log
fi
for n in ${SIZES:-256 512}; do
  echo "== C2 at ${n}^3"
  run=/tmp/mhd_c2_$n
  saved=$out/mhd_c2_$n
  mkdir -p $saved
  # A series row about every 0.05 in t (dt ~ 1.6 / n at the start).
  every=$(( n / 26 > 0 ? n / 26 : 1 ))
  settings=(--set grid.n=$n --set output.directory=$run --set output.series_every=$every
            --set output.progress_every=500 --set backend=cuda)
  $dev/kolmo check configs/mhd_taylor_green_c2.yaml "${settings[@]}" 2>&1 | grep -E "^# memory|OK|rror" |
    tee $saved/run.log
  /usr/bin/time -f "wall %e s" $dev/kolmo run configs/mhd_taylor_green_c2.yaml "${settings[@]}" >> $saved/run.log 2>&1
  echo "exit $?"; tail -n 4 $saved/run.log
  cp $run/series.h5 $run/spectra.h5 $saved/
done
