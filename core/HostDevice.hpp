// KOLMO_HD marks functions that run both on the host and in CUDA kernels; it is empty for a host compiler.
#pragma once

#if defined(__CUDACC__)
#define KOLMO_HD __host__ __device__
#else
#define KOLMO_HD
#endif

// KOLMO_UNROLL before a loop of a constant trip count in a KOLMO_HD function: unrolled in device code (where
// the values it indexes stay in registers), nothing in host code.
#if defined(__CUDA_ARCH__)
#define KOLMO_UNROLL _Pragma("unroll")
#else
#define KOLMO_UNROLL
#endif
