// Bit-sliced arithmetic on 32 lanes at once, one bit each; the twin of bitslice.wgsl and
// src/engine/cpu/bitslice.rs.

// Planes of a lane counter: up to 2^18 - 1 per lane, more than any line of sites adds.
constexpr unsigned COUNTER_PLANES = 18u;

// Per-lane number of unsatisfied bonds c = c0 + 2 c1 + 4 c2 (at most 6).
struct BondCount {
    unsigned c0;
    unsigned c1;
    unsigned c2;
};

// Per-lane number of set bits of the 2 DIMS words `bonds` (4 or 6) by carry-save adders: the
// counts of bond_count_add in the WGSL and CPU twins, which add the words one by one, in fewer
// logic instructions.
template <unsigned N>
__device__ __forceinline__ BondCount bond_count_of(const unsigned (&bonds)[N]) {
    static_assert(N == 4u || N == 6u, "bond counts of 2D or 3D sites");
    // Full adder of a, b, c: sum a ^ b ^ c, carry their majority.
    const unsigned s1 = bonds[0] ^ bonds[1] ^ bonds[2];
    const unsigned c1 = (bonds[0] & bonds[1]) | (bonds[2] & (bonds[0] ^ bonds[1]));
    if (N == 4u) {
        const unsigned c2 = s1 & bonds[3];
        return BondCount{s1 ^ bonds[3], c1 ^ c2, c1 & c2};
    }
    const unsigned s2 = bonds[3] ^ bonds[4] ^ bonds[5];
    const unsigned c2 = (bonds[3] & bonds[4]) | (bonds[5] & (bonds[3] ^ bonds[4]));
    const unsigned c3 = s1 & s2;
    return BondCount{s1 ^ s2, c1 ^ c2 ^ c3, (c1 & c2) | (c3 & (c1 ^ c2))};
}

__device__ __forceinline__ unsigned pick(unsigned word, bool keep) {
    return keep ? word : ~word;
}

// Lanes whose unsatisfied-bond count is c.
__device__ __forceinline__ unsigned count_equals(const BondCount& count, unsigned c) {
    return pick(count.c0, (c & 1u) != 0u) & pick(count.c1, (c & 2u) != 0u) &
           pick(count.c2, (c & 4u) != 0u);
}

// A vertical counter: add one to every lane set in `word`.
__device__ __forceinline__ void lane_counter_add(unsigned (&planes)[COUNTER_PLANES], unsigned word) {
    unsigned carry = word;
    for (unsigned k = 0u; k < COUNTER_PLANES && carry != 0u; k++) {
        const unsigned next = planes[k] & carry;
        planes[k] ^= carry;
        carry = next;
    }
}

// The count of one lane of a vertical counter.
__device__ __forceinline__ unsigned lane_count(const unsigned (&planes)[COUNTER_PLANES],
                                               unsigned lane) {
    unsigned count = 0u;
#pragma unroll
    for (unsigned k = 0u; k < COUNTER_PLANES; k++) {
        count |= ((planes[k] >> lane) & 1u) << k;
    }
    return count;
}
