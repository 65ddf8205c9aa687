// The row operations of the solver's products (ProductsInRows.hpp) and their kernels' instantiations, in a
// file of their own: nvcc compiles one kernel per row length, precision and kind of flow.
#include "solver/ProductsInRows.hpp"

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>

#include "core/Error.hpp"
#include "solver/MagneticTerms.hpp"
#include "solver/RealSpaceProducts.hpp"
#include "solver/Reductions.hpp"
#include "solver/VelocityRate.hpp"

#if defined(__CUDACC__)
#include "fft/RowProducts.cuh"
#endif

namespace kolmo::solver {

namespace {

// row_products' operation for a kind of flow and S scalars: the inputs and outputs in ProductsInRows.hpp's
// order, each product from RealSpaceProducts.hpp's or MagneticTerms.hpp's pointwise function.
template <class Real, ProductKind K, int S>
struct RowOperation {
  static constexpr int velocity_inputs = product_inputs(K, 0), velocity_outputs = product_outputs(K, 0);
  static constexpr int inputs = product_inputs(K, S), outputs = product_outputs(K, S);
  ProductCoefficients<Real> c;

  KOLMO_HD void operator()(const Real (&a)[inputs], Real (&p)[outputs]) const {
    if constexpr (K == ProductKind::stress) {
      traceless_stress(a, p);
    } else if constexpr (K == ProductKind::rotational) {
      rotational_products(a, a + 3, c.two_omega, c.linear_forcing, p);
    } else {
      const Real b[3] = {a[3] + c.background.x, a[4] + c.background.y, a[5] + c.background.z};
      magnetic_products(a, b, p, p + 5);
    }
    KOLMO_UNROLL
    for (int j = 0; j < S; ++j)
      p[velocity_outputs + j] = scalar_advection(a, a + velocity_inputs + 3 * j, c.mean_gradient[j]);
  }
};

// The scan of form_and_scan: cfl_dt's rate and energy from u (and b + B0 where WithB).
template <class Real, bool WithB>
struct RateOperation {
  static constexpr int inputs = WithB ? 6 : 3;
  using Result = MaxAndSum;
  InverseSpacing inverse;
  Vector3<double> background;
  KOLMO_HD MaxAndSum operator()(const Real (&a)[inputs]) const {
    double b[3] = {0, 0, 0};
    if constexpr (WithB) {
      b[0] = fabs(a[3] + background.x);
      b[1] = fabs(a[4] + background.y);
      b[2] = fabs(a[5] + background.z);
    }
    return rate_and_energy(a[0], a[1], a[2], b[0], b[1], b[2], inverse);
  }
  KOLMO_HD static MaxAndSum combine(MaxAndSum x, MaxAndSum y) {
    return MaxAndSum{detail::larger(x.max, y.max), x.sum + y.sum};
  }
};

#if defined(__CUDACC__)
template <class Real, int K>
fft::RowFields<Real, K> fields(const std::vector<Complex<Real>*>& slabs) {
  fft::RowFields<Real, K> f{};
  for (int k = 0; k < K; ++k) f.f[k] = slabs[k];
  return f;
}

// The products of a kind of flow and its scalars (the kernel of its inputs and outputs), with scan (NoScan:
// none) of the leading inputs in the same kernel.
template <class Real, class Scan>
typename Scan::Result form_rows(ProductKind kind, int scalars, const fft::RowSplit<Real>& split,
                                const std::vector<Complex<Real>*>& inputs,
                                const std::vector<Complex<Real>*>& outputs,
                                const ProductCoefficients<Real>& c, void* stream, Scan scan) {
  typename Scan::Result result{};
  const auto run = [&](auto k, auto s) {
    using Op = RowOperation<Real, decltype(k)::value, decltype(s)::value>;
    // MHD's scan (u and b) runs with MHD's products, the velocity's with the others: no other pair is made.
    constexpr bool magnetic = decltype(k)::value == ProductKind::magnetic;
    if constexpr (Scan::inputs == 0 || (Scan::inputs == 6) == magnetic)
      result = fft::row_products<Real>(split.rows(), split.twiddles(), fields<Real, Op::inputs>(inputs),
                                       fields<Real, Op::outputs>(outputs), Op{c},
                                       static_cast<cudaStream_t>(stream), scan);
    else
      throw Error("internal: a scan of other fields than the products read");
  };
  using std::integral_constant;
  const auto of_kind = [&](auto k) {
    constexpr int most = ProductsInRows<Real>::most_scalars(decltype(k)::value);
    if (scalars == 0) run(k, integral_constant<int, 0>());
    if constexpr (most >= 1)
      if (scalars == 1) run(k, integral_constant<int, 1>());
    if constexpr (most >= 2)
      if (scalars == 2) run(k, integral_constant<int, 2>());
  };
  if (kind == ProductKind::stress) of_kind(integral_constant<ProductKind, ProductKind::stress>());
  if (kind == ProductKind::rotational) of_kind(integral_constant<ProductKind, ProductKind::rotational>());
  if (kind == ProductKind::magnetic) of_kind(integral_constant<ProductKind, ProductKind::magnetic>());
  return result;
}
#endif

}  // namespace

template <class Real>
ProductsInRows<Real>::ProductsInRows(fft::TransformLanes<Real>& lanes, ProductKind kind, int scalars,
                                     std::vector<C*> inputs, std::vector<C*> outputs, void* stream)
    : lanes_(lanes),
      kind_(kind),
      scalars_(scalars),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      stream_(stream) {
  KOLMO_REQUIRE(
      lanes.row_split() && serves(kind, scalars) && int(inputs_.size()) == product_inputs(kind, scalars) &&
          int(outputs_.size()) == product_outputs(kind, scalars),
      "internal: products between the rows for " + std::to_string(scalars) + " scalar(s) with " +
          std::to_string(inputs_.size()) + " inputs and " + std::to_string(outputs_.size()) + " outputs");
}

template <class Real>
void ProductsInRows<Real>::to_rows() {
  lanes_.backward_to_rows(inputs_);
}

template <class Real>
void ProductsInRows<Real>::from_rows() {
  lanes_.forward_from_rows(outputs_);
}

template <class Real>
void ProductsInRows<Real>::form(const ProductCoefficients<Real>& c) {
#if defined(__CUDACC__)
  form_rows<Real>(kind_, scalars_, *lanes_.row_split(), inputs_, outputs_, c, stream_, fft::NoScan{});
#else
  (void)c;
  throw Error("internal: products between row FFTs in a build without CUDA");  // no split there
#endif
}

template <class Real>
MaxAndSum ProductsInRows<Real>::form_and_scan(const ProductCoefficients<Real>& c,
                                              const InverseSpacing& inverse,
                                              const Vector3<double>& background) {
#if defined(__CUDACC__)
  const auto run = [&](auto scan) {
    return form_rows<Real>(kind_, scalars_, *lanes_.row_split(), inputs_, outputs_, c, stream_, scan);
  };
  if (kind_ == ProductKind::magnetic) return run(RateOperation<Real, true>{inverse, background});
  return run(RateOperation<Real, false>{inverse, background});
#else
  (void)c;
  (void)inverse;
  (void)background;
  throw Error("internal: products between row FFTs in a build without CUDA");  // no split there
#endif
}

template class ProductsInRows<float>;
template class ProductsInRows<double>;

}  // namespace kolmo::solver
