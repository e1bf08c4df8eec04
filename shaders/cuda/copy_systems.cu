// Population annealing's copies, the twin of copy_systems.wgsl (CPU twin:
// src/engine/cpu/copy_systems.rs): thread i of (word) system z writes words COPY_RUN i ..
// COPY_RUN (i + 1) of system z from the snapshot of the spins taken before the copy, so chains
// of copies and swaps of two systems need no ordering, and each thread writes only its own
// words. The simple engine's int spins move as their bits. Offsets are 64-bit: all systems
// together may exceed 2^32 words.

#include "dispatch.cuh"

// Words of one (word) system.
constexpr unsigned SYSTEM_WORDS = SPINFLIP_SYSTEM_WORDS;
// Copy bit by bit, each lane of a word from its own source lane (AMSC), else whole words.
constexpr bool LANE_COPIES = SPINFLIP_LANE_COPIES != 0u;

// `sources` holds one entry per destination: with LANE_COPIES, `[z][lane]` = source word
// system * 32 + source lane (AMSC); without, `[z]` = the source (word) system (simple engine,
// SMSC).
// Words of one (word) system each thread copies, COPY_RUN in src/engine/gpu/copy_systems.rs:
// the lane sources of a word system are the same for all its words, so a thread reads them
// once for its run of words.
constexpr unsigned COPY_RUN = 8u;

extern "C" __global__ void copy_systems(const unsigned* sources, const unsigned* snapshot,
                                        unsigned* spins) {
    const unsigned first = thread_in_system() * COPY_RUN;
    const unsigned z = blockIdx.z;
    if (first >= SYSTEM_WORDS) {
        return;
    }
    const unsigned run = min(COPY_RUN, SYSTEM_WORDS - first);
    const unsigned long long at = static_cast<unsigned long long>(z) * SYSTEM_WORDS + first;
    if (!LANE_COPIES) {
        const unsigned long long from =
            static_cast<unsigned long long>(sources[z]) * SYSTEM_WORDS + first;
        for (unsigned k = 0u; k < run; k++) {
            spins[at + k] = snapshot[from + k];
        }
        return;
    }
    // A resampled population lies in replica order, so with lanes holding replicas the sources
    // of neighbouring lanes mostly share a word system: its words are read once per run of
    // lanes that share it, not once per lane (the branch is the same for every thread of the
    // word system).
    unsigned words[COPY_RUN] = {};
    unsigned source_words[COPY_RUN] = {};
    unsigned loaded = 0xffffffffu;  // no word system: there are fewer than 2^27
    for (unsigned lane = 0u; lane < 32u; lane++) {
        const unsigned source = sources[z * 32u + lane];
        const unsigned g = source >> 5u;
        if (g != loaded) {
            const unsigned long long from = static_cast<unsigned long long>(g) * SYSTEM_WORDS + first;
#pragma unroll
            for (unsigned k = 0u; k < COPY_RUN; k++) {
                source_words[k] = k < run ? snapshot[from + k] : 0u;
            }
            loaded = g;
        }
#pragma unroll
        for (unsigned k = 0u; k < COPY_RUN; k++) {
            words[k] |= ((source_words[k] >> (source & 31u)) & 1u) << lane;
        }
    }
    for (unsigned k = 0u; k < run; k++) {
        spins[at + k] = words[k];
    }
}
