#!/usr/bin/env bash
# FFTW-MPI's own slab transform as a peer for machines without OpenMPI (the GPU hosts, whose 16 cores run the
# 4-rank and 2 x 2 comparisons this 2-core machine cannot): Debian's libfftw3-mpi is built on OpenMPI, so this
# compiles FFTW-MPI from Debian's source package of the installed FFTW (same version, same code) against
# MPICH, linked to the installed serial FFTW whose internal functions it calls, and builds
# tools/fftw_mpi_peer.cpp with MPICH's wrapper. Nothing is installed; CI never runs this.
#
#   tools/build_fftw_mpi_mpich.sh OUT_DIR      # -> OUT_DIR/fftw_mpi_peer_mpich and its two libraries
#
# Needs deb-src entries for apt (the script adds one for the running Debian release if there is none).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:?usage: tools/build_fftw_mpi_mpich.sh OUT_DIR}")
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  . /etc/os-release
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
    "$VERSION_CODENAME" /usr/share/keyrings/debian-archive-keyring.gpg > /etc/apt/sources.list.d/kolmo-src.sources
  apt-get update -q > /dev/null
fi
version=$(dpkg-query -W -f '${source:Version}' libfftw3-dev)
(cd "$work" && apt-get source -q "fftw3=$version" > /dev/null 2>&1)
src=$(echo "$work"/fftw3-*/)
(cd "$src" && MPICC=mpicc.mpich ./configure -q --enable-mpi --disable-fortran > /dev/null)

# The library's sources as mpi/Makefile.am lists them, less the generated Fortran wrapper.
cd "$src/mpi"
sources=$(sed -n 's/^\(SRC\|TRANSPOSE_SRC\|DFT_SRC\|RDFT_SRC\|RDFT2_SRC\) = //p' Makefile.am | tr ' ' '\n' |
  grep '\.c$' | grep -v f03-wrap)
# shellcheck disable=SC2086
mpicc.mpich -O2 -fPIC -shared -I.. -I../api $sources -Wl,-soname,libfftw3_mpi_mpich.so \
  -o "$out/libfftw3_mpi_mpich.so" -lfftw3
# shellcheck disable=SC2086
mpicc.mpich -O2 -fPIC -shared -DFFTW_SINGLE -I.. -I../api $sources -Wl,-soname,libfftw3f_mpi_mpich.so \
  -o "$out/libfftw3f_mpi_mpich.so" -lfftw3f
cp fftw3-mpi.h "$out/"
cd - > /dev/null

mpicxx.mpich -std=c++20 -O2 -fopenmp -I. -I"$out" tools/fftw_mpi_peer.cpp -L"$out" -Wl,-rpath,"$out" \
  -lfftw3_mpi_mpich -lfftw3f_mpi_mpich -lfftw3_omp -lfftw3f_omp -lfftw3 -lfftw3f -o "$out/fftw_mpi_peer_mpich"
echo "built $out/fftw_mpi_peer_mpich (FFTW-MPI $version on MPICH)"
