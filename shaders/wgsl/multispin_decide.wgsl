// Exact per-lane Metropolis decisions by bit-sliced threshold comparison (GUIDE.md section 4);
// twin of accepted_lanes in src/engine/cpu/multispin_metropolis.rs. A lane's uniform U has as
// bit 31 - i its bit of random word i; it flips iff U <= t, t the threshold of its energy class
// and temperature. Random word i is word i mod 4 of Philox block (word, sweep, MULTISPIN,
// i / 4 << 1 | colour, g'), g' the run's index of word system g (global_index); only lanes in
// categories that raise the energy need them.

// The energy class of each category, 4 bits each (categories 0..7 in CLASSES_LO, 8..13 in
// CLASSES_HI; NO_CLASS: the flip never raises the energy), the number of classes, and whether
// one uniform per word is shared by its lanes.
override CLASSES_LO: u32 = 0xffffffffu;
override CLASSES_HI: u32 = 0xffffffffu;
override CLASS_COUNT: u32 = 0u;
override SHARED_RANDOMS: bool = false;
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
// read from workgroup memory in the draw loop.
var<workgroup> class_thresholds: array<u32, MAX_CATEGORIES * 32u>;

// Copy table `table` of `thresholds` into workgroup memory; every thread of the workgroup must
// call it before any returns.
fn load_class_thresholds(table: u32, local: u32) {
    for (var i = local; i < CLASS_COUNT * 32u; i += WG_SIZE) {
        class_thresholds[i] = thresholds[table + i];
    }
    workgroupBarrier();
}

fn category_class(cat: u32) -> u32 {
    if cat < 8u {
        return (CLASSES_LO >> (4u * cat)) & 0xfu;
    }
    return (CLASSES_HI >> (4u * (cat - 8u))) & 0xfu;
}

// Lanes accepted so far, and lanes whose uniform agrees with their threshold in every bit so far.
struct Decision {
    accept: u32,
    undecided: u32,
}

// One bit plane of the comparison U <= t, most significant first: a lane decides where its bit
// of `random` differs from bit k of its threshold.
fn compare_bit(decision: ptr<function, Decision>, masks: ptr<function, array<u32, MAX_CATEGORIES>>, random: u32, k: u32) {
    var threshold_bits = 0u;
    let fixed = array<u32, MAX_CATEGORIES>(THRESHOLD_0, THRESHOLD_1, THRESHOLD_2, THRESHOLD_3, THRESHOLD_4, THRESHOLD_5, THRESHOLD_6, THRESHOLD_7, THRESHOLD_8, THRESHOLD_9, THRESHOLD_10, THRESHOLD_11, THRESHOLD_12, THRESHOLD_13);
    for (var energy_class = 0u; energy_class < CLASS_COUNT; energy_class++) {
        if FIXED_THRESHOLDS {
            threshold_bits |= select(0u, (*masks)[energy_class], ((fixed[energy_class] >> k) & 1u) != 0u);
        } else {
            threshold_bits |= (*masks)[energy_class] & class_thresholds[energy_class * 32u + k];
        }
    }
    (*decision).accept |= (*decision).undecided & threshold_bits & ~random;
    (*decision).undecided &= ~(threshold_bits ^ random);
}

// Call load_class_thresholds first.
fn accepted_lanes(spin: u32, count: BondCount, word: u32, colour: u32, g: u32) -> u32 {
    let z = coordination();
    // The lanes of each energy class: categories (down, c) and (up, c) of the class. Every
    // condition is a constant once the overrides are fixed, so the loops unroll into registers.
    var masks: array<u32, MAX_CATEGORIES>;
    var undecided = 0u;
    for (var energy_class = 0u; energy_class < CLASS_COUNT; energy_class++) {
        var mask = 0u;
        for (var c = 0u; c <= z; c++) {
            let down = category_class(c) == energy_class;
            let up = category_class(z + 1u + c) == energy_class;
            var spins = 0u;
            if down && up {
                spins = ~0u;
            } else if down {
                spins = ~spin;
            } else if up {
                spins = spin;
            }
            mask |= count_equals(count, c) & spins;
        }
        masks[energy_class] = mask;
        undecided |= mask;
    }
    var decision = Decision(~undecided, undecided);
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let batch = global_index(g);
    var uniform = 0u;
    if SHARED_RANDOMS {
        let counter = philox_counter(word >> 2u, params.sweep, PURPOSE_METROPOLIS_SHARED, colour, batch);
        uniform = philox4x32_10(counter, key)[word & 3u];
    }
    // Four bits per Philox block; the whole block is compared before checking for undecided
    // lanes again (once none is left, further comparisons change nothing).
    for (var draw = 0u; draw < 8u && decision.undecided != 0u; draw++) {
        let k = 31u - 4u * draw;
        var randoms: vec4<u32>;
        if SHARED_RANDOMS {
            randoms = vec4<u32>(0u) - ((vec4<u32>(uniform) >> vec4<u32>(k, k - 1u, k - 2u, k - 3u)) & vec4<u32>(1u));
        } else {
            let counter = philox_counter(word, params.sweep, PURPOSE_METROPOLIS_MULTISPIN, colour | (draw << 1u), batch);
            randoms = philox4x32_10(counter, key);
        }
        compare_bit(&decision, &masks, randoms.x, k);
        compare_bit(&decision, &masks, randoms.y, k - 1u);
        compare_bit(&decision, &masks, randoms.z, k - 2u);
        compare_bit(&decision, &masks, randoms.w, k - 3u);
    }
    // Lanes still undecided drew U == t exactly: U <= t accepts.
    return decision.accept | decision.undecided;
}
