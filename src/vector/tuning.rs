//! The proposal cone's width, tuned while thermalising: at [`TUNING_ROUNDS`] stops in the first
//! half of the thermalisation each temperature's width is scaled by its acceptance since the
//! last stop over the target (at most by 2 either way); then it is frozen.

use crate::config::Proposal;
use crate::engine::vector::{HEAT_BATH, UNIFORM};
use crate::model::vector::fixed::ONE;

/// Stops at which the cone's width is tuned.
pub const TUNING_ROUNDS: u64 = 20;

/// The width a cone starts from, in spin units (1/2).
const INITIAL_WIDTH: i32 = ONE / 2;

/// The narrowest and widest cones: `2^-20` (far below any useful acceptance) and 2 (a
/// proposal nearly independent of the old spin).
const WIDTHS: (i32, i32) = (ONE >> 20, 2 * ONE);

/// The proposal widths of every temperature and how they are tuned.
#[derive(Debug, Clone, PartialEq)]
pub struct ConeTuning {
    /// Per temperature, spin units ([`UNIFORM`] for uniform proposals, [`HEAT_BATH`] for a
    /// clock's heat bath).
    pub widths: Vec<i32>,
    /// The target acceptance of a cone; `None` for uniform proposals.
    pub target: Option<f64>,
}

impl ConeTuning {
    /// The initial widths of `temperatures` temperatures under `proposal`.
    pub fn new(proposal: Proposal, temperatures: usize) -> Self {
        match proposal {
            Proposal::Uniform => ConeTuning {
                widths: vec![UNIFORM; temperatures],
                target: None,
            },
            Proposal::HeatBath => ConeTuning {
                widths: vec![HEAT_BATH; temperatures],
                target: None,
            },
            Proposal::Cone { acceptance } => ConeTuning {
                widths: vec![INITIAL_WIDTH; temperatures],
                target: Some(acceptance),
            },
        }
    }

    /// The sweeps after which the width is tuned, for `thermalize` sweeps of thermalisation:
    /// evenly spread over its first half; none for uniform proposals.
    pub fn stops(&self, thermalize: u64) -> Vec<u64> {
        let half = thermalize / 2;
        match self.target {
            Some(_) if half > 0 => {
                let step = half.div_ceil(TUNING_ROUNDS).max(1);
                (1..=half / step).map(|k| k * step).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Scale each temperature's width by its acceptance since the last stop over the target.
    pub fn retune(&mut self, acceptances: &[f64]) {
        let Some(target) = self.target else {
            return;
        };
        for (width, acceptance) in self.widths.iter_mut().zip(acceptances) {
            let factor = (acceptance / target).clamp(0.5, 2.0);
            let scaled = (f64::from(*width) * factor).round() as i64;
            *width = scaled.clamp(i64::from(WIDTHS.0), i64::from(WIDTHS.1)) as i32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cones_widen_where_they_accept_too_much_and_stop_at_half_the_thermalisation() {
        let mut tuning = ConeTuning::new(Proposal::Cone { acceptance: 0.5 }, 2);
        tuning.retune(&[0.9, 0.1]);
        assert_eq!(
            tuning.widths,
            vec![
                (0.9f64 / 0.5 * 0.5 * f64::from(ONE)).round() as i32,
                ONE / 4
            ]
        );
        let stops = tuning.stops(1000);
        assert_eq!(
            (stops.len(), stops[0], *stops.last().unwrap()),
            (20, 25, 500)
        );
        let uniform = ConeTuning::new(Proposal::Uniform, 2);
        assert!(uniform.stops(1000).is_empty());
    }
}
