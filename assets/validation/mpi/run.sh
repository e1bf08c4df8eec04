#!/bin/bash
# Runs split over MPI ranks against one rank, byte for byte (docs/VALIDATION.md): every config
# here on 1, 2 and 3 ranks (the anneal's 2 samples on 1 and 2), CUDA and Vulkan. From the
# repository root, with a `--features cuda,mpi` build as BIN (default target/release/spinflip).
BIN=${BIN:-target/release/spinflip}
OUT=${OUT_DIR:-/tmp/mpi-validation}; mkdir -p $OUT
D=assets/validation/mpi
M="mpirun --oversubscribe --bind-to none"
for cfg in smsc tempering anneal slab2d slab3d; do for be in cuda wgpu; do
  o=$OUT/${cfg}_$be
  timeout 300 $BIN run $D/$cfg.ron --backend $be --out $o/np1 > $o.np1.log 2>&1 || echo "$cfg $be np1 failed"
  for n in 2 3; do
    [ $cfg = anneal ] && [ $n = 3 ] && continue
    timeout 300 $M -np $n $BIN run $D/$cfg.ron --backend $be --out $o/np$n > $o.np$n.log 2>&1 || echo "$cfg $be np$n failed"
    python3 $D/compare.py $o/np1 $o/np$n
  done
done; done
