// Parallel tempering's shared layout (the twin of src/engine/tempering/layout.rs): chain sets,
// groups of chain sets that share exchange masks, and the sections of the state.

// Temperatures T, chain sets C = samples x replicas, mask groups Q, replicas R.
override TEMPERATURES: u32 = 2u;
override CHAIN_SETS: u32 = 1u;
override GROUPS: u32 = 1u;
override CHAIN_REPLICAS: u32 = 1u;
// How spins are exchanged: whole (word) systems, lanes between word systems, or neighbour lanes
// within each word (lanes holding temperatures).
const EXCHANGE_SYSTEMS: u32 = 0u;
const EXCHANGE_LANES: u32 = 1u;
const EXCHANGE_WITHIN_WORDS: u32 = 2u;
override EXCHANGE: u32 = 0u;
// With EXCHANGE_LANES: lanes hold samples (else replicas).
override SAMPLE_LANES: bool = false;

const SECTION_LABELS: u32 = 0u;
const SECTION_PHASES: u32 = 1u;
const SECTION_TRIPS: u32 = 2u;
const SECTION_ACCEPTED: u32 = 3u;
const AT_BOTTOM: u32 = 1u;
const AT_TOP: u32 = 2u;

fn state_index(section: u32, c: u32, k: u32) -> u32 {
    return (section * CHAIN_SETS + c) * TEMPERATURES + k;
}

// Chain sets per group: 32 lanes with EXCHANGE_LANES, else 1.
fn group_lanes() -> u32 {
    return select(1u, 32u, EXCHANGE == EXCHANGE_LANES);
}

// The chain set in lane j of group q (SwapLayout::group_lane inverted).
fn chain_set(q: u32, j: u32) -> u32 {
    if EXCHANGE != EXCHANGE_LANES {
        return q;
    }
    let r = CHAIN_REPLICAS;
    if SAMPLE_LANES {
        return ((q / r) * 32u + j) * r + q % r;
    }
    // At least 1, so the expression stays valid where lanes do not hold replicas.
    let replica_words = max(r / 32u, 1u);
    return (q / replica_words) * r + (q % replica_words) * 32u + j;
}

// Word w with neighbour lanes k and k + 1 exchanged wherever `mask` has bit k (lanes holding
// temperatures).
fn exchange_within(w: u32, mask: u32) -> u32 {
    let differ = (w ^ (w >> 1u)) & mask;
    return w ^ differ ^ (differ << 1u);
}

// Words a and b of two systems with the lanes of `mask` exchanged between them.
fn exchange_between(a: u32, b: u32, mask: u32) -> vec2<u32> {
    let differ = (a ^ b) & mask;
    return vec2<u32>(a ^ differ, b ^ differ);
}
