#!/usr/bin/env bash
# Installs kolmo's build and run dependencies from Debian packages (CUDA 13 comes separately, at /usr/local/cuda).
set -euo pipefail
# gdb serves the tests alone: tests/app/test_poisson.py delivers a signal at a chosen function through it (and
# skips that case where gdb is missing or cannot trace).
packages=(build-essential cmake pkg-config libmpich-dev mpich libhdf5-mpich-dev libyaml-cpp-dev catch2
          libfftw3-dev libcli11-dev python3-h5py python3-numpy python3-matplotlib gdb)
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${packages[@]}" > /dev/null
echo "kolmo dependencies installed"
