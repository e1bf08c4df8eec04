// Per lane of every word system: up spins and satisfied bonds (J s s' = +1, each bond once via
// the forward neighbours), counted with bit-sliced lane counters along lines of sites, summed
// per workgroup and added to 64-bit counters. CPU twin: src/engine/cpu/multispin_observables.rs.
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

// Per lane: up spins (0..31) and satisfied bonds (32..63) of the workgroup.
var<workgroup> lane_totals: array<atomic<u32>, 64>;

// Satisfied-bond lanes of the bond in direction +d of the word at `site` with spin `spin`.
fn satisfied(spin: u32, plus: u32, group: u32, d: u32, colour: u32, cw: u32) -> u32 {
    var bond = 0u;
    if DISORDERED {
        bond = couplings[bond_base(group, d, colour) + cw];
    }
    return ~(spin ^ plus ^ bond);
}

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let line = thread_in_system(workgroup, workgroups, local);
    let g = workgroup.z;
    if line < lines() {
        let wr = row_words();
        let group = coupling_group(g);
        var up: array<u32, COUNTER_PLANES>;
        var bonds: array<u32, COUNTER_PLANES>;
        for (var y = 0u; y < L; y++) {
            let colour = line_colour(line, y);
            let site = line_site(line, y);
            let cw = site.row * wr + site.w;
            let other = colour_base(g, 1u - colour);
            let spin = spins[colour_base(g, colour) + cw];
            lane_counter_add(&up, spin);
            let x = x_neighbours(spins[other + cw], spins[other + site.row * wr + site.adjacent], site.p);
            lane_counter_add(&bonds, satisfied(spin, x.y, group, 0u, colour, cw));
            for (var d = 1u; d < DIMS; d++) {
                let plus = spins[other + site.plus_rows[d - 1u] * wr + site.w];
                lane_counter_add(&bonds, satisfied(spin, plus, group, d, colour, cw));
            }
        }
        for (var lane = 0u; lane < 32u; lane++) {
            atomicAdd(&lane_totals[lane], lane_count(&up, lane));
            atomicAdd(&lane_totals[32u + lane], lane_count(&bonds, lane));
        }
    }
    workgroupBarrier();
    for (var i = local; i < 64u; i += WG_SIZE) {
        let lane = i % 32u;
        let out = 4u * ((params.slot * params.systems + g) * 32u + lane) + 2u * (i / 32u);
        add_u64(out, atomicLoad(&lane_totals[i]));
    }
}
