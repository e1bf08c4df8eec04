//! Disorder-averaged overlap estimators of a vector spin glass at one temperature: those of
//! [`super::spin_glass`] (names, estimator choices, errors) with `q^2` the tensor overlap's
//! `sum_{mu nu} q_{mu nu}^2`, `q_{mu nu} = (1/N) sum_i s_i^{a,mu} s_i^{b,nu}`, and
//! `|q(k_min)|^2` the same sum of the Fourier components; the link overlap is not measured.

use super::UnitSize;
use super::jackknife::{Estimate, group_means};
use super::spin_glass::{OverlapEstimates, PairColumns, overlap_estimates, thermal_overlaps};

/// The overlap series of one disorder sample of a vector spin glass: `q2[p][m]` is
/// `sum_{mu nu} q_{mu nu}^2` of replica pair `p` at measurement `m` (the tensor overlap
/// `q_{mu nu} = (1/N) sum_i s_i^{a,mu} s_i^{b,nu}`), `q2_kmin[p][m]` the same sum of
/// `|q_{mu nu}(k_min)|^2`, averaged over the directions of `k_min`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TensorOverlapSeries {
    pub q2: Vec<Vec<f64>>,
    pub q2_kmin: Vec<Vec<f64>>,
}

/// Thermal averages of the overlaps of one disorder sample, for the per-sample output.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SampleOverlaps {
    /// `<q^2>`.
    pub q2: f64,
    /// `<q^4>`.
    pub q4: f64,
    /// `<|q(k_min)|^2>`.
    pub q2_kmin: f64,
    /// Number of measurements, all replica pairs together.
    pub measurements: usize,
}

/// The disorder-averaged overlap estimators of one temperature of a vector spin glass: the
/// names and estimator choices of [`super::SpinGlassEstimates`] (see [`super::spin_glass`]),
/// `q^2` the tensor overlap's `sum_{mu nu} q_{mu nu}^2`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TensorGlassEstimates {
    /// Inverse temperature.
    pub beta: f64,
    /// Number of disorder samples.
    pub samples: usize,
    /// Number of independent units the errors rest on: of samples with several samples, else
    /// of replica pairs.
    pub units: usize,
    /// `[<q^2>]`.
    pub q2: Estimate,
    /// `[<q^4>]`.
    pub q4: Estimate,
    /// Binder ratio `g = ((n^2 + 2) - n^2 [<q^4>]/[<q^2>]^2)/2`.
    pub g: Estimate,
    /// Spin-glass susceptibility `chi_SG = N [<q^2>]`.
    pub chi_sg: Estimate,
    /// `[<|q(k_min)|^2>]`.
    pub q2_kmin: Estimate,
    /// Second-moment correlation length over the linear size, `xi_L / L`.
    pub xi_over_l: Estimate,
    /// Integrated autocorrelation time of `q^2`, in measurements, averaged over samples and
    /// replica pairs.
    pub tau_q2: f64,
    /// Thermal averages of every sample, in input order.
    pub per_sample: Vec<SampleOverlaps>,
}

/// The overlap estimators at `beta` of a vector spin glass of `n`-vectors on samples of
/// `n_sites` spins on a lattice of linear size `size`, from each sample's series; `unit` says
/// which replica pairs and samples are independent. Errors as for [`super::spin_glass_estimates`]:
/// the jackknife over samples with two or more, else over time blocks of the replica pairs.
pub fn tensor_glass_estimates(
    beta: f64,
    (n_sites, size, components): (u64, u32, u32),
    samples: &[TensorOverlapSeries],
    unit: UnitSize,
) -> TensorGlassEstimates {
    let shape = (n_sites, size, components * components);
    let thermal: Vec<(OverlapEstimates, usize, f64)> = samples
        .iter()
        .map(|sample| thermal_overlaps(&tensor_pairs(sample), unit.replicas, shape))
        .collect();
    let per_sample: Vec<SampleOverlaps> = thermal
        .iter()
        .zip(samples)
        .map(|((o, ..), sample)| SampleOverlaps {
            q2: o.q2.mean,
            q4: o.q4.mean,
            q2_kmin: o.q2_kmin.mean,
            measurements: sample.q2.iter().map(Vec::len).sum(),
        })
        .collect();
    let (overlaps, units) = match thermal.as_slice() {
        [(only, units, _)] => (*only, *units),
        _ => {
            let rows: Vec<[f64; 4]> = (per_sample.iter())
                .map(|s| [s.q2, s.q4, s.q2_kmin, f64::NAN])
                .collect();
            let units = group_means(&rows, unit.samples);
            let (sites, size, entries) = shape;
            (
                overlap_estimates(&units, sites as f64, size, entries),
                units.len(),
            )
        }
    };
    let tau_q2 = thermal.iter().map(|t| t.2).sum::<f64>() / thermal.len() as f64;
    TensorGlassEstimates {
        beta,
        samples: samples.len(),
        units,
        q2: overlaps.q2,
        q4: overlaps.q4,
        g: overlaps.g,
        chi_sg: overlaps.chi_sg,
        q2_kmin: overlaps.q2_kmin,
        xi_over_l: overlaps.xi_over_l,
        tau_q2,
        per_sample,
    }
}

/// The pairs' series of a sample of tensor overlaps (no link overlap: its column is NaN).
fn tensor_pairs(sample: &TensorOverlapSeries) -> Vec<PairColumns> {
    (sample.q2.iter().zip(&sample.q2_kmin))
        .map(|(q2, q2_kmin)| {
            let length = q2.len().min(q2_kmin.len());
            let q4 = q2[..length].iter().map(|q2| q2 * q2).collect();
            let links = vec![f64::NAN; length];
            vec![q2[..length].to_vec(), q4, q2_kmin[..length].to_vec(), links]
        })
        .collect()
}
