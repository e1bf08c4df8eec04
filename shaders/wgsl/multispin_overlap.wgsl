// Sites where the replicas of an overlap pair differ, per x-plane (and lane for AMSC), counted
// with bit-sliced lane counters along lines. Workgroup z is the pair pw = ts * (REPLICA_WORDS/2)
// + rw of word systems (ts * REPLICA_WORDS + rw, that + REPLICA_WORDS / 2). CPU twin:
// src/engine/cpu/multispin_overlap.rs. Layout of `overlaps`: [slot][pair][overlap_slot].

#import dispatch
#import bitslice
#import multispin_lattice

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<u32>;
@group(0) @binding(5) var<storage, read_write> overlaps: array<atomic<u32>>;

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
    var differ: array<u32, COUNTER_PLANES>;
    for (var y = 0u; y < L; y++) {
        let colour = line_colour(line, y);
        let site = line_site(line, y);
        let cw = site.row * wr + site.w;
        lane_counter_add(&differ, spins[colour_base(a, colour) + cw] ^ spins[colour_base(b, colour) + cw]);
    }
    let position = line_position(line);
    let base = (params.slot * workgroups.z + pair) * overlap_slots();
    for (var j = 0u; j < 32u; j++) {
        let count = lane_count(&differ, j);
        if count != 0u {
            atomicAdd(&overlaps[base + overlap_slot(position.y, position.z, j)], count);
        }
    }
}
