// Per-dispatch parameters and thread indexing shared by every kernel.
// DispatchParams mirrors engine::gpu::plan::DispatchParams (a test checks the offsets).

struct DispatchParams {
    seed_lo: u32,
    seed_hi: u32,
    sweep: u32,
    colour: u32,
    slot: u32,
    systems: u32,
    // A sweep's first update thread (a slab's planes), else 0.
    first_thread: u32,
    // A sweep's update threads from first_thread on; 0: all.
    threads: u32,
}

override WG_SIZE: u32 = 64u;

// Linear index of a thread within its system: grids wider than 65535 workgroups spill into y;
// z is the system (batch).
fn thread_in_system(workgroup: vec3<u32>, workgroups: vec3<u32>, local: u32) -> u32 {
    return (workgroup.x + workgroup.y * workgroups.x) * WG_SIZE + local;
}

// Whether update thread t is one of the threads a sweep's dispatch `p` asks for (all where
// p.threads is 0; a slab updates its edge planes and its bulk in separate dispatches).
fn dispatched(p: DispatchParams, t: u32) -> bool {
    return p.threads == 0u || t - p.first_thread < p.threads;
}

fn threads_per_system(workgroups: vec3<u32>) -> u32 {
    return workgroups.x * workgroups.y * WG_SIZE;
}
