#!/usr/bin/env bash
# kolmo's host FFT against FFTW's own transforms on this machine, ratios measured in the same run:
# - one rank, all cores as OpenMP threads: kolmo_fft_bench times FFTW's 3D plan in the same process, its pairs
#   alternating with kolmo's, and prints "RESULT ... ratio" (full and dealiased pairs; the peer is full);
# - several ranks on this node (2 x 1 and 4 x 1 threads, 2 x 2 where there are 4 cores or more): the peer is
#   FFTW-MPI's own slab transform (tools/fftw_mpi_peer.cpp). Debian's libfftw3-mpi-dev is built on OpenMPI
#   while kolmo uses MPICH, so the peer is built with OpenMPI's wrapper and launched with mpiexec.openmpi;
#   kolmo and the peer run alternately, ROUNDS times, and the medians of their medians are compared.
#
#   tools/cpu_fft_compare.sh [BUILD_DIR] 2>&1 | tee docs/results/cpu_fft_compare.log
#   SIZES="64 128" PRECISIONS=double REPS=20 ROUNDS=3 CONFIGS="1x2 2x1" tools/cpu_fft_compare.sh build
#
# Elsewhere (a machine with more cores but no OpenMPI, such as the GPU hosts, whose 16 cores run the 4 x 1 and
# 2 x 2 cases this 2-core machine cannot): BENCH=prebuilt kolmo_fft_bench, PEER=prebuilt peer, and
# PEER_MPIEXEC=the launcher of the MPI the peer was built with. Then nothing is installed or built, e.g. with
# the peer linked to FFTW-MPI's own sources built against MPICH (tools/build_fftw_mpi_mpich.sh):
#   BENCH=./kolmo_fft_bench PEER=./fftw_mpi_peer_mpich PEER_MPIEXEC=mpiexec tools/cpu_fft_compare.sh
#
# Installing OpenMPI (when the peer's packages are missing) switches the mpi and mpirun alternatives to
# OpenMPI; the script restores MPICH's at once, in the same command, and checks that mpiexec is MPICH's
# (HYDRA) before it starts and again at the end. With the packages present it never touches the alternatives
# and calls OpenMPI's tools by their full names (mpicxx.openmpi, mpiexec.openmpi). CI never runs this.
# Timings on a shared machine are noisy: before each measurement the script waits (up to WAIT seconds) for
# the 1-minute load average to fall below LOAD_MAX, and prints the load with each result.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
sizes=${SIZES:-64 128 256}
precisions=${PRECISIONS:-double single}
reps=${REPS:-30}
rounds=${ROUNDS:-3}
cores=$(nproc)
configs=${CONFIGS:-1x$cores 2x1 4x1$([ "$cores" -ge 4 ] && echo " 2x2")}
load_max=${LOAD_MAX:-0.5}
# WISDOM=DIR: FFTW wisdom (kolmo's and the peers' plans) from and to DIR instead of the user's cache, e.g. a
# fresh one to measure all plans anew (plans measured under load are worse, for both).
wisdom=(${WISDOM:+--wisdom "$WISDOM"})
wait_max=${WAIT:-600}

restore_mpich() {
  update-alternatives --set mpi /usr/bin/mpicc.mpich > /dev/null
  update-alternatives --set mpirun /usr/bin/mpirun.mpich > /dev/null
}
check_mpich() {
  if ! mpiexec --version 2>&1 | grep -q HYDRA; then
    echo "cpu_fft_compare: mpiexec is not MPICH's (HYDRA) after restoring the alternatives" >&2
    exit 1
  fi
}

# Where OpenMPI is installed already, the alternatives are left alone (other jobs may be using mpiexec).
if [ -n "${PEER:-}" ]; then
  :  # a prebuilt peer: nothing to install
elif ! command -v mpicxx.openmpi > /dev/null || [ ! -f /usr/include/fftw3-mpi.h ]; then
  trap 'restore_mpich; check_mpich' EXIT
  echo "== installing the peer's packages (OpenMPI, FFTW-MPI); restoring MPICH's alternatives at once"
  (DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libfftw3-mpi-dev \
    libopenmpi-dev openmpi-bin > /dev/null; status=$?; restore_mpich; exit $status)
fi
check_mpich

if [ -n "${BENCH:-}" ]; then
  bench=$BENCH
else
  cmake --build "$build" --target kolmo_fft_bench -j2 > /dev/null
  bench="$build/tools/kolmo_fft_bench"
fi
if [ -n "${PEER:-}" ]; then
  peer=$PEER
  peer_mpiexec=(${PEER_MPIEXEC:-mpiexec})
else
  peer="$build/fftw_mpi_peer"
  mpicxx.openmpi -std=c++20 -O2 -fopenmp -I. tools/fftw_mpi_peer.cpp -lfftw3_mpi -lfftw3f_mpi -lfftw3_omp \
    -lfftw3f_omp -lfftw3 -lfftw3f -o "$peer"
  peer_mpiexec=(mpiexec.openmpi --oversubscribe --bind-to none -x OMP_NUM_THREADS)
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

. tools/cpu_fft_lib.sh

echo "== $(uname -n): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $cores cores, $(date -u +%F)"
for config in $configs; do
  ranks=${config%x*}
  threads=${config#*x}
  for n in $sizes; do
    for p in $precisions; do
      if [ "$ranks" -eq 1 ]; then
        for modes in "" "--dealiased"; do
          ratios=() cpu_ratios=() min_ratios=()
          for round in $(seq "$rounds"); do
            wait_for_quiet
            echo "-- round $round, load $(load)"
            out=$(OMP_NUM_THREADS=$threads mpiexec -n 1 "$bench" --n "$n" --precision "$p" --backend host \
              --reps "$reps" "${wisdom[@]}" $modes)
            echo "$out"
            ratios+=("$(sed -n 's/.*RESULT.* ratio \([0-9.]*\) cpu_ratio.*/\1/p' <<< "$out")")
            cpu_ratios+=("$(sed -n 's/.*RESULT.* cpu_ratio \([0-9.]*\).*/\1/p' <<< "$out")")
            min_ratios+=("$(sed -n 's/.*RESULT.* min_ratio \([0-9.]*\).*/\1/p' <<< "$out")")
          done
          echo "SUMMARY n=${n}^3 $p${modes:++dealiased} ranks=1 threads=$threads kolmo/FFTW3D: wall ratio" \
            "$(printf '%s\n' "${ratios[@]}" | median), processor-time ratio" \
            "$(printf '%s\n' "${cpu_ratios[@]}" | median), fastest pairs' ratio" \
            "$(printf '%s\n' "${min_ratios[@]}" | median) (medians of $rounds runs, load $(load))"
        done
        continue
      fi
      full=() dealiased=() fftw_mpi=()
      for round in $(seq "$rounds"); do
        wait_for_quiet
        echo "-- round $round, load $(load)"
        out=$(OMP_NUM_THREADS=$threads mpiexec -n "$ranks" "$bench" --n "$n" --precision "$p" --backend host \
          --reps "$reps" "${wisdom[@]}")
        echo "$out"
        full+=("$(sed -n 's/.*RESULT.* kolmo \([0-9.]*\) ms.*/\1/p' <<< "$out")")
        out=$(OMP_NUM_THREADS=$threads mpiexec -n "$ranks" "$bench" --n "$n" --precision "$p" --backend host \
          --reps "$reps" "${wisdom[@]}" --dealiased)
        echo "$out"
        dealiased+=("$(sed -n 's/.*RESULT.* kolmo \([0-9.]*\) ms.*/\1/p' <<< "$out")")
        out=$(OMP_NUM_THREADS="$threads" "${peer_mpiexec[@]}" -n "$ranks" "$peer" \
          --n "$n" --precision "$p" --reps "$reps")
        echo "$out"
        fftw_mpi+=("$(sed -n 's/.*PEER.* fftw_mpi \([0-9.]*\) ms.*/\1/p' <<< "$out")")
      done
      k=$(printf '%s\n' "${full[@]}" | median)
      d=$(printf '%s\n' "${dealiased[@]}" | median)
      f=$(printf '%s\n' "${fftw_mpi[@]}" | median)
      awk -v n="$n" -v p="$p" -v r="$ranks" -v t="$threads" -v k="$k" -v d="$d" -v f="$f" -v l="$(load)" \
        -v rounds="$rounds" 'BEGIN {
        printf "RESULT n=%sx%sx%s %s ranks=%s threads=%s kolmo %.3f ms FFTW-MPI %.3f ms ratio %.3f; ", n, n, n, p, r,
          t, k, f, k / f
        printf "dealiased %.3f ms ratio %.3f (medians of %s rounds, load %s)\n", d, d / f, rounds, l }'
    done
  done
done
