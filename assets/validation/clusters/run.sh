#!/bin/bash
# Cluster updates at the critical point (docs/VALIDATION.md): from the repository root,
# with a release build as BIN (default target/release/spinflip; `--features cuda` for Cuda).
#   kaufman: Swendsen-Wang, 2D Ising at beta_c, L = 16 .. 256: e and c against Kaufman (the
#            summary's `exact`), the improved m2 beside the direct one;
#   u4:      Swendsen-Wang, 3D Ising, L = 8 .. 64, 7 betas around 0.2216546: Binder crossings;
#   tau:     integrated autocorrelation times of e and |m| at 2D beta_c against L for
#            Swendsen-Wang, Wolff (4 clusters a step) and multispin Metropolis (engine: Auto),
#            a measurement after every step or sweep (Metropolis: every EVERY_METROPOLIS);
#   wall:    tau at L = 1024 and 4096 (SW, Metropolis at 1024 too) and the bench rows of those
#            sizes (bench.json), for the table of wall time per independent configuration;
#   twisted: Swendsen-Wang and Wolff (4 clusters a step) on the 2D torus twisted along y
#            (`boundaries: (Periodic, Antiperiodic)`, two discrete states on the vector engine),
#            L = 32 .. 128 at BETAS_TWISTED: e and c against Kaufman's twisted torus
#            (`spinflip exact --antiperiodic 1`, written beside each run), the improved m2 from
#            the clusters' magnetisations beside the direct one.
# Then `python3 assets/validation/clusters/analyse.py $OUT --svg tau.svg --bench $OUT/bench.json`
# prints the tables, fits z, draws tau against L and, with the bench rows, the wall-time table.
# SIZES_2D, SIZES_3D, SIZES_TAU, SIZES_METROPOLIS, SIZES_TWISTED (set empty: none of that
# kind), STEPS (measured steps of kaufman, tau and twisted; Metropolis takes 50x unless
# STEPS_METROPOLIS), STEPS_U4, BETAS_U4, BETAS_TWISTED, REPLICAS_TAU, REPLICAS_METROPOLIS, THERMALIZE_METROPOLIS, THERMALIZE (the cluster
# steps before measuring; default 1000 for kaufman, 2000 for u4 and tau), PARTS, BACKEND
# override. Each part fits a 10-minute slot of an H100 at 20 spins per ns and more. A CPU-sized
# run (BACKEND=Cpu, small L): docs/validation/history.md, 2026-11-27.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../run_config.sh"
BIN=${BIN:-target/release/spinflip}
OUT=${OUT_DIR:-/tmp/cluster-validation}
BACKEND=${BACKEND:-Cuda}
STEPS=${STEPS:-200000}
STEPS_U4=${STEPS_U4:-20000}
REPLICAS_TAU=${REPLICAS_TAU:-32}
REPLICAS_METROPOLIS=${REPLICAS_METROPOLIS:-32}
STEPS_METROPOLIS=${STEPS_METROPOLIS:-$((50 * STEPS))}
THERMALIZE_METROPOLIS=${THERMALIZE_METROPOLIS:-100000}
EVERY_METROPOLIS=${EVERY_METROPOLIS:-1}
BETAS_U4=${BETAS_U4:-0.2206, 0.2211, 0.2214, 0.22165, 0.2219, 0.2222, 0.2227}
BETAS_TWISTED=${BETAS_TWISTED:-0.42, 0.4406868, 0.46, 0.5}
PARTS=${PARTS:-kaufman u4 tau}
mkdir -p "$OUT"

# run NAME DIMS L BETAS ALGORITHM THERMALIZE MEASURE [REPLICAS] [EVERY]; BOUNDARIES, where
# set, closes the lattice's axes.
run() {
  local name=$1 dims=$2 size=$3 betas=$4 algorithm=$5 thermalize=$6 measure=$7 replicas=${8:-32}
  local every=${9:-1} boundaries=${BOUNDARIES:+, boundaries: $BOUNDARIES}
  run_config "$name" <<RON
(
    model: Ising(dims: $dims, size: $size, field: 0.0$boundaries),
    temperatures: Betas([$betas]),
    replicas: $replicas,
    sweeps: (thermalize: $thermalize, measure: $measure, every: $every),
    algorithm: $algorithm,
    seed: 35,
RON
}

SW="Clusters(update: SwendsenWang)"
WOLFF="Clusters(update: Wolff, clusters: 4)"
for part in $PARTS; do case $part in
kaufman)
  for L in ${SIZES_2D-16 32 64 128 256}; do
    run "kaufman_L$L" 2 "$L" 0.4406868 "$SW" "${THERMALIZE:-1000}" "$STEPS"
  done ;;
u4)
  for L in ${SIZES_3D-8 16 32 64}; do
    run "u4_L$L" 3 "$L" "$BETAS_U4" "$SW" "${THERMALIZE:-2000}" "$STEPS_U4" 8
  done ;;
tau)
  for L in ${SIZES_TAU-16 32 64 128 256 512}; do
    run "tau_sw_L$L" 2 "$L" 0.4406868 "$SW" "${THERMALIZE:-2000}" "$STEPS" "$REPLICAS_TAU"
    # From the hot start Wolff's clusters hold a few sites: reaching equilibrium takes about
    # L^2 / 50 steps of 4 clusters (5500 at L = 512, where 2000 fell short): twice that.
    run "tau_wolff_L$L" 2 "$L" 0.4406868 "$WOLFF" "${THERMALIZE:-$(( L * L / 25 > 2000 ? L * L / 25 : 2000 ))}" "$STEPS" "$REPLICAS_TAU"
  done
  for L in ${SIZES_METROPOLIS-16 32 64 128}; do
    run "tau_metropolis_L$L" 2 "$L" 0.4406868 Metropolis "$THERMALIZE_METROPOLIS" \
      "$STEPS_METROPOLIS" "$REPLICAS_METROPOLIS" "$EVERY_METROPOLIS"
  done ;;
wall)
  # SW: 2000 steps to equilibrate from the hot start are hundreds of tau at these sizes.
  run tau_sw_L1024 2 1024 0.4406868 "$SW" 2000 "${STEPS_WALL:-20000}" 32
  run tau_sw_L4096 2 4096 0.4406868 "$SW" 1000 "${STEPS_WALL_4096:-5000}" 4
  # Metropolis at 1024: tau_|m| near 10^5 sweeps, measured every 64 sweeps (more than 5
  # minutes of an H100; SWEEPS_METROPOLIS_1024=0 leaves it out).
  if [ "${SWEEPS_METROPOLIS_1024:-6400000}" -gt 0 ]; then
    run tau_metropolis_L1024 2 1024 0.4406868 Metropolis 1000000 "${SWEEPS_METROPOLIS_1024:-6400000}" 32 64
  fi
  for be in cuda "wgpu --adapter vulkan"; do
    "$BIN" bench --backend $be --engine simple --clusters swendsen-wang --dims 2 --sizes 1024,4096 \
      --seconds 1 --json >> "$OUT/bench.json" 2>> "$OUT/bench.err"
    "$BIN" bench --backend $be --sizes 1024,4096 --seconds 1 --json >> "$OUT/bench.json" 2>> "$OUT/bench.err"
  done ;;
twisted)
  for L in ${SIZES_TWISTED-32 64 128}; do
    BOUNDARIES="(Periodic, Antiperiodic)" run "twisted_sw_L$L" 2 "$L" "$BETAS_TWISTED" "$SW" \
      "${THERMALIZE:-2000}" "$STEPS" 16
    BOUNDARIES="(Periodic, Antiperiodic)" run "twisted_wolff_L$L" 2 "$L" "$BETAS_TWISTED" \
      "$WOLFF" "${THERMALIZE:-$(( L * L / 25 > 2000 ? L * L / 25 : 2000 ))}" "$STEPS" 16
    # None where Kaufman's twisted terms cancel past a double's digits (L = 128, beta = 0.5).
    for beta in ${BETAS_TWISTED//,/}; do
      exact="$OUT/twisted_exact_L${L}_$beta.json"
      "$BIN" exact --size "$L" --beta "$beta" --antiperiodic 1 > "$exact" 2> /dev/null || rm "$exact"
    done
  done ;;
esac; done
