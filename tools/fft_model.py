#!/usr/bin/python3
"""A model of kolmo's distributed FFT pair (forward + backward) on P GPUs, from measured per-rank phases.

Input: the lines that `kolmo_fft_bench --emulate-ranks P... --log FILE` writes (one rank's complete work of a
P-rank transform on one GPU, the exchange by local copies; each phase timed with device events), e.g.
docs/results/fft_emulated_ranks_h100_phases.log. For a pair on P GPUs of a target kind:

  computation C  = the sum of the slowest timed rank's phases other than the exchange (the ranks of the
                   even split; read_phases), scaled from the GPU of the log to the target GPU by the ratio of
                   their one-GPU pairs;
  exchange    E  = the bytes that rank sends to other ranks in a pair / the link bandwidth per GPU;
  no overlap     : C + E; the strided route (route=strided): the own chunk's copy runs while the peers'
                   chunks cross the links, so per direction C' + max(own chunk, E/2), C' the rest of C
                   (route=placed: the plane FFTs place the own rows, no own chunk: C + E);
  overlap (k pieces, as FftOptions::exchange_pieces does): per direction, the work before the exchange A
                   (forward: plane FFTs, packing, own chunk; backward: x FFTs, packing, own chunk) and after
                   it B (forward: x FFTs, unpacking; backward: unpacking, zeroing, plane FFTs), the exchange
                   E/2 each way. Forward: (A + E/2)/k + (k-1)/k max(A, E/2) + B; backward the mirror image:
                   A + (E/2 + B)/k + (k-1)/k max(E/2, B). The strided route in pieces: the same with the own
                   chunk out of A and E/2 replaced by max(E/2, own chunk). Pieces cost nothing here; on one
                   GPU, where nothing overlaps, 4 pieces made one rank's pair 1-10 % longer at 1024^3 and 6-38 %
                   at 512^3 (docs/results/fft_pieces_emulated_h100.log).

2048^3 is not measured: its phases are those of 1024^3 times 8 (copies) or 8 x 11/10 (FFTs, N log N), its
bytes times 8. This is a model, not a measurement.

--check compares it with measured pairs: the RESULT lines of NCCL pairs in fft_bench logs (the copies route),
and the PAIR lines that `kolmo_fft_bench --log FILE` writes on several GPUs (each naming its route, pieces and
spectral split, modelled from the emulated phases of the same route and split), with the slowest rank's
computation measured beside the emulated one (tools/device_multi_gpu_check.sh runs both on a machine of
several GPUs).

  /usr/bin/python3 tools/fft_model.py --phases docs/results/fft_emulated_ranks_h100_phases.log \\
      --check docs/results/fft_bench_2xh200.log docs/results/fft_bench_2xh200_wire_dealiased.log

Exit status: 0; 1 when --check compared no pair or found an error beyond --tolerance (the pairs it could not
model, for want of their route's phases or their GPU count's bandwidth, are named above its last line); 2 for an
input it cannot use (a missing log, --phases without PHASES lines, a malformed --bandwidth), said on one line.
"""
import argparse
import math
import re
import statistics
import sys

PHASES = ["planes", "pack", "own_chunk", "exchange", "x", "unpack", "zero"]
# Before and after the exchange in each direction (see the module's text).
BEFORE = {"fwd": ["planes", "pack", "own_chunk"], "bwd": ["x", "pack", "own_chunk"]}
AFTER = {"fwd": ["x", "unpack", "zero"], "bwd": ["unpack", "zero", "planes"]}

# One-GPU pairs of kolmo, ms, from ../shared/device/README.md ("Measured again 2026-11-23"): the ratio
# H200 / H100 scales phases measured on an H100 to an H200. 2048^3 takes the 1024^3 ratio.
ONE_GPU_PAIR_MS = {
    "H100": {(512, "single"): 2.59, (512, "double"): 4.73, (1024, "single"): 19.9, (1024, "double"): 38.1},
    "H200": {(512, "single"): 2.11, (512, "double"): 3.65, (1024, "single"): 15.8, (1024, "double"): 33.6},
}

# cuFFTXt's measured pairs on H200s, ms: ../shared/device/README.md and docs/results/fft_bench_2xh200*.log.
CUFFTXT_MS = {
    (2, 512, "single"): 1.78, (2, 512, "double"): 2.99, (2, 1024, "single"): 12.04, (2, 1024, "double"): 23.21,
    (4, 1024, "single"): 7.86, (4, 2048, "single"): 74.4,
    (8, 512, "single"): 3.63, (8, 1024, "single"): 6.74, (8, 1024, "double"): 11.7,
    (8, 2048, "single"): 39.9, (8, 2048, "double"): 71.8,
}


def read_phases(paths, split="even"):
    """PHASES lines of one log or several (a later one's case replacing an earlier one's) as dicts keyed by
    (n, precision, modes, ranks, route), of the ky planes split as `split` says (kolmo_fft_bench
    --spectral-split): per case the slowest of the ranks timed (rank 0, the widest, the one with the most kept
    planes), by computation. Lines of transforms in pieces are left out (their phases are lumped into the
    exchange)."""
    cases = {}
    for path in [paths] if isinstance(paths, str) else paths:
        ranks = {}  # this log's cases: by case, by rank, the last line of each
        with open(path) as f:
            for line in f:
                if not line.startswith("PHASES "):
                    continue
                case = numbers(line)
                if case.get("split", "even") != split or case.get("pieces", "1") not in ("1", 1.0):
                    continue
                if case.get("in_place", 0) not in (0, 0.0, "0"):  # the model's pairs are out of place
                    continue
                key = (int(case["n"]), case["precision"], case["modes"], int(case["ranks"]), case["route"])
                ranks.setdefault(key, {})[case.get("rank", "0")] = case
        for key, timed in ranks.items():
            cases[key] = max(timed.values(), key=computation)
    return cases


def numbers(line):
    """The key=value fields of a log line, numbers as floats."""
    case = dict(item.split("=", 1) for item in line.split()[1:])
    for k, v in case.items():
        if re.fullmatch(r"-?[0-9.]+(e[-+]?[0-9]+)?", v):
            case[k] = float(v)
    return case


def phase(case, direction, name):
    return case[direction + "_" + name]


def scaled(case, factor, bytes_factor=1.0):
    """The case with every phase times factor (or a dict name -> factor) and its bytes times bytes_factor."""
    out = dict(case)
    for d in ("fwd", "bwd"):
        for p in PHASES:
            f = factor[p] if isinstance(factor, dict) else factor
            out[d + "_" + p] = case[d + "_" + p] * f
    out["sent_bytes"] = case["sent_bytes"] * bytes_factor
    return out


def computation(case):
    return sum(phase(case, d, p) for d in ("fwd", "bwd") for p in PHASES if p != "exchange")


def pair_ms(case, bandwidth_gbs, pieces=1):
    """Modelled pair time, ms: without overlap for pieces = 1, else with the exchange in `pieces` pieces."""
    exchange = case["sent_bytes"] / (bandwidth_gbs * 1e9) * 1e3
    strided = case.get("route") in ("strided", "placed")  # placed: no own chunk to copy
    own = {d: phase(case, d, "own_chunk") for d in ("fwd", "bwd")}
    if pieces <= 1:
        if strided:
            return computation(case) - sum(own.values()) + sum(max(t, exchange / 2) for t in own.values())
        return computation(case) + exchange
    # In pieces the strided route's own chunk goes with the exchange, beside the peers' chunks.
    k = float(pieces)
    half = {d: max(exchange / 2, own[d]) if strided else exchange / 2 for d in ("fwd", "bwd")}
    kept = {d: [p for p in BEFORE[d] if not (strided and p == "own_chunk")] for d in ("fwd", "bwd")}
    before = {d: sum(phase(case, d, p) for p in kept[d]) for d in ("fwd", "bwd")}
    after = {d: sum(phase(case, d, p) for p in AFTER[d]) for d in ("fwd", "bwd")}
    forward = (before["fwd"] + half["fwd"]) / k + (k - 1) / k * max(before["fwd"], half["fwd"]) + after["fwd"]
    backward = before["bwd"] + (half["bwd"] + after["bwd"]) / k + (k - 1) / k * max(half["bwd"], after["bwd"])
    return forward + backward


def gpu_factor(n, precision, source, target):
    if source == target:
        return 1.0
    size = min(n, 1024)
    return ONE_GPU_PAIR_MS[target][(size, precision)] / ONE_GPU_PAIR_MS[source][(size, precision)]


def case_for(cases, n, precision, modes, ranks, route):
    """The measured case, or for 2048^3 the 1024^3 one extrapolated (None if neither was measured)."""
    if (n, precision, modes, ranks, route) in cases:
        return cases[(n, precision, modes, ranks, route)]
    base = cases.get((n // 2, precision, modes, ranks, route))
    if n != 2048 or base is None:
        return None
    ratio = math.log2(n) / math.log2(n // 2)
    factors = {p: 8 * ratio if p in ("planes", "x") else 8.0 for p in PHASES}
    return scaled(base, factors, 8.0)


class InputError(Exception):
    """A command line or input file the model cannot use: one line on stderr, exit status 2."""


def parse_bandwidths(text):
    """--bandwidth: GB/s per GPU by GPU count, "2:306,4:330,8:330"."""
    try:
        bandwidths = {int(p): float(b) for p, b in (item.split(":") for item in text.split(","))}
    except ValueError:
        raise InputError(f"--bandwidth {text}: expected GB/s per GPU by GPU count, as 2:306,4:330,8:330") from None
    if not all(math.isfinite(b) and b > 0 for b in bandwidths.values()):
        raise InputError(f"--bandwidth {text}: each bandwidth must be a positive number of GB/s")
    return bandwidths


def check(cases, logs, bandwidths, source, target, split_cases=None, unmodelled=None):
    """Modelled against measured pairs in fft_bench logs: RESULT lines of NCCL pairs (the copies, no pieces,
    the even split; logs before PAIR lines existed; their computation from the block's "profiled split"
    line where it has one) and PAIR lines (kolmo_fft_bench --log on several GPUs:
    the route, pieces and split they name; split_cases[split] the phases of that split, `cases` the even
    split's). A row: (n, precision, modes, GPUs, measured pair, modelled pair, relative error, route, pieces,
    measured computation of the slowest rank, modelled computation); the computations only for PAIR lines in
    one piece (in pieces the work is lumped into the exchange), else None. The pairs of the kinds compared that
    could not be modelled (no phases of their route and split, no bandwidth of their GPU count) are appended to
    `unmodelled`, each as a short description."""
    split_cases = dict(split_cases or {})
    split_cases.setdefault("even", cases)
    rows, worst = [], 0.0

    def add(n, precision, modes, gpus, measured, route, pieces, split, computed=None):
        nonlocal worst
        case = case_for(split_cases.get(split, {}), n, precision, modes, gpus, route)
        if case is None or gpus not in bandwidths:
            if unmodelled is not None:
                unmodelled.append(f"{n}^3 {precision} {modes} on {gpus} GPUs ({route}, {split} split, "
                                  f"{pieces} piece{'s' if pieces != 1 else ''})")
            return
        case = scaled(case, gpu_factor(n, precision, source, target))
        model = pair_ms(case, bandwidths[gpus], pieces)
        error = model / measured - 1
        worst = max(worst, abs(error))
        one_piece = computed is not None and pieces == 1
        rows.append((n, precision, modes, gpus, measured, model, error, route, pieces,
                     computed if one_piece else None, computation(case) if one_piece else None))

    for path in logs:
        with open(path) as f:
            header, profiled = "", None
            for line in f:
                if line.startswith("kolmo slab FFT"):
                    header, profiled = line, None
                m = re.search(r"profiled split: computation ([0-9.]+) ms", line)
                if m:
                    profiled = float(m[1])
                if line.startswith("PAIR "):
                    pair = numbers(line)
                    if pair["backend"] != "cuda" or pair["wire"] != "native" or int(pair["ranks"]) < 2:
                        continue  # the wire format and host MPI are not modelled
                    add(int(pair["n"]), pair["precision"], pair["modes"], int(pair["ranks"]), pair["pair_ms"],
                        pair["route"], int(pair["pieces"]), pair["split"], pair["compute_ms"])
                    continue
                m = re.search(r"RESULT n=(\d+)x\d+x\d+ (single|double)(\S*) gpus=(\d+) kolmo ([0-9.]+) ms", line)
                if not m or "exchange nccl" not in header or "single-wire" in m[3]:
                    continue
                modes = "dealiased" if "dealiased" in m[3] else "full"
                add(int(m[1]), m[2], modes, int(m[4]), float(m[5]), "copies", 1, "even", profiled)
    return rows, worst


def now_cases(paths):
    """The routes a transform takes now, from logs of the strided and placed routes (ROUTES="strided placed"
    SPLITS="even kept_rows"): per case the faster of the two, as SlabFFT's construction times them; full
    transforms with the ky planes split evenly, dealiased ones by kept rows (the split runs choose for
    dealiased transforms); each the slowest timed rank. Keyed as read_phases, with route "now"."""
    split_of = {"full": "even", "dealiased": "kept_rows"}
    by_split = {split: read_phases(paths, split) for split in split_of.values()}
    cases = {}
    for split, split_cases in by_split.items():
        for (n, precision, modes, ranks, route), case in split_cases.items():
            if route not in ("strided", "placed") or split_of[modes] != split:
                continue
            key = (n, precision, modes, ranks, "now")
            if key not in cases or computation(case) < computation(cases[key]):
                cases[key] = case
    return cases


def measured_table(cases, routes):
    """The measured per-phase table, markdown: ms per pair (forward + backward) of each phase, routes
    compared (e.g. {"before": "copies", "after": "realigned"}, the after route by modes; "now": the route of
    now_cases, named in the row)."""
    print("| grid | precision | modes | P | route | plane FFTs | packing | own chunk | x FFTs | unpacking | zeroing | "
          "computation | one GPU / P | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in (512, 1024):
        for precision in ("single", "double"):
            for modes in ("full", "dealiased"):
                for ranks in (2, 4, 8):
                    for label, route in routes.items():
                        route = route[modes] if isinstance(route, dict) else route
                        case = cases.get((n, precision, modes, ranks, route))
                        if case is None:
                            continue
                        each = [phase(case, "fwd", p) + phase(case, "bwd", p)
                                for p in ("planes", "pack", "own_chunk", "x", "unpack", "zero")]
                        ideal = case["one_gpu_pair_ms"] / ranks
                        name = case["route"] if route == "now" else route
                        print(f"| {n}^3 | {precision} | {modes} | {ranks} | {label} ({name}) | "
                              + " | ".join(f"{t:.3f}" for t in each)
                              + f" | {computation(case):.3f} | {ideal:.3f} | {computation(case) / ideal:.2f} |")


def read_floor(paths):
    """The memory floor (the `RESULT floor` lines of kolmo_batch_bench --floor, us; several rounds, median of
    each): {(n, precision, modes): the one GPU's chain} and {(n, precision, modes, ranks): the slowest timed
    rank's chain}."""
    one, timed = {}, {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if not line.startswith("RESULT floor "):
                    continue
                fields = dict(re.findall(r"(\w+)=(\S+)", line))
                key = (int(fields["n"]), fields["precision"], fields["modes"])
                pair = float(fields["pair_us"])
                if fields["ranks"] == "1":
                    one.setdefault(key, []).append(pair)
                else:
                    rank = timed.setdefault(key + (int(fields["ranks"]),), {})
                    rank.setdefault(fields["rank"], []).append(pair)
    return ({k: statistics.median(v) for k, v in one.items()},
            {k: max(statistics.median(v) for v in ranks.values()) for k, ranks in timed.items()})


def floor_rows(floor, cases):
    """Per case of the floor that `cases` (keyed as now_cases) also holds: (n, precision, modes, ranks, the
    floor's slowest rank over its own share, the floor's excess over that share in us, the library's share in
    us, 1 + that excess / the library's share, the library's ratio, its route). The excess of streaming passes
    of each pass's bytes is what the memory system alone takes beyond 1/P of the one GPU's time in launches of
    one rank's size: the part of the library's excess that no kernel of its passes avoids (an estimate, not a
    proof: the library's kernels are not plain streams). Over the library's share it gives the ratio that the
    library would have if its passes carried no excess of their own."""
    one, slowest = floor
    rows = []
    for (n, precision, modes, ranks), rank_us in sorted(
            slowest.items(), key=lambda item: (item[0][0], item[0][1] == "double", item[0][2] == "dealiased",
                                               item[0][3])):
        case = cases.get((n, precision, modes, ranks, "now"))
        if case is None or (n, precision, modes) not in one:
            continue
        floor_share = one[(n, precision, modes)] / ranks
        excess = rank_us - floor_share
        share = 1e3 * case["one_gpu_pair_ms"] / ranks
        rows.append((n, precision, modes, ranks, rank_us / floor_share, excess, share, 1 + excess / share,
                     1e3 * computation(case) / share, case["route"]))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phases", required=True, nargs="+",
                        help="logs of kolmo_fft_bench --emulate-ranks --log (a later log's cases replace an earlier's)")
    parser.add_argument("--source", default="H100", choices=sorted(ONE_GPU_PAIR_MS), help="GPU of the log")
    parser.add_argument("--target", default="H200", choices=sorted(ONE_GPU_PAIR_MS), help="GPU modelled")
    parser.add_argument("--bandwidth", default="2:306,4:330,8:330",
                        help="link bandwidth per GPU, GB/s, by GPU count (NCCL: 306 on 2 x H200, 330 on 8)")
    parser.add_argument("--pieces", type=int, default=4, help="pieces of the overlapped exchange")
    parser.add_argument("--check", nargs="*", default=[], help="fft_bench logs of measured pairs to compare")
    parser.add_argument("--tolerance", type=float, default=0.15, help="--check fails beyond this relative error")
    parser.add_argument("--measured", action="store_true", help="print the measured per-phase table first")
    parser.add_argument("--after-full", default="realigned", choices=["realigned", "fused"],
                        help="the route of full transforms in the after columns: realigned (the library's "
                             "default until session 42), fused (the plane FFTs store the chunks: its default "
                             "since session 43 where kolmo's column FFTs take Ny)")
    parser.add_argument("--now", nargs="+", default=[],
                        help="with --measured: logs of the strided and placed routes (both spectral splits), "
                             "whose faster route per case the table sets beside --phases' copies")
    parser.add_argument("--floor", nargs="+", default=[],
                        help="instead of the model: logs of kolmo_batch_bench --floor, the memory floor of each "
                             "case against the library's ratio on the route of now (the --phases logs of the "
                             "strided and placed routes, both spectral splits)")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except InputError as error:
        print(f"fft_model: {error}", file=sys.stderr)
        return 2


def run(args):
    for option, paths in (("--phases", args.phases), ("--now", args.now), ("--check", args.check),
                          ("--floor", args.floor)):
        for path in paths:
            try:
                open(path).close()
            except OSError as error:
                raise InputError(f"{option} {path}: {error.strerror}") from None
    if args.pieces < 1:
        raise InputError(f"--pieces {args.pieces}: the overlapped exchange goes in 1 piece or more")
    bandwidths = parse_bandwidths(args.bandwidth)
    cases = read_phases(args.phases)
    split_cases = {"even": cases, "kept_rows": read_phases(args.phases, "kept_rows")}
    if not cases and not split_cases["kept_rows"]:
        raise InputError(f"--phases {' '.join(args.phases)}: no PHASES lines of transforms in one piece (the lines "
                         "kolmo_fft_bench --emulate-ranks --log writes)")
    if args.floor:
        rows = floor_rows(read_floor(args.floor), now_cases(args.phases))
        if not rows:
            raise InputError(f"--floor {' '.join(args.floor)}: no RESULT floor lines of a case that --phases "
                             "also holds (the lines kolmo_batch_bench --floor prints)")
        print("The memory floor: streaming passes of each pass's bytes (kolmo_batch_bench --floor), the slowest "
              "timed rank against the one GPU's chain / P, and that excess over the library's share")
        print("| grid | precision | modes | P | floor / its share | floor excess (us) | library share (us) | "
              "1 + floor excess / library share | library ratio (route) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for n, precision, modes, ranks, own, excess, share, bound, ratio, route in rows:
            print(f"| {n}^3 | {precision} | {modes} | {ranks} | {own:.3f} | {excess:.1f} | {share:.1f} | "
                  f"{bound:.3f} | {ratio:.2f} ({route}) |")
        return 0
    after_route = {"full": args.after_full, "dealiased": "fused"}
    if args.measured:
        print("Measured: one rank's work per pair (ms, device events, medians), the slowest timed rank of P, "
              "the exchange left out")
        if args.now:
            measured_table({**cases, **now_cases(args.now)}, {"before": "copies", "now": "now"})
        else:
            measured_table(cases, {"before": "copies", "after": after_route})
        print()
    status = 0
    if args.check:
        unmodelled = []
        rows, worst = check(cases, args.check, bandwidths, args.source, args.target, split_cases, unmodelled)
        print(f"Check: the model (the phases of the measured pair's route on an {args.source}, scaled to an "
              f"{args.target} by the one-GPU pair ratio, link {args.bandwidth} GB/s per GPU, its pieces) against "
              "measured pairs; computation: the slowest rank's, measured on the GPUs and emulated")
        print("| grid | precision | modes | GPUs | route | pieces | measured | model | error | computation: "
              "measured | emulated |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for n, precision, modes, gpus, measured, model, error, route, pieces, computed, emulated in rows:
            both = f"{computed:.2f} ms | {emulated:.2f} ms" if computed is not None else " | "
            print(f"| {n}^3 | {precision} | {modes} | {gpus} | {route} | {pieces} | {measured:.2f} ms | "
                  f"{model:.2f} ms | {100 * error:+.1f}% | {both} |")
        if unmodelled:
            print(f"not modelled ({len(unmodelled)}: no phases of the route and split in --phases, or no "
                  f"--bandwidth of the GPU count): " + "; ".join(unmodelled))
        if not rows:
            print("no measured pair was compared (the logs' NCCL RESULT lines and PAIR lines of GPU ranks are)")
        print(f"largest error {100 * worst:.1f}% (tolerance {100 * args.tolerance:.0f}%)\n")
        status = 0 if rows and worst <= args.tolerance else 1
    print(f"Model (not a measurement): pair on P {args.target} GPUs from one {args.source}'s emulated per-rank "
          f"phases; link {args.bandwidth} GB/s per GPU; overlap = exchange in {args.pieces} pieces; "
          "2048^3 extrapolated from 1024^3")
    missing = sorted({key[3] for key in cases} - set(bandwidths))
    if missing:
        print(f"(no --bandwidth for {', '.join(map(str, missing))} GPUs: their rows are left out)")
    print("| P | grid | precision | modes | before: no overlap | after: no overlap | after: overlap | "
          "strided | placed | strided: overlap | cuFFTXt measured |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for ranks in (2, 4, 8):
        for n in (512, 1024, 2048):
            for precision in ("single", "double"):
                for modes in ("full", "dealiased"):
                    before = case_for(cases, n, precision, modes, ranks, "copies")
                    after = case_for(cases, n, precision, modes, ranks, after_route[modes])
                    if before is None or after is None:
                        continue
                    if ranks not in bandwidths:
                        continue  # said above the table
                    factor = gpu_factor(n, precision, args.source, args.target)
                    before, after = scaled(before, factor), scaled(after, factor)
                    bw = bandwidths[ranks]
                    xt = CUFFTXT_MS.get((ranks, n, precision)) if modes == "full" else None

                    def modelled(route, pieces=1):
                        case = case_for(cases, n, precision, modes, ranks, route)
                        return f"{pair_ms(scaled(case, factor), bw, pieces):.2f} ms" if case else ""

                    print(f"| {ranks} | {n}^3 | {precision} | {modes} | {pair_ms(before, bw):.2f} ms | "
                          f"{pair_ms(after, bw):.2f} ms | {pair_ms(after, bw, args.pieces):.2f} ms | "
                          f"{modelled('strided')} | {modelled('placed')} | {modelled('strided', args.pieces)} | "
                          f"{f'{xt:.2f} ms' if xt else ''} |")
    return status


if __name__ == "__main__":
    sys.exit(main())
