//! The spin-glass overlap of two replicas and its Fourier component, from exact counts.
//!
//! The engines count, per x-plane, the sites where replicas `a` and `b` differ (`D_x`). With
//! `q_i = s_i^a s_i^b = 1 - 2 [s_i^a != s_i^b]`, the overlap is `q = 1 - 2 sum_x D_x / N`, and
//! its component at `k_min = (2 pi / L, 0, 0)` is
//! `q(k) = (1/N) sum_i q_i e^{i k x_i} = -(2/N) sum_x D_x e^{i k x}` (the constant part of
//! `q_i` sums to zero over a full period). The host computes both from the integers, in the same
//! code for every backend, so the series are identical wherever the run went.

/// The phases `e^{i k_min x}` of the x-planes of a lattice of size L, computed once: a run turns
/// every overlap of every measurement into `|q(k_min)|^2`, and the cosines and sines of each
/// plane were most of that time (2 L calls per overlap: 18 ms on one core for a measurement of
/// 32768 overlaps at L = 32, more than the H100's ten sweeps between measurements; 0.9 ms with
/// the table).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanePhases {
    cos: Vec<f64>,
    sin: Vec<f64>,
}

impl PlanePhases {
    pub fn new(size: u32) -> Self {
        let l = f64::from(size);
        let phase = |x: u32| std::f64::consts::TAU * f64::from(x) / l;
        PlanePhases {
            cos: (0..size).map(|x| phase(x).cos()).collect(),
            sin: (0..size).map(|x| phase(x).sin()).collect(),
        }
    }

    /// The number of differing sites and `|q(k_min)|^2` from the per-plane counts `planes[x]`
    /// (one per phase).
    pub fn overlap_from_planes(&self, planes: &[u32], sites: u64) -> (i64, f64) {
        debug_assert_eq!(planes.len(), self.cos.len());
        let (mut re, mut im, mut differing) = (0.0, 0.0, 0i64);
        for ((&count, cos), sin) in planes.iter().zip(&self.cos).zip(&self.sin) {
            re += f64::from(count) * cos;
            im += f64::from(count) * sin;
            differing += i64::from(count);
        }
        let scale = 2.0 / sites as f64;
        (differing, scale * scale * (re * re + im * im))
    }
}

/// The overlap `q = 1 - 2 differing / N`.
pub fn overlap(differing: i64, sites: u64) -> f64 {
    1.0 - 2.0 * differing as f64 / sites as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_and_opposite_replicas() {
        let agree = [0u32; 8];
        assert_eq!(
            PlanePhases::new(8).overlap_from_planes(&agree, 64),
            (0, 0.0)
        );
        let opposite = [8u32; 8];
        let (differing, kmin) = PlanePhases::new(8).overlap_from_planes(&opposite, 64);
        assert_eq!(overlap(differing, 64), -1.0);
        assert!(kmin < 1e-30, "{kmin}");
    }

    /// Replicas that differ on the half x < L/2 of an 8x8 lattice: q_x = -1 there, +1 else.
    #[test]
    fn half_lattice_domain_matches_the_direct_fourier_sum() {
        let (l, n) = (8usize, 64u64);
        let planes: Vec<u32> = (0..l).map(|x| if x < l / 2 { 8 } else { 0 }).collect();
        let (differing, kmin) = PlanePhases::new(l as u32).overlap_from_planes(&planes, n);
        assert_eq!(overlap(differing, n), 0.0);
        let (mut re, mut im) = (0.0, 0.0);
        for x in 0..l {
            let q = if x < l / 2 { -1.0 } else { 1.0 };
            let phase = std::f64::consts::TAU * x as f64 / l as f64;
            re += 8.0 * q * phase.cos() / n as f64;
            im += 8.0 * q * phase.sin() / n as f64;
        }
        assert!((kmin - (re * re + im * im)).abs() < 1e-15, "{kmin}");
        assert!(kmin > 0.1);
    }
}
