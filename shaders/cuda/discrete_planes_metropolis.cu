// Metropolis on one checkerboard colour of every lattice of Potts states in bit planes
// (discrete_planes.cuh), the twin of discrete_planes_metropolis.wgsl: thread t of system z
// updates plane word cw = params.first_thread + t of colour params.colour (its 32 sites), HITS
// times, with bitwise logic on the words of its own planes and its neighbours', all in
// registers. CPU twin: src/engine/cpu/discrete_planes_metropolis.rs (the proposal, the bit-sliced
// counts of equal neighbours, the most significant bit first comparison of each lane's uniform
// with t_k; the randoms: block (cw, sweep, DiscretePlanes, hit DRAWS_PER_HIT + d, colour, z),
// d = 0, 1 the proposal's, d = 2 .. 9 the decision's). Only the Potts ferromagnet at zero field
// on the periodic square or cubic lattice (check_planes). Accepted moves are summed per block,
// then added to the system's counter 0 (count_accepted).

#include "discrete_planes.cuh"

// Proposals per site (VectorSweeps::hits).
constexpr unsigned HITS = SPINFLIP_HITS;

// rng::Purpose::DiscretePlanes.
constexpr unsigned PURPOSE_DISCRETE_PLANES = 14u;
// Philox blocks a hit may take (engine::planes): draws 0, 1 the proposal's, from DECISION_DRAW
// the decision's, 4 words (threshold bits) a block.
constexpr unsigned DRAWS_PER_HIT = 10u;
constexpr unsigned DECISION_DRAW = 2u;
constexpr unsigned DECISION_BLOCKS = 8u;

// The square or cubic lattice's neighbours (the host refuses the others), and the bits of a
// count of equal ones (up to 6).
constexpr unsigned NEIGHBOURS = 2u * DIMS;
constexpr unsigned COUNT_BITS = 3u;
// Words of a row of one colour: L / 2 sites (at least 1: other lattices' builds fold it too).
constexpr unsigned ROW_WORDS = L / (2u * PLANE_BITS) > 0u ? L / (2u * PLANE_BITS) : 1u;

// The PLANES words of one word position (indexed by constants only: registers).
struct Planes {
    unsigned w[MAX_PLANES];
};

// Block `draw` of hit `hit` of word cw of system z (run index `batch`).
__device__ __forceinline__ uint4 plane_block(const DispatchParams& params, unsigned cw,
                                             unsigned batch, unsigned hit, unsigned draw) {
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const unsigned purpose = ((hit * DRAWS_PER_HIT + draw) << 1u) | params.colour;
    return philox4x32_10(
        philox_counter(cw, params.sweep, PURPOSE_DISCRETE_PLANES, purpose, batch), key);
}

// Word j (a constant) of a block.
__device__ __forceinline__ unsigned block_word(uint4 block, unsigned j) {
    return j == 0u ? block.x : j == 1u ? block.y : j == 2u ? block.z : block.w;
}

// The other colour's planes at word position w, through the read-only cache: no thread of the
// pass writes them.
__device__ __forceinline__ Planes load_other(const unsigned* planes, unsigned z, unsigned c,
                                             unsigned w) {
    Planes at = {};
    const unsigned long long first = plane_word(z, 0u, c, w);
#pragma unroll
    for (unsigned p = 0u; p < PLANES; p++) {
        at.w[p] = __ldg(planes + first + 2ull * p * words_per_colour());
    }
    return at;
}

// add_lanes: add the lanes of x to the bit-sliced counts.
__device__ __forceinline__ void add_lanes(unsigned (&count)[COUNT_BITS], unsigned x) {
    unsigned carry = x;
#pragma unroll
    for (unsigned i = 0u; i < COUNT_BITS; i++) {
        const unsigned sum = count[i] ^ carry;
        carry &= count[i];
        count[i] = sum;
    }
}

// count_is: the lanes whose bit-sliced count is `value`.
__device__ __forceinline__ unsigned count_is(const unsigned (&count)[COUNT_BITS],
                                             unsigned value) {
    unsigned lanes = ~0u;
#pragma unroll
    for (unsigned i = 0u; i < COUNT_BITS; i++) {
        lanes &= ((value >> i) & 1u) != 0u ? count[i] : ~count[i];
    }
    return lanes;
}

// equal_lanes: the lanes where a and b hold the same state.
__device__ __forceinline__ unsigned equal_lanes(const Planes& a, const Planes& b) {
    unsigned lanes = ~0u;
#pragma unroll
    for (unsigned p = 0u; p < PLANES; p++) {
        lanes &= ~(a.w[p] ^ b.w[p]);
    }
    return lanes;
}

// below: the lanes whose state is below STATES (all where STATES = 2^PLANES), most significant
// plane first.
__device__ __forceinline__ unsigned below(const Planes& s) {
    if (STATES >= (1u << PLANES)) {
        return ~0u;
    }
    unsigned less = 0u;
    unsigned equal = ~0u;
#pragma unroll
    for (unsigned k = PLANES; k-- > 0u;) {
        if (((STATES >> k) & 1u) != 0u) {
            less |= equal & ~s.w[k];
            equal &= s.w[k];
        } else {
            equal &= ~s.w[k];
        }
    }
    return less;
}

// PlaneUpdate::propose: the proposed states of hit `hit` in `proposed`; the lanes whose proposal
// is a move. q = 2: the other state; q = 3: s + 1 + r mod 3 with (hi, lo) = (0, 0), (0, 1),
// (1, 0), r the bit of word 0; q >= 4: s XOR r, rejected where r = 0 or s XOR r >= q.
__device__ __forceinline__ unsigned propose(const DispatchParams& params, unsigned cw,
                                            unsigned batch, unsigned hit, const Planes& s,
                                            Planes& proposed) {
    proposed = s;
    if (STATES == 2u) {
        proposed.w[0] = ~s.w[0];
        return ~0u;
    }
    if (STATES == 3u) {
        const unsigned r = plane_block(params, cw, batch, hit, 0u).x;
        const unsigned lo = s.w[0];
        const unsigned hi = s.w[1];
        const unsigned zero = ~lo & ~hi;
        proposed.w[0] = (~r & zero) | (r & hi);
        proposed.w[1] = (~r & lo) | (r & zero);
        return ~0u;
    }
    // Block 1 only where a plane takes its words (the twin draws it always: no other use).
    const uint4 blocks[2] = {
        plane_block(params, cw, batch, hit, 0u),
        PLANES > 4u ? plane_block(params, cw, batch, hit, 1u) : make_uint4(0u, 0u, 0u, 0u)};
    unsigned any = 0u;
#pragma unroll
    for (unsigned k = 0u; k < PLANES; k++) {
        const unsigned r = block_word(blocks[k / 4u], k % 4u);
        any |= r;
        proposed.w[k] = s.w[k] ^ r;
    }
    return any & below(proposed);
}

// Decision::compare on threshold bit `bit` of every class: lanes whose uniform's bit is below
// their threshold's are accepted, lanes whose bits differ decided.
__device__ __forceinline__ void compare(unsigned random, unsigned bit,
                                        const unsigned (&classes)[NEIGHBOURS],
                                        const unsigned (&thresholds)[NEIGHBOURS],
                                        unsigned& accept, unsigned& undecided) {
    unsigned threshold = 0u;
#pragma unroll
    for (unsigned k = 0u; k < NEIGHBOURS; k++) {
        threshold |= classes[k] & (0u - ((thresholds[k] >> bit) & 1u));
    }
    accept |= undecided & threshold & ~random;
    undecided &= ~(threshold ^ random);
}

// PlaneUpdate::accepted: the lanes of the word (states s, neighbours `around`) whose move to
// `proposed` (lanes `moves`) hit `hit` accepts: level and downhill moves at once, a move losing
// k equal neighbours where U < t_k, U's bits drawn a block of four at a time until no lane is
// undecided. A lane undecided after 32 bits drew U = t_k: rejected.
__device__ __forceinline__ unsigned accepted_lanes(const DispatchParams& params, unsigned cw,
                                                   unsigned batch, unsigned hit, const Planes& s,
                                                   const Planes& proposed, unsigned moves,
                                                   const Planes (&around)[NEIGHBOURS],
                                                   const unsigned (&thresholds)[NEIGHBOURS]) {
    unsigned old_count[COUNT_BITS] = {};
    unsigned new_count[COUNT_BITS] = {};
#pragma unroll
    for (unsigned n = 0u; n < NEIGHBOURS; n++) {
        add_lanes(old_count, equal_lanes(s, around[n]));
        add_lanes(new_count, equal_lanes(proposed, around[n]));
    }
    unsigned old_is[NEIGHBOURS + 1u];
    unsigned new_is[NEIGHBOURS + 1u];
#pragma unroll
    for (unsigned v = 0u; v <= NEIGHBOURS; v++) {
        old_is[v] = count_is(old_count, v);
        new_is[v] = count_is(new_count, v);
    }
    // Class k - 1: the moves losing k equal neighbours, n_old - n_new = k.
    unsigned classes[NEIGHBOURS];
    unsigned uphill = 0u;
#pragma unroll
    for (unsigned k = 1u; k <= NEIGHBOURS; k++) {
        unsigned lanes = 0u;
#pragma unroll
        for (unsigned a = 0u; a + k <= NEIGHBOURS; a++) {
            lanes |= old_is[a + k] & new_is[a];
        }
        classes[k - 1u] = lanes & moves;
        uphill |= classes[k - 1u];
    }
    unsigned accept = moves & ~uphill;
    unsigned undecided = uphill;
    for (unsigned block = 0u; block < DECISION_BLOCKS && undecided != 0u; block++) {
        const uint4 words = plane_block(params, cw, batch, hit, DECISION_DRAW + block);
        const unsigned bit = 31u - 4u * block;
        compare(words.x, bit, classes, thresholds, accept, undecided);
        compare(words.y, bit - 1u, classes, thresholds, accept, undecided);
        compare(words.z, bit - 2u, classes, thresholds, accept, undecided);
        compare(words.w, bit - 3u, classes, thresholds, accept, undecided);
    }
    return accept;
}

// planes_colour for word cw of colour params.colour of system z: HITS hits; the moves accepted.
__device__ __forceinline__ unsigned update_word(const DispatchParams& params, unsigned* planes,
                                                unsigned z, unsigned cw,
                                                const unsigned (&thresholds)[NEIGHBOURS]) {
    const unsigned c = params.colour;
    const unsigned other = 1u - c;
    // neighbour_words: the same position in the rows above and below along y (and z), the
    // row's own word and its shift by one site towards the colour's other row neighbour.
    const unsigned row = cw / ROW_WORDS;
    const unsigned x_word = cw % ROW_WORDS;
    const unsigned y = row % L;
    const unsigned depth = row / L;
    // Colour site 32 cw + b is at x = 2 (32 x_word + b) + first: its row neighbours are the
    // other colour's same bit and the bit before (first = 0) or after (first = 1).
    const bool first = ((c + y + depth) & 1u) != 0u;
    const unsigned side = first ? (x_word + 1u) % ROW_WORDS : (x_word + ROW_WORDS - 1u) % ROW_WORDS;
    Planes around[NEIGHBOURS];
    around[0] = load_other(planes, z, other, cw);
    const Planes beside = load_other(planes, z, other, row * ROW_WORDS + side);
    around[1] = Planes{};
#pragma unroll
    for (unsigned p = 0u; p < PLANES; p++) {
        const unsigned same = around[0].w[p];
        around[1].w[p] = first ? (same >> 1u) | (beside.w[p] << 31u)
                               : (same << 1u) | (beside.w[p] >> 31u);
    }
    around[2] = load_other(planes, z, other, ((y + L - 1u) % L + L * depth) * ROW_WORDS + x_word);
    around[3] = load_other(planes, z, other, ((y + 1u) % L + L * depth) * ROW_WORDS + x_word);
    if (DIMS == 3u) {
        around[NEIGHBOURS - 2u] =
            load_other(planes, z, other, (y + L * ((depth + L - 1u) % L)) * ROW_WORDS + x_word);
        around[NEIGHBOURS - 1u] =
            load_other(planes, z, other, (y + L * ((depth + 1u) % L)) * ROW_WORDS + x_word);
    }
    const unsigned long long own = plane_word(z, 0u, c, cw);
    Planes s = {};
#pragma unroll
    for (unsigned p = 0u; p < PLANES; p++) {
        s.w[p] = planes[own + 2ull * p * words_per_colour()];
    }
    const unsigned batch = global_index(z);
    unsigned accepted = 0u;
    for (unsigned hit = 0u; hit < HITS; hit++) {
        Planes proposed;
        const unsigned moves = propose(params, cw, batch, hit, s, proposed);
        const unsigned flips =
            accepted_lanes(params, cw, batch, hit, s, proposed, moves, around, thresholds);
#pragma unroll
        for (unsigned p = 0u; p < PLANES; p++) {
            s.w[p] ^= (s.w[p] ^ proposed.w[p]) & flips;
        }
        accepted += __popc(flips);
    }
#pragma unroll
    for (unsigned p = 0u; p < PLANES; p++) {
        planes[own + 2ull * p * words_per_colour()] = s.w[p];
    }
    return accepted;
}

extern "C" __global__ void discrete_planes_metropolis(DispatchParams params, unsigned* planes,
                                                      const unsigned* tables,
                                                      unsigned long long* counts,
                                                      const int* couplings, const int* lookups) {
    __shared__ unsigned block_accepted;
    if (threadIdx.x == 0u) {
        block_accepted = 0u;
    }
    __syncthreads();
    const unsigned span = params.threads != 0u ? params.threads : words_per_colour();
    const PassThread at = pass_thread(params, span);
    const unsigned z = at.z;
    const unsigned cw = params.first_thread + at.t;
    unsigned accepted = 0u;
    if (at.live && at.t < span && cw < words_per_colour()) {
        // plane_thresholds: t_k = threshold(k J P(a, a)) for k = 1 ..= z, from the one coupling
        // word of the ferromagnet.
        const unsigned* table = tables + temperature_of(z) * 4u * TABLE_BYTE;
        const unsigned unit = static_cast<unsigned>(couplings[0] * state_pair(lookups, 0u, 0u));
        unsigned thresholds[NEIGHBOURS];
#pragma unroll
        for (unsigned k = 0u; k < NEIGHBOURS; k++) {
            thresholds[k] = threshold((k + 1u) * unit, table);
        }
        accepted = update_word(params, planes, z, cw, thresholds);
    }
    count_accepted(counts, block_accepted, z, accepted);
}
