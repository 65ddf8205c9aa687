// KOLMO_HD marks functions that run both on the host and in CUDA kernels; it is empty for a host compiler.
#pragma once

#if defined(__CUDACC__)
#define KOLMO_HD __host__ __device__
#else
#define KOLMO_HD
#endif
