// Population annealing's resampling step on the device, shared by its three kernels, the twin
// of resample.wgsl (CPU reference src/engine/annealing.rs). Systems lie in blocks of SLOTS,
// one population per block; the count and scatter kernels give each thread a chunk of CHUNK
// systems of one block (SLOTS is a multiple of CHUNK), the scan kernel gives each block one
// thread block.

// What the step changes between calls: the seed, the step number (the Philox sweep), the first
// observation pair of the measurement the table was built from, and the table's keying.
struct ResampleParams {
    unsigned seed_lo;
    unsigned seed_hi;
    unsigned step;
    unsigned observation_base;
    unsigned keyed;
};

// engine::annealing::TableHead.
struct TableHead {
    unsigned lo;
    unsigned len;
    unsigned offset;
    unsigned size;
    unsigned batch;
};

// Entries keyed by the replica (engine::annealing::Keyed::Replica), else by bond level.
constexpr unsigned KEYED_REPLICA = 1u;
// Systems per thread of the count and scatter kernels.
constexpr unsigned CHUNK = 16u;
// Threads of the scan kernel's block, one block per population.
constexpr unsigned SCAN_THREADS = 256u;

// Systems per block (population slots).
constexpr unsigned SLOTS = SPINFLIP_SLOTS;
// Chunks of all blocks.
constexpr unsigned CHUNKS = SPINFLIP_CHUNKS;
// Systems of all blocks.
constexpr unsigned SYSTEMS = SPINFLIP_SYSTEMS;
