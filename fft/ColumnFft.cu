// The column FFT kernels (fft/ColumnFft.hpp): one block per tile of neighbouring columns, 8 or 16 values per
// thread, the Stockham passes of fft/StockhamPasses.hpp with shared memory between them.
#include <algorithm>

#include "core/CudaCheck.hpp"
#include "core/DependentLaunch.cuh"
#include "core/Error.hpp"
#include "fft/ColumnFft.hpp"
#include "fft/StockhamPasses.hpp"

namespace kolmo::fft {

namespace {

// A tile of C columns of length N, V values per thread (T = N / V threads per column). C makes a tile's rows
// RowBytes long, 128 (16 single-precision values, 8 double; 64 for TwoBlockTile below) where the threads
// allow, at least 64: rows of 32 bytes ran the column FFTs at half the memory bandwidth at N = 1024 on an
// H100. V is 8, or 16 where 8 would take more than 512 threads in single precision (on an H100, 512-point
// single-precision tiles ran 6 % faster with 16 values a thread and 512 threads than with 8 and 1024:
// docs/results/pruned_columns_h100.log); in double precision V is 8 up to N = 1024 (there: 64-byte rows).
// The registers are held to 64 a thread (`blocks`, for __launch_bounds__) where tiles of 512 threads have
// 64-byte rows, so that two blocks share a multiprocessor: in double precision up to N = 1024, and in single
// precision TwoBlockTile's 1024-point tiles. The compiler had given 512-point double tiles 70 registers and
// 1024-point ones (16 values) 128, one block an SM: on an H200 the dealiased 512^3 double pair took 2.99 ms,
// now 2.57 (the 512^3 RK4 step 51.2 ms, now 42.0), the 1024^3 one 24.6 ms, now 22.7
// (docs/results/column_registers_h200.log; no spills at 64 registers but 44 bytes in the 1024-point kernel
// that loads moved elements). A block has at most 1024 threads in single precision, 512 in double. Shared
// memory holds the tile as N rows of C values; row e lives at e ^ ((e >> 3) & (G - 1)), G the rows of one
// 128-byte wavefront: the first pass writes rows 8 apart, which would otherwise fall on the same banks.
template <class Real, int Log2N, int RowBytes = 128>
struct Tile {
  using Scalar = Real;
  using Value = Complex<Real>;
  static constexpr int log2n = Log2N;
  static constexpr int N = 1 << Log2N, bytes = int(sizeof(Complex<Real>)), wide = RowBytes / bytes;
  static constexpr bool held = bytes == 16 && N <= 1024;  // double: 8 values, 64 registers
  static constexpr int limit = bytes == 8 ? 1024 : 512;
  static constexpr int V = held || wide * (N / 8) <= 512 ? 8 : 16;
  static constexpr int T = N / V, C = wide * T <= limit ? wide : limit / T, threads = C * T;
  // Blocks a multiprocessor must hold (0: the compiler's choice), at most 16, which GPUs before Hopper allow.
  static constexpr int blocks = held ? (threads >= 64 ? 1024 / threads : 16)
                                : C * bytes == 64 && threads == 512 && bytes == 8 ? 2
                                                                                  : 0;
  static_assert(C * bytes >= 64 || N < 64, "rows of 64 bytes or more");
  static __device__ int slot(long e, int c) {
    constexpr int wavefront_rows = 128 / (C * bytes);
    constexpr int G = wavefront_rows > 1 ? wavefront_rows : 1;
    return int(e ^ ((e >> 3) & (G - 1))) * C + c;
  }
};

// The tiles of the plain and moved kernels, and of the routed stores into compact rows: Tile's, or where its
// 128-byte rows take 1024 threads (1024-point columns in single precision: one block a multiprocessor, 64
// registers a thread and spills) 64-byte rows, 512 threads, and two blocks a multiprocessor. On one H200 the
// dealiased x transforms of 1024 points ran 10-14 % faster so (6.92 -> 6.23 ns a column over the one GPU's
// 683 kept ky planes, 7.10 -> 6.24 over a rank of 4's 172), the dealiased 1024^3 pair 11.69 -> 11.00 ms,
// and cuFFT's own 1024-point kernel is shaped so (8 columns of 64 threads, two blocks;
// docs/results/column_two_block_tiles_h200.log). The same tiles with the compiler's registers (more than 64,
// one block) had run 1.09-1.33 x slower (docs/results/x_tiles_1024_h200.log; on an H100 12 % slower,
// docs/results/pruned_columns_h100.log; no H100 was lent to time these). The routed kernels keep Tile's,
// whose blocks each build a table of N pointers (the routed kernel's comment): of 64-byte rows, twice the
// blocks for the same columns, the fused route's backward plane transforms at 1024^3 took 10 % longer (2.18
// -> 2.39 ms on a rank of 2) and its full backward x transforms 5 % (1.73 -> 1.82). Stores into compact rows
// gain (the routed kernel's comment says why).
template <class Real, int Log2N>
constexpr int two_block_row_bytes() {
  using Wide = Tile<Real, Log2N>;
  return Wide::threads == 1024 && Wide::C * Wide::bytes == 128 ? 64 : 128;
}
template <class Real, int Log2N>
using TwoBlockTile = Tile<Real, Log2N, two_block_row_bytes<Real, Log2N>()>;

// One thread's column: where it reads and writes, and which elements count.
template <class Real>
struct ColumnAccess {
  const Complex<Real>* in;
  Complex<Real>* out;
  long stride, kept_below, kept_from;
  bool read, write, load_kept_only, store_kept_only;

  __device__ bool kept(long e) const { return e < kept_below || e >= kept_from; }
  __device__ Complex<Real> load(long e) const {
    return read && (!load_kept_only || kept(e)) ? in[e * stride] : Complex<Real>(0, 0);
  }
  __device__ void store(long e, Complex<Real> value) const {
    if (write && (!store_kept_only || kept(e))) out[e * stride] = value;
  }
};

// The same with the moved elements (ColumnMoves) read from (loads()) or written to `moved`, which points at
// their first. The direction: the flag `moved_loads` (Direction < 0) or the template parameter (0: written,
// 1: read). Double-precision tiles take the parameter: the flag, in a register, made the 512-point kernel
// spill at 64 registers. Single-precision ones take the flag: with the parameter the 1024-point kernel that
// writes them spilled more, the 1024^3 dealiased single-precision ranks' forward plane transforms 5 % slower.
template <class Real, int Direction>
struct MovedColumnAccess : ColumnAccess<Real> {
  Complex<Real>* moved;
  long moved_first, moved_end, moved_stride;
  bool moved_loads;

  __device__ bool loads() const { return Direction < 0 ? moved_loads : Direction == 1; }
  __device__ bool elsewhere(long e) const { return e >= moved_first && e < moved_end; }
  __device__ Complex<Real> load(long e) const {
    if (loads() && elsewhere(e) && this->read && (!this->load_kept_only || this->kept(e)))
      return moved[(e - moved_first) * moved_stride];
    return ColumnAccess<Real>::load(e);
  }
  __device__ void store(long e, Complex<Real> value) const {
    if (loads() || !elsewhere(e)) return ColumnAccess<Real>::store(e, value);
    if (this->write && (!this->store_kept_only || this->kept(e)))
      moved[(e - moved_first) * moved_stride] = value;
  }
};

// The same with one side routed (ElementRoute): the loads (Loads) or the stores elsewhere, element by
// element: element e of the block's outer index at places[e] + i (null: none), i the column's inner index.
template <class Real, bool Loads>
struct RoutedColumnAccess : ColumnAccess<Real> {
  Complex<Real>* const* places;  // N entries in shared memory
  long i;

  __device__ Complex<Real>* at(long e) const {
    Complex<Real>* const place = places[e];
    return place ? place + i : nullptr;
  }
  __device__ Complex<Real> load(long e) const {
    if constexpr (!Loads) {
      return ColumnAccess<Real>::load(e);
    } else {
      if (!this->read || (this->load_kept_only && !this->kept(e))) return Complex<Real>(0, 0);
      const Complex<Real>* from = at(e);
      return from ? *from : Complex<Real>(0, 0);
    }
  }
  __device__ void store(long e, Complex<Real> value) const {
    if constexpr (Loads) {
      ColumnAccess<Real>::store(e, value);
    } else {
      if (!this->write || (this->store_kept_only && !this->kept(e))) return;
      if (Complex<Real>* to = at(e)) *to = value;
    }
  }
};

// Pass P and the ones after it: gather (pass 0 from global memory), twiddle, DFT, scatter (the last pass to
// global memory).
template <class S, int P, class Access>
__device__ __forceinline__ void passes(typename S::Value (&v)[S::V], typename S::Value* shared,
                                       const Access& x, const typename S::Value* table, int sign, int c,
                                       int t) {
  constexpr int Log2N = S::log2n;
  constexpr int R = stockham_radix(Log2N, P), B = S::V / R;
  constexpr long N = S::N, Ns = 1L << (3 * P);
  constexpr bool first = P == 0, last = P + 1 == stockham_passes(Log2N);
  each_value<B, R, S::T>(t, [&](long j, int r, int i) {
    const long e = stockham_source(j, r, N, R);
    if constexpr (first)
      v[i] = x.load(e);
    else
      v[i] = shared[S::slot(e, c)];
  });
  if constexpr (!first) __syncthreads();  // every value read before any is overwritten
#pragma unroll
  for (int b = 0; b < B; ++b) stockham_butterfly<R>(v + b * R, table, t + b * S::T, N, Ns, sign);
  each_value<B, R, S::T>(t, [&](long j, int r, int i) {
    const long e = stockham_target(j, r, Ns, R);
    if constexpr (last)
      x.store(e, v[i]);
    else
      shared[S::slot(e, c)] = v[i];
  });
  if constexpr (!last) {
    __syncthreads();
    passes<S, P + 1>(v, shared, x, table, sign, c, t);
  }
}

// Block (tile, q): the q-th outer index o, columns of the tile-th group of C aligned in memory; thread c of a
// row of the tile takes column i of outer index o.
template <class S>
struct TileColumn {
  using Real = typename S::Scalar;
  long o, i, compact;
  // Aligned to the set's memory, or with `route` to the places of its stores (ElementRoute::stores).
  __device__ explicit TileColumn(const ColumnSet& set, const ElementRoute* route = nullptr) {
    const long q = blockIdx.y;
    compact = set.compact_first + q;
    o = q < set.outer_count[0] ? set.outer_first[0] + q : set.outer_first[1] + (q - set.outer_count[0]);
    long shift = (o * set.outer_stride) % S::C;
    if (route != nullptr && route->stores.modulus > 0) {
      const SectorAlignment& a = route->stores;
      const int modulus = a.modulus < S::C ? a.modulus : S::C;
      const long index = route->by_compact ? compact : o;
      shift = (a.base + int(index & (modulus - 1)) * a.pitch) & (modulus - 1);
    }
    i = long(blockIdx.x) * S::C - shift + long(threadIdx.x % S::C);
  }
  __device__ ColumnAccess<Real> access(const ColumnSet& set, const Complex<Real>* in,
                                       Complex<Real>* out) const {
    const bool inside = i >= 0 && i < set.inner;
    const long column = inside ? o * set.outer_stride + i : 0;
    return {in + column,    out + column,       set.stride,
            set.kept_below, set.kept_from,      inside && i < set.computed,
            inside,         set.load_kept_only, set.store_kept_only};
  }
};

template <class Real, int Log2N>
__global__ void __launch_bounds__(TwoBlockTile<Real, Log2N>::threads, TwoBlockTile<Real, Log2N>::blocks)
    column_fft_kernel(ColumnSet set, const Complex<Real>* in, Complex<Real>* out, const Complex<Real>* table,
                      int sign, Dependence dependence) {
  follow(dependence);
  using S = TwoBlockTile<Real, Log2N>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const TileColumn<S> column(set);
  Complex<Real> v[S::V];
  passes<S, 0>(v, reinterpret_cast<Complex<Real>*>(shared_bytes), column.access(set, in, out), table, sign,
               int(threadIdx.x % S::C), int(threadIdx.x / S::C));
}

// With moved elements: a kernel of its own, so that the other keeps its registers (one kernel of both took
// 76 registers instead of 64 for 512-point single-precision columns, a block less on each SM: the 512^3
// single-precision dealiased pair 8-11 % slower on an H100).
template <class Real, int Log2N, int Direction>
__global__ void __launch_bounds__(TwoBlockTile<Real, Log2N>::threads, TwoBlockTile<Real, Log2N>::blocks)
    moved_column_fft_kernel(ColumnSet set, ColumnMoves moves, const Complex<Real>* in, Complex<Real>* out,
                            const Complex<Real>* table, int sign, Complex<Real>* moved,
                            Dependence dependence) {
  follow(dependence);
  using S = TwoBlockTile<Real, Log2N>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const TileColumn<S> column(set);
  const MovedColumnAccess<Real, Direction> x{column.access(set, in, out),
                                             moved + moves.offset + column.o * moves.outer_stride + column.i,
                                             moves.first,
                                             moves.first + moves.count,
                                             moves.stride,
                                             moves.loads};
  Complex<Real> v[S::V];
  passes<S, 0>(v, reinterpret_cast<Complex<Real>*>(shared_bytes), x, table, sign, int(threadIdx.x % S::C),
               int(threadIdx.x / S::C));
}

// The routed kernel's shared memory: the tile, then a pointer for each element.
template <class S>
constexpr std::size_t routed_places_offset() {
  return sizeof(typename S::Value) * S::N * S::C;
}

// With one side routed: a kernel of its own, as the moved one has. The block first puts where each
// element of its outer index lives in shared memory, after the tile: one pointer an element, which each
// load or store then reads there. Read from the route's rows at every access instead (three values an
// element from a table in global memory), the fused route's backward plane transforms (1024^3, single
// precision, one rank of 2, one H200) took 3.56 ms, with the pointers 2.76, the placed route's plain loads
// 2.70; where two blocks share a multiprocessor and both wait for their pointers the stores can lose (the
// realigned route's backward x transforms, 512^3 double, 2 ranks: 0.316 -> 0.360 ms;
// docs/results/fused_full_columns_h200.log). Stores built their table behind the first loads instead
// (session 44): that gained there and lost more elsewhere, up to 6 % at 1024^3 double
// (docs/results/routed_store_pointers_h200.log). Nor is reading the rows the cost: pointers computed from
// the rows as runs, which the kernel took as a parameter (a peer's chunk, the own rows, a run of kept rows),
// moved 512^3 within 1-2 % either way and made the fused route's backward transforms at 1024^3 3-5 % slower
// (session 45, docs/results/routed_row_runs_h200.log); nor is the table's shared memory: 32-bit offsets
// instead of pointers, the buffer in their sign, made the routed transforms up to 10 % slower
// (docs/results/routed_offsets_h200.log). The route's buffers are named apart: an array indexed at run time
// put the whole access object in local memory.
// Routed stores from tiles of 64-byte rows (1024-point columns in double precision, 2048-point ones) align
// the tiles to where they store, where the route's rows agree on it modulo whole 32-byte sectors
// (ElementRoute::stores), instead of to where they load: a 64-byte row stored across sector boundaries
// writes three sectors, two of them in part, and it is the loads that then straddle. The fused route's
// dealiased backward x transforms (1024^3 double, one rank of 2, 4, 8 on one H200) took 18 % less: 1.85
// -> 1.51 ms on 2 ranks. Tiles of 128-byte rows stay aligned to their loads: aligned to their stores, the
// same transforms took up to 12 % longer at 512^3 double (4 and 8 ranks) and moved within 1.5 % in single
// precision (docs/results/routed_store_alignment_h200.log). Stores into compact rows (by_compact: the
// dealiased x transforms' backward, whose compact rows, kept kz apart, start where the loads' rows, Nzc
// apart, do not) take tiles of 64-byte rows, aligned to the stores, where those of 128-byte rows would take
// 1024 threads (1024-point columns in single precision: one block a multiprocessor, two with 512 threads):
// the fused route's dealiased backward x transforms at 1024^3 took 2-6 % less on 2, 4 and 8 ranks (one H200,
// docs/results/routed_compact_stores_h200.log). Not elsewhere: at 512 points, where the wider tiles have 512
// threads already, the narrower ones took up to 34 % longer, and stores of full rows (Nzc apart, as the
// loads) 5 % longer at 1024 points.
template <class Real, int Log2N, bool Loads, int RowBytes>
__global__ void __launch_bounds__(Tile<Real, Log2N, RowBytes>::threads, Tile<Real, Log2N, RowBytes>::blocks)
    routed_column_fft_kernel(ColumnSet set, ElementRoute route, const Complex<Real>* in, Complex<Real>* out,
                             const Complex<Real>* table, int sign, Dependence dependence) {
  follow(dependence);
  using S = Tile<Real, Log2N, RowBytes>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  constexpr bool align_stores = !Loads && S::C * sizeof(Complex<Real>) == 64;
  const TileColumn<S> column(set, align_stores ? &route : nullptr);
  Complex<Real>** places = reinterpret_cast<Complex<Real>**>(shared_bytes + routed_places_offset<S>());
  const long index = route.by_compact ? column.compact : column.o;
  Complex<Real>* const first = static_cast<Complex<Real>*>(route.buffers[0]);
  Complex<Real>* const second = static_cast<Complex<Real>*>(route.buffers[1]);
  for (int e = int(threadIdx.x); e < S::N; e += S::threads) {
    const PlaneRow r = route.rows[e];
    places[e] = r.buffer < 0 ? nullptr : (r.buffer == 0 ? first : second) + (r.base + index * r.pitch);
  }
  __syncthreads();
  const RoutedColumnAccess<Real, Loads> x{column.access(set, in, out), places, column.i};
  Complex<Real> v[S::V];
  passes<S, 0>(v, reinterpret_cast<Complex<Real>*>(shared_bytes), x, table, sign, int(threadIdx.x % S::C),
               int(threadIdx.x / S::C));
}

// The outer indices [first, first + count) of a set, in the order of its two ranges.
ColumnSet outer_part(const ColumnSet& set, long first, long count) {
  ColumnSet part = set;
  const long end = first + count, in_first = set.outer_count[0];
  part.outer_first[0] = set.outer_first[0] + std::min(first, in_first);
  part.outer_count[0] = std::min(end, in_first) - std::min(first, in_first);
  part.outer_first[1] = set.outer_first[1] + std::max(first, in_first) - in_first;
  part.outer_count[1] = std::max(end, in_first) - std::max(first, in_first);
  part.compact_first = set.compact_first + first;
  return part;
}

// A grid has at most 65535 blocks along y, one per outer index: more go in several launches, the first
// depending on the kernel before it as told, the others waiting for the launch before them (a launch may skip
// the wait only after one that waited: core/DependentLaunch.cuh), the last releasing early as told.
constexpr long kMaxOuterPerLaunch = 65535;

template <class Real, int Log2N>
void launch(const ColumnSet& set, const Complex<Real>* in, Complex<Real>* out, const Complex<Real>* table,
            int sign, cudaStream_t stream, const ColumnMoves* moves, Complex<Real>* moved,
            const ElementRoute* route, Dependence dependence) {
  using Wide = Tile<Real, Log2N>;
  using Two = TwoBlockTile<Real, Log2N>;
  const long outer = set.outer_count[0] + set.outer_count[1];
  if (outer == 0 || set.inner == 0) return;
  if (outer > kMaxOuterPerLaunch) {
    for (long first = 0; first < outer; first += kMaxOuterPerLaunch) {
      const long count = std::min(kMaxOuterPerLaunch, outer - first);
      const Dependence part{first == 0 ? dependence.waits : true,
                            first + count == outer ? dependence.releases_early : false};
      launch<Real, Log2N>(outer_part(set, first, count), in, out, table, sign, stream, moves, moved, route,
                          part);
    }
    return;
  }
  // A grid of tiles (the columns and an alignment shift of up to C - 1, for tiles of C columns), each block
  // with `shared` bytes, which above 48 KiB a kernel must ask for.
  auto start = [&](auto kernel, auto tile, std::size_t shared, const auto&... arguments) {
    using S = decltype(tile);
    KOLMO_CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
    const dim3 grid{unsigned((set.inner + 2 * S::C - 2) / S::C), unsigned(outer)};
    launch_dependent(kernel, grid, S::threads, shared, stream, arguments...);
  };
  const std::size_t shared = sizeof(Complex<Real>) * Two::N * Two::C;
  if (route != nullptr) {
    auto routed = [&](auto kernel, auto tile) {
      using S = decltype(tile);
      start(kernel, tile, routed_places_offset<S>() + sizeof(void*) * S::N, set, *route, in, out, table, sign,
            dependence);
    };
    if (route->loads) return routed(routed_column_fft_kernel<Real, Log2N, true, 128>, Wide{});
    // Stores into compact rows from TwoBlockTile's tiles (the routed kernel's comment says why).
    if (route->by_compact)
      return routed(routed_column_fft_kernel<Real, Log2N, false, two_block_row_bytes<Real, Log2N>()>, Two{});
    routed(routed_column_fft_kernel<Real, Log2N, false, 128>, Wide{});
  } else if (moves != nullptr && moves->count > 0) {
    auto run = [&](auto kernel) {
      start(kernel, Two{}, shared, set, *moves, in, out, table, sign, moved, dependence);
    };
    if constexpr (!Two::held)
      run(moved_column_fft_kernel<Real, Log2N, -1>);
    else if (moves->loads)
      run(moved_column_fft_kernel<Real, Log2N, 1>);
    else
      run(moved_column_fft_kernel<Real, Log2N, 0>);
  } else {
    start(column_fft_kernel<Real, Log2N>, Two{}, shared, set, in, out, table, sign, dependence);
  }
}

template <class Real, int Log2N = kStockhamMinLog2>
void dispatch(int log2n, const ColumnSet& set, const Complex<Real>* in, Complex<Real>* out,
              const Complex<Real>* table, int sign, cudaStream_t stream, const ColumnMoves* moves,
              Complex<Real>* moved, const ElementRoute* route, Dependence dependence) {
  if constexpr (Log2N <= kStockhamMaxLog2) {
    if (log2n == Log2N)
      return launch<Real, Log2N>(set, in, out, table, sign, stream, moves, moved, route, dependence);
    dispatch<Real, Log2N + 1>(log2n, set, in, out, table, sign, stream, moves, moved, route, dependence);
  }
}

}  // namespace

bool column_fft_supports(long n) {
  return n >= (1L << kStockhamMinLog2) && n <= (1L << kStockhamMaxLog2) && (n & (n - 1)) == 0;
}

static int log2_of_supported(long n) {
  KOLMO_REQUIRE(column_fft_supports(n),
                "internal: column FFTs of length " + std::to_string(n) + " are not supported");
  int log2n = 0;
  while ((1L << log2n) < n) ++log2n;
  return log2n;
}

template <class Real>
void column_fft(const ColumnSet& set, const Complex<Real>* in, Complex<Real>* out,
                const Complex<Real>* twiddles, int sign, cudaStream_t stream, const ColumnMoves* moves,
                Complex<Real>* moved, Dependence dependence) {
  dispatch<Real>(log2_of_supported(set.n), set, in, out, twiddles, sign, stream, moves, moved, nullptr,
                 dependence);
}

template <class Real>
void column_fft(const ColumnSet& set, const Complex<Real>* in, Complex<Real>* out,
                const Complex<Real>* twiddles, int sign, cudaStream_t stream, const ElementRoute& route,
                Dependence dependence) {
  KOLMO_REQUIRE(route.rows != nullptr, "internal: a routed column FFT without its rows");
  dispatch<Real>(log2_of_supported(set.n), set, in, out, twiddles, sign, stream, nullptr, nullptr, &route,
                 dependence);
}

template void column_fft<float>(const ColumnSet&, const Complex<float>*, Complex<float>*,
                                const Complex<float>*, int, cudaStream_t, const ColumnMoves*, Complex<float>*,
                                Dependence);
template void column_fft<double>(const ColumnSet&, const Complex<double>*, Complex<double>*,
                                 const Complex<double>*, int, cudaStream_t, const ColumnMoves*,
                                 Complex<double>*, Dependence);
template void column_fft<float>(const ColumnSet&, const Complex<float>*, Complex<float>*,
                                const Complex<float>*, int, cudaStream_t, const ElementRoute&, Dependence);
template void column_fft<double>(const ColumnSet&, const Complex<double>*, Complex<double>*,
                                 const Complex<double>*, int, cudaStream_t, const ElementRoute&, Dependence);

}  // namespace kolmo::fft
