// The hot start written straight into the engine's spins, so the lattices of a run never exist
// on the host: spin i of system b is up iff the top bit of word i mod 4 of Philox block
// (i / 4, sweep 0, INITIAL_SPINS, colour 0, batch b) is set, b the run's index of the system
// (a sample slice starts as its samples do in the whole run). CPU twin:
// src/engine/cpu/hot_start.rs (threads, tables and the block arithmetic are described there).
// - simple engine (MULTISPIN false): thread i of system z (its grid layer) writes sites
//   4i .. 4i+3 of system z as +1/-1 (i32 bits), from batch global_index(z);
// - multispin engine: thread i of word system z writes word i of both colours, bit by bit from
//   the system of its lane (batches[z * 32 + lane], the run's index, 0xffffffff idle; SMSC:
//   every bit a site of system z), drawing each Philox block once for the consecutive bits that share it.

#import dispatch
#import philox
#import slice

@group(0) @binding(0) var<storage, read> batches: array<u32>;
@group(0) @binding(1) var<storage, read_write> spins: array<u32>;

override SYSTEM_THREADS: u32 = 1u;
override SIZE: u32 = 4u;
override MULTISPIN: bool = false;
override SMSC: bool = false;
override ROW_WORDS: u32 = 1u;
override COLOUR_WORDS: u32 = 1u;
// The lattice's row of row 0 (a slab's first plane's); COLOUR_WORDS counts a slab's halos,
// SYSTEM_THREADS its own words only.
override ROW_OFFSET: u32 = 0u;
override SEED_LO: u32 = 0u;
override SEED_HI: u32 = 0u;
// The (word) system of the dispatch's first z: grids of more systems than the adapter's z limit
// run in pieces.
override FIRST_LAYER: u32 = 0u;

const IDLE: u32 = 0xffffffffu;

fn hot_start_block(block: u32, batch: u32) -> vec4<u32> {
    let counter = philox_counter(block, 0u, PURPOSE_INITIAL_SPINS, 0u, batch);
    return philox4x32_10(counter, vec2<u32>(SEED_LO, SEED_HI));
}

// Block and word of site x of row `row` without forming row * SIZE + x, which passes 2^32 on
// the largest SMSC lattices.
fn block_of(row: u32, x: u32) -> vec2<u32> {
    let rest = row * (SIZE % 4u) + x;
    return vec2<u32>(row * (SIZE / 4u) + rest / 4u, rest % 4u);
}

fn spin_of(word: u32) -> u32 {
    return select(0xffffffffu, 1u, (word >> 31u) == 1u);
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let i = thread_in_system(thread);
    let z = FIRST_LAYER + thread.workgroup.z;
    if i >= SYSTEM_THREADS {
        return;
    }
    if !MULTISPIN {
        let words = hot_start_block(i, global_index(z));
        let first = z * SYSTEM_THREADS * 4u + 4u * i;
        spins[first] = spin_of(words.x);
        spins[first + 1u] = spin_of(words.y);
        spins[first + 2u] = spin_of(words.z);
        spins[first + 3u] = spin_of(words.w);
        return;
    }
    let row = i / ROW_WORDS + ROW_OFFSET;
    let w = i % ROW_WORDS;
    let parity = (row % SIZE + row / SIZE) & 1u;
    var cached_batch = IDLE;
    var cached_block = 0u;
    var cached = vec4<u32>(0u);
    var words = array<u32, 2>(0u, 0u);
    // Bits outer, colours inner: a bit's two sites (x and x + 1 of one lane) share a block.
    for (var bit = 0u; bit < 32u; bit++) {
        var lane = bit;
        var pair = 2u * w;
        if SMSC {
            lane = 0u;
            pair = 2u * (32u * w + bit);
        }
        let batch = batches[z * 32u + lane];
        if batch == IDLE {
            continue;
        }
        for (var colour = 0u; colour < 2u; colour++) {
            let at = block_of(row, pair + (parity ^ colour));
            if batch != cached_batch || at.x != cached_block {
                cached_batch = batch;
                cached_block = at.x;
                cached = hot_start_block(at.x, batch);
            }
            var random = cached.x;
            switch at.y {
                case 1u: { random = cached.y; }
                case 2u: { random = cached.z; }
                case 3u: { random = cached.w; }
                default: {}
            }
            words[colour] |= (random >> 31u) << bit;
        }
    }
    spins[2u * z * COLOUR_WORDS + i] = words[0];
    spins[(2u * z + 1u) * COLOUR_WORDS + i] = words[1];
}
