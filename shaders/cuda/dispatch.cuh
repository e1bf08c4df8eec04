// Per-launch parameters and thread indexing shared by every kernel, the twin of dispatch.wgsl.
// DispatchParams mirrors engine::gpu::plan::DispatchParams; CUDA passes it by value to each launch
// instead of through a uniform buffer.

struct DispatchParams {
    unsigned seed_lo;
    unsigned seed_hi;
    unsigned sweep;
    unsigned colour;
    unsigned slot;
    unsigned systems;
    unsigned pad0;
    unsigned pad1;
};

// Linear index of a thread within its system: grids wider than the x limit spill into y;
// z is the system (batch).
__device__ __forceinline__ unsigned thread_in_system() {
    return (blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ unsigned threads_per_system() {
    return gridDim.x * gridDim.y * blockDim.x;
}
