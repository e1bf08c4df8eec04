// The spin exchanges of a swap round: thread i of group q (z) moves word i of the systems of
// group q between neighbour temperatures where the round's masks say so. The simple engine's
// i32 spins move as their bits. CPU twin: src/engine/cpu/tempering_exchange.rs.

#import dispatch
#import tempering

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<u32>;
@group(1) @binding(2) var<storage, read_write> masks: array<u32>;

// Words of one (word) system.
override SYSTEM_WORDS: u32 = 1u;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let i = thread_in_system(thread);
    let q = thread.workgroup.z;
    if i >= SYSTEM_WORDS {
        return;
    }
    if EXCHANGE == EXCHANGE_WITHIN_WORDS {
        let mask = masks[q];
        if mask != 0u {
            spins[q * SYSTEM_WORDS + i] = exchange_within(spins[q * SYSTEM_WORDS + i], mask);
        }
        return;
    }
    for (var k = params.colour; k + 1u < TEMPERATURES; k += 2u) {
        let mask = masks[k * GROUPS + q];
        if mask != 0u {
            let a = (k * GROUPS + q) * SYSTEM_WORDS + i;
            let b = a + GROUPS * SYSTEM_WORDS;
            let exchanged = exchange_between(spins[a], spins[b], mask);
            spins[a] = exchanged.x;
            spins[b] = exchanged.y;
        }
    }
}
