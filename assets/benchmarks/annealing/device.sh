#!/bin/bash
# Population annealing on the device machine (docs/BENCHMARKS.md): the CUDA equality
# tests (the `cuda::` tests of the equality binary), then `spinflip bench --annealing` on CUDA
# and Vulkan, 2D Ising L = 64 at R = 2^16, 2^18, 2^20 and 3D EA L = 16 at R = 2^16, and one CUDA
# row with the per-step debug log.
# Run from the project root with the binaries in .dev/ (spinflip, equality: the test binary of
# tests/equality/ built with --release --features cuda); logs under $OUT.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR
L=/tmp/logs; mkdir -p $L; T0=$(date +%s); el() { echo "$1 rc=$2 at $(( $(date +%s)-T0 ))s"; }
timeout 300 .dev/equality cuda:: --test-threads 2 > $L/equality.log 2>&1; el equality $?
A="--annealing --engine amsc --steps 20 --theta 10"
run() { name=$1; shift; timeout 120 .dev/spinflip bench $A "$@" > $L/anneal_$name.log 2>&1; el $name $?; }
for r in 65536 262144 1048576; do
  run cuda_$r --backend cuda --sizes 64 --systems $r
  run wgsl_$r --backend wgpu --adapter vulkan --sizes 64 --systems $r
done
run cuda_ea --backend cuda --model ea --dims 3 --sizes 16 --systems 65536 --beta 1.0
run wgsl_ea --backend wgpu --adapter vulkan --model ea --dims 3 --sizes 16 --systems 65536 --beta 1.0
RUST_LOG=spinflip=debug run cuda_debug --backend cuda --sizes 64 --systems 1048576
tar czf $OUT/logs.tgz -C /tmp logs
grep -E "test result|FAILED|panicked" $L/equality.log
for f in $L/anneal_*.log; do echo "== $f"; grep -E "^(cuda|wgpu) " $f; done
grep -E "annealing step 1[5-9]|resampling step 1[5-9]" $L/anneal_cuda_debug.log | cut -c40-
