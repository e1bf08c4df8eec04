// Per-launch parameters and thread indexing shared by every kernel, the twin of dispatch.wgsl.
// DispatchParams mirrors engine::dispatch::DispatchParams; CUDA passes it by value to each launch
// instead of through a uniform buffer.

struct DispatchParams {
    unsigned seed_lo;
    unsigned seed_hi;
    unsigned sweep;
    unsigned colour;
    unsigned slot;
    unsigned systems;
    unsigned first_thread;  // a sweep's first update thread (a slab's planes), else 0
    unsigned threads;       // a sweep's update threads from first_thread on; 0: all
    unsigned first_layer;   // the grid layer of the launch's first z (layer_pieces), else 0
};

// The grid layer of this block: its system (or replica pair, or batch). A grid of more layers
// than the device takes along z runs as launches from params.first_layer on.
__device__ __forceinline__ unsigned layer(const DispatchParams& params) {
    return params.first_layer + blockIdx.z;
}

// Linear index of a block within its system: grids wider than the x limit spill into y;
// z is the system (batch).
__device__ __forceinline__ unsigned workgroup_in_system() {
    return blockIdx.x + blockIdx.y * gridDim.x;
}

// Linear index of a thread within its system.
__device__ __forceinline__ unsigned thread_in_system() {
    return workgroup_in_system() * blockDim.x + threadIdx.x;
}

// A sweep's update thread: this launch's threads start at params.first_thread.
__device__ __forceinline__ unsigned update_thread(const DispatchParams& params) {
    return thread_in_system() + params.first_thread;
}

// Whether update thread t is one of the threads the sweep's dispatch asks for (all where
// params.threads is 0; a slab updates its edge planes and its bulk in separate launches).
__device__ __forceinline__ bool dispatched(const DispatchParams& params, unsigned t) {
    return params.threads == 0u || t - params.first_thread < params.threads;
}

__device__ __forceinline__ unsigned threads_per_system() {
    return gridDim.x * gridDim.y * blockDim.x;
}
