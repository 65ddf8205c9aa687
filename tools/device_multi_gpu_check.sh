#!/usr/bin/env bash
# On a machine of several GPUs in one node (the device tool's nvidia-h200-x2, -x4, -x8): what issue 11 left to
# confirm there, the one-GPU work having predicted it. In stages (STAGES, default all four), each call of the
# device tool being limited to 10 minutes:
# - tests: the FFT's GPU tests on P ranks, a GPU each (P = 2 and 4 where present): the p2p exchange (copy
#   engines, CUDA IPC) between real GPUs, NCCL, pieces, uneven slabs.
# - pairs: for each GPU count P in GPUS, pairs at SIZES in PRECISIONS, full and dealiased (the kept-row
#   split), through each of EXCHANGES, in one piece and in the pieces a timing chooses; each appends a PAIR
#   line (route, pieces, pair, the slowest rank's computation and phases) to pairs_lines.log. cuFFTXt's pair
#   beside the first pair of each size and precision.
# - emulate: one rank's work of the same transforms on GPU 0 (kolmo_fft_bench --emulate-ranks, every route,
#   both splits): the phases the model starts from, on this kind of GPU.
# - model: tools/fft_model.py --check of every PAIR line against the model of its route, split and pieces,
#   and the slowest rank's computation measured beside the emulated one (item 1's prediction).
# Logs under $OUT: tests.log, pairs.log (the benchmark's text), pairs_lines.log, phases.log, emulated.log,
# model.txt (six files; each stage appends, so stages in separate calls need their earlier logs carried back
# in, or read together afterwards).
# Build here (Release, sm_90), then, with DIR=/work/main/.device_<name>:
#   mkdir -p $DIR && cp build/tests/kolmo_tests build/tools/kolmo_fft_bench tools/fft_model.py \
#     tools/device_multi_gpu_check.sh $DIR
#   /work/shared/device/bundle $DIR/bundle.tar.xz $DIR/kolmo_tests $DIR/kolmo_fft_bench
# and run `bash .device_<name>/device_multi_gpu_check.sh .device_<name>` with that folder carried.
# Environment: STAGES (tests pairs emulate model), GPUS (GPU counts, default 2 4 8 up to those present),
# SIZES (512 1024, and 2048 on 4 GPUs or more), PRECISIONS (single double), EXCHANGES (p2p nccl), BANDWIDTH
# (the model's link GB/s per GPU, default 2:306,4:330,8:330, NCCL's), BENCH_TIMEOUT (s per run, 180),
# TEST_TIMEOUT (s per rank count, 400).
# SHARE_ONE_GPU=P: a dry run on one GPU, P ranks sharing it (p2p only, no cuFFTXt, SIZES default 64 128):
# checks the plumbing; its timings mean nothing.
set -uo pipefail
dir=${1:-.device}
tar xJf $dir/bundle.tar.xz -C /opt && source /opt/devbundle/env.sh && cd $dir
out=${OUT:-/tmp}
start=$(date +%s)
stages=${STAGES:-tests pairs emulate model}
present=$(nvidia-smi -L | wc -l)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
kind=$(echo "$gpu" | grep -o -E "H100|H200" | head -1)
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a $out/pairs.log
elapsed() { echo "at $(($(date +%s) - start)) s"; }
has() { [[ " $stages " == *" $1 "* ]]; }

if [ -n "${SHARE_ONE_GPU:-}" ]; then
  counts=$SHARE_ONE_GPU exchanges=p2p peer=no
  sizes=${SIZES:-64 128}
else
  counts=""
  for p in ${GPUS:-2 4 8}; do [ "$p" -le "$present" ] && counts="$counts $p"; done
  exchanges=${EXCHANGES:-p2p nccl} peer=yes
  sizes=${SIZES:-}
fi
echo "== $gpu x $present; GPU counts:$counts; stages: $stages"

if has tests; then
  for p in $counts; do
    [ "$p" -le 4 ] || continue
    echo "== GPU tests, $p ranks" >> $out/tests.log
    timeout ${TEST_TIMEOUT:-400} mpiexec -n $p ./kolmo_tests "[gpu]" >> $out/tests.log 2>&1
    echo "== GPU tests, $p ranks: exit $?, $(elapsed)"
    tail -2 $out/tests.log
  done
fi

if has pairs; then
  for p in $counts; do
    for n in ${sizes:-512 1024 $([ "$p" -ge 4 ] && echo 2048)}; do
      for precision in ${PRECISIONS:-single double}; do
        with_peer=$peer  # cuFFTXt beside the first pair of this size and precision
        for modes in full dealiased; do
          extra=$([ $modes = dealiased ] && echo "--dealiased --spectral-split kept_rows")
          for exchange in $exchanges; do
            for pieces in 1 0; do
              timeout ${BENCH_TIMEOUT:-180} mpiexec -n $p ./kolmo_fft_bench --n $n --precision $precision \
                --backend cuda --exchange $exchange --pieces $pieces $extra \
                $([ $with_peer = yes ] || echo --no-peer) --warmup 3 --reps 10 --log $out/pairs_lines.log \
                >> $out/pairs.log 2>&1
              echo "== $p GPUs, $n^3 $precision $modes, $exchange, pieces $pieces: exit $?, $(elapsed)"
              with_peer=no
            done
          done
        done
      done
    done
  done
  grep RESULT $out/pairs.log
fi

if has emulate; then
  ranks=$(echo $counts | tr ' ' '\n' | sort -n | tr '\n' ' ')
  for n in ${sizes:-512 1024}; do
    [ "$n" -le 1024 ] || continue  # the model extrapolates 2048^3 from 1024^3
    for precision in ${PRECISIONS:-single double}; do
      CUDA_VISIBLE_DEVICES=0 timeout ${BENCH_TIMEOUT:-180} ./kolmo_fft_bench --n $n --precision $precision \
        --backend cuda --emulate-ranks $ranks --routes copies fused realigned strided placed \
        --modes full dealiased --spectral-split even kept_rows --warmup 2 \
        --reps $([ $n -ge 1024 ] && echo 7 || echo 10) --log $out/phases.log >> $out/emulated.log 2>&1
      echo "== emulated ranks $ranks, $n^3 $precision: exit $?, $(elapsed)"
    done
  done
fi

if has model; then
  /usr/bin/python3 fft_model.py --phases $out/phases.log --source ${kind:-H200} --target ${kind:-H200} \
    --bandwidth ${BANDWIDTH:-2:306,4:330,8:330} --check $out/pairs_lines.log > $out/model.txt 2>&1
  echo "== model check: exit $? (1: an error beyond the tolerance or no pair compared; 2: a log it cannot use), $(elapsed)"
  sed -n '/^Check/,/^largest/p' $out/model.txt; grep '^fft_model:' $out/model.txt
fi
