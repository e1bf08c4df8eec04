// Philox4x32-10 (Salmon et al., SC11), the twin of src/rng/philox.rs.
// The counter scheme (word, sweep, purpose << 24 | draw << 1 | colour, batch) is documented in
// src/rng/mod.rs; callers that draw several blocks per update pass `draw << 1 | colour`.

#import mulhilo

const PHILOX_M0: u32 = 0xD2511F53u;
const PHILOX_M1: u32 = 0xCD9E8D57u;
const PHILOX_W0: u32 = 0x9E3779B9u;
const PHILOX_W1: u32 = 0xBB67AE85u;

// Counter purposes, as rng::Purpose.
const PURPOSE_INITIAL_SPINS: u32 = 1u;
const PURPOSE_METROPOLIS_SIMPLE: u32 = 2u;
const PURPOSE_METROPOLIS_MULTISPIN: u32 = 3u;
const PURPOSE_METROPOLIS_SHARED: u32 = 4u;
const PURPOSE_SWAP: u32 = 6u;
const PURPOSE_RESAMPLE: u32 = 7u;
const PURPOSE_CLUSTER_BOND: u32 = 8u;
const PURPOSE_CLUSTER_FLIP: u32 = 9u;
const PURPOSE_WOLFF_SEED: u32 = 10u;
const PURPOSE_HOUDAYER_SEED: u32 = 13u;

fn philox_round(ctr: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    let p0 = mulhilo(PHILOX_M0, ctr.x);
    let p1 = mulhilo(PHILOX_M1, ctr.z);
    return vec4<u32>(p1.x ^ ctr.y ^ key.x, p1.y, p0.x ^ ctr.w ^ key.y, p0.y);
}

fn philox4x32_10(counter: vec4<u32>, seed_key: vec2<u32>) -> vec4<u32> {
    var ctr = philox_round(counter, seed_key);
    var key = seed_key;
    for (var i = 1u; i < 10u; i++) {
        key += vec2<u32>(PHILOX_W0, PHILOX_W1);
        ctr = philox_round(ctr, key);
    }
    return ctr;
}

fn philox_counter(word: u32, sweep: u32, purpose: u32, colour: u32, batch: u32) -> vec4<u32> {
    return vec4<u32>(word, sweep, (purpose << 24u) | colour, batch);
}
