// Where the vector engine keeps its spins, the twin of vector_spins.cuh: component a of site i
// of system b at (b COMPONENTS + a) N + i of the `spins` binding (engine::vector_gpu), for the
// vector kernels (vector_site.wgsl) and the clock's cluster kernels (clock.wgsl) alike.

#import lattice
#import vector

// Word of component a of site i of system b.
fn spin_word(b: u32, a: u32, i: u32) -> u32 {
    return (b * COMPONENTS + a) * lattice_sites() + i;
}

// An empty site (the kagome lattice's missing quarter) holds the zero vector, which no update
// moves (over-relaxation keeps it: unit of zero fails), no sum counts (fixed::is_empty) and no
// cluster bond joins.
fn is_empty(s: vec3<i32>) -> bool {
    return all(s == vec3<i32>(0i));
}

fn load_spin(b: u32, i: u32) -> vec3<i32> {
    var s = vec3<i32>(0i);
    for (var a = 0u; a < COMPONENTS; a++) {
        s[a] = spins[spin_word(b, a, i)];
    }
    return s;
}

fn store_spin(b: u32, i: u32, s: vec3<i32>) {
    for (var a = 0u; a < COMPONENTS; a++) {
        spins[spin_word(b, a, i)] = s[a];
    }
}
