//! The GPU kernels' Philox (both WGSL paths on wgpu, CUDA's) reproduces Random123's known-answer
//! vectors and the CPU Philox.

use crate::common::backend::Gpu;
use spinflip::rng::{PHILOX_KNOWN_ANSWERS as KNOWN_ANSWERS, philox4x32_10};

backends! {
    both: [philox_matches_vectors_and_cpu],
    wgpu: [],
    cuda: [],
}

/// The known answers, then many pseudo-random inputs (every carry pattern of WGSL's
/// 16-bit-limb multiply shows up), on every Philox path of the backend.
fn philox_matches_vectors_and_cpu<B: Gpu>() {
    for gpu in B::philox_paths() {
        let inputs: Vec<_> = KNOWN_ANSWERS.iter().map(|&(c, k, _)| (c, k)).collect();
        let out = gpu.philox_blocks(&inputs);
        for ((ctr, key, expected), got) in KNOWN_ANSWERS.iter().zip(&out) {
            assert_eq!(got, expected, "{gpu}: ctr {ctr:08x?} key {key:08x?}");
        }
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 32) as u32
        };
        let inputs: Vec<_> = (0..4096)
            .map(|_| ([next(), next(), next(), next()], [next(), next()]))
            .collect();
        let out = gpu.philox_blocks(&inputs);
        for ((ctr, key), got) in inputs.iter().zip(&out) {
            assert_eq!(
                *got,
                philox4x32_10(*ctr, *key),
                "{gpu}: ctr {ctr:08x?} key {key:08x?}"
            );
        }
    }
}
