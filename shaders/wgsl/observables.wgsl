// Exact integer observables per system: up spins and satisfied bonds (forward neighbours), summed
// into 64-bit counters (lo, hi word pairs) of slot params.slot. CPU twin: src/engine/cpu/observables.rs.
// Layout of `observations`: [slot][system][up_lo, up_hi, satisfied_lo, satisfied_hi].

#import dispatch
#import lattice
#import counters

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<i32>;
@group(0) @binding(3) var<storage, read_write> observations: array<atomic<u32>>;

var<workgroup> workgroup_up: atomic<u32>;
var<workgroup> workgroup_satisfied: atomic<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let batch = layer(params, thread);
    let n = lattice_sites();
    let base = batch * n;
    let stride = threads_per_system(thread);
    var up = 0u;
    var satisfied = 0u;
    for (var site = thread_in_system(thread); site < n; site += stride) {
        let spin = spins[base + site];
        up += select(0u, 1u, spin > 0i);
        let near = neighbours(site);
        for (var d = 0u; d < DIMS; d++) {
            satisfied += select(0u, 1u, spins[base + near[2u * d + 1u]] == spin);
        }
    }
    atomicAdd(&workgroup_up, up);
    atomicAdd(&workgroup_satisfied, satisfied);
    workgroupBarrier();
    if thread.local == 0u {
        let out = 4u * (params.slot * params.systems + batch);
        add_u64(out, atomicLoad(&workgroup_up));
        add_u64(out + 2u, atomicLoad(&workgroup_satisfied));
    }
}
