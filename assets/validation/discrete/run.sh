#!/bin/bash
# Discrete states at their transitions (docs/VALIDATION.md): from the repository root, with a
# release build as BIN (default target/release/spinflip; `--features cuda` for Cuda).
#   potts3:  the 2D 3-state Potts model around beta_c = ln(1 + sqrt 3): U4 and xi/L crossings
#            of consecutive L, and e(beta_c) extrapolated in L^-0.8 ((1 - alpha)/nu, alpha = 1/3,
#            nu = 5/6) against u_c = -(1 + 1/sqrt 3) (Baxter);
#   potts10: the 2D 10-state Potts model at beta_c = ln(1 + sqrt 10), by the heat bath: the two
#            peaks of the energy histogram against Baxter's latent heat 0.696 and their mean
#            against u_c = -(1 + 1/sqrt 10);
#   bc:      the 2D Blume-Capel model at D = 1 around T = 1.40: U4 and xi/L crossings of
#            consecutive L against T_c = 1.3986 (Beale, Phys. Rev. B 33, 1717 (1986));
#   bctri:   the Blume-Capel model at the tricritical crystal field D_t = 1.9660, with parallel
#            tempering over T = 0.57-0.65: U4 and xi/L crossings against T_t = 0.6080 (Kwak,
#            Jeong, Lee and Kim, Phys. Rev. E 92, 022134 (2015));
#   gauss3d: the 3D Edwards-Anderson glass with Gaussian couplings (two discrete states), SAMPLES
#            samples of two replicas, parallel tempering over T = 0.80-1.45: xi_L/L crossings of
#            consecutive L against T_c = 0.951(9) (Katzgraber, Koerner and Young, Phys. Rev. B
#            73, 224432 (2006)); SWEEPS_GAUSS sweeps after as many, measured every 10.
#   sw2:     Swendsen-Wang updates of the 2D 2-state Potts model at beta = ln(1 + sqrt 2) and
#            0.8: e and c against Kaufman's Ising model at beta / 2;
#   sw3:     Swendsen-Wang updates of the 2D 3-state Potts model on a narrow grid around
#            beta_c: U4 and xi/L crossings and e(beta_c) extrapolated as potts3's;
#   sw4:     Swendsen-Wang updates of the 2D 4-state Potts model at beta_c = ln 3: e(beta_c)
#            extrapolated in L^-0.5 ((1 - alpha)/nu, alpha = 2/3, nu = 2/3; logarithmic
#            corrections left out) against u_c = -3/2;
#            each STEPS_SW steps of one update after a fifth as many, measured every 2.
# Then `python3 assets/validation/discrete/analyse.py $OUT_DIR` prints the tables.
# SIZES_POTTS3, SIZES_POTTS10, SIZES_BC, SIZES_BCTRI, SIZES_GAUSS, SIZES_SW2, SIZES_SW3,
# SIZES_SW4, SWEEPS (measured sweeps; thermalisation a fifth of them), SWEEPS_GAUSS, STEPS_SW,
# REPLICAS, SAMPLES, PARTS, BACKEND, BETAS_SW3 (a narrower grid for large L, whose curves turn
# within the default one) override.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../run_config.sh"
BIN=${BIN:-target/release/spinflip}
OUT=${OUT_DIR:-/tmp/discrete-validation}
BACKEND=${BACKEND:-Cuda}
SWEEPS=${SWEEPS:-100000}
REPLICAS=${REPLICAS:-8}
PARTS=${PARTS:-potts3 potts10 bc}
mkdir -p "$OUT"

# run NAME MODEL TEMPERATURES [UPDATES [ALGORITHM [MEASURED [SEED]]]]: TEMPERATURES a
# `Betas([..])` or `Temperatures([..])`, MEASURED sweeps (or steps) after a fifth as many.
run() {
  local name=$1 model=$2 temperatures=$3 updates=${4:-"()"} algorithm=${5:-Metropolis}
  local measured=${6:-$SWEEPS} seed=${7:-48}
  run_config "$name" <<RON
(
    model: $model,
    temperatures: $temperatures,
    replicas: $REPLICAS,
    updates: $updates,
    algorithm: $algorithm,
    sweeps: (thermalize: $((measured / 5)), measure: $measured, every: 2),
    seed: $seed,
RON
}

# swendsen_wang NAME MODEL BETAS: STEPS_SW Swendsen-Wang steps of MODEL at BETAS.
swendsen_wang() {
  run "$1" "$2" "Betas([$3])" "()" "Clusters(update: SwendsenWang)" "${STEPS_SW:-20000}" 87
}

for part in $PARTS; do case $part in
sw2)
  for L in ${SIZES_SW2-64 256}; do
    swendsen_wang "sw2_L$L" "Potts(q: 2, dims: 2, size: $L)" "0.8, 0.8813736"
  done ;;
sw3)
  for L in ${SIZES_SW3-32 64 128 256 512}; do
    swendsen_wang "sw3_L$L" "Potts(q: 3, dims: 2, size: $L)" \
      "${BETAS_SW3:-0.9975, 1.0, 1.0025, 1.0050525, 1.0075, 1.01, 1.0125}"
  done ;;
sw4)
  for L in ${SIZES_SW4-32 64 128 256 512}; do
    swendsen_wang "sw4_L$L" "Potts(q: 4, dims: 2, size: $L)" "1.0986123"
  done ;;
potts3)
  for L in ${SIZES_POTTS3-16 32 64 128}; do
    run "potts3_L$L" "Potts(q: 3, dims: 2, size: $L)" \
      "Betas([0.985, 0.995, 1.0050525, 1.015, 1.025])"
  done ;;
potts10)
  for L in ${SIZES_POTTS10-16 24 32}; do
    run "potts10_L$L" "Potts(q: 10, dims: 2, size: $L)" "Betas([1.4260624])" \
      "(proposal: HeatBath)"
  done ;;
bc)
  for L in ${SIZES_BC-16 32 64}; do
    run "bc_L$L" "BlumeCapel(dims: 2, size: $L, crystal_field: 1.0)" \
      "Temperatures([1.36, 1.38, 1.39, 1.40, 1.41, 1.42, 1.44])"
  done ;;
bctri)
  for L in ${SIZES_BCTRI-16 32 64}; do
    run "bctri_L$L" "BlumeCapel(dims: 2, size: $L, crystal_field: 1.966)" \
      "Temperatures([0.57, 0.585, 0.595, 0.60, 0.605, 0.61, 0.615, 0.62, 0.635, 0.65])" "()" \
      "Tempering(every: 5)"
  done ;;
gauss3d)
  for L in ${SIZES_GAUSS-4 6 8}; do
    run_config "gauss3d_L$L" <<RON
(
    model: EdwardsAnderson(dims: 3, size: $L, disorder: Gaussian),
    temperatures: Temperatures([0.80, 0.85, 0.89, 0.92, 0.95, 0.98, 1.01, 1.05, 1.10, 1.17, 1.26, 1.45]),
    replicas: 2,
    samples: ${SAMPLES:-256},
    algorithm: Tempering(every: 10),
    sweeps: (thermalize: ${SWEEPS_GAUSS:-20000}, measure: ${SWEEPS_GAUSS:-20000}, every: 10),
    seed: 2006,
RON
  done ;;
esac; done
