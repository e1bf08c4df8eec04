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
// Bits by which the local field is coarser than a spin unit (CouplingScale::field_shift): 0,
// or 3 for the Gaussian glass.
constexpr unsigned FIELD_SHIFT = SPINFLIP_FIELD_SHIFT;

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

// fixed::SEED_HIGH and fixed::SEED_LOW: inverse_sqrt's seed polynomials, {c0, c1, c2}.
constexpr unsigned SEED_HIGH[3] = {0x8ef8f371u, 0x843cba9bu, 0x35780865u};
constexpr unsigned SEED_LOW[3] = {0xca318fadu, 0xbb02fd07u, 0x4b9dcd36u};

// fixed::newton_step: y (3 - t y^2 2^-92) / 2 with y^2 >> 31, its product with t and the
// result floored to words.
__device__ __forceinline__ unsigned newton_step(unsigned y, unsigned t) {
    const unsigned square = static_cast<unsigned>((static_cast<unsigned long long>(y) * y) >> 31);
    const unsigned correction = (3u << 29u) - __umulhi(square, t);
    return static_cast<unsigned>((static_cast<unsigned long long>(y) * correction) >> 30);
}

// fixed::inverse_sqrt: 2^46 / sqrt(t) for t in [2^30, 2^32), within 2^-29: the seed
// polynomial of t's octave, then two Newton steps.
__device__ __forceinline__ unsigned inverse_sqrt(unsigned t) {
    const bool low = t < 0x80000000u;
    const unsigned z = low ? t << 1u : t;
    const unsigned c0 = low ? SEED_LOW[0] : SEED_HIGH[0];
    const unsigned c1 = low ? SEED_LOW[1] : SEED_HIGH[1];
    const unsigned c2 = low ? SEED_LOW[2] : SEED_HIGH[2];
    const unsigned y = c0 - __umulhi(z, c1 - __umulhi(z, c2));
    return newton_step(newton_step(y, t), t);
}

// fixed::mulhi_signed: the high word of a * b for a signed a, floor(a b / 2^32).
__device__ __forceinline__ int mulhi_signed(int a, unsigned b) {
    return static_cast<int>(__umulhi(static_cast<unsigned>(a), b) - (a < 0 ? b : 0u));
}

// fixed::unit: v scaled by 2^k to put v . v into [2^60, 2^62) (v . v below 2^62), its top 32
// bits t give y = inverse_sqrt(t), and each component is v_a 2^k y / 2^33 rounded half up.
__device__ __forceinline__ Unit unit(const Vector& v) {
    const unsigned long long square = static_cast<unsigned long long>(dot(v, v));
    Unit u = {{{0, 0, 0}}, false};
    if (square == 0ull) {
        return u;
    }
    const unsigned zeros = static_cast<unsigned>(__clzll(static_cast<long long>(square)));
    const unsigned k = (zeros < 2u ? 0u : zeros - 2u) / 2u;
    const unsigned y = inverse_sqrt(static_cast<unsigned>((square << (2u * k)) >> 30));
#pragma unroll
    for (unsigned c = 0u; c < COMPONENTS; c++) {
        // The shift of the bits: a negative int's << is undefined before C++20.
        const int scaled = static_cast<int>(static_cast<unsigned>(v.c[c]) << k);
        u.v.c[c] = (mulhi_signed(scaled, y) + 1) >> 1;
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
// delta >> (ENERGY_SHIFT - FIELD_SHIFT) (CouplingScale::energy_shift).
__device__ __forceinline__ bool accepts(long long delta, unsigned u, const unsigned* table) {
    const unsigned k = static_cast<unsigned>(delta >> (ENERGY_SHIFT - FIELD_SHIFT));
    return delta <= 0 || u < threshold(k, table);
}
