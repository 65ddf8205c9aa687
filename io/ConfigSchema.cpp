#include "io/ConfigSchema.hpp"

#include <array>

namespace kolmo::io {

namespace {

using enum ValueKind;

constexpr std::string_view navier_stokes = "problem is navier_stokes";

// Every key of the configuration. Keep sections contiguous: to_yaml writes keys in this order.
constexpr std::array keys = {
    SchemaKey{"grid.n", integer_triple, "64", ">= 1", "",
              "grid points along x, y, z (one number: the same on all three); odd sizes are allowed; at most "
              "2^20 a side and 2^50 in all"},
    SchemaKey{
        "grid.box", length_triple, "2pi", "> 0", "",
        "box lengths Lx, Ly, Lz; numbers, or multiples of pi written pi, 2pi or 2*pi; refused where "
        "|k|^2 (from (2 pi / L)^2 up to the largest mode's) is not a normal number of the run's precision, "
        "or a spacing L / N not a normal double"},
    SchemaKey{"precision", choice, "double", "single | double", "",
              "floating-point precision of the fields and transforms"},
    SchemaKey{"backend", choice, "auto", "auto | host | cuda", "",
              "where the fields live: auto is cuda when a GPU is usable, host otherwise"},
    SchemaKey{
        "fft.exchange", choice, "auto", "auto | isend_irecv | alltoallv | nccl | p2p", "",
        "all-to-all of the slab FFT (p2p: copy-engine copies between the GPUs of one node, CUDA IPC): "
        "auto is p2p on cuda when the ranks are on one node, each with a GPU of its own that reaches the "
        "others' (peer access), else nccl when built with NCCL, else isend_irecv"},
    SchemaKey{"fft.cuda_aware_mpi", boolean, "false", "", "",
              "the MPI library accepts GPU pointers (MPI exchanges then skip staging through host memory)"},
    SchemaKey{"fft.exchange_pieces", integer, "1", ">= 0", "",
              "several ranks: split each all-to-all into this many pieces so that FFTs and packing overlap "
              "the exchange (with p2p, one spectral slab more); 0: chosen at start by timing 1, 2, 4 and 8"},
    SchemaKey{"fft.lanes", integer, "0", ">= 0", "",
              "Navier-Stokes: a stage's fields are transformed this many at once, each lane a transform "
              "of its own on a stream of its own, which on several GPU ranks brings each rank's computation "
              "near its share of one GPU's (every lane beyond the first holds its own scratch slab, and on "
              "several GPU ranks a receive slab, with p2p a landing slab, and the exchange-in-pieces "
              "buffer); 0: 3 on cuda with several ranks exchanging by p2p (fewer where memory is short), 1 "
              "otherwise; nccl takes 1 only (NCCL's communicators may deadlock when used at once)"},
    SchemaKey{"fft.spectral_split", choice, "auto", "auto | even | kept_rows", "",
              "several ranks: how the ky planes of the spectral slab are shared: even, or balanced by the "
              "planes dealiased transforms keep (|n_y| < Ny/3), which evens out their exchange, x FFTs and "
              "spectral updates (the even split gives the first and last ranks all of them) but widens the "
              "middle ranks' slabs (memory and spectral work there: about 1.33 x the even slab on 4 ranks, "
              "2 x on 8); where Nz/2 + 1 is odd and each rank keeps 32 planes or more, each starts on a "
              "multiple of 4 planes (whole memory sectors for its x FFTs), the kept counts then within 4 "
              "planes; auto: kept_rows for Navier-Stokes on 3 to 8 ranks where its memory estimate fits "
              "(the slowest rank's step 7-18 % shorter, emulated on one H200), even otherwise (Poisson's "
              "full transforms, 2 ranks, 9 or more)"},
    SchemaKey{"fft.planning", choice, "auto", "auto | estimate | measure", "",
              "host: FFTW picks its algorithms by timing them (measure; kept in $XDG_CACHE_HOME/kolmo or "
              "~/.cache/kolmo, so later runs plan at once) or by its heuristics (estimate: instant, up to 2x "
              "slower); auto measures grids of 2^16 points or more"},
    SchemaKey{"problem", choice, "navier_stokes", "navier_stokes | poisson", "",
              "what to solve: incompressible Navier-Stokes in time, or one Poisson/Helmholtz problem"},

    SchemaKey{"physics.viscosity", real, "0.01", "> 0", navier_stokes, "kinematic viscosity nu"},
    SchemaKey{"physics.nonlinear_form", choice, "divergence", "divergence | rotational", navier_stokes,
              "advective term: divergence, -div(u u - |u|^2/3 I), 8 transforms per stage and one slab less; "
              "rotational, u x omega, 9 (equal after projection to round-off); rotation or linear forcing "
              "always use rotational; MHD always uses its own divergence form (14 transforms per stage; "
              "rotation or linear forcing then keep a spectral copy of u, 3 slabs); rotational with MHD is "
              "refused, and "
              "the resolved configuration records the form used"},
    SchemaKey{"physics.forcing.type", choice, "none", "none | band | linear", navier_stokes,
              "none; band: constant injection rate in the shell k_min <= |k| <= k_max; linear: Lundgren's "
              "f = A u on all modes"},
    SchemaKey{
        "physics.forcing.k_min", real, "0.5", ">= 0", "physics.forcing.type is band",
        "lower edge of the forced shell in |k| (k = 2 pi n / L: whole numbers in the default 2 pi box)"},
    SchemaKey{"physics.forcing.k_max", real, "2.5", "> 0", "physics.forcing.type is band",
              "upper edge of the forced shell; must exceed k_min and the shell must hold a mode the 2/3 rule "
              "keeps"},
    SchemaKey{"physics.forcing.power", real, "~", "> 0", "physics.forcing.type is band or linear",
              "injection rate epsilon held constant; required for band; for linear give it or coefficient"},
    SchemaKey{"physics.forcing.coefficient", real, "~", "> 0", "physics.forcing.type is linear",
              "fixed A of linear forcing f = A u, instead of power"},
    SchemaKey{
        "physics.rotation", real_triple, "[0, 0, 0]", "", navier_stokes,
        "rotation rate Omega of the frame, [Ox, Oy, Oz]: Coriolis force -2 Omega x u (in the real-space "
        "pass, no extra transform; with MHD in the stage update, from a spectral copy of u: 3 slabs more); "
        "[0, 0, 0]: none; refused where u x 2 Omega may overflow the precision (2 |Omega| above U k_max, U "
        "the "
        "largest velocity the run takes; 6.2e152 on 16^3 in double)"},

    SchemaKey{"physics.buoyancy.type", choice, "none", "none | boussinesq", navier_stokes,
              "none; boussinesq: a buoyancy field b (named b) with du/dt += b up and db/dt += -N2 u.up, "
              "up = -gravity"},
    SchemaKey{"physics.buoyancy.n2", real, "", "", "physics.buoyancy.type is boussinesq",
              "N2, the square of the Brunt-Vaisala frequency of the mean stratification: > 0 stable, < 0 an "
              "unstable mean gradient (homogeneous convection); not 0, and |N2| at most U k_max, as "
              "physics.rotation's 2 |Omega|"},
    SchemaKey{"physics.buoyancy.prandtl", real, "1", "> 0", "physics.buoyancy.type is boussinesq",
              "Prandtl number nu / kappa of b"},
    SchemaKey{"physics.buoyancy.gravity", real_triple, "", "", "physics.buoyancy.type is boussinesq",
              "direction of gravity, e.g. [0, 0, -1] (its length does not matter; required)"},
    SchemaKey{"physics.buoyancy.initial.type", choice, "zero", "zero | random | file",
              "physics.buoyancy.type is boussinesq",
              "initial b: zero, a random field with a given spectrum, or from a file"},
    SchemaKey{"physics.buoyancy.initial.variance", real, "1", "> 0",
              "physics.buoyancy.initial.type is random", "<b^2> of the random initial b"},
    SchemaKey{"physics.buoyancy.initial.k0", real, "4", "> 0", "physics.buoyancy.initial.type is random",
              "wavenumber of the random b's spectral peak (below the largest kept wavenumber)"},
    SchemaKey{"physics.buoyancy.initial.shape", choice, "k4_exp", "k4_exp | k2_exp",
              "physics.buoyancy.initial.type is random",
              "spectrum shape of the random b, as initial.spectrum.shape"},
    SchemaKey{"physics.buoyancy.initial.seed", integer, "2", ">= 0",
              "physics.buoyancy.initial.type is random", "seed of the random b's phases"},
    SchemaKey{"physics.buoyancy.initial.file", text, "", "", "physics.buoyancy.initial.type is file",
              "HDF5 file with b: a field file (a real dataset of size grid.n) or a checkpoint of any grid "
              "(<dataset>_hat, b_hat by default; resampled onto grid.n)"},
    SchemaKey{"physics.buoyancy.initial.dataset", text, "b", "", "physics.buoyancy.initial.type is file",
              "the field to read b from: a field file's real dataset, or a checkpoint's <dataset>_hat"},

    SchemaKey{"physics.magnetic.type", choice, "none", "none | mhd", navier_stokes,
              "none; mhd: incompressible MHD, a magnetic field b in Alfven units (datasets bx, by, bz) with "
              "du/dt += j x B and db/dt = curl(u x B) + eta lap b, B = B0 + b (14 transforms per stage)"},
    SchemaKey{"physics.magnetic.resistivity", real, "~", ">= 0", "physics.magnetic.type is mhd",
              "magnetic diffusivity eta; give it or physics.magnetic.prandtl"},
    SchemaKey{"physics.magnetic.prandtl", real, "~", "> 0", "physics.magnetic.type is mhd",
              "magnetic Prandtl number Pm = nu / eta, instead of resistivity"},
    SchemaKey{"physics.magnetic.background", real_triple, "[0, 0, 0]", "", "physics.magnetic.type is mhd",
              "uniform background field B0 (Alfven waves travel along it at |B0|); |B0| below U, the largest "
              "velocity the run takes (7.1e151 on 16^3 in double)"},
    SchemaKey{
        "physics.magnetic.forcing.type", choice, "none", "none | band", "physics.magnetic.type is mhd",
        "forcing of b: none; band: f_b = a_b b on the shell k_min <= |k| <= k_max with a_b = power / "
        "(2 E_b,band), so that it injects magnetic energy at exactly power (as physics.forcing's band)"},
    SchemaKey{"physics.magnetic.forcing.k_min", real, "0.5", ">= 0", "physics.magnetic.forcing.type is band",
              "lower edge of b's forced shell in |k|"},
    SchemaKey{"physics.magnetic.forcing.k_max", real, "2.5", "> 0", "physics.magnetic.forcing.type is band",
              "upper edge of b's forced shell; must exceed k_min and the shell must hold a mode the 2/3 rule "
              "keeps"},
    SchemaKey{"physics.magnetic.forcing.power", real, "~", "> 0", "physics.magnetic.forcing.type is band",
              "magnetic injection rate epsilon_b held constant (required)"},
    SchemaKey{
        "physics.magnetic.initial.type", choice, "zero",
        "zero | abc | orszag_tang | taylor_green_conducting | random | file", "physics.magnetic.type is mhd",
        "initial b: zero, an ABC field, the 3D Orszag-Tang field, the Taylor-Green field of Pouquet et al. "
        "(2010)'s conducting runs, a random field, or from a file"},
    SchemaKey{
        "physics.magnetic.initial.amplitude", real, "0.8", "",
        "physics.magnetic.initial.type is orszag_tang or taylor_green_conducting",
        "orszag_tang: B in b = B (-2 sin 2y + sin z, 2 sin x + sin z, sin x + sin y) (0.8 in Mininni, "
        "Pouquet & Montgomery 2006); taylor_green_conducting: B in b = B (sin 2x cos 2y cos 2z, "
        "cos 2x sin 2y cos 2z, C cos 2x cos 2y sin 2z), C = -(Lz/Lx + Lz/Ly) (-2 in a cube; E_b = 3 B^2 "
        "/ 8 there: 1/sqrt(3) = 0.57735 gives E_b = 1/8, Pouquet, Lee, Brachet, Mininni & Rosenberg, "
        "GAFD 104, 115 (2010))"},
    SchemaKey{"physics.magnetic.initial.A", real, "1", "", "physics.magnetic.initial.type is abc",
              "A of the ABC field b, as initial.A"},
    SchemaKey{"physics.magnetic.initial.B", real, "1", "", "physics.magnetic.initial.type is abc",
              "B of the ABC field b"},
    SchemaKey{"physics.magnetic.initial.C", real, "1", "", "physics.magnetic.initial.type is abc",
              "C of the ABC field b"},
    SchemaKey{"physics.magnetic.initial.k", integer, "1", ">= 1", "physics.magnetic.initial.type is abc",
              "mode number of the ABC field b (3 k < N on every axis)"},
    SchemaKey{"physics.magnetic.initial.energy", real, "0.5", "> 0",
              "physics.magnetic.initial.type is random", "magnetic energy <b.b>/2 of the random initial b"},
    SchemaKey{"physics.magnetic.initial.k0", real, "4", "> 0", "physics.magnetic.initial.type is random",
              "wavenumber of the random b's spectral peak (below the largest kept wavenumber)"},
    SchemaKey{"physics.magnetic.initial.shape", choice, "k4_exp", "k4_exp | k2_exp",
              "physics.magnetic.initial.type is random", "spectrum shape of the random b"},
    SchemaKey{"physics.magnetic.initial.seed", integer, "3", ">= 0",
              "physics.magnetic.initial.type is random",
              "seed of the random b's phases (b draws its own, unlike the velocity's of the same seed)"},
    SchemaKey{"physics.magnetic.initial.file", text, "", "", "physics.magnetic.initial.type is file",
              "HDF5 file with b: a field file (datasets bx, by, bz of size grid.n) or a checkpoint of any "
              "grid (bx_hat, by_hat, bz_hat; resampled onto grid.n)"},
    SchemaKey{"physics.scalars", item_list, "[]", "", navier_stokes,
              "passive scalars: a list of maps with the keys physics.scalars[].* below; [] for none"},
    SchemaKey{
        "physics.scalars[].name", text, "", "", "physics.scalars lists it",
        "the scalar's name (letters, digits, _; starting with a letter): its datasets, series columns and "
        "spectra are named after it, so not the name of another output (u, v, w, pressure, vorticity_x..z, "
        "bx..bz, jx..jz, b with buoyancy, energy, magnetic, velocity, vorticity, current) and not ending in "
        "_hat "
        "(a checkpoint's fields)"},
    SchemaKey{"physics.scalars[].diffusivity", real, "~", ">= 0", "physics.scalars lists it",
              "diffusivity kappa; give diffusivity or schmidt"},
    SchemaKey{"physics.scalars[].schmidt", real, "~", "> 0", "physics.scalars lists it",
              "Schmidt number nu / kappa, instead of diffusivity"},
    SchemaKey{
        "physics.scalars[].mean_gradient", real_triple, "[0, 0, 0]", "", "physics.scalars lists it",
        "uniform mean gradient G of the total scalar G.x + theta (the forcing of mixing DNS: theta gets "
        "-u.G); [0, 0, 0]: none; |G| at most U k_max, as physics.rotation's 2 |Omega|"},
    SchemaKey{"physics.scalars[].initial.type", choice, "zero", "zero | random | file",
              "physics.scalars lists it",
              "initial scalar: zero, a random field with a given spectrum, or from a file"},
    SchemaKey{"physics.scalars[].initial.variance", real, "1", "> 0", "its initial.type is random",
              "<theta^2> of the random initial scalar"},
    SchemaKey{"physics.scalars[].initial.k0", real, "4", "> 0", "its initial.type is random",
              "wavenumber of the random scalar's spectral peak (below the largest kept wavenumber)"},
    SchemaKey{"physics.scalars[].initial.shape", choice, "k4_exp", "k4_exp | k2_exp",
              "its initial.type is random", "spectrum shape of the random scalar, as initial.spectrum.shape"},
    SchemaKey{"physics.scalars[].initial.seed", integer, "1", ">= 0", "its initial.type is random",
              "seed of the random scalar's phases (each scalar draws its own phases)"},
    SchemaKey{"physics.scalars[].initial.file", text, "", "", "its initial.type is file",
              "HDF5 file with the scalar: a field file (a real dataset of size grid.n) or a checkpoint of "
              "any grid (<dataset>_hat, <name>_hat by default; resampled onto grid.n)"},
    SchemaKey{
        "physics.scalars[].initial.dataset", text, "<its name>", "", "its initial.type is file",
        "the field to read the scalar from: a field file's real dataset, or a checkpoint's <dataset>_hat"},

    SchemaKey{"time.integrator", choice, "rk4", "rk2 | rk3 | rk4 | lsrk3 | lsrk4", navier_stokes,
              "Runge-Kutta scheme: rk2 (Heun), rk3 (SSP-RK3, Shu-Osher), rk4 (classical), and the "
              "low-storage two-register lsrk3 (Wray, 3 stages) and lsrk4 (Kennedy-Carpenter RK4(3)5[2R+]C, "
              "5 stages), which hold no accumulator: 3 slabs less than rk3 and rk4"},
    SchemaKey{"time.dt", real, "~", "> 0", navier_stokes, "fixed time step; give either dt or cfl, not both"},
    SchemaKey{"time.cfl", real, "0.5", "(0, 2)", "time.dt is not given",
              "adaptive step dt = cfl / max(|u|/dx + |v|/dy + |w|/dz), taken each step"},
    SchemaKey{"time.max_dt", real, "~", "> 0", "time.dt is not given",
              "upper bound on the adaptive step (not set: no bound)"},
    SchemaKey{"time.t_end", real, "~", "> 0", navier_stokes,
              "stop at this simulation time; with steps as well, whichever comes first; one is required"},
    SchemaKey{"time.steps", integer, "~", ">= 1", navier_stokes,
              "stop after this many steps; with t_end as well, whichever comes first"},

    SchemaKey{
        "initial.type", choice, "taylor_green", "taylor_green | abc | random | file | orszag_tang",
        navier_stokes,
        "initial velocity: Taylor-Green vortex, ABC flow, random field with a given spectrum, a file, or the "
        "3D Orszag-Tang velocity A (-2 sin y, 2 sin x, 0) (MHD: with physics.magnetic.initial.type "
        "orszag_tang)"},
    SchemaKey{
        "initial.amplitude", real, "1", "", "initial.type is taylor_green or orszag_tang",
        "A in u = A sin(ax) cos(by) cos(cz), v = B cos(ax) sin(by) cos(cz), w = 0, with a = 2 pi / Lx, "
        "b = 2 pi / Ly, c = 2 pi / Lz and B = -A Ly / Lx (divergence-free in any box; B = -A in a cube)"},
    SchemaKey{"initial.A", real, "1", "", "initial.type is abc",
              "ABC flow u = (A sin kz + C cos ky, B sin kx + A cos kz, C sin ky + B cos kx)"},
    SchemaKey{"initial.B", real, "1", "", "initial.type is abc", "B of the ABC flow"},
    SchemaKey{"initial.C", real, "1", "", "initial.type is abc", "C of the ABC flow"},
    SchemaKey{"initial.k", integer, "1", ">= 1", "initial.type is abc",
              "mode number of the ABC flow (wavenumber 2 pi k / L on each axis); the 2/3 rule must keep it: "
              "3 k < N on "
              "every axis"},
    SchemaKey{"initial.spectrum.shape", choice, "k4_exp", "k4_exp | k2_exp", "initial.type is random",
              "energy spectrum E(k): k4_exp ~ k^4 exp(-2 (k/k0)^2), k2_exp ~ k^2 exp(-(k/k0)^2)"},
    SchemaKey{"initial.spectrum.k0", real, "4", "> 0", "initial.type is random",
              "wavenumber of the spectrum's peak; must be below the largest wavenumber the 2/3 rule keeps"},
    SchemaKey{"initial.spectrum.energy", real, "0.5", "> 0", "initial.type is random",
              "kinetic energy <u.u>/2 of the initial field"},
    SchemaKey{"initial.seed", integer, "1", ">= 0", "initial.type is random",
              "seed of the random phases; the field is the same for any rank count"},
    SchemaKey{"initial.file", text, "", "", "initial.type is file",
              "HDF5 file with the velocity: a field file (datasets u, v, w of size grid.n) or a kolmo "
              "checkpoint of any grid (u_hat, v_hat, w_hat; its modes resampled onto grid.n); read and "
              "checked (grid, box when the file has one, finite values) before anything is written"},

    SchemaKey{"poisson.shift", real, "0", ">= 0", "problem is poisson",
              "lambda in laplacian(phi) - lambda phi = f; 0 is the pure Poisson problem"},
    SchemaKey{"poisson.rhs.type", choice, "manufactured", "manufactured | file", "problem is poisson",
              "right-hand side: manufactured from a known solution, or read from a file"},
    SchemaKey{"poisson.rhs.modes", mode_list, "[[1, 2, 3]]", "", "poisson.rhs.type is manufactured",
              "exact solution phi = sum of cos(2 pi (kx x/Lx + ky y/Ly + kz z/Lz)) over these mode numbers"},
    SchemaKey{"poisson.rhs.file", text, "", "", "poisson.rhs.type is file",
              "HDF5 file holding f on grid.n; must exist"},
    SchemaKey{"poisson.rhs.dataset", text, "f", "", "poisson.rhs.type is file",
              "name of f's dataset in the file (read and checked before anything is written: shape grid.n, "
              "finite values)"},
    SchemaKey{
        "poisson.subtract_mean", boolean, "false", "", "poisson.rhs.type is file",
        "subtract the mean of f before solving; otherwise, for shift 0, an f whose mean exceeds round-off "
        "(1000 epsilons of its rms) is refused, since a periodic Poisson problem needs <f> = 0"},
    SchemaKey{"poisson.gradient", boolean, "false", "", "problem is poisson",
              "also compute and write the gradient of phi"},

    SchemaKey{"output.directory", text, "runs/<config name>", "", "",
              "where output goes; default: runs/ and the configuration file's name without .yaml"},
    SchemaKey{"output.overwrite", boolean, "false", "", "",
              "write into an output directory that holds earlier kolmo output (series.h5, spectra.h5, field "
              "dumps, checkpoints), removing that output first; other files there are left alone (otherwise "
              "such a directory is refused)"},
    SchemaKey{"output.progress_every", integer, "10", ">= 0", navier_stokes,
              "steps between progress lines on the terminal (0: none)"},
    SchemaKey{"output.series_every", integer, "1", ">= 0", navier_stokes,
              "steps between rows of the time series (energy, dissipation, ...; 1: every step, 0: none)"},
    SchemaKey{
        "output.fields", choice_list, "[velocity]",
        "velocity | vorticity | pressure | scalars | magnetic | current", navier_stokes,
        "fields in each field dump (scalars: every scalar and b, each under its name; magnetic: bx, by, "
        "bz; current: j = curl b as jx, jy, jz; the last two with MHD; pressure with MHD is the fluid "
        "pressure, the total less |B|^2/2)"},
    SchemaKey{"output.fields_every", real, "0", ">= 0", navier_stokes,
              "simulation time between field dumps (0: none); also at the start and the end; one shorter "
              "than time.dt (or than time.max_dt of an adaptive step) is warned about, as a dump then "
              "follows every step"},
    SchemaKey{"output.spectra_every", real, "0", ">= 0", navier_stokes,
              "simulation time between spectra (energy, and each scalar's variance; 0: none); also at the "
              "start and the end; one shorter than time.dt (or than time.max_dt of an adaptive step) is "
              "warned about, as spectra then follow every step"},
    SchemaKey{"output.checkpoint_every", real, "0", ">= 0", navier_stokes,
              "simulation time between checkpoints (0: none); one shorter than time.dt (or than time.max_dt "
              "of an adaptive step) is warned about, as a checkpoint then follows every step"},
    SchemaKey{"output.checkpoint_wall_minutes", real, "0", ">= 0", navier_stokes,
              "wall-clock minutes between checkpoints (0: none), for runs under a batch time limit"},
};

std::string markdown_cell(std::string_view raw) {
  std::string cell;
  for (char c : raw) {
    if (c == '|') cell += '\\';
    cell += c;
  }
  return cell;
}

std::string code(std::string_view raw) {
  std::string cell = "`";
  cell += markdown_cell(raw);
  cell += '`';
  return cell;
}

std::string type_name(ValueKind kind) {
  switch (kind) {
    case real:
      return "number";
    case integer:
      return "integer";
    case boolean:
      return "true/false";
    case text:
      return "string";
    case choice:
      return "name";
    case choice_list:
      return "list of names";
    case integer_triple:
      return "integer or [Nx, Ny, Nz]";
    case length_triple:
      return "length or [Lx, Ly, Lz]";
    case mode_list:
      return "list of [kx, ky, kz]";
    case real_triple:
      return "[a, b, c]";
    case item_list:
      return "list of maps";
  }
  return "?";
}

}  // namespace

std::span<const SchemaKey> schema() {
  return keys;
}

std::string schema_path(std::string_view path) {
  std::string result;
  for (std::size_t i = 0; i < path.size(); ++i) {
    result += path[i];
    if (path[i] != '[') continue;
    std::size_t close = i + 1;
    while (close < path.size() && path[close] >= '0' && path[close] <= '9') ++close;
    if (close < path.size() && path[close] == ']') i = close - 1;  // drop the digits
  }
  return result;
}

const SchemaKey* find_key(std::string_view given) {
  const std::string path = schema_path(given);
  for (const SchemaKey& key : keys)
    if (key.path == path) return &key;
  return nullptr;
}

bool is_section(std::string_view given) {
  const std::string path = schema_path(given);
  for (const SchemaKey& key : keys)
    if (key.path.size() > path.size() && key.path.starts_with(path) && key.path[path.size()] == '.')
      return true;
  return false;
}

std::string deciding_key(std::string_view path) {
  const SchemaKey* key = find_key(path);
  if (key == nullptr || key->used_when.empty()) return "";
  std::string_view first = key->used_when.substr(0, key->used_when.find(' '));
  if (first != "its") return std::string(first);
  // The same item's key: path up to its list index, then the name after "its ".
  const std::string_view rest = key->used_when.substr(first.size() + 1);
  const auto close = path.find("].");
  if (close == std::string_view::npos) return "";
  std::string decided(path.substr(0, close + 2));
  decided += rest.substr(0, rest.find(' '));
  return decided;
}

std::vector<std::string> choice_names(const SchemaKey& key) {
  std::vector<std::string> names;
  std::string_view rest = key.allowed;
  while (!rest.empty()) {
    const auto bar = rest.find(" | ");
    names.emplace_back(rest.substr(0, bar));
    rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 3);
  }
  return names;
}

std::string expected_text(ValueKind kind) {
  switch (kind) {
    case real:
      return "a number";
    case integer:
      return "an integer";
    case boolean:
      return "true or false";
    case text:
      return "a string";
    case choice:
      return "a name";
    case choice_list:
      return "a list of names";
    case integer_triple:
      return "an integer or a list of 3 integers";
    case length_triple:
      return "a length or a list of 3 lengths (numbers, or multiples of pi such as 2pi)";
    case mode_list:
      return "a list of [kx, ky, kz] integer triples";
    case real_triple:
      return "a list of 3 numbers";
    case item_list:
      return "a list of maps";
  }
  return "?";
}

std::string schema_markdown() {
  std::string table =
      "| Key | Type | Default | Allowed | Used when | Meaning |\n"
      "|-----|------|---------|---------|-----------|---------|\n";
  for (const SchemaKey& key : keys) {
    std::string default_cell = key.default_value.empty()  ? "required"
                               : key.default_value == "~" ? "not set"
                                                          : code(key.default_value);
    std::string allowed_cell;
    if (key.kind == choice || key.kind == choice_list) {
      for (const std::string& name : choice_names(key))
        allowed_cell += (allowed_cell.empty() ? "" : ", ") + code(name);
    } else {
      allowed_cell = key.allowed.empty() ? "any" : code(key.allowed);
    }
    table += "| " + code(key.path) + " | " + type_name(key.kind) + " | " + default_cell + " | " +
             allowed_cell + " | " + (key.used_when.empty() ? "always" : markdown_cell(key.used_when)) +
             " | " + markdown_cell(key.meaning) + " |\n";
  }
  return table;
}

// In the order of a directory listing. A new file in configs/ fails the configuration tests until it is here
// and the pages are regenerated (kolmo_config_doc docs/configuration.md README.md).
constexpr ExampleConfig examples[] = {
    {"decaying_isotropic.yaml",
     "decaying isotropic turbulence from a random field (k^4 spectrum peaked at k0 = 4), 128^3"},
    {"forced_isotropic_256.yaml",
     "forced isotropic turbulence, 256^3, constant-power band forcing (eps = 0.1, k_max eta = 1.5)"},
    {"mhd_orszag_tang_256.yaml",
     "the 3D Orszag-Tang vortex of incompressible MHD, 256^3 in single precision on one GPU"},
    {"mhd_rotating_forced_64.yaml",
     "forced MHD in a rotating frame (linear forcing of u, band forcing of b, Omega = 1 along z), 64^3, "
     "minutes on a CPU"},
    {"mhd_small.yaml",
     "the quick check of MHD: decaying random u and b along a background field B0 = 0.5 z, 32^3, seconds on "
     "a CPU"},
    {"mhd_taylor_green_c2.yaml",
     "run C2 of Pouquet et al. (2010): decaying MHD from the Taylor-Green velocity and field, Re = 1000, "
     "256^3 (GPU)"},
    {"poisson_example.yaml",
     "a screened Poisson problem with a manufactured right-hand side on an uneven grid and box (its error at "
     "round-off)"},
    {"rotating_64.yaml", "decaying rotating turbulence, Omega = 2 along z, 64^3, minutes on a CPU"},
    {"rotating_rdt.yaml",
     "the published case of rotation: linear (Rossby number 4e-5) isotropic turbulence, Omega = 2, against "
     "rapid-distortion theory (Cambon & Jacquin 1989), 48^3, seconds on a CPU"},
    {"scalar_mixing_256.yaml",
     "scalar_mixing_64.yaml at 256^3 on one GPU: the published-case comparison (normalised chi, flux "
     "correlation, E_theta(k))"},
    {"scalar_mixing_64.yaml",
     "mixing: a passive scalar with a mean gradient in forced isotropic turbulence, Sc = 1, 64^3, minutes on "
     "a CPU"},
    {"stratified_64.yaml",
     "decaying stably stratified (Boussinesq) turbulence, N = 4, 64^3, minutes on a CPU"},
    {"stratified_rdt.yaml",
     "the published case of buoyancy: linear (Froude number 7e-5) isotropic turbulence, N = 2, against "
     "rapid-distortion theory (Hanazaki & Hunt 1996), 48^3, seconds on a CPU"},
    {"taylor_green_re1600.yaml", "the Taylor-Green benchmark at Re = 1600, 256^3, to t = 20 (GPU)"},
    {"taylor_green_small.yaml",
     "the quick check: a 32^3 Taylor-Green vortex to t = 3, Re = 400, seconds on a CPU"},
};

std::span<const ExampleConfig> example_configs() {
  return examples;
}

std::string examples_markdown() {
  std::string list;
  for (const ExampleConfig& example : examples)
    list += "- `" + std::string(example.file) + "`: " + std::string(example.what) + "\n";
  return list;
}

}  // namespace kolmo::io
