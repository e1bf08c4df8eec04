//! Exact thermal averages of tiny lattices of discrete states (Potts, Blume-Capel; any
//! couplings, the Potts glass's), by summing all `q^N` configurations, with the engines' own integer energies ([`States`]): the reference
//! for the order parameter's moments and the density of `s = 0`, which the row transfer matrix
//! ([`super::transfer`]) does not give, in 2D and 3D. The bonds are the simulation's: every site
//! bonded once to each forward neighbour, so that an `L = 2` lattice joins neighbours twice.

use crate::model::Lattice;
use crate::model::vector::states::States;

/// The largest number of configurations summed: about a second of work.
const MAX_CONFIGURATIONS: u64 = 1 << 22;

/// Exact thermal averages of discrete states, per site.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateAverages {
    /// `<E>/N`.
    pub e: f64,
    /// `beta^2 (<E^2> - <E>^2)/N`.
    pub c: f64,
    /// `<|m|>` of the order parameter [`States::order`].
    pub abs_m: f64,
    /// `<m^2>`.
    pub m2: f64,
    /// `<m^4>`.
    pub m4: f64,
    /// The density of the state of value 0 (Blume-Capel's `s = 0`).
    pub zeros: f64,
    /// `<q2>` of two independent replicas: the square of the tensor overlap of their spins
    /// (Potts: simplex vectors; Blume-Capel: values), per occupied site.
    pub q2: f64,
    /// `<|m|^2>` of the same spins, per occupied site.
    pub vector_m2: f64,
    /// `<|m_s|>`, `<m_s^2>` and `<m_s^4>` of the staggered magnetisation of the same spins
    /// (weighted by the sublattice sign), per occupied site.
    pub staggered: [f64; 3],
    /// `ln Z / N`.
    pub ln_z: f64,
}

/// The exact averages of `states` on `lattice` at `beta`, with the couplings `J` of the bonds
/// `site * directions + d` (the engines' order, `+-1` or a Gaussian glass's multiples of `2^-24`;
/// `None`: the ferromagnet, `J = 1`) and the sites
/// `empty` empty (the vacancy, without bonds). The energy is per site of the lattice, the
/// order parameter and the density of zeros per occupied site, as the runs measure them.
pub fn enumerate_states(
    states: &States,
    lattice: Lattice,
    (couplings, empty): (Option<&[f64]>, &[u32]),
    beta: f64,
) -> StateAverages {
    let directions = u64::from(lattice.directions());
    let coupling = |bond: u64| couplings.map_or(1.0, |j| j[bond as usize]);
    let (q, sites) = (u64::from(states.q), lattice.sites());
    let occupied: Vec<u64> = (0..sites)
        .filter(|&i| !empty.contains(&(i as u32)))
        .collect();
    let count = q
        .checked_pow(occupied.len() as u32)
        .filter(|&c| c <= MAX_CONFIGURATIONS);
    let count = count.expect("a lattice small enough to enumerate");
    let zero = states.value.iter().position(|&v| v == 0);
    let spins_of = |configuration: u64| {
        let mut spins = vec![states.vacancy(); sites as usize];
        for (k, &i) in occupied.iter().enumerate() {
            spins[i as usize] = (configuration / q.pow(k as u32) % q) as u32;
        }
        spins
    };
    let per_occupied_squared = (occupied.len() as f64).powi(-2);
    let energies: Vec<(f64, [f64; 3], f64, [f64; 3])> = (0..count)
        .map(|configuration| {
            let spins = spins_of(configuration);
            let mut counts = vec![0i64; q as usize];
            let mut staggered = vec![0i64; q as usize];
            let mut bonds = 0i64;
            for i in 0..sites {
                if let Some(count) = counts.get_mut(spins[i as usize] as usize) {
                    *count += 1;
                    staggered[spins[i as usize] as usize] += lattice.sublattice_sign(i);
                }
                for (d, j) in lattice.forward_neighbours(i).enumerate() {
                    let pair = states.pair(spins[i as usize], spins[j as usize]);
                    // Exact: J 2^24 and P 2^-24 are whole numbers.
                    bonds += (coupling(i * directions + d as u64) * f64::from(pair)) as i64;
                }
            }
            let m = states.order(&counts);
            let zeros = zero.map_or(0.0, |a| counts[a] as f64 / occupied.len() as f64);
            let ms2 = states.staggered_square(&staggered) * per_occupied_squared;
            (
                states.energy(bonds, &counts),
                [m.abs(), m * m, m.powi(4)],
                zeros,
                [ms2.sqrt(), ms2, ms2 * ms2],
            )
        })
        .collect();
    let lowest = energies.iter().map(|e| e.0).fold(f64::INFINITY, f64::min);
    let weight = |e: f64| (-beta * (e - lowest)).exp();
    // Two independent replicas: <q2> = N^-2 sum_ij <f(s_i, s_j)>^2, f the spins' product;
    // one replica: <|m|^2> = N^-2 sum_ij <f(s_i, s_j)>.
    let mut correlations = vec![0.0; occupied.len() * occupied.len()];
    for (configuration, (e, ..)) in energies.iter().enumerate() {
        let spins = spins_of(configuration as u64);
        let at = |k: usize| spins[occupied[k] as usize];
        for (kl, g) in correlations.iter_mut().enumerate() {
            let (k, l) = (kl / occupied.len(), kl % occupied.len());
            *g += weight(*e) * states.spin_product(at(k), at(l));
        }
    }
    let mut sums = [0.0; 10];
    for (e, [abs_m, m2, m4], zeros, [s1, s2, s4]) in energies {
        let w = weight(e);
        let de = e - lowest;
        for (sum, x) in sums
            .iter_mut()
            .zip([1.0, de, de * de, abs_m, m2, m4, zeros, s1, s2, s4])
        {
            *sum += w * x;
        }
    }
    let n = lattice.spins() as f64;
    let mean = |k: usize| sums[k] / sums[0];
    let occupied_squared = (occupied.len() as f64).powi(2);
    StateAverages {
        e: (mean(1) + lowest) / n,
        c: beta * beta * (mean(2) - mean(1) * mean(1)) / n,
        abs_m: mean(3),
        m2: mean(4),
        m4: mean(5),
        zeros: mean(6),
        q2: correlations
            .iter()
            .map(|g| (g / sums[0]).powi(2))
            .sum::<f64>()
            / occupied_squared,
        vector_m2: correlations.iter().sum::<f64>() / sums[0] / occupied_squared,
        staggered: [mean(7), mean(8), mean(9)],
        ln_z: (sums[0].ln() - beta * lowest) / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{DiscreteSpins, assert_close, energy_and_heat};

    /// The 2 x 2 lattices' energies and heats equal the row transfer matrix's, and the q = 2
    /// Potts model is the Ising model at half the coupling: Kaufman's energy and heat on 4 x 4,
    /// the enumerated |m| on 2 x 2.
    #[test]
    fn enumeration_agrees_with_the_transfer_matrix_and_the_ising_mapping() {
        let lattice = Lattice::new(2, 2);
        for (states, beta) in [
            (States::potts(3, 0.3), 0.7),
            (States::blume_capel(0.5, -0.25), 1.1),
        ] {
            let exact = enumerate_states(&states, lattice, (None, &[]), beta);
            let (e, c) = energy_and_heat(&DiscreteSpins::of_states(&states), (2, 2), beta);
            assert_close("e", exact.e, e, 1e-12);
            assert_close("c", exact.c, c, 1e-11);
        }
        // H_Potts = -(1 + s_i s_j) / 2 per bond: e = -1 + e_Ising(beta / 2) / 2 in 2D, the
        // same heat at beta / 2.
        let (e, c) = energy_and_heat(
            &DiscreteSpins::of_states(&States::potts(2, 0.0)),
            (4, 4),
            0.9,
        );
        let ising = crate::exact::kaufman(4, 0.45);
        assert_close("q = 2: e", e, -1.0 + ising.e / 2.0, 1e-12);
        assert_close("q = 2: c", c, ising.c, 1e-11);
        let potts = enumerate_states(&States::potts(2, 0.0), lattice, (None, &[]), 0.8);
        // Sites 1 and 2 empty leave 0 and 3 without neighbours: two free spins in the field.
        let (q, h, beta) = (3.0, 0.5, 1.2);
        let diluted = enumerate_states(&States::potts(3, h), lattice, (None, &[1, 2]), beta);
        let along = (beta * h).exp() / ((beta * h).exp() + q - 1.0);
        assert_close("diluted e", diluted.e, -2.0 * h * along / 4.0, 1e-12);
        let ising = crate::exact::enumerate(lattice, &[1; 8], 0.0, 0.4);
        assert_close("|m|", potts.abs_m, ising.abs_m, 1e-12);
        assert_close("m2", potts.m2, ising.m2, 1e-12);
    }
}
