// Population annealing's copies: thread i of (word) system z (workgroup z) writes word i of
// system z from the snapshot of the spins taken before the copy, so chains of copies and swaps
// of two systems need no ordering, and each thread writes only its own word. The simple
// engine's i32 spins move as their bits. CPU twin: src/engine/cpu/copy_systems.rs.

#import dispatch

// One entry per destination: with LANE_COPIES, `[z][lane]` = source word system * 32 + source
// lane (AMSC); without, `[z]` = the source (word) system (simple engine, SMSC).
@group(0) @binding(0) var<storage, read> sources: array<u32>;
@group(0) @binding(1) var<storage, read> snapshot: array<u32>;
@group(0) @binding(2) var<storage, read_write> spins: array<u32>;

// Words of one (word) system.
override SYSTEM_WORDS: u32 = 1u;
// Copy bit by bit, each lane of a word from its own source lane (AMSC), else whole words.
override LANE_COPIES: bool = false;

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_in_system(workgroup, workgroups, local);
    let z = workgroup.z;
    if i >= SYSTEM_WORDS {
        return;
    }
    if !LANE_COPIES {
        spins[z * SYSTEM_WORDS + i] = snapshot[sources[z] * SYSTEM_WORDS + i];
        return;
    }
    // A resampled population lies in replica order, so with lanes holding replicas the sources
    // of neighbouring lanes mostly share a word system: each source word is read once per run
    // of lanes that share it, not once per lane (the branch is the same for every thread of
    // the word system).
    var word = 0u;
    var loaded = 0xffffffffu; // no word system: there are fewer than 2^27
    var source_word = 0u;
    for (var lane = 0u; lane < 32u; lane++) {
        let source = sources[z * 32u + lane];
        let g = source >> 5u;
        if g != loaded {
            source_word = snapshot[g * SYSTEM_WORDS + i];
            loaded = g;
        }
        word |= ((source_word >> (source & 31u)) & 1u) << lane;
    }
    spins[z * SYSTEM_WORDS + i] = word;
}
