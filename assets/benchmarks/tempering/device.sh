#!/bin/bash
# Parallel tempering on the device machine (docs/BENCHMARKS.md): the CUDA equality tests and
# the NVRTC compile test, then the table of BENCHMARKS.md, `spinflip bench --tempering` for the
# 3D EA at L = 16 and 32 (1024 samples, 32 temperatures, 2 chains, a swap round every sweep,
# a measurement every 10 sweeps), CUDA and Vulkan, exact and packed randoms, REPEAT times each,
# and once each the swaps alone and the measurements alone (what each costs over plain sweeps).
# Run from the project root with the binaries in .dev/ (spinflip; equality and lib_tests: the
# test binaries of tests/equality/, whose `cuda::` tests run here, and of the library, built with
# --release --features cuda); logs under $OUT. `device.sh tests` runs the tests alone,
# `device.sh bench` the benchmarks alone, no argument both; `device.sh profile` profiles the
# kernels (below). Each half fits one 10-minute device call: the CUDA tests took about 300 s on
# the H100 and 148 s on the H200, the bench half 209 s on the H200 (REPEAT=2).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR; chmod 700 $XDG_RUNTIME_DIR
REPEAT=${REPEAT:-2}
L=/tmp/logs; mkdir -p $L; T0=$(date +%s); el() { echo "$1 rc=$2 at $(( $(date +%s)-T0 ))s"; }
tests() {
  timeout 60 .dev/lib_tests --ignored nvrtc > $L/nvrtc.log 2>&1; el nvrtc $?
  timeout 360 .dev/equality cuda:: --test-threads 2 > $L/equality.log 2>&1; el equality $?
  grep -E "test result|FAILED|panicked" $L/nvrtc.log $L/equality.log
}
P="--tempering --engine amsc --model ea --dims 3 --systems 1024 --temperatures 32 --chains 2"
P="$P --beta 0.9 --seconds 1 --sizes 16,32"
run() { name=$1; shift; timeout 150 .dev/spinflip bench $P "$@" > $L/pt_$name.log 2>&1; el $name $?; }
bench() {
  for i in $(seq $REPEAT); do
    for r in packed exact; do
      run cuda_${r}_$i --backend cuda --randoms $r
      run wgsl_${r}_$i --backend wgpu --adapter vulkan --randoms $r
    done
  done
  for r in packed exact; do
    run cuda_${r}_swaps --backend cuda --randoms $r --measure-every 100000000
    run cuda_${r}_measurements --backend cuda --randoms $r --swap-every 100000000
  done
  for f in $L/pt_*.log; do echo "== $f"; grep -E "^(cuda|wgpu) " $f | cut -c1-6,100-; done
}
# Nsight Compute (the device has ncu, not nsys) on the PT bench at L = 16, packed randoms: each
# update, swap and measurement kernel alone (clocks and caches left as they run), its time,
# registers, occupancy and issue rate; the plain sweeps' updates from a run without rounds or
# measurements. About 15 s on the H200.
profile() {
  local ncu="/usr/local/cuda/bin/ncu --clock-control none --cache-control none --csv"
  local metrics=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread
  metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
  metrics=$metrics,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum
  local p="${P% --seconds*} --seconds 0.3 --sizes 16 --backend cuda --randoms packed"
  prof() {
    name=$1; shift
    timeout 120 $ncu --metrics $metrics "$@" > $L/ncu_$name.csv 2>&1; el ncu_$name $?
  }
  prof plain --launch-skip 30 --launch-count 8 .dev/spinflip bench $p \
    --swap-every 100000000 --measure-every 100000000
  prof pairs --kernel-name regex:pairs --launch-skip 100 --launch-count 8 .dev/spinflip bench $p
  prof rounds --kernel-name regex:"tempering|observ|overlap" --launch-skip 30 --launch-count 16 \
    .dev/spinflip bench $p
  # One line per launch: its ID, kernel and grid, then each metric (name shortened) = value.
  for f in $L/ncu_*.csv; do
    echo "== $f"
    grep '^"[0-9]' $f | awk -F'","' '{
        k = substr($1, 2); split($13, part, "__"); name = part[2]; sub(/\..*/, "", name)
        line[k] = line[k] " " name "=" substr($NF, 1, length($NF) - 1); head[k] = $5 " " $9 }
      END { for (k in line) print k, head[k], line[k] }' | sort -n
  done
}
case ${1:-all} in
  tests) tests ;;
  bench) bench ;;
  profile) profile ;;
  *) tests; bench ;;
esac
tar czf $OUT/logs.tgz -C /tmp logs
