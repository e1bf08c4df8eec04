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

// Update word w of row `row` of word system g.
fn update_word(g: u32, row: u32, w: u32) {
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
    let count = bond_count_of(unsatisfied, 2u * DIMS);
    // The lattice's word index keys the randoms (a slab's words are offset).
    spins[own + cw] = spin ^ accepted_lanes(spin, count, cw + WORD_OFFSET, colour, g);
}

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let g = workgroup.z;
    load_class_thresholds((g / WORDS_PER_TABLE) * CLASS_COUNT * 32u, local);
    let t = thread_in_system(workgroup, workgroups, local);
    if t >= own_colour_words() / WORD_RUN {
        return;
    }
    let stride = row_words() / WORD_RUN;
    for (var j = 0u; j < WORD_RUN; j++) {
        update_word(g, t / stride, t % stride + j * stride);
    }
}
