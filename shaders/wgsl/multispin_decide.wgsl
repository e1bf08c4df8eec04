// Exact per-lane Metropolis decisions by bit-sliced threshold comparison (GUIDE.md section 4);
// twin of accepted_lanes in src/engine/cpu/multispin_metropolis.rs. A lane's uniform U has as
// bit 31 - i its bit of random word i; it flips iff U <= t, t the threshold of its category and
// temperature. Random word i is word i mod 4 of Philox block (word, sweep, MULTISPIN,
// i / 4 << 1 | colour, g); only lanes in categories that raise the energy need them.

// Categories whose energy change is positive (bit mask), and whether one uniform per word is
// shared by its lanes.
override ACTIVE: u32 = 0u;
override SHARED_RANDOMS: bool = false;

const MAX_CATEGORIES: u32 = 14u;

fn accepted_lanes(spin: u32, count: BondCount, table: u32, word: u32, colour: u32, g: u32) -> u32 {
    let z = coordination();
    var masks: array<u32, MAX_CATEGORIES>;
    var undecided = 0u;
    for (var cat = 0u; cat < MAX_CATEGORIES; cat++) {
        if ((ACTIVE >> cat) & 1u) != 0u {
            masks[cat] = category_mask(spin, count, cat, z);
            undecided |= masks[cat];
        }
    }
    var accept = ~undecided;
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    var uniform = 0u;
    if SHARED_RANDOMS {
        let counter = philox_counter(word >> 2u, params.sweep, PURPOSE_METROPOLIS_SHARED, colour, g);
        uniform = philox4x32_10(counter, key)[word & 3u];
    }
    var block = vec4<u32>();
    for (var i = 0u; i < 32u && undecided != 0u; i++) {
        let k = 31u - i;
        var random: u32;
        if SHARED_RANDOMS {
            random = 0u - ((uniform >> k) & 1u);
        } else {
            if (i & 3u) == 0u {
                let draw = colour | ((i >> 2u) << 1u);
                block = philox4x32_10(philox_counter(word, params.sweep, PURPOSE_METROPOLIS_MULTISPIN, draw, g), key);
            }
            random = block[i & 3u];
        }
        var threshold_bits = 0u;
        for (var cat = 0u; cat < MAX_CATEGORIES; cat++) {
            if ((ACTIVE >> cat) & 1u) != 0u {
                threshold_bits |= masks[cat] & thresholds[table + cat * 32u + k];
            }
        }
        accept |= undecided & threshold_bits & ~random;
        undecided &= ~(threshold_bits ^ random);
    }
    // Lanes still undecided drew U == t exactly: U <= t accepts.
    return accept | undecided;
}
