#!/bin/bash
# Replica cluster moves against parallel tempering alone (docs/VALIDATION.md): the
# Edwards-Anderson +-J glass, SAMPLES samples of two replicas, each run twice from one seed,
# with the moves (NAME_moves_L<L>) and without (NAME_plain_L<L>); from the repository root, with
# a release build as BIN (default target/release/spinflip; `--features cuda` for Cuda).
#   ea2d: 2D, TEMPS_2D temperatures T = 0.2-1.6 (geometric), one Houdayer move of every pair
#         after each sweep, L in SIZES_2D;
#   ea3d: 3D, TEMPS_3D temperatures T = 0.2-2.0, one isoenergetic move at T <= 1.0 (Zhu, Ochoa
#         and Katzgraber, Phys. Rev. Lett. 115, 077201 (2015)), L in SIZES_3D;
#   each SWEEPS sweeps after as many (SWEEPS_PLAIN without the moves, whose runs are cheaper),
#   measured every EVERY, a swap round every SWAP_EVERY sweeps.
# The runs with moves take the vector engine's two states, those without the multispin engine
# (engine: Auto): sweeps compare the algorithms, wall times what a user would run.
# Then `python3 assets/validation/replica_moves/analyse.py $OUT_DIR` prints the table.
# SIZES_2D, SIZES_3D, TEMPS_2D, TEMPS_3D, SWEEPS, SWEEPS_PLAIN, EVERY, SAMPLES, SWAP_EVERY,
# PARTS, BACKEND override.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../run_config.sh"
BIN=${BIN:-target/release/spinflip}
OUT=${OUT_DIR:-/tmp/replica-moves-validation}
BACKEND=${BACKEND:-Cuda}
SWEEPS=${SWEEPS:-65536}
SWEEPS_PLAIN=${SWEEPS_PLAIN:-$SWEEPS}
SAMPLES=${SAMPLES:-64}
SWAP_EVERY=${SWAP_EVERY:-2}
EVERY=${EVERY:-16}
PARTS=${PARTS:-ea2d ea3d}
mkdir -p "$OUT"

# pair NAME DIMS L TEMPERATURES MOVES: the run without moves, then the one with `moves: MOVES`.
pair() {
  local name=$1 dims=$2 size=$3 temperatures=$4 moves=$5
  for kind in plain moves; do
    local with=", moves: $moves" sweeps=$SWEEPS
    [ "$kind" = plain ] && with="" sweeps=$SWEEPS_PLAIN
    run_config "${name}_${kind}_L$size" <<RON
(
    model: EdwardsAnderson(dims: $dims, size: $size),
    temperatures: $temperatures,
    replicas: 2,
    samples: $SAMPLES,
    sweeps: (thermalize: $sweeps, measure: $sweeps, every: $EVERY),
    algorithm: Tempering(every: $SWAP_EVERY$with),
    seed: 50,
RON
  done
}

for part in $PARTS; do
  case $part in
    ea2d)
      for size in ${SIZES_2D:-32 64}; do
        pair ea2d 2 "$size" "GeometricT(min: 0.2, max: 1.6, count: ${TEMPS_2D:-24})" "Houdayer()"
      done ;;
    ea3d)
      for size in ${SIZES_3D:-8 12}; do
        pair ea3d 3 "$size" "GeometricT(min: 0.2, max: 2.0, count: ${TEMPS_3D:-32})" \
          "Isoenergetic(below: 1.0)"
      done ;;
    *) echo "unknown part $part"; exit 1 ;;
  esac
done
