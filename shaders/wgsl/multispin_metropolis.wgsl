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

// Update word w of row `row` of word system g.
fn update_word(g: u32, row: u32, w: u32) {
    let colour = params.colour;
    let wr = row_words();
    let cw = row * wr + w;
    let site = word_site(colour, row, w);
    let own = colour_base(g, colour);
    let other = colour_base(g, 1u - colour);
    let group = coupling_group(g);
    let spin = spins[own + cw];
    var count: BondCount;
    let x = x_neighbours(spins[other + site.row * wr + site.w], spins[other + site.row * wr + site.adjacent], site.p);
    var x_bonds = vec2<u32>(0u, 0u);
    if DISORDERED {
        let other_bonds = bond_base(group, 0u, 1u - colour) + site.row * wr;
        let minus = x_neighbours(couplings[other_bonds + site.w], couplings[other_bonds + site.adjacent], site.p).x;
        x_bonds = vec2<u32>(minus, couplings[bond_base(group, 0u, colour) + cw]);
    }
    bond_count_add(&count, spin ^ x.x ^ x_bonds.x);
    bond_count_add(&count, spin ^ x.y ^ x_bonds.y);
    for (var d = 1u; d < DIMS; d++) {
        let minus_row = site.minus_rows[d - 1u];
        let plus_row = site.plus_rows[d - 1u];
        var bonds = vec2<u32>(0u, 0u);
        if DISORDERED {
            bonds = vec2<u32>(couplings[bond_base(group, d, 1u - colour) + minus_row * wr + site.w], couplings[bond_base(group, d, colour) + cw]);
        }
        bond_count_add(&count, spin ^ spins[other + minus_row * wr + site.w] ^ bonds.x);
        bond_count_add(&count, spin ^ spins[other + plus_row * wr + site.w] ^ bonds.y);
    }
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
