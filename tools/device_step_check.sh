#!/usr/bin/env bash
# On a GPU machine (the device tool): the solver's GPU tests, the step benchmark over grids, precisions and
# integrators (SOLVER: "n:precision:integrator[:flag,flag...] ...", the flags passed on to the bench, e.g.
# 512:single:rk4:--row-products=off,--cfl), and the Taylor-Green run at Re = 1600 (256^3, t = 20;
# TAYLOR_GREEN=0 skips it), whose series comes back for comparison with the reference.
# Expects kolmo, kolmo_solver_tests, kolmo_solver_bench and the bundle in ${DEVICE_DIR:-.device}. Logs under $OUT.
set -uo pipefail
dir=${DEVICE_DIR:-.device}
tar xJf $dir/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1
timeout ${TEST_TIMEOUT:-300} $dir/kolmo_solver_tests "[gpu]" > $out/solver_gpu.log 2>&1
echo "solver [gpu] exit $?"; tail -n 2 $out/solver_gpu.log
for case in ${SOLVER-512:single:rk4}; do
  IFS=: read n p rk flags <<< "$case"
  $dir/kolmo_solver_bench --n $n --precision $p --integrator $rk ${flags//,/ } --steps $([ $n -ge 1024 ] && echo 5 || echo 10) \
    --warmup $([ $n -ge 1024 ] && echo 1 || echo 2) 2>&1 | tee -a $out/solver_bench.log | grep -E "RESULT"
done
grep -m1 dealiasing $out/solver_bench.log
if [ "${TAYLOR_GREEN:-1}" = 1 ]; then
  /usr/bin/time -f "wall %e s" $dir/kolmo run configs/taylor_green_re1600.yaml --set output.directory=/tmp/tg \
    --set output.fields_every=0 --set output.checkpoint_wall_minutes=0 --set output.progress_every=1000 2>&1 |
    tee $out/tg.log | tail -n 4
  cp /tmp/tg/series.h5 $out/tg_series.h5
fi
