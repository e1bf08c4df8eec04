// The fixed-point arithmetic of vector spins, function by function the twin of
// src/model/vector/fixed.rs and shaders/wgsl/vector.wgsl: a spin component is an int in units
// of 2^-28; CUDA has 64-bit integers natively, so each function is the Rust one in C++ (signed
// >> is the arithmetic shift on NVIDIA's compilers, / truncates). Vectors are int3, components
// past COMPONENTS zero.

constexpr unsigned COMPONENTS = SPINFLIP_COMPONENTS;
constexpr unsigned FRACTION_BITS = 28u;
constexpr int ONE = 1 << FRACTION_BITS;
constexpr unsigned ENERGY_SHIFT = 32u;
constexpr unsigned TABLE_BYTE = 256u;
constexpr unsigned MEASURE_SHIFT = 24u;

struct Vector {
    int c[3];
};

// A unit vector, or none (`ok` false) for the zero vector: fixed::unit's Option.
struct Unit {
    Vector v;
    bool ok;
};

// a . b of the first COMPONENTS components, exactly.
__device__ __forceinline__ long long dot(const Vector& a, const Vector& b) {
    long long sum = 0;
#pragma unroll
    for (unsigned c = 0u; c < COMPONENTS; c++) {
        sum += static_cast<long long>(a.c[c]) * b.c[c];
    }
    return sum;
}

// floor(sqrt(x)): a double's estimate (off by at most one for x < 2^64), corrected by exact
// integer tests.
__device__ __forceinline__ unsigned long long isqrt(unsigned long long x) {
    unsigned long long root = static_cast<unsigned long long>(sqrt(static_cast<double>(x)));
    root = root > 0xffffffffull ? 0xffffffffull : root;
    while (root * root > x) {
        root--;
    }
    while (root < 0xffffffffull && (root + 1ull) * (root + 1ull) <= x) {
        root++;
    }
    return root;
}

// fixed::unit: v scaled by 2^k to put v . v into [2^60, 2^62), each component
// (v_a 2^k 2^28) / floor(sqrt(v . v 4^k)), truncated.
__device__ __forceinline__ Unit unit(const Vector& v) {
    const unsigned long long square = static_cast<unsigned long long>(dot(v, v));
    Unit u = {{{0, 0, 0}}, false};
    if (square == 0ull) {
        return u;
    }
    const unsigned zeros = static_cast<unsigned>(__clzll(static_cast<long long>(square)));
    const unsigned k = (zeros < 2u ? 0u : zeros - 2u) / 2u;
    const long long root = static_cast<long long>(isqrt(square << (2u * k)));
#pragma unroll
    for (unsigned c = 0u; c < COMPONENTS; c++) {
        u.v.c[c] = static_cast<int>((static_cast<long long>(v.c[c]) << (k + FRACTION_BITS)) / root);
    }
    u.ok = true;
    return u;
}

// fixed::threshold: the product of the four bytes' table entries of k, byte 0 first, each
// product's high word; `table` the temperature's table.
__device__ __forceinline__ unsigned threshold(unsigned k, const unsigned* table) {
    unsigned t = table[k & 0xffu];
#pragma unroll
    for (unsigned byte = 1u; byte < 4u; byte++) {
        t = __umulhi(t, table[byte * TABLE_BYTE + ((k >> (8u * byte)) & 0xffu)]);
    }
    return t;
}

// fixed::accepts: downhill always, else the random word u below the threshold of
// delta >> ENERGY_SHIFT.
__device__ __forceinline__ bool accepts(long long delta, unsigned u, const unsigned* table) {
    return delta <= 0 || u < threshold(static_cast<unsigned>(delta >> ENERGY_SHIFT), table);
}
