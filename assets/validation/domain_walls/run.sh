#!/bin/bash
# Domain-wall free energies of the Edwards-Anderson glass by population annealing
# (docs/VALIDATION.md): from the repository root, with a release build as BIN (default
# target/release/spinflip; `--features cuda` for Cuda). Each size L of SIZES anneals the same
# SAMPLES samples (one seed draws the couplings) twice, on the periodic torus (`p_L<L>`) and on
# the torus twisted along its last axis (`ap_L<L>`: the couplings across that edge reversed),
# each sample in two independent populations of R = 2^(POWER_<L>) replicas, from beta = 0 to
# BETA_MAX in STEPS steps of THETA sweeps: the +-J glass (DISORDER=Bimodal, the default) on the
# multispin engine (replicas in the lanes), the Gaussian one (DISORDER=Gaussian) as two
# discrete states on the vector engine; in DIMS dimensions (3 by default, or 2). Then
# `python3 assets/validation/domain_walls/analyse.py $OUT_DIR` prints per L the samples'
# domain-wall free energies dF = F_AP - F_P: their mean (zero by the gauge symmetry of the
# disorder), their spread and the stiffness exponent of the spread's growth with L.
# SIZES, SAMPLES, DIMS, DISORDER, BETA_MAX, STEPS, THETA, POWER_<L>, BACKEND, OUT_DIR override.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../run_config.sh"
BIN=${BIN:-target/release/spinflip}
OUT=${OUT_DIR:-/tmp/domain-walls}
BACKEND=${BACKEND:-Cuda}
SIZES=${SIZES:-4 6 8}
SAMPLES=${SAMPLES:-256}
BETA_MAX=${BETA_MAX:-3.0}
STEPS=${STEPS:-200}
THETA=${THETA:-10}
DIMS=${DIMS:-3}
DISORDER=${DISORDER:-Bimodal}
mkdir -p "$OUT"
# The periodic axes before the last one, and the engine of the disorder.
PERIODIC=$(printf 'Periodic, %.0s' $(seq 2 "$DIMS"))
case $DISORDER in
  Bimodal) ENGINE="engine: Multispin(layout: Amsc(lanes: Replicas)),";;
  Gaussian) ENGINE="";;
  *) echo "DISORDER is Bimodal or Gaussian, got $DISORDER"; exit 1;;
esac

# anneal NAME L EDGE: the samples of size L with EDGE (Periodic or Antiperiodic) along the last
# axis.
anneal() {
  local power="POWER_$2"
  run_config "$1" <<RON
(
    model: EdwardsAnderson(dims: $DIMS, size: $2, disorder: $DISORDER, boundaries: ($PERIODIC$3)),
    replicas: $((1 << ${!power:-$((12 + $2 / 2))})),
    samples: $SAMPLES,
    $ENGINE
    algorithm: Annealing(
        theta: $THETA,
        schedule: Linear(beta_max: $BETA_MAX, count: $STEPS),
        runs: 2,
    ),
    seed: 1975,
RON
}

for L in $SIZES; do
  anneal "p_L$L" "$L" Periodic
  anneal "ap_L$L" "$L" Antiperiodic
done
