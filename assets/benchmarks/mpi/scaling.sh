#!/bin/bash
# Scaling over MPI ranks, one GPU per rank (docs/BENCHMARKS.md), on a
# multi-GPU machine (`nvidia-h100-x4`, `-x8`) from the project root, with the `--features
# cuda,mpi` release build in .dev/ (BIN to override). Rows up to the machine's GPU count, or
# the counts in GPUS (e.g. GPUS="1 4"); each `spinflip bench --json` line in $OUT/scaling/,
# then one table. Rows (beta 0.6667 as ising-gpu's T = 1.5; EA at beta 1.0):
# - SMSC 2D, randoms exact and packed: one GPU at 65536^2 and at the weak rows' widths; weak
#   (65536^2 per GPU: L = 92672 on 2, 131008 on 4; 131072 = 2 x 65536 is beyond the hot
#   start's 2^34 sites, and so is 8 x 65536^2: no weak row on 8 GPUs until it takes more) and strong (65536^2 and, from 4 GPUs, 131008^2 in all), halos
#   device to device (NCCL) and host-staged (SPINFLIP_HALOS=host); and, from 4 GPUs, one GPU
#   and weak at 130560, whose rows of 2040 words are whole 32-byte sectors where 131008's
#   2047 are not (the single-GPU effect of the row width, docs/BENCHMARKS.md);
# - 3D EA AMSC L = 64 by samples (1024 per GPU), exact and packed;
# - parallel tempering of the 3D spin glass by samples (L = 16, 32 temperatures, 1024 samples
#   per GPU) and population annealing by samples (L = 16, 2^16 replicas, one sample per GPU;
#   and on one GPU with as many samples as the most GPUs: the host's share grows with them);
# - WGSL slabs, strong at 65536^2 (host-staged: wgpu has no device path);
# - the exchange's latency: strong at 4096^2 and 16384^2, whose bulk is too thin to hide it,
#   both halo paths (the model of many GPUs in docs/multi-gpu.md starts from these).
# DEADLINE (seconds, default 540) skips the rows that would start after it; ONLY (an extended
# regular expression) keeps the rows whose names match it.
BIN=${BIN:-.dev/spinflip}
LOGS=${OUT:-/tmp}/scaling; mkdir -p "$LOGS"
DEADLINE=${DEADLINE:-540}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR; chmod 700 $XDG_RUNTIME_DIR
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RUST_LOG=spinflip=info
GPUS=${GPUS:-$(for d in 1 2 4 8; do [ $d -le "$(nvidia-smi -L | wc -l)" ] && echo $d; done)}
T0=$(date +%s)
nvidia-smi topo -m > "$LOGS/topology.txt" 2>&1

# row NAME GPUS HALOS ARGS...: one bench on GPUS ranks (1: no mpirun), its JSON line kept.
row() {
  local name=$1 d=$2 halos=$3; shift 3
  [[ -n "${ONLY:-}" && ! "$name" =~ $ONLY ]] && return
  if [ $(( $(date +%s) - T0 )) -gt "$DEADLINE" ]; then echo "$name skipped (deadline)"; return; fi
  local run=("$BIN")
  [ "$d" -gt 1 ] && run=(mpirun --bind-to none -np "$d" "$BIN")
  SPINFLIP_HALOS=$halos timeout 90 "${run[@]}" bench --json --seconds 1 "$@" \
    > "$LOGS/$name.json" 2> "$LOGS/$name.err"
  echo "$name rc=$? at $(( $(date +%s) - T0 ))s $(grep -ho 'slab halos: [a-z -]*' "$LOGS/$name.err" | sort -u | tr '\n' ' ')"
}

weak_size() { case $1 in 1) echo 65536;; 2) echo 92672;; 4) echo 131008;; esac; }
MOST=$(echo $GPUS | tr ' ' '\n' | sort -n | tail -1)
SMSC="--backend cuda --engine smsc --beta 0.6667"
EA="--backend cuda --engine amsc --model ea --dims 3 --sizes 64 --beta 1.0"
PT="--backend cuda --tempering --engine amsc --model ea --dims 3 --sizes 16 --temperatures 32 --chains 2 --beta 0.9 --randoms packed"
PA="--backend cuda --annealing --engine amsc --model ea --dims 3 --sizes 16 --systems 65536 --beta 1.0 --steps 20 --theta 10 --randoms packed"
for d in $GPUS; do
  for r in exact packed; do
    if [ "$d" = 1 ]; then
      for L in 4096 16384 65536 $(for g in $GPUS; do [ "$g" -gt 1 ] && weak_size "$g"; done) $([ "$MOST" -ge 4 ] && echo 130560); do
        row "smsc_${r}_L${L}_1gpu" 1 device $SMSC --randoms $r --sizes "$L"
      done
    else
      for halos in device host; do
        [ -n "$(weak_size "$d")" ] && row "smsc_${r}_weak_${d}gpu_$halos" "$d" $halos $SMSC --randoms $r --sizes "$(weak_size "$d")"
        row "smsc_${r}_strong65536_${d}gpu_$halos" "$d" $halos $SMSC --randoms $r --sizes 65536
        for L in 4096 16384; do
          row "latency_${r}_strong${L}_${d}gpu_$halos" "$d" $halos $SMSC --randoms $r --sizes $L
        done
      done
      [ "$d" -ge 4 ] && row "smsc_${r}_strong131008_${d}gpu_device" "$d" device $SMSC --randoms $r --sizes 131008
      [ "$d" -ge 4 ] && row "smsc_${r}_weak130560_${d}gpu_device" "$d" device $SMSC --randoms $r --sizes 130560
    fi
    row "ea_${r}_${d}gpu" "$d" device $EA --randoms $r --systems $(( 1024 * d ))
  done
  row "pt_${d}gpu" "$d" device $PT --systems $(( 1024 * d ))
  row "pa_${d}gpu" "$d" device $PA --samples "$d"
  [ "$d" = 1 ] && row "pa_samples${MOST}_1gpu" 1 device $PA --samples "$MOST"
  row "wgsl_strong65536_${d}gpu" "$d" host --backend wgpu --adapter vulkan --engine smsc --beta 0.6667 --sizes 65536
done

echo "row | flips/ns | ps/flip"
for f in "$LOGS"/*.json; do
  python3 - "$f" <<'EOF'
import json, sys, os
name = os.path.basename(sys.argv[1])[:-5]
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for r in rows:
    print(f"{name} | {r.get('flips_per_ns', 0):.0f} | {r.get('ps_per_flip', 0):.4f}")
if not rows:
    print(f"{name} | - | -")
EOF
done
