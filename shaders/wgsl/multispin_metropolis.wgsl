// Checkerboard Metropolis on multispin words: 32 lanes (AMSC) or 32 sites (SMSC) per word, exact
// independent decisions. CPU twin: src/engine/cpu/multispin_metropolis.rs. Thread t of word
// system g updates WORD_RUN words of one row of colour params.colour: row t / stride, words
// t mod stride + j stride, stride = row_words() / WORD_RUN (adjacent threads, adjacent words).

#import dispatch
#import philox
#import slice
#import bitslice
#import multispin_lattice
#import multispin_decide

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<u32>;
@group(0) @binding(2) var<storage, read> thresholds: array<u32>;
@group(0) @binding(4) var<storage, read> couplings: array<u32>;

// Edwards-Anderson couplings to read (the ferromagnet has none); and which threshold table a
// word system uses: g / WORDS_PER_TABLE.
override DISORDERED: bool = false;
override WORDS_PER_TABLE: u32 = 1u;
// Words per thread (a divisor of row_words(), as the CUDA update's): they share the row's
// geometry, and the workgroup's threshold table loads once for more words.
override WORD_RUN: u32 = 1u;

// The unsatisfied bonds of word cw (spin `spin`) to its -d and +d neighbours, d = 1 (y) or 2 (z),
// whose words are `minus` and `plus`.
fn unsatisfied_along(spin: u32, other: u32, group: u32, d: u32, cw: u32, minus: u32, plus: u32) -> vec2<u32> {
    var bonds = vec2<u32>(0u, 0u);
    if DISORDERED {
        let colour = params.colour;
        bonds = vec2<u32>(couplings[bond_base(group, d, 1u - colour) + minus], couplings[bond_base(group, d, colour) + cw]);
    }
    return vec2<u32>(spin ^ spins[other + minus] ^ bonds.x, spin ^ spins[other + plus] ^ bonds.y);
}

// Word w of row `row` of word system g: its index in its colour array, spin and per-lane
// unsatisfied-bond counts.
struct WordCount {
    cw: u32,
    spin: u32,
    count: BondCount,
}

fn word_count(g: u32, row: u32, w: u32) -> WordCount {
    let colour = params.colour;
    let cw = row * row_words() + w;
    let n = word_neighbours(colour, row, w);
    let own = colour_base(g, colour);
    let other = colour_base(g, 1u - colour);
    let group = coupling_group(g);
    let spin = spins[own + cw];
    let x = x_neighbours(spins[other + cw], spins[other + n.adjacent], n.p);
    var x_bonds = vec2<u32>(0u, 0u);
    if DISORDERED {
        let other_bonds = bond_base(group, 0u, 1u - colour);
        let minus = x_neighbours(couplings[other_bonds + cw], couplings[other_bonds + n.adjacent], n.p).x;
        x_bonds = vec2<u32>(minus, couplings[bond_base(group, 0u, colour) + cw]);
    }
    // Unsatisfied bonds per lane: -x, +x, -y, +y (and -z, +z).
    let y = unsatisfied_along(spin, other, group, 1u, cw, n.minus.x, n.plus.x);
    var z = vec2<u32>(0u, 0u);
    if DIMS == 3u {
        z = unsatisfied_along(spin, other, group, 2u, cw, n.minus.y, n.plus.y);
    }
    let unsatisfied = array<u32, 6>(spin ^ x.x ^ x_bonds.x, spin ^ x.y ^ x_bonds.y, y.x, y.y, z.x, z.y);
    return WordCount(cw, spin, bond_count_of(unsatisfied, 2u * DIMS));
}

// Update word w of row `row` of word system g. The lattice's word index keys the randoms (a
// slab's words are offset).
fn update_word(g: u32, row: u32, w: u32) {
    let word = word_count(g, row, w);
    let flips = accepted_lanes(word.spin, word.count, word.cw + WORD_OFFSET, params.colour, g);
    spins[colour_base(g, params.colour) + word.cw] = word.spin ^ flips;
}

// Update the run of words first + j stride (j < WORD_RUN <= 4) of row `row` with the packed
// tail. Written out word by word (WORD_RUN folds each `if`): with a loop over the run, the
// Vulkan driver on the H100 lost the packed draw's gain (docs/BENCHMARKS.md).
fn update_packed_run(g: u32, row: u32, first: u32, stride: u32) {
    let colour = params.colour;
    var tail = Decision(0u, 0u);
    var tail_masks: array<u32, MAX_CATEGORIES>;
    var words: array<WordCount, 4>;
    var packed: array<vec3<u32>, 4>;
    words[0] = word_count(g, row, first);
    packed[0] = pack_word(&tail, &tail_masks, words[0].spin, words[0].count, words[0].cw + WORD_OFFSET, colour, g);
    if WORD_RUN > 1u {
        words[1] = word_count(g, row, first + stride);
        packed[1] = pack_word(&tail, &tail_masks, words[1].spin, words[1].count, words[1].cw + WORD_OFFSET, colour, g);
    }
    if WORD_RUN > 2u {
        words[2] = word_count(g, row, first + 2u * stride);
        packed[2] = pack_word(&tail, &tail_masks, words[2].spin, words[2].count, words[2].cw + WORD_OFFSET, colour, g);
        words[3] = word_count(g, row, first + 3u * stride);
        packed[3] = pack_word(&tail, &tail_masks, words[3].spin, words[3].count, words[3].cw + WORD_OFFSET, colour, g);
    }
    draw_blocks(&tail, &tail_masks, words[0].cw + WORD_OFFSET, colour, g, 1u, 8u, PACKED_TAIL_DRAW, 0u);
    let tail_accepted = tail.accept | tail.undecided;
    let own = colour_base(g, colour);
    spins[own + words[0].cw] = words[0].spin ^ packed_lanes(packed[0], tail_accepted);
    if WORD_RUN > 1u {
        spins[own + words[1].cw] = words[1].spin ^ packed_lanes(packed[1], tail_accepted);
    }
    if WORD_RUN > 2u {
        spins[own + words[2].cw] = words[2].spin ^ packed_lanes(packed[2], tail_accepted);
        spins[own + words[3].cw] = words[3].spin ^ packed_lanes(packed[3], tail_accepted);
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let g = workgroup.z;
    load_class_thresholds((g / WORDS_PER_TABLE) * CLASS_COUNT * 32u, local);
    // A sweep's dispatch covers the update threads from params.first_thread on.
    let t = thread_in_system(workgroup, workgroups, local) + params.first_thread;
    if t >= own_colour_words() / WORD_RUN || !dispatched(params, t) {
        return;
    }
    let stride = row_words() / WORD_RUN;
    if PACK_ROTATIONS != 0u {
        update_packed_run(g, t / stride, t % stride, stride);
        return;
    }
    for (var j = 0u; j < WORD_RUN; j++) {
        update_word(g, t / stride, t % stride + j * stride);
    }
}
