// Metropolis on one checkerboard colour of every lattice of Potts states held in bit planes
// (discrete_planes.wgsl): thread cw of system z (the dispatch's threads from
// params.first_thread) updates plane word cw of params.colour, its 32 sites at once, HITS times.
// CPU twin: src/engine/cpu/discrete_planes_metropolis.rs (planes_colour): the same proposals,
// bit-sliced counts of equal neighbours, energy classes k = lost equal neighbours and
// most-significant-first comparisons of each lane's uniform U with t_k, accepted iff U < t_k.
// Randoms: block (cw, sweep, DiscretePlanes, hit DRAWS_PER_HIT + d, colour, global_index(z)),
// d = 0, 1 the proposal's, d = 2 .. 9 the decision's, drawn only where needed. Accepted moves
// (lanes) are summed per workgroup, then added to the system's 64-bit count (counts words 0,
// 1); with FLAT_SYSTEMS (pass_thread) each thread adds its own.

#import discrete_planes

// Proposals per site (VectorSweeps::hits).
override HITS: u32 = 1u;

// rng::Purpose::DiscretePlanes.
const PURPOSE_DISCRETE_PLANES: u32 = 14u;
// Philox blocks a hit may draw, and the first of its decision (engine::planes).
const DRAWS_PER_HIT: u32 = 10u;
const DECISION_DRAW: u32 = 2u;
// Decision blocks: 4 words each, one bit of every lane's uniform a word, 32 bits.
const DECISION_BLOCKS: u32 = 8u;
// Bits of a count of equal neighbours (up to 6).
const COUNT_BITS: u32 = 3u;

// Per-lane counts of equal neighbours, bit-sliced: bit i of lane j's count is bit j of word i.
alias LaneCount = array<u32, COUNT_BITS>;

// Where a word's neighbours lie among the other colour's words of the system (twin:
// neighbour_words): words[n] of neighbour n = 0 (the row's word of the same position), 2, 3
// (rows -y, +y) and 4, 5 (-z, +z; 3D); neighbour 1 is the row's word shifted by one site
// towards `side`, the row's word before it (first 0) or after it (first 1).
struct Around {
    words: array<u32, 6>,
    side: u32,
    first: u32,
}

fn around_word(c: u32, cw: u32) -> Around {
    // max: naga refuses a division by an override that is 0 (L < 64, never built).
    let row_words = max(L / 64u, 1u);
    let row = cw / row_words;
    let x_word = cw % row_words;
    let y = row % L;
    let zc = row / L;
    var around: Around;
    around.words[0] = cw;
    around.words[2] = (((y + L - 1u) % L) + L * zc) * row_words + x_word;
    around.words[3] = (((y + 1u) % L) + L * zc) * row_words + x_word;
    if DIMS == 3u {
        around.words[4] = (y + L * ((zc + L - 1u) % L)) * row_words + x_word;
        around.words[5] = (y + L * ((zc + 1u) % L)) * row_words + x_word;
    }
    // Colour site 32 w + b is at x = 2 (32 w' + b) + first, first = (c + y + z) mod 2: its row
    // neighbours are the other colour's sites of the same bit and of the bit before (first 0)
    // or after (first 1).
    around.first = (c + y + zc) & 1u;
    let next = select((x_word + 1u) % row_words, (x_word + row_words - 1u) % row_words, around.first == 0u);
    around.side = row * row_words + next;
    return around;
}

// Plane k of neighbour n of system b's word (in the other colour): neighbour 1 shifted, the
// lane at the row's end from the side word.
fn neighbour_plane(b: u32, k: u32, n: u32, around: Around) -> u32 {
    let other = 1u - params.colour;
    if n != 1u {
        return load_plane(b, k, other, around.words[n]);
    }
    let same = load_plane(b, k, other, around.words[0]);
    let side = load_plane(b, k, other, around.side);
    if around.first == 0u {
        return (same << 1u) | (side >> 31u);
    }
    return (same >> 1u) | (side << 31u);
}

// Block `draw` of hit `hit` of word cw of system b.
fn plane_block(b: u32, cw: u32, hit: u32, draw: u32) -> vec4<u32> {
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let purpose = ((hit * DRAWS_PER_HIT + draw) << 1u) | params.colour;
    let counter = philox_counter(cw, params.sweep, PURPOSE_DISCRETE_PLANES, purpose, global_index(b));
    return philox4x32_10(counter, key);
}

// add_lanes: add the lanes of x to the bit-sliced counts.
fn add_lanes(count: ptr<function, LaneCount>, x: u32) {
    var carry = x;
    for (var i = 0u; i < COUNT_BITS; i++) {
        let bit = (*count)[i];
        (*count)[i] = bit ^ carry;
        carry &= bit;
    }
}

// count_is: the lanes whose bit-sliced count is `value`.
fn count_is(count: LaneCount, value: u32) -> u32 {
    var lanes = ~0u;
    for (var i = 0u; i < COUNT_BITS; i++) {
        lanes &= select(~count[i], count[i], ((value >> i) & 1u) == 1u);
    }
    return lanes;
}

// below: the lanes whose state in the planes s is below STATES (all where STATES = 2^P).
fn below_states(s: Planes) -> u32 {
    if STATES >= (1u << PLANES) {
        return ~0u;
    }
    var less = 0u;
    var equal = ~0u;
    for (var k = PLANES; k > 0u; k--) {
        let plane = s[k - 1u];
        if ((STATES >> (k - 1u)) & 1u) == 1u {
            less |= equal & ~plane;
            equal &= plane;
        } else {
            equal &= ~plane;
        }
    }
    return less;
}

// The proposed states of a hit, and the lanes whose proposal is a move.
struct Proposal {
    planes: Planes,
    moves: u32,
}

// propose: q = 2 the other state; q = 3 (states (hi, lo) = (0, 0), (0, 1), (1, 0)) the state
// s + 1 + r mod 3, r the bit of word 0; q >= 4 the state s XOR r, r the P proposal bits (plane k
// word k mod 4 of block k / 4, block 1 drawn only past 4 planes), no move where r = 0 or
// s XOR r >= q.
fn propose_planes(b: u32, cw: u32, hit: u32, s: Planes) -> Proposal {
    var proposal: Proposal;
    if STATES == 2u {
        proposal.planes[0] = ~s[0];
        proposal.moves = ~0u;
        return proposal;
    }
    let low = plane_block(b, cw, hit, 0u);
    if STATES == 3u {
        let r = low.x;
        let lo = s[0];
        let hi = s[1];
        let zero = ~lo & ~hi;
        proposal.planes[0] = (~r & zero) | (r & hi);
        proposal.planes[1] = (~r & lo) | (r & zero);
        proposal.moves = ~0u;
        return proposal;
    }
    var high = vec4<u32>(0u);
    if PLANES > 4u {
        high = plane_block(b, cw, hit, 1u);
    }
    var drawn = 0u;
    for (var k = 0u; k < PLANES; k++) {
        let r = select(high, low, k < 4u)[k % 4u];
        drawn |= r;
        proposal.planes[k] = s[k] ^ r;
    }
    proposal.moves = drawn & below_states(proposal.planes);
    return proposal;
}

// accepted: the lanes of word cw (states s, proposal p) whose move hit `hit` accepts, t[k - 1]
// the threshold t_k of losing k equal neighbours.
fn accepted_lanes(b: u32, cw: u32, hit: u32, s: Planes, p: Proposal, around: Around, t: array<u32, 6>) -> u32 {
    var old_count: LaneCount;
    var new_count: LaneCount;
    let z = coordination();
    for (var n = 0u; n < z; n++) {
        var old_equal = ~0u;
        var new_equal = ~0u;
        for (var k = 0u; k < PLANES; k++) {
            let neighbour = neighbour_plane(b, k, n, around);
            old_equal &= ~(s[k] ^ neighbour);
            new_equal &= ~(p.planes[k] ^ neighbour);
        }
        add_lanes(&old_count, old_equal);
        add_lanes(&new_count, new_equal);
    }
    // classes[k - 1]: the moves that lose k equal neighbours, n_old = a + k, n_new = a.
    var classes: array<u32, 6>;
    var uphill = 0u;
    for (var k = 1u; k <= z; k++) {
        var lanes = 0u;
        for (var a = 0u; a <= z - k; a++) {
            lanes |= count_is(old_count, a + k) & count_is(new_count, a);
        }
        classes[k - 1u] = lanes & p.moves;
        uphill |= classes[k - 1u];
    }
    var accept = p.moves & ~uphill;
    var undecided = uphill;
    // Bit 31 - i of each lane's uniform is that lane's bit of random word i (word i mod 4 of
    // decision block i / 4): a lane is decided at its first bit that differs from its
    // threshold's, and a block is drawn only while some lane is undecided.
    for (var block = 0u; block < DECISION_BLOCKS; block++) {
        if undecided == 0u {
            break;
        }
        let words = plane_block(b, cw, hit, DECISION_DRAW + block);
        for (var j = 0u; j < 4u; j++) {
            let bit = 31u - (4u * block + j);
            var threshold_bits = 0u;
            for (var k = 0u; k < z; k++) {
                threshold_bits |= classes[k] & (0u - ((t[k] >> bit) & 1u));
            }
            let random = words[j];
            accept |= undecided & threshold_bits & ~random;
            undecided &= ~(threshold_bits ^ random);
        }
    }
    // Lanes still undecided drew U = t_k: not below it, rejected.
    return accept;
}

// HITS hits of plane word cw of params.colour of system b; the moves accepted.
fn update_word(b: u32, cw: u32) -> u32 {
    let c = params.colour;
    let around = around_word(c, cw);
    // plane_thresholds: t_k = threshold(k J P(0, 0)), the ferromagnet's one coupling word.
    let table = temperature_of(b) * 4u * TABLE_BYTE;
    let unit = bitcast<u32>(couplings[0] * state_pair(0u, 0u));
    var t: array<u32, 6>;
    for (var k = 0u; k < coordination(); k++) {
        t[k] = threshold((k + 1u) * unit, table);
    }
    var s: Planes;
    for (var k = 0u; k < PLANES; k++) {
        s[k] = load_plane(b, k, c, cw);
    }
    var accepted = 0u;
    for (var hit = 0u; hit < HITS; hit++) {
        let p = propose_planes(b, cw, hit, s);
        let flips = accepted_lanes(b, cw, hit, s, p, around, t);
        for (var k = 0u; k < PLANES; k++) {
            s[k] ^= (s[k] ^ p.planes[k]) & flips;
        }
        accepted += countOneBits(flips);
    }
    for (var k = 0u; k < PLANES; k++) {
        store_plane(b, k, c, cw, s[k]);
    }
    return accepted;
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let span = select(lattice_sites() / 64u, params.threads, params.threads != 0u);
    let at = pass_thread(thread, span);
    let z = at.z;
    let cw = params.first_thread + at.t;
    var accepted = 0u;
    if at.live && at.t < span && cw < plane_words() {
        accepted = update_word(z, cw);
    }
    count_accepted(thread, z, accepted);
}
