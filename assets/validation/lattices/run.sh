#!/bin/bash
# The triangular, honeycomb and kagome lattices (docs/VALIDATION.md): from the repository root,
# with a release build as BIN (default target/release/spinflip; `--features cuda` for Cuda).
#   tri, honey, kagome: the Ising ferromagnet around its exact K_c (ln(3)/4 triangular,
#            ln(2 + sqrt 3)/2 honeycomb, ln(3 + 2 sqrt 3)/4 kagome): U4 crossings of
#            consecutive L, SWEEPS sweeps after a fifth as many, measured every 2;
#   honeyms, trims, kagms: the honeycomb's, the triangular and the kagome lattice's
#            ferromagnets on the multispin engine (32 replicas in the lanes of its words), the
#            same way at larger L, on the 7 betas of the SW parts below;
#   trisw, honeysw, kagomesw: the same ferromagnets by Swendsen-Wang updates alone (STEPS_SW
#            updates after a fifth as many, measured every one), at larger L (any even L: cluster
#            updates alone colour no sites),
#            on 7 betas 0.1% apart around K_c (the crossings interpolate linearly between
#            neighbours, which must lie well inside the critical window ~ K_c / L);
#   squareaf, honeyaf: the Ising antiferromagnet on the square and honeycomb lattices (bipartite:
#            the ferromagnet with one sublattice reversed) around the ferromagnet's K_c
#            (ln(1 + sqrt 2)/2 square): U4 crossings of the staggered magnetisation;
#   squareafms, honeyafms: the same antiferromagnets on the multispin engine (32 replicas in
#            the lanes of its words, the staggered magnetisation counted by sublattice), at
#            larger L, on the 7 betas of the SW parts below;
#   triaf, kagaf: the Ising antiferromagnet annealed from beta = 0 to 5 (population annealing,
#            R = POPULATION, STEPS steps linear in beta, four runs: 1.03 x 4 R systems within the
#            GPU grid's 65535; on multispin words, where engine: Auto puts them): the entropy
#            per spin
#            s = beta (e - f) at the end against the residual entropy 0.3230659669 (Wannier,
#            triangular) and 0.50183 (Kano and Naya, kagome); with BOUNDARIES (say
#            "(Open, Open)") on lattices with those edges.
# Then `python3 assets/validation/lattices/analyse.py $OUT_DIR` prints the tables.
# SIZES_TRI, SIZES_HONEY, SIZES_HONEYMS, SIZES_TRIMS, SIZES_KAGMS, SIZES_KAGOME, SIZES_SW, SIZES_SQUAREAF, SIZES_HONEYAF,
# SIZES_SQUAREAFMS, SIZES_HONEYAFMS, SIZES_TRIAF,
# SIZES_KAGAF, SWEEPS, EVERY (sweeps between measurements), STEPS_SW, REPLICAS, POPULATION,
# STEPS, PARTS, BACKEND, BOUNDARIES override.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../run_config.sh"
BIN=${BIN:-target/release/spinflip}
OUT=${OUT_DIR:-/tmp/lattices-validation}
BACKEND=${BACKEND:-Cuda}
SWEEPS=${SWEEPS:-200000}
REPLICAS=${REPLICAS:-16}
STEPS_SW=${STEPS_SW:-40000}
PARTS=${PARTS:-tri honey honeyms trims kagms kagome trisw honeysw kagomesw squareaf honeyaf squareafms honeyafms triaf kagaf}
mkdir -p "$OUT"

# critical NAME LATTICE L BETAS [ANTIFERROMAGNET]: the ferromagnet (or with `true` the
# antiferromagnet) on LATTICE at BETAS, with ENGINE's line where it is set.
critical() {
  run_config "$1" <<RON
(
    model: Ising(dims: 2, size: $3, lattice: $2, antiferromagnet: ${5:-false}),
    temperatures: Betas([$4]),
    replicas: $REPLICAS,
    ${ENGINE:-}
    sweeps: (thermalize: $((SWEEPS / 5)), measure: $SWEEPS, every: ${EVERY:-2}),
    seed: 1944,
RON
}

# near K_C: 7 betas K_C (1 + k / 1000), k = -3 .. 3.
near() {
  awk -v k="$1" 'BEGIN { for (i = -3; i <= 3; i++) printf "%s%.7f", (i > -3 ? ", " : ""), k * (1 + i / 1000) }'
}

# on_words NAME LATTICE K_C SIZES [ANTIFERROMAGNET]: the ferromagnet (or with `true` the
# antiferromagnet) on LATTICE on multispin words (32 replicas in the lanes of AMSC words) at the
# betas near K_C, for each L of SIZES.
on_words() {
  for L in $4; do
    ENGINE="engine: Multispin(layout: Amsc(lanes: Replicas))," REPLICAS=32 \
      critical "$1_L$L" "$2" "$L" "$(near "$3")" "${5:-false}"
  done
}

# clusters NAME LATTICE L K_C: the ferromagnet on LATTICE by Swendsen-Wang at the betas near
# K_C.
clusters() {
  local betas
  betas=$(near "$4")
  run_config "$1" <<RON
(
    model: Ising(dims: 2, size: $3, lattice: $2),
    temperatures: Betas([$betas]),
    replicas: $REPLICAS,
    sweeps: (thermalize: $((STEPS_SW / 5)), measure: $STEPS_SW, every: 1),
    algorithm: Clusters(update: SwendsenWang),
    seed: 1987,
RON
}

# residual NAME LATTICE L: the antiferromagnet on LATTICE annealed to beta = 5.
residual() {
  run_config "$1" <<RON
(
    model: Ising(dims: 2, size: $3, lattice: $2, antiferromagnet: true, boundaries: ${BOUNDARIES:-(Periodic, Periodic)}),
    replicas: ${POPULATION:-15000},
    algorithm: Annealing(
        theta: 10,
        schedule: Linear(beta_max: 5.0, count: ${STEPS:-500}),
        runs: 4,
    ),
    seed: 1950,
RON
}

for part in $PARTS; do case $part in
tri)
  for L in ${SIZES_TRI-24 48 96}; do
    critical "tri_L$L" Triangular "$L" \
      "0.2700, 0.2720, 0.2735, 0.2746531, 0.2755, 0.2770, 0.2790"
  done ;;
honey)
  for L in ${SIZES_HONEY-24 48 96}; do
    critical "honey_L$L" Honeycomb "$L" \
      "0.6480, 0.6530, 0.6560, 0.6584789, 0.6610, 0.6640, 0.6690"
  done ;;
honeyms) on_words honeyms Honeycomb 0.6584789 "${SIZES_HONEYMS-48 96 192}" ;;
trims) on_words trims Triangular 0.2746531 "${SIZES_TRIMS-48 96 192}" ;;
kagms) on_words kagms Kagome 0.4665660 "${SIZES_KAGMS-48 96 192}" ;;
kagome)
  for L in ${SIZES_KAGOME-24 48 96}; do
    critical "kagome_L$L" Kagome "$L" \
      "0.4590, 0.4625, 0.4650, 0.4665660, 0.4680, 0.4705, 0.4740"
  done ;;
trisw)
  for L in ${SIZES_SW-48 96 192}; do
    clusters "trisw_L$L" Triangular "$L" 0.2746531
  done ;;
honeysw)
  for L in ${SIZES_SW-48 96 192}; do
    clusters "honeysw_L$L" Honeycomb "$L" 0.6584789
  done ;;
kagomesw)
  for L in ${SIZES_SW-48 96 192}; do
    clusters "kagomesw_L$L" Kagome "$L" 0.4665660
  done ;;
squareaf)
  for L in ${SIZES_SQUAREAF-24 48 96}; do
    critical "squareaf_L$L" Square "$L" \
      "0.4300, 0.4350, 0.4380, 0.4406868, 0.4430, 0.4460, 0.4510" true
  done ;;
honeyaf)
  for L in ${SIZES_HONEYAF-24 48 96}; do
    critical "honeyaf_L$L" Honeycomb "$L" \
      "0.6480, 0.6530, 0.6560, 0.6584789, 0.6610, 0.6640, 0.6690" true
  done ;;
squareafms) on_words squareafms Square 0.4406868 "${SIZES_SQUAREAFMS-48 96 192}" true ;;
honeyafms) on_words honeyafms Honeycomb 0.6584789 "${SIZES_HONEYAFMS-48 96 192}" true ;;
triaf)
  for L in ${SIZES_TRIAF-24 48 96}; do residual "triaf_L$L" Triangular "$L"; done ;;
kagaf)
  for L in ${SIZES_KAGAF-24 48 96}; do residual "kagaf_L$L" Kagome "$L"; done ;;
esac; done
