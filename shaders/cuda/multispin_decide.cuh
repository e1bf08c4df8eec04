// Exact per-lane Metropolis decisions by bit-sliced threshold comparison (GUIDE.md section 4);
// the twin of multispin_decide.wgsl and accepted_lanes in src/engine/cpu/multispin_metropolis.rs.
// A lane's uniform U has as bit 31 - i its bit of random word i; it flips iff U <= t, t the
// threshold of its energy class and temperature. Random word i is word i mod 4 of Philox block
// (word, sweep, MULTISPIN, i / 4 << 1 | colour, g'), g' the run's index of word system g
// (global_index); only lanes in categories that raise the energy need them. With randoms: Packed,
// words past block 0 come from a run's packed tail instead (pack_word below).

#include "dispatch.cuh"
#include "philox.cuh"
#include "bitslice.cuh"
#include "lattice.cuh"
#include "slice_constants.cuh"

// The energy class of each category, 4 bits each (categories 0..7 in CLASSES_LO, 8..13 in
// CLASSES_HI; NO_CLASS: the flip never raises the energy), the number of classes, and whether
// one uniform per word is shared by its lanes. Defines, so that the loops below unroll.
constexpr unsigned CLASSES_LO = SPINFLIP_CLASSES_LO;
constexpr unsigned CLASSES_HI = SPINFLIP_CLASSES_HI;
// With an open axis, the classes of the odd categories (the lanes that lack an odd number of
// bonds, which count z - 1: (down, c) at c, (up, c) at z + c), as CLASSES_LO and CLASSES_HI.
constexpr unsigned CLASSES_ODD_LO = SPINFLIP_CLASSES_ODD_LO;
constexpr unsigned CLASSES_ODD_HI = SPINFLIP_CLASSES_ODD_HI;
constexpr unsigned CLASS_COUNT = SPINFLIP_CLASS_COUNT;
constexpr bool SHARED_RANDOMS = SPINFLIP_SHARED_RANDOMS != 0u;
// The run's seed, the Philox key, compiled in (the dispatches carry the same): its ten round keys
// become immediates instead of uniform adds in every draw.
constexpr unsigned SEED_LO = SPINFLIP_SEED_LO;
constexpr unsigned SEED_HI = SPINFLIP_SEED_HI;

constexpr unsigned MAX_CATEGORIES = 14u;
constexpr unsigned NO_CLASS = 15u;

// The bit-sliced threshold tables of every word system, [table][class][plane]; word system g
// reads table g / WORDS_PER_TABLE, the same for the whole block. Tables of up to 64 KiB are
// copied into constant memory, where (the plane loop being unrolled) each plane is a uniform
// operand that costs no vector instruction; larger ones are read from global memory.
constexpr unsigned TABLE_WORDS = SPINFLIP_TABLE_WORDS;
constexpr unsigned WORDS_PER_TABLE = SPINFLIP_WORDS_PER_TABLE;
constexpr bool CONSTANT_THRESHOLDS = SPINFLIP_CONSTANT_THRESHOLDS != 0u;
__constant__ unsigned threshold_planes[CONSTANT_THRESHOLDS ? TABLE_WORDS : 1u];

// One table whose lanes share each threshold (one temperature; lanes not holding temperatures):
// the thresholds are compiled in, and each plane picks class masks at compile time.
constexpr bool FIXED_THRESHOLDS = SPINFLIP_FIXED_THRESHOLDS != 0u;
constexpr unsigned FIXED[14] = {
    SPINFLIP_THRESHOLD_0,  SPINFLIP_THRESHOLD_1,  SPINFLIP_THRESHOLD_2,  SPINFLIP_THRESHOLD_3,
    SPINFLIP_THRESHOLD_4,  SPINFLIP_THRESHOLD_5,  SPINFLIP_THRESHOLD_6,  SPINFLIP_THRESHOLD_7,
    SPINFLIP_THRESHOLD_8,  SPINFLIP_THRESHOLD_9,  SPINFLIP_THRESHOLD_10, SPINFLIP_THRESHOLD_11,
    SPINFLIP_THRESHOLD_12, SPINFLIP_THRESHOLD_13};

// Bit 31 - i of the threshold of every lane of a class in `masks` (lanes of no class are
// decided before any plane: their bits do not matter). Compiled in, each class's lanes where the
// bit is set; from a table (MultispinLayout::threshold_tables: class 0's planes, the others'
// XOR class 0's), class 0's plane corrected on each other class's lanes, one operation per class.
__device__ __forceinline__ unsigned threshold_bits(const unsigned* table,
                                                   const unsigned masks[MAX_CATEGORIES],
                                                   unsigned i) {
    if (CLASS_COUNT == 0u) {
        return 0u;
    }
    unsigned bits = FIXED_THRESHOLDS ? 0u : table[31u - i];
#pragma unroll
    for (unsigned energy_class = 0u; energy_class < CLASS_COUNT; energy_class++) {
        if (FIXED_THRESHOLDS) {
            bits |= ((FIXED[energy_class] >> (31u - i)) & 1u) != 0u ? masks[energy_class] : 0u;
        } else if (energy_class > 0u) {
            bits ^= masks[energy_class] & table[energy_class * 32u + 31u - i];
        }
    }
    return bits;
}

// The table of word system g, from `thresholds` (global memory) or its constant-memory copy.
__device__ __forceinline__ const unsigned* threshold_table(const unsigned* thresholds, unsigned g) {
    constexpr unsigned table_words = CLASS_COUNT * 32u;
    // One table (one temperature): its planes are compile-time constant-memory addresses.
    const unsigned table = TABLE_WORDS == table_words ? 0u : g / WORDS_PER_TABLE;
    return (CONSTANT_THRESHOLDS ? threshold_planes : thresholds) + table * table_words;
}

// The class of category `cat`, of the odd categories where `odd`.
__device__ constexpr unsigned category_class(unsigned cat, bool odd) {
    const unsigned lo = odd ? CLASSES_ODD_LO : CLASSES_LO;
    const unsigned hi = odd ? CLASSES_ODD_HI : CLASSES_HI;
    return cat < 8u ? (lo >> (4u * cat)) & 0xfu : (hi >> (4u * (cat - 8u))) & 0xfu;
}

// The lanes of `spin` in category (down, c) or (up, c) of class `energy_class`, of the odd
// categories where `odd` (whose lanes count z - 1 bonds).
__device__ __forceinline__ unsigned class_spins(unsigned spin, unsigned c, unsigned energy_class,
                                                bool odd) {
    const unsigned bonds = site_bonds() - (odd ? 1u : 0u);
    const bool down = category_class(c, odd) == energy_class;
    const bool up = category_class(bonds + 1u + c, odd) == energy_class;
    if (down && up) {
        return ~0u;
    }
    if (down) {
        return ~spin;
    }
    return up ? spin : 0u;
}

// Random word i of the draw loop from its Philox block (or the word's shared uniform).
__device__ __forceinline__ unsigned random_word(const uint4& block, unsigned uniform, unsigned i) {
    if (SHARED_RANDOMS) {
        return 0u - ((uniform >> (31u - i)) & 1u);
    }
    const unsigned words[4] = {block.x, block.y, block.z, block.w};
    return words[i & 3u];
}

// The debug build's tallies (SPINFLIP_COUNT_DRAWS=1, src/engine/cuda/compile.rs): word updates,
// lanes that needed a uniform, Philox blocks drawn (a shared uniform's block counts once per
// word: every thread of its four words computes it).
#ifndef SPINFLIP_COUNT_DRAWS
#define SPINFLIP_COUNT_DRAWS 0
#endif
constexpr bool COUNT_DRAWS = SPINFLIP_COUNT_DRAWS != 0;
__device__ unsigned long long draw_counts[3];

// Tallies of `words` words (atomics per word: a debug build, slow by design).
__device__ __forceinline__ void count_draws(unsigned words, unsigned lanes, unsigned blocks) {
    atomicAdd(&draw_counts[0], static_cast<unsigned long long>(words));
    atomicAdd(&draw_counts[1], static_cast<unsigned long long>(lanes));
    atomicAdd(&draw_counts[2], static_cast<unsigned long long>(blocks));
}

// Lanes accepted so far, and lanes whose uniform agrees with their threshold in every bit so far.
struct Decision {
    unsigned accept;
    unsigned undecided;
};

// The lanes of each energy class, the odd lanes (count.odd) by the odd categories; returns the
// lanes of all classes (those needing a uniform). Every condition is a constant once the defines
// are fixed, so the loops unroll into registers.
__device__ __forceinline__ unsigned class_masks(unsigned spin, const BondCount& count,
                                                unsigned masks[MAX_CATEGORIES]) {
    const unsigned z = site_bonds();
    unsigned undecided = 0u;
#pragma unroll
    for (unsigned energy_class = 0u; energy_class < CLASS_COUNT; energy_class++) {
        unsigned mask = 0u;
#pragma unroll
        for (unsigned c = 0u; c <= z; c++) {
            mask |= count_equals(count, c) & class_spins(spin, c, energy_class, false);
        }
        if (OPEN_AXES != 0u) {
            unsigned odd = 0u;
#pragma unroll
            for (unsigned c = 0u; c < z; c++) {
                odd |= count_equals(count, c) & class_spins(spin, c, energy_class, true);
            }
            mask = (mask & ~count.odd) | (odd & count.odd);
        }
        masks[energy_class] = mask;
        undecided |= mask;
    }
    return undecided;
}

// Compare blocks FIRST..LAST - 1 of the draw (block b: threshold bits 31 - 4b down to 28 - 4b),
// block b being Philox block DRAW_OFFSET + b of word `word`'s stream (or, for shared randoms,
// bits of the word's uniform), until no lane of the warp is undecided. The warp vote keeps the
// threads converged, so after unrolling each plane's address is a constant. Returns the blocks
// drawn.
template <unsigned FIRST, unsigned LAST, unsigned DRAW_OFFSET>
__device__ __forceinline__ unsigned draw_blocks(Decision& decision,
                                                const unsigned masks[MAX_CATEGORIES],
                                                const unsigned* table, unsigned sweep,
                                                unsigned word, unsigned colour, unsigned batch,
                                                unsigned uniform) {
    const uint2 key = make_uint2(SEED_LO, SEED_HI);
    const unsigned warp = __activemask();
    unsigned blocks = 0u;
#pragma unroll
    for (unsigned draw = FIRST; draw < LAST; draw++) {
        if (__all_sync(warp, decision.undecided == 0u)) {
            break;
        }
        uint4 block = make_uint4(0u, 0u, 0u, 0u);
        if (!SHARED_RANDOMS) {
            blocks++;
            const uint4 counter = philox_counter(word, sweep, PURPOSE_METROPOLIS_MULTISPIN,
                                                 colour | ((DRAW_OFFSET + draw) << 1u), batch);
            block = philox4x32_10(counter, key);
        }
#pragma unroll
        for (unsigned j = 0u; j < 4u; j++) {
            const unsigned i = 4u * draw + j;
            const unsigned random = random_word(block, uniform, i);
            const unsigned threshold = threshold_bits(table, masks, i);
            decision.accept |= decision.undecided & threshold & ~random;
            decision.undecided &= ~(threshold ^ random);
        }
    }
    return blocks;
}

// The lanes of word `word` (spin `spin`, unsatisfied-bond counts `count`) that flip.
__device__ __forceinline__ unsigned accepted_lanes(const DispatchParams& params,
                                                   const unsigned* thresholds, unsigned spin,
                                                   const BondCount& count, unsigned word,
                                                   unsigned colour, unsigned g) {
    unsigned masks[MAX_CATEGORIES];
    const unsigned needing = class_masks(spin, count, masks);
    Decision decision = {~needing, needing};
    const unsigned* table = threshold_table(thresholds, g);
    const unsigned batch = global_index(g);
    unsigned uniform = 0u;
    if (SHARED_RANDOMS) {
        const uint4 counter =
            philox_counter(word >> 2u, params.sweep, PURPOSE_METROPOLIS_SHARED, colour, batch);
        const uint4 block = philox4x32_10(counter, make_uint2(SEED_LO, SEED_HI));
        const unsigned words[4] = {block.x, block.y, block.z, block.w};
        uniform = words[word & 3u];
    }
    const unsigned blocks = draw_blocks<0u, 8u, 0u>(decision, masks, table, params.sweep, word,
                                                   colour, batch, uniform);
    if (COUNT_DRAWS) {
        count_draws(1u, __popc(needing), SHARED_RANDOMS ? 1u : blocks);
    }
    // Lanes still undecided drew U == t exactly: U <= t accepts.
    return decision.accept | decision.undecided;
}

// The packed tail (randoms: Packed; the twin of multispin_decide.wgsl's and of
// DecisionRule::accepted_run in src/engine/cpu/multispin_metropolis.rs): after its own block 0,
// each word of a thread's run puts its lanes still undecided into one packed word, rotated by
// the first multiple of 32 / PACK_ROTATIONS bits that keeps them apart from the earlier words'
// lanes there; the packed word compares blocks PACKED_TAIL_DRAW + b (b = 1..7) of the run's first
// word with threshold planes 27 down. A word whose lanes fit no rotation goes on with its own
// blocks 1..7.
constexpr unsigned PACK_ROTATIONS = SPINFLIP_PACK_ROTATIONS;
constexpr unsigned PACKED_TAIL_DRAW = 7u;
constexpr unsigned NOT_PACKED = 32u;

struct PackedTail {
    Decision decision;
    unsigned masks[MAX_CATEGORIES];
};

// One word of a packed run: its decision so far and its rotation in the tail (NOT_PACKED: decided
// on its own blocks).
struct PackedWord {
    Decision decision;
    unsigned rotation;
};

// Decide word `word`'s block 0, then pack its undecided lanes into `tail` or, where they fit no
// rotation, finish the word on its own blocks (every thread takes part in that draw's vote).
__device__ __forceinline__ PackedWord pack_word(PackedTail& tail, const DispatchParams& params,
                                                const unsigned* table, unsigned spin,
                                                const BondCount& count, unsigned word,
                                                unsigned colour, unsigned batch) {
    unsigned masks[MAX_CATEGORIES];
    const unsigned needing = class_masks(spin, count, masks);
    Decision decision = {~needing, needing};
    unsigned blocks =
        draw_blocks<0u, 1u, 0u>(decision, masks, table, params.sweep, word, colour, batch, 0u);
    const unsigned lanes = decision.undecided;
    unsigned rotation = NOT_PACKED;
#pragma unroll
    for (unsigned i = 0u; i < PACK_ROTATIONS; i++) {
        const unsigned r = i * (32u / (PACK_ROTATIONS == 0u ? 1u : PACK_ROTATIONS));
        if (rotation == NOT_PACKED &&
            (__funnelshift_l(lanes, lanes, r) & tail.decision.undecided) == 0u) {
            rotation = r;
        }
    }
    Decision own = {decision.accept, rotation == NOT_PACKED ? lanes : 0u};
    if (rotation != NOT_PACKED) {
        tail.decision.undecided |= __funnelshift_l(lanes, lanes, rotation);
#pragma unroll
        for (unsigned energy_class = 0u; energy_class < CLASS_COUNT; energy_class++) {
            const unsigned mask = masks[energy_class] & lanes;
            tail.masks[energy_class] |= __funnelshift_l(mask, mask, rotation);
        }
    }
    blocks += draw_blocks<1u, 8u, 0u>(own, masks, table, params.sweep, word, colour, batch, 0u);
    if (COUNT_DRAWS) {
        count_draws(1u, __popc(needing), blocks);
    }
    return PackedWord{rotation == NOT_PACKED ? own : decision, rotation};
}

// Decide the tail's lanes on blocks of the run's first word `first_word`; returns those that flip.
__device__ __forceinline__ unsigned finish_tail(PackedTail& tail, const DispatchParams& params,
                                                const unsigned* table, unsigned first_word,
                                                unsigned colour, unsigned batch) {
    const unsigned blocks = draw_blocks<1u, 8u, PACKED_TAIL_DRAW>(
        tail.decision, tail.masks, table, params.sweep, first_word, colour, batch, 0u);
    if (COUNT_DRAWS) {
        count_draws(0u, 0u, blocks);
    }
    return tail.decision.accept | tail.decision.undecided;
}

// A packed word's flips from its pack_word result and the tail's accepted lanes.
__device__ __forceinline__ unsigned packed_lanes(const PackedWord& word, unsigned tail_accepted) {
    if (word.rotation == NOT_PACKED) {
        return word.decision.accept | word.decision.undecided;
    }
    const unsigned tail = __funnelshift_r(tail_accepted, tail_accepted, word.rotation);
    return word.decision.accept | (tail & word.decision.undecided);
}
