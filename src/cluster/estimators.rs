//! The improved estimators that clusters give (Wolff, PRL 62, 361 (1989); Baillie and
//! Coddington, PRB 43, 10617 (1991)): at zero field a cluster's spins are flipped together with
//! probability 1/2 independently of the others, so `<M^2> = <sum_C |C|^2>` over the
//! Swendsen-Wang clusters of a configuration, and the Wolff cluster, chosen with probability
//! `|C| / N`, has `<|C|> = <M^2> / N`. Both are averages of positive numbers without the sign
//! cancellations of `M^2`, so their errors are smaller near and above `T_c`.
//!
//! From the recorded statistic of each measurement (the sum over its step's `k` cluster updates
//! of Swendsen-Wang's `sum_C |C|^2` or Wolff's `|C|`, [`crate::engine::clusters`]):
//!
//! ```text
//! size = <M^2> / N   (SW: sum_C |C|^2 / (k N); Wolff: sum |C| / k)
//! m2   = size / N     chi = beta size  (= beta N <m^2>, the susceptibility without <|m|>^2)
//! ```
//!
//! beside the direct `m2` and `chi = beta N (<m^2> - <|m|>^2)` of the summary's usual estimates.

use serde::{Deserialize, Serialize};

use crate::config::{ClusterUpdate, TemperatureScale};
use crate::stats::{
    BLOCKS_PER_REPLICA, Estimate, UnitSize, block_means, estimate_cell, jackknife, table_heading,
    table_row, tau_int,
};

/// The improved estimators of one temperature, every replica's series together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterEstimates {
    /// `SwendsenWang` or `Wolff`.
    pub update: ClusterUpdate,
    /// `<M^2> / N`: Wolff's mean cluster size, Swendsen-Wang's `<sum_C |C|^2> / N` (the mean
    /// size of the cluster of a random site).
    pub size: Estimate,
    /// `<m^2>` from the cluster sizes.
    pub m2: Estimate,
    /// `beta N <m^2>` from the cluster sizes.
    pub chi: Estimate,
    /// Integrated autocorrelation time of the size statistic, in measurements, averaged over
    /// replicas.
    pub tau_size: f64,
    /// Measurements, all replicas together.
    pub samples: usize,
}

/// The improved estimators at inverse temperature `beta` of `update` on `n_sites` sites, from
/// `statistics[r][t]` (replica `r`, measurement `t`: the sum of `per_measurement` updates'
/// statistics), `unit.replicas` replicas to a unit of the errors.
pub fn cluster_estimates(
    update: ClusterUpdate,
    beta: f64,
    n_sites: u64,
    statistics: &[Vec<u64>],
    per_measurement: u32,
    unit: UnitSize,
) -> ClusterEstimates {
    let sites = n_sites as f64;
    let scale = match update {
        ClusterUpdate::SwendsenWang => 1.0 / (f64::from(per_measurement) * sites),
        ClusterUpdate::Wolff => 1.0 / f64::from(per_measurement),
    };
    let sizes: Vec<Vec<f64>> = statistics
        .iter()
        .map(|s| s.iter().map(|&v| v as f64 * scale).collect())
        .collect();
    estimates_of_sizes(update, beta, n_sites, sizes, unit)
}

/// The improved estimators at inverse temperature `beta` of `update` on `n_sites` sites, from
/// `sizes[r][t]` (replica `r`, measurement `t`), each an estimate of `<M^2> / N`,
/// `unit.replicas` replicas to a unit of the errors.
pub fn estimates_of_sizes(
    update: ClusterUpdate,
    beta: f64,
    n_sites: u64,
    sizes: Vec<Vec<f64>>,
    unit: UnitSize,
) -> ClusterEstimates {
    let sites = n_sites as f64;
    let series: Vec<Vec<Vec<f64>>> = sizes.iter().map(|s| vec![s.clone()]).collect();
    let units = crate::stats::unit_means(&series, unit.replicas);
    let blocks = block_means(&units, BLOCKS_PER_REPLICA);
    let size = jackknife(&blocks, |x| x[0]);
    let scaled = |factor: f64| Estimate {
        mean: size.mean * factor,
        err: size.err * factor,
    };
    let taus: Vec<f64> = sizes.iter().map(|s| tau_int(s)).collect();
    ClusterEstimates {
        update,
        size,
        m2: scaled(1.0 / sites),
        chi: scaled(beta),
        tau_size: taus.iter().sum::<f64>() / taus.len() as f64,
        samples: sizes.iter().map(Vec::len).sum(),
    }
}

/// The improved estimators' part of a summary table in `scale`: a heading naming the update
/// (and `of`, what `m` is where it is not the spins themselves: empty otherwise), then a row a
/// temperature `(beta, the direct m2, its improved estimators)`; empty without rows.
pub fn improved_table<'a>(
    scale: TemperatureScale,
    of: &str,
    rows: impl IntoIterator<Item = (f64, &'a Estimate, &'a ClusterEstimates)>,
) -> String {
    let mut table = String::new();
    for (k, (beta, direct, clusters)) in rows.into_iter().enumerate() {
        if k == 0 {
            table += &format!(
                "improved estimators ({:?} cluster sizes{of}):\n",
                clusters.update
            );
            let columns = [
                ("m2 (direct)", 24),
                ("m2 (clusters)", 24),
                ("chi = beta N m2", 24),
                ("tau_size", 8),
            ];
            table += &table_heading(scale, &columns);
        }
        let cells = [
            (estimate_cell(direct), 24),
            (estimate_cell(&clusters.m2), 24),
            (estimate_cell(&clusters.chi), 24),
            (format!("{:.2}", clusters.tau_size), 8),
        ];
        table += &table_row(scale, beta, cells);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_sizes_give_exact_estimates() {
        // Four sites, two SW updates per measurement, sum_C |C|^2 = 10 each: <M^2> = 10.
        let statistics = vec![vec![20u64; 64]; 2];
        let sw = cluster_estimates(
            ClusterUpdate::SwendsenWang,
            0.5,
            4,
            &statistics,
            2,
            UnitSize::SYSTEM,
        );
        assert_eq!(sw.size.mean, 2.5);
        assert_eq!(sw.m2.mean, 10.0 / 16.0);
        assert_eq!(sw.chi.mean, 1.25);
        assert_eq!(sw.size.err, 0.0);
        assert_eq!(sw.samples, 128);
        // Wolff: clusters of 3 sites on average.
        let wolff = cluster_estimates(
            ClusterUpdate::Wolff,
            0.5,
            4,
            &[vec![6u64; 64]],
            2,
            UnitSize::SYSTEM,
        );
        assert_eq!(
            (wolff.size.mean, wolff.m2.mean, wolff.chi.mean),
            (3.0, 0.75, 1.5)
        );
    }
}
