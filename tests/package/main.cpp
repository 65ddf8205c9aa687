// A program outside kolmo that finds the installed FFT library with find_package(kolmo) and checks one value.
#include <mpi.h>
#include <cstdio>
#include <vector>

#include <kolmo/fft/SlabFFT.hpp>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    auto device = kolmo::Device::create(kolmo::Backend::host);
    kolmo::fft::SlabFFT<double> fft({8, 8, 8}, MPI_COMM_WORLD, device);
    auto f = fft.make_real();
    std::vector<double> ones(f.size(), 1.0);
    f.assign_from_host(ones);
    auto F = fft.make_spectral();
    fft.forward(f.data(), F.data());
    const double mean_mode = F.host_copy()[0].re;  // sum of 512 ones
    std::printf("F(0) = %g (expect 512)\n", mean_mode);
    if (mean_mode != 512.0) status = 1;
  }
  MPI_Finalize();
  return status;
}
