// Parallel tempering's shared layout, the twin of tempering.wgsl and
// src/engine/tempering/layout.rs: chain sets, groups of chain sets that share exchange masks, and
// the sections of the state.

constexpr unsigned TEMPERATURES = SPINFLIP_TEMPERATURES;
constexpr unsigned CHAIN_SETS = SPINFLIP_CHAIN_SETS;
constexpr unsigned GROUPS = SPINFLIP_GROUPS;
constexpr unsigned CHAIN_REPLICAS = SPINFLIP_CHAIN_REPLICAS;
constexpr unsigned EXCHANGE_SYSTEMS = 0u;
constexpr unsigned EXCHANGE_LANES = 1u;
constexpr unsigned EXCHANGE_WITHIN_WORDS = 2u;
constexpr unsigned EXCHANGE = SPINFLIP_EXCHANGE;
constexpr bool SAMPLE_LANES = SPINFLIP_SAMPLE_LANES != 0u;

constexpr unsigned SECTION_LABELS = 0u;
constexpr unsigned SECTION_PHASES = 1u;
constexpr unsigned SECTION_TRIPS = 2u;
constexpr unsigned SECTION_ACCEPTED = 3u;
constexpr unsigned AT_BOTTOM = 1u;
constexpr unsigned AT_TOP = 2u;

__device__ __forceinline__ unsigned state_index(unsigned section, unsigned c, unsigned k) {
    return (section * CHAIN_SETS + c) * TEMPERATURES + k;
}

// Chain sets per group: 32 lanes with EXCHANGE_LANES, else 1.
__device__ constexpr unsigned group_lanes() {
    return EXCHANGE == EXCHANGE_LANES ? 32u : 1u;
}

// The chain set in lane j of group q (SwapLayout::group_lane inverted).
__device__ __forceinline__ unsigned chain_set(unsigned q, unsigned j) {
    if (EXCHANGE != EXCHANGE_LANES) {
        return q;
    }
    constexpr unsigned r = CHAIN_REPLICAS;
    if (SAMPLE_LANES) {
        return ((q / r) * 32u + j) * r + q % r;
    }
    constexpr unsigned replica_words = r / 32u > 0u ? r / 32u : 1u;
    return (q / replica_words) * r + (q % replica_words) * 32u + j;
}
