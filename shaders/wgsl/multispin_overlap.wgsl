// Sites where the replicas of an overlap pair differ, and the forward bonds of those sites whose
// two ends differ differently (D = a ^ b differs across the bond: q_i q_j = -1, the link
// overlap), per x-plane (and lane for AMSC), counted with bit-sliced lane counters along lines.
// Workgroup z is the pair pw = ts * (REPLICA_WORDS/2) + rw of word systems (ts * REPLICA_WORDS +
// rw, that + REPLICA_WORDS / 2). CPU twin: src/engine/cpu/multispin_overlap.rs. Layout of
// `overlaps`: [slot][pair][sites, bonds][overlap_slot].

#import dispatch
#import bitslice
#import multispin_lattice

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<u32>;
@group(0) @binding(5) var<storage, read_write> overlaps: array<atomic<u32>>;

// Word i of one colour array of D = a ^ b, the arrays starting at a_base and b_base. Shifting
// commutes with XOR, so D's x-neighbours are x_neighbours of D's words.
fn differ(a_base: u32, b_base: u32, i: u32) -> u32 {
    return spins[a_base + i] ^ spins[b_base + i];
}

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let line = thread_in_system(workgroup, workgroups, local);
    if line >= lines() {
        return;
    }
    let pair = workgroup.z;
    let half = REPLICA_WORDS / 2u;
    let a = (pair / half) * REPLICA_WORDS + pair % half;
    let b = a + half;
    let wr = row_words();
    var sites: array<u32, COUNTER_PLANES>;
    var links: array<u32, COUNTER_PLANES>;
    for (var y = 0u; y < L; y++) {
        let colour = line_colour(line, y);
        let site = line_site(line, y);
        let cw = site.row * wr + site.w;
        let own = differ(colour_base(a, colour), colour_base(b, colour), cw);
        let other_a = colour_base(a, 1u - colour);
        let other_b = colour_base(b, 1u - colour);
        lane_counter_add(&sites, own);
        let adjacent = differ(other_a, other_b, site.row * wr + site.adjacent);
        let x = x_neighbours(differ(other_a, other_b, cw), adjacent, site.p);
        lane_counter_add(&links, own ^ x.y);
        for (var d = 1u; d < DIMS; d++) {
            let plus = differ(other_a, other_b, site.plus_rows[d - 1u] * wr + site.w);
            lane_counter_add(&links, own ^ plus);
        }
    }
    let position = line_position(line);
    let base = (params.slot * workgroups.z + pair) * 2u * overlap_slots();
    for (var j = 0u; j < 32u; j++) {
        let slot = base + overlap_slot(position.y, position.z, j);
        let count = lane_count(&sites, j);
        if count != 0u {
            atomicAdd(&overlaps[slot], count);
        }
        let link_count = lane_count(&links, j);
        if link_count != 0u {
            atomicAdd(&overlaps[slot + overlap_slots()], link_count);
        }
    }
}
