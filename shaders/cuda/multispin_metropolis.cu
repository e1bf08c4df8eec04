// Checkerboard Metropolis on multispin words: 32 lanes (AMSC) or 32 sites (SMSC) per word, exact
// independent decisions; the twin of multispin_metropolis.wgsl. CPU twin:
// src/engine/cpu/multispin_metropolis.rs. The threads of word system g = first_system +
// blockIdx.z each update WORD_RUN words of one row of colour COLOUR, one after the other (a
// swap round's tally: TALLY_RUNS such runs).

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"
#include "multispin_decide.cuh"

// Edwards-Anderson couplings to read (the ferromagnet has none).
constexpr bool DISORDERED = SPINFLIP_DISORDERED != 0u;

// The colour this module updates (params.colour of its dispatches).
constexpr unsigned COLOUR = SPINFLIP_COLOUR;

// The colour-1 update before a swap round at zero field (src/engine/cuda/multispin.rs): it also
// counts each lane's satisfied bonds after the update into the round's records, which the swap
// kernel reads, so no observables kernel runs between the sweep and the swap. Every bond joins a
// colour-0 and a colour-1 site, so the bonds of the colour-1 sites count each bond once, and
// colour 0 no longer changes in this sweep. TALLY_RUNS is the number of runs each of its threads
// updates (0: no tally), run_threads() apart, over which its transposes are shared.
constexpr unsigned TALLY_RUNS = SPINFLIP_TALLY_RUNS;
constexpr bool TALLY = TALLY_RUNS != 0u;
static_assert(!TALLY || COLOUR == 1u, "the tally counts the bonds of the colour-1 sites");

// Words per thread: WORD_RUN words of one row (it divides the words of a row), row_words() /
// WORD_RUN apart so that each load of a warp stays coalesced, share the row's geometry and array
// pointers, and their loads differ by constant offsets (in the SASS of the 3D update, about 50
// instructions before a word's draws instead of about 140).
constexpr unsigned WORD_RUN = SPINFLIP_WORD_RUN;

// Runs of WORD_RUN words per colour, and the threads that update them (one run each, or
// TALLY_RUNS runs each with the tally).
__device__ constexpr unsigned runs() {
    return own_colour_words() / WORD_RUN;
}

__device__ constexpr unsigned run_threads() {
    return TALLY ? (runs() + TALLY_RUNS - 1u) / TALLY_RUNS : runs();
}

// A thread's per-lane sum of satisfied bonds over its words (bit-sliced): at most 2 DIMS per word.
constexpr unsigned THREAD_TALLY_PLANES =
    bit_length(2u * DIMS * WORD_RUN * (TALLY ? TALLY_RUNS : 1u));
struct ThreadTally {
    unsigned planes[THREAD_TALLY_PLANES];
};

// Per lane, the satisfied bonds of a site after its update: c (its unsatisfied bonds before) if
// it flipped, else 2 DIMS - c; `flips` the lanes that flipped.
__device__ __forceinline__ BondCount satisfied_after(const BondCount& count, unsigned flips) {
    constexpr unsigned bonds = coordination();
    const unsigned c[3] = {count.c0, count.c1, count.c2};
    unsigned kept[3];
    unsigned borrow = 0u;
#pragma unroll
    for (unsigned k = 0u; k < 3u; k++) {
        // Bit k of 2 DIMS - c, by a subtractor whose minuend is a constant.
        const unsigned minuend = ((bonds >> k) & 1u) != 0u ? ~0u : 0u;
        const unsigned difference = minuend ^ c[k] ^ borrow;
        borrow = (~minuend & (c[k] | borrow)) | (c[k] & borrow);
        kept[k] = (c[k] & flips) | (difference & ~flips);
    }
    return BondCount{kept[0], kept[1], kept[2]};
}

__device__ __forceinline__ void tally_add(ThreadTally& tally, const BondCount& count) {
    const unsigned bits[3] = {count.c0, count.c1, count.c2};
    unsigned carry = 0u;
#pragma unroll
    for (unsigned k = 0u; k < THREAD_TALLY_PLANES; k++) {
        const unsigned bit = k < 3u ? bits[k] : 0u;
        const unsigned plane = tally.planes[k];
        tally.planes[k] = plane ^ bit ^ carry;
        carry = (plane & bit) | (carry & (plane ^ bit));
    }
}

// Lane t's sum of the warp's tallies, in thread t: the popcounts of its columns of the planes
// (each plane transposed across the warp, thread t's plane as row t).
__device__ __forceinline__ unsigned warp_lane_sum(const ThreadTally& tally) {
    const unsigned lane = threadIdx.x & 31u;
    unsigned sum = 0u;
#pragma unroll
    for (unsigned k = 0u; k < THREAD_TALLY_PLANES; k++) {
        sum += static_cast<unsigned>(__popc(transpose_warp(tally.planes[k], lane))) << k;
    }
    return sum;
}

// Add the block's tallies to the swap round's records of word system g (slot params.slot,
// [slot][g][lane][up, satisfied] as in multispin_observables.cu): each warp's lane sums into
// shared memory, then one 64-bit atomic per lane and block. Every thread of the block takes part.
__device__ __forceinline__ void add_block_tally(const DispatchParams& params,
                                                const ThreadTally& tally, unsigned g,
                                                unsigned long long* records) {
    __shared__ unsigned lane_sums[32];
    if (threadIdx.x < 32u) {
        lane_sums[threadIdx.x] = 0u;
    }
    __syncthreads();
    atomicAdd(&lane_sums[threadIdx.x & 31u], warp_lane_sum(tally));
    __syncthreads();
    if (threadIdx.x < 32u && lane_sums[threadIdx.x] != 0u) {
        const unsigned long long word =
            static_cast<unsigned long long>(params.slot) * params.systems + g;
        atomicAdd(records + 2ull * (word * 32u + threadIdx.x) + 1ull,
                  static_cast<unsigned long long>(lane_sums[threadIdx.x]));
    }
}

// The per-lane unsatisfied-bond counts of word cw (spin `spin`) of row `row`.
__device__ __forceinline__ BondCount word_count(const unsigned* other, const unsigned* own_bonds,
                                                const unsigned* other_bonds, unsigned spin,
                                                unsigned colour, unsigned row, unsigned w) {
    const WordNeighbours n = word_neighbours(colour, row, w);
    const unsigned cw = row * row_words() + w;
    // Unsatisfied bonds per lane: -x, +x, then -y, +y (and -z, +z).
    unsigned unsatisfied[2u * DIMS];
    const uint2 x = x_neighbours(other[cw], other[n.adjacent], n.p);
    uint2 x_bonds = make_uint2(0u, 0u);
    if (DISORDERED) {
        const unsigned minus = x_neighbours(other_bonds[cw], other_bonds[n.adjacent], n.p).x;
        x_bonds = make_uint2(minus, own_bonds[cw]);
    }
    unsatisfied[0] = spin ^ x.x ^ x_bonds.x;
    unsatisfied[1] = spin ^ x.y ^ x_bonds.y;
#pragma unroll
    for (unsigned d = 1u; d < DIMS; d++) {
        uint2 bonds = make_uint2(0u, 0u);
        if (DISORDERED) {
            bonds = make_uint2(other_bonds[d * direction_stride() + n.minus[d - 1u]],
                               own_bonds[d * direction_stride() + cw]);
        }
        unsatisfied[2u * d] = spin ^ other[n.minus[d - 1u]] ^ bonds.x;
        unsatisfied[2u * d + 1u] = spin ^ other[n.plus[d - 1u]] ^ bonds.y;
    }
    return bond_count_of(unsatisfied);
}

// Update word w of row `row` (colour `colour` of word system g), tallying its lanes' satisfied
// bonds after the update with TALLY.
__device__ __forceinline__ void update_word(const DispatchParams& params, unsigned* own,
                                            const unsigned* other, const unsigned* own_bonds,
                                            const unsigned* other_bonds,
                                            const unsigned* thresholds, unsigned g,
                                            unsigned colour, unsigned row, unsigned w,
                                            ThreadTally& tally) {
    const unsigned cw = row * row_words() + w;
    const unsigned spin = own[cw];
    const BondCount count = word_count(other, own_bonds, other_bonds, spin, colour, row, w);
    // The lattice's word index keys the randoms (a slab's words are offset).
    const unsigned flips =
        accepted_lanes(params, thresholds, spin, count, cw + WORD_OFFSET, colour, g);
    own[cw] = spin ^ flips;
    if (TALLY) {
        tally_add(tally, satisfied_after(count, flips));
    }
}

// Update the run of words w + j stride (j < WORD_RUN) of row `row` with the packed tail,
// tallying as update_word.
__device__ __forceinline__ void update_packed_run(const DispatchParams& params, unsigned* own,
                                                  const unsigned* other,
                                                  const unsigned* own_bonds,
                                                  const unsigned* other_bonds,
                                                  const unsigned* thresholds, unsigned g,
                                                  unsigned colour, unsigned row, unsigned w,
                                                  ThreadTally& tally) {
    constexpr unsigned stride = row_words() / WORD_RUN;
    const unsigned* table = threshold_table(thresholds, g);
    const unsigned batch = global_index(g);
    const unsigned first_cw = row * row_words() + w;
    PackedTail tail = {};
    unsigned spins[WORD_RUN];
    PackedWord packed[WORD_RUN];
    BondCount counts[WORD_RUN];
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        const unsigned cw = first_cw + j * stride;
        spins[j] = own[cw];
        counts[j] =
            word_count(other, own_bonds, other_bonds, spins[j], colour, row, w + j * stride);
        packed[j] =
            pack_word(tail, params, table, spins[j], counts[j], cw + WORD_OFFSET, colour, batch);
    }
    const unsigned tail_accepted =
        finish_tail(tail, params, table, first_cw + WORD_OFFSET, colour, batch);
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        const unsigned flips = packed_lanes(packed[j], tail_accepted);
        own[first_cw + j * stride] = spins[j] ^ flips;
        if (TALLY) {
            tally_add(tally, satisfied_after(counts[j], flips));
        }
    }
}

// Update the words of update thread (row, w) of word system g.
__device__ __forceinline__ void update_thread_words(const DispatchParams& params, unsigned* spins,
                                                    const unsigned* thresholds,
                                                    const unsigned* couplings, unsigned g,
                                                    unsigned row, unsigned w, ThreadTally& tally) {
    constexpr unsigned stride = row_words() / WORD_RUN;
    // The colour is compiled in (a module per colour): the other colour's arrays then lie a
    // constant distance away and loads take it as an offset; the Philox counters and the x
    // parity fold too.
    constexpr unsigned colour = COLOUR;
    constexpr long long apart =
        colour == 0u ? colour_words() : -static_cast<long long>(colour_words());
    unsigned* own = colour_array(spins, g, colour);
    const unsigned* other = own + apart;
    // Bonds: a site's minus-side bonds are stored with its neighbour (the other colour).
    const unsigned* own_bonds = nullptr;
    const unsigned* other_bonds = nullptr;
    if (DISORDERED) {
        own_bonds = colour_bonds(couplings, coupling_group(g), colour);
        other_bonds = own_bonds + apart;
    }
    if (PACK_ROTATIONS != 0u) {
        update_packed_run(params, own, other, own_bonds, other_bonds, thresholds, g, colour, row,
                          w, tally);
        return;
    }
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        update_word(params, own, other, own_bonds, other_bonds, thresholds, g, colour, row,
                    w + j * stride, tally);
    }
}

// `records`: the observations, which the TALLY module adds the swap round's counts to (slot
// params.slot); the other modules never touch them.
extern "C" __global__ void multispin_metropolis(DispatchParams params, unsigned first_system,
                                                unsigned* spins, const unsigned* thresholds,
                                                const unsigned* couplings,
                                                unsigned long long* records) {
    // Launches update groups of word systems (see src/engine/cuda/streams.rs).
    const unsigned g = first_system + blockIdx.z;
    constexpr unsigned stride = row_words() / WORD_RUN;
    const unsigned thread = update_thread(params);
    if (!TALLY) {
        if (thread < runs() && dispatched(params, thread)) {
            ThreadTally unused = {};
            update_thread_words(params, spins, thresholds, couplings, g, thread / stride,
                                thread % stride, unused);
        }
        return;
    }
    // The tally's transposes and barriers need every thread of the block (a tally is never a
    // slab's partial dispatch).
    ThreadTally tally = {};
#pragma unroll 1
    for (unsigned r = 0u; r < TALLY_RUNS; r++) {
        const unsigned run = thread + r * run_threads();
        if (thread < run_threads() && run < runs()) {
            update_thread_words(params, spins, thresholds, couplings, g, run / stride,
                                run % stride, tally);
        }
    }
    add_block_tally(params, tally, g, records);
}
