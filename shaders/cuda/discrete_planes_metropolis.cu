// Metropolis on one checkerboard colour of every lattice of discrete states in bit planes
// (discrete_planes.cuh), the twin of discrete_planes_metropolis.wgsl: thread t of system z
// updates WORDS_PER_THREAD plane words of colour params.colour (32 sites each), HITS times
// each, with bitwise logic on the words of its own planes and its neighbours', all in
// registers. CPU twin: src/engine/cpu/discrete_planes_metropolis.rs (the proposal; the
// bit-sliced counts of neighbours and the energy classes of the Potts ferromagnet or the
// Blume-Capel model; each lane's uniform U against its class's threshold, its 4 most
// significant bits bit-sliced, then a word of its own for the rest where they tie; the randoms:
// block (cw, sweep, DiscretePlanes, hit DRAWS_PER_HIT + d, colour, z), d = 0, 1 the proposal's,
// d = 2 the decision's bit-sliced bits, d = 3 .. 10 its tail after the words the proposal
// leaves). Only at zero field on the periodic square or cubic lattice (check_planes). Accepted
// moves are summed per block, then added to the system's counter 0 (count_accepted).

#include "discrete_planes.cuh"

// Proposals per site (VectorSweeps::hits).
constexpr unsigned HITS = SPINFLIP_HITS;
// Plane words a thread updates one after another (engine::planes::WORDS_PER_THREAD), its
// classes worked out once.
constexpr unsigned WORDS_PER_THREAD = 4u;

// rng::Purpose::DiscretePlanes.
constexpr unsigned PURPOSE_DISCRETE_PLANES = 14u;
// Philox blocks a hit may take (engine::planes): draws 0, 1 the proposal's, DECISION_DRAW the
// decision's SLICED_BITS bit-sliced bits (a bit of every lane a word), from TAIL_DRAW a word
// for each lane that they leave undecided.
constexpr unsigned DRAWS_PER_HIT = 11u;
constexpr unsigned DECISION_DRAW = 2u;
constexpr unsigned TAIL_DRAW = 3u;
constexpr unsigned SLICED_BITS = 4u;
// The proposal's random words: none (q = 2), the bit of word 0 (q = 3), else one a plane; the
// words of its last block that it leaves are the tail's first.
constexpr unsigned PROPOSAL_WORDS = STATES == 2u ? 0u : STATES == 3u ? 1u : PLANES;
constexpr unsigned SPARE_WORDS = (4u - PROPOSAL_WORDS % 4u) % 4u;

// The square or cubic lattice's neighbours (the host refuses the others), and the bits of a
// count of them (up to 6).
constexpr unsigned NEIGHBOURS = 2u * DIMS;
constexpr unsigned COUNT_BITS = 3u;
// Words of a row of one colour: L / 2 sites (at least 1: other lattices' builds fold it too).
constexpr unsigned ROW_WORDS = L / (2u * PLANE_BITS) > 0u ? L / (2u * PLANE_BITS) : 1u;

// The Blume-Capel model's classes (PlaneClasses): z flips, then 2 z + 1 moves to or from 0; the
// Potts model's z. The register arrays hold the larger count, so that both models' class code
// builds; only CLASSES entries are read.
constexpr bool BLUME_CAPEL = SPINFLIP_BLUME_CAPEL != 0u;
constexpr unsigned CLASS_SLOTS = 3u * NEIGHBOURS + 1u;
constexpr unsigned CLASSES = BLUME_CAPEL ? CLASS_SLOTS : NEIGHBOURS;
// Bits of a class's index (up to 19 classes).
constexpr unsigned CLASS_BITS = CLASSES > 16u ? 5u : CLASSES > 8u ? 4u : CLASSES > 4u ? 3u : 2u;

// The PLANES words of one word position (indexed by constants only: registers).
struct Planes {
    unsigned w[MAX_PLANES];
};

// One temperature's classes (plane_classes): each class's threshold, and its SLICED_BITS most
// significant bits as masks for the bit-sliced comparison (component j all ones where bit
// 31 - j is set). A block of one temperature (the systems in layers) holds them in shared
// memory, worked out a class a thread; a thread of flat systems holds its own.
struct Classes {
    uint4 bits[CLASS_SLOTS];
    unsigned thresholds[CLASS_SLOTS];
};

// Of the Blume-Capel model's moves to or from 0 of x = i - z, bit i of `leaving` where the
// energy rises as they leave 0, bit i of `entering` where it rises as they enter it.
struct Directions {
    unsigned leaving;
    unsigned entering;
};

// Block `draw` of hit `hit` of word cw of system z (run index `batch`).
__device__ __forceinline__ uint4 plane_block(const DispatchParams& params, unsigned cw,
                                             unsigned batch, unsigned hit, unsigned draw) {
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const unsigned purpose = ((hit * DRAWS_PER_HIT + draw) << 1u) | params.colour;
    return philox4x32_10(
        philox_counter(cw, params.sweep, PURPOSE_DISCRETE_PLANES, purpose, batch), key);
}

// Word j of a block.
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

// Each value's lanes of a bit-sliced count: is[v] the lanes whose count is v.
__device__ __forceinline__ void counts_are(const unsigned (&count)[COUNT_BITS],
                                           unsigned (&is)[NEIGHBOURS + 1u]) {
#pragma unroll
    for (unsigned v = 0u; v <= NEIGHBOURS; v++) {
        is[v] = count_is(count, v);
    }
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
                                            Planes& proposed, uint4& last) {
    proposed = s;
    last = make_uint4(0u, 0u, 0u, 0u);
    if (STATES == 2u) {
        proposed.w[0] = ~s.w[0];
        return ~0u;
    }
    if (STATES == 3u) {
        last = plane_block(params, cw, batch, hit, 0u);
        const unsigned r = last.x;
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
    last = blocks[(PROPOSAL_WORDS - 1u) / 4u];
    return any & below(proposed);
}

// PlaneUpdate::potts_classes: class k - 1 the moves (lanes `moves`) that lose k equal
// neighbours, n_old = a + k, n_new = a.
__device__ __forceinline__ void potts_classes(const Planes& s, const Planes& proposed,
                                              unsigned moves,
                                              const Planes (&around)[NEIGHBOURS],
                                              unsigned (&lanes)[CLASS_SLOTS]) {
    unsigned old_count[COUNT_BITS] = {};
    unsigned new_count[COUNT_BITS] = {};
#pragma unroll
    for (unsigned n = 0u; n < NEIGHBOURS; n++) {
        add_lanes(old_count, equal_lanes(s, around[n]));
        add_lanes(new_count, equal_lanes(proposed, around[n]));
    }
    unsigned old_is[NEIGHBOURS + 1u];
    unsigned new_is[NEIGHBOURS + 1u];
    counts_are(old_count, old_is);
    counts_are(new_count, new_is);
#pragma unroll
    for (unsigned k = 1u; k <= NEIGHBOURS; k++) {
        unsigned lanes_k = 0u;
#pragma unroll
        for (unsigned a = 0u; a + k <= NEIGHBOURS; a++) {
            lanes_k |= old_is[a + k] & new_is[a];
        }
        lanes[k - 1u] = lanes_k & moves;
    }
}

// PlaneUpdate::blume_capel_classes (plane 0 the lanes of s = 0, plane 1 those of s = +1): x the
// neighbours along the sign of the move's nonzero spin (the new one where it leaves 0) less
// those against it; flips of x = k > 0 in class k - 1, moves to or from 0 of x in class
// z + x + z where their energy rises.
__device__ __forceinline__ void blume_capel_classes(const Planes& s, const Planes& proposed,
                                                    const Planes (&around)[NEIGHBOURS],
                                                    Directions directions,
                                                    unsigned (&lanes)[CLASS_SLOTS]) {
    const unsigned zero = s.w[0];
    const unsigned zero_next = proposed.w[0];
    const unsigned leave = zero & ~zero_next;
    const unsigned enter = ~zero & zero_next;
    const unsigned flip = ~zero & ~zero_next;
    const unsigned along_up = (zero & proposed.w[1]) | (~zero & s.w[1]);
    unsigned along[COUNT_BITS] = {};
    unsigned against[COUNT_BITS] = {};
#pragma unroll
    for (unsigned n = 0u; n < NEIGHBOURS; n++) {
        const unsigned up = around[n].w[1];
        const unsigned down = ~around[n].w[0] & ~around[n].w[1];
        add_lanes(along, (along_up & up) | (~along_up & down));
        add_lanes(against, (along_up & down) | (~along_up & up));
    }
    unsigned along_is[NEIGHBOURS + 1u];
    unsigned against_is[NEIGHBOURS + 1u];
    counts_are(along, along_is);
    counts_are(against, against_is);
    // x_is[x + z]: the lanes of along - against = x.
    unsigned x_is[2u * NEIGHBOURS + 1u] = {};
#pragma unroll
    for (unsigned a = 0u; a <= NEIGHBOURS; a++) {
#pragma unroll
        for (unsigned b = 0u; a + b <= NEIGHBOURS; b++) {
            x_is[NEIGHBOURS + a - b] |= along_is[a] & against_is[b];
        }
    }
#pragma unroll
    for (unsigned k = 1u; k <= NEIGHBOURS; k++) {
        lanes[k - 1u] = flip & x_is[NEIGHBOURS + k];
    }
#pragma unroll
    for (unsigned i = 0u; i <= 2u * NEIGHBOURS; i++) {
        const unsigned uphill = ((directions.leaving >> i) & 1u) != 0u    ? leave
                                : ((directions.entering >> i) & 1u) != 0u ? enter
                                                                          : 0u;
        lanes[NEIGHBOURS + i] = x_is[i] & uphill;
    }
}

// Decision::compare on threshold bit `bit` of every class: lanes whose uniform's bit is below
// their threshold's are accepted, lanes whose bits differ decided.
__device__ __forceinline__ void compare(unsigned random, unsigned threshold, unsigned& accept,
                                        unsigned& undecided) {
    accept |= undecided & threshold & ~random;
    undecided &= ~(threshold ^ random);
}

// PlaneUpdate::accepted: the lanes of the word (states s, neighbours `around`) whose move to
// `proposed` (lanes `moves`) hit `hit` accepts: level and downhill moves at once, an uphill
// move of class k where U < t_k, U's 4 most significant bits from one block, bit-sliced; the
// i-th lane whose bits all equal its threshold's takes the rest from tail word i: the
// SPARE_WORDS words of the proposal's last block `last` that it leaves, then the tail blocks'.
__device__ __forceinline__ unsigned accepted_lanes(const DispatchParams& params, unsigned cw,
                                                   unsigned batch, unsigned hit, const Planes& s,
                                                   const Planes& proposed, unsigned moves,
                                                   const Planes (&around)[NEIGHBOURS],
                                                   const Classes& classes, Directions directions,
                                                   uint4 last) {
    unsigned lanes[CLASS_SLOTS];
    if (BLUME_CAPEL) {
        blume_capel_classes(s, proposed, around, directions, lanes);
    } else {
        potts_classes(s, proposed, moves, around, lanes);
    }
    unsigned uphill = 0u;
#pragma unroll
    for (unsigned k = 0u; k < CLASSES; k++) {
        uphill |= lanes[k];
    }
    unsigned accept = moves & ~uphill;
    unsigned undecided = uphill;
    if (undecided != 0u) {
        uint4 t = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
        for (unsigned k = 0u; k < CLASSES; k++) {
            const uint4 m = classes.bits[k];
            t.x |= lanes[k] & m.x;
            t.y |= lanes[k] & m.y;
            t.z |= lanes[k] & m.z;
            t.w |= lanes[k] & m.w;
        }
        const uint4 words = plane_block(params, cw, batch, hit, DECISION_DRAW);
        compare(words.x, t.x, accept, undecided);
        compare(words.y, t.y, accept, undecided);
        compare(words.z, t.z, accept, undecided);
        compare(words.w, t.w, accept, undecided);
    }
    if (undecided == 0u) {
        return accept;
    }
    // Each lane's class index, bit-sliced: bit b of lane j's index is bit j of index[b].
    unsigned index[CLASS_BITS] = {};
#pragma unroll
    for (unsigned k = 0u; k < CLASSES; k++) {
#pragma unroll
        for (unsigned b = 0u; b < CLASS_BITS; b++) {
            index[b] |= ((k >> b) & 1u) != 0u ? lanes[k] : 0u;
        }
    }
    uint4 tail = make_uint4(0u, 0u, 0u, 0u);
    for (unsigned i = 0u; undecided != 0u; i++) {
        const unsigned lane = __ffs(undecided) - 1u;
        undecided &= undecided - 1u;
        unsigned word;
        if (i < SPARE_WORDS) {
            word = block_word(last, PROPOSAL_WORDS % 4u + i);
        } else {
            const unsigned j = i - SPARE_WORDS;
            if (j % 4u == 0u) {
                tail = plane_block(params, cw, batch, hit, TAIL_DRAW + j / 4u);
            }
            word = block_word(tail, j % 4u);
        }
        unsigned k = 0u;
#pragma unroll
        for (unsigned b = 0u; b < CLASS_BITS; b++) {
            k |= ((index[b] >> lane) & 1u) << b;
        }
        const unsigned threshold = classes.thresholds[k];
        const unsigned rest = ~0u >> SLICED_BITS;
        if ((word >> SLICED_BITS) < (threshold & rest)) {
            accept |= 1u << lane;
        }
    }
    return accept;
}

// planes_colour for word cw of colour params.colour of system z: HITS hits; the moves accepted.
__device__ __forceinline__ unsigned update_word(const DispatchParams& params, unsigned* planes,
                                                unsigned z, unsigned cw,
                                                const Classes& classes, Directions directions) {
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
        uint4 last;
        const unsigned moves = propose(params, cw, batch, hit, s, proposed, last);
        const unsigned flips =
            accepted_lanes(params, cw, batch, hit, s, proposed, moves, around, classes, directions,
                           last);
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

// plane_classes: the energy change of class k with the ferromagnet's one coupling word, Potts
// (k + 1) J P(0, 0); Blume-Capel flips 2 (k + 1) J P(+, +), then of x = k - 2 z the moves to or
// from 0, V(+) - V(0) - x J P(+, +) as they leave it.
__device__ __forceinline__ int class_energy(unsigned k, const int* couplings,
                                            const int* lookups) {
    if (!BLUME_CAPEL) {
        return static_cast<int>(k + 1u) * couplings[0] * state_pair(lookups, 0u, 0u);
    }
    const int unit = couplings[0] * state_pair(lookups, 2u, 2u);
    if (k < NEIGHBOURS) {
        return 2 * static_cast<int>(k + 1u) * unit;
    }
    const int x = static_cast<int>(k) - 2 * static_cast<int>(NEIGHBOURS);
    return state_site(lookups, 2u) - state_site(lookups, 1u) - x * unit;
}

// Class k's threshold from the temperature's `table`, and its bit masks.
__device__ __forceinline__ void set_class(Classes& classes, unsigned k, const unsigned* table,
                                          const int* couplings, const int* lookups) {
    const int energy = class_energy(k, couplings, lookups);
    const unsigned t = threshold(static_cast<unsigned>(energy < 0 ? -energy : energy), table);
    classes.thresholds[k] = t;
    classes.bits[k] = make_uint4(0u - (t >> 31u), 0u - ((t >> 30u) & 1u),
                                 0u - ((t >> 29u) & 1u), 0u - ((t >> 28u) & 1u));
}

// The Blume-Capel model's directions (none for the Potts model).
__device__ __forceinline__ Directions directions_of(const int* couplings, const int* lookups) {
    Directions directions = {0u, 0u};
#pragma unroll
    for (unsigned i = 0u; BLUME_CAPEL && i <= 2u * NEIGHBOURS; i++) {
        const int energy = class_energy(NEIGHBOURS + i, couplings, lookups);
        directions.leaving |= energy > 0 ? 1u << i : 0u;
        directions.entering |= energy < 0 ? 1u << i : 0u;
    }
    return directions;
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
    // The pass's words span from params.first_thread; thread t takes words t + r stride.
    const unsigned span = params.threads != 0u ? params.threads : words_per_colour();
    const unsigned stride = (span + WORDS_PER_THREAD - 1u) / WORDS_PER_THREAD;
    const PassThread at = pass_thread(params, stride);
    const unsigned z = at.z;
    // Layers: the block's one temperature's classes, a class a thread.
    __shared__ Classes block_classes;
    Classes own;
    Classes& classes = FLAT_SYSTEMS ? own : block_classes;
    if (!FLAT_SYSTEMS) {
        const unsigned* table = tables + temperature_of(z) * 4u * TABLE_BYTE;
        for (unsigned k = threadIdx.x; k < CLASSES; k += blockDim.x) {
            set_class(block_classes, k, table, couplings, lookups);
        }
        __syncthreads();
    }
    unsigned accepted = 0u;
    if (at.live && at.t < stride) {
        if (FLAT_SYSTEMS) {
            const unsigned* table = tables + temperature_of(z) * 4u * TABLE_BYTE;
            for (unsigned k = 0u; k < CLASSES; k++) {
                set_class(own, k, table, couplings, lookups);
            }
        }
        const Directions directions = directions_of(couplings, lookups);
#pragma unroll 1
        for (unsigned r = 0u; r < WORDS_PER_THREAD; r++) {
            const unsigned k = at.t + r * stride;
            const unsigned cw = params.first_thread + k;
            if (k < span && cw < words_per_colour()) {
                accepted += update_word(params, planes, z, cw, classes, directions);
            }
        }
    }
    count_accepted(counts, block_accepted, z, accepted);
}
