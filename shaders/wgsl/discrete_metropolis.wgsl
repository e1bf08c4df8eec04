// Metropolis or the heat bath on one checkerboard colour of every lattice of discrete states
// (Potts, Blume-Capel): update thread ci of system z (the dispatch's threads from
// params.first_thread: a piece of a sweep runs some of them) updates the ci-th site of
// params.colour, HITS times (a thread takes SITES_PER_THREAD update threads' sites), its energies exact i32s in table units from the state tables
// (vector_site.wgsl). CPU twin: src/engine/cpu/discrete_metropolis.rs (the randoms: block
// (i, sweep, VectorMetropolis, hit, colour, z); Metropolis proposes (a + 1 + mulhi(w0, q - 1))
// mod q and accepts with word 3, the heat bath draws from word 0; an empty site keeps its
// vacancy). Moves that changed a state are summed per workgroup, then added to the system's 64-bit count (counts words 0, 1);
// where the systems lie flat along the grid (FLAT_SYSTEMS, pass_thread), each thread adds its own.

#import vector_site

// Proposals per site (VectorSweeps::hits).
override HITS: u32 = 1u;
// Whether the states are drawn from their heat bath (VectorSweeps::heat_bath), else proposed by
// Metropolis; the widths say the same (check_widths).
override HEAT_BATH_SWEEPS: u32 = 0u;
// Sites a thread updates (VectorSweeps::state_sites_per_thread): the r-th is update thread
// t + r * stride of the pass, so that each r is a coalesced run of the colour; their states are
// read before any is updated.
override SITES_PER_THREAD: u32 = 1u;
// The arrays' length: SITES_PER_THREAD at most.
const MAX_SITES_PER_THREAD: u32 = 2u;

// StateUpdate::surroundings: the couplings to a site's neighbours and their states.
struct Surroundings {
    couplings: array<i32, 6>,
    states: array<u32, 6>,
}

fn surroundings(z: u32, i: u32) -> Surroundings {
    var around: Surroundings;
    let near = neighbours(i);
    for (var k = 0u; k < coordination(); k++) {
        let j = near[k];
        around.couplings[k] = coupling(z, neighbour_bond(i, j, k));
        around.states[k] = load_state(z, j);
    }
    return around;
}

// StateUpdate::energy: V(a) - sum_j J_ij P(a, s_j), in table units.
fn state_energy(a: u32, around: Surroundings) -> i32 {
    var e = state_site(a);
    for (var k = 0u; k < coordination(); k++) {
        e -= around.couplings[k] * state_pair(a, around.states[k]);
    }
    return e;
}

// The Boltzmann weight of state k above the lowest energy.
fn state_weight(k: u32, around: Surroundings, lowest: i32, table: u32) -> u32 {
    return threshold(bitcast<u32>(state_energy(k, around) - lowest), table);
}

// StateUpdate::heat_bath: the first state whose cumulative weight exceeds floor(u W / 2^32), W
// the total weight (below 2^38: W_hi u + mulhi(W_lo, u)).
fn heat_bath(u: u32, around: Surroundings, table: u32) -> u32 {
    var lowest = state_energy(0u, around);
    for (var k = 1u; k < STATES; k++) {
        lowest = min(lowest, state_energy(k, around));
    }
    var total = vec2<u32>(0u, 0u);
    for (var k = 0u; k < STATES; k++) {
        total = wide_add(total, vec2<u32>(state_weight(k, around, lowest, table), 0u));
    }
    let pick = heat_bath_target(total, u);
    var cumulative = vec2<u32>(0u, 0u);
    for (var k = 0u; k < STATES; k++) {
        cumulative = wide_add(cumulative, vec2<u32>(state_weight(k, around, lowest, table), 0u));
        if wide_less(pick, cumulative) {
            return k;
        }
    }
    return STATES - 1u;
}

// StateUpdate::hit: hit `hit` of site i (of colour params.colour) of system z in state *s;
// whether the state changed.
fn state_hit(z: u32, i: u32, hit: u32, around: Surroundings, s: ptr<function, u32>, width: i32, table: u32) -> bool {
    let key = vec2<u32>(params.seed_lo, params.seed_hi);
    let purpose = (hit << 1u) | params.colour;
    let counter = philox_counter(i, params.sweep, PURPOSE_VECTOR_METROPOLIS, purpose, global_index(z));
    let words = philox4x32_10(counter, key);
    let a = *s;
    var b = 0u;
    // The heat bath's loops only where the kernel is built for it: in a Metropolis kernel of two
    // sites a thread their registers would halve its speed.
    if HEAT_BATH_SWEEPS == 1u && width == HEAT_BATH {
        b = heat_bath(words.x, around, table);
    } else {
        // max: naga refuses a division by an override that is 0, even where it is never reached.
        b = (a + 1u + mulhilo(words.x, STATES - 1u).x) % max(STATES, 1u);
        let change = state_energy(b, around) - state_energy(a, around);
        if change > 0i && words.w >= threshold(bitcast<u32>(change), table) {
            return false;
        }
    }
    *s = b;
    return a != b;
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let span = select(lattice_sites() / 2u, params.threads, params.threads != 0u);
    let stride = (span + SITES_PER_THREAD - 1u) / SITES_PER_THREAD;
    let at = pass_thread(thread, stride);
    let z = at.z;
    let t = at.t;
    var live: array<bool, MAX_SITES_PER_THREAD>;
    var sites: array<u32, MAX_SITES_PER_THREAD>;
    var states: array<u32, MAX_SITES_PER_THREAD>;
    var around: array<Surroundings, MAX_SITES_PER_THREAD>;
    for (var r = 0u; r < SITES_PER_THREAD; r++) {
        let k = t + r * stride;
        let ci = params.first_thread + k;
        live[r] = at.live && t < stride && k < span && ci < lattice_sites() / 2u;
        if live[r] {
            sites[r] = colour_site(params.colour, ci);
            states[r] = load_state(z, sites[r]);
            around[r] = surroundings(z, sites[r]);
        }
    }
    let temperature = temperature_of(z);
    var accepted = 0u;
    for (var r = 0u; r < SITES_PER_THREAD; r++) {
        // An empty site (the vacancy, state STATES) stays as it is.
        if live[r] && states[r] < STATES {
            var s = states[r];
            for (var hit = 0u; hit < HITS; hit++) {
                let width = widths[temperature];
                accepted += u32(state_hit(z, sites[r], hit, around[r], &s, width, temperature * 4u * TABLE_BYTE));
            }
            spins[z * lattice_sites() + sites[r]] = bitcast<i32>(s);
        }
    }
    count_accepted(thread, z, accepted);
}
