// Metropolis on one checkerboard colour of every lattice of discrete states held in bit planes
// (discrete_planes.wgsl): thread t of system z updates WORDS_PER_THREAD plane words of
// params.colour (the pass's words t + r stride from params.first_thread), each word's 32 sites
// at once, HITS times.
// CPU twin: src/engine/cpu/discrete_planes_metropolis.rs (planes_colour): the same proposals,
// bit-sliced counts of neighbours, energy classes of the Potts ferromagnet or the Blume-Capel
// model, and each lane's uniform U against its class's threshold t_k, accepted iff U < t_k:
// U's 4 most significant bits bit-sliced, the rest from a word of the lane's own where they
// tie. Randoms: block (cw, sweep, DiscretePlanes, hit DRAWS_PER_HIT + d, colour,
// global_index(z)), d = 0, 1 the proposal's, d = 2 the decision's bit-sliced bits, d = 3 .. 10
// its tail after the words the proposal leaves, drawn only where needed. Accepted moves (lanes) are summed per workgroup, then added
// to the system's 64-bit count (counts words 0, 1); with FLAT_SYSTEMS (pass_thread) each thread
// adds its own.

#import discrete_planes

// Proposals per site (VectorSweeps::hits).
override HITS: u32 = 1u;
// Plane words a thread updates one after another (engine::planes::WORDS_PER_THREAD), its
// classes worked out once.
const WORDS_PER_THREAD: u32 = 4u;
// The Blume-Capel model's energy classes (1) or the Potts model's (0).
override BLUME_CAPEL: u32 = 0u;

// rng::Purpose::DiscretePlanes.
const PURPOSE_DISCRETE_PLANES: u32 = 14u;
// Philox blocks a hit may draw (engine::planes): draws 0, 1 the proposal's, DECISION_DRAW the
// decision's SLICED_BITS bit-sliced bits (a bit of every lane a word), from TAIL_DRAW a word
// for each lane that they leave undecided.
const DRAWS_PER_HIT: u32 = 11u;
const DECISION_DRAW: u32 = 2u;
const TAIL_DRAW: u32 = 3u;
const SLICED_BITS: u32 = 4u;
// The proposal's random words (engine::planes::proposal_words): none (q = 2), the bit of word 0
// (q = 3), else one a plane; the words of its last block that it leaves are the tail's first.
override PROPOSAL_WORDS: u32 = select(select(PLANES, 1u, STATES == 3u), 0u, STATES == 2u);
override SPARE_WORDS: u32 = (4u - PROPOSAL_WORDS % 4u) % 4u;
// Bits of a count of neighbours (up to 6).
const COUNT_BITS: u32 = 3u;
// The classes' array length: the Blume-Capel model's 3 z + 1 on the cubic lattice; the bits of
// a class's index.
const CLASS_SLOTS: u32 = 19u;
const CLASS_BITS: u32 = 5u;

// Per-lane counts of neighbours, bit-sliced: bit i of lane j's count is bit j of word i.
alias LaneCount = array<u32, COUNT_BITS>;
// The lanes of each class, bit-sliced.
alias ClassLanes = array<u32, CLASS_SLOTS>;

// One temperature's classes (PlaneClasses): each class's threshold, and its SLICED_BITS most
// significant bits as masks for the bit-sliced comparison (component j all ones where bit
// 31 - j is set). A workgroup of one temperature (the systems in layers) holds them in
// workgroup memory, worked out a class a thread; a thread of flat systems holds its own.
struct Classes {
    bits: array<vec4<u32>, CLASS_SLOTS>,
    thresholds: array<u32, CLASS_SLOTS>,
}

// Of the Blume-Capel model's moves to or from 0 of x = i - z, bit i of `leaving` where the
// energy rises as they leave 0, bit i of `entering` where it rises as they enter it.
struct Directions {
    leaving: u32,
    entering: u32,
}

var<workgroup> workgroup_classes: Classes;

// The classes a move may fall in: Blume-Capel z flips and 2 z + 1 moves to or from 0, Potts z.
fn class_count() -> u32 {
    return select(coordination(), 3u * coordination() + 1u, BLUME_CAPEL == 1u);
}

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

// The proposed states of a hit, the lanes whose proposal is a move, and its last block.
struct Proposal {
    planes: Planes,
    moves: u32,
    last: vec4<u32>,
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
    proposal.last = low;
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
        proposal.last = high;
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

// Each value's lanes of a bit-sliced count: is[v] the lanes whose count is v.
fn counts_are(count: LaneCount) -> array<u32, 7> {
    var is: array<u32, 7>;
    for (var v = 0u; v <= coordination(); v++) {
        is[v] = count_is(count, v);
    }
    return is;
}

// potts_classes: class k - 1 the moves that lose k equal neighbours, n_old = a + k, n_new = a.
fn potts_classes(b: u32, s: Planes, p: Proposal, around: Around) -> ClassLanes {
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
    let old_is = counts_are(old_count);
    let new_is = counts_are(new_count);
    var lanes: ClassLanes;
    for (var k = 1u; k <= z; k++) {
        var lanes_k = 0u;
        for (var a = 0u; a <= z - k; a++) {
            lanes_k |= old_is[a + k] & new_is[a];
        }
        lanes[k - 1u] = lanes_k & p.moves;
    }
    return lanes;
}

// blume_capel_classes (plane 0 the lanes of s = 0, plane 1 those of s = +1): x the neighbours
// along the sign of the move's nonzero spin (the new one where it leaves 0) less those against
// it; flips of x = k > 0 in class k - 1, moves to or from 0 of x in class z + x + z where their
// energy rises.
fn blume_capel_classes(
    b: u32, s: Planes, p: Proposal, around: Around, directions: Directions
) -> ClassLanes {
    let zero = s[0];
    let zero_next = p.planes[0];
    let leave = zero & ~zero_next;
    let enter = ~zero & zero_next;
    let flip = ~zero & ~zero_next;
    let along_up = (zero & p.planes[1]) | (~zero & s[1]);
    var along: LaneCount;
    var against: LaneCount;
    let z = coordination();
    for (var n = 0u; n < z; n++) {
        let zero_n = neighbour_plane(b, 0u, n, around);
        let up = neighbour_plane(b, 1u, n, around);
        let down = ~zero_n & ~up;
        add_lanes(&along, (along_up & up) | (~along_up & down));
        add_lanes(&against, (along_up & down) | (~along_up & up));
    }
    let along_is = counts_are(along);
    let against_is = counts_are(against);
    // x_is[x + z]: the lanes of along - against = x.
    var x_is: array<u32, 13>;
    for (var a = 0u; a <= z; a++) {
        for (var c = 0u; a + c <= z; c++) {
            x_is[z + a - c] |= along_is[a] & against_is[c];
        }
    }
    var lanes: ClassLanes;
    for (var k = 1u; k <= z; k++) {
        lanes[k - 1u] = flip & x_is[z + k];
    }
    for (var i = 0u; i <= 2u * z; i++) {
        let entering = select(0u, enter, ((directions.entering >> i) & 1u) == 1u);
        let uphill = select(entering, leave, ((directions.leaving >> i) & 1u) == 1u);
        lanes[z + i] = x_is[i] & uphill;
    }
    return lanes;
}

// accepted: the lanes of word cw (states s, proposal p) whose move hit `hit` accepts: level and
// downhill moves at once, an uphill move of class k where U < t_k, U's 4 most significant bits
// from one block, bit-sliced (bit 31 - j of a lane's U its bit of word j); the i-th lane whose
// bits all equal its threshold's takes the rest from tail word i: the SPARE_WORDS words of the
// proposal's last block p.last that it leaves, then the tail blocks'.
fn accepted_lanes(
    b: u32, cw: u32, hit: u32, s: Planes, p: Proposal, around: Around, own: Classes,
    directions: Directions
) -> u32 {
    var lanes: ClassLanes;
    if BLUME_CAPEL == 1u {
        lanes = blume_capel_classes(b, s, p, around, directions);
    } else {
        lanes = potts_classes(b, s, p, around);
    }
    let count = class_count();
    var uphill = 0u;
    for (var k = 0u; k < count; k++) {
        uphill |= lanes[k];
    }
    var accept = p.moves & ~uphill;
    var undecided = uphill;
    if undecided != 0u {
        // Bit 31 - j of every lane's threshold in component j.
        var threshold_bits = vec4<u32>(0u);
        for (var k = 0u; k < count; k++) {
            threshold_bits |= vec4<u32>(lanes[k]) & class_bits(own, k);
        }
        let words = plane_block(b, cw, hit, DECISION_DRAW);
        for (var j = 0u; j < SLICED_BITS; j++) {
            let random = words[j];
            accept |= undecided & threshold_bits[j] & ~random;
            undecided &= ~(threshold_bits[j] ^ random);
        }
    }
    if undecided == 0u {
        return accept;
    }
    // Each lane's class index, bit-sliced: bit c of lane j's index is bit j of index[c].
    var index: array<u32, CLASS_BITS>;
    for (var k = 0u; k < count; k++) {
        for (var c = 0u; c < CLASS_BITS; c++) {
            index[c] |= select(0u, lanes[k], ((k >> c) & 1u) == 1u);
        }
    }
    var tail = vec4<u32>(0u);
    for (var i = 0u; undecided != 0u; i++) {
        let lane = firstTrailingBit(undecided);
        undecided &= undecided - 1u;
        var word: u32;
        if i < SPARE_WORDS {
            word = p.last[PROPOSAL_WORDS % 4u + i];
        } else {
            let j = i - SPARE_WORDS;
            if j % 4u == 0u {
                tail = plane_block(b, cw, hit, TAIL_DRAW + j / 4u);
            }
            word = tail[j % 4u];
        }
        var k = 0u;
        for (var c = 0u; c < CLASS_BITS; c++) {
            k |= ((index[c] >> lane) & 1u) << c;
        }
        let threshold = class_threshold(own, k);
        let rest = ~0u >> SLICED_BITS;
        if (word >> SLICED_BITS) < (threshold & rest) {
            accept |= 1u << lane;
        }
    }
    return accept;
}

// plane_classes: the energy change of class k with the ferromagnet's one coupling word, Potts
// (k + 1) J P(0, 0); Blume-Capel flips 2 (k + 1) J P(+, +), then of x = k - 2 z the moves to or
// from 0, V(+) - V(0) - x J P(+, +) as they leave it.
fn class_energy(k: u32) -> i32 {
    let z = coordination();
    if BLUME_CAPEL == 0u {
        return i32(k + 1u) * couplings[0] * state_pair(0u, 0u);
    }
    let unit = couplings[0] * state_pair(2u, 2u);
    if k < z {
        return 2 * i32(k + 1u) * unit;
    }
    return state_site(2u) - state_site(1u) - (i32(k) - 2 * i32(z)) * unit;
}

// Class k's threshold at system b's temperature.
fn class_threshold_of(b: u32, k: u32) -> u32 {
    return threshold(bitcast<u32>(abs(class_energy(k))), temperature_of(b) * 4u * TABLE_BYTE);
}

// A threshold's SLICED_BITS most significant bits as masks (Classes::bits).
fn threshold_masks(t: u32) -> vec4<u32> {
    return vec4<u32>(0u) - ((vec4<u32>(t) >> vec4<u32>(31u, 30u, 29u, 28u)) & vec4<u32>(1u));
}

// Class k's masks and threshold: the workgroup's, or where the systems lie flat the thread's
// own.
fn class_bits(own: Classes, k: u32) -> vec4<u32> {
    if FLAT_SYSTEMS == 1u {
        return own.bits[k];
    }
    return workgroup_classes.bits[k];
}

fn class_threshold(own: Classes, k: u32) -> u32 {
    if FLAT_SYSTEMS == 1u {
        return own.thresholds[k];
    }
    return workgroup_classes.thresholds[k];
}

// The Blume-Capel model's directions (none for the Potts model).
fn directions_of() -> Directions {
    var directions: Directions;
    if BLUME_CAPEL == 0u {
        return directions;
    }
    let z = coordination();
    for (var i = 0u; i <= 2u * z; i++) {
        let energy = class_energy(z + i);
        directions.leaving |= select(0u, 1u << i, energy > 0);
        directions.entering |= select(0u, 1u << i, energy < 0);
    }
    return directions;
}

// HITS hits of plane word cw of params.colour of system b; the moves accepted.
fn update_word(b: u32, cw: u32, own: Classes, directions: Directions) -> u32 {
    let c = params.colour;
    let around = around_word(c, cw);
    var s: Planes;
    for (var k = 0u; k < PLANES; k++) {
        s[k] = load_plane(b, k, c, cw);
    }
    var accepted = 0u;
    for (var hit = 0u; hit < HITS; hit++) {
        let p = propose_planes(b, cw, hit, s);
        let flips = accepted_lanes(b, cw, hit, s, p, around, own, directions);
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
    // The pass's words span from params.first_thread; thread t takes words t + r stride.
    let span = select(lattice_sites() / 64u, params.threads, params.threads != 0u);
    let stride = (span + WORDS_PER_THREAD - 1u) / WORDS_PER_THREAD;
    let at = pass_thread(thread, stride);
    let z = at.z;
    // Layers: the workgroup's one temperature's classes, a class a thread.
    if FLAT_SYSTEMS == 0u {
        for (var k = thread.local; k < class_count(); k += WG_SIZE) {
            let t = class_threshold_of(z, k);
            workgroup_classes.thresholds[k] = t;
            workgroup_classes.bits[k] = threshold_masks(t);
        }
        workgroupBarrier();
    }
    var accepted = 0u;
    if at.live && at.t < stride {
        var own: Classes;
        if FLAT_SYSTEMS == 1u {
            for (var k = 0u; k < class_count(); k++) {
                own.thresholds[k] = class_threshold_of(z, k);
                own.bits[k] = threshold_masks(own.thresholds[k]);
            }
        }
        let directions = directions_of();
        for (var r = 0u; r < WORDS_PER_THREAD; r++) {
            let k = at.t + r * stride;
            let cw = params.first_thread + k;
            if k < span && cw < plane_words() {
                accepted += update_word(z, cw, own, directions);
            }
        }
    }
    count_accepted(thread, z, accepted);
}
