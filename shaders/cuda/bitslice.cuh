// Bit-sliced arithmetic on 32 lanes at once, one bit each; the twin of bitslice.wgsl and
// src/engine/cpu/bitslice.rs.

// Planes of a lane counter: up to 2^18 - 1 per lane, more than any strip of sites adds.
constexpr unsigned COUNTER_PLANES = 18u;

// Per-lane number of unsatisfied bonds c = c0 + 2 c1 + 4 c2 (at most 6), and the lanes that lack
// an odd number of their bonds (odd: across open edges, multispin_metropolis.cu's word_count).
struct BondCount {
    unsigned c0;
    unsigned c1;
    unsigned c2;
    unsigned odd;
};

// Per-lane number of set bits of the words `bonds` of a site (3, 4 or 6) by carry-save adders:
// the counts of the CPU twin, which adds the words one by one, in fewer logic instructions.
template <unsigned N>
__device__ __forceinline__ BondCount bond_count_of(const unsigned (&bonds)[N]) {
    static_assert(N == 3u || N == 4u || N == 6u, "bond counts of honeycomb, 2D or 3D sites");
    // Full adder of a, b, c: sum a ^ b ^ c, carry their majority.
    const unsigned s1 = bonds[0] ^ bonds[1] ^ bonds[2];
    const unsigned c1 = (bonds[0] & bonds[1]) | (bonds[2] & (bonds[0] ^ bonds[1]));
    if (N == 3u) {
        return BondCount{s1, c1, 0u};
    }
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

// A lane counter for long walks: each step's words go into a small pending counter through
// branch-free adders, and the pending counts go into the wide counter every TALLY_STEPS steps.
// Adding to the wide counter directly ripples a carry as far as the longest chain of any thread
// in the warp, several planes per word; here that ripple is paid once per TALLY_STEPS steps.
// Pending counts stay below 2^TALLY_PLANES: a step adds at most 3 (the forward bonds of a site).
constexpr unsigned TALLY_PLANES = 5u;
constexpr unsigned TALLY_STEPS = 8u;

// PLANES wide planes: as many as a walk's counts need (strip_planes()), at most COUNTER_PLANES.
template <unsigned PLANES>
struct LaneTally {
    static_assert(PLANES >= TALLY_PLANES && PLANES <= COUNTER_PLANES, "tally planes");
    unsigned pending[TALLY_PLANES];
    unsigned planes[PLANES];
};

// Add a + b + c per lane (each 0 or 1) to the pending counter: a full adder gives the sum's two
// bits, which ripple through the pending planes.
template <unsigned PLANES>
__device__ __forceinline__ void tally_add3(LaneTally<PLANES>& tally, unsigned a, unsigned b,
                                           unsigned c) {
    const unsigned sum = a ^ b ^ c;
    const unsigned twos = (a & b) | (c & (a ^ b));
    unsigned carry = tally.pending[0] & sum;
    tally.pending[0] ^= sum;
    const unsigned p1 = tally.pending[1];
    tally.pending[1] = p1 ^ twos ^ carry;
    carry = (p1 & twos) | (carry & (p1 ^ twos));
#pragma unroll
    for (unsigned k = 2u; k < TALLY_PLANES; k++) {
        const unsigned next = tally.pending[k] & carry;
        tally.pending[k] ^= carry;
        carry = next;
    }
}

// Add the pending counts to the wide counter and clear them.
template <unsigned PLANES>
__device__ __forceinline__ void tally_flush(LaneTally<PLANES>& tally) {
    unsigned carry = 0u;
#pragma unroll
    for (unsigned k = 0u; k < TALLY_PLANES; k++) {
        const unsigned p = tally.planes[k];
        const unsigned q = tally.pending[k];
        tally.planes[k] = p ^ q ^ carry;
        carry = (p & q) | (carry & (p ^ q));
        tally.pending[k] = 0u;
    }
#pragma unroll
    for (unsigned k = TALLY_PLANES; k < PLANES; k++) {
        if (carry == 0u) {
            break;
        }
        const unsigned next = tally.planes[k] & carry;
        tally.planes[k] ^= carry;
        carry = next;
    }
}

// One more step of a walk counted in tallies a and b: both flush every TALLY_STEPS steps.
template <unsigned PLANES>
__device__ __forceinline__ void tally_step(LaneTally<PLANES>& a, LaneTally<PLANES>& b,
                                           unsigned& steps) {
    if (++steps == TALLY_STEPS) {
        tally_flush(a);
        tally_flush(b);
        steps = 0u;
    }
}

// The count of one lane of a tally (after its last flush).
template <unsigned PLANES>
__device__ __forceinline__ unsigned tally_count(const LaneTally<PLANES>& tally, unsigned lane) {
    unsigned count = 0u;
#pragma unroll
    for (unsigned k = 0u; k < PLANES; k++) {
        count |= ((tally.planes[k] >> lane) & 1u) << k;
    }
    return count;
}

// The 32 x 32 bit transpose across a warp (`lane` the thread's): bit j of thread i's result is
// bit i of thread j's `x` (five stages, each exchanging the off-diagonal blocks of size s with
// the partner lane i ^ s). Every thread of the warp calls it.
__device__ __forceinline__ unsigned transpose_warp(unsigned x, unsigned lane) {
    constexpr unsigned LOW[5] = {0x0000ffffu, 0x00ff00ffu, 0x0f0f0f0fu, 0x33333333u, 0x55555555u};
#pragma unroll
    for (unsigned stage = 0u; stage < 5u; stage++) {
        const unsigned s = 16u >> stage;
        const unsigned y = __shfl_xor_sync(0xffffffffu, x, s);
        // The lower lane of a pair keeps its low columns and takes its partner's low columns
        // into its high ones; the upper lane keeps its high columns and takes the partner's high.
        const bool upper = (lane & s) != 0u;
        const unsigned keep = upper ? ~LOW[stage] : LOW[stage];
        const unsigned moved = __funnelshift_r(y, y, upper ? s : 32u - s);
        x = (x & keep) | (moved & ~keep);
    }
    return x;
}

// Lane t's count summed over the warp's threads, in thread t, from each thread's P bit-sliced
// planes: the popcounts of the columns of the planes (each plane transposed across the warp,
// thread t's plane as row t). Every thread of the warp calls it.
template <unsigned P>
__device__ __forceinline__ unsigned warp_lane_sum(const unsigned (&planes)[P]) {
    const unsigned lane = threadIdx.x & 31u;
    unsigned sum = 0u;
#pragma unroll
    for (unsigned k = 0u; k < P; k++) {
        sum += static_cast<unsigned>(__popc(transpose_warp(planes[k], lane))) << k;
    }
    return sum;
}
