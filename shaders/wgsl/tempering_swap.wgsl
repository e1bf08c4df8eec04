// One parallel-tempering swap round from the counts measured into the scratch slot, the twin
// of tempering_swap.cu (CPU twin: src/engine/cpu/tempering_swap.rs). A workgroup of 32
// invocations decides each unit of the round: a pair (k, k + 1), k = parity mod 2, of group q,
// invocation j the pair of chain set j (whole word systems exchanged: invocation 0 alone); a
// temperature in no pair; or, with temperatures in the lanes of a word, group q's word,
// invocation i its pair k = parity + 2 i. It swaps the labels of the accepted pairs and counts
// them, writes the unit's mask [k][q], counts round trips where the unit holds an end of the
// ladder, and clears the unit's scratch records for the next round. Each decision has its own
// Philox block (its batch the run's index of the chain set, global_index(c)) and a round's
// pairs are disjoint, so the units go in parallel; the ends of the ladder touch different
// walkers. Where systems are small (SWAP_EXCHANGES) the unit then exchanges its pair's spins
// itself. A workgroup per group of chain sets, deciding the group's pairs in turn, left most of
// the device idle (3D spin glass, L = 16, 32 temperatures, 64 groups, H200, a round every sweep:
// 0.76 ps/flip against 0.72 a unit a workgroup).

#import dispatch
#import philox
#import slice
#import tempering

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<u32>;
@group(0) @binding(3) var<storage, read_write> observations: array<u32>;
@group(1) @binding(0) var<storage, read> tables: array<u32>;
@group(1) @binding(1) var<storage, read_write> state: array<u32>;
@group(1) @binding(2) var<storage, read_write> masks: array<u32>;

// Records per word system in `observations` (32 lanes for the multispin engine, 1 for the
// simple engine) and per slot; SMSC sums the 32 site lanes of its one system.
override LANE_RECORDS: u32 = 1u;
override SLOT_RECORDS: u32 = 1u;
override SUM_LANES: bool = false;
// Words of one (word) system.
override SYSTEM_WORDS: u32 = 1u;
// Whether each unit also exchanges the spins of its accepted pairs (small systems), so that no
// tempering_exchange follows; its workgroup is then UNIT_SIZE invocations, of which the first
// 32 decide.
override SWAP_EXCHANGES: bool = false;
override UNIT_SIZE: u32 = 32u;

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

// Round trips at the bottom, once the round's label there is final: the walker there ends a
// trip if it came from the top.
fn track_bottom(c: u32) {
    let bottom = state[state_index(SECTION_LABELS, c, 0u)];
    let bottom_phase = state_index(SECTION_PHASES, c, bottom);
    if state[bottom_phase] == AT_TOP {
        state[state_index(SECTION_TRIPS, c, bottom)] += 1u;
    }
    state[bottom_phase] = AT_BOTTOM;
}

// ... and at the top: the walker there is on its way back if it came from the bottom.
fn track_top(c: u32) {
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

// Whether temperature k is the lower of a pair in a round of parity `parity`.
fn pairs_up(k: u32, parity: u32) -> bool {
    return k >= parity && ((k - parity) & 1u) == 0u && k + 1u < TEMPERATURES;
}

// The accepted decisions' bits of the workgroup's unit.
var<workgroup> unit_mask: atomic<u32>;

// Words an invocation of `exchange_unit` loads before it stores any. Its stores go to the
// buffer it loads from, so a load after a store waits for it; eight words of each system in
// flight made a tempering run 0.94 -> 0.90 ps/flip (3D spin glass, L = 16, 32 temperatures, a
// round every sweep, H100). tempering_exchange, which takes systems of more words, loads one
// pair's words at a time too; loading eight pairs' first made it no faster (L = 32: 0.823
// ps/flip either way).
const EXCHANGE_BATCH: u32 = 8u;

// Exchange the spins of the unit's pair k of group q (of group q's word, within words) where
// `mask` says so, word i by invocation i mod UNIT_SIZE: tempering_exchange.wgsl for one unit.
fn exchange_unit(k: u32, q: u32, lane: u32, mask: u32) {
    let within = EXCHANGE == EXCHANGE_WITHIN_WORDS;
    let a = select((k * GROUPS + q) * SYSTEM_WORDS, q * SYSTEM_WORDS, within);
    let b = a + GROUPS * SYSTEM_WORDS;
    for (var first = lane; first < SYSTEM_WORDS; first += EXCHANGE_BATCH * UNIT_SIZE) {
        var low_words: array<u32, EXCHANGE_BATCH>;
        var high_words: array<u32, EXCHANGE_BATCH>;
        for (var n = 0u; n < EXCHANGE_BATCH; n++) {
            let i = first + n * UNIT_SIZE;
            if i < SYSTEM_WORDS {
                low_words[n] = spins[a + i];
                if !within {
                    high_words[n] = spins[b + i];
                }
            }
        }
        for (var n = 0u; n < EXCHANGE_BATCH; n++) {
            let i = first + n * UNIT_SIZE;
            if i < SYSTEM_WORDS {
                if within {
                    spins[a + i] = exchange_within(low_words[n], mask);
                } else {
                    let exchanged = exchange_between(low_words[n], high_words[n], mask);
                    spins[a + i] = exchanged.x;
                    spins[b + i] = exchanged.y;
                }
            }
        }
    }
}

// Workgroup (x, z) = (temperature, group q) is a unit; within words x is 0.
@compute @workgroup_size(UNIT_SIZE)
fn main(thread: Thread) {
    let within = EXCHANGE == EXCHANGE_WITHIN_WORDS;
    let lane = thread.local;
    let parity = params.colour;
    let q = thread.workgroup.z;
    let low = select(thread.workgroup.x, 0u, within);
    // The upper temperature of a pair belongs to the unit of its lower one.
    let unit = within || low == 0u || !pairs_up(low - 1u, parity);
    let paired = within || pairs_up(low, parity);
    let k = select(low, parity + 2u * lane, within);
    let j = select(lane, 0u, within);
    if lane == 0u {
        atomicStore(&unit_mask, 0u);
    }
    workgroupBarrier();
    if unit && paired && k + 1u < TEMPERATURES && j < group_lanes() {
        let c = chain_set(q, j);
        if accept_swap(k, q, j, c) {
            swap_labels(c, k);
            atomicOr(&unit_mask, mask_bits(k, j));
        }
    }
    // The labels at the ends are final once the unit holding them has decided.
    workgroupBarrier();
    storageBarrier();
    if !unit {
        return;
    }
    let mask = atomicLoad(&unit_mask);
    if lane == 0u && paired {
        masks[mask_index(k, q)] = mask;
    }
    if SWAP_EXCHANGES && paired && mask != 0u {
        exchange_unit(low, q, lane, mask);
    }
    let high = select(select(low, low + 1u, paired), TEMPERATURES - 1u, within);
    if lane < group_lanes() {
        if low == 0u {
            track_bottom(chain_set(q, lane));
        }
        if high == TEMPERATURES - 1u {
            track_top(chain_set(q, lane));
        }
    }
    let records_end = select((high + 1u) * LANE_RECORDS, group_records(), within);
    for (var i = low * LANE_RECORDS + lane; i < records_end; i += UNIT_SIZE) {
        clear_record(q, i);
    }
}
