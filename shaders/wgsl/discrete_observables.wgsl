// The exact integer sums of every lattice of discrete states (engine::vector::VectorObservation):
// each thread sums the sites thread, thread + stride, ... in u32 pairs, then adds its sums to
// the system's 64-bit counts (any order gives the same sums). CPU twin:
// src/engine/cpu/discrete_observables.rs. Counts of system z from word z * count_words() +
// OBSERVATION_WORD, in pairs: bonds[d] (sum J P(s_i, s_{i+d}), table units), the sum of the
// values s(a) (magnetisation[0]) and its Fourier component fourier[d][0][cos, sin]; the sites in
// each state from STATES_WORD, each state's Fourier components [a][d][cos, sin] from
// state_fourier_word(). Empty sites (the vacancy, state STATES) count in none of them.

#import vector_sums
#import counters

const OBSERVATION_WORD: u32 = 8u;
// After the accepted moves, three spare counters and the observation's 31 (engine::vector).
const STATES_WORD: u32 = 70u;
// The states' Fourier components follow their counts, their staggered counts the Fourier
// components (engine::vector::StateSums).
fn state_fourier_word() -> u32 {
    return STATES_WORD + 2u * STATES;
}
fn staggered_word() -> u32 {
    return STATES_WORD + 14u * STATES;
}
const MAGNETISATION: u32 = 6u;
const FOURIER: u32 = 9u;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let z = layer(params, thread);
    let stride = threads_per_system(thread);
    var bonds: array<vec2<u32>, 3>;
    var fourier: array<vec2<u32>, 6>;
    var values = vec2<u32>(0u, 0u);
    var counts: array<u32, 32>;
    var staggered: array<i32, 32>;
    var state_fourier: array<vec2<u32>, 192>;
    for (var i = thread_in_system(thread); i < lattice_sites(); i += stride) {
        let a = load_state(z, i);
        if a == STATES {
            continue;
        }
        counts[a] += 1u;
        staggered[a] += sublattice_sign(i);
        let value = state_value(a);
        values = wide_add(values, wide_from_i32(value));
        let near = neighbours(i);
        for (var d = 0u; d < directions(); d++) {
            let pair = state_pair(a, load_state(z, near[2u * d + 1u]));
            bonds[d] = wide_add(bonds[d], wide_mul_i32(coupling(z, i * directions() + d), pair));
            if d >= DIMS {
                continue;
            }
            let x = coordinate(i, d);
            fourier[2u * d] = wide_add(fourier[2u * d], wide_mul_i32(value, phases[x]));
            fourier[2u * d + 1u] = wide_add(fourier[2u * d + 1u], wide_mul_i32(value, phases[L + x]));
            let f = 2u * (3u * a + d);
            state_fourier[f] = wide_add(state_fourier[f], wide_from_i32(phases[x]));
            state_fourier[f + 1u] = wide_add(state_fourier[f + 1u], wide_from_i32(phases[L + x]));
        }
    }
    let out = z * count_words() + OBSERVATION_WORD;
    for (var d = 0u; d < directions(); d++) {
        add_i64(out + 2u * d, bonds[d]);
    }
    for (var d = 0u; d < DIMS; d++) {
        add_i64(out + 2u * (FOURIER + 6u * d), fourier[2u * d]);
        add_i64(out + 2u * (FOURIER + 6u * d) + 2u, fourier[2u * d + 1u]);
    }
    add_i64(out + 2u * MAGNETISATION, values);
    for (var a = 0u; a < STATES; a++) {
        if counts[a] > 0u {
            add_u64(z * count_words() + STATES_WORD + 2u * a, counts[a]);
        }
        add_i64(z * count_words() + staggered_word() + 2u * a, wide_from_i32(staggered[a]));
        for (var f = 6u * a; f < 6u * a + 6u; f++) {
            add_i64(z * count_words() + state_fourier_word() + 2u * f, state_fourier[f]);
        }
    }
}
