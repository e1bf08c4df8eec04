//! Replica-exchange (parallel tempering) acceptance as integer thresholds.
//!
//! A swap of the configurations `a` at `beta_k` and `b` at `beta_{k+1}` is accepted with
//! probability `min(1, exp((beta_k - beta_{k+1}) (E_a - E_b)))`, from TOTAL energies. With
//! `E = -B - h M` and `B = 2 satisfied - d N`, `M = 2 up - N`, the exponent is
//! `x = 2 gap (sat_a - sat_b) + 2 gap h (up_a - up_b)` with `gap = beta_{k+1} - beta_k`: two
//! integer differences, so the decision needs no `exp` on the device. Each part is compared
//! with its own uniform against a threshold tabulated on the host, `t[n] = threshold(a, 2 n)`
//! (`a = |gap|` for the bonds, `|gap h|` for the field, `n` the absolute difference):
//!
//! `accept iff (x_bonds >= 0 or U_0 <= t_bonds[n_bonds]) and (x_field >= 0 or U_1 <= t_field[n_field])`.
//!
//! At `h = 0` this is exactly Metropolis. With a field it is the factorised Metropolis filter
//! `min(1, e^x1) min(1, e^x2)`, which obeys detailed balance as well (its forward/backward ratio
//! is `e^(x1 + x2)`) at a slightly lower acceptance, and keeps the tables one-dimensional.
//! Past a table's end the threshold is 0 (`exp(-2 a n) <= 2^-32`).

use crate::error::{Error, Result};
use crate::model::ising::{IsingSystems, threshold};

/// Words of a pair's header in [`swap_tables`]: signs, bond offset, bond length, field offset,
/// field length.
pub const PAIR_HEADER: usize = 5;
/// Sign bit of the header: `beta_{k+1} > beta_k`.
pub const GAP_POSITIVE: u32 = 1;
/// Sign bit of the header: `(beta_{k+1} - beta_k) h > 0`.
pub const FIELD_GAP_POSITIVE: u32 = 2;
/// Most table entries of all pairs together (a tiny beta gap or field needs long tables).
pub const MAX_TABLE_WORDS: usize = 1 << 24;

/// The swap tables of every neighbour pair `(k, k + 1)` of the ladder, flat as the kernels read
/// them: `T - 1` headers of [`PAIR_HEADER`] words, then the tables at their offsets.
pub fn swap_tables(systems: &IsingSystems) -> Result<Vec<u32>> {
    let betas = &systems.betas;
    let lattice = systems.lattice;
    let pairs: Vec<(u32, Vec<u32>, Vec<u32>)> = betas
        .windows(2)
        .map(|pair| {
            let gap = pair[1] - pair[0];
            let field_gap = gap * systems.field;
            let signs = u32::from(gap > 0.0) * GAP_POSITIVE
                + u32::from(field_gap > 0.0) * FIELD_GAP_POSITIVE;
            // The largest differences: every satisfied bond, every up spin.
            let bonds = table(gap.abs(), lattice.links());
            let field = table(field_gap.abs(), lattice.sites());
            (signs, bonds, field)
        })
        .collect();
    let mut out = Vec::with_capacity(pairs.len() * PAIR_HEADER);
    let mut next = pairs.len() * PAIR_HEADER;
    for (signs, bonds, field) in &pairs {
        out.extend([*signs, next as u32, bonds.len() as u32]);
        next += bonds.len();
        out.extend([next as u32, field.len() as u32]);
        next += field.len();
    }
    if next > MAX_TABLE_WORDS {
        return Err(Error::Config(crate::config::ConfigError::Invalid(format!(
            "tempering: the swap tables of this ladder need {next} entries (more than \
             {MAX_TABLE_WORDS}): a beta gap, or beta gap x field, is too small for {} sites; use \
             fewer temperatures or no tiny field",
            lattice.sites()
        ))));
    }
    for (_, bonds, field) in pairs {
        out.extend(bonds);
        out.extend(field);
    }
    Ok(out)
}

/// `t[n] = threshold(a, 2 n)` for `n = 0, 1, ...` up to the last non-zero entry or `max_n`;
/// empty for `a = 0` (that factor always accepts). Stops past [`MAX_TABLE_WORDS`] entries, which
/// [`swap_tables`] refuses, rather than filling memory.
fn table(a: f64, max_n: u64) -> Vec<u32> {
    if a == 0.0 {
        return Vec::new();
    }
    (0..=max_n)
        .map(|n| threshold(a, 2.0 * n as f64))
        .take_while(|&t| t != 0)
        .take(MAX_TABLE_WORDS + 1)
        .collect()
}

/// One neighbour pair's decision from the walkers' counts (`[up, satisfied]`) and two uniforms;
/// the reference every kernel mirrors.
pub fn accept_swap(tables: &[u32], k: u32, lower: [u64; 2], upper: [u64; 2], u: [u32; 2]) -> bool {
    let header = &tables[k as usize * PAIR_HEADER..][..PAIR_HEADER];
    let signs = header[0];
    let bonds = part_accepts(
        tables,
        signs & GAP_POSITIVE != 0,
        (header[1], header[2]),
        lower[1],
        upper[1],
        u[0],
    );
    let field = part_accepts(
        tables,
        signs & FIELD_GAP_POSITIVE != 0,
        (header[3], header[4]),
        lower[0],
        upper[0],
        u[1],
    );
    bonds && field
}

/// One factor of the filter: `x = 2 a (lower - upper)` with the sign of `a` given; accepted
/// outright where `x >= 0` (an empty table means `a = 0`), else iff `u <= t[|lower - upper|]`.
fn part_accepts(
    tables: &[u32],
    positive: bool,
    (offset, len): (u32, u32),
    lower: u64,
    upper: u64,
    u: u32,
) -> bool {
    let uphill = if positive {
        lower < upper
    } else {
        lower > upper
    };
    if len == 0 || !uphill {
        return true;
    }
    let n = lower.abs_diff(upper);
    let t = if n < u64::from(len) {
        tables[(offset + n as u32) as usize]
    } else {
        0
    };
    u <= t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lattice;

    fn systems(betas: Vec<f64>, field: f64) -> IsingSystems {
        IsingSystems::ferromagnet(Lattice::new(2, 8), field, betas, 1, 1)
    }

    /// Acceptance probability of a decision as the fraction of uniforms `u0` that accept (the
    /// field part accepts outright at h = 0).
    fn probability(t: u32) -> f64 {
        (f64::from(t) + 1.0) / 4_294_967_296.0
    }

    #[test]
    fn swaps_follow_the_boltzmann_ratio_of_total_energies() {
        let s = systems(vec![0.3, 0.4, 0.35], 0.0);
        let tables = swap_tables(&s).unwrap();
        // Pair 0: gap 0.1 > 0. The hotter walker with fewer satisfied bonds (higher energy) goes
        // to the colder temperature with exp(2 * 0.1 * (10 - 13)).
        let lower = [0, 10];
        let upper = [0, 13];
        let header = &tables[..PAIR_HEADER];
        assert_eq!(header[0], GAP_POSITIVE);
        let t = tables[(header[1] + 3) as usize];
        assert!((probability(t) - (-0.6f64).exp()).abs() < 1e-9);
        assert!(accept_swap(&tables, 0, lower, upper, [t, u32::MAX]));
        assert!(!accept_swap(&tables, 0, lower, upper, [t + 1, 0]));
        // Downhill is always accepted.
        assert!(accept_swap(&tables, 0, upper, lower, [u32::MAX, u32::MAX]));
        // Pair 1: gap -0.05, so the roles turn round.
        assert!(accept_swap(&tables, 1, lower, upper, [u32::MAX, u32::MAX]));
        assert!(!accept_swap(&tables, 1, upper, lower, [u32::MAX, 0]));
        // Far past a table's end only U = 0 accepts.
        assert!(accept_swap(&tables, 0, [0, 0], [0, 128], [0, 0]));
        assert!(!accept_swap(&tables, 0, [0, 0], [0, 128], [1, 0]));
    }

    #[test]
    fn a_field_adds_an_independent_factor() {
        let s = systems(vec![0.3, 0.4], 0.5);
        let tables = swap_tables(&s).unwrap();
        let header = &tables[..PAIR_HEADER];
        assert_eq!(header[0], GAP_POSITIVE | FIELD_GAP_POSITIVE);
        assert!(header[4] > 0);
        // Equal bonds, the lower walker has 2 fewer up spins: x = 2 * 0.05 * (-2).
        let t = tables[(header[3] + 2) as usize];
        assert!((probability(t) - (-0.2f64).exp()).abs() < 1e-9);
        let (lower, upper) = ([5, 7], [7, 7]);
        assert!(accept_swap(&tables, 0, lower, upper, [u32::MAX, t]));
        assert!(!accept_swap(&tables, 0, lower, upper, [0, t + 1]));
    }

    #[test]
    fn a_tiny_field_on_a_huge_lattice_is_refused_without_filling_memory() {
        let lattice = Lattice::new(2, 65536);
        let s = IsingSystems::ferromagnet(lattice, 1e-12, vec![0.3, 0.4], 1, 1);
        let msg = swap_tables(&s).unwrap_err().to_string();
        assert!(
            msg.contains("swap tables") && msg.contains("too small"),
            "{msg}"
        );
    }

    #[test]
    fn tables_end_where_thresholds_vanish() {
        let s = systems(vec![0.3, 0.4], 0.0);
        let tables = swap_tables(&s).unwrap();
        let len = tables[2] as usize;
        // exp(-0.2 n) > 2^-32 up to n = 110.
        assert_eq!(len, 111);
        assert_eq!(tables.len(), PAIR_HEADER + len);
    }
}
