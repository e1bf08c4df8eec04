#!/bin/bash
# Two builds of spinflip side by side on the device machine, row by row, alternating A and B
# REPEAT times, CUDA and Vulkan: the rows a change must keep within 2%: SMSC 2D
# (exact and packed randoms), AMSC 3D Edwards-Anderson, parallel tempering, population
# annealing, Swendsen-Wang (2D at beta_c), and the vector spins (Heisenberg plain and with 16^2
# tiles of 4 hits, XY). Usage (from the project root, binaries built with --release --features cuda):
#   assets/benchmarks/compare.sh .dev/spinflip-before .dev/spinflip-after
# Logs (JSON lines of `spinflip bench --json`) in $OUT/compare.tgz; prints ps/flip (ps per
# update for vector spins, ps per spin and cluster update for Swendsen-Wang) per row, binary and
# repetition, then each row's median ratio after / before.
A=$1 B=$2
REPEAT=${REPEAT:-2}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR; chmod 700 $XDG_RUNTIME_DIR
L=/tmp/compare; mkdir -p $L
declare -A ROWS=(
  [smsc_exact]="--engine smsc --sizes 65536 --randoms exact"
  [smsc_packed]="--engine smsc --sizes 65536 --randoms packed"
  [amsc_ea]="--engine amsc --model ea --dims 3 --sizes 64 --systems 1024"
  [tempering]="--tempering --engine amsc --model ea --dims 3 --systems 1024 --temperatures 32 --chains 2 --beta 0.9 --sizes 16 --randoms packed"
  [annealing]="--annealing --engine amsc --steps 20 --theta 10 --sizes 64 --systems 262144 --randoms packed"
  [swendsen_wang]="--engine simple --clusters swendsen-wang --sizes 4096 --beta 0.4406868"
  [heisenberg]="--model heisenberg --sizes 4096"
  [heisenberg_tiles]="--model heisenberg --sizes 4096 --tile 16 --hits 4"
  [xy]="--model xy --sizes 4096"
)
ORDER="smsc_exact smsc_packed amsc_ea tempering annealing swendsen_wang heisenberg heisenberg_tiles xy"
declare -A BACKENDS=([cuda]="--backend cuda" [wgsl]="--backend wgpu --adapter vulkan")
for i in $(seq $REPEAT); do
  for row in $ORDER; do
    for backend in cuda wgsl; do
      for side in A B; do
        bin=${!side}
        log=$L/${row}_${backend}_${side}_$i.json
        timeout 120 $bin bench --json --seconds 1 ${ROWS[$row]} ${BACKENDS[$backend]} > $log 2> $log.err
        echo "$row $backend $side $i rc=$?"
      done
    done
  done
done
python3 - "$L" <<'EOF'
import json, sys, glob, os, statistics
rows = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    row, backend, side, rep = os.path.basename(path)[:-5].rsplit("_", 3)
    for line in open(path):
        r = json.loads(line)
        ps = r.get("tempering_ps_per_flip") or r.get("ps_per_flip") or r["ps_per_update"]
        rows.setdefault((row, backend), {}).setdefault(side, []).append(ps)
print(f"{'row':<12} {'backend':<6} {'before ps/flip':>24} {'after ps/flip':>24} {'after/before':>12}")
for (row, backend), sides in sorted(rows.items()):
    a, b = sides.get("A", []), sides.get("B", [])
    ratio = statistics.median(b) / statistics.median(a) if a and b else float("nan")
    fmt = lambda xs: ", ".join(f"{x:.4f}" for x in xs)
    print(f"{row:<12} {backend:<6} {fmt(a):>24} {fmt(b):>24} {ratio:>12.4f}")
EOF
if [ -n "${OUT:-}" ]; then tar czf "$OUT/compare.tgz" -C /tmp compare; fi
