#!/bin/bash
# Scaling over MPI ranks, one GPU per rank (docs/BENCHMARKS.md, issue 12): run on the
# `nvidia-h200-x2` machine from the project root, with the `--features cuda,mpi` build in .dev/
# (BIN to override), logs under $OUT (or /tmp). Rows, each with randoms exact and packed:
# - one rank: SMSC 65536^2 and 3D EA AMSC L = 64 with 1024 samples (the per-GPU baselines);
# - weak scaling, 2D SMSC at 65536^2 per GPU: L = 92672 on 2 ranks (92672^2 = 2 x 65536^2 to
#   0.01%; slabs of 46336 planes);
# - strong scaling, 2D SMSC at 65536^2 in all on 2 ranks;
# - 3D EA AMSC, samples spread over ranks: 2048 samples on 2 ranks (1024 per GPU);
# - one slab trading with itself on one GPU (`--slabs 1`), the exchange's cost per rank.
# Ranks choose their GPU from the node-local rank (`ranks::world`).
BIN=${BIN:-.dev/spinflip}
LOGS=${OUT:-/tmp}/scaling; mkdir -p $LOGS
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR; chmod 700 $XDG_RUNTIME_DIR
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
M="mpirun --bind-to none"
T0=$(date +%s)
row() {
  name=$1; shift
  timeout 150 "$@" > $LOGS/$name.log 2>&1
  echo "$name rc=$? at $(( $(date +%s) - T0 ))s"; grep -E '^cuda ' $LOGS/$name.log | cut -c1-6,100-
}
nvidia-smi topo -m > $LOGS/topology.txt 2>&1
for r in exact packed; do
  B="bench --backend cuda --seconds 2 --randoms $r"
  row smsc_1gpu_$r $BIN $B --engine smsc --sizes 65536 --slabs 1
  row smsc_weak_2gpu_$r $M -np 2 $BIN $B --engine smsc --sizes 92672
  row smsc_strong_2gpu_$r $M -np 2 $BIN $B --engine smsc --sizes 65536
  E="--engine amsc --model ea --dims 3 --sizes 64"
  row ea_1gpu_$r $BIN $B $E --systems 1024
  row ea_2gpu_$r $M -np 2 $BIN $B $E --systems 2048
done
