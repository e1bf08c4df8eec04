// Population annealing's copies, the twin of copy_systems.wgsl (CPU twin:
// src/engine/cpu/copy_systems.rs): thread i of (word) system z writes word i of system z from
// the snapshot of the spins taken before the copy, so chains of copies and swaps of two systems
// need no ordering, and each thread writes only its own word. The simple engine's int spins
// move as their bits. Offsets are 64-bit: all systems together may exceed 2^32 words.

#include "dispatch.cuh"

// Words of one (word) system.
constexpr unsigned SYSTEM_WORDS = SPINFLIP_SYSTEM_WORDS;
// Copy bit by bit, each lane of a word from its own source lane (AMSC), else whole words.
constexpr bool LANE_COPIES = SPINFLIP_LANE_COPIES != 0u;

// `sources` holds one entry per destination: with LANE_COPIES, `[z][lane]` = source word
// system * 32 + source lane (AMSC); without, `[z]` = the source (word) system (simple engine,
// SMSC).
extern "C" __global__ void copy_systems(const unsigned* sources, const unsigned* snapshot,
                                        unsigned* spins) {
    const unsigned i = thread_in_system();
    const unsigned z = blockIdx.z;
    if (i >= SYSTEM_WORDS) {
        return;
    }
    const unsigned long long at = static_cast<unsigned long long>(z) * SYSTEM_WORDS + i;
    if (!LANE_COPIES) {
        spins[at] = snapshot[static_cast<unsigned long long>(sources[z]) * SYSTEM_WORDS + i];
        return;
    }
    // A resampled population lies in replica order, so with lanes holding replicas the sources
    // of neighbouring lanes mostly share a word system: each source word is read once per run
    // of lanes that share it, not once per lane (the branch is the same for every thread of
    // the word system).
    unsigned word = 0u;
    unsigned loaded = 0xffffffffu;  // no word system: there are fewer than 2^27
    unsigned source_word = 0u;
    for (unsigned lane = 0u; lane < 32u; lane++) {
        const unsigned source = sources[z * 32u + lane];
        const unsigned g = source >> 5u;
        if (g != loaded) {
            source_word = snapshot[static_cast<unsigned long long>(g) * SYSTEM_WORDS + i];
            loaded = g;
        }
        word |= ((source_word >> (source & 31u)) & 1u) << lane;
    }
    spins[at] = word;
}
