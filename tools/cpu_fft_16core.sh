#!/usr/bin/env bash
# Two builds of kolmo's host FFT (BEFORE and AFTER, e.g. main's kolmo_fft_bench and a branch's) and FFTW-MPI's
# own slab transform (the peer, tools/fftw_mpi_peer.cpp; on one rank FFTW's own 3D plan, which
# kolmo_fft_bench times in the same process) on one host, across ranks, in the same run: for every
# ranks x threads configuration, grid and precision, ROUNDS rounds, each running the three programs (full
# pairs; kolmo's dealiased pairs too) in an order that rotates from round to round, so that a drift of the
# machine's speed during the run (other jobs, turbo, a cold start) weighs on all three alike. Medians of the
# rounds' medians; ratios after/peer, before/peer and after/before.
#
# Made for the CPU of a GPU host (16 cores, MPICH from the device bundle, no OpenMPI there: the peer built
# against MPICH by tools/build_fftw_mpi_mpich.sh), where 4 x 1 and 2 x 2 have cores of their own:
#
#   BEFORE=./kolmo_fft_bench_main AFTER=./kolmo_fft_bench PEER=./fftw_mpi_peer_mpich \
#     tools/cpu_fft_16core.sh 2>&1 | tee cpu_fft_16core.log
#
# Copy tools/cpu_fft_lib.sh (its shell functions) beside it. A device call lasts at most 10 minutes, so
# split the comparison by size, keeping one WISDOM directory (the machine stays warm between calls):
# SIZES=64, SIZES=128, then SIZES=256 with ROUNDS=3 (one call for each of its CONFIGS if time is short);
# DEALIASED=0 leaves out kolmo's dealiased pairs (3 programs a round instead of 5). The log of each call
# goes on as it runs (tee to $OUT), so a call cut short keeps its rounds.
#
# Settings (environment): CONFIGS ("2x1 4x1 2x2": ranks x OpenMP threads; 1xT: one rank against FFTW's 3D
# plan), SIZES ("64 128 256"), PRECISIONS ("double single"), ROUNDS (5), REPS (timed pairs a run: 200 at
# 64^3, whose pairs take about 1 ms, 30 at 128^3, 10 above), DEALIASED (1: kolmo's dealiased pairs too; 0:
# full only), MPIEXEC (kolmo's launcher: mpiexec), PEER_MPIEXEC (the peer's: mpiexec), WISDOM (directory of
# the FFTW wisdom that both builds share, so that they run the same plans for the same problems and a plan
# measured at a noisy moment weighs on both: kept separate, 128^3 double 2 x 1 gave one build in-place x
# transforms of 1.1-1.2 ms for the other's 0.7-0.8 in every round; default a new temporary directory, so
# that the plans are measured in this run; keep one across calls that split a comparison), LOAD_MAX (1000: no
# waiting) and WAIT (0): before each run wait up to WAIT seconds for the 1-minute load average to fall below
# LOAD_MAX (on a shared machine: LOAD_MAX=0.5 WAIT=600); BEFORE_ARGS and AFTER_ARGS (more arguments for either
# kolmo_fft_bench: e.g. one build twice, AFTER=$BEFORE AFTER_ARGS="--exchange alltoallv", compares two of its
# options).
set -euo pipefail
: "${BEFORE:?BEFORE=path of the kolmo_fft_bench to compare against}"
: "${AFTER:?AFTER=path of the kolmo_fft_bench to measure}"
: "${PEER:?PEER=path of the FFTW-MPI peer (tools/fftw_mpi_peer.cpp)}"
configs=${CONFIGS:-2x1 4x1 2x2}
sizes=${SIZES:-64 128 256}
precisions=${PRECISIONS:-double single}
rounds=${ROUNDS:-5}
dealiased=${DEALIASED:-1}
mpiexec=(${MPIEXEC:-mpiexec})
peer_mpiexec=(${PEER_MPIEXEC:-mpiexec})
load_max=${LOAD_MAX:-1000}
wait_max=${WAIT:-0}
wisdom=${WISDOM:-$(mktemp -d)}
mkdir -p "$wisdom"

. "$(dirname "$0")/cpu_fft_lib.sh"

# One run of a program; its output goes to the log, its median pair time (ms) to times[$1].
declare -A times
run() {
  local what=$1 ranks=$2 threads=$3 n=$4 p=$5 reps=$6 out
  wait_for_quiet
  case $what in
    peer)
      out=$(OMP_NUM_THREADS=$threads "${peer_mpiexec[@]}" -n "$ranks" "$PEER" --n "$n" --precision "$p" \
        --reps "$reps")
      times[$what]+="$(sed -n 's/.*PEER.* fftw_mpi \([0-9.]*\) ms.*/\1/p' <<< "$out") " ;;
    *)
      local bench=$BEFORE side=${what%%+*} modes=() args=(${BEFORE_ARGS:-})
      [ "$side" = after ] && bench=$AFTER args=(${AFTER_ARGS:-})
      [ "$what" != "$side" ] && modes=(--dealiased)
      out=$(OMP_NUM_THREADS=$threads "${mpiexec[@]}" -n "$ranks" "$bench" --n "$n" --precision "$p" \
        --backend host --reps "$reps" --wisdom "$wisdom" "${modes[@]}" "${args[@]}")
      times[$what]+="$(sed -n 's/.*RESULT.* kolmo \([0-9.]*\) ms.*/\1/p' <<< "$out") "
      # one rank: the peer is FFTW's own 3D plan, timed by the benchmark in the same run (full pairs)
      [ "$ranks" -eq 1 ] && [ "$what" = "$side" ] &&
        times[peer]+="$(sed -n 's/.*RESULT.* FFTW3D \([0-9.]*\) ms.*/\1/p' <<< "$out") " ;;
  esac
  echo "## $what (load $(load))"
  echo "$out"
}

programs=(before after peer)
[ "$dealiased" = 1 ] && programs+=(before+dealiased after+dealiased)
echo "== $(uname -n): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(date -u '+%F %T') UTC"
echo "== BEFORE=$BEFORE ${BEFORE_ARGS:-} AFTER=$AFTER ${AFTER_ARGS:-} PEER=$PEER; wisdom in $wisdom; $rounds rounds"
summary=()
for config in $configs; do
  ranks=${config%x*}
  threads=${config#*x}
  for n in $sizes; do
    reps=${REPS:-$([ "$n" -le 64 ] && echo 200 || ([ "$n" -le 128 ] && echo 30) || echo 10)}
    for p in $precisions; do
      times=()
      for round in $(seq "$rounds"); do
        echo "-- n=$n $p ${ranks}x$threads round $round"
        # rotate the order by one program a round
        order=("${programs[@]}")
        [ "$ranks" -eq 1 ] && order=("${programs[@]/peer/}")
        order=($(printf '%s\n' "${order[@]}" | grep .))
        count=${#order[@]}
        for i in $(seq 0 $((count - 1))); do
          run "${order[$(((i + round - 1) % count))]}" "$ranks" "$threads" "$n" "$p" "$reps"
        done
      done
      declare -A m=()
      for what in "${programs[@]}"; do m[$what]=$(tr ' ' '\n' <<< "${times[$what]}" | grep . | median); done
      line=$(awk -v n="$n" -v p="$p" -v c="${ranks}x$threads" -v b="${m[before]}" -v a="${m[after]}" \
        -v f="${m[peer]}" -v pn="$([ "$ranks" -eq 1 ] && echo FFTW3D || echo FFTW-MPI)" -v bd="${m[before+dealiased]:-0}" -v ad="${m[after+dealiased]:-0}" 'BEGIN {
        printf "RESULT n=%s^3 %s %s: before %.3f after %.3f %s %.3f ms; full after/peer %.3f before/peer %.3f after/before %.3f", n, p, c, b, a, pn, f, a / f, b / f, a / b
        if (ad > 0) printf "; dealiased after/peer %.3f before/peer %.3f after/before %.3f", ad / f, bd / f, ad / bd }')
      echo "$line (medians of $rounds rounds; pairs of each run, before: ${times[before]}after: ${times[after]}peer: ${times[peer]})"
      summary+=("$line")
    done
  done
done
echo "== summary (medians of $rounds rounds; $(date -u '+%T') UTC)"
printf '%s\n' "${summary[@]}"
