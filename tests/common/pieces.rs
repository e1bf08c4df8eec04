//! Sweeps cut into pieces ([`Step::Part`]) in several ways over several plans, for the tests
//! that compare them with whole sweeps.

use spinflip::engine::{Plan, Step};

/// Ways to cut a run of `sweeps` sweeps of `2 size` units (a pass on a plane) each: before
/// which of the run's units (counted from its first sweep's first) a piece ends, and whether
/// its plan ends there too; a unit cut twice leaves an empty piece.
pub fn cuts(size: u32, sweeps: u64) -> Vec<(&'static str, Vec<(u64, bool)>)> {
    let per_sweep = 2 * u64::from(size);
    let units = 0..sweeps * per_sweep;
    let scattered = |u: u64| {
        let h = u.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 59;
        let cut = (u, h.is_multiple_of(3));
        match h % 4 {
            0 => vec![cut, cut],
            1 => vec![cut],
            _ => Vec::new(),
        }
    };
    vec![
        (
            "every plane, plans of five",
            units.clone().map(|u| (u, u.is_multiple_of(5))).collect(),
        ),
        (
            "passes, plans ending between them",
            units
                .clone()
                .step_by(size as usize)
                .map(|u| (u, !u.is_multiple_of(per_sweep)))
                .collect(),
        ),
        (
            "plans ending before each sweep's last plane",
            (1..=sweeps).map(|s| (s * per_sweep - 1, true)).collect(),
        ),
        (
            "scattered, empty pieces among them",
            units.flat_map(scattered).collect(),
        ),
    ]
}

/// The run of `plans` (whole sweeps, measurements and swap rounds) with its sweeps of lattices
/// of `size` planes cut at `cuts` (see [`cuts`]) into pieces ([`Plan::sweep_units`]).
pub fn in_pieces(plans: &[Plan], size: u32, cuts: &[(u64, bool)]) -> Vec<Plan> {
    let per_sweep = 2 * u64::from(size);
    let mut pieces = vec![Plan::default()];
    let mut first = 0;
    for step in plans.iter().flat_map(|plan| &plan.steps) {
        match *step {
            Step::Sweep { sweep } => {
                let within = cuts
                    .iter()
                    .filter(|(u, _)| (first..first + per_sweep).contains(u));
                let mut start = 0;
                for &(unit, ends_plan) in within {
                    let plan = pieces.last_mut().unwrap();
                    plan.sweep_units(sweep, (2, size), start..unit - first);
                    start = unit - first;
                    if ends_plan {
                        pieces.push(Plan::default());
                    }
                }
                let plan = pieces.last_mut().unwrap();
                plan.sweep_units(sweep, (2, size), start..per_sweep);
                first += per_sweep;
            }
            Step::Measure { .. } => pieces.last_mut().unwrap().measure(),
            Step::Swap { sweep, parity } => pieces.last_mut().unwrap().swap(sweep, parity),
            ref other => panic!("{other:?} in a plan of whole sweeps"),
        }
    }
    pieces
}
