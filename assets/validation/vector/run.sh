#!/bin/bash
# Vector spins at their transitions (docs/VALIDATION.md): from the repository root, with
# a release build as BIN (default target/release/spinflip; `--features cuda` for Cuda).
#   heisenberg3d: 3D Heisenberg ferromagnet, betas around beta_c = 0.693001(10): U4 and xi/L
#                 crossings (Campostrini et al., PRB 65, 144520 (2002));
#   xy3d:         3D XY ferromagnet around beta_c = 0.4541652(11) (Campostrini et al., PRB 63,
#                 214503 (2001)): the same crossings;
#   xy2d:         2D XY, T from 0.80 to 1.00: the helicity modulus against the BKT line 2T/pi,
#                 T_BKT = 0.8929(1) (Hasenbusch, J. Phys. A 38, 5869 (2005));
#   xy_honeycomb: 2D XY on the honeycomb lattice, T from 0.52 to 0.73: the helicity modulus per
#                 unit area against 2T/pi, T_BKT = 0.576(3) (de Andrade, Jorge and DaSilva,
#                 arXiv:2406.12076);
#   clock4:       the 2D 4-state clock model (two Ising models at half the coupling, uniform
#                 proposals of its angles) around beta = 2 x 0.4407: e and c against Kaufman's
#                 at beta / 2;
#   clock4sw:     the same by Wolff's embedding, steps of a Swendsen-Wang update and a
#                 Metropolis sweep (SWEEPS steps);
#   clock6sw:     the 2D 6-state clock model by those steps, T from 0.80 to 1.00: the helicity
#                 modulus against 2T/pi at its upper transition, T_2 = 0.9008(6) (Tomita and
#                 Okabe, Phys. Rev. B 65, 184405 (2002)).
# Then `python3 assets/validation/vector/analyse.py $OUT_DIR` prints the crossings.
# SIZES_HEISENBERG, SIZES_XY3D, SIZES_XY2D, SIZES_XY_HONEYCOMB, SIZES_CLOCK4, SIZES_CLOCK4SW,
# SIZES_CLOCK6SW, SWEEPS (measured
# sweeps; thermalisation a fifth of them), REPLICAS, OVERRELAXATION, PARTS, BACKEND,
# BETAS_HEISENBERG, BETAS_XY3D (a narrower grid for large L, whose curves turn within the
# default one) override; a sweep is one Metropolis sweep with a tuned cone (acceptance 0.5) and
# OVERRELAXATION over-relaxation sweeps.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../run_config.sh"
BIN=${BIN:-target/release/spinflip}
OUT=${OUT_DIR:-/tmp/vector-validation}
BACKEND=${BACKEND:-Cuda}
SWEEPS=${SWEEPS:-100000}
REPLICAS=${REPLICAS:-8}
OVERRELAXATION=${OVERRELAXATION:-2}
PARTS=${PARTS:-heisenberg3d xy3d xy2d}
mkdir -p "$OUT"

# run NAME MODEL BETAS [UPDATES [ALGORITHM]]: UPDATES defaults to the tuned cone with
# over-relaxation, ALGORITHM to Metropolis sweeps.
run() {
  local name=$1 model=$2 betas=$3
  local updates=${4:-"(proposal: Cone(acceptance: 0.5), overrelaxation: $OVERRELAXATION)"}
  local algorithm=${5:-Metropolis}
  run_config "$name" <<RON
(
    model: $model,
    temperatures: Betas([$betas]),
    replicas: $REPLICAS,
    updates: $updates,
    algorithm: $algorithm,
    sweeps: (thermalize: $((SWEEPS / 5)), measure: $SWEEPS, every: 1),
    seed: 40,
RON
}

for part in $PARTS; do case $part in
heisenberg3d)
  for L in ${SIZES_HEISENBERG-8 12 16 24 32}; do
    run "heisenberg3d_L$L" "Heisenberg(dims: 3, size: $L, field: 0.0)" \
      "${BETAS_HEISENBERG:-0.680, 0.686, 0.690, 0.693, 0.696, 0.700, 0.706}"
  done ;;
xy3d)
  for L in ${SIZES_XY3D-8 12 16 24 32}; do
    run "xy3d_L$L" "XY(dims: 3, size: $L, field: 0.0)" \
      "${BETAS_XY3D:-0.445, 0.449, 0.452, 0.4542, 0.4565, 0.459, 0.463}"
  done ;;
xy2d)
  # T = 0.80 .. 1.00 in steps of 0.025.
  for L in ${SIZES_XY2D-8 16 32 64 128}; do
    run "xy2d_L$L" "XY(dims: 2, size: $L, field: 0.0)" \
      "1.25, 1.2121, 1.1765, 1.1429, 1.1111, 1.0811, 1.0526, 1.0256, 1.0"
  done ;;
xy_honeycomb)
  # T = 0.52 .. 0.73 in steps of 0.03.
  for L in ${SIZES_XY_HONEYCOMB-16 32 64 128}; do
    run "xy_honeycomb_L$L" "XY(dims: 2, size: $L, field: 0.0, lattice: Honeycomb)" \
      "1.9231, 1.8182, 1.7241, 1.6393, 1.5625, 1.4925, 1.4286, 1.3699"
  done ;;
clock4)
  for L in ${SIZES_CLOCK4-16 32 64 128}; do
    run "clock4_L$L" "Clock(q: 4, dims: 2, size: $L)" "0.70, 0.80, 0.86, 0.88, 0.90, 1.00" "()"
  done ;;
clock4sw)
  for L in ${SIZES_CLOCK4SW-16 32 64 128 256}; do
    run "clock4sw_L$L" "Clock(q: 4, dims: 2, size: $L)" "0.70, 0.80, 0.86, 0.88, 0.90, 1.00" "()" \
      "Clusters(update: SwendsenWang, metropolis: 1)"
  done ;;
clock6sw)
  # T = 0.80 .. 1.00 in steps of 0.025.
  for L in ${SIZES_CLOCK6SW-16 32 64 128 256}; do
    run "clock6sw_L$L" "Clock(q: 6, dims: 2, size: $L)" \
      "1.25, 1.2121, 1.1765, 1.1429, 1.1111, 1.0811, 1.0526, 1.0256, 1.0" "()" \
      "Clusters(update: SwendsenWang, metropolis: 1)"
  done ;;
esac; done
