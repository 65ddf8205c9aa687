// A run's identity in its files: the root attribute run that its checkpoints and its series.h5 carry, so
// that a restart can tell its own run's files from another's (app/NavierStokesRun.cpp draws the value and
// compares them).
//
// Contract: run_identity(file) reads it from an open file (not collective): the text, or empty where the file
// has none (files from before kolmo wrote it). write_run_identity(file, run) writes it. Errors throw
// kolmo::Error with HDF5's words; the caller adds the file.
#pragma once

#include <hdf5.h>

#include <string>

#include "io/Hdf5.hpp"

namespace kolmo::io {

inline constexpr char kRunAttribute[] = "run";

inline std::string run_identity(hid_t file) {
  return has_attribute(file, kRunAttribute) ? read_string_attribute(file, kRunAttribute) : std::string();
}

inline void write_run_identity(hid_t file, const std::string& run) {
  write_attribute(file, kRunAttribute, run);
}

}  // namespace kolmo::io
