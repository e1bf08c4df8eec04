// The hot start written straight into the engine's spins: the twin of hot_start.wgsl (CPU
// twin: src/engine/cpu/hot_start.rs, where threads, the lane table and the block arithmetic
// are described). Spin i of system b is up iff the top bit of word i mod 4 of Philox block
// (i / 4, sweep 0, INITIAL_SPINS, colour 0, batch b) is set, b the run's index of the system
// (a sample slice starts as its samples do in the whole run).
// - simple engine (multispin 0): thread i of system z (its grid layer) writes sites 4i .. 4i+3 of
//   system z as +1/-1, from batch slice_global(p.slice, z);
// - multispin engine: thread i of word system z writes word i of both colours, bit by bit from
//   the system of its lane (batches[z * 32 + lane], the run's index, 0xffffffff idle; SMSC:
//   every bit a site of system z), drawing each Philox block once for the consecutive bits that share it.
// The geometry comes as arguments rather than defines: the kernel runs once per engine.

#include "dispatch.cuh"
#include "philox.cuh"
#include "slice.cuh"

struct HotStart {
    unsigned seed_lo;
    unsigned seed_hi;
    unsigned system_threads;
    unsigned size;
    unsigned multispin;
    unsigned smsc;
    unsigned row_words;
    unsigned colour_words;
    // The lattice's row of row 0 (a slab's first plane's); colour_words counts a slab's halos,
    // system_threads its own words only.
    unsigned row_offset;
    SliceIndex slice;
    // The (word) system of the launch's first z: grids of more systems than the device's z
    // limit launch in pieces.
    unsigned first_layer;
};

constexpr unsigned IDLE = 0xffffffffu;

__device__ __forceinline__ uint4 hot_start_block(const HotStart& p, unsigned block,
                                                  unsigned batch) {
    const uint4 counter = philox_counter(block, 0u, PURPOSE_INITIAL_SPINS, 0u, batch);
    return philox4x32_10(counter, make_uint2(p.seed_lo, p.seed_hi));
}

extern "C" __global__ void hot_start(HotStart p, const unsigned* batches, unsigned* spins) {
    const unsigned i = thread_in_system();
    const unsigned z = p.first_layer + blockIdx.z;
    if (i >= p.system_threads) {
        return;
    }
    if (p.multispin == 0u) {
        const uint4 block = hot_start_block(p, i, slice_global(p.slice, z));
        // 64-bit offset: all systems together may hold more than 2^32 spins.
        unsigned* out = spins + 4ull * (static_cast<unsigned long long>(z) * p.system_threads + i);
        const unsigned words[4] = {block.x, block.y, block.z, block.w};
#pragma unroll
        for (unsigned j = 0u; j < 4u; j++) {
            out[j] = (words[j] >> 31u) == 1u ? 1u : 0xffffffffu;
        }
        return;
    }
    const unsigned row = i / p.row_words + p.row_offset;
    const unsigned w = i % p.row_words;
    const unsigned parity = (row % p.size + row / p.size) & 1u;
    unsigned cached_batch = IDLE;
    unsigned cached_block = 0u;
    unsigned cached[4] = {0u, 0u, 0u, 0u};
    unsigned words[2] = {0u, 0u};
    // Bits outer, colours inner: a bit's two sites (x and x + 1 of one lane) share a block.
    for (unsigned bit = 0u; bit < 32u; bit++) {
        const unsigned lane = p.smsc ? 0u : bit;
        const unsigned pair = p.smsc ? 2u * (32u * w + bit) : 2u * w;
        const unsigned batch = batches[z * 32u + lane];
        if (batch == IDLE) {
            continue;
        }
        for (unsigned colour = 0u; colour < 2u; colour++) {
            const unsigned x = pair + (parity ^ colour);
            // Block and word of site x of the row without forming row * size + x, which passes
            // 2^32 on the largest SMSC lattices.
            const unsigned rest = row * (p.size % 4u) + x;
            const unsigned block = row * (p.size / 4u) + rest / 4u;
            if (batch != cached_batch || block != cached_block) {
                cached_batch = batch;
                cached_block = block;
                const uint4 b = hot_start_block(p, block, batch);
                cached[0] = b.x;
                cached[1] = b.y;
                cached[2] = b.z;
                cached[3] = b.w;
            }
            words[colour] |= (cached[rest % 4u] >> 31u) << bit;
        }
    }
    spins[2ull * z * p.colour_words + i] = words[0];
    spins[(2ull * z + 1ull) * p.colour_words + i] = words[1];
}
