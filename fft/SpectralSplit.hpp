// How SlabLayout shares the ky planes of the spectral slab among ranks (each rank a contiguous range).
//
// Contract:
// - even: n planes over p ranks as evenly as possible, the first n mod p ranks one plane more (as the x
//   planes of the real slab). Full transforms move and transform every ky plane: this balances them.
// - kept_rows: the ky planes the 2/3 rule keeps (SlabLayout::kept: 3|n_y| < Ny, the first ~Ny/3 planes and
//   the last ~Ny/3) shared evenly, the counts of any two ranks differing by at most 1, and among such splits
//   the one whose plane counts are most even (the least sum of their squares): every rank but one or two
//   in the middle holds only kept planes, and those take the dropped middle planes. Dealiased transforms
//   across ranks move and x-transform the kept rows only, so this balances their exchange and x FFTs; with
//   the even split the first and last ranks hold all kept rows (at Ny = 512 on 4 ranks 128 kept planes,
//   against 43 on the middle two and 85 on average). The price is the middle ranks' wider spectral slabs,
//   whose memory and spectral pointwise work grow with them: about (P/6 + 2/3) x the even slab on an even
//   number P of ranks (two middle ranks share the dropped planes; at Ny = 512: 171 planes against 128 on 4
//   ranks, 128 against 64 on 8; 11 x on 64), (P/3 + 2/3) x on an odd number (one takes them all: 284
//   against 171 on 3), so it is for a few ranks only; on 2 ranks the two splits are the same. With fewer kept
//   planes than ranks (more than about 2 Ny / 3 ranks, each holding one or two planes) it is the even split.
//   With a granule g > 1 the kept-row split's starts are then rounded to multiples of g, each down or up,
//   whichever way keeps the kept counts most even (then the plane counts; exhaustively up to 12 ranks, else
//   to the nearest), every rank keeping a plane, where every rank keeps 8 g planes or more (small slabs stay
//   unrounded: the rounding would unbalance them more than their alignment is worth). Rounded, the kept
//   counts differ by g at most in every split tested (Ny to 1024, 2 to 8 ranks). Why: a
//   rank's x columns are rows of y_count * Nzc values apart; where that is not a whole number of 32-byte
//   sectors, rows of 128 bytes straddle sectors, and its x FFTs ran 1.2-1.4 x slower per column on an H100
//   (one rank of 4 and 8 at 512^3 and 1024^3: docs/results/fft_emulated_ranks_placed_h100.log).
// - spectral_starts(split, ny, ranks, granule): the first plane of each rank, then ny (ranks + 1 values), the
//   same on every rank, each rank at least one plane; requires 1 <= ranks <= ny (SlabLayout checks), granule
//   >= 1. O(Ny + ranks), and O(Ny + 2^ranks ranks) with a granule.
// - automatic_spectral_split(ranks, dealiased): the split for a transform used mostly in the given mode:
//   kept_rows for dealiased transforms (a Navier-Stokes run's) on 3 to 8 ranks, even otherwise (2 ranks: the
//   two are the same; full transforms: even balances them). Why: with the even split the first and last
//   ranks hold 1.5 x the average kept planes from 3 ranks on, and a step's dealiased work follows the kept
//   planes (the x FFTs, the exchange, the stage's update of the kept modes), so those ranks set the pace. One
//   rank's Navier-Stokes step, one H200, 512^3 RK4, the slowest rank of each split against the one GPU's step
//   / P (kolmo_solver_bench --emulate-ranks, 1 lane / 3 lanes; docs/results/spectral_split_step_h200.log):
//   single precision, even -> kept_rows, 3 ranks 1.28 / 1.24 -> 1.08 / 1.01, 4 ranks 1.21 / 1.13 -> 1.10 /
//   1.02, 8 ranks 1.29 / 1.16 -> 1.20 / 1.08; on 16 ranks 1.41 / 1.20 -> 1.36 / 1.22, no better, for middle
//   ranks 3.3 x as wide (memory), so more ranks keep the even split.
// - sector_granule(nzc): the least g (1, 2 or 4) with g Nzc single-precision complex values a whole number of
//   32-byte sectors (SlabLayout's granule for kept_rows).
#pragma once

#include <string>
#include <vector>

namespace kolmo::fft {

enum class SpectralSplit { even, kept_rows };
// The names, in the enum's order: "even", "kept_rows".
const std::vector<std::string>& spectral_split_names();
// One of those names; throws Error naming them all otherwise.
SpectralSplit parse_spectral_split(const std::string& name);
const std::string& to_string(SpectralSplit split);

std::vector<long> spectral_starts(SpectralSplit split, long ny, int ranks, long granule = 1);
SpectralSplit automatic_spectral_split(int ranks, bool dealiased);
long sector_granule(long nzc);

}  // namespace kolmo::fft
