// Parallel tempering's exchange of vector spins: system z swaps its lattice with system
// partners[z] where that is above z, so each accepted pair is moved once, by its lower system;
// a system whose partner is itself keeps its spins. CPU twin: src/engine/cpu/vector_exchange.rs.
// One thread per spin word of a system.

#import vector_site

// Binding 7 of the vector layout: the partner of every system in this round.
@group(0) @binding(7) var<storage, read> partners: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let word = thread_in_system(thread);
    let z = layer(params, thread);
    let words = COMPONENTS * lattice_sites();
    let partner = partners[z];
    if word >= words || partner <= z {
        return;
    }
    let a = z * words + word;
    let b = partner * words + word;
    let kept = spins[a];
    spins[a] = spins[b];
    spins[b] = kept;
}
