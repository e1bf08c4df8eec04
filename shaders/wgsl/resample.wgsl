// Population annealing's resampling step on the device, shared by its three kernels
// (resample_count, resample_scan, resample_scatter; CUDA twins in shaders/cuda/resample*.cu,
// CPU reference src/engine/annealing.rs). Systems lie in blocks of SLOTS, one population per
// block; the count and scatter kernels give each thread a chunk of CHUNK systems of one block
// (SLOTS is a multiple of CHUNK), the scan kernel gives each block one workgroup.

// What the step changes between calls: the seed, the step number (the Philox sweep), the first
// observation pair of the measurement the table was built from, and the table's keying.
struct ResampleParams {
    seed_lo: u32,
    seed_hi: u32,
    step: u32,
    observation_base: u32,
    keyed: u32,
}

// engine::annealing::TableHead.
struct TableHead {
    lo: u32,
    len: u32,
    offset: u32,
    size: u32,
    batch: u32,
}

// Entries keyed by the replica (engine::annealing::Keyed::Replica), else by bond level.
const KEYED_REPLICA: u32 = 1u;
// Systems per thread of the count and scatter kernels.
const CHUNK: u32 = 16u;
// Threads of the scan kernel's workgroup, one per block.
const SCAN_THREADS: u32 = 256u;

// Systems per block (population slots).
override SLOTS: u32 = 64u;
// Chunks of all blocks.
override CHUNKS: u32 = 1u;
// Systems of all blocks.
override SYSTEMS: u32 = 1u;
