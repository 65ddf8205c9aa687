# Shell functions of the CPU FFT comparisons (tools/cpu_fft_compare.sh, tools/cpu_fft_16core.sh), sourced:
# load (the 1-minute load average), wait_for_quiet (wait up to $wait_max seconds for it to fall below
# $load_max) and median (of the numbers on stdin, one a line).
load() { cut -d' ' -f1 /proc/loadavg; }
wait_for_quiet() {
  local waited=0
  while awk -v l="$(load)" -v m="$load_max" 'BEGIN { exit !(l > m) }' && [ "$waited" -lt "$wait_max" ]; do
    sleep 10
    waited=$((waited + 10))
  done
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
