//! CPU twin of `vector_exchange` (`shaders/wgsl/vector_exchange.wgsl`,
//! `shaders/cuda/vector_exchange.cu`): parallel tempering's exchange of whole lattices between
//! the systems of accepted pairs.

/// Swap the lattice of every system `b` (`words` words each, one after another in `spins`) with
/// that of `partners[b]` where that is above `b`; a system whose partner is itself keeps its
/// spins.
pub fn exchange_systems(spins: &mut [i32], words: usize, partners: &[u32]) {
    for (b, &partner) in partners.iter().enumerate() {
        let partner = partner as usize;
        if partner <= b {
            continue;
        }
        let (lower, upper) = spins.split_at_mut(partner * words);
        lower[b * words..][..words].swap_with_slice(&mut upper[..words]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partners_above_swap_and_the_rest_stay() {
        let mut spins: Vec<i32> = (0..8).collect();
        // Systems of two words: 0 <-> 2 swap, 1 and 3 stay.
        exchange_systems(&mut spins, 2, &[2, 1, 0, 3]);
        assert_eq!(spins, [4, 5, 2, 3, 0, 1, 6, 7]);
    }
}
