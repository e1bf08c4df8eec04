// Metropolis on one checkerboard colour of every vector-spin lattice: thread ci of system z
// updates the ci-th site of params.colour, HITS proposals against its local field, in the
// fixed-point arithmetic of vector.wgsl. CPU twin: src/engine/cpu/vector_metropolis.rs (the
// randoms: block (i, sweep, VectorMetropolis, hit * 16 + attempt, colour, z), words 0 .. n-1
// the point, word 3 the acceptance word). Accepted moves are summed per workgroup, then added
// to the system's 64-bit count (counts words 0, 1).

#import vector_site
#import counters

// Proposals per site (VectorSweeps::hits).
override HITS: u32 = 1u;

var<workgroup> workgroup_accepted: atomic<u32>;

// vector_metropolis::energy_change: (s - v) . h, exactly.
fn energy_change(s: vec3<i32>, v: vec3<i32>, h: vec3<i32>) -> vec2<u32> {
    var sum = vec2<u32>(0u, 0u);
    for (var a = 0u; a < COMPONENTS; a++) {
        let difference = wide_sub(wide_from_i32(s[a]), wide_from_i32(v[a]));
        sum = wide_add(sum, wide_mul(difference, h[a]));
    }
    return sum;
}

// The hits of site i of system z from spin s; returns the moves accepted (spin updated).
fn update_site(z: u32, i: u32, h: vec3<i32>, s: ptr<function, vec3<i32>>) -> u32 {
    let t = temperature_of(z);
    let width = widths[t];
    let table = t * 4u * TABLE_BYTE;
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    var accepted = 0u;
    for (var hit = 0u; hit < HITS; hit++) {
        for (var attempt = 0u; attempt < PROPOSAL_ATTEMPTS; attempt++) {
            let draw = hit * PROPOSAL_ATTEMPTS + attempt;
            let colour = (draw << 1u) | params.colour;
            let counter = philox_counter(i, params.sweep, PURPOSE_VECTOR_METROPOLIS, colour, z);
            let words = philox4x32_10(counter, key);
            let v = propose(words, *s, width);
            if !v.ok {
                continue;
            }
            if accepts(energy_change(*s, v.v, h), words.w, table) {
                *s = v.v;
                accepted += 1u;
            }
            break;
        }
    }
    return accepted;
}

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let ci = thread_in_system(workgroup, workgroups, local);
    let z = workgroup.z;
    if ci < lattice_sites() / 2u {
        let i = colour_site(params.colour, ci);
        var s = load_spin(z, i);
        let accepted = update_site(z, i, local_field(z, i), &s);
        store_spin(z, i, s);
        atomicAdd(&workgroup_accepted, accepted);
    }
    workgroupBarrier();
    if local == 0u {
        add_u64(z * COUNT_WORDS, atomicLoad(&workgroup_accepted));
    }
}
