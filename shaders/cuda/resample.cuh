// Population annealing's resampling step on the device, shared by its three kernels, the twin
// of resample.wgsl (CPU reference src/engine/annealing.rs). Systems lie in blocks of SLOTS,
// one population per block. The count kernel gives each chunk of CHUNK systems of one block
// (SLOTS is a multiple of CHUNK) a thread block, the scan kernel gives each population one, the
// scatter kernel each system a thread.

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
// Systems per chunk: per thread block of the count kernel, whose scan places each replica's
// copies within its chunk; the scan kernel then places the chunks within their block.
constexpr unsigned CHUNK = 64u;
// Threads of the scan kernel's block, one block per population.
constexpr unsigned SCAN_THREADS = 256u;

// Systems per block (population slots).
constexpr unsigned SLOTS = SPINFLIP_SLOTS;
// Chunks of all blocks.
constexpr unsigned CHUNKS = SPINFLIP_CHUNKS;
// Systems of all blocks.
constexpr unsigned SYSTEMS = SPINFLIP_SYSTEMS;
