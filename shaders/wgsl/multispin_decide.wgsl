// Exact per-lane Metropolis decisions by bit-sliced threshold comparison (GUIDE.md section 4);
// twin of accepted_lanes in src/engine/cpu/multispin_metropolis.rs. A lane's uniform U has as
// bit 31 - i its bit of random word i; it flips iff U <= t, t the threshold of its energy class
// and temperature. Random word i is word i mod 4 of Philox block (word, sweep, MULTISPIN,
// i / 4 << 1 | colour, g'), g' the run's index of word system g (global_index); only lanes in
// categories that raise the energy need them. With randoms: Packed, words past block 0 come from
// a run's packed tail instead (pack_word below).

// The energy class of each category, 4 bits each (categories 0..7 in CLASSES_LO, 8..13 in
// CLASSES_HI; NO_CLASS: the flip never raises the energy), the number of classes, and whether
// one uniform per word is shared by its lanes.
override CLASSES_LO: u32 = 0xffffffffu;
override CLASSES_HI: u32 = 0xffffffffu;
// With an open axis, the classes of the odd categories (the lanes that lack an odd number of
// bonds, which count z - 1: (down, c) at c, (up, c) at z + c), as CLASSES_LO and CLASSES_HI.
override CLASSES_ODD_LO: u32 = 0xffffffffu;
override CLASSES_ODD_HI: u32 = 0xffffffffu;
override CLASS_COUNT: u32 = 0u;
override SHARED_RANDOMS: bool = false;
// The run's seed, compiled in as CUDA's update has it (every dispatch of the engine carries the
// same): Philox's round keys fold into immediates instead of holding about twenty registers
// (NVIDIA's Vulkan compiler: the packed SMSC update 64 -> 39 registers, the 3D EA one 40 -> 25).
override SEED_LO: u32;
override SEED_HI: u32;
// One table whose lanes share each threshold, for betas that stay fixed: the thresholds of the
// classes as override constants, so that each plane's class selection folds at compile time.
override FIXED_THRESHOLDS: bool = false;
override THRESHOLD_0: u32 = 0u;
override THRESHOLD_1: u32 = 0u;
override THRESHOLD_2: u32 = 0u;
override THRESHOLD_3: u32 = 0u;
override THRESHOLD_4: u32 = 0u;
override THRESHOLD_5: u32 = 0u;
override THRESHOLD_6: u32 = 0u;
override THRESHOLD_7: u32 = 0u;
override THRESHOLD_8: u32 = 0u;
override THRESHOLD_9: u32 = 0u;
override THRESHOLD_10: u32 = 0u;
override THRESHOLD_11: u32 = 0u;
override THRESHOLD_12: u32 = 0u;
override THRESHOLD_13: u32 = 0u;

const MAX_CATEGORIES: u32 = 14u;
const NO_CLASS: u32 = 15u;

// The workgroup's threshold table (every thread of a workgroup updates the same word system),
// read from workgroup memory in the draw loop: class c's planes 4 q .. 4 q + 3 in entry 8 c + q,
// so that a Philox block's four comparisons read one entry a class, where a word a plane made
// the exact sweep of PT at L = 16 4% slower on an H100. MAX_CATEGORIES * 8 entries, or two a
// thread for the tally's scratch (multispin_metropolis.wgsl) at the largest WG_SIZE the host
// compiles the tally for (its TALLY_WORKGROUP_MAX, engine/wgpu/multispin).
const TALLY_WORKGROUP_MAX: u32 = 64u;
const TABLE_ENTRIES: u32 = max(MAX_CATEGORIES * 8u, 2u * TALLY_WORKGROUP_MAX);
var<workgroup> class_thresholds: array<vec4<u32>, TABLE_ENTRIES>;

// Each class's entry of the draw's block (load_block_planes), whose component j is plane 4 q + j
// (compare_bit is passed j = k mod 4 as a constant: a component chosen by a variable would put
// the array in memory).
var<private> block_planes: array<vec4<u32>, MAX_CATEGORIES>;

fn class_block(energy_class: u32, q: u32) -> vec4<u32> {
    if energy_class >= CLASS_COUNT {
        return vec4<u32>(0u);
    }
    return class_thresholds[energy_class * 8u + q];
}

// Entry q of every class, for the four comparisons of a block: written out, as compare_bit's
// planes are.
fn load_block_planes(q: u32) {
    if FIXED_THRESHOLDS {
        return;
    }
    block_planes = array<vec4<u32>, MAX_CATEGORIES>(class_block(0u, q), class_block(1u, q), class_block(2u, q), class_block(3u, q), class_block(4u, q), class_block(5u, q), class_block(6u, q), class_block(7u, q), class_block(8u, q), class_block(9u, q), class_block(10u, q), class_block(11u, q), class_block(12u, q), class_block(13u, q));
}

// Copy table `table` of `thresholds` into workgroup memory; every thread of the workgroup must
// call it before any returns.
fn load_class_thresholds(table: u32, local: u32) {
    // Compiled-in thresholds read no table (NVIDIA's Vulkan compiler keeps an unread copy, with
    // its loads and barriers, in the update).
    if FIXED_THRESHOLDS {
        return;
    }
    for (var i = local; i < CLASS_COUNT * 8u; i += WG_SIZE) {
        let at = table + 4u * i;
        class_thresholds[i] = vec4<u32>(thresholds[at], thresholds[at + 1u], thresholds[at + 2u], thresholds[at + 3u]);
    }
    workgroupBarrier();
}

// The class of category `cat`, of the odd categories where `odd`.
fn category_class(cat: u32, odd: bool) -> u32 {
    let lo = select(CLASSES_LO, CLASSES_ODD_LO, odd);
    let hi = select(CLASSES_HI, CLASSES_ODD_HI, odd);
    if cat < 8u {
        return (lo >> (4u * cat)) & 0xfu;
    }
    return (hi >> (4u * (cat - 8u))) & 0xfu;
}

// The lanes of `spin` in category (down, c) or (up, c) of class `energy_class`, of the odd
// categories where `odd` (whose lanes count z - 1 bonds).
fn class_spins(spin: u32, c: u32, energy_class: u32, odd: bool) -> u32 {
    let bonds = site_bonds() - select(0u, 1u, odd);
    let down = category_class(c, odd) == energy_class;
    let up = category_class(bonds + 1u + c, odd) == energy_class;
    if down && up {
        return ~0u;
    }
    if down {
        return ~spin;
    }
    return select(0u, spin, up);
}

// Lanes accepted so far, and lanes whose uniform agrees with their threshold in every bit so far.
struct Decision {
    accept: u32,
    undecided: u32,
}

// Class `energy_class`'s part of threshold plane k, as the XOR of compare_bit: compiled in, the
// class's lanes where bit k is set; from the table (class 0's planes, the others' XOR class 0's:
// MultispinLayout::threshold_tables), class 0's plane, then each other class's correction on its
// lanes, component j = k mod 4 of its block_planes entry. Nothing past CLASS_COUNT. The class
// masks are disjoint, so XOR and OR agree.
fn class_plane(masks: ptr<function, array<u32, MAX_CATEGORIES>>, energy_class: u32, k: u32, j: u32) -> u32 {
    if energy_class >= CLASS_COUNT {
        return 0u;
    }
    if FIXED_THRESHOLDS {
        let fixed = array<u32, MAX_CATEGORIES>(THRESHOLD_0, THRESHOLD_1, THRESHOLD_2, THRESHOLD_3, THRESHOLD_4, THRESHOLD_5, THRESHOLD_6, THRESHOLD_7, THRESHOLD_8, THRESHOLD_9, THRESHOLD_10, THRESHOLD_11, THRESHOLD_12, THRESHOLD_13);
        return select(0u, (*masks)[energy_class], ((fixed[energy_class] >> k) & 1u) != 0u);
    }
    let plane = block_planes[energy_class][j];
    if energy_class == 0u {
        return plane;
    }
    return (*masks)[energy_class] & plane;
}

// One bit plane of the comparison U <= t, most significant first: a lane decides where its bit
// of `random` differs from bit k of its threshold. Lanes of no class are decided already: their
// bits do not matter. The classes are written out, not looped over: with six classes and more
// (open edges in 3D and on the triangular lattice), NVIDIA's Vulkan compiler kept such loops
// and the masks they index in memory.
fn compare_bit(decision: ptr<function, Decision>, masks: ptr<function, array<u32, MAX_CATEGORIES>>, random: u32, k: u32, j: u32) {
    let threshold_bits = class_plane(masks, 0u, k, j) ^ class_plane(masks, 1u, k, j) ^ class_plane(masks, 2u, k, j) ^ class_plane(masks, 3u, k, j) ^ class_plane(masks, 4u, k, j) ^ class_plane(masks, 5u, k, j) ^ class_plane(masks, 6u, k, j) ^ class_plane(masks, 7u, k, j) ^ class_plane(masks, 8u, k, j) ^ class_plane(masks, 9u, k, j) ^ class_plane(masks, 10u, k, j) ^ class_plane(masks, 11u, k, j) ^ class_plane(masks, 12u, k, j) ^ class_plane(masks, 13u, k, j);
    (*decision).accept |= (*decision).undecided & threshold_bits & ~random;
    (*decision).undecided &= ~(threshold_bits ^ random);
}

// The lanes of energy class `energy_class` (none past CLASS_COUNT): categories (down, c) and
// (up, c) of the class, the odd lanes' (count.odd) of the odd categories. Every condition is a
// constant once the overrides are fixed, so the loops unroll into registers.
fn class_mask(spin: u32, count: BondCount, energy_class: u32) -> u32 {
    if energy_class >= CLASS_COUNT {
        return 0u;
    }
    let z = site_bonds();
    var mask = 0u;
    for (var c = 0u; c <= z; c++) {
        mask |= count_equals(count, c) & class_spins(spin, c, energy_class, false);
    }
    if OPEN_AXES != 0u {
        var odd = 0u;
        for (var c = 0u; c < z; c++) {
            odd |= count_equals(count, c) & class_spins(spin, c, energy_class, true);
        }
        mask = (mask & ~count.odd) | (odd & count.odd);
    }
    return mask;
}

// The lanes of each energy class, written out as compare_bit's planes are.
fn class_masks(spin: u32, count: BondCount) -> array<u32, MAX_CATEGORIES> {
    return array<u32, MAX_CATEGORIES>(class_mask(spin, count, 0u), class_mask(spin, count, 1u), class_mask(spin, count, 2u), class_mask(spin, count, 3u), class_mask(spin, count, 4u), class_mask(spin, count, 5u), class_mask(spin, count, 6u), class_mask(spin, count, 7u), class_mask(spin, count, 8u), class_mask(spin, count, 9u), class_mask(spin, count, 10u), class_mask(spin, count, 11u), class_mask(spin, count, 12u), class_mask(spin, count, 13u));
}

// The lanes of `masks` undecided, the others accepted (their flips do not raise the energy).
// Every mask written out (those past CLASS_COUNT are zero), as compare_bit's planes are: as a
// loop over the classes, NVIDIA's Vulkan compiler made the exact updates slower (H100, 2026-12-06:
// SMSC 65536^2 2335 -> 2460 flips/ns written out, 3D EA L = 64 1885 -> 1921; the 3D EA packed
// update's machine code the same either way).
fn initial_decision(masks: ptr<function, array<u32, MAX_CATEGORIES>>) -> Decision {
    let m = *masks;
    let undecided = m[0] | m[1] | m[2] | m[3] | m[4] | m[5] | m[6] | m[7] | m[8] | m[9] | m[10] | m[11] | m[12] | m[13];
    return Decision(~undecided, undecided);
}

// Compare blocks first..last - 1 of the draw (block b: threshold bits 31 - 4b down to 28 - 4b),
// block b being Philox block draw_offset + b of word `word`'s stream (or, for shared randoms,
// bits of the word's uniform), until no lane is undecided. Four bits per Philox block; the whole
// block is compared before checking again (once no lane is left, comparisons change nothing).
fn draw_blocks(decision: ptr<function, Decision>, masks: ptr<function, array<u32, MAX_CATEGORIES>>, word: u32, colour: u32, g: u32, first: u32, last: u32, draw_offset: u32, uniform: u32) {
    let key = vec2<u32>(SEED_LO, SEED_HI);
    let batch = global_index(g);
    for (var b = first; b < last && (*decision).undecided != 0u; b++) {
        let k = 31u - 4u * b;
        var randoms: vec4<u32>;
        if SHARED_RANDOMS {
            randoms = vec4<u32>(0u) - ((vec4<u32>(uniform) >> vec4<u32>(k, k - 1u, k - 2u, k - 3u)) & vec4<u32>(1u));
        } else {
            let counter = philox_counter(word, params.sweep, PURPOSE_METROPOLIS_MULTISPIN, colour | ((draw_offset + b) << 1u), batch);
            randoms = philox4x32_10(counter, key);
        }
        load_block_planes(7u - b);
        compare_bit(decision, masks, randoms.x, k, 3u);
        compare_bit(decision, masks, randoms.y, k - 1u, 2u);
        compare_bit(decision, masks, randoms.z, k - 2u, 1u);
        compare_bit(decision, masks, randoms.w, k - 3u, 0u);
    }
}

// Call load_class_thresholds first.
fn accepted_lanes(spin: u32, count: BondCount, word: u32, colour: u32, g: u32) -> u32 {
    var masks = class_masks(spin, count);
    var decision = initial_decision(&masks);
    var uniform = 0u;
    if SHARED_RANDOMS {
        let key = vec2<u32>(SEED_LO, SEED_HI);
        let counter = philox_counter(word >> 2u, params.sweep, PURPOSE_METROPOLIS_SHARED, colour, global_index(g));
        uniform = philox4x32_10(counter, key)[word & 3u];
    }
    draw_blocks(&decision, &masks, word, colour, g, 0u, 8u, 0u, uniform);
    // Lanes still undecided drew U == t exactly: U <= t accepts.
    return decision.accept | decision.undecided;
}

// The packed tail (randoms: Packed; the twin of DecisionRule::accepted_run in
// src/engine/cpu/multispin_metropolis.rs): after its own block 0, each word of a thread's run
// puts its lanes still undecided into one packed word, rotated by the first multiple of
// 32 / PACK_ROTATIONS bits that keeps them apart from the earlier words' lanes there; the packed
// word compares blocks PACKED_TAIL_DRAW + b (b = 1..7) of the run's first word with threshold
// planes 27 down. A word whose lanes fit no rotation goes on with its own blocks 1..7.
override PACK_ROTATIONS: u32 = 0u;
const PACKED_TAIL_DRAW: u32 = 7u;
const NOT_PACKED: u32 = 32u;

fn rotate_left(x: u32, r: u32) -> u32 {
    return (x << r) | (x >> ((32u - r) & 31u));
}

fn rotate_right(x: u32, r: u32) -> u32 {
    return (x >> r) | (x << ((32u - r) & 31u));
}

// Decide word `word`'s block 0, then pack its undecided lanes into the tail (`tail`, its class
// masks `tail_masks`) or, where they fit no rotation, finish the word on its own blocks; returns
// the word's decision and rotation (NOT_PACKED for a word finished on its own).
fn pack_word(tail: ptr<function, Decision>, tail_masks: ptr<function, array<u32, MAX_CATEGORIES>>, spin: u32, count: BondCount, word: u32, colour: u32, g: u32) -> vec3<u32> {
    var masks = class_masks(spin, count);
    var decision = initial_decision(&masks);
    draw_blocks(&decision, &masks, word, colour, g, 0u, 1u, 0u, 0u);
    let lanes = decision.undecided;
    var rotation = NOT_PACKED;
    for (var i = 0u; i < PACK_ROTATIONS; i++) {
        // max: the override is evaluated even where the loop never runs (PACK_ROTATIONS 0).
        let r = i * (32u / max(PACK_ROTATIONS, 1u));
        if rotation == NOT_PACKED && (rotate_left(lanes, r) & (*tail).undecided) == 0u {
            rotation = r;
        }
    }
    if rotation == NOT_PACKED {
        draw_blocks(&decision, &masks, word, colour, g, 1u, 8u, 0u, 0u);
    } else {
        (*tail).undecided |= rotate_left(lanes, rotation);
        for (var energy_class = 0u; energy_class < CLASS_COUNT; energy_class++) {
            (*tail_masks)[energy_class] |= rotate_left(masks[energy_class] & lanes, rotation);
        }
    }
    return vec3<u32>(decision.accept, decision.undecided, rotation);
}

// A packed word's flips from its pack_word result and the tail's accepted lanes.
fn packed_lanes(packed: vec3<u32>, tail_accepted: u32) -> u32 {
    if packed.z == NOT_PACKED {
        return packed.x | packed.y;
    }
    return packed.x | (rotate_right(tail_accepted, packed.z) & packed.y);
}
