// What was built: kolmo's version and, where it was built from a git checkout, the commit.
//
// Contract: build_identity() returns "0.1.0" or "0.1.0 (git 0183cd8a1b2c)", with "-dirty" after the commit
// where the checkout's files differed from it. It is fixed at build time (cmake/BuildIdentity.cmake, run by
// every build), so two builds of different code carry different identities unless both come from the same
// dirty checkout. Output files record it; kept route choices are keyed by it, so that new code times anew.
#pragma once

#include <string>

namespace kolmo {

std::string build_identity();

}  // namespace kolmo
