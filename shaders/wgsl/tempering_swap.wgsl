// One parallel-tempering swap round: thread q decides the pairs (k, k + 1), k = parity mod 2, of
// the chain sets of group q from the counts measured into the scratch slot, swaps their labels,
// counts acceptances and round trips, writes the exchange masks [k][q], and clears the scratch
// records it read for the next round. CPU twin: src/engine/cpu/tempering_swap.rs.

#import dispatch
#import philox
#import tempering

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(3) var<storage, read_write> observations: array<u32>;
@group(1) @binding(0) var<storage, read> tables: array<u32>;
@group(1) @binding(1) var<storage, read_write> state: array<u32>;
@group(1) @binding(2) var<storage, read_write> masks: array<u32>;

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
        philox_counter(k, params.sweep, PURPOSE_SWAP, 0u, c),
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

// Zero the scratch records of group q's walkers, read by this thread alone.
fn clear_scratch(q: u32) {
    var systems = TEMPERATURES;
    if EXCHANGE == EXCHANGE_WITHIN_WORDS {
        systems = 1u;
    }
    for (var k = 0u; k < systems; k++) {
        let first = select(k * GROUPS + q, q, EXCHANGE == EXCHANGE_WITHIN_WORDS) * LANE_RECORDS;
        for (var lane = 0u; lane < LANE_RECORDS; lane++) {
            let i = (params.slot * SLOT_RECORDS + first + lane) * 4u;
            observations[i] = 0u;
            observations[i + 1u] = 0u;
            observations[i + 2u] = 0u;
            observations[i + 3u] = 0u;
        }
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let q = thread_in_system(workgroup, workgroups, local);
    if q >= GROUPS {
        return;
    }
    var within = 0u;
    for (var k = params.colour; k + 1u < TEMPERATURES; k += 2u) {
        var mask = 0u;
        for (var j = 0u; j < group_lanes(); j++) {
            let c = chain_set(q, j);
            if accept_swap(k, q, j, c) {
                swap_labels(c, k);
                mask |= 1u << j;
                within |= 1u << (k & 31u);
            }
        }
        if EXCHANGE == EXCHANGE_SYSTEMS {
            mask = select(0u, 0xffffffffu, mask != 0u);
        }
        masks[k * GROUPS + q] = mask;
    }
    if EXCHANGE == EXCHANGE_WITHIN_WORDS {
        masks[q] = within;
    }
    for (var j = 0u; j < group_lanes(); j++) {
        track_round_trips(chain_set(q, j));
    }
    clear_scratch(q);
}
