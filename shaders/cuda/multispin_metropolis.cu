// Checkerboard Metropolis on multispin words: 32 lanes (AMSC) or 32 sites (SMSC) per word, exact
// independent decisions; the twin of multispin_metropolis.wgsl. CPU twin:
// src/engine/cpu/multispin_metropolis.rs. The threads of word system g = first_system +
// blockIdx.z each update WORD_RUN words of one row of colour COLOUR, one after the other (a
// swap round's tally: TALLY_RUNS such runs); on the triangular lattice, of the rows of the
// pass's half (params.colour = COLOUR + 2 half, multispin_lattice.cuh).

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"
#include "multispin_decide.cuh"
// The paired update's module for colour 0 is compiled with the tempering constants, so that it
// can decide the swap round it follows (decide_unit below); the other modules are not.
#ifdef SPINFLIP_TEMPERATURES
#include "tempering_decide.cuh"
#endif

// Edwards-Anderson couplings to read (the ferromagnet has none).
constexpr bool DISORDERED = SPINFLIP_DISORDERED != 0u;

// The colour this module updates (params.colour of its dispatches).
constexpr unsigned COLOUR = SPINFLIP_COLOUR;

// The colour-1 update before a swap round at zero field (src/engine/cuda/multispin/): it also
// counts each lane's satisfied bonds after the update into the round's records, which the swap
// kernel reads, so no observables kernel runs between the sweep and the swap. Every bond joins a
// colour-0 and a colour-1 site, so the bonds of the colour-1 sites count each bond once, and
// colour 0 no longer changes in this sweep. TALLY_RUNS is the number of runs each of its threads
// updates (0: no tally), run_threads() apart; its blocks sum their threads' tallies before one
// warp per word system transposes them (add_block_tallies).
constexpr unsigned TALLY_RUNS = SPINFLIP_TALLY_RUNS;
constexpr bool TALLY = TALLY_RUNS != 0u;
static_assert(!TALLY || COLOUR == 1u, "the tally counts the bonds of the colour-1 sites");

// Words per thread: WORD_RUN words of one row (it divides the words of a row), row_words() /
// WORD_RUN apart so that each load of a warp stays coalesced, share the row's geometry and array
// pointers, and their loads differ by constant offsets (in the SASS of the 3D update, about 50
// instructions before a word's draws instead of about 140).
constexpr unsigned WORD_RUN = SPINFLIP_WORD_RUN;

// Runs of WORD_RUN words each thread of the paired update updates where it does not tally: one,
// or in the module whose colour-0 paired update decides the swap round it follows (decide_unit)
// as many as make two words (src/engine/cuda/multispin/), so that fewer blocks repeat each
// decision.
constexpr unsigned PAIR_RUNS = SPINFLIP_PAIR_RUNS;

// Runs of WORD_RUN words per pass; the runs each thread updates (one, TALLY_RUNS with the
// tally, PAIR_RUNS in the paired update), and the threads that update them.
__device__ constexpr unsigned runs() {
    return own_colour_words() / row_halves() / WORD_RUN;
}

__device__ constexpr unsigned thread_runs() {
    return TALLY ? TALLY_RUNS : PAIR_RUNS;
}

__device__ constexpr unsigned run_threads() {
    return (runs() + thread_runs() - 1u) / thread_runs();
}

// A thread's per-lane sum of satisfied bonds over its words (bit-sliced): at most 2 DIMS per word.
constexpr unsigned THREAD_TALLY_PLANES =
    bit_length(2u * DIMS * WORD_RUN * (TALLY ? TALLY_RUNS : 1u));
struct ThreadTally {
    unsigned planes[THREAD_TALLY_PLANES];
};

// The tally's blocks: TALLY_BLOCK threads, a power of two of whole warps, compiled in so that
// the depth of their reduction tree and the planes of its sums are constants.
constexpr unsigned TALLY_BLOCK = SPINFLIP_TALLY_BLOCK;
constexpr unsigned TALLY_WARPS = TALLY_BLOCK / 32u;
static_assert(TALLY_WARPS != 0u && (TALLY_WARPS & (TALLY_WARPS - 1u)) == 0u &&
                  TALLY_WARPS * 32u == TALLY_BLOCK,
              "the tally's blocks are a power of two of whole warps");

// A block's per-lane sums of its threads' tallies, one warp's lanes at a time: the sum of
// TALLY_WARPS tallies needs log2(TALLY_WARPS) more planes.
constexpr unsigned BLOCK_TALLY_PLANES = THREAD_TALLY_PLANES + bit_length(TALLY_WARPS) - 1u;
struct BlockTally {
    unsigned planes[BLOCK_TALLY_PLANES];
};

// Add the P_ADDEND planes `addend` to the P planes `sum`, per lane, by a ripple of full adders.
template <unsigned P, unsigned P_ADDEND>
__device__ __forceinline__ void add_planes(unsigned (&sum)[P], const unsigned (&addend)[P_ADDEND]) {
    static_assert(P_ADDEND <= P, "the sum is as wide as its addend");
    unsigned carry = 0u;
#pragma unroll
    for (unsigned k = 0u; k < P; k++) {
        const unsigned bit = k < P_ADDEND ? addend[k < P_ADDEND ? k : 0u] : 0u;
        const unsigned plane = sum[k];
        sum[k] = plane ^ bit ^ carry;
        carry = (plane & bit) | (carry & (plane ^ bit));
    }
}

// Per lane, the satisfied bonds of a site after its update: c (its unsatisfied bonds before) if
// it flipped, else site_bonds() - c; `flips` the lanes that flipped.
__device__ __forceinline__ BondCount satisfied_after(const BondCount& count, unsigned flips) {
    constexpr unsigned bonds = site_bonds();
    const unsigned c[3] = {count.c0, count.c1, count.c2};
    unsigned kept[3];
    unsigned borrow = 0u;
#pragma unroll
    for (unsigned k = 0u; k < 3u; k++) {
        // Bit k of site_bonds() - c, by a subtractor whose minuend is a constant.
        const unsigned minuend = ((bonds >> k) & 1u) != 0u ? ~0u : 0u;
        const unsigned difference = minuend ^ c[k] ^ borrow;
        borrow = (~minuend & (c[k] | borrow)) | (c[k] & borrow);
        kept[k] = (c[k] & flips) | (difference & ~flips);
    }
    return BondCount{kept[0], kept[1], kept[2]};
}

__device__ __forceinline__ void tally_add(ThreadTally& tally, const BondCount& count) {
    const unsigned bits[3] = {count.c0, count.c1, count.c2};
    add_planes(tally.planes, bits);
}

// Add the block's tallies of the N word systems `systems` to the swap round's records (slot
// params.slot, [slot][g][lane][up, satisfied] as in multispin_observables.cu). The warps' tallies
// are summed bit-sliced by a tree over the warps through shared memory, so that system i's sum
// ends in warp i alone (the warps relabelled warp ^ i), which transposes it and adds each lane's
// sum with one 64-bit atomic: the transposes cost far more than the adds, and each warp
// transposing its own tally paid them for every few words it updated. Level `half` of the tree
// stores the sums of (relabelled) warps half..2 half - 1 in slots half - 1..2 half - 2: every
// level has its own slots, so one barrier a level orders them. Every thread of the block takes
// part.
template <unsigned N>
__device__ __forceinline__ void add_block_tallies(const DispatchParams& params,
                                                  const ThreadTally (&tallies)[N],
                                                  const unsigned (&systems)[N],
                                                  unsigned long long* records) {
    static_assert(N <= TALLY_WARPS, "a warp to transpose each system's sum");
    constexpr unsigned SLOTS = TALLY_WARPS > 1u ? TALLY_WARPS - 1u : 1u;
    __shared__ unsigned stash[N][SLOTS][BLOCK_TALLY_PLANES][32];
    const unsigned warp = threadIdx.x / 32u;
    const unsigned lane = threadIdx.x & 31u;
    BlockTally sums[N] = {};
#pragma unroll
    for (unsigned i = 0u; i < N; i++) {
        add_planes(sums[i].planes, tallies[i].planes);
    }
#pragma unroll
    for (unsigned half = TALLY_WARPS / 2u; half != 0u; half /= 2u) {
#pragma unroll
        for (unsigned i = 0u; i < N; i++) {
            const unsigned w = warp ^ i;
            if (w >= half && w < 2u * half) {
#pragma unroll
                for (unsigned k = 0u; k < BLOCK_TALLY_PLANES; k++) {
                    stash[i][w - 1u][k][lane] = sums[i].planes[k];
                }
            }
        }
        __syncthreads();
#pragma unroll
        for (unsigned i = 0u; i < N; i++) {
            const unsigned w = warp ^ i;
            if (w < half) {
                unsigned addend[BLOCK_TALLY_PLANES];
#pragma unroll
                for (unsigned k = 0u; k < BLOCK_TALLY_PLANES; k++) {
                    addend[k] = stash[i][w + half - 1u][k][lane];
                }
                add_planes(sums[i].planes, addend);
            }
        }
    }
#pragma unroll
    for (unsigned i = 0u; i < N; i++) {
        if (warp == i) {
            const unsigned sum = warp_lane_sum(sums[i].planes);
            if (sum != 0u) {
                atomicAdd(records + observation_index(params.slot, params.systems, systems[i],
                                                      lane, 1u),
                          static_cast<unsigned long long>(sum));
            }
        }
    }
}

// The other colour's words of a word system as its update reads them: as stored, or (EXCHANGED)
// with a pending swap round's exchange applied on load, lanes `mask` taken from the partner
// system's words (the paired update below).
template <bool EXCHANGED>
struct OtherWords {
    const unsigned* words;
    const unsigned* partner;
    unsigned mask;

    __device__ __forceinline__ unsigned operator[](unsigned i) const {
        const unsigned word = words[i];
        return EXCHANGED ? word ^ ((word ^ partner[i]) & mask) : word;
    }
};

// The triangular lattice's unsatisfied bonds of word cw (spin `spin`) to its -(1, 1) and
// +(1, 1) neighbours, of its own colour `own`: in the rows below and above, where the colour
// sits at the offset 1 - p as the other colour does in this row, they are the -x neighbour of
// the row below and the +x one of the row above, in the rows of the other half, which this pass
// leaves as they are.
__device__ __forceinline__ uint2 unsatisfied_diagonal(const unsigned* own,
                                                      const unsigned* own_bonds, unsigned spin,
                                                      unsigned cw, const WordNeighbours& n) {
    // The adjacent word's offset within a row, the same in every row.
    const unsigned shift = n.adjacent - cw;
    const unsigned below = n.minus[0];
    const unsigned above = n.plus[0];
    uint2 bonds = make_uint2(0u, 0u);
    if (DISORDERED) {
        const unsigned* diagonal = own_bonds + 2u * direction_stride();
        bonds = make_uint2(x_neighbours(diagonal[below], diagonal[below + shift], n.p).x,
                           diagonal[cw]);
    }
    const unsigned minus = x_neighbours(own[below], own[below + shift], n.p).x;
    const unsigned plus = x_neighbours(own[above], own[above + shift], n.p).y;
    return make_uint2(spin ^ minus ^ bonds.x, spin ^ plus ^ bonds.y);
}

// The per-lane unsatisfied-bond counts of word cw (spin `spin`) of row `row` of the colour
// whose words are `own`.
template <typename Other>
__device__ __forceinline__ BondCount word_count(const unsigned* own, const Other& other,
                                                const unsigned* own_bonds,
                                                const unsigned* other_bonds, unsigned spin,
                                                unsigned colour, unsigned row, unsigned w) {
    const WordNeighbours n = word_neighbours(colour, row, w);
    const unsigned cw = row * row_words() + w;
    // Unsatisfied bonds per lane: -x, +x, then -y, +y (and -z, +z); on the honeycomb -x, +x and
    // the one y bond, up from colour 0 (its own bond word) and down from colour 1 (the bond word
    // of its -y neighbour).
    unsigned unsatisfied[counted_bonds()];
    const uint2 x = x_neighbours(other[cw], other[n.adjacent], n.p);
    uint2 x_bonds = make_uint2(0u, 0u);
    if (DISORDERED) {
        const unsigned minus = x_neighbours(other_bonds[cw], other_bonds[n.adjacent], n.p).x;
        x_bonds = make_uint2(minus, own_bonds[cw]);
    }
    unsatisfied[0] = spin ^ x.x ^ x_bonds.x;
    unsatisfied[1] = spin ^ x.y ^ x_bonds.y;
    if constexpr (HONEYCOMB == 1u) {
        const bool up = colour == 0u;
        const unsigned bond =
            DISORDERED ? (up ? own_bonds[direction_stride() + cw]
                             : other_bonds[direction_stride() + n.minus[0]])
                       : 0u;
        unsatisfied[2] = spin ^ other[up ? n.plus[0] : n.minus[0]] ^ bond;
    } else {
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
    }
    if (TRIANGULAR == 1u) {
        const uint2 diagonal = unsatisfied_diagonal(own, own_bonds, spin, cw, n);
        // Slots 4 and 5 of the triangular lattice's six (the modulo keeps the indices of this
        // branch, compiled out elsewhere, within the smaller arrays of the other lattices).
        unsatisfied[4u % counted_bonds()] = diagonal.x;
        unsatisfied[5u % counted_bonds()] = diagonal.y;
    }
    // The kagome lattice's sites keep four of the six bonds (2D: the row is y).
    const unsigned h = row & 1u;
    if (KAGOME == 1u) {
#pragma unroll
        for (unsigned k = 0u; k < counted_bonds(); k++) {
            unsatisfied[k] &= bond_lanes(k / 2u, n.p, h);
        }
    }
    // A bond across an open edge counts as satisfied and unsatisfied in turn, by the parity of
    // the lane's missing bonds so far (odd): a pair of missing bonds changes a flip's energy as
    // one satisfied and one unsatisfied bond do, and the odd lanes' one left over selects the
    // odd categories (BondCount::add_open in src/engine/cpu/bitslice.rs).
    unsigned odd = 0u;
    if (OPEN_AXES != 0u) {
        const uint2 coords = lattice_row_coords(row);
#pragma unroll
        for (unsigned k = 0u; k < counted_bonds(); k++) {
            const unsigned open = slot_open_lanes(k, colour, w, n.p, h, coords);
            unsatisfied[k] = (unsatisfied[k] & ~open) | (open & odd);
            odd ^= open;
        }
    }
    BondCount count = bond_count_of(unsatisfied);
    count.odd = odd;
    return count;
}

// The arrays the update of colour COLOUR of word system g reads and writes.
struct SystemArrays {
    unsigned* own;
    const unsigned* other;
    // Bonds: a site's minus-side bonds are stored with its neighbour (the other colour).
    const unsigned* own_bonds;
    const unsigned* other_bonds;
};

__device__ __forceinline__ SystemArrays system_arrays(unsigned* spins, const unsigned* couplings,
                                                      unsigned g) {
    // The colour is compiled in (a module per colour): the other colour's arrays then lie a
    // constant distance away and loads take it as an offset; the Philox counters and the x
    // parity fold too.
    constexpr long long apart =
        COLOUR == 0u ? colour_words() : -static_cast<long long>(colour_words());
    SystemArrays arrays;
    arrays.own = colour_array(spins, g, COLOUR);
    arrays.other = arrays.own + apart;
    arrays.own_bonds = nullptr;
    arrays.other_bonds = nullptr;
    if (DISORDERED) {
        arrays.own_bonds = colour_bonds(couplings, coupling_group(g), COLOUR);
        arrays.other_bonds = arrays.own_bonds + apart;
    }
    return arrays;
}

// The per-lane unsatisfied-bond counts of the run of words w + j stride (j < WORD_RUN, spins
// `spins`) of row `row`.
template <typename Other>
__device__ __forceinline__ void count_run(const SystemArrays& arrays, const Other& other,
                                          unsigned row, unsigned w,
                                          const unsigned (&spins)[WORD_RUN],
                                          BondCount (&counts)[WORD_RUN]) {
    constexpr unsigned stride = row_words() / WORD_RUN;
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        counts[j] = word_count(arrays.own, other, arrays.own_bonds, arrays.other_bonds, spins[j],
                               COLOUR, row, w + j * stride);
    }
}

// Write word cw (spins `spin`, counts `count`) of word system g with its lanes `flips` flipped,
// tallying its lanes' satisfied bonds after the update with TALLY.
__device__ __forceinline__ void write_word(const SystemArrays& arrays, unsigned cw, unsigned spin,
                                           const BondCount& count, unsigned flips,
                                           ThreadTally& tally) {
    arrays.own[cw] = spin ^ flips;
    if (TALLY) {
        tally_add(tally, satisfied_after(count, flips));
    }
}

// Decide word cw of word system g from its counts with its own randoms and write it.
__device__ __forceinline__ void decide_word(const DispatchParams& params,
                                            const SystemArrays& arrays,
                                            const unsigned* thresholds, unsigned g, unsigned cw,
                                            unsigned spin, const BondCount& count,
                                            ThreadTally& tally) {
    // The lattice's word index keys the randoms (a slab's words are offset).
    const unsigned flips =
        accepted_lanes(params, thresholds, spin, count, cw + WORD_OFFSET, COLOUR, g);
    write_word(arrays, cw, spin, count, flips, tally);
}

// Decide the run of words w + j stride of row `row` of word system g from their counts (the
// packed tail, or each word's own randoms) and write them.
__device__ __forceinline__ void decide_run(const DispatchParams& params,
                                           const SystemArrays& arrays,
                                           const unsigned* thresholds, unsigned g, unsigned row,
                                           unsigned w, const unsigned (&spins)[WORD_RUN],
                                           const BondCount (&counts)[WORD_RUN],
                                           ThreadTally& tally) {
    constexpr unsigned stride = row_words() / WORD_RUN;
    const unsigned first_cw = row * row_words() + w;
    if (PACK_ROTATIONS == 0u) {
#pragma unroll
        for (unsigned j = 0u; j < WORD_RUN; j++) {
            decide_word(params, arrays, thresholds, g, first_cw + j * stride, spins[j], counts[j],
                        tally);
        }
        return;
    }
    const unsigned* table = threshold_table(thresholds, g);
    const unsigned batch = global_index(g);
    PackedTail tail = {};
    PackedWord packed[WORD_RUN];
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        const unsigned cw = first_cw + j * stride;
        packed[j] =
            pack_word(tail, params, table, spins[j], counts[j], cw + WORD_OFFSET, COLOUR, batch);
    }
    const unsigned tail_accepted =
        finish_tail(tail, params, table, first_cw + WORD_OFFSET, COLOUR, batch);
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        const unsigned flips = packed_lanes(packed[j], tail_accepted);
        write_word(arrays, first_cw + j * stride, spins[j], counts[j], flips, tally);
    }
}

// The own-colour words of run `run` of pass `pass`: words w + j stride (j < WORD_RUN) of its
// row.
__device__ __forceinline__ void load_run(const unsigned* own, unsigned pass, unsigned run,
                                         unsigned (&spins)[WORD_RUN]) {
    constexpr unsigned stride = row_words() / WORD_RUN;
    const unsigned first = pass_row(pass, run / stride) * row_words() + run % stride;
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        spins[j] = own[first + j * stride];
    }
}

// Row and first word of run `run` of pass `pass`.
__device__ __forceinline__ uint2 run_start(unsigned pass, unsigned run) {
    constexpr unsigned stride = row_words() / WORD_RUN;
    return make_uint2(pass_row(pass, run / stride), run % stride);
}

// Update run `run` of word system g, its spins `spins` and the other colour read through
// `other`. With the packed tail the run's counts come first; with each word's own randoms each
// word is counted, decided and written before the next.
template <typename Other>
__device__ __forceinline__ void update_run(const DispatchParams& params,
                                           const SystemArrays& arrays, const Other& other,
                                           const unsigned* thresholds, unsigned g, unsigned run,
                                           const unsigned (&spins)[WORD_RUN],
                                           ThreadTally& tally) {
    constexpr unsigned stride = row_words() / WORD_RUN;
    const uint2 start = run_start(params.colour, run);
    if (PACK_ROTATIONS != 0u) {
        BondCount counts[WORD_RUN];
        count_run(arrays, other, start.x, start.y, spins, counts);
        decide_run(params, arrays, thresholds, g, start.x, start.y, spins, counts, tally);
        return;
    }
#pragma unroll
    for (unsigned j = 0u; j < WORD_RUN; j++) {
        const unsigned w = start.y + j * stride;
        const BondCount count = word_count(arrays.own, other, arrays.own_bonds,
                                           arrays.other_bonds, spins[j], COLOUR, start.x, w);
        decide_word(params, arrays, thresholds, g, start.x * row_words() + w, spins[j], count,
                    tally);
    }
}

// `records`: the observations, which the TALLY module adds the swap round's counts to (slot
// params.slot); the other modules never touch them.
extern "C" __global__ void multispin_metropolis(DispatchParams params, unsigned first_system,
                                                unsigned* spins, const unsigned* thresholds,
                                                const unsigned* couplings,
                                                unsigned long long* records) {
    // The kagome lattice's pass of its holes updates nothing.
    if (KAGOME == 1u && params.colour == 2u) {
        return;
    }
    // Launches update groups of word systems (see src/engine/cuda/streams.rs).
    const unsigned g = first_system + blockIdx.z;
    const unsigned thread = update_thread(params);
    const SystemArrays arrays = system_arrays(spins, couplings, g);
    const OtherWords<false> other = {arrays.other, nullptr, 0u};
    ThreadTally tally = {};
    unsigned run_spins[WORD_RUN];
    if (!TALLY) {
        if (thread < runs() && dispatched(params, thread)) {
            load_run(arrays.own, params.colour, thread, run_spins);
            update_run(params, arrays, other, thresholds, g, thread, run_spins, tally);
        }
        return;
    }
    // The tally's transposes and barriers need every thread of the block (a tally is never a
    // slab's partial dispatch).
#pragma unroll 1
    for (unsigned r = 0u; r < TALLY_RUNS; r++) {
        const unsigned run = thread + r * run_threads();
        if (thread < run_threads() && run < runs()) {
            load_run(arrays.own, params.colour, run, run_spins);
            update_run(params, arrays, other, thresholds, g, run, run_spins, tally);
        }
    }
    const ThreadTally tallies[1] = {tally};
    const unsigned systems[1] = {g};
    add_block_tallies(params, tallies, systems, records);
}

// No swap round for the paired update to decide or whose records to clear.
constexpr unsigned NO_ROUND = 0xffffffffu;

#ifdef SPINFLIP_TEMPERATURES
// The run's index of chain set c in a sample slice: this module's SLICE_* constants number its
// word systems, the CHAIN_* ones the chain sets (as the swap kernel's SLICE_* do).
__device__ __forceinline__ unsigned global_chain_set(unsigned c) {
    const SliceIndex chains = {SPINFLIP_CHAIN_SLICE_BLOCK, SPINFLIP_CHAIN_RUN_BLOCK,
                               SPINFLIP_CHAIN_SLICE_FIRST};
    return slice_global(chains, c);
}

// Zero the scratch records of temperature k of group q, lanes from `lane` on, 32 apart.
__device__ __forceinline__ void clear_walker_records(unsigned long long* scratch, unsigned k,
                                                     unsigned q, unsigned lane) {
    for (unsigned i = lane; i < LANE_RECORDS; i += 32u) {
        clear_record(scratch, q, k * LANE_RECORDS + i);
    }
}

// The exchange mask of pair unit (k, q) in the swap round after sweep `sweep` of parity k mod 2,
// from the counts in scratch slot `slot` of `records`: warp 0 of every block of the unit decides
// alike (each decision its own Philox block, as in tempering_swap), so that no swap kernel, and
// no wait for every stream, stands between the round's sweep and the next. Block 0 of the unit
// also does the round's bookkeeping: the labels and acceptances, the mask the colour-1 update
// reads, round trips where the unit holds an end of the ladder, and clearing the records of a
// temperature next to it in no pair, which no decision reads. An end in no pair keeps the
// walker that the round before tracked there, so tracking it again would change nothing: the
// engine lets the swap kernel decide the first round after it is given a tempering state.
__device__ __forceinline__ unsigned decide_unit(const DispatchParams& params, unsigned sweep,
                                                unsigned slot, unsigned k, unsigned q,
                                                const unsigned* tables, unsigned* state,
                                                unsigned* masks, unsigned long long* records) {
    __shared__ unsigned unit_mask;
    if (threadIdx.x < 32u) {
        const unsigned j = threadIdx.x;
        unsigned long long* scratch =
            records + 2ull * static_cast<unsigned long long>(slot) * SLOT_RECORDS;
        DispatchParams round = params;
        round.sweep = sweep;
        const bool decides = j < group_lanes();
        const unsigned c = chain_set(q, decides ? j : 0u);
        const bool accepted =
            decides && accept_swap(round, scratch, tables, k, q, j, global_chain_set(c));
        const unsigned mask = warp_or(accepted ? mask_bits(k, j) : 0u);
        if (j == 0u) {
            unit_mask = mask;
        }
        if (blockIdx.x == 0u && blockIdx.y == 0u) {
            if (accepted) {
                swap_labels(state, c, k);
            }
            if (j == 0u) {
                masks[mask_index(k, q)] = mask;
            }
            __syncwarp();
            if (decides && k == 0u) {
                track_bottom(state, c);
            }
            if (decides && k + 2u == TEMPERATURES) {
                track_top(state, c);
            }
            if (k == 1u) {
                clear_walker_records(scratch, 0u, q, j);
            }
            if (k + 3u == TEMPERATURES) {
                clear_walker_records(scratch, TEMPERATURES - 1u, q, j);
            }
        }
    }
    __syncthreads();
    return unit_mask;
}
#endif

// The exchange mask of the pair unit of word systems a and b, (k, q): decided here where the
// round is still to decide (colour 0, `round_slot` its records), else the swap kernel's or
// colour 0's.
__device__ __forceinline__ unsigned unit_mask(const DispatchParams& params, unsigned round_slot,
                                              unsigned round_sweep, unsigned a, unsigned k,
                                              unsigned q, const unsigned* tables,
                                              unsigned* state, unsigned* masks,
                                              unsigned long long* records) {
#ifdef SPINFLIP_TEMPERATURES
    if (COLOUR == 0u && round_slot != NO_ROUND) {
        return decide_unit(params, round_sweep, round_slot, k, q, tables, state, masks, records);
    }
#endif
    return masks[a];
}

// Colour 1 after a round that colour 0 decided: block 0 of the unit zeroes the records of word
// systems a and b in the round's scratch slot, which colour 0 read; the next round's tally goes
// to the other scratch slot.
__device__ __forceinline__ void clear_unit_records(const DispatchParams& params,
                                                   unsigned round_slot, unsigned a, unsigned b,
                                                   unsigned long long* records) {
    if (COLOUR != 1u || round_slot == NO_ROUND || blockIdx.x != 0u || blockIdx.y != 0u) {
        return;
    }
    for (unsigned i = threadIdx.x; i < 64u; i += blockDim.x) {
        const unsigned system = i < 32u ? a : b;
        const unsigned long long up =
            observation_index(round_slot, params.systems, system, i % 32u, 0u);
        records[up] = 0ull;
        records[up + 1u] = 0ull;
    }
}

// The update of this colour in the sweep after a swap round of parity `parity`, with the round's
// spin exchange applied on load instead of by tempering_exchange (src/engine/cuda/multispin/).
// Block z of pair unit first_unit + z updates both word systems a = k groups + q and
// b = a + groups of the round's pair (k, k + 1), k = parity + 2 (unit / groups),
// q = unit % groups, whose lanes masks[a] the round exchanged. Each thread reads its run's own
// words of both systems before writing either, exchanges them, then updates a's run and b's run
// with the randoms of their word systems, as tempering_exchange followed by the update would.
// Colour 0 also reads the other colour (not yet exchanged) through the exchange; colour 1 finds
// colour 0 exchanged. Measured against the alternatives (3D spin glass, L = 32, H100): the two
// updates in a loop that is not unrolled (fewer registers), or in the two halves of a block
// with a barrier between the reads and the writes (as many registers as the plain update), were
// both slower than this version, which lets the compiler interleave them. Counting both runs
// before writing either, from one set of couplings, then made a PT sweep 7% faster (packed
// randoms, L = 32, H200). Where the round is still to decide (`round_slot`, not NO_ROUND),
// colour 0 decides it (unit_mask) from its counts in that scratch slot, with the swap tables
// `tables` and the tempering `state`, and colour 1 clears those counts.
extern "C" __global__ void multispin_metropolis_pairs(
    DispatchParams params, unsigned first_unit, unsigned* spins, const unsigned* thresholds,
    const unsigned* couplings, unsigned long long* records, unsigned* masks, unsigned groups,
    unsigned parity, unsigned round_slot, unsigned round_sweep, const unsigned* tables,
    unsigned* state) {
    const unsigned unit = first_unit + blockIdx.z;
    // Units go temperature-major, as word systems do, so that the blocks running at once read
    // the thresholds of a few temperatures (likely what the constant cache needs): group-major
    // units (a group's temperatures together) took 0.71 ps/flip packed and 0.91 exact against
    // 0.61 and 0.69 (3D spin glass, L = 16, H200).
    const unsigned k = parity + 2u * (unit / groups);
    const unsigned q = unit % groups;
    const unsigned a = k * groups + q;
    const unsigned b = a + groups;
    const unsigned mask =
        unit_mask(params, round_slot, round_sweep, a, k, q, tables, state, masks, records);
    clear_unit_records(params, round_slot, a, b, records);
    const unsigned thread = update_thread(params);
    const SystemArrays arrays_a = system_arrays(spins, couplings, a);
    // The two temperatures of a sample share its couplings: b reads a's, so that the loads of
    // both updates are the same and the compiler makes them once.
    SystemArrays arrays_b = system_arrays(spins, couplings, b);
    arrays_b.own_bonds = arrays_a.own_bonds;
    arrays_b.other_bonds = arrays_a.other_bonds;
    constexpr bool exchanged = COLOUR == 0u;
    const OtherWords<exchanged> other_a = {arrays_a.other, arrays_b.other, mask};
    const OtherWords<exchanged> other_b = {arrays_b.other, arrays_a.other, mask};
    ThreadTally tally_a = {};
    ThreadTally tally_b = {};
#pragma unroll 1
    for (unsigned r = 0u; r < thread_runs(); r++) {
        const unsigned run = thread + r * run_threads();
        if (thread < run_threads() && run < runs()) {
            unsigned spins_a[WORD_RUN];
            unsigned spins_b[WORD_RUN];
            load_run(arrays_a.own, params.colour, run, spins_a);
            load_run(arrays_b.own, params.colour, run, spins_b);
#pragma unroll
            for (unsigned j = 0u; j < WORD_RUN; j++) {
                const unsigned differ = (spins_a[j] ^ spins_b[j]) & mask;
                spins_a[j] ^= differ;
                spins_b[j] ^= differ;
            }
            // Both runs are counted before either is written: a's writes could otherwise be
            // b's neighbours for all the compiler knows, and it would load them again.
            const uint2 start = run_start(params.colour, run);
            BondCount counts_a[WORD_RUN];
            BondCount counts_b[WORD_RUN];
            count_run(arrays_a, other_a, start.x, start.y, spins_a, counts_a);
            count_run(arrays_b, other_b, start.x, start.y, spins_b, counts_b);
            decide_run(params, arrays_a, thresholds, a, start.x, start.y, spins_a, counts_a,
                       tally_a);
            decide_run(params, arrays_b, thresholds, b, start.x, start.y, spins_b, counts_b,
                       tally_b);
        }
    }
    if (TALLY) {
        const ThreadTally tallies[2] = {tally_a, tally_b};
        const unsigned systems[2] = {a, b};
        add_block_tallies(params, tallies, systems, records);
    }
}
