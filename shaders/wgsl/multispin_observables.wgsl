// Per lane of every word system: up spins (STAGGERED: up on colour 0, down on colour 1) and satisfied bonds (J s s' = +1, each bond once via
// the forward neighbours; the triangular lattice's diagonal the third; none across an open edge), counted with bit-sliced lane counters along strips of LINE_RUN lines
// of sites, summed per workgroup and added to 64-bit counters. CPU twin: src/engine/cpu/multispin_observables.rs.
// Layout of `observations`: [slot][g][lane][up_lo, up_hi, satisfied_lo, satisfied_hi].

#import dispatch
#import bitslice
#import multispin_lattice
#import counters

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<u32>;
@group(0) @binding(3) var<storage, read_write> observations: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> couplings: array<u32>;

override DISORDERED: bool = false;
// Whether the up spins are counted: not for a swap round at zero field, whose decisions need
// the satisfied bonds alone (the swap kernel never reads the up half of its records then).
override COUNT_UP: bool = true;
// Whether the up spins counted are the bipartite antiferromagnet's staggered ones: up on colour
// 0, down on colour 1.
override STAGGERED: bool = false;

// Per lane: up spins (0..31) and satisfied bonds (32..63) of the workgroup.
var<workgroup> lane_totals: array<atomic<u32>, 64>;

// Satisfied-bond lanes of the bond in direction +d of the word at `cw` with spin `spin`, the
// colour's bonds starting at `bonds`.
fn satisfied(spin: u32, plus: u32, bonds: u32, d: u32, cw: u32) -> u32 {
    var bond = 0u;
    if DISORDERED {
        bond = couplings[bonds + d * 2u * colour_words() + cw];
    }
    return ~(spin ^ plus ^ bond);
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let strip = thread_in_system(thread);
    let g = layer(params, thread);
    if strip < strips() {
        let group = coupling_group(g);
        var up: LaneTally;
        var bonds: LaneTally;
        var steps = 0u;
        for (var r = 0u; r < LINE_RUN; r++) {
            let walk = line_walk(strip_line(strip, r));
            let line = line_position(strip_line(strip, r));
            for (var y = 0u; y < line_length(); y++) {
                let colour = walk_colour(walk, y);
                let cw = walk_word(walk, y);
                let own = colour_base(g, colour);
                let other = colour_base(g, 1u - colour);
                let own_bonds = bond_base(group, 0u, colour);
                let spin = spins[own + cw];
                let x = x_neighbours(spins[other + cw], spins[other + cw + walk.adjacent], walk.p);
                var bond_y = 0u;
                if has_plus_y(colour) {
                    bond_y = satisfied(spin, spins[other + walk_plus_y(y, cw)], own_bonds, 1u, cw);
                }
                // The kagome lattice's bonds and spins (2D: y is the row's parity's).
                let h = y & 1u;
                var bond_z = 0u;
                if DIMS == 3u {
                    bond_z = satisfied(spin, spins[other + cw + walk.plus_z], own_bonds, 2u, cw);
                }
                if TRIANGULAR == 1u {
                    // The +(1, 1) neighbour: the +x one in the row above, of this colour.
                    let above = walk_plus_y(y, cw);
                    let diagonal = x_neighbours(spins[own + above], spins[own + above + walk.adjacent], walk.p);
                    bond_z = satisfied(spin, diagonal.y, own_bonds, 2u, cw);
                }
                if COUNT_UP {
                    let counted = select(spin, ~spin, STAGGERED && colour == 1u);
                    tally_add3(&up, select(counted, 0u, is_hole(walk.p, h)), 0u, 0u);
                }
                let kept = forward_lanes(line, y);
                tally_add3(&bonds, satisfied(spin, x.y, own_bonds, 0u, cw) & kept.x, bond_y & kept.y, bond_z & kept.z);
                tally_step(&up, &bonds, &steps, strip_planes());
            }
        }
        tally_flush(&up, strip_planes());
        tally_flush(&bonds, strip_planes());
        for (var lane = 0u; lane < 32u; lane++) {
            if COUNT_UP {
                atomicAdd(&lane_totals[lane], tally_count(&up, lane, strip_planes()));
            }
            atomicAdd(&lane_totals[32u + lane], tally_count(&bonds, lane, strip_planes()));
        }
    }
    workgroupBarrier();
    for (var i = select(32u, 0u, COUNT_UP) + thread.local; i < 64u; i += WG_SIZE) {
        let lane = i % 32u;
        let out = 4u * ((params.slot * params.systems + g) * 32u + lane) + 2u * (i / 32u);
        add_u64(out, atomicLoad(&lane_totals[i]));
    }
}
