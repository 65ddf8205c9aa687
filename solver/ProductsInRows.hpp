// The solver's real-space pass formed between the rows' transforms along z (NavierStokes.hpp, "Products
// between the rows"): the fields' rows back to real values, the products of RealSpaceProducts.hpp at each
// point, and their rows forward, in one kernel (fft/RowProducts.cuh), so that no real slab is written.
//
// Contract:
// - serves(kind, scalars): the flows it forms: the divergence form with up to 2 scalars, the rotational form
//   and MHD with up to 1 in single precision and none in double (most_scalars; the inputs and outputs are
//   counted at compile time, one kernel each; more fields keep the real slabs).
// - The slabs, in this order (the slots of the slab pass, so the stage update reads the same fields):
//   inputs:  u (3); then omega (3, rotational) or b (3, MHD); then each scalar's gradient (3);
//   outputs: stress: T_xx, T_yy, T_xy into u's slabs and T_xz, T_yz into the extra field's first two;
//            rotational: u x (omega + 2 Omega) + a u into u's; MHD: T as stress, then E = u x B into b's;
//            then each scalar's -u.(grad theta_j + G_j) into its gradient's first slab.
// - lanes: the solver's transform lanes (fft/TransformLanes.hpp), whose first transform has a split at its
//   rows (fft/RowSplit.hpp; one rank, or several on the strided or the fused route): the fields go to rows
//   and back in the lanes, as their transforms do.
// - to_rows(): backward_to_rows of the inputs. form(coefficients): the kernel, in place. from_rows():
//   forward_from_rows of the outputs. All queued on the device's stream (the lanes fork from it and join
//   back).
// - form_and_scan(coefficients, inverse, background): form, and in the same kernel cfl_dt's scan of the
//   leading inputs (u; MHD u and b) as the kernel has them in real space: max_and_sum's result over the
//   rank of rate_and_energy (VelocityRate.hpp) with b + B0 for the Alfven speed. Synchronises. (The caller
//   reduces over ranks.) So cfl_dt forms the first stage's products, which do not depend on dt, and the
//   scan reads u's rows once.
// - Only CUDA builds form anything (the split exists only there); elsewhere the calls throw an internal
//   error.
#pragma once

#include <vector>

#include "core/Complex.hpp"
#include "fft/TransformLanes.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::solver {

struct MaxAndSum;       // Reductions.hpp
struct InverseSpacing;  // VelocityRate.hpp

enum class ProductKind { stress, rotational, magnetic };

constexpr int kMaxRowScalars = 2;  // the divergence form's most scalars; the other forms take one

// The slabs a kind of flow reads and writes between the rows, with its scalars (the order below).
constexpr int product_inputs(ProductKind kind, int scalars) {
  return (kind == ProductKind::stress ? 3 : 6) + 3 * scalars;
}
constexpr int product_outputs(ProductKind kind, int scalars) {
  return (kind == ProductKind::stress ? 5 : kind == ProductKind::rotational ? 3 : 8) + scalars;
}

template <class Real>
struct ProductCoefficients {
  Vector3<Real> two_omega{0, 0, 0};
  Real linear_forcing = 0;
  Vector3<Real> background{0, 0, 0};              // B0 (MHD)
  Vector3<Real> mean_gradient[kMaxRowScalars]{};  // each scalar's G
};

template <class Real>
class ProductsInRows {
 public:
  using C = Complex<Real>;
  static bool serves(ProductKind kind, int scalars) { return scalars >= 0 && scalars <= most_scalars(kind); }
  // The divergence form takes 2 scalars; the others 1 in single precision and none in double, where their
  // 9 inputs spill and were slower than the real slabs (one H100, 256^3 RK4: rotating Boussinesq 21.4
  // against 16.0 ms, MHD with a scalar 31.5 against 22.0;
  // docs/results/solver_bench_h100_row_products_physics.log).
  static constexpr int most_scalars(ProductKind kind) {
    return kind == ProductKind::stress ? kMaxRowScalars : sizeof(Real) == 4 ? 1 : 0;
  }
  ProductsInRows(fft::TransformLanes<Real>& lanes, ProductKind kind, int scalars, std::vector<C*> inputs,
                 std::vector<C*> outputs, void* stream);
  void to_rows();
  void form(const ProductCoefficients<Real>& coefficients);
  MaxAndSum form_and_scan(const ProductCoefficients<Real>& coefficients, const InverseSpacing& inverse,
                          const Vector3<double>& background);
  void from_rows();

 private:
  fft::TransformLanes<Real>& lanes_;
  ProductKind kind_;
  int scalars_;
  std::vector<C*> inputs_, outputs_;
  void* stream_;
};

extern template class ProductsInRows<float>;
extern template class ProductsInRows<double>;

}  // namespace kolmo::solver
