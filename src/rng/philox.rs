//! Philox4x32-10 (Salmon et al., SC11; Random123), the CPU twin of `shaders/wgsl/philox.wgsl`.

/// Multiplier of counter word 0.
pub const PHILOX_M0: u32 = 0xD251_1F53;
/// Multiplier of counter word 2.
pub const PHILOX_M1: u32 = 0xCD9E_8D57;
/// Weyl increment of key word 0 between rounds.
pub const PHILOX_W0: u32 = 0x9E37_79B9;
/// Weyl increment of key word 1 between rounds.
pub const PHILOX_W1: u32 = 0xBB67_AE85;

/// The 64-bit product of two 32-bit words as `(high, low)`.
pub fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let product = u64::from(a) * u64::from(b);
    ((product >> 32) as u32, product as u32)
}

fn round(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (hi0, lo0) = mulhilo(PHILOX_M0, ctr[0]);
    let (hi1, lo1) = mulhilo(PHILOX_M1, ctr[2]);
    [hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0]
}

/// Ten Philox rounds of `ctr` under `key`, bumping the key between rounds.
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut ctr = round(ctr, key);
    let mut key = key;
    for _ in 1..10 {
        key = [
            key[0].wrapping_add(PHILOX_W0),
            key[1].wrapping_add(PHILOX_W1),
        ];
        ctr = round(ctr, key);
    }
    ctr
}

/// Random123's known-answer vectors for Philox4x32-10 (kat_vectors): `(counter, key, output)`.
/// Every implementation, CPU or GPU, is checked against them.
pub const PHILOX_KNOWN_ANSWERS: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
    (
        [0, 0, 0, 0],
        [0, 0],
        [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8],
    ),
    (
        [0xffff_ffff; 4],
        [0xffff_ffff; 2],
        [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd],
    ),
    (
        [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
        [0xa409_3822, 0x299f_31d0],
        [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answer_vectors() {
        for (ctr, key, expected) in PHILOX_KNOWN_ANSWERS {
            assert_eq!(
                philox4x32_10(ctr, key),
                expected,
                "ctr {ctr:08x?} key {key:08x?}"
            );
        }
    }

    #[test]
    fn mulhilo_splits_the_full_product() {
        assert_eq!(
            mulhilo(0xffff_ffff, 0xffff_ffff),
            (0xffff_fffe, 0x0000_0001)
        );
        assert_eq!(mulhilo(PHILOX_M0, 2), (1, PHILOX_M0.wrapping_mul(2)));
    }
}
