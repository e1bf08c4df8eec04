// One parallel-tempering swap round: workgroup q (z) decides the pairs (k, k + 1), k = parity
// mod 2, of the chain sets of group q from the counts measured into the scratch slot, one
// invocation per pair and chain set (each decision has its own Philox block and the pairs of a
// round are disjoint, so they go in parallel; its batch is the run's index of the chain set,
// global_index(c)); it swaps their labels, counts acceptances, sets
// the exchange masks [k][q], and after a barrier counts round trips and clears the scratch
// records it read for the next round. CPU twin: src/engine/cpu/tempering_swap.rs.

#import dispatch
#import philox
#import slice
#import tempering

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(3) var<storage, read_write> observations: array<u32>;
@group(1) @binding(0) var<storage, read> tables: array<u32>;
@group(1) @binding(1) var<storage, read_write> state: array<u32>;
@group(1) @binding(2) var<storage, read_write> masks: array<atomic<u32>>;

// Records per word system in `observations` (32 lanes for the multispin engine, 1 for the
// simple engine) and per slot; SMSC sums the 32 site lanes of its one system.
override LANE_RECORDS: u32 = 1u;
override SLOT_RECORDS: u32 = 1u;
override SUM_LANES: bool = false;

// A 64-bit count as (lo, hi).
fn record_count(record: u32, half: u32) -> vec2<u32> {
    let i = (params.slot * SLOT_RECORDS + record) * 4u + 2u * half;
    return vec2<u32>(observations[i], observations[i + 1u]);
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn less64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

// The word system and lane of the walker at temperature k of group q, lane j.
fn walker_record(k: u32, q: u32, j: u32) -> u32 {
    if EXCHANGE == EXCHANGE_WITHIN_WORDS {
        return q * LANE_RECORDS + k;
    }
    return (k * GROUPS + q) * LANE_RECORDS + j;
}

// [up, satisfied] of a walker (half 0 up, 1 satisfied).
fn walker_count(k: u32, q: u32, j: u32, half: u32) -> vec2<u32> {
    if SUM_LANES {
        let first = (k * GROUPS + q) * LANE_RECORDS;
        var sum = vec2<u32>(0u, 0u);
        for (var lane = 0u; lane < LANE_RECORDS; lane++) {
            sum = add64(sum, record_count(first + lane, half));
        }
        return sum;
    }
    return record_count(walker_record(k, q, j), half);
}

// One factor of the filter (model::tempering::part_accepts).
fn part_accepts(positive: bool, offset: u32, len: u32, lower: vec2<u32>, upper: vec2<u32>, u: u32) -> bool {
    let uphill = select(less64(upper, lower), less64(lower, upper), positive);
    if len == 0u || !uphill {
        return true;
    }
    var a = lower;
    var b = upper;
    if less64(a, b) {
        a = upper;
        b = lower;
    }
    let n = vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
    var t = 0u;
    if n.y == 0u && n.x < len {
        t = tables[offset + n.x];
    }
    return u <= t;
}

// The decision of pair k of chain set c in group q, lane j (model::tempering::accept_swap).
fn accept_swap(k: u32, q: u32, j: u32, c: u32) -> bool {
    let header = k * 5u;
    let signs = tables[header];
    let u = philox4x32_10(
        philox_counter(k, params.sweep, PURPOSE_SWAP, 0u, global_index(c)),
        vec2<u32>(params.seed_lo, params.seed_hi),
    );
    let bonds = part_accepts(
        (signs & 1u) != 0u, tables[header + 1u], tables[header + 2u],
        walker_count(k, q, j, 1u), walker_count(k + 1u, q, j, 1u), u.x,
    );
    let field = part_accepts(
        (signs & 2u) != 0u, tables[header + 3u], tables[header + 4u],
        walker_count(k, q, j, 0u), walker_count(k + 1u, q, j, 0u), u.y,
    );
    return bonds && field;
}

fn swap_labels(c: u32, k: u32) {
    let a = state_index(SECTION_LABELS, c, k);
    let walker = state[a];
    state[a] = state[a + 1u];
    state[a + 1u] = walker;
    state[state_index(SECTION_ACCEPTED, c, k)] += 1u;
}

fn track_round_trips(c: u32) {
    let bottom = state[state_index(SECTION_LABELS, c, 0u)];
    let bottom_phase = state_index(SECTION_PHASES, c, bottom);
    if state[bottom_phase] == AT_TOP {
        state[state_index(SECTION_TRIPS, c, bottom)] += 1u;
    }
    state[bottom_phase] = AT_BOTTOM;
    let top = state[state_index(SECTION_LABELS, c, TEMPERATURES - 1u)];
    let top_phase = state_index(SECTION_PHASES, c, top);
    if state[top_phase] == AT_BOTTOM {
        state[top_phase] = AT_TOP;
    }
}

// Records of the walkers of one group: every temperature's, or one word's with the temperatures
// in its lanes.
fn group_records() -> u32 {
    return select(TEMPERATURES, 1u, EXCHANGE == EXCHANGE_WITHIN_WORDS) * LANE_RECORDS;
}

// Zero scratch record i of group q's walkers.
fn clear_record(q: u32, i: u32) {
    let k = i / LANE_RECORDS;
    let lane = i % LANE_RECORDS;
    let first = select(k * GROUPS + q, q, EXCHANGE == EXCHANGE_WITHIN_WORDS) * LANE_RECORDS;
    let at = (params.slot * SLOT_RECORDS + first + lane) * 4u;
    observations[at] = 0u;
    observations[at + 1u] = 0u;
    observations[at + 2u] = 0u;
    observations[at + 3u] = 0u;
}

// The mask word of pair k of group q, and the bits an accepted decision in lane j sets there.
fn mask_index(k: u32, q: u32) -> u32 {
    return select(k * GROUPS + q, q, EXCHANGE == EXCHANGE_WITHIN_WORDS);
}

fn mask_bits(k: u32, j: u32) -> u32 {
    if EXCHANGE == EXCHANGE_SYSTEMS {
        return 0xffffffffu;
    }
    return select(1u << j, 1u << (k & 31u), EXCHANGE == EXCHANGE_WITHIN_WORDS);
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let q = thread.workgroup.z;
    // Pairs (k, k + 1) of this round: k = parity + 2 p, k + 1 < TEMPERATURES.
    let parity = params.colour;
    let pairs = (TEMPERATURES - parity) / 2u;
    for (var p = thread.local; p < pairs; p += WG_SIZE) {
        atomicStore(&masks[mask_index(parity + 2u * p, q)], 0u);
    }
    storageBarrier();
    for (var i = thread.local; i < pairs * group_lanes(); i += WG_SIZE) {
        let j = i % group_lanes();
        let k = parity + 2u * (i / group_lanes());
        let c = chain_set(q, j);
        if accept_swap(k, q, j, c) {
            swap_labels(c, k);
            atomicOr(&masks[mask_index(k, q)], mask_bits(k, j));
        }
    }
    storageBarrier();
    for (var j = thread.local; j < group_lanes(); j += WG_SIZE) {
        track_round_trips(chain_set(q, j));
    }
    for (var i = thread.local; i < group_records(); i += WG_SIZE) {
        clear_record(q, i);
    }
}
