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

// Count one more bond in the lanes set in `unsatisfied` (a ripple of half adders).
__device__ __forceinline__ void bond_count_add(BondCount& count, unsigned unsatisfied) {
    const unsigned carry0 = count.c0 & unsatisfied;
    count.c0 ^= unsatisfied;
    const unsigned carry1 = count.c1 & carry0;
    count.c1 ^= carry0;
    count.c2 ^= carry1;
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
