//! What the loop of sweeps carries from one chunk to the next.

/// The state a run carries between chunks; it is exactly what a checkpoint holds.
#[derive(Default)]
pub(super) struct RunState {
    pub(super) sweeps_done: u64,
    /// Units of sweep (step) `sweeps_done` done, where plans cut it ([`super::schedule::Cut`]).
    pub(super) sweep_units: u64,
    /// `[measurement][system]`.
    pub(super) bond_sums: Vec<i64>,
    pub(super) magnetisations: Vec<i64>,
    /// `[measurement][overlap]`: sites where the pair differs, `|q(k_min)|^2`, and bonds with
    /// `q_i q_j = -1`.
    pub(super) overlaps: Vec<i64>,
    pub(super) overlaps_kmin: Vec<f64>,
    pub(super) link_overlaps: Vec<i64>,
    /// The ladder with tempering (tuned as the run goes, or as configured).
    pub(super) betas: Vec<f64>,
    /// The engine's tempering state at the last checkpoint (empty without tempering).
    pub(super) tempering: Vec<u32>,
    /// `[measurement][r][k]`: the walker at temperature `k` of chain `r` of sample 0.
    pub(super) temperature_history: Vec<u32>,
    /// `[measurement][system]` with cluster updates: the cluster sizes' statistic of the
    /// measured step's updates ([`crate::engine::Measurements::cluster_sizes`]); empty without.
    pub(super) cluster_sizes: Vec<u64>,
    /// `[system]`: the statistic of the updates done of the measured step under way, whose
    /// measurement a later plan takes (a checkpoint holds it after `cluster_sizes`); empty
    /// elsewhere.
    pub(super) step_sizes: Vec<u64>,
}
