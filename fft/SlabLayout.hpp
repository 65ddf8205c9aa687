// Which part of the global grid each rank holds, in real and in spectral space.
//
// Contract (all sizes in elements; the grid is Nx x Ny x Nz real points, Nzc = Nz/2 + 1 complex modes in z):
// - x planes are split as evenly as possible: with n planes over p ranks, the first n mod p ranks get one
//   plane more. ky planes are split as the SpectralSplit asks (fft/SpectralSplit.hpp): the same way (even,
//   the default), or balanced by the ky planes dealiased transforms keep (kept_rows); either way each rank
//   holds one contiguous range of at least one plane, and every layout of a transform must use its split.
// - Real space: rank r holds x planes [x_offset(r), x_offset(r) + x_count(r)), stored [x][y][z], z fastest,
//   no padding: real_size() = x_count * Ny * Nz reals.
// - Spectral space: rank r holds ky planes [y_offset(r), y_offset(r) + y_count(r)), all kx and kz = 0..Nz/2,
//   stored [kx][ky][kz], kz fastest: spectral_size() = Nx * y_count * Nzc complex values. kx-major order
//   makes each peer's chunk a contiguous block, so received chunks land in place with no transpose.
// - alloc_complex() complex values (2 * alloc_complex() reals) hold either form and every intermediate of a
//   transform; allocate fields passed to SlabFFT with at least that many.
// - The constructor refuses grids that cannot be split or transformed (a size < 1 or above 2^31 - 1, the FFT
//   libraries' int lengths; a double-precision spectrum whose bytes overflow 64-bit sizes; more ranks than Nx
//   or Ny planes) by throwing kolmo::Error; every rank computes the same verdict, so all ranks fail together
//   before anything is allocated.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "SpectralSplit.hpp"

namespace kolmo::fft {

// Even split of n items over parts: count(r) and offset(r) for part r.
struct Split {
  long n = 0;
  int parts = 1;
  long count(int r) const { return n / parts + (r < n % parts ? 1 : 0); }
  long offset(int r) const { return r * (n / parts) + (r < n % parts ? r : n % parts); }
};

class SlabLayout {
 public:
  SlabLayout(std::array<long, 3> n, int ranks, int rank, SpectralSplit split = SpectralSplit::even);

  std::array<long, 3> global() const { return {nx_, ny_, nz_}; }
  long nx() const { return nx_; }
  long ny() const { return ny_; }
  long nz() const { return nz_; }
  long nzc() const { return nz_ / 2 + 1; }
  int ranks() const { return ranks_; }
  int rank() const { return rank_; }
  SpectralSplit spectral_split() const { return split_; }

  // Real-space slab of rank r (default: this rank).
  long x_count(int r) const { return x_split_.count(r); }
  long x_offset(int r) const { return x_split_.offset(r); }
  long x_count() const { return x_count(rank_); }
  long x_offset() const { return x_offset(rank_); }
  // Spectral slab of rank r.
  long y_count(int r) const { return y_starts_[r + 1] - y_starts_[r]; }
  long y_offset(int r) const { return y_starts_[r]; }
  long y_count() const { return y_count(rank_); }
  long y_offset() const { return y_offset(rank_); }
  // The first rank with the most ky planes (rank 0 with the even split, a middle one with kept_rows).
  int widest_spectral_rank() const;

  std::size_t real_size() const { return static_cast<std::size_t>(x_count() * ny_ * nz_); }
  std::size_t spectral_size() const { return static_cast<std::size_t>(nx_ * y_count() * nzc()); }
  // Complex values of the yz-transformed real slab, [x][y][kz], before the exchange.
  std::size_t planes_size() const { return static_cast<std::size_t>(x_count() * ny_ * nzc()); }
  std::size_t alloc_complex() const;

  // A range of x planes of one rank's slab, in that rank's local indices: a piece of a pipelined exchange,
  // or the whole slab.
  struct Planes {
    long first = 0, count = 0;
  };
  Planes all_planes(int q) const { return {0, x_count(q)}; }
  // Piece j of rank q's planes split into `pieces` (evenly, some possibly empty). Where a plane holds an odd
  // number of reals (Ny Nz odd) pieces start on even planes, so that every piece's real data are aligned to a
  // complex value: cuFFT refuses other real arrays (CUFFT_INVALID_VALUE, found on an H100 at 9 x 7 x 5).
  Planes piece(int q, int j, int pieces) const;

  // The chunk this rank exchanges with peer q: planes `mine` of this slab x y_count(q) x Nzc values going out
  // in the forward transform, planes `theirs` of q's slab x y_count(this) x Nzc coming in (the whole slabs
  // when not given). Offsets are where the chunk sits in the packed buffer and in the spectral slab
  // [kx][ky][kz]. The packed buffer is piece-major: this rank's planes [first, first + count) take
  // packed_plane() values each from first x packed_plane() on, laid out [q][x][y in q][kz] within.
  long packed_plane() const { return ny_ * nzc(); }
  std::size_t packed_count(int q, Planes mine) const {
    return static_cast<std::size_t>(mine.count * y_count(q) * nzc());
  }
  std::size_t packed_offset(int q, Planes mine) const {
    return static_cast<std::size_t>(mine.first * packed_plane() + mine.count * y_offset(q) * nzc());
  }
  std::size_t spectral_chunk_count(int /*q*/, Planes theirs) const {
    return static_cast<std::size_t>(theirs.count * y_count() * nzc());
  }
  std::size_t spectral_chunk_offset(int q, Planes theirs) const {
    return static_cast<std::size_t>((x_offset(q) + theirs.first) * y_count() * nzc());
  }
  std::size_t packed_count(int q) const { return packed_count(q, all_planes(rank_)); }
  std::size_t packed_offset(int q) const { return packed_offset(q, all_planes(rank_)); }
  std::size_t spectral_chunk_count(int q) const { return spectral_chunk_count(q, all_planes(q)); }
  std::size_t spectral_chunk_offset(int q) const { return spectral_chunk_offset(q, all_planes(q)); }

  // Dealiased (truncated) transforms move only the modes the 2/3 rule keeps in y and z: 3 |n_y| < Ny and
  // 3 n_z < Nz (n the signed mode index). The kept ky planes of rank q form at most two
  // runs of consecutive global indices; kept data are stored compactly, kz fastest with kept_z() values per
  // row, in the same orders as the full layouts.
  struct Run {
    long start, count;  // global ky index of the first plane, number of planes
  };
  static bool kept(long index, long n);  // is mode index (0..n-1) kept by the 2/3 rule
  // The kept indices of a whole axis of n: [0, below) and [from, n), from = n where none above are kept.
  struct KeptBounds {
    long below, from;
  };
  static KeptBounds kept_bounds(long n);
  long kept_z() const { return (nz_ - 1) / 3 + 1; }  // kz with 3 kz < Nz
  const std::vector<Run>& kept_runs(int q) const { return kept_runs_[q]; }
  // One rank: the columns (index ky * nzc + kz of a [ky][kz] plane) that x transforms of the kept ky rows
  // cover, one run per kept ky run, each start rounded down to a multiple of kColumnAlignment. cuFFT's
  // strided single-precision x transforms run at half speed from other starts (measured on an H100); the
  // extra columns belong to dropped rows, and transforming them is harmless. Runs never overlap (one that
  // would reach back into the one before is merged with it), so that they may be transformed in place.
  static constexpr long kColumnAlignment = 16;
  const std::vector<Run>& kept_column_runs() const { return kept_column_runs_; }
  long kept_y_count(int q) const { return kept_y_count_[q]; }
  long kept_y_count() const { return kept_y_count(rank_); }
  long kept_y_before(int q) const { return kept_y_before_[q]; }  // kept ky planes of ranks before q
  long kept_y_total() const { return kept_y_before_[ranks_ - 1] + kept_y_count_[ranks_ - 1]; }
  // Values in the compact spectral slab [kx][kept ky][kept kz].
  std::size_t compact_spectral_size() const {
    return static_cast<std::size_t>(nx_ * kept_y_count() * kept_z());
  }
  // The same for dealiased transforms: [q][x][kept ky of q][kept kz] within each piece of the packed
  // buffer, the compact spectral slab [kx][kept ky][kept kz] on the other side.
  long compact_packed_plane() const { return kept_y_total() * kept_z(); }
  std::size_t compact_packed_count(int q, Planes mine) const {
    return static_cast<std::size_t>(mine.count * kept_y_count(q) * kept_z());
  }
  std::size_t compact_packed_offset(int q, Planes mine) const {
    return static_cast<std::size_t>(mine.first * compact_packed_plane() +
                                    mine.count * kept_y_before(q) * kept_z());
  }
  std::size_t compact_chunk_count(int /*q*/, Planes theirs) const {
    return static_cast<std::size_t>(theirs.count * kept_y_count() * kept_z());
  }
  std::size_t compact_chunk_offset(int q, Planes theirs) const {
    return static_cast<std::size_t>((x_offset(q) + theirs.first) * kept_y_count() * kept_z());
  }
  std::size_t compact_packed_count(int q) const { return compact_packed_count(q, all_planes(rank_)); }
  std::size_t compact_packed_offset(int q) const { return compact_packed_offset(q, all_planes(rank_)); }
  std::size_t compact_chunk_count(int q) const { return compact_chunk_count(q, all_planes(q)); }
  std::size_t compact_chunk_offset(int q) const { return compact_chunk_offset(q, all_planes(q)); }

  // "256 x 256 x 256 over 4 ranks: 64 x planes, 64 ky planes per rank"; with the kept-row split
  // "512 x 512 x 512 over 4 ranks: 128 x planes, 85-171 ky planes per rank (85-86 kept)"
  std::string describe() const;

 private:
  long nx_, ny_, nz_;
  int ranks_, rank_;
  SpectralSplit split_;
  Split x_split_;
  std::vector<long> y_starts_;  // rank r's ky planes: [y_starts_[r], y_starts_[r + 1])
  std::vector<std::vector<Run>> kept_runs_;
  std::vector<Run> kept_column_runs_;
  std::vector<long> kept_y_count_, kept_y_before_;
};

}  // namespace kolmo::fft
