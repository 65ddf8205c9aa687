// Benchmark of kolmo's distributed FFT: the median time of a forward+backward pair after warm-up, split into
// computation and communication and into the phases of each direction (fft::Phase), and with one rank the
// same pair by the library's own 3D plan measured in the same run, with the ratio: cuFFT's on a GPU, FFTW's
// on the host (threaded alike, its pairs alternating with kolmo's, so that both see the same load).
//
//   mpiexec -n 4 kolmo_fft_bench --n 512 --precision single --backend cuda --exchange nccl --reps 20
//   OMP_NUM_THREADS=2 kolmo_fft_bench --n 128 --backend host --reps 30
//
// --emulate-ranks 2 4 8: one process does rank 0's complete work of a transform over P ranks (the slowest
// rank where slabs are uneven: it holds the most x planes, and the most ky planes with the even split and the
// most kept ones with the kept-row split), the all-to-all replaced by local copies of the same bytes
// (FftOptions::emulated_ranks), and prints each phase (medians of CUDA-event times; each transform starts
// on the device once the host has queued it, FftOptions::profile_held, unless --profile-unheld) and the
// ratio of the computation (every phase but the exchange) to (one device's pair) / P, timed the same way in
// the same run;
// by the copies, the fused routes and the strided one, its own rows copied or placed (--routes), full and
// dealiased (--modes), out of place, with the ky planes split evenly and/or by kept rows (--spectral-split;
// where another rank holds more ky planes than rank 0, as the middle ranks do with kept_rows, that rank's
// work as well). --log FILE appends one line per case (ONEGPU, PHASES: key=value) for tools/fft_model.py.
// With --pieces k the exchange goes in k pieces (the local work of the pieces then counts as exchange, and
// their copies run one after the other on the one GPU: the pair, compute + exchange, is what it costs).
//
// --fields F...: instead, F fields' pairs in transform lanes, one lane and F (fft/TransformLanes.hpp), the
// emulated exchanges moving nothing, against F times the one GPU's pair / P (fields_in_flight below).
//
//   kolmo_fft_bench --n 512 --precision single --backend cuda --emulate-ranks 2 4 8 --log phases.log
//   kolmo_fft_bench --n 512 --backend cuda --emulate-ranks 4 8 --routes strided --spectral-split even
//   kept_rows
#include <mpi.h>

#include <omp.h>
#include <CLI/CLI.hpp>

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/Buffer.hpp"
#include "core/Communicator.hpp"
#include "core/Error.hpp"
#include "fft/PhaseClock.hpp"
#include "fft/SlabFFT.hpp"
#include "fft/TransformLanes.hpp"
#include "tools/BenchSupport.hpp"
#include "tools/FftwReference.hpp"
#if defined(KOLMO_HAVE_CUDA)
#include "tools/CufftReference.hpp"
#endif

using namespace kolmo;
using namespace kolmo::fft;

using kolmo::tools::at_least_one;
using kolmo::tools::emulated_ranks_of;
using kolmo::tools::median;

namespace {

struct Settings {
  std::vector<long> n{64};
  std::string precision = "double", backend = "auto", exchange = "auto", one_rank_way = "automatic";
  std::string planning = "measure", wisdom = fft::default_cache_directory(), strided = "auto";
  std::string realigned = "auto";
  bool cuda_aware = false, in_place = false, peer = true, single_wire = false, dealiased = false;
  bool fused = true, unheld = false;
  int warmup = 3, reps = 10, pieces = 1, plane_groups = 0;
  std::vector<int> emulate;  // emulated rank counts
  std::vector<int> fields;   // emulated ranks: fields in flight (--fields)
  std::vector<std::string> routes{"copies", "fused", "realigned", "strided", "placed"},
      modes{"full", "dealiased"};
  std::string own_rows = "auto";
  std::vector<std::string> splits{"even"};  // fft::SpectralSplit names
  std::string log;
};

// Random values (zeros can run faster than real data): a block of them repeated over the buffer (filling a
// whole 1024^3 field from the host's generator takes longer than the benchmark).
template <class Real>
void fill_random(Buffer<Real>& buffer, int seed, std::size_t count) {
  const std::size_t block = std::min<std::size_t>(count, 1 << 22);
  std::vector<Real> host(block);
  std::mt19937 random(1234 + seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (auto& v : host) v = Real(uniform(random));
  for (std::size_t at = 0; at < count; at += block)
    buffer.device().copy_from_host(buffer.data() + at, host.data(),
                                   std::min(block, count - at) * sizeof(Real));
}

// Medians over repetitions of one pair's phases (event times, ms) and of its wall-clock time.
struct PairProfile {
  double wall_ms = 0, compute_ms = 0, exchange_ms = 0;
  double queued_ms = 0;  // the host's time to queue a pair
  double first_ms = 0;   // the first pair, the making of plans included
  double forward[kPhaseCount] = {}, backward[kPhaseCount] = {};
};

// key=value fields of a profile: fwd_planes=... bwd_zero=...
std::string phase_fields(const PairProfile& p) {
  std::string text;
  char field[64];
  for (int d = 0; d < 2; ++d)
    for (int phase = 0; phase < kPhaseCount; ++phase) {
      std::snprintf(field, sizeof(field), " %s_%s=%.4f", d == 0 ? "fwd" : "bwd", to_string(Phase(phase)),
                    (d == 0 ? p.forward : p.backward)[phase]);
      text += field;
    }
  return text;
}

// A log field's value: spaces as underscores ("one rank" -> one_rank).
std::string spaceless(std::string text) {
  std::replace(text.begin(), text.end(), ' ', '_');
  return text;
}

FftwPlanning fftw_planning(const Settings& s) {
  return s.planning == "measure"    ? FftwPlanning::measure
         : s.planning == "estimate" ? FftwPlanning::estimate
                                    : FftwPlanning::automatic;
}

template <class Real>
int run(const Settings& s, std::array<long, 3> n, std::shared_ptr<Device> device, int rank, int ranks) {
  FftOptions options;
  options.exchange = parse_exchange(s.exchange);
  options.cuda_aware_mpi = s.cuda_aware;
  options.single_precision_wire = s.single_wire;
  options.one_rank_dealiasing = parse_one_rank_dealiasing(s.one_rank_way);
  options.exchange_pieces = s.pieces;
  options.plane_groups = s.plane_groups;
  options.spectral_split = parse_spectral_split(s.splits.at(0));
  options.fftw_planning = fftw_planning(s);
  options.fftw_wisdom_directory = s.wisdom == "none" ? "" : s.wisdom;
  options.pack_in_ffts = s.fused;
  options.realigned_planes = s.realigned == "always"  ? RealignedPlanes::always
                             : s.realigned == "never" ? RealignedPlanes::never
                                                      : RealignedPlanes::automatic;
  options.strided_exchange = s.strided == "always"  ? StridedExchange::always
                             : s.strided == "never" ? StridedExchange::never
                                                    : StridedExchange::automatic;
  options.own_rows = s.own_rows == "placed"   ? OwnRows::placed
                     : s.own_rows == "copied" ? OwnRows::copied
                                              : OwnRows::automatic;
  const Modes modes = s.dealiased ? Modes::dealiased : Modes::all;
  // The construction's time, the slowest rank's: plans, the exchange's set-up and the timed choices.
  MPI_Barrier(MPI_COMM_WORLD);
  const double construction_start = MPI_Wtime();
  SlabFFT<Real> fft(n, MPI_COMM_WORLD, device, options);
  device->synchronize();
  double construction_s = MPI_Wtime() - construction_start;
  MPI_Allreduce(MPI_IN_PLACE, &construction_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const auto& l = fft.layout();
  auto data = fft.make_real();
  auto spectral = fft.make_spectral();
  fill_random(data, rank, data.size());
  auto* out = s.in_place ? reinterpret_cast<Complex<Real>*>(data.data()) : spectral.data();
  // The host peer: FFTW's own 3D plan on one rank, its pairs alternating with kolmo's.
  std::unique_ptr<tools::FftwReference> fftw;
  if (s.peer && ranks == 1 && device->backend() == Backend::host)
    fftw = std::make_unique<tools::FftwReference>(n, std::is_same_v<Real, double>, options.fftw_planning,
                                                  options.fftw_wisdom_directory);
  // With the peer, also the processor time of both pairs (all threads): on a machine shared with other work
  // it varies less than the wall-clock time, which waits for the processors too.
  std::vector<double> fftw_pairs, kolmo_cpu, fftw_cpu;
  auto cpu_ms = [] {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
  };
  auto pair_time = [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    fft.forward(data.data(), out, modes);
    fft.backward(out, data.data(), modes);
    device->synchronize();
    double local = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest * 1e3;
  };
  std::vector<double> pairs;
  for (int r = 0; r < s.warmup + s.reps; ++r) {
    const double cpu_start = cpu_ms();
    double ms = pair_time();
    const double cpu_middle = cpu_ms();
    if (r >= s.warmup) pairs.push_back(ms);
    if (fftw) {
      const double peer = fftw->pair_ms();
      if (r >= s.warmup) {
        fftw_pairs.push_back(peer);
        kolmo_cpu.push_back(cpu_middle - cpu_start);
        fftw_cpu.push_back(cpu_ms() - cpu_middle);
      }
    }
  }
  // The split comes from a second, profiled set of pairs (phases synchronised), so the totals above are
  // not slowed by the measurement.
  FftOptions profiling = options;
  profiling.profile = true;
  profiling.profile_held = !s.unheld;
  SlabFFT<Real> profiled(n, MPI_COMM_WORLD, device, profiling);
  // Each phase of each direction (fft::Phase), then the computation and the communication: the slowest
  // rank's time, median over the repetitions.
  constexpr int kComputation = 2 * kPhaseCount, kCommunication = 2 * kPhaseCount + 1;
  std::vector<std::vector<double>> phase_ms(2 * kPhaseCount + 2);
  for (int r = 0; r < s.warmup + s.reps; ++r) {
    profiled.reset_times();
    profiled.forward(data.data(), out, modes);
    profiled.backward(out, data.data(), modes);
    const PhaseTimes& t = profiled.times();
    std::vector<double> local(phase_ms.size()), slowest(phase_ms.size());
    for (int p = 0; p < kPhaseCount; ++p) {
      local[p] = t.forward[p];
      local[kPhaseCount + p] = t.backward[p];
    }
    local[kComputation] = t.compute;
    local[kCommunication] = t.communication;
    MPI_Allreduce(local.data(), slowest.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    if (r >= s.warmup)
      for (std::size_t p = 0; p < phase_ms.size(); ++p) phase_ms[p].push_back(slowest[p] * 1e3);
  }
  const std::vector<double>& compute = phase_ms[kComputation];
  const std::vector<double>& communication = phase_ms[kCommunication];
  // The all-to-all alone, same method and bytes as one transform's exchange, without FFTs around it: the
  // bandwidth the exchange method itself reaches on this machine.
  double plain_gbs = 0;
  if (ranks > 1) {
    auto exchange = make_exchange(fft.exchange_method(), MPI_COMM_WORLD, device, s.cuda_aware,
                                  l.alloc_complex() * sizeof(Complex<Real>));
    const Chunks& chunks = fft.forward_chunks();
    const double sent = double(chunks.total_send() - chunks.send_bytes[rank]);
    std::vector<double> seconds;
    for (int r = 0; r < s.warmup + s.reps; ++r) {
      device->synchronize();
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      exchange->run(spectral.data(), data.data(), chunks);
      device->synchronize();
      double local = MPI_Wtime() - start, slowest = 0;
      MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (r >= s.warmup) seconds.push_back(slowest);
    }
    plain_gbs = sent / median(seconds) / 1e9;
  }
  const double total = median(pairs);
  if (rank == 0) {
    std::printf("kolmo slab FFT %ld x %ld x %ld, %s%s, %d rank(s), backend %s (%s), exchange %s, %s%s\n",
                n[0], n[1], n[2], s.precision.c_str(), s.single_wire ? " (single on the wire)" : "", ranks,
                to_string(device->backend()).c_str(), device->name().c_str(),
                to_string(fft.exchange_method()).c_str(), s.in_place ? "in place" : "out of place",
                s.dealiased ? ", dealiased" : "");
    if (s.dealiased) std::printf("  dealiasing: %s\n", fft.dealiasing_report().c_str());
    if (!fft.planning_report().empty()) std::printf("  planning: %s\n", fft.planning_report().c_str());
    if (ranks > 1)
      std::printf("  %s\n  %s\n", fft.exchange_pieces_report().c_str(), fft.strided_report().c_str());
    std::printf("  workspace %.1f MiB per rank (scratch slab + FFT work area); field %.1f MiB\n",
                fft.workspace_bytes() / 1048576.0, 2.0 * l.alloc_complex() * sizeof(Real) / 1048576.0);
    std::printf("  construction %.2f s (the slowest rank)\n", construction_s);
    std::printf(
        "  pair (forward+backward): median %.3f ms over %d reps after %d warm-up (min %.3f, max %.3f)\n",
        total, s.reps, s.warmup, *std::min_element(pairs.begin(), pairs.end()),
        *std::max_element(pairs.begin(), pairs.end()));
    std::printf("  profiled split: computation %.3f ms, communication %.3f ms\n", median(compute),
                median(communication));
    // The phases a transform went through (fft::Phase; the exchange is the communication above).
    for (int d = 0; d < 2; ++d) {
      std::printf("  %s phases (profiled, medians, ms):", d == 0 ? "forward" : "backward");
      for (int p = 0; p < kPhaseCount; ++p)
        if (p != static_cast<int>(Phase::exchange) && median(phase_ms[d * kPhaseCount + p]) > 0)
          std::printf(" %s %.3f", to_string(Phase(p)), median(phase_ms[d * kPhaseCount + p]));
      std::printf("\n");
    }
    if (ranks > 1) {
      // Bytes this rank sends to others in one pair (forward and backward), over the communication time.
      double sent = 0;
      for (int q = 0; q < ranks; ++q)
        if (q != rank)
          sent += 2.0 * (s.dealiased ? l.compact_packed_count(q) : l.packed_count(q)) *
                  sizeof(Complex<Real>) / (s.single_wire && std::is_same_v<Real, double> ? 2 : 1);
      std::printf(
          "  exchange bandwidth in the transforms: %.1f GB/s sent per rank; the plain all-to-all alone "
          "(full transform's bytes): %.1f GB/s\n",
          sent / (median(communication) * 1e-3) / 1e9, plain_gbs);
    }
  }
  double peer_ms = 0;  // the peer's pair in the same run, where one was timed
#if defined(KOLMO_HAVE_CUDA)
  if (s.peer && ranks == 1 && device->backend() == Backend::cuda) {
    auto peer = tools::time_cufft_3d(n, std::is_same_v<Real, double>, s.warmup, s.reps);
    const double in_place = median(peer.in_place_ms), out_of_place = median(peer.out_of_place_ms);
    const double best = std::min(in_place, out_of_place);
    peer_ms = best;
    std::printf("  cuFFT 3D plan pair: in place %.3f ms, out of place %.3f ms\n", in_place, out_of_place);
    std::printf("  RESULT n=%ldx%ldx%ld %s kolmo %.3f ms cuFFT(best) %.3f ms ratio %.3f\n", n[0], n[1], n[2],
                s.precision.c_str(), total, best, total / best);
  }
  if (s.peer && ranks > 1 && device->backend() == Backend::cuda) {
    // The peer on the same GPUs: one process (rank 0) drives them all while the other ranks wait.
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      const double xt =
          median(tools::time_cufftxt_3d(n, std::is_same_v<Real, double>, ranks, s.warmup, s.reps));
      peer_ms = xt;
      std::printf("  cuFFTXt pair on %d GPUs: %.3f ms\n", ranks, xt);
      std::printf("  RESULT n=%ldx%ldx%ld %s%s%s gpus=%d kolmo %.3f ms cuFFTXt %.3f ms ratio %.3f\n", n[0],
                  n[1], n[2], s.precision.c_str(), s.single_wire ? "+single-wire" : "",
                  s.dealiased ? "+dealiased" : "", ranks, total, xt, total / xt);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
#endif
  if (rank == 0 && fftw) {
    const double peer = median(fftw_pairs);
    peer_ms = peer;
    std::printf("  FFTW 3D plan pair (out of place, %d threads): median %.3f ms (min %.3f)\n",
                omp_get_max_threads(), peer, *std::min_element(fftw_pairs.begin(), fftw_pairs.end()));
    std::printf(
        "  processor time of a pair (all threads), medians: kolmo %.3f ms, FFTW 3D %.3f ms, ratio %.3f\n",
        median(kolmo_cpu), median(fftw_cpu), median(kolmo_cpu) / median(fftw_cpu));
    std::printf(
        "  RESULT n=%ldx%ldx%ld %s%s ranks=1 threads=%d kolmo %.3f ms FFTW3D %.3f ms ratio %.3f cpu_ratio "
        "%.3f min_ratio %.3f\n",
        n[0], n[1], n[2], s.precision.c_str(), s.dealiased ? "+dealiased" : "", omp_get_max_threads(), total,
        peer, total / peer, median(kolmo_cpu) / median(fftw_cpu),
        *std::min_element(pairs.begin(), pairs.end()) /
            *std::min_element(fftw_pairs.begin(), fftw_pairs.end()));
  } else if (rank == 0 && peer_ms == 0) {  // no peer timed: several host ranks, or --no-peer
    std::printf("  RESULT n=%ldx%ldx%ld %s%s ranks=%d threads=%d kolmo %.3f ms\n", n[0], n[1], n[2],
                s.precision.c_str(), s.dealiased ? "+dealiased" : "", ranks, omp_get_max_threads(), total);
  }
  // With --log, one PAIR line per run for tools/fft_model.py --check: the case, the route and pieces that
  // the timed pairs took (and the profiled ones, which chose their own), the pair, the slowest rank's
  // computation and communication, and its phases.
  if (rank == 0 && !s.log.empty()) {
    const std::string route = fft.route_name(modes), profile_route = profiled.route_name(modes);
    PairProfile p;
    p.wall_ms = total;
    p.compute_ms = median(compute);
    p.exchange_ms = median(communication);
    for (int phase = 0; phase < kPhaseCount; ++phase) {
      p.forward[phase] = median(phase_ms[phase]);
      p.backward[phase] = median(phase_ms[kPhaseCount + phase]);
    }
    FILE* log = std::fopen(s.log.c_str(), "a");
    if (log == nullptr) throw Error("cannot open the log file " + s.log);
    std::fprintf(log,
                 "PAIR n=%ld precision=%s modes=%s ranks=%d backend=%s exchange=%s wire=%s split=%s "
                 "route=%s pieces=%d profile_route=%s profile_pieces=%d pair_ms=%.4f compute_ms=%.4f "
                 "exchange_ms=%.4f peer_ms=%.4f%s\n",
                 n[0], s.precision.c_str(), s.dealiased ? "dealiased" : "full", ranks,
                 to_string(device->backend()).c_str(), to_string(fft.exchange_method()).c_str(),
                 s.single_wire ? "single" : "native", s.splits.at(0).c_str(), spaceless(route).c_str(),
                 fft.exchange_pieces(modes), spaceless(profile_route).c_str(),
                 profiled.exchange_pieces(modes), p.wall_ms, p.compute_ms, p.exchange_ms, peer_ms,
                 phase_fields(p).c_str());
    std::fclose(log);
  }
  return 0;
}

template <class Real>
PairProfile profile_pairs(SlabFFT<Real>& fft, Modes modes, Real* data, Complex<Real>* spectral,
                          const Settings& s) {
  std::vector<double> wall, compute, exchange, queued, forward[kPhaseCount], backward[kPhaseCount];
  double first_ms = 0;
  for (int r = 0; r < s.warmup + s.reps; ++r) {
    fft.reset_times();
    fft.device().synchronize();
    const double start = MPI_Wtime();
    fft.forward(data, spectral, modes);
    fft.backward(spectral, data, modes);
    fft.device().synchronize();
    if (r == 0) first_ms = (MPI_Wtime() - start) * 1e3;
    if (r < s.warmup) continue;
    const PhaseTimes& t = fft.times();
    wall.push_back((MPI_Wtime() - start) * 1e3);
    compute.push_back(t.compute * 1e3);
    exchange.push_back(t.communication * 1e3);
    queued.push_back(t.queued * 1e3);
    for (int p = 0; p < kPhaseCount; ++p) {
      forward[p].push_back(t.forward[p] * 1e3);
      backward[p].push_back(t.backward[p] * 1e3);
    }
  }
  PairProfile result{median(wall), median(compute), median(exchange), median(queued), first_ms};
  for (int p = 0; p < kPhaseCount; ++p) {
    result.forward[p] = median(forward[p]);
    result.backward[p] = median(backward[p]);
  }
  return result;
}

Modes modes_of(const std::string& name) {
  return name == "dealiased" ? Modes::dealiased : Modes::all;
}

// Rank `rank`'s work of a transform over `ranks` emulated, by a route of --routes: copies, fused (the plane
// FFTs store the chunks), realigned, strided (the own rows copied) or placed.
FftOptions emulated_route(FftOptions options, const std::string& route, const std::string& split, int ranks,
                          int rank) {
  options.emulated_ranks = ranks;
  options.emulated_rank = rank;
  options.spectral_split = parse_spectral_split(split);
  options.pack_in_ffts = route == "fused" || route == "realigned";
  options.realigned_planes = route == "realigned" ? RealignedPlanes::always : RealignedPlanes::never;
  const bool strided = route == "strided" || route == "placed";
  options.strided_exchange = strided ? StridedExchange::always : StridedExchange::never;
  options.own_rows = route == "placed" ? OwnRows::placed : OwnRows::copied;
  return options;
}

template <class Real>
int emulate(const Settings& s, std::array<long, 3> n, std::shared_ptr<Device> device) {
  FILE* log = s.log.empty() ? nullptr : std::fopen(s.log.c_str(), "a");
  if (!s.log.empty() && log == nullptr) throw Error("cannot open the log file " + s.log);
  auto say = [&](const std::string& line) {
    std::printf("%s\n", line.c_str());
    if (log != nullptr) std::fprintf(log, "%s\n", line.c_str());
  };
  FftOptions profiling;
  profiling.profile = true;
  profiling.profile_held = !s.unheld;
  profiling.plane_groups = s.plane_groups;
  profiling.fftw_planning =
      fftw_planning(s);  // on the host: as asked, not estimated whatever --planning says
  profiling.fftw_wisdom_directory = s.wisdom == "none" ? "" : s.wisdom;
  char text[640];
  std::snprintf(text, sizeof(text),
                "kolmo slab FFT %ld x %ld x %ld, %s, emulated ranks on %s: one rank's work (rank 0's, "
                "the widest's, and dealiased the one with the most kept ky planes), "
                "the exchange by local copies; medians of %d pairs after %d warm-up, ms (device events)",
                n[0], n[1], n[2], s.precision.c_str(), device->name().c_str(), s.reps, s.warmup);
  std::printf("%s\n", text);
  std::printf("  %-9s %2s %-9s %-9s %4s | %-44s | %-44s | %8s %8s %8s %6s\n", "modes", "P", "route", "split",
              "rank", "forward: planes pack own x unpack zero", "backward: planes pack own x unpack zero",
              "exchange", "compute", "ideal", "ratio");
  // Buffers for the largest layout, one rank's.
  const SlabLayout whole(n, 1, 0);
  Buffer<Real> data(device, 2 * whole.alloc_complex());
  Buffer<Complex<Real>> spectral(device, whole.alloc_complex());
  Complex<Real>* spectrum = s.in_place ? reinterpret_cast<Complex<Real>*>(data.data()) : spectral.data();
  std::map<std::string, double> one_gpu;  // the one-device pair by modes
  for (const std::string& mode_name : s.modes) {
    fill_random(data, 0, data.size());
    const double construction_start = MPI_Wtime();
    SlabFFT<Real> one(n, MPI_COMM_SELF, device, profiling);
    const double construction_s = MPI_Wtime() - construction_start;
    const PairProfile p = profile_pairs(one, modes_of(mode_name), data.data(), spectrum, s);
    one_gpu[mode_name] = p.compute_ms + p.exchange_ms;
    std::snprintf(text, sizeof(text),
                  "ONEGPU n=%ld precision=%s modes=%s held=%d pair_ms=%.4f wall_ms=%.4f queued_ms=%.4f "
                  "construction_s=%.3f",
                  n[0], s.precision.c_str(), mode_name.c_str(), s.unheld ? 0 : 1, one_gpu[mode_name],
                  p.wall_ms, p.queued_ms, construction_s);
    say(text + phase_fields(p));
    if (!one.planning_report().empty())
      std::printf("  (one GPU %s: %s)\n", mode_name.c_str(), one.planning_report().c_str());
    if (modes_of(mode_name) == Modes::dealiased)
      std::printf("  (one GPU dealiasing: %s)\n", one.dealiasing_report().c_str());
    std::fflush(nullptr);
  }
  // Route by route, so that the copies are measured even if the other route should fail.
  for (const std::string& route : s.routes)
    for (const std::string& mode_name : s.modes)
      for (const std::string& split_name : s.splits)
        for (int ranks : s.emulate)
          for (int rank : emulated_ranks_of(n, ranks, parse_spectral_split(split_name), modes_of(mode_name)))
            try {
              const Modes modes = modes_of(mode_name);
              const double one_gpu_ms = one_gpu[mode_name];
              FftOptions options = emulated_route(profiling, route, split_name, ranks, rank);
              options.exchange_pieces = s.pieces;
              const bool packing_route = options.pack_in_ffts;
              const bool strided = options.strided_exchange == StridedExchange::always;
              if (route == "realigned" && modes == Modes::dealiased) continue;  // the same as fused
              // The construction's time: plans, and the timed choices (no choices kept from earlier runs).
              const double construction_start = MPI_Wtime();
              SlabFFT<Real> fft(n, MPI_COMM_SELF, device, options);
              const double construction_s = MPI_Wtime() - construction_start;
              fill_random(data, 0, 2 * fft.layout().alloc_complex());
              const PairProfile p = profile_pairs(fft, modes, data.data(), spectrum, s);
              const bool fused = fft.packs_in_ffts(modes);
              if (fused != packing_route)
                std::printf("  (%s %s P=%d: the copies, %s)\n", mode_name.c_str(), route.c_str(), ranks,
                            fft.packing_refusal().c_str());
              const SlabLayout& l = fft.layout();
              double sent = 0;  // bytes to other ranks in one pair
              for (int q = 0; q < ranks; ++q) {
                if (q == rank) continue;
                // Dealiased, the strided route sends the kept ky rows whole (the dropped kz with them).
                const double values = modes == Modes::all ? l.packed_count(q)
                                      : strided           ? double(l.x_count()) * l.kept_y_count(q) * l.nzc()
                                                          : l.compact_packed_count(q);
                sent += 2.0 * values * sizeof(Complex<Real>);
              }
              const double ideal = one_gpu_ms / ranks;
              std::snprintf(text, sizeof(text),
                            "PHASES n=%ld precision=%s modes=%s ranks=%d rank=%d route=%s split=%s "
                            "y_count=%ld kept_y=%ld pieces=%d held=%d in_place=%d "
                            "fused=%d one_gpu_pair_ms=%.4f compute_ms=%.4f exchange_ms=%.4f wall_ms=%.4f "
                            "queued_ms=%.4f first_pair_ms=%.1f "
                            "ratio=%.4f sent_bytes=%.0f construction_s=%.3f",
                            n[0], s.precision.c_str(), mode_name.c_str(), ranks, rank, route.c_str(),
                            split_name.c_str(), l.y_count(), l.kept_y_count(), fft.exchange_pieces(modes),
                            s.unheld ? 0 : 1, int(s.in_place), fused ? 1 : 0, one_gpu_ms, p.compute_ms,
                            p.exchange_ms, p.wall_ms, p.queued_ms, p.first_ms, p.compute_ms / ideal, sent,
                            construction_s);
              if (log != nullptr) std::fprintf(log, "%s%s\n", text, phase_fields(p).c_str());
              auto phases = [](const double* t) {
                char row[128];
                const Phase order[] = {Phase::planes, Phase::pack,   Phase::own_chunk,
                                       Phase::x,      Phase::unpack, Phase::zero};
                std::string out;
                for (Phase phase : order) {
                  std::snprintf(row, sizeof(row), " %6.3f", t[static_cast<int>(phase)]);
                  out += row;
                }
                return out;
              };
              std::printf("  %-9s %2d %-9s %-9s %4d |%-45s |%-45s | %8.3f %8.3f %8.3f %6.3f%s\n",
                          mode_name.c_str(), ranks, route.c_str(), split_name.c_str(), rank,
                          phases(p.forward).c_str(), phases(p.backward).c_str(), p.exchange_ms, p.compute_ms,
                          ideal, p.compute_ms / ideal, fused == packing_route ? "" : " (copies)");
              if (!fft.planning_report().empty()) std::printf("    (%s)\n", fft.planning_report().c_str());
              std::fflush(nullptr);  // what was measured survives a crash or a time limit later on
            } catch (const std::exception& e) {
              std::printf("  %-9s %2d %-9s %-9s %4d FAILED: %s\n", mode_name.c_str(), ranks, route.c_str(),
                          split_name.c_str(), rank, e.what());
              std::fflush(nullptr);
            }
  if (log != nullptr) std::fclose(log);
  return 0;
}

// --fields F...: F fields' pairs (each field's forward, then each field's backward, as a solver's stage sends
// them) through the library's transform lanes (fft/TransformLanes.hpp): one lane, the fields one after
// another on one stream, or F lanes, a stream each. Each round is timed on the device by a held PhaseClock
// (fft/PhaseClock.hpp: the device starts once the host has queued the round), the medians of --reps after
// --warmup. Emulated ranks' exchanges move nothing (FftOptions::emulated_exchange_moves), so that the time is
// the computation alone, the phases of the fields overlapping where they have lanes of their own. The ratio
// is against F times the one GPU's pair in one lane / P, timed the same way in the same run, and, in_flight,
// against the one GPU's F fields in F lanes / P.
template <class Real>
int fields_in_flight(const Settings& s, std::array<long, 3> n, const std::shared_ptr<Device>& device) {
  FILE* log = s.log.empty() ? nullptr : std::fopen(s.log.c_str(), "a");
  if (!s.log.empty() && log == nullptr) throw Error("cannot open the log file " + s.log);
  std::printf(
      "kolmo slab FFT %ld x %ld x %ld, %s, on %s: F fields' pairs in 1 or F transform lanes, emulated ranks' "
      "exchanges moving nothing; device ms of all F pairs, medians of %d after %d warm-up\n",
      n[0], n[1], n[2], s.precision.c_str(), device->name().c_str(), s.reps, s.warmup);
  // The device time of F fields' pairs in `lanes` lanes.
  auto time_fields = [&](const FftOptions& options, Modes modes, int fields, int lanes) {
    SlabFFT<Real> first(n, MPI_COMM_SELF, device, options);
    TransformLanes<Real> in_lanes(first, lanes);
    std::vector<Buffer<Real>> data;
    std::vector<Buffer<Complex<Real>>> spectra;
    std::vector<std::pair<const Real*, Complex<Real>*>> forward;
    std::vector<std::pair<const Complex<Real>*, Real*>> backward;
    for (int f = 0; f < fields; ++f) {
      data.push_back(first.make_real());
      if (!s.in_place) spectra.push_back(first.make_spectral());
      fill_random(data.back(), f, data.back().size());
      Complex<Real>* spectrum =
          s.in_place ? reinterpret_cast<Complex<Real>*>(data.back().data()) : spectra.back().data();
      forward.emplace_back(data.back().data(), spectrum);
      backward.emplace_back(spectrum, data.back().data());
    }
    PhaseClock clock(device, true);
    std::vector<double> ms;
    for (int r = 0; r < s.warmup + s.reps; ++r) {
      clock.start();
      in_lanes.forward(forward, modes);
      in_lanes.backward(backward, modes);
      clock.lap(0);
      double seconds = 0;
      clock.add_to(&seconds);
      if (r >= s.warmup) ms.push_back(1e3 * seconds);
    }
    return median(ms);
  };
  for (const std::string& mode_name : s.modes) {
    const Modes modes = modes_of(mode_name);
    FftOptions base;
    base.plane_groups = s.plane_groups;
    const double one_pair = time_fields(base, modes, 1, 1);
    std::map<int, double> one_gpu_in_flight;
    for (int fields : s.fields)
      one_gpu_in_flight[fields] = fields == 1 ? one_pair : time_fields(base, modes, fields, fields);
    for (const std::string& route : s.routes)
      for (const std::string& split_name : s.splits)
        for (int ranks : s.emulate)
          for (int rank : emulated_ranks_of(n, ranks, parse_spectral_split(split_name), modes))
            for (int fields : s.fields)
              for (int lanes : fields == 1 ? std::vector<int>{1} : std::vector<int>{1, fields}) {
                FftOptions options = emulated_route(base, route, split_name, ranks, rank);
                options.emulated_exchange_moves = false;
                const double ms = time_fields(options, modes, fields, lanes);
                const double share = fields * one_pair / ranks;
                const double in_flight = one_gpu_in_flight[fields] / ranks;
                char text[512];
                std::snprintf(text, sizeof(text),
                              "FIELDS n=%ld precision=%s modes=%s ranks=%d rank=%d route=%s split=%s "
                              "in_place=%d fields=%d lanes=%d ms=%.4f one_gpu_pair_ms=%.4f "
                              "one_gpu_fields_ms=%.4f ratio=%.4f ratio_in_flight=%.4f",
                              n[0], s.precision.c_str(), mode_name.c_str(), ranks, rank, route.c_str(),
                              split_name.c_str(), int(s.in_place), fields, lanes, ms, one_pair,
                              in_flight * ranks, ms / share, ms / in_flight);
                std::printf("%s\n", text);
                if (log != nullptr) std::fprintf(log, "%s\n", text);
                std::fflush(nullptr);
              }
  }
  if (log != nullptr) std::fclose(log);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const MpiRuntime mpi(argc, argv);
  const int rank = mpi.rank(), ranks = mpi.size();
  Settings s;
  CLI::App app{"kolmo_fft_bench: time kolmo's distributed 3D FFT (forward+backward pairs)"};
  app.add_option("--n", s.n, "grid: one size (cube) or three sizes Nx Ny Nz")->expected(1, 3);
  app.add_option("--precision", s.precision, "single or double")->check(CLI::IsMember({"single", "double"}));
  app.add_option("--backend", s.backend, "auto, host or cuda")
      ->check(CLI::IsMember({"auto", "host", "cuda"}));
  app.add_option("--exchange", s.exchange, "auto, isend_irecv, alltoallv or nccl");
  app.add_flag("--cuda-aware", s.cuda_aware, "the MPI library accepts GPU pointers");
  app.add_flag("--in-place", s.in_place, "transform in place (also emulated ranks' phases and --fields)");
  app.add_flag("--single-wire", s.single_wire, "double precision sent as single through the all-to-all");
  app.add_flag("--dealiased", s.dealiased, "dealiased transforms (2/3-rule modes only; the peer stays full)");
  app.add_option("--one-rank-way", s.one_rank_way, "one rank: how dealiased transforms drop modes")
      ->check(CLI::IsMember(one_rank_dealiasing_names()));
  app.add_option("--plane-groups", s.plane_groups,
                 "GPU, dealiased plane transforms by row and column FFTs: in this many groups on two streams "
                 "(0: chosen by timing; 1: one group)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--pieces", s.pieces, "several ranks: all-to-all in this many pieces (0: chosen by timing)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("!--no-peer", s.peer, "skip the library's own 3D plan (cuFFT's or FFTW's)");
  app.add_option("--planning", s.planning, "host: FFTW plans measured, estimated, or automatic (by size)")
      ->check(CLI::IsMember({"measure", "estimate", "automatic"}));
  app.add_option("--wisdom", s.wisdom, "host: directory of the FFTW wisdom files, or none")
      ->default_str(s.wisdom);
  app.add_flag("!--no-fused", s.fused, "several GPU ranks: pack by copies, not in cuFFT's kernels");
  app.add_option("--realigned-planes", s.realigned,
                 "several GPU ranks, packing in the FFTs: full transforms with realigned planes always, "
                 "never (the plane FFTs store the chunks) or auto")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option(
         "--strided", s.strided,
         "several ranks: the strided route (the exchange copies rows between the FFTs' layouts) where "
         "copy engines move them (auto), wherever the exchange can (always: also MPI on the host), "
         "or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--own-rows", s.own_rows,
                 "several GPU ranks, the strided route: the own rows placed by the plane transforms, copied, "
                 "or auto (dealiased placed, full by timing)")
      ->check(CLI::IsMember({"auto", "placed", "copied"}));
  app.add_option("--emulate-ranks", s.emulate, "one rank's work of transforms over these rank counts, here")
      ->check(at_least_one<int>());
  app.add_option(
         "--fields", s.fields,
         "emulated ranks: instead of the phases, these many fields' pairs in one transform lane and in "
         "one lane each, the exchanges moving nothing (the computation alone)")
      ->check(at_least_one<int>());
  app.add_option(
         "--routes", s.routes,
         "emulated ranks: copies, fused (the plane FFTs store the chunks), realigned (full: realigned "
         "planes, the x FFTs load and store the chunks), strided (the exchange copies rows between the FFTs' "
         "layouts, the own rows by a copy), placed (strided, the own rows placed by the plane FFTs)")
      ->check(CLI::IsMember({"copies", "fused", "realigned", "strided", "placed"}));
  app.add_option("--modes", s.modes, "emulated ranks: full and/or dealiased")
      ->check(CLI::IsMember({"full", "dealiased"}));
  app.add_option("--spectral-split", s.splits,
                 "how the ky planes are split among ranks: even, kept_rows (the kept rows of dealiased "
                 "transforms balanced); emulated ranks: one or both, each timed; real ranks: the first")
      ->check(CLI::IsMember(spectral_split_names()));
  app.add_flag("--profile-unheld", s.unheld,
               "profiles: the device starts each transform as soon as its first work is queued (the host's "
               "launching then counts in the phases), not once the host has queued it all");
  app.add_option("--log", s.log,
                 "append the results to this file, one line per case: PHASES lines of emulated ranks, else a "
                 "PAIR line (tools/fft_model.py reads both)");
  app.add_option("--warmup", s.warmup, "untimed pairs first")->check(CLI::NonNegativeNumber);
  app.add_option("--reps", s.reps, "timed pairs")->check(at_least_one<int>());
  int status = 0;
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return rank == 0 ? app.exit(e) : 1;
    }
    if (s.n.size() == 2) {
      if (rank == 0)
        std::fprintf(stderr, "kolmo_fft_bench: --n takes one size (a cube) or three (Nx Ny Nz), not two\n");
      return 1;
    }
    std::array<long, 3> n{s.n[0], s.n.size() == 3 ? s.n[1] : s.n[0], s.n.size() == 3 ? s.n[2] : s.n[0]};
    // The log is written after the timings: a log that cannot be opened is said before them, not after, by
    // rank 0 alone while every rank leaves (an error thrown on rank 0 alone ends in MPI_Abort's own lines).
    if (!s.log.empty()) {
      int failed = 0;
      if (rank == 0) {
        FILE* log = std::fopen(s.log.c_str(), "a");
        failed = log == nullptr;
        if (failed)
          std::fprintf(stderr, "kolmo_fft_bench: cannot open the log file %s: %s\n", s.log.c_str(),
                       std::strerror(errno));
        else
          std::fclose(log);
      }
      KOLMO_CHECK_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
      if (failed) return 1;
    }
    share_node_cores(MPI_COMM_WORLD);
    Backend backend = s.backend == "auto" ? Device::automatic() : parse_backend(s.backend);
    auto device = Device::create(backend, node_rank(MPI_COMM_WORLD));
    // Options of GPU runs change nothing on the host: said, rather than a run timed as if they had.
    const char* gpu_option = s.cuda_aware            ? "--cuda-aware"
                             : s.plane_groups != 0   ? "--plane-groups"
                             : !s.fused              ? "--no-fused"
                             : s.realigned != "auto" ? "--realigned-planes"
                             : s.unheld              ? "--profile-unheld"
                                                     : nullptr;
    if (device->backend() == Backend::host && gpu_option != nullptr) {
      if (rank == 0)
        std::fprintf(stderr, "kolmo_fft_bench: %s is an option of GPU runs (the backend here is host)\n",
                     gpu_option);
      return 1;
    }
    if (!s.fields.empty() && s.emulate.empty()) {
      if (rank == 0) std::fprintf(stderr, "kolmo_fft_bench: --fields needs --emulate-ranks\n");
      return 1;
    }
    if (!s.fields.empty())
      status = s.precision == "double" ? fields_in_flight<double>(s, n, device)
                                       : fields_in_flight<float>(s, n, device);
    else if (!s.emulate.empty())
      status = s.precision == "double" ? emulate<double>(s, n, device) : emulate<float>(s, n, device);
    else
      status = s.precision == "double" ? run<double>(s, n, device, rank, ranks)
                                       : run<float>(s, n, device, rank, ranks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kolmo_fft_bench: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return status;
}
