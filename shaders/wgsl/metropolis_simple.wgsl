// Checkerboard Metropolis, one spin (+1/-1) per i32 word: the readable GPU reference engine.
// CPU twin: src/engine/cpu/metropolis_simple.rs. Thread g of system b updates colour sites
// 4g .. 4g+3 with the four words of Philox block (word g, sweep, METROPOLIS_SIMPLE, colour, b'),
// b' the run's index of system b (global_index); b runs at temperature b / SLICE_BLOCK.

#import dispatch
#import philox
#import lattice
#import slice

@group(0) @binding(0) var<uniform> params: DispatchParams;
@group(0) @binding(1) var<storage, read_write> spins: array<i32>;
@group(0) @binding(2) var<storage, read> thresholds: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    // A dispatch covers the groups from params.first_thread on (a piece of a sweep's pass).
    let group = thread_in_system(thread) + params.first_thread;
    let batch = layer(params, thread);
    let per_colour = lattice_sites() / 2u;
    if 4u * group >= per_colour || !dispatched(params, group) {
        return;
    }
    let counter = philox_counter(group, params.sweep, PURPOSE_METROPOLIS_SIMPLE, params.colour, global_index(batch));
    let randoms = philox4x32_10(counter, vec2<u32>(params.seed_lo, params.seed_hi));
    let z = coordination();
    let table = (batch / SLICE_BLOCK) * 2u * (z + 1u);
    let base = batch * lattice_sites();
    for (var j = 0u; j < 4u; j++) {
        let ci = 4u * group + j;
        if ci >= per_colour {
            break;
        }
        let site = colour_site(params.colour, ci);
        let spin = spins[base + site];
        let near = neighbours(site);
        var neighbour_sum = 0i;
        for (var k = 0u; k < z; k++) {
            neighbour_sum += spins[base + near[k]];
        }
        let entry = table + select(0u, z + 1u, spin > 0i) + u32((neighbour_sum + i32(z)) / 2i);
        if randoms[j] <= thresholds[entry] {
            spins[base + site] = -spin;
        }
    }
}
