// SPDX-License-Identifier: Apache-2.0
// The pieces of the fused reductions, on the host (no GPU): Chan's merge of moments (VarMean) against a two-pass
// reference in double, folded as a thread folds (Welford) and as the blocks' trees merge; the empty side; the
// fused operators, transforms and traits of MinMax and ArgMinMax against the single reductions they are made of.
#include <fold/detail/fused.cuh>

#include "test_util.cuh"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace
{
using fold::detail::Fused;
using fold::detail::MergeMoments;
using fold::detail::Moments;

template <typename AccT>
Moments<AccT> one(double x)
{
  return fold::detail::ToMoments<AccT>{}(x, 0);
}

//! The moments of `xs[begin, end)`: a thread's fold (item after item), or, above `leaf` items, the merge of two
//! halves (a block's or the grid's tree).
template <typename AccT>
Moments<AccT> fold_moments(const std::vector<double>& xs, std::size_t begin, std::size_t end, std::size_t leaf)
{
  if (end - begin > leaf)
  {
    const std::size_t mid = begin + (end - begin) / 2;
    return MergeMoments{}(fold_moments<AccT>(xs, begin, mid, leaf), fold_moments<AccT>(xs, mid, end, leaf));
  }
  Moments<AccT> m = one<AccT>(xs[begin]);
  for (std::size_t i = begin + 1; i < end; ++i)
  {
    m = MergeMoments{}(m, one<AccT>(xs[i]));
  }
  return m;
}

//! The two-pass mean and M2, in long double (the double accumulator's results are checked against it).
struct Reference
{
  double mean = 0, m2 = 0;
};

Reference two_pass(const std::vector<double>& xs)
{
  long double sum = 0, m2 = 0;
  for (double x : xs)
  {
    sum += x;
  }
  const long double mean = sum / static_cast<long double>(xs.size());
  for (double x : xs)
  {
    m2 += (x - mean) * (x - mean);
  }
  return {static_cast<double>(mean), static_cast<double>(m2)};
}

//! The item an extremum's value (as `ExtremumValues` carries it: an order key for floating-point items) stands for.
template <typename T, bool ForMax, typename V>
double value_of(V v)
{
  if constexpr (fold::detail::ExtremumValues<T, ForMax>::keyed)
  {
    return fold_test::to_double(fold::detail::from_order_key<T, ForMax>(v));
  }
  else
  {
    return static_cast<double>(v);
  }
}

template <typename AccT>
std::vector<double> samples(std::size_t n, double offset, std::uint64_t seed)
{
  fold_test::Random random{seed};
  std::vector<double> xs(n);
  for (double& x : xs)
  {
    x = static_cast<double>(static_cast<AccT>(offset + 2 * random.uniform() - 1)); // representable in AccT
  }
  return xs;
}
} // namespace

TEMPLATE_TEST_CASE("Chan's merge gives the mean and M2 of a two-pass reference, in any tree",
                   "[fused][var-mean]",
                   float,
                   double)
{
  using AccT     = TestType;
  const double u = std::numeric_limits<AccT>::epsilon() / 2;
  for (double offset : {0.0, 3.0, 1000.0})
  {
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{17}, std::size_t{1000}, std::size_t{100'003}})
    {
      const auto xs     = samples<AccT>(n, offset, n + 7);
      const Reference r = two_pass(xs);
      for (std::size_t leaf : {std::size_t{1}, std::size_t{16}, n})
      {
        const Moments<AccT> m = fold_moments<AccT>(xs, 0, n, leaf);
        // Depth: `leaf` sequential items, then log2(n / leaf) merges.
        const double depth = static_cast<double>(leaf) + std::log2(static_cast<double>(n)) + 4;
        INFO("offset " << offset << ", n " << n << ", leaf " << leaf << ": mean " << m.mean << " vs " << r.mean
                       << ", M2 " << m.m2 << " vs " << r.m2);
        CHECK(m.count == static_cast<std::int64_t>(n));
        CHECK(std::fabs(m.mean - r.mean) <= 4 * depth * u * (std::fabs(offset) + 1));
        CHECK(std::fabs(m.m2 - r.m2) <= 8 * depth * u * (r.m2 + static_cast<double>(n) * r.mean * r.mean) + 1e-300);
      }
    }
  }
}

TEST_CASE("Chan's merge: one item is Welford's update; an empty side gives the other side exactly", "[fused][var-mean]")
{
  const Moments<float> a = MergeMoments{}(one<float>(1.0), one<float>(2.0));
  CHECK(a.count == 2);
  CHECK(a.mean == 1.5f);
  CHECK(a.m2 == 0.5f);
  const Moments<float> b = MergeMoments{}(a, one<float>(4.0)); // mean 7/3, M2 = 14/3
  CHECK(std::fabs(b.mean - 7.0f / 3) <= 1e-6f);
  CHECK(std::fabs(b.m2 - 14.0f / 3) <= 1e-5f);
  const Moments<float> empty{};
  const Moments<float> left = MergeMoments{}(empty, b), right = MergeMoments{}(b, empty);
  CHECK(fold_test::same_bits(left.mean, b.mean));
  CHECK(fold_test::same_bits(left.m2, b.m2));
  CHECK(left.count == b.count);
  CHECK(fold_test::same_bits(right.mean, b.mean));
  CHECK(fold_test::same_bits(right.m2, b.m2));
  // NaN propagates; the count stays exact past 2^24 and 2^53.
  CHECK(std::isnan(MergeMoments{}(b, one<float>(std::nan(""))).mean));
  const Moments<double> big{1.0, 0.0, (std::int64_t{1} << 53) + 1};
  CHECK(MergeMoments{}(big, one<double>(1.0)).count == (std::int64_t{1} << 53) + 2);
  CHECK(fold::is_commutative_v<MergeMoments>);
  CHECK(!fold::detail::is_exact_v<MergeMoments, Moments<float>>);
}

TEMPLATE_TEST_CASE("Fused Min and Max: each half as the single reduction, exact and commutative",
                   "[fused][minmax]",
                   std::int8_t,
                   __half,
                   float,
                   double)
{
  using T    = TestType;
  using MinR = fold::detail::ExtremumReduction<T, false>;
  using MaxR = fold::detail::ExtremumReduction<T, true>;
  using OpT  = Fused<typename MinR::Op, typename MaxR::Op>;
  using AccT = Fused<typename MinR::AccumT, typename MaxR::AccumT>;
  using ToT  = Fused<typename MinR::ToValue, typename MaxR::ToValue>;
  const OpT op{};
  const ToT to{};
  static_assert(fold::is_commutative_v<OpT>);
  static_assert(fold::detail::is_exact_v<OpT, AccT>);
  static_assert(std::is_same_v<fold::detail::fused_t<int>, int>);
  static_assert(std::is_same_v<fold::detail::fused_t<int, float>, Fused<int, float>>);

  auto values = fold_test::random_values<T>(1000, 41, fold_test::Values::full_range);
  if constexpr (fold::is_floating_v<T>)
  {
    values[500] = fold_test::from_double<T>(-0.0);
    values[600] = fold_test::from_double<T>(0.0);
  }
  AccT acc{MinR::identity(), MaxR::identity()};
  typename MinR::AccumT lo = MinR::identity();
  typename MaxR::AccumT hi = MaxR::identity();
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    const AccT item = to(values[i], i);
    acc             = (i % 2 == 0) ? op(acc, item) : op(item, acc); // either order
    lo              = typename MinR::Op{}(lo, typename MinR::ToValue{}(values[i], i));
    hi              = typename MaxR::Op{}(hi, typename MaxR::ToValue{}(values[i], i));
  }
  CHECK(acc.first == lo);
  CHECK(acc.second == hi);
  // The in-order operator of a fused operator is the fused in-order operators.
  using InOrderT = typename fold::detail::InOrder<OpT>::type;
  static_assert(std::is_same_v<InOrderT,
                               Fused<typename fold::detail::InOrder<typename MinR::Op>::type,
                                     typename fold::detail::InOrder<typename MaxR::Op>::type>>);
}

TEMPLATE_TEST_CASE("Fused packed ArgMin and ArgMax: the first minimum and the first maximum, in any grouping",
                   "[fused][argminmax]",
                   std::int8_t,
                   __half,
                   float,
                   double)
{
  using T     = TestType;
  using MinP  = fold::detail::PackedArgReduction<T, false>;
  using MaxP  = fold::detail::PackedArgReduction<T, true>;
  using OpT   = Fused<typename MinP::Op, typename MaxP::Op>;
  using PackT = Fused<typename MinP::Pack, typename MaxP::Pack>;
  using AccT  = Fused<typename MinP::PackedPair, typename MaxP::PackedPair>;
  static_assert(fold::is_commutative_v<OpT>);
  static_assert(fold::detail::is_exact_v<OpT, AccT>);
  const OpT op{};
  const PackT pack{};
  const auto values = fold_test::random_values<T>(3001, 43, fold_test::Values::few); // ties everywhere
  std::size_t lo = 0, hi = 0;
  for (std::size_t i = 1; i < values.size(); ++i)
  {
    lo = fold_test::to_double(values[i]) < fold_test::to_double(values[lo]) ? i : lo;
    hi = fold_test::to_double(values[i]) > fold_test::to_double(values[hi]) ? i : hi;
  }
  // Left to right, and as a tree of pairs from the right.
  AccT left = pack(values[0], std::uint32_t{0});
  for (std::uint32_t i = 1; i < values.size(); ++i)
  {
    left = op(left, pack(values[i], i));
  }
  AccT tree = pack(values.back(), static_cast<std::uint32_t>(values.size() - 1));
  for (std::size_t i = values.size() - 1; i-- > 0;)
  {
    tree = op(pack(values[i], static_cast<std::uint32_t>(i)), tree);
  }
  for (const AccT& acc : {left, tree})
  {
    const auto min = MinP::unpack(acc.first);
    const auto max = MaxP::unpack(acc.second);
    CHECK(min.key == static_cast<std::int64_t>(lo));
    CHECK(max.key == static_cast<std::int64_t>(hi));
    CHECK(value_of<T, false>(min.value) == fold_test::to_double(values[lo]));
    CHECK(value_of<T, true>(max.value) == fold_test::to_double(values[hi]));
  }
}
