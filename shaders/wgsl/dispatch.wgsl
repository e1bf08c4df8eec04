// Per-dispatch parameters and thread indexing shared by every kernel.
// DispatchParams mirrors engine::dispatch::DispatchParams (a test checks the offsets).

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
    // The grid layer of the launch's first z (engine::dispatch::layer_pieces), else 0.
    first_layer: u32,
}

override WG_SIZE: u32 = 64u;

// The builtins a kernel's entry point takes (`fn main(thread: Thread)`): its workgroup (z is the
// system, or batch), the grid's workgroups and its index within its workgroup.
struct Thread {
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
}

// The grid layer of a workgroup of the launch `p`: its system (or replica pair, or batch). A
// grid of more layers than the device takes along z runs as launches from p.first_layer on.
fn layer(p: DispatchParams, thread: Thread) -> u32 {
    return p.first_layer + thread.workgroup.z;
}

// Linear index of a workgroup within its system: grids wider than 65535 workgroups spill into y.
fn workgroup_in_system(thread: Thread) -> u32 {
    return thread.workgroup.x + thread.workgroup.y * thread.workgroups.x;
}

// Linear index of a thread within its system.
fn thread_in_system(thread: Thread) -> u32 {
    return workgroup_in_system(thread) * WG_SIZE + thread.local;
}

// Whether update thread t is one of the threads a sweep's dispatch `p` asks for (all where
// p.threads is 0; a slab updates its edge planes and its bulk in separate dispatches).
fn dispatched(p: DispatchParams, t: u32) -> bool {
    return p.threads == 0u || t - p.first_thread < p.threads;
}

fn threads_per_system(thread: Thread) -> u32 {
    return thread.workgroups.x * thread.workgroups.y * WG_SIZE;
}
