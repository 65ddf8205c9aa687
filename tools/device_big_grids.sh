#!/usr/bin/env bash
# On one H200 (139 GiB): exactness where indices pass 2^31 (the audit of 32-bit index arithmetic).
# - kolmo_big_grid_check (tools/big_grid_check.cpp): forward transforms against the closed
#   form of their spectrum at every mode, backward transforms against Nx Ny Nz f at every point, full and
#   dealiased, out of place and in place: one GPU at 2048 x 2048 x 1024 single (4.3e9 points, a spectral
#   slab of 2.15e9 values: kolmo's row and column FFTs of the pruned route, the kept rows, the copies, the
#   cuFFT mask, which is refused above 2^31 by design, and the timed choice), 1344^3 single (2.4e9 points,
#   spectral slab 1.2e9: the cuFFT mask runs) and 1300^3 double (2.2e9 points); one emulated rank of 2 at
#   2048^3 single (each rank's real and spectral slabs 4.3e9 and 2.15e9 values), both ranks, the copies,
#   strided, placed and fused routes.
# - kolmo run: an ABC flow at k = 400 on 1344^3 single (2.4e9 points), where u x omega = 0, so the energy
#   decays exactly as E(t) = 1.5 exp(-2 nu k^2 t) and the dissipation is 2 nu k^2 E; a Poisson problem on
#   2048 x 2048 x 1024 single (spectral slab 2.15e9 > 2^31: the solver's 64-bit mode indices) with a
#   manufactured solution, whose error kolmo prints before it writes phi and f (34 GB, transposed to zyx on
#   the host: the step's limit may stop the write, which the verdicts then show without the file's size).
# - More than 65535 outer indices in kolmo's column FFTs (one rank of 2 at 131072 x 16 x 16 placing its own
#   rows; the column FFT test of kolmo_tests).
# Steps run by priority within BUDGET seconds (default 330); a step that would start with less than 20 s
# left is skipped and says so. Log: $OUT/big_grids.log; its last lines are the verdicts.
# Binaries in .device/bins.tar.xz, folder head/: kolmo_big_grid_check and kolmo_tests (a CUDA build, with
# its column FFT fix) and kolmo.
set -u
tar xJf .device/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh && cd .device && tar xJf bins.tar.xz
out=${OUT:-/tmp}
log=$out/big_grids.log
budget=${BUDGET:-330}
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $log
step() { # limit name command...
  local limit=$1 name=$2
  shift 2
  local left=$((budget - $(elapsed)))
  [ $left -lt $limit ] && limit=$left
  if [ $limit -lt 20 ]; then
    echo "== $name: SKIPPED (budget spent at $(elapsed) s)" >> $log
    return
  fi
  echo "== $name (limit $limit s, at $(elapsed) s)" >> $log
  # -k: a run that takes SIGTERM as a request to stop (kolmo run finishing a write) is killed 15 s later;
  # stdbuf: its lines reach the log even then.
  timeout -k 15 $limit stdbuf -oL "$@" >> $log 2>&1
  echo "exit $? at $(elapsed) s" >> $log
}
check=./head/kolmo_big_grid_check
step 110 "one GPU 2048x2048x1024 single" $check --n 2048 2048 1024 --precision single \
  --ways full pruned rows copies masked_x automatic --places out in
step 110 "emulated rank of 2 at 2048^3 single" $check --n 2048 --precision single --emulate-ranks 2 \
  --ranks-checked 0 1 --routes copies strided placed --modes full dealiased --places out
cat > abc_big.yaml << 'EOF'
grid:
  n: 1344
  box: 2pi
precision: single
backend: cuda
physics:
  viscosity: 1.0e-5
time:
  integrator: lsrk3
  dt: 5.0e-4
  steps: 4
initial:
  type: abc
  k: 400
output:
  directory: abc_big
  overwrite: true
  progress_every: 1
  series_every: 1
  spectra_every: 0
  fields: []
  fields_every: 0
  checkpoint_every: 0
EOF
step 150 "kolmo run: ABC k = 400 on 1344^3 single, E = 1.5 exp(-3.2 t)" ./head/kolmo run abc_big.yaml
# A rank of more than 65535 x planes whose plane transforms place its own rows (kolmo's column FFTs along y,
# one grid block along y per x plane): before the fix of session 32 "internal: more than 65535 outer indices".
step 40 "emulated rank of 2 at 131072x16x16 single, own rows placed (65536 planes)" $check --n 131072 16 16 \
  --precision single --emulate-ranks 2 --ranks-checked 0 1 --routes placed --modes full --places out
[ -x ./head/kolmo_tests ] && step 40 "column FFTs of more than 65535 outer indices" ./head/kolmo_tests \
  "GPU: column FFTs of more than 65535 outer indices*"
step 80 "one GPU 1344^3 single" $check --n 1344 --precision single --ways full rows masked_x copies --places out in
step 80 "one GPU 1300^3 double" $check --n 1300 --precision double --ways full rows masked_x --places out in
cat > poisson_big.yaml << 'EOF'
problem: poisson
grid:
  n: [2048, 2048, 1024]
  box: 2pi
precision: single
backend: cuda
poisson:
  shift: 1.0
  rhs:
    type: manufactured
    modes: [[-682, 682, 341], [341, -227, 171], [1, 0, 1]]
  gradient: false
output:
  directory: poisson_big
  overwrite: true
EOF
step 120 "kolmo run: Poisson 2048x2048x1024 single, manufactured solution" ./head/kolmo run poisson_big.yaml
echo "Poisson field file: $(stat -c %s poisson_big/fields/*.h5 2>&1) bytes (phi and f: 2 x 17179869184 of data)" >> $log
rm -rf poisson_big abc_big
step 60 "emulated rank of 2 at 2048^3 single, fused (refused above 2^31: copies) and in place" $check --n 2048 \
  --precision single --emulate-ranks 2 --ranks-checked 0 1 --routes fused copies placed --modes full dealiased \
  --places in
verdicts=$(
  echo "== verdicts at $(elapsed) s"
  echo "FFT cases: $(grep -c '^PASS' $log) PASS, $(grep -c '^FAIL' $log) FAIL, $(grep -c '^REFUSED' $log) REFUSED"
  grep '^FAIL\|^REFUSED' $log
  # The ABC run's progress lines: step t dt energy dissipation ...
  awk '/^ *[0-9]+ +[0-9.]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.e+-]+ / && abc {
         e = 1.5 * exp(-3.2 * $2); de = ($4 - e) / e; dd = ($5 - 3.2 * $4) / (3.2 * $4);
         if (de < 0) de = -de; if (dd < 0) dd = -dd; if (de > me) me = de; if (dd > md) md = dd; n++ }
       /^== kolmo run: ABC/ { abc = 1 } /^exit/ { abc = 0 }
       END { printf "ABC: %d steps checked, energy off 1.5 exp(-3.2 t) by %.2g, dissipation off 3.2 E by %.2g: %s\n",
             n, me, md, (n >= 5 && me < 3e-5 && md < 3e-5) ? "PASS" : "FAIL" }' $log
  grep "max |phi - exact|" $log | awk '{ r = $NF; sub(/\)/, "", r); print "Poisson:", $0, (r + 0 < 1e-4) ? "PASS" : "FAIL" }'
  grep "^Poisson field file" $log
  grep -E "^(All tests passed|test cases:)" $log | sed 's/^/column FFT test: /'
)
echo "$verdicts" | tee -a $log
