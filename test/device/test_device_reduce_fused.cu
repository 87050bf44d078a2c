// SPDX-License-Identifier: Apache-2.0
// The fused one-pass reductions: DeviceReduce::MinMax, ::ArgMinMax and ::VarMean.
// - MinMax and ArgMinMax over int8, half, float and double at every size class: bit-exact against a host reference
//   and cub's two separate calls (Min + Max, ArgMin + ArgMax); the identities and index -1 for empty input; NaN,
//   signed zeros and ties on every path; 64-bit indices past 2^32 items.
// - VarMean over half, float and double against a two-pass host reference (long double), within a stated bound; the
//   corrections; empty input, n <= correction, NaN and infinity.
// - Reproducible bits at every grid size, path and alignment; bad arguments rejected with nothing written.
// Every fold call runs under `fold_test::forced` (the default policy, with the dispatch hooks a test may set), so
// each algorithm and type is instantiated once.
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/limits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace
{
using fold::detail::ReducePath;
using fold_test::DeviceBuffer;

//! What MinMax and ArgMinMax found.
template <typename T>
struct Extremes
{
  T min, max;                        // MinMax
  T arg_min, arg_max;                // ArgMinMax's values
  std::int64_t min_index, max_index; // ArgMinMax's indices
};

//! fold's MinMax and ArgMinMax over `[in, in + n)`, outputs poisoned first.
template <typename InputIteratorT, typename NumItemsT>
auto fold_extremes(InputIteratorT in, NumItemsT n)
{
  using T = fold::detail::value_t<InputIteratorT>;
  DeviceBuffer<T> values(4);
  DeviceBuffer<std::int64_t> indices(2);
  values.poison();
  indices.poison();
  T* v = values.get();
  fold_test::two_call([&](void* t, std::size_t& b)
                      { return fold::DeviceReduce::MinMax(t, b, in, v, v + 1, n, 0, fold_test::forced); });
  fold_test::two_call(
      [&](void* t, std::size_t& b)
      {
        return fold::DeviceReduce::ArgMinMax(
            t, b, in, v + 2, indices.get(), v + 3, indices.get() + 1, n, 0, fold_test::forced);
      });
  const auto h = values.to_host();
  const auto i = indices.to_host();
  return Extremes<T>{h[0], h[1], h[2], h[3], i[0], i[1]};
}

//! cub's two separate calls of each: Min + Max, ArgMin + ArgMax.
template <typename T>
Extremes<T> cub_extremes(const T* in, int n)
{
  DeviceBuffer<T> values(4);
  DeviceBuffer<std::int64_t> indices(2);
  T* v = values.get();
  fold_test::two_call([&](void* t, std::size_t& b) { return cub::DeviceReduce::Min(t, b, in, v, n); });
  fold_test::two_call([&](void* t, std::size_t& b) { return cub::DeviceReduce::Max(t, b, in, v + 1, n); });
  fold_test::two_call([&](void* t, std::size_t& b)
                      { return cub::DeviceReduce::ArgMin(t, b, in, v + 2, indices.get(), std::int64_t{n}); });
  fold_test::two_call([&](void* t, std::size_t& b)
                      { return cub::DeviceReduce::ArgMax(t, b, in, v + 3, indices.get() + 1, std::int64_t{n}); });
  const auto h = values.to_host();
  const auto i = indices.to_host();
  return {h[0], h[1], h[2], h[3], i[0], i[1]};
}

//! The first minimum and the first maximum (no NaN in `values`).
template <typename T>
Extremes<T> host_extremes(const std::vector<T>& values)
{
  std::size_t lo = 0, hi = 0;
  for (std::size_t i = 1; i < values.size(); ++i)
  {
    const double x = fold_test::to_double(values[i]);
    lo             = x < fold_test::to_double(values[lo]) ? i : lo;
    hi             = x > fold_test::to_double(values[hi]) ? i : hi;
  }
  return {values[lo], values[hi], values[lo], values[hi], static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)};
}

template <typename T>
void check_same(const Extremes<T>& a, const Extremes<T>& b)
{
  INFO("min " << fold_test::to_double(a.min) << " / " << fold_test::to_double(b.min) << ", max "
              << fold_test::to_double(a.max) << " / " << fold_test::to_double(b.max) << ", arg min "
              << fold_test::to_double(a.arg_min) << " at " << a.min_index << " / " << fold_test::to_double(b.arg_min)
              << " at " << b.min_index << ", arg max " << fold_test::to_double(a.arg_max) << " at " << a.max_index
              << " / " << fold_test::to_double(b.arg_max) << " at " << b.max_index);
  CHECK(fold_test::same_bits(a.min, b.min));
  CHECK(fold_test::same_bits(a.max, b.max));
  CHECK(fold_test::same_bits(a.arg_min, b.arg_min));
  CHECK(fold_test::same_bits(a.arg_max, b.arg_max));
  CHECK(a.min_index == b.min_index);
  CHECK(a.max_index == b.max_index);
}

//! The tile of ArgMinMax over `T` (packed pairs, 32-bit counts), the longest of the three algorithms' tiles
//! here: the sizes around it take the single-tile path for all of them and the multi-block paths beyond.
template <typename T>
int fused_tile_items()
{
  using MinT = fold::detail::PackedArgReduction<T, false>;
  using MaxT = fold::detail::PackedArgReduction<T, true>;
  using Op   = fold::detail::Fused<typename MinT::Op, typename MaxT::Op>;
  return fold_test::tile_items<Op, T, fold::detail::Fused<typename MinT::PackedPair, typename MaxT::PackedPair>>();
}

template <typename T>
int var_mean_tile_items()
{
  return fold_test::
      tile_items<fold::detail::MergeMoments, T, fold::detail::Moments<fold::detail::moments_accum_t<T>>>();
}

using fold_test::PathCase;
const PathCase paths[] = {{ReducePath::automatic, 0},
                          {ReducePath::single_tile, 0},
                          {ReducePath::single_pass, 1},
                          {ReducePath::single_pass, 7},
                          {ReducePath::two_pass, 0},
                          {ReducePath::two_pass, 99}};

template <typename T>
bool is_nan(const T& x)
{
  return std::isnan(fold_test::to_double(x));
}

// ---- VarMean ---------------------------------------------------------------------------------------------------

template <typename T>
using acc_t = fold::detail::moments_accum_t<T>;

template <typename T>
struct VarMeanResult
{
  acc_t<T> var, mean;
};

//! fold's VarMean of `[in, in + n)` with `correction`, into outputs of the accumulator's type (poisoned first).
template <typename T>
VarMeanResult<T> fold_var_mean(const T* in, int n, double correction = 1.0)
{
  DeviceBuffer<acc_t<T>> out(2);
  out.poison();
  fold_test::two_call(
      [&](void* t, std::size_t& b)
      {
        return fold::DeviceReduce::VarMean(
            t, b, in, out.get(), out.get() + 1, n, correction, cudaStream_t{0}, fold_test::forced);
      });
  const auto h = out.to_host();
  return {h[0], h[1]};
}

//! The two-pass reference: the mean, then the sum of squared deviations, accumulated in long double (so that its own
//! rounding stays far below the bound a double accumulator is checked against); and the mean of |x|.
struct MomentsReference
{
  double mean = 0, m2 = 0, magnitude = 0;
  std::size_t n = 0;
  double var(double correction) const { return m2 / std::max(static_cast<double>(n) - correction, 0.0); }
};

template <typename T>
MomentsReference moments_reference(const std::vector<T>& values)
{
  long double sum = 0, magnitude = 0, m2 = 0;
  for (const T& v : values)
  {
    sum += fold_test::to_double(v);
    magnitude += std::fabs(fold_test::to_double(v));
  }
  const long double n    = static_cast<long double>(values.size());
  const long double mean = sum / n;
  for (const T& v : values)
  {
    const long double d = fold_test::to_double(v) - mean;
    m2 += d * d;
  }
  return {static_cast<double>(mean), static_cast<double>(m2), static_cast<double>(magnitude / n), values.size()};
}

//! The depth of fold's merge tree for `n` items of `T`, at most: the items a thread folds (its share of a tile,
//! and `n / (SMs x threads)` beyond one unit per block), the block's and the grid's trees, and pass 2's partials.
template <typename T>
double merge_depth(std::size_t n)
{
  const auto shape = fold::detail::
      reduce_tile_shape<const T*, fold::detail::Moments<acc_t<T>>, fold::DefaultTuning, fold::detail::MergeMoments>(
          fold_test::current_ptx_version());
  return shape.items_per_thread + static_cast<double>(n) / (fold_test::sm_count() * shape.block_threads) +
         2 * std::log2(static_cast<double>(n) + 2) + 64;
}

//! The bound VarMean's results are checked against. Each merge rounds a handful of times (a division, two fused
//! multiply-adds, two products, one sum), so along a tree of depth `d` in an accumulator of unit roundoff `u`:
//! - the mean errs by at most `4 d u mean|x|` (a weighted sum's bound, as for fold's float sums);
//! - the variance by at most `8 d u (var + mean^2)`: the deviations are taken from means that carry the error
//!   above, so the error of M2 scales with the squares of the items, `M2 + n mean^2`, not with M2 alone.
template <typename T>
void check_moments(const VarMeanResult<T>& got, const MomentsReference& ref, double correction)
{
  const double u        = fold_test::unit_roundoff<acc_t<T>>();
  const double d        = merge_depth<T>(ref.n);
  const double var      = ref.var(correction);
  const double mean_tol = 4 * d * u * ref.magnitude;
  const double var_tol  = 8 * d * u * (ref.m2 / static_cast<double>(ref.n) + ref.mean * ref.mean) *
                         static_cast<double>(ref.n) / std::max(static_cast<double>(ref.n) - correction, 1.0);
  INFO("n " << ref.n << ", correction " << correction << ": var " << got.var << " (expected " << var << " +- "
            << var_tol << "), mean " << got.mean << " (expected " << ref.mean << " +- " << mean_tol << ")");
  CHECK(std::fabs(static_cast<double>(got.mean) - ref.mean) <= mean_tol);
  CHECK(std::fabs(static_cast<double>(got.var) - var) <= var_tol);
}
} // namespace

// ---- MinMax and ArgMinMax --------------------------------------------------------------------------------------

TEMPLATE_TEST_CASE("MinMax and ArgMinMax find the first extremes, as the host and cub's two calls do",
                   "[device][fused][minmax]",
                   std::int8_t,
                   __half,
                   float,
                   double)
{
  using T = TestType;
  for (std::size_t n : fold_test::test_sizes(fused_tile_items<T>(), 19 * sizeof(T)))
  {
    for (auto kind : {fold_test::Values::full_range, fold_test::Values::few})
    {
      INFO("n " << n << ", values " << static_cast<int>(kind));
      const auto values = fold_test::random_values<T>(n, 3 * n + static_cast<int>(kind), kind);
      DeviceBuffer<T> d_in(values);
      const int count          = static_cast<int>(n);
      const Extremes<T> result = fold_extremes(d_in.get(), count);
      if (n == 0)
      {
        const T lo = fold::detail::min_identity<T>(), hi = fold::detail::max_identity<T>();
        check_same(result, Extremes<T>{lo, hi, lo, hi, -1, -1});
        continue;
      }
      check_same(result, host_extremes(values));
      check_same(result, cub_extremes(d_in.get(), count));
    }
  }
}

TEMPLATE_TEST_CASE("MinMax and ArgMinMax: NaN, signed zeros and ties on every path",
                   "[device][fused][minmax]",
                   __half,
                   float)
{
  using T         = TestType;
  const T nan     = cuda::std::numeric_limits<T>::quiet_NaN();
  const T pos_inf = cuda::std::numeric_limits<T>::infinity();
  for (std::size_t n : {std::size_t{1000}, std::size_t{300'007}, std::size_t{5'000'011}})
  {
    const int count = static_cast<int>(n);
    // Ties: two copies of each extreme (the maximum an infinity); the first copy is the one found.
    auto values                = fold_test::nonzero_numbers<T>(n, n);
    const std::size_t first_hi = n / 7, second_hi = n - 2, first_lo = n / 3, second_lo = n - 1;
    values[first_hi] = values[second_hi] = pos_inf;
    values[first_lo] = values[second_lo] = fold_test::from_double<T>(-2.0);
    DeviceBuffer<T> d_ties(values);
    // Signed zeros among positive numbers (the minimum is the first -0.0) ...
    auto zeros = fold_test::nonzero_numbers<T>(n, n + 1);
    for (auto& v : zeros)
    {
      v = fold_test::from_double<T>(std::fabs(fold_test::to_double(v)));
    }
    const std::size_t pos_zero = n / 5, neg_zero = n / 2;
    zeros[pos_zero] = fold_test::from_double<T>(0.0);
    zeros[neg_zero] = fold_test::from_double<T>(-0.0);
    zeros[n - 3]    = fold_test::from_double<T>(-0.0);
    DeviceBuffer<T> d_zeros(zeros);
    // ... and two NaNs of different signs: both extremes are the canonical NaN, at the first NaN's index.
    auto nans                   = fold_test::nonzero_numbers<T>(n, n + 2);
    const std::size_t first_nan = n / 4;
    nans[first_nan]             = fold_test::from_double<T>(-std::numeric_limits<double>::quiet_NaN());
    nans[n / 2 + 1]             = nan;
    DeviceBuffer<T> d_nans(nans);

    for (const PathCase& c : paths)
    {
      if (c.path == ReducePath::single_tile && n > 300'007)
      {
        continue; // one block over millions of items: right, but slow
      }
      INFO("n " << n << ", path " << static_cast<int>(c.path) << ", max grid " << c.max_grid);
      fold_test::ForceDispatch force(c.path, c.max_grid);
      const Extremes<T> ties = fold_extremes(d_ties.get(), count);
      check_same(
          ties,
          Extremes<T>{
              values[first_lo], pos_inf, values[first_lo], pos_inf, std::int64_t(first_lo), std::int64_t(first_hi)});

      const Extremes<T> z = fold_extremes(d_zeros.get(), count);
      CHECK(fold_test::same_bits(z.min, fold_test::from_double<T>(-0.0)));
      CHECK(fold_test::same_bits(z.arg_min, fold_test::from_double<T>(-0.0)));
      CHECK(z.min_index == static_cast<std::int64_t>(neg_zero));

      const Extremes<T> nn = fold_extremes(d_nans.get(), count);
      check_same(nn, Extremes<T>{nan, nan, nan, nan, std::int64_t(first_nan), std::int64_t(first_nan)});
    }
    // +0.0 above -0.0 for the maximum: the zeros negated, so the +0.0s sit where the -0.0s were.
    for (auto& v : zeros)
    {
      v = fold_test::from_double<T>(-fold_test::to_double(v));
    }
    DeviceBuffer<T> d_negated(zeros);
    const Extremes<T> z = fold_extremes(d_negated.get(), count);
    CHECK(fold_test::same_bits(z.max, fold_test::from_double<T>(0.0)));
    CHECK(fold_test::same_bits(z.arg_max, fold_test::from_double<T>(0.0)));
    CHECK(z.max_index == static_cast<std::int64_t>(neg_zero));
  }
}

namespace
{
//! Floats with their extremes past 2^32: 2.0 at `2^32 + 1` and `2^32 + 7`, -2.0 at `2^32 + 3` and `2^32 + 9`;
//! 1.5 and -1.5 at `2^32 - 1` and `2^32 - 2`; in between, values in [-0.5, 0.5) that repeat every 1000 items.
struct MarkedFloats
{
  __host__ __device__ float operator()(std::uint64_t i) const
  {
    constexpr std::uint64_t head = std::uint64_t{1} << 32;
    if (i == head + 1 || i == head + 7)
    {
      return 2.0f;
    }
    if (i == head + 3 || i == head + 9)
    {
      return -2.0f;
    }
    if (i == head - 1)
    {
      return 1.5f;
    }
    if (i == head - 2)
    {
      return -1.5f;
    }
    return static_cast<float>(i % 1000) * 1e-3f - 0.5f;
  }
};
} // namespace

TEST_CASE("ArgMinMax: 64-bit indices on either side of 2^32 items (packed pairs, then index-value pairs)",
          "[device][fused][minmax][huge]")
{
  const std::uint64_t head = std::uint64_t{1} << 32;
  const auto values = thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), MarkedFloats{});
  const Extremes<float> packed = fold_extremes(values, head);
  check_same(packed,
             Extremes<float>{
                 -1.5f, 1.5f, -1.5f, 1.5f, static_cast<std::int64_t>(head - 2), static_cast<std::int64_t>(head - 1)});
  const Extremes<float> pairs = fold_extremes(values, head + 16);
  check_same(pairs,
             Extremes<float>{
                 -2.0f, 2.0f, -2.0f, 2.0f, static_cast<std::int64_t>(head + 3), static_cast<std::int64_t>(head + 1)});
}

// ---- VarMean ---------------------------------------------------------------------------------------------------

TEMPLATE_TEST_CASE("VarMean agrees with a two-pass reference in double at every size class",
                   "[device][fused][var-mean]",
                   __half,
                   float,
                   double)
{
  using T = TestType;
  for (std::size_t n : fold_test::test_sizes(var_mean_tile_items<T>(), 23 * sizeof(T)))
  {
    if (n < 2)
    {
      continue; // the edge cases below
    }
    // Values in [2, 4): a mean 9 times the spread, where summing squares would cancel.
    auto values = fold_test::random_values<T>(n, 5 * n + 1, fold_test::Values::full_range);
    for (auto& v : values)
    {
      v = fold_test::from_double<T>(fold_test::to_double(v) + 3.0);
    }
    DeviceBuffer<T> d_in(values);
    const MomentsReference ref = moments_reference(values);
    for (double correction : {1.0, 0.0, 2.5})
    {
      check_moments<T>(fold_var_mean(d_in.get(), static_cast<int>(n), correction), ref, correction);
    }
  }
}

TEMPLATE_TEST_CASE("VarMean: empty input, n <= correction, NaN and infinity",
                   "[device][fused][var-mean]",
                   __half,
                   float)
{
  using T     = TestType;
  using A     = acc_t<T>;
  const T one = fold_test::from_double<T>(1.0), two = fold_test::from_double<T>(2.0);
  auto run = [](const std::vector<T>& values, double correction)
  {
    DeviceBuffer<T> d_in(values);
    return fold_var_mean(d_in.get(), static_cast<int>(values.size()), correction);
  };
  // Empty: NaN for both (torch: the same).
  const auto empty = run({}, 1.0);
  CHECK(std::isnan(empty.var));
  CHECK(std::isnan(empty.mean));
  // One item: the mean is the item; the variance NaN with correction 1 (0 / 0), 0 with correction 0.
  const auto single = run({two}, 1.0);
  CHECK(std::isnan(single.var));
  CHECK(single.mean == A(2));
  CHECK(run({two}, 0.0).var == A(0));
  // n <= correction: +inf when the items differ, NaN when they are all equal.
  CHECK(run({one, two}, 2.0).var == std::numeric_limits<A>::infinity());
  CHECK(run({one, two}, 3.0).var == std::numeric_limits<A>::infinity());
  CHECK(std::isnan(run({two, two}, 2.0).var));
  CHECK(run({one, two}, 1.5).var == A(1)); // 0.5 / 0.5
  // An infinity that the merge meets last (the last item of the last busy thread) still makes the variance NaN:
  // its M2 alone is +inf, or 0 for one item (review of 2026-11-24).
  const T inf = cuda::std::numeric_limits<T>::infinity();
  CHECK(std::isnan(run({inf}, 0.0).var));
  CHECK(std::isnan(run({one, inf}, 1.0).var));
  CHECK(std::isnan(run({one, inf, two}, 1.0).var));
  {
    auto last   = fold_test::nonzero_numbers<T>(static_cast<std::size_t>(var_mean_tile_items<T>()), 13);
    last.back() = inf;
    CHECK(std::isnan(run(last, 1.0).var));
  }
  // A NaN anywhere makes both NaN; an infinity makes the variance NaN. On every path.
  for (std::size_t n : {std::size_t{1000}, std::size_t{3'000'017}})
  {
    auto values   = fold_test::nonzero_numbers<T>(n, n + 11);
    values[n / 3] = cuda::std::numeric_limits<T>::quiet_NaN();
    auto infs     = fold_test::nonzero_numbers<T>(n, n + 12);
    infs[n / 2]   = cuda::std::numeric_limits<T>::infinity();
    for (const PathCase& c : paths)
    {
      if (c.path == ReducePath::single_tile && n > 1000)
      {
        continue;
      }
      INFO("n " << n << ", path " << static_cast<int>(c.path) << ", max grid " << c.max_grid);
      fold_test::ForceDispatch force(c.path, c.max_grid);
      const auto with_nan = run(values, 1.0);
      CHECK(std::isnan(with_nan.var));
      CHECK(std::isnan(with_nan.mean));
      CHECK(std::isnan(run(infs, 1.0).var));
    }
  }
}

// ---- Reproducibility -------------------------------------------------------------------------------------------

TEMPLATE_TEST_CASE("VarMean is bitwise identical at every grid size, wave count, path and alignment",
                   "[device][fused][var-mean][reproducible]",
                   __half,
                   float)
{
  using T                = TestType;
  const std::size_t tile = static_cast<std::size_t>(var_mean_tile_items<T>());
  // Past twice VarMean's most units of one tile each: units of two tiles and more.
  const std::size_t many = 2 * tile *
                           fold::detail::max_units_of<fold::detail::MergeMoments, fold::detail::Moments<float>>(
                               fold::select_reduce_policy(fold_test::current_ptx_version()));
  constexpr std::size_t V = 16 / sizeof(T); // the items of one vector load
  for (std::size_t n : {tile + 1, 77 * tile + 5, std::size_t{1'234'567}, many + 1001})
  {
    const auto values = fold_test::random_values<T>(n, n + 3, fold_test::Values::full_range);
    DeviceBuffer<T> d_buffer(n + V);
    CUDA_REQUIRE(cudaMemcpy(d_buffer.get(), values.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    const int count                  = static_cast<int>(n);
    const VarMeanResult<T> reference = fold_var_mean(d_buffer.get(), count);
    auto same                        = [&](const VarMeanResult<T>& r)
    { return fold_test::same_bits(r.var, reference.var) && fold_test::same_bits(r.mean, reference.mean); };
    for (ReducePath path : {ReducePath::single_pass, ReducePath::two_pass})
    {
      for (int max_grid : {1, 2, 5, 64, 131, 1000, 5000})
      {
        INFO("n " << n << ", path " << static_cast<int>(path) << ", max grid " << max_grid);
        fold_test::ForceDispatch force(path, max_grid);
        CHECK(same(fold_var_mean(d_buffer.get(), count)));
      }
    }
    for (int waves : {1, 2, 3, 8})
    {
      INFO("n " << n << ", waves " << waves);
      fold_test::ForceDispatch force(ReducePath::automatic, 0, waves);
      CHECK(same(fold_var_mean(d_buffer.get(), count)));
    }
    // The same values one item past a vector boundary: single loads instead of vector loads, the same tree.
    CUDA_REQUIRE(cudaMemcpy(d_buffer.get() + 1, values.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    INFO("n " << n << ", misaligned");
    CHECK(same(fold_var_mean(d_buffer.get() + 1, count)));
    // And the fused extremes, exact, on both alignments.
    CHECK(fold_test::same_bits(fold_extremes(d_buffer.get() + 1, count).min, host_extremes(values).min));
  }
}

TEST_CASE("VarMean cuts its input into at most 1024 units, 16 times fewer than a float sum's",
          "[device][fused][var-mean]")
{
  // The temporary storage holds a ticket, then one partial per unit; the size query reads no input.
  using Moments           = fold::detail::Moments<float>;
  const auto policy       = fold::select_reduce_policy(fold_test::current_ptx_version());
  const std::size_t units = static_cast<std::size_t>(policy.max_units) / 16;
  REQUIRE(units == 1024);
  REQUIRE(fold::detail::max_units_of<fold::detail::MergeMoments, Moments>(policy) == static_cast<int>(units));
  const std::size_t tile = static_cast<std::size_t>(var_mean_tile_items<float>());
  for (std::size_t n : {3 * tile, units * tile, 16 * units * tile + 1, std::size_t{1} << 30})
  {
    std::size_t bytes = 0;
    CUDA_REQUIRE(fold::DeviceReduce::VarMean(nullptr,
                                             bytes,
                                             static_cast<const float*>(nullptr),
                                             static_cast<float*>(nullptr),
                                             static_cast<float*>(nullptr),
                                             static_cast<std::int64_t>(n),
                                             1.0));
    const std::size_t tiles = (n + tile - 1) / tile;
    INFO("n " << n);
    CHECK(bytes >= std::min(tiles, units) * sizeof(Moments));
    CHECK(bytes < (std::min(tiles, units) + 8) * sizeof(Moments));
  }
}

// ---- One call and bad arguments --------------------------------------------------------------------------------

TEST_CASE("MinMax, ArgMinMax and VarMean in one call give the two-call results", "[device][fused][one-call]")
{
  const std::size_t n = 1'000'003;
  const auto values   = fold_test::nonzero_numbers<float>(n, 77);
  DeviceBuffer<float> d_in(values);
  DeviceBuffer<float> out(6);
  DeviceBuffer<std::int64_t> index(2);
  out.poison();
  index.poison();
  float* o        = out.get();
  const int count = static_cast<int>(n);
  using fold::DeviceReduce;
  CUDA_REQUIRE(DeviceReduce::MinMax(d_in.get(), o, o + 1, count, 0, fold_test::forced));
  CUDA_REQUIRE(
      DeviceReduce::ArgMinMax(d_in.get(), o + 2, index.get(), o + 3, index.get() + 1, count, 0, fold_test::forced));
  CUDA_REQUIRE(DeviceReduce::VarMean(d_in.get(), o + 4, o + 5, count, 1.0, 0, fold_test::forced));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto h = out.to_host();
  const auto i = index.to_host();
  check_same(Extremes<float>{h[0], h[1], h[2], h[3], i[0], i[1]}, fold_extremes(d_in.get(), count));
  const VarMeanResult<float> two_call = fold_var_mean(d_in.get(), count);
  CHECK(fold_test::same_bits(h[4], two_call.var));
  CHECK(fold_test::same_bits(h[5], two_call.mean));
}

TEST_CASE("MinMax, ArgMinMax and VarMean reject bad arguments before anything is launched or written",
          "[device][fused][errors]")
{
  const int n       = 3 << 20;
  const auto values = fold_test::nonzero_numbers<float>(n, 5);
  DeviceBuffer<float> d_in(values);
  DeviceBuffer<float> out(4);
  DeviceBuffer<std::int64_t> index(2);
  float* o             = out.get();
  std::int64_t* i      = index.get();
  float* const null_f  = nullptr;
  std::int64_t* null_i = nullptr;
  const float* in      = d_in.get();
  using fold::DeviceReduce;
  using Call        = std::function<cudaError_t(void*, std::size_t&)>;
  const Call good[] = {
      [&](void* t, std::size_t& b) { return DeviceReduce::MinMax(t, b, in, o, o + 1, n, 0, fold_test::forced); },
      [&](void* t, std::size_t& b)
      { return DeviceReduce::ArgMinMax(t, b, in, o, i, o + 1, i + 1, n, 0, fold_test::forced); },
      [&](void* t, std::size_t& b)
      { return DeviceReduce::VarMean(t, b, in, o, o + 1, n, 1.0, cudaStream_t{0}, fold_test::forced); },
  };
  std::size_t most = 0;
  for (const Call& call : good)
  {
    std::size_t bytes = 0;
    CUDA_REQUIRE(call(nullptr, bytes));
    most = std::max(most, bytes);
  }
  DeviceBuffer<unsigned char> temp(most);

  //! `call` with `bytes` of storage (or a size query): returns `cudaErrorInvalidValue`, queues nothing (an empty
  //! graph when captured), writes neither the outputs nor the storage nor `bytes`.
  auto expect_rejected = [&](const Call& call, std::size_t bytes, bool query = false)
  {
    out.poison();
    index.poison();
    temp.poison();
    cudaStream_t stream{};
    CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    std::size_t given       = bytes;
    const cudaError_t error = call(query ? nullptr : temp.get(), given);
    cudaGraph_t graph{};
    CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
    std::size_t nodes = 0;
    CUDA_REQUIRE(cudaGraphGetNodes(graph, nullptr, &nodes));
    CUDA_REQUIRE(cudaGraphDestroy(graph));
    CUDA_REQUIRE(cudaStreamDestroy(stream));
    CHECK(error == cudaErrorInvalidValue);
    CHECK(nodes == 0);
    CHECK(given == bytes);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto o_host = out.to_host();
    const auto i_host = index.to_host();
    const auto t_host = temp.to_host();
    auto poisoned     = [](const void* p, std::size_t size)
    {
      const auto* b = static_cast<const unsigned char*>(p);
      return std::all_of(b, b + size, [](unsigned char x) { return x == fold_test::poison_byte; });
    };
    CHECK(poisoned(o_host.data(), o_host.size() * sizeof(float)));
    CHECK(poisoned(i_host.data(), i_host.size() * sizeof(std::int64_t)));
    CHECK(poisoned(t_host.data(), t_host.size()));
  };

  SECTION("one byte too little temporary storage")
  {
    for (const Call& call : good)
    {
      std::size_t bytes = 0;
      CUDA_REQUIRE(call(nullptr, bytes));
      expect_rejected(call, bytes - 1);
    }
  }
  SECTION("a null output, even for empty input")
  {
    for (int count : {n, 0})
    {
      INFO("n " << count);
      expect_rejected([&](void* t, std::size_t& b)
                      { return DeviceReduce::MinMax(t, b, in, null_f, o + 1, count, 0, fold_test::forced); },
                      most);
      expect_rejected([&](void* t, std::size_t& b)
                      { return DeviceReduce::MinMax(t, b, in, o, null_f, count, 0, fold_test::forced); },
                      most);
      expect_rejected(
          [&](void* t, std::size_t& b)
          { return DeviceReduce::ArgMinMax(t, b, in, o, null_i, o + 1, i + 1, count, 0, fold_test::forced); },
          most);
      expect_rejected([&](void* t, std::size_t& b)
                      { return DeviceReduce::ArgMinMax(t, b, in, o, i, null_f, i + 1, count, 0, fold_test::forced); },
                      most);
      expect_rejected(
          [&](void* t, std::size_t& b)
          { return DeviceReduce::VarMean(t, b, in, null_f, o + 1, count, 1.0, cudaStream_t{0}, fold_test::forced); },
          most);
      expect_rejected(
          [&](void* t, std::size_t& b)
          { return DeviceReduce::VarMean(t, b, in, o, null_f, count, 1.0, cudaStream_t{0}, fold_test::forced); },
          most);
    }
  }
  SECTION("null input with items, a negative count")
  {
    const float* null_in = nullptr;
    expect_rejected([&](void* t, std::size_t& b)
                    { return DeviceReduce::MinMax(t, b, null_in, o, o + 1, n, 0, fold_test::forced); },
                    most);
    for (bool query : {false, true})
    {
      expect_rejected([&](void* t, std::size_t& b)
                      { return DeviceReduce::ArgMinMax(t, b, in, o, i, o + 1, i + 1, -1, 0, fold_test::forced); },
                      most,
                      query);
      expect_rejected(
          [&](void* t, std::size_t& b)
          { return DeviceReduce::VarMean(t, b, in, o, o + 1, -7, 1.0, cudaStream_t{0}, fold_test::forced); },
          most,
          query);
    }
  }
  SECTION("a correction that is negative, infinite or NaN, as a run and as a size query")
  {
    for (double correction :
         {-1.0, -1e-300, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()})
    {
      INFO("correction " << correction);
      for (bool query : {false, true})
      {
        expect_rejected(
            [&](void* t, std::size_t& b)
            { return DeviceReduce::VarMean(t, b, in, o, o + 1, n, correction, cudaStream_t{0}, fold_test::forced); },
            most,
            query);
      }
    }
  }
}
