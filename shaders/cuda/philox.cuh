// Philox4x32-10 (Salmon et al., SC11), the twin of src/rng/philox.rs and shaders/wgsl/philox.wgsl.
// The counter scheme (word, sweep, purpose << 24 | colour, batch) is documented in src/rng/mod.rs.
// CUDA has the 32x32 -> 64-bit product natively: __umulhi gives the high word, `*` the low one,
// so there is no mulhilo module here.

constexpr unsigned PHILOX_M0 = 0xD2511F53u;
constexpr unsigned PHILOX_M1 = 0xCD9E8D57u;
constexpr unsigned PHILOX_W0 = 0x9E3779B9u;
constexpr unsigned PHILOX_W1 = 0xBB67AE85u;

// Counter purposes, as rng::Purpose.
constexpr unsigned PURPOSE_INITIAL_SPINS = 1u;
constexpr unsigned PURPOSE_METROPOLIS_SIMPLE = 2u;
constexpr unsigned PURPOSE_METROPOLIS_MULTISPIN = 3u;
constexpr unsigned PURPOSE_METROPOLIS_SHARED = 4u;
constexpr unsigned PURPOSE_SWAP = 6u;
constexpr unsigned PURPOSE_RESAMPLE = 7u;
constexpr unsigned PURPOSE_CLUSTER_BOND = 8u;
constexpr unsigned PURPOSE_CLUSTER_FLIP = 9u;
constexpr unsigned PURPOSE_WOLFF_SEED = 10u;
constexpr unsigned PURPOSE_HOUDAYER_SEED = 13u;

__device__ __forceinline__ uint4 philox_round(uint4 ctr, uint2 key) {
    const unsigned hi0 = __umulhi(PHILOX_M0, ctr.x);
    const unsigned lo0 = PHILOX_M0 * ctr.x;
    const unsigned hi1 = __umulhi(PHILOX_M1, ctr.z);
    const unsigned lo1 = PHILOX_M1 * ctr.z;
    return make_uint4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
}

__device__ __forceinline__ uint4 philox4x32_10(uint4 counter, uint2 seed_key) {
    uint4 ctr = philox_round(counter, seed_key);
    uint2 key = seed_key;
#pragma unroll
    for (unsigned i = 1u; i < 10u; i++) {
        key.x += PHILOX_W0;
        key.y += PHILOX_W1;
        ctr = philox_round(ctr, key);
    }
    return ctr;
}

__device__ __forceinline__ uint4 philox_counter(unsigned word, unsigned sweep, unsigned purpose,
                                                unsigned colour, unsigned batch) {
    return make_uint4(word, sweep, (purpose << 24u) | colour, batch);
}
