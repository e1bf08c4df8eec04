// Population annealing's copies: invocation i of (word) system z (invocation z R + i of the
// grid, R = ceil(SYSTEM_WORDS / COPY_RUN): one layer however many systems) writes words
// COPY_RUN i .. COPY_RUN (i + 1) of system z from the snapshot of the spins taken before the
// copy, so chains of copies and swaps of two systems need no ordering, and each invocation
// writes only its own words. The simple engine's i32 spins move as their bits. CPU twin:
// src/engine/cpu/copy_systems.rs.

#import dispatch

// One entry per destination: with LANE_COPIES, `[z][lane]` = source word system * 32 + source
// lane (AMSC); without, `[z]` = the source (word) system (simple engine, SMSC).
@group(0) @binding(0) var<storage, read> sources: array<u32>;
@group(0) @binding(1) var<storage, read> snapshot: array<u32>;
@group(0) @binding(2) var<storage, read_write> spins: array<u32>;

// Words of one (word) system.
override SYSTEM_WORDS: u32 = 1u;
// The (word) systems: the destinations.
override SYSTEMS: u32 = 1u;
// Copy bit by bit, each lane of a word from its own source lane (AMSC), else whole words.
override LANE_COPIES: bool = false;

// Words of one (word) system each invocation copies, COPY_RUN in src/engine/wgpu/copy_systems.rs:
// the lane sources of a word system are the same for all its words, so an invocation reads
// them once for its run of words.
const COPY_RUN: u32 = 8u;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let runs = (SYSTEM_WORDS + COPY_RUN - 1u) / COPY_RUN;
    let invocation = thread_in_system(thread);
    let z = invocation / runs;
    if z >= SYSTEMS {
        return;
    }
    let first = (invocation % runs) * COPY_RUN;
    let run = min(COPY_RUN, SYSTEM_WORDS - first);
    let at = z * SYSTEM_WORDS + first;
    if !LANE_COPIES {
        let source_at = sources[z] * SYSTEM_WORDS + first;
        for (var k = 0u; k < run; k++) {
            spins[at + k] = snapshot[source_at + k];
        }
        return;
    }
    // A resampled population lies in replica order, so with lanes holding replicas the sources
    // of neighbouring lanes mostly share a word system: its words are read once per run of
    // lanes that share it, not once per lane (the branch is the same for every invocation of
    // the word system).
    var words: array<u32, COPY_RUN>;
    var source_words: array<u32, COPY_RUN>;
    var loaded = 0xffffffffu; // no word system: there are fewer than 2^27
    for (var lane = 0u; lane < 32u; lane++) {
        let source = sources[z * 32u + lane];
        let g = source >> 5u;
        if g != loaded {
            for (var k = 0u; k < run; k++) {
                source_words[k] = snapshot[g * SYSTEM_WORDS + first + k];
            }
            loaded = g;
        }
        for (var k = 0u; k < COPY_RUN; k++) {
            words[k] |= ((source_words[k] >> (source & 31u)) & 1u) << lane;
        }
    }
    for (var k = 0u; k < run; k++) {
        spins[at + k] = words[k];
    }
}
