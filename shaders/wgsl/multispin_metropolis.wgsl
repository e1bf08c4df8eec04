// Checkerboard Metropolis on multispin words: 32 lanes (AMSC) or 32 sites (SMSC) per word, exact
// independent decisions. CPU twin: src/engine/cpu/multispin_metropolis.rs. Thread cw of word
// system g updates word cw of colour params.colour.

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

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let g = workgroup.z;
    load_class_thresholds((g / WORDS_PER_TABLE) * CLASS_COUNT * 32u, local);
    let cw = thread_in_system(workgroup, workgroups, local);
    if cw >= own_colour_words() {
        return;
    }
    let colour = params.colour;
    let wr = row_words();
    let site = word_site(colour, cw / wr, cw % wr);
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
