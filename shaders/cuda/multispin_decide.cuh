// Exact per-lane Metropolis decisions by bit-sliced threshold comparison (GUIDE.md section 4);
// the twin of multispin_decide.wgsl and accepted_lanes in src/engine/cpu/multispin_metropolis.rs.
// A lane's uniform U has as bit 31 - i its bit of random word i; it flips iff U <= t, t the
// threshold of its energy class and temperature. Random word i is word i mod 4 of Philox block
// (word, sweep, MULTISPIN, i / 4 << 1 | colour, g'), g' the run's index of word system g
// (global_index); only lanes in categories that raise the energy need them.

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

// The lanes of `mask` (class `energy_class`) whose threshold has bit 31 - i set.
__device__ __forceinline__ unsigned threshold_lanes(const unsigned* table, unsigned energy_class,
                                                    unsigned i, unsigned mask) {
    if (FIXED_THRESHOLDS) {
        return ((FIXED[energy_class] >> (31u - i)) & 1u) != 0u ? mask : 0u;
    }
    return mask & table[energy_class * 32u + 31u - i];
}

// The table of word system g, from `thresholds` (global memory) or its constant-memory copy.
__device__ __forceinline__ const unsigned* threshold_table(const unsigned* thresholds, unsigned g) {
    constexpr unsigned table_words = CLASS_COUNT * 32u;
    // One table (one temperature): its planes are compile-time constant-memory addresses.
    const unsigned table = TABLE_WORDS == table_words ? 0u : g / WORDS_PER_TABLE;
    return (CONSTANT_THRESHOLDS ? threshold_planes : thresholds) + table * table_words;
}

__device__ constexpr unsigned category_class(unsigned cat) {
    return cat < 8u ? (CLASSES_LO >> (4u * cat)) & 0xfu : (CLASSES_HI >> (4u * (cat - 8u))) & 0xfu;
}

// The lanes of `spin` in category (down, c) or (up, c) of class `energy_class`.
__device__ __forceinline__ unsigned class_spins(unsigned spin, unsigned c, unsigned energy_class) {
    const bool down = category_class(c) == energy_class;
    const bool up = category_class(coordination() + 1u + c) == energy_class;
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

// One word's tallies (atomics per word: a debug build, slow by design).
__device__ __forceinline__ void count_draws(unsigned lanes, unsigned blocks) {
    atomicAdd(&draw_counts[0], 1ull);
    atomicAdd(&draw_counts[1], static_cast<unsigned long long>(lanes));
    atomicAdd(&draw_counts[2], static_cast<unsigned long long>(blocks));
}

// The lanes of word `word` (spin `spin`, unsatisfied-bond counts `count`) that flip.
__device__ __forceinline__ unsigned accepted_lanes(const DispatchParams& params,
                                                   const unsigned* thresholds, unsigned spin,
                                                   const BondCount& count, unsigned word,
                                                   unsigned colour, unsigned g) {
    const unsigned z = coordination();
    // The lanes of each energy class: every condition is a constant once the defines are fixed,
    // so the loops unroll into registers.
    unsigned masks[MAX_CATEGORIES];
    unsigned undecided = 0u;
#pragma unroll
    for (unsigned energy_class = 0u; energy_class < CLASS_COUNT; energy_class++) {
        unsigned mask = 0u;
#pragma unroll
        for (unsigned c = 0u; c <= z; c++) {
            mask |= count_equals(count, c) & class_spins(spin, c, energy_class);
        }
        masks[energy_class] = mask;
        undecided |= mask;
    }
    unsigned accept = ~undecided;
    const unsigned needing = undecided;
    unsigned blocks = SHARED_RANDOMS ? 1u : 0u;
    const unsigned* table = threshold_table(thresholds, g);
    const uint2 key = make_uint2(SEED_LO, SEED_HI);
    const unsigned batch = global_index(g);
    unsigned uniform = 0u;
    if (SHARED_RANDOMS) {
        const uint4 counter =
            philox_counter(word >> 2u, params.sweep, PURPOSE_METROPOLIS_SHARED, colour, batch);
        const uint4 block = philox4x32_10(counter, key);
        const unsigned words[4] = {block.x, block.y, block.z, block.w};
        uniform = words[word & 3u];
    }
    // Four random words per Philox block, until no lane of the warp is undecided. The warp vote
    // keeps the threads converged, so after unrolling each plane's address is a constant.
    const unsigned warp = __activemask();
#pragma unroll
    for (unsigned draw = 0u; draw < 8u; draw++) {
        if (__all_sync(warp, undecided == 0u)) {
            break;
        }
        uint4 block = make_uint4(0u, 0u, 0u, 0u);
        if (!SHARED_RANDOMS) {
            blocks++;
            const uint4 counter = philox_counter(word, params.sweep, PURPOSE_METROPOLIS_MULTISPIN,
                                                 colour | (draw << 1u), batch);
            block = philox4x32_10(counter, key);
        }
#pragma unroll
        for (unsigned j = 0u; j < 4u; j++) {
            const unsigned i = 4u * draw + j;
            const unsigned random = random_word(block, uniform, i);
            unsigned threshold_bits = 0u;
#pragma unroll
            for (unsigned energy_class = 0u; energy_class < CLASS_COUNT; energy_class++) {
                threshold_bits |= threshold_lanes(table, energy_class, i, masks[energy_class]);
            }
            accept |= undecided & threshold_bits & ~random;
            undecided &= ~(threshold_bits ^ random);
        }
    }
    if (COUNT_DRAWS) {
        count_draws(__popc(needing), blocks);
    }
    // Lanes still undecided drew U == t exactly: U <= t accepts.
    return accept | undecided;
}
