//! Both WGSL Philox paths reproduce Random123's known-answer vectors and the CPU Philox on a
//! real adapter (lavapipe in CI).

mod common;

use spinflip::config::PhiloxPath;
use spinflip::engine::wgpu::philox_kat::philox_blocks;
use spinflip::rng::{PHILOX_KNOWN_ANSWERS as KNOWN_ANSWERS, philox4x32_10};

fn check_path(philox: PhiloxPath) {
    let mut ctx = common::gpu(philox);
    let inputs: Vec<_> = KNOWN_ANSWERS.iter().map(|&(c, k, _)| (c, k)).collect();
    let out = philox_blocks(&mut ctx, &inputs).unwrap();
    for ((ctr, key, expected), got) in KNOWN_ANSWERS.iter().zip(&out) {
        assert_eq!(got, expected, "{philox:?}: ctr {ctr:08x?} key {key:08x?}");
    }
    // Many pseudo-random inputs: every carry pattern of the 16-bit-limb multiply shows up.
    let mut inputs = Vec::new();
    let mut x = 0x1234_5678_9abc_def0u64;
    for _ in 0..4096 {
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 32) as u32
        };
        inputs.push(([next(), next(), next(), next()], [next(), next()]));
    }
    let out = philox_blocks(&mut ctx, &inputs).unwrap();
    for ((ctr, key), got) in inputs.iter().zip(&out) {
        assert_eq!(
            *got,
            philox4x32_10(*ctr, *key),
            "{philox:?}: ctr {ctr:08x?} key {key:08x?}"
        );
    }
}

#[test]
fn wgsl_philox_int64_path_matches_vectors_and_cpu() {
    check_path(PhiloxPath::Int64);
}

#[test]
fn wgsl_philox_u32_path_matches_vectors_and_cpu() {
    check_path(PhiloxPath::U32);
}
