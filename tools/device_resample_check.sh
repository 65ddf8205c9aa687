#!/usr/bin/env bash
# On one GPU (the device tool): a run continued on another grid than its checkpoint's (tests/app/
# test_resample.py's Taylor-Green vortex with a scalar: 16^3 to t = 0.5, then 32^3 to t = 1) on the GPU, on 1
# rank and on 2 ranks sharing it (p2p), against the same runs on the host backend in the same call; the
# solver's GPU tests; a single-precision random field of tiny energy on the GPU (summed in double, and one
# too weak for the precision refused). Expects DIR (default .device) to hold bundle.tar.xz and bins.tar.xz (a
# folder head/ with kolmo and kolmo_solver_tests). Under $OUT: resample.log and each run's series.h5
# (series_<run>.h5; not the host's 16^3 run: 8 files come back), to compare with h5py where the run was started.
set -uo pipefail
dir=${1:-.device}
tar xJf $dir/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh && cd $dir && tar xJf bins.tar.xz
out=${OUT:-/tmp}
log=$out/resample.log
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $log
timeout 300 ./head/kolmo_solver_tests "[gpu]" > $out/solver_gpu.log 2>&1
echo "== solver GPU tests: exit $?; $(tail -2 $out/solver_gpu.log | tr '\n' ' ')" | tee -a $log
work=$(mktemp -d)
cat > $work/tg.yaml <<'EOF'
grid: {n: [16, 16, 16]}
precision: double
physics:
  viscosity: 0.05
  scalars: [{name: theta, schmidt: 1.0, mean_gradient: [0, 0, 1]}]
time: {integrator: rk4, dt: 0.01, t_end: 0.5}
initial: {type: taylor_green}
output: {directory: coarse, series_every: 1, progress_every: 0, checkpoint_every: 0.5}
EOF
cd $work
run() {  # name ranks arguments...
  local name=$1 ranks=$2
  shift 2
  timeout -k 5 120 mpiexec -n $ranks $OLDPWD/head/kolmo run tg.yaml --set output.directory=$name "$@" > $name.out 2>&1
  echo "== $name ($ranks rank(s), $*): exit $?" | tee -a $log
  grep -E "backend|changed|resampled|^done" $name.out | tee -a $log
  # At most 8 files come back: the host's 16^3 run stays.
  [ -f $name/series.h5 ] && [ $name != coarse_host ] && cp $name/series.h5 $out/series_$name.h5
}
for backend in cuda host; do
  run coarse_$backend 1 --set backend=$backend
  run continued_$backend 1 --set backend=$backend --checkpoint coarse_$backend/checkpoints/checkpoint.h5 \
    --set grid.n=32 --set time.t_end=1.0
  run fine_$backend 1 --set backend=$backend --set grid.n=32 --set time.t_end=1.0
done
run continued_cuda_2ranks 2 --set backend=cuda --set fft.exchange=p2p --checkpoint coarse_cuda/checkpoints/checkpoint.h5 --set grid.n=32 \
  --set time.t_end=1.0
# A single-precision random field of energy 1e-60 (modes of 1e-30, squares below float's range) and one of 1e-90
# (modes below its smallest numbers: refused).
for energy in 1e-60 1e-90; do
  timeout -k 5 60 $OLDPWD/head/kolmo run tg.yaml --set backend=cuda --set precision=single --set time.t_end=0.02 \
    --set initial.type=random --set initial.spectrum.energy=$energy --set output.directory=tiny_$energy \
    --set output.progress_every=1 > tiny.out 2>&1
  echo "== single precision, random energy $energy: exit $?" | tee -a $log
  tail -3 tiny.out | tee -a $log
done
