// SPDX-License-Identifier: Apache-2.0
// DeviceReduceAxes: random shapes of rank 1..6 over random axis sets (every merge pattern, one to four steps),
// long columns cut into units, non-commutative operators in row-major order, float sums within their bound and
// bitwise the same on every run, empty axes, and the argument checks; against a host reference. Batch invariance:
// an output has the same bits whatever the kept extents around it. Min and Max (named, and as Reduce's operators)
// over floats and halves with NaNs and signed zeros, bitwise against fold's operators on the host.
#include <fold/device/device_reduce_axes.cuh>

#include "device_test_util.cuh"
#include "ops_util.cuh"
#include "test_util.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace
{
//! The host reduction of `values` (row-major `shape`) over `mask`, folding the reduced items of each output in
//! row-major order with `op` from `init`.
template <typename R, typename T, typename OpT>
std::vector<R>
host_reduce(const std::vector<T>& values, const std::vector<std::int64_t>& shape, unsigned mask, R init, OpT op)
{
  const int rank       = static_cast<int>(shape.size());
  std::int64_t outputs = 1;
  for (int d = 0; d < rank; ++d)
  {
    outputs *= (mask >> d & 1u) ? 1 : shape[d];
  }
  std::vector<R> out(static_cast<std::size_t>(outputs), init);
  std::vector<std::int64_t> index(rank, 0);
  for (std::size_t i = 0; i < values.size(); ++i) // row-major: each output meets its items in row-major order
  {
    std::int64_t o = 0;
    for (int d = 0; d < rank; ++d)
    {
      o = (mask >> d & 1u) ? o : o * shape[d] + index[d];
    }
    out[o] = op(out[o], values[i]);
    for (int d = rank - 1; d >= 0 && ++index[d] == shape[d]; --d)
    {
      index[d] = 0;
    }
  }
  return out;
}

//! The composition of affine maps `x -> a x + b` modulo 2^16, `a` in the upper half of a word and `b` in the lower
//! (first the left one, then the right one): associative, not commutative, and a plain 32-bit word, so that the
//! ordered path is taken over items the kernels may read as vectors.
struct Affine16
{
  __host__ __device__ std::uint32_t operator()(std::uint32_t x, std::uint32_t y) const
  {
    const std::uint32_t a1 = x >> 16, b1 = x & 0xffffu, a2 = y >> 16, b2 = y & 0xffffu;
    return ((a2 * a1) & 0xffffu) << 16 | ((a2 * b1 + b2) & 0xffffu);
  }
};

struct WrapSum
{
  std::int32_t operator()(std::int32_t a, std::int32_t b) const
  {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
  }
};

template <typename OutT, typename InT, typename OpT, typename InitT>
std::vector<OutT> device_reduce(const std::vector<InT>& values,
                                const std::vector<std::int64_t>& shape,
                                const std::vector<int>& axes,
                                std::size_t outputs,
                                OpT op,
                                InitT init)
{
  fold_test::DeviceBuffer<InT> d_in(values);
  fold_test::DeviceBuffer<OutT> d_out(outputs);
  d_out.poison();
  const fold::Extents extents(shape.data(), static_cast<int>(shape.size()));
  const fold::Axes reduced(axes.data(), static_cast<int>(axes.size()));
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      { return fold::DeviceReduceAxes::Reduce(temp, bytes, d_in.get(), d_out.get(), extents, reduced, op, init); });
  return d_out.to_host();
}

//! The reduced axes as a bit mask, as `host_reduce` takes them.
unsigned axes_mask(const std::vector<int>& axes)
{
  unsigned mask = 0;
  for (int a : axes)
  {
    mask |= 1u << a;
  }
  return mask;
}

std::int64_t product(const std::vector<std::int64_t>& shape)
{
  std::int64_t p = 1;
  for (auto e : shape)
  {
    p *= e;
  }
  return p;
}
} // namespace

TEST_CASE("Integer sums over random shapes and axis sets", "[device][axes]")
{
  fold_test::Random random{31};
  for (int trial = 0; trial < 120; ++trial)
  {
    const int rank = static_cast<int>(random.between(1, 6));
    std::vector<std::int64_t> shape;
    for (int d = 0; d < rank; ++d)
    {
      shape.push_back(random.next() % 4 == 0 ? 1 : random.between(2, trial % 10 == 0 ? 300 : 12));
    }
    if (product(shape) > (1 << 22))
    {
      continue;
    }
    std::vector<int> axes;
    unsigned mask = 0;
    for (int d = 0; d < rank; ++d)
    {
      if (random.next() % 2)
      {
        axes.push_back(d);
        mask |= 1u << d;
      }
    }
    const auto values   = fold_test::random_values<std::int32_t>(product(shape), trial, fold_test::Values::full_range);
    const auto expected = host_reduce<std::int32_t>(values, shape, mask, 5, WrapSum{});
    const auto out      = device_reduce<std::int32_t>(values, shape, axes, expected.size(), fold::Sum{}, 5);
    INFO("trial " << trial << ", rank " << rank << ", mask " << mask);
    CHECK(out == expected);
  }
}

TEST_CASE("Long columns: exact sums along column trees, and an order-preserving operator's units of rows in one or "
          "several steps",
          "[device][axes]")
{
  // The comments name the units HigherDimKernel cuts the columns into for the order-preserving operator (affine
  // maps); the exact sums go along the trees the segmented reduction gives rows of the same length (a large
  // segment's units, then their partials), wide rows too.
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>> cases = {
      {{20000, 3}, {0}},         // a few units of many rows
      {{5000, 300}, {0}},        // 128-row units, then a second step
      {{300000, 2}, {0}},        // three steps
      {{4, 3000, 70}, {1}},      // batched
      {{3, 4000, 5, 9}, {1, 3}}, // the last dimension, then a batched higher one
      {{2, 1500, 3, 200, 4}, {0, 1, 3}},
      {{70000}, {0}},         // everything: one segment
      {{7, 9}, {}},           // nothing reduced
      {{300, 65536}, {0}},    // wide rows: the affine maps in 128-row units
      {{2, 200, 65541}, {1}}, // the same, batched, a row not a whole number of vectors
  };
  for (const auto& [shape, axes] : cases)
  {
    const unsigned mask = axes_mask(axes);
    const auto values =
        fold_test::random_values<std::int32_t>(product(shape), product(shape), fold_test::Values::full_range);
    const auto expected = host_reduce<std::int32_t>(values, shape, mask, -3, WrapSum{});
    const auto out      = device_reduce<std::int32_t>(values, shape, axes, expected.size(), fold::Sum{}, -3);
    INFO("shape of " << shape.size() << " dims, " << product(shape) << " items, mask " << mask);
    CHECK(out == expected);
    const auto maps = fold_test::random_values<std::uint32_t>(
        static_cast<std::size_t>(product(shape)), 7 + product(shape), fold_test::Values::full_range);
    CHECK(device_reduce<std::uint32_t>(maps, shape, axes, expected.size(), Affine16{}, 0x10000u) ==
          host_reduce<std::uint32_t>(maps, shape, mask, 0x10000u, Affine16{}));
  }
  // Wide rows of an exact operator over 1-byte items (16384 groups of 16 columns): HigherDimKernel takes each column
  // whole, in one unit of 200 rows.
  const std::vector<std::int64_t> wide = {200, 1 << 18};
  const auto bytes = fold_test::random_values<std::int8_t>(static_cast<std::size_t>(product(wide)), 95,
                                                           fold_test::Values::full_range);
  CHECK(device_reduce<std::int32_t>(bytes, wide, {0}, std::size_t{1} << 18, fold::Sum{}, 0) ==
        host_reduce<std::int32_t>(bytes, wide, 1u, 0, [](std::int32_t a, std::int8_t b) { return a + b; }));
}

TEST_CASE("Non-commutative operators see each output's items in row-major order", "[device][axes][order]")
{
  const fold_test::Mat2 init{1, 2, 3, 5};
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>> cases = {
      {{3, 50, 4, 70}, {1, 3}}, {{2000, 40}, {0}}, {{6, 700, 3}, {0, 1}}, {{5, 3, 2000}, {0, 2}}, {{40000}, {0}}};
  for (const auto& [shape, axes] : cases)
  {
    const unsigned mask = axes_mask(axes);
    const auto values   = fold_test::random_matrices(product(shape), product(shape) + 1);
    const auto expected = host_reduce<fold_test::Mat2>(values, shape, mask, init, fold_test::MatMul{});
    const auto out = device_reduce<fold_test::Mat2>(values, shape, axes, expected.size(), fold_test::MatMul{}, init);
    INFO("shape of " << shape.size() << " dims, mask " << mask);
    CHECK(out == expected);
  }
}

namespace
{
//! `n` seeded random items of `T` in [-1, 1), with NaNs (about one in 2048, quiet and signalling, either sign) and
//! zeros of both signs (one in 64 each) among them, so that Min and Max meet their special cases in some outputs and
//! not in others.
template <typename T>
std::vector<T> extremum_values(std::size_t n, std::uint64_t seed)
{
  auto values = fold_test::random_values<T>(n, seed, fold_test::Values::full_range);
  fold_test::Random random{seed ^ 0x5eedu};
  const std::uint32_t nans[4] = {0x7fc00001u, 0xffc00000u, 0x7f800001u, 0xff812345u}; // float bits
  for (auto& v : values)
  {
    const auto pick = random.between(0, 4095);
    if (pick < 2)
    {
      float nan;
      std::memcpy(&nan, &nans[random.between(0, 3)], sizeof(nan));
      if constexpr (std::is_same_v<T, float>)
      {
        v = nan; // the payload and signalling bit kept
      }
      else
      {
        v = fold_test::from_double<T>(static_cast<double>(nan));
      }
    }
    else if (pick < 66)
    {
      v = fold_test::from_double<T>(pick < 34 ? 0.0 : -0.0);
    }
  }
  return values;
}

//! DeviceReduceAxes::Min or Max (`ForMax`) of `values` over `axes`.
template <bool ForMax, typename T>
std::vector<T> device_extremum(const std::vector<T>& values,
                               const std::vector<std::int64_t>& shape,
                               const std::vector<int>& axes,
                               std::size_t outputs)
{
  fold_test::DeviceBuffer<T> d_in(values);
  fold_test::DeviceBuffer<T> d_out(outputs);
  d_out.poison();
  const fold::Extents extents(shape.data(), static_cast<int>(shape.size()));
  const fold::Axes reduced(axes.data(), static_cast<int>(axes.size()));
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return ForMax ? fold::DeviceReduceAxes::Max(temp, bytes, d_in.get(), d_out.get(), extents, reduced)
                      : fold::DeviceReduceAxes::Min(temp, bytes, d_in.get(), d_out.get(), extents, reduced);
      });
  return d_out.to_host();
}

template <bool ForMax, typename T>
void check_extremum(const std::vector<std::int64_t>& shape, const std::vector<int>& axes, std::uint64_t seed)
{
  using OpT                = std::conditional_t<ForMax, fold::Max, fold::Min>;
  const auto values        = extremum_values<T>(static_cast<std::size_t>(product(shape)), seed);
  const unsigned mask      = axes_mask(axes);
  const T identity         = ForMax ? fold::detail::max_identity<T>() : fold::detail::min_identity<T>();
  const T init             = fold_test::from_double<T>(ForMax ? 0.5 : -0.5); // wins some outputs' comparisons
  const auto from_identity = host_reduce<T>(values, shape, mask, identity, OpT{});
  const auto from_init     = host_reduce<T>(values, shape, mask, init, OpT{});
  const auto named         = device_extremum<ForMax>(values, shape, axes, from_identity.size());
  const auto reduced       = device_reduce<T>(values, shape, axes, from_init.size(), OpT{}, init);
  int wrong                = 0;
  for (std::size_t i = 0; i < named.size(); ++i)
  {
    wrong += !fold_test::same_bits(named[i], from_identity[i]) || !fold_test::same_bits(reduced[i], from_init[i]);
  }
  CHECK(wrong == 0);
}
} // namespace

TEST_CASE("Min and Max over floating-point axes: the bits of fold's operators, NaNs and signed zeros among the items",
          "[device][axes][extremum]")
{
  // Min and Max (and Reduce with fold::Min or fold::Max and an init of the items' type) reduce order keys, as
  // DeviceReduce's do, and over 16-bit floats the columns of an outer axis two to a word (`PackedColumnExtremes`):
  // every plan's step. Outer axes read a column a thread in runs of rows ([3000, 4099]), rows
  // round-robin ([100003, 24]), several narrow rows to a vector ([4097, 2]) and wide rows in one unit ([8, 65536]);
  // the last axis is a segmented step ([1000, 333]); [37, 500, 65] over {0, 2} a segmented step and then a column
  // step over its keys; the middle axis of [7, 3001, 129]; an empty reduced axis gives the identity or init.
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>> cases = {{{3000, 4099}, {0}},
                                                                                     {{100003, 24}, {0}},
                                                                                     {{4097, 2}, {0}},
                                                                                     {{8, 65536}, {0}},
                                                                                     {{1000, 333}, {1}},
                                                                                     {{37, 500, 65}, {0, 2}},
                                                                                     {{7, 3001, 129}, {1}},
                                                                                     {{0, 5}, {0}}};
  std::uint64_t seed                                                              = 211;
  for (const auto& [shape, axes] : cases)
  {
    INFO("shape of " << shape.size() << " dims, " << shape[0] << " x " << shape[1] << ", axes from " << axes[0]);
    check_extremum<true, float>(shape, axes, ++seed);
    check_extremum<false, float>(shape, axes, ++seed);
    check_extremum<true, __half>(shape, axes, ++seed);
    check_extremum<false, __half>(shape, axes, ++seed);
    check_extremum<true, __nv_bfloat16>(shape, axes, ++seed);
  }
}

TEST_CASE("Outer axes of rows narrower than a vector: exact sums, and the same bits unaligned", "[device][axes]")
{
  // Rows of 2 to V / 2 columns are read several to a 16-byte vector, by the column trees (uint32, half and float
  // sums: slots of whole vectors) and by HigherDimKernel (int8 sums: vectors dealt round-robin): whole vectors where
  // the slot or unit starts aligned, item by item otherwise (odd row counts, a batch whose rows start off a vector,
  // an input one item off), the same items in the same order either way. Integer and small-integer half sums are
  // exact, so every output is checked; float sums of the same items aligned and one item off must have the same
  // bits. A non-commutative operator over the same rows keeps them in order (HigherDimKernel's runs of rows).
  const std::vector<std::pair<std::vector<std::int64_t>, int>> int_cases = {
      {{129, 2}, 0}, {{4096, 2}, 0}, {{100003, 2}, 0}, {{1 << 20, 2}, 0}, {{3, 1001, 2}, 1}, {{5, 4096, 2}, 1}};
  for (const auto& [shape, axis] : int_cases)
  {
    INFO("uint32 rows of 2, shape of " << shape.size() << " dims, " << shape[axis] << " reduced");
    const auto values = fold_test::random_values<std::uint32_t>(
        static_cast<std::size_t>(product(shape)), 81 + product(shape), fold_test::Values::full_range);
    const std::size_t outputs = static_cast<std::size_t>(product(shape) / shape[axis]);
    CHECK(device_reduce<std::uint32_t>(values, shape, {axis}, outputs, fold::Sum{}, 0u) ==
          host_reduce<std::uint32_t>(
              values, shape, 1u << axis, 0u, [](std::uint32_t a, std::uint32_t b) { return a + b; }));
  }
  for (const auto& [shape, axis] : int_cases)
  {
    INFO("affine maps (not commutative: runs of rows in order) in rows of 2, shape of " << shape.size() << " dims, "
                                                                                        << shape[axis] << " reduced");
    const auto values = fold_test::random_values<std::uint32_t>(
        static_cast<std::size_t>(product(shape)), 83 + product(shape), fold_test::Values::full_range);
    const std::size_t outputs = static_cast<std::size_t>(product(shape) / shape[axis]);
    CHECK(device_reduce<std::uint32_t>(values, shape, {axis}, outputs, Affine16{}, 0x10000u) ==
          host_reduce<std::uint32_t>(values, shape, 1u << axis, 0x10000u, Affine16{}));
  }
  for (std::int64_t cols : {2, 4, 8})
  {
    for (std::int64_t rows : {129, 4096, 100001, 1 << 18})
    {
      INFO(rows << " rows of " << cols << " int8, summed in int32");
      const std::vector<std::int64_t> shape = {rows, cols};
      const auto values                     = fold_test::random_values<std::int8_t>(
          static_cast<std::size_t>(cols * rows), 91 + rows, fold_test::Values::full_range);
      CHECK(device_reduce<std::int32_t>(values, shape, {0}, static_cast<std::size_t>(cols), fold::Sum{}, 0) ==
            host_reduce<std::int32_t>(values, shape, 1u, 0, [](std::int32_t a, std::int8_t b) { return a + b; }));
    }
  }
  for (std::int64_t cols : {2, 4})
  {
    for (std::int64_t rows : {511, 512})
    {
      INFO(rows << " rows of " << cols << " half (integers 1..4, exact)");
      const std::vector<std::int64_t> shape = {rows, cols};
      const auto values =
          fold_test::random_values<__half>(static_cast<std::size_t>(cols * rows), 97 + rows, fold_test::Values::small);
      const auto out = device_reduce<__half>(values, shape, {0}, static_cast<std::size_t>(cols), fold::Sum{}, 0.0f);
      const auto expected =
          host_reduce<double>(values, shape, 1u, 0.0, [](double a, __half b) { return a + fold_test::to_double(b); });
      for (std::size_t c = 0; c < out.size(); ++c)
      {
        CHECK(fold_test::to_double(out[c]) == expected[c]);
      }
    }
  }
  {
    constexpr std::int64_t rows = 1 << 20;
    const auto values =
        fold_test::random_values<float>(static_cast<std::size_t>(2 * rows), 101, fold_test::Values::full_range);
    fold_test::DeviceBuffer<float> d_in(values.size() + 1), d_out(2), d_off(2);
    const fold::Extents extents({rows, 2});
    const int axes[1] = {0};
    auto sum          = [&](const float* in, float* out)
    {
      fold_test::two_call([&](void* temp, std::size_t& bytes)
                          { return fold::DeviceReduceAxes::Sum(temp, bytes, in, out, extents, fold::Axes(axes, 1)); });
    };
    CUDA_REQUIRE(cudaMemcpy(d_in.get(), values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
    d_out.poison();
    sum(d_in.get(), d_out.get());
    CUDA_REQUIRE(cudaMemcpy(d_in.get() + 1, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
    d_off.poison();
    sum(d_in.get() + 1, d_off.get());
    const auto aligned = d_out.to_host(), unaligned = d_off.to_host();
    for (int c = 0; c < 2; ++c)
    {
      CHECK(fold_test::same_bits(aligned[c], unaligned[c]));
    }
  }
}

TEST_CASE("Half columns over an outer axis: aligned rows of vectors, rows item by item, an input one item off",
          "[device][axes]")
{
  // ColumnTreeKernel's AlignedRows instantiation (eight or more items a vector) reads every row as 16-byte vectors,
  // with no item-by-item path; rows of 60 columns, or an input one item off, take the kernel that checks. Sums of
  // small integers are exact in float, so every output is checked.
  std::uint64_t seed = 700;
  for (std::int64_t cols : {64, 60})
  {
    for (std::int64_t rows : {512, 5000})
    {
      for (int offset : {0, 1})
      {
        INFO(rows << " rows of " << cols << " half, the input " << offset << " items off");
        const std::vector<std::int64_t> shape = {rows, cols};
        const auto values =
            fold_test::random_values<__half>(static_cast<std::size_t>(rows * cols), ++seed, fold_test::Values::small);
        fold_test::DeviceBuffer<__half> d_in(values.size() + 1);
        fold_test::DeviceBuffer<float> d_out(static_cast<std::size_t>(cols));
        CUDA_REQUIRE(
            cudaMemcpy(d_in.get() + offset, values.data(), values.size() * sizeof(__half), cudaMemcpyHostToDevice));
        d_out.poison();
        const fold::Extents extents(shape.data(), 2);
        const int axes[1] = {0};
        fold_test::two_call(
            [&](void* temp, std::size_t& bytes) {
              return fold::DeviceReduceAxes::Sum(
                  temp, bytes, d_in.get() + offset, d_out.get(), extents, fold::Axes(axes, 1));
            });
        const auto out = d_out.to_host();
        const auto expected =
            host_reduce<double>(values, shape, 1u, 0.0, [](double x, __half y) { return x + fold_test::to_double(y); });
        std::int64_t wrong = 0;
        for (std::size_t c = 0; c < out.size(); ++c)
        {
          wrong += static_cast<double>(out[c]) == expected[c] ? 0 : 1;
        }
        CHECK(wrong == 0);
      }
    }
  }
}

namespace
{
//! The sums over axis `axis` of `values` shaped `shape`, as floats, from an input `offset` items off.
template <typename T>
std::vector<float> sums_from(const std::vector<T>& values, std::vector<std::int64_t> shape, int axis, int offset)
{
  fold_test::DeviceBuffer<T> d_in(values.size() + 1);
  CUDA_REQUIRE(cudaMemcpy(d_in.get() + offset, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
  fold_test::DeviceBuffer<float> d_out(
      static_cast<std::size_t>(product(shape) / shape[static_cast<std::size_t>(axis)]));
  d_out.poison();
  const fold::Extents extents(shape.data(), static_cast<int>(shape.size()));
  const int axes[1] = {axis};
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes) {
        return fold::DeviceReduceAxes::Sum(temp, bytes, d_in.get() + offset, d_out.get(), extents, fold::Axes(axes, 1));
      });
  return d_out.to_host();
}

//! Every output of `shape` over `axis` from aligned rows (where those of 2-byte items are staged: `StagedRows`) against
//! the same items one item off (the kernel that checks, a thread its own rows), and a few columns of the first and the
//! last batch entry against the column alone.
template <typename T>
void check_columns(const std::vector<std::int64_t>& shape, int axis, std::uint64_t seed)
{
  const auto values =
      fold_test::random_values<T>(static_cast<std::size_t>(product(shape)), seed, fold_test::Values::full_range);
  const auto aligned = sums_from(values, shape, axis, 0);
  const auto checked = sums_from(values, shape, axis, 1);
  REQUIRE(aligned.size() == checked.size());
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < aligned.size(); ++i)
  {
    differ += fold_test::same_bits(aligned[i], checked[i]) ? 0 : 1;
  }
  CHECK(differ == 0);
  // Columns alone: outputs of the first and the last batch entry (shape [rows, cols] or [batch, rows, cols] over the
  // rows).
  const std::int64_t rows = shape[static_cast<std::size_t>(axis)], cols = shape.back();
  const std::int64_t batch = product(shape) / (rows * cols);
  for (std::int64_t b : {std::int64_t{0}, batch - 1})
  {
    for (std::int64_t c : {std::int64_t{0}, cols / 2, cols - 1})
    {
      INFO("batch entry " << b << ", column " << c);
      std::vector<T> column(static_cast<std::size_t>(rows));
      for (std::int64_t r = 0; r < rows; ++r)
      {
        column[static_cast<std::size_t>(r)] = values[static_cast<std::size_t>((b * rows + r) * cols + c)];
      }
      CHECK(fold_test::same_bits(aligned[static_cast<std::size_t>(b * cols + c)], sums_from(column, {rows}, 0, 0)[0]));
    }
  }
}
} // namespace

TEST_CASE("Outer axes of rows of one or two vectors: rows staged by warps, the bits of the kernel that checks",
          "[device][axes]")
{
  // Where a launch of the column tree has 256 blocks or more with whole vectors, and a row of 2-byte items is one or
  // two of them and aligned, each warp loads its leaves' slots whole and hands each thread its rows through shared
  // memory (`StagedRows`). The bits must be those of the kernel that reads each thread's rows itself (the input one
  // item off) and of each column alone, with inexact float sums (half and bfloat16): one and two threads a row, slots
  // past the last whole batch of them and rows past the last whole slot, leaves of block and of warp segments, the
  // middle axis of [batch, rows, cols] (5-80 MB each). Float rows of two vectors, which are not staged, the same way.
  std::uint64_t seed = 960;
  check_columns<__half>({128, 20001, 16}, 1, ++seed);
  check_columns<__half>({300, 5003, 8}, 1, ++seed);
  check_columns<__half>({300, 1201, 8}, 1, ++seed);
  check_columns<__nv_bfloat16>({128, 20001, 16}, 1, ++seed);
  check_columns<__nv_bfloat16>({300, 5003, 8}, 1, ++seed);
  check_columns<float>({256, 20001, 8}, 1, ++seed);
}

TEST_CASE("Outer axes whose trees go on past a block: the last block of a column tile finishes them",
          "[device][axes][tail]")
{
  // A column of a large segment's length has units, each of more leaves than a block holds (leaf groups over several
  // blocks). Where a launch has few blocks, its blocks write their partials and count themselves in per column tile;
  // the last of a unit's groups combines them, and the last of the units folds theirs (`ColumnTail`), along the trees
  // the two trailing launches took. Every output must have the bits of the input one item off and the columns those
  // of the column alone: over a batch (vectors, and rows of three columns), and half rows of three and of sixteen
  // columns; and, keeping a trailing launch, groups only (narrow columns; a partial last column tile of vectors, and
  // 32 groups over tiles of 32 columns, `max_tail_passes`) and units only (packed rows of two columns).
  std::uint64_t seed = 990;
  check_columns<float>({3, 300001, 6}, 1, ++seed);
  check_columns<float>({4, 300001, 3}, 1, ++seed);
  check_columns<__half>({1048583, 3}, 0, ++seed);
  check_columns<__half>({600001, 16}, 0, ++seed);
  check_columns<float>({5000, 13}, 0, ++seed);
  check_columns<float>({2, 70001, 1031}, 1, ++seed);
  check_columns<float>({70001, 33}, 0, ++seed);
  check_columns<float>({2000003, 2}, 0, ++seed);
}

TEST_CASE("Outer axes with a tail: captured into a graph, and back to back on one storage", "[device][axes][tail]")
{
  // Off a graph the main launch's block 0 clears the counting words under a call id of its own and the blocks wait
  // for that id before they count themselves in; a graph's replays carry the same arguments, so there a kernel of its
  // own clears them first. Both on storage that starts poisoned: every replay, and four calls of two shapes back to
  // back on one stream with no wait between them, must give the bits of a plain call.
  const std::vector<std::int64_t> first = {3, 300001, 6}, second = {2, 300001, 8};
  const auto a =
      fold_test::random_values<float>(static_cast<std::size_t>(product(first)), 1001, fold_test::Values::full_range);
  const auto b =
      fold_test::random_values<float>(static_cast<std::size_t>(product(second)), 1002, fold_test::Values::full_range);
  const auto expect_a = sums_from(a, first, 1, 0);
  const auto expect_b = sums_from(b, second, 1, 0);
  fold_test::DeviceBuffer<float> d_a(a), d_b(b), out_a(expect_a.size()), out_b(expect_b.size());
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto call_a = [&](void* temp, std::size_t& bytes) {
    return fold::DeviceReduceAxes::Sum(temp, bytes, d_a.get(), out_a.get(), {3, 300001, 6}, {1}, stream);
  };
  auto call_b = [&](void* temp, std::size_t& bytes) {
    return fold::DeviceReduceAxes::Sum(temp, bytes, d_b.get(), out_b.get(), {2, 300001, 8}, {1}, stream);
  };
  std::size_t bytes_a = 0, bytes_b = 0;
  CUDA_REQUIRE(call_a(nullptr, bytes_a));
  CUDA_REQUIRE(call_b(nullptr, bytes_b));
  std::size_t bytes = bytes_a > bytes_b ? bytes_a : bytes_b;
  fold_test::DeviceBuffer<unsigned char> d_temp(bytes);
  auto same = [](const std::vector<float>& out, const std::vector<float>& expected)
  {
    std::int64_t differ = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
    {
      differ += fold_test::same_bits(out[i], expected[i]) ? 0 : 1;
    }
    return differ;
  };

  d_temp.poison();
  cudaGraph_t graph = nullptr;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const cudaError_t status = call_a(d_temp.get(), bytes);
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  CUDA_REQUIRE(status);
  const auto types = fold_test::graph_node_types(graph);
  CHECK(types.size() == 2); // the clearing kernel and the main launch
  CHECK(std::count(types.begin(), types.end(), cudaGraphNodeTypeKernel) == 2);
  cudaGraphExec_t exec = nullptr;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay)
  {
    INFO("replay " << replay);
    out_a.poison();
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    CHECK(same(out_a.to_host(), expect_a) == 0);
  }
  CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  CUDA_REQUIRE(cudaGraphDestroy(graph));

  d_temp.poison();
  out_a.poison();
  out_b.poison();
  for (int k = 0; k < 2; ++k)
  {
    CUDA_REQUIRE(call_a(d_temp.get(), bytes));
    CUDA_REQUIRE(call_b(d_temp.get(), bytes));
  }
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CHECK(same(out_a.to_host(), expect_a) == 0);
  CHECK(same(out_b.to_host(), expect_b) == 0);
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEST_CASE("Float sums over axes: within the bound, the same bits every run", "[device][axes][float]")
{
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>> cases = {{{1 << 10, 1 << 12}, {0}},
                                                                                     {{1 << 10, 1 << 12}, {1}},
                                                                                     {{1 << 18, 16}, {0}},
                                                                                     {{16, 1 << 18}, {1}},
                                                                                     {{8, 14, 14, 64}, {0, 1, 2}}};
  for (const auto& [shape, axes] : cases)
  {
    const unsigned mask = axes_mask(axes);
    const auto values   = fold_test::random_values<float>(product(shape), 3, fold_test::Values::full_range);
    const auto expected = host_reduce<double>(values, shape, mask, 0.0, [](double a, float b) { return a + b; });
    const auto absolute =
        host_reduce<double>(values, shape, mask, 0.0, [](double a, float b) { return a + std::fabs(b); });
    const auto out       = device_reduce<float>(values, shape, axes, expected.size(), fold::Sum{}, 0.0f);
    const auto again     = device_reduce<float>(values, shape, axes, expected.size(), fold::Sum{}, 0.0f);
    const double reduced = static_cast<double>(product(shape)) / expected.size();
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
      INFO("output " << i << " of " << expected.size() << ", mask " << mask);
      const double bound = (reduced / 32 + 2 * std::log2(reduced + 2) + 64) * 0x1.0p-24 * absolute[i];
      CHECK(std::fabs(out[i] - expected[i]) <= bound);
      CHECK(fold_test::same_bits(out[i], again[i]));
    }
  }
}

// A column takes the tree the segmented reduction gives a row of the same length (segment_column_rule and
// AgentReduceColumnTree, ColumnTreeKernel), so the three layouts agree bit for bit. Before ColumnTreeKernel
// the outer and middle axes failed this case (25 checks on an H200, all with K >= 7 kept columns and R >= 33).
TEST_CASE("Batch invariance: an output's bits do not depend on the kept extents", "[device][axes][float]")
{
  // Issue 19, goal 3: the bits of an output depend only on its own items and the reduced extents. The same R
  // items summed alone ([R] over axis 0), as row p of [K, R] over axis 1 (the innermost axis), as column p of
  // [R, K] over axis 0 (an outer axis) and as (1, :, p) of [3, R, K] over axis 1 (the middle one), for K from 1 to
  // 50000 kept rows or columns: every result must have the bits of the one alone. With K = 1 the three shapes are
  // [R] once their extents of 1 are dropped, so the row, the column and the middle-axis reductions of the same
  // items must agree with each other as well. R = 300 (a warp segment) also with 270000 kept, past the 262144 float
  // columns from which each thread of an outer-axis reduction takes a whole column group (`whole_slot_columns`).
  constexpr std::int64_t max_items = std::int64_t{1} << 24;
  auto sum_all = [](const std::vector<float>& values, const std::vector<std::int64_t>& shape, int axis)
  {
    std::size_t outputs = 1;
    for (std::size_t d = 0; d < shape.size(); ++d)
    {
      outputs *= static_cast<int>(d) == axis ? 1 : static_cast<std::size_t>(shape[d]);
    }
    fold_test::DeviceBuffer<float> d_in(values), d_out(outputs);
    d_out.poison();
    const fold::Extents extents(shape.data(), static_cast<int>(shape.size()));
    const int axes[1] = {axis};
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        { return fold::DeviceReduceAxes::Sum(temp, bytes, d_in.get(), d_out.get(), extents, fold::Axes(axes, 1)); });
    return d_out.to_host();
  };
  auto sum_over = [&](const std::vector<float>& values, const std::vector<std::int64_t>& shape, int axis, std::size_t p)
  { return sum_all(values, shape, axis).at(p); };
  std::uint64_t seed = 500;
  for (std::int64_t rows : {3, 33, 100, 300, 1000, 5000, 70000})
  {
    const auto target =
        fold_test::random_values<float>(static_cast<std::size_t>(rows), ++seed, fold_test::Values::full_range);
    const float alone = sum_over(target, {rows}, 0, 0);
    std::vector<std::int64_t> kept;
    for (std::int64_t k : {1, 7, 1000, 50000})
    {
      if (k * rows <= max_items)
      {
        kept.push_back(k);
      }
    }
    if (kept.back() < 50000)
    {
      kept.push_back(max_items / rows); // as many as fit
    }
    if (rows == 300)
    {
      kept.push_back(270000);
    }
    for (std::int64_t k : kept)
    {
      const auto p = static_cast<std::size_t>(k / 2);
      INFO(rows << " reduced items, " << k << " kept, output " << p);
      auto values =
          fold_test::random_values<float>(static_cast<std::size_t>(k * rows), ++seed, fold_test::Values::full_range);
      std::copy(target.begin(), target.end(), values.begin() + static_cast<std::ptrdiff_t>(p * rows));
      const float row = sum_over(values, {k, rows}, 1, p);
      CHECK(fold_test::same_bits(row, alone));
      values =
          fold_test::random_values<float>(static_cast<std::size_t>(rows * k), ++seed, fold_test::Values::full_range);
      for (std::int64_t r = 0; r < rows; ++r)
      {
        values[static_cast<std::size_t>(r * k) + p] = target[static_cast<std::size_t>(r)];
      }
      const float column = sum_over(values, {rows, k}, 0, p);
      CHECK(fold_test::same_bits(column, alone));
      if (3 * k * rows <= max_items)
      {
        values = fold_test::random_values<float>(
            static_cast<std::size_t>(3 * rows * k), ++seed, fold_test::Values::full_range);
        for (std::int64_t r = 0; r < rows; ++r)
        {
          values[static_cast<std::size_t>((rows + r) * k) + p] = target[static_cast<std::size_t>(r)];
        }
        const float middle = sum_over(values, {3, rows, k}, 1, static_cast<std::size_t>(k) + p);
        CHECK(fold_test::same_bits(middle, alone));
      }
    }
  }
  // Every column of [300, K] over axis 0 against the same items as rows of [K, 300] over axis 1, K odd (whole
  // column groups a thread, the last one short, the rows read item by item).
  const std::int64_t rows = 300, k = 265001;
  const auto columns =
      fold_test::random_values<float>(static_cast<std::size_t>(rows * k), ++seed, fold_test::Values::full_range);
  std::vector<float> transposed(columns.size());
  for (std::int64_t r = 0; r < rows; ++r)
  {
    for (std::int64_t c = 0; c < k; ++c)
    {
      transposed[static_cast<std::size_t>(c * rows + r)] = columns[static_cast<std::size_t>(r * k + c)];
    }
  }
  const auto by_column = sum_all(columns, {rows, k}, 0);
  const auto by_row    = sum_all(transposed, {k, rows}, 1);
  std::int64_t differ  = 0;
  for (std::size_t c = 0; c < by_row.size(); ++c)
  {
    differ += fold_test::same_bits(by_column[c], by_row[c]) ? 0 : 1;
  }
  CHECK(differ == 0);
}

TEST_CASE("Axis reductions: empty axes and bad arguments", "[device][axes][errors]")
{
  fold_test::DeviceBuffer<float> d_in(64), d_out(64);
  SECTION("an empty reduced axis gives init everywhere")
  {
    d_out.poison();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes) {
          return fold::DeviceReduceAxes::Reduce(
              temp, bytes, d_in.get(), d_out.get(), {5, 0, 3}, {1}, fold::Sum{}, 2.5f);
        });
    const auto out = d_out.to_host();
    for (int i = 0; i < 15; ++i)
    {
      CHECK(out[i] == 2.5f);
    }
  }
  SECTION("an empty kept axis writes nothing")
  {
    d_out.poison();
    const auto before = d_out.to_host();
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes) {
          return fold::DeviceReduceAxes::Sum(temp, bytes, d_in.get(), d_out.get(), {0, 8}, {1});
        });
    const auto after = d_out.to_host();
    CHECK(std::memcmp(before.data(), after.data(), 64 * sizeof(float)) == 0);
  }
  SECTION("bad shapes and axes are refused before anything runs")
  {
    std::size_t bytes          = 0;
    const std::int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2};
    CHECK(fold::DeviceReduceAxes::Sum(nullptr, bytes, d_in.get(), d_out.get(), fold::Extents(nine, 9), {0}) ==
          cudaErrorInvalidValue);
    CHECK(fold::DeviceReduceAxes::Sum(nullptr, bytes, d_in.get(), d_out.get(), {4, -1}, {0}) == cudaErrorInvalidValue);
    CHECK(fold::DeviceReduceAxes::Sum(nullptr, bytes, d_in.get(), d_out.get(), {4, 4}, {1, 1}) ==
          cudaErrorInvalidValue);
    CHECK(fold::DeviceReduceAxes::Sum(nullptr, bytes, d_in.get(), d_out.get(), {4, 4}, {2}) == cudaErrorInvalidValue);
    CHECK(fold::DeviceReduceAxes::Sum(nullptr, bytes, d_in.get(), d_out.get(), {4, 4}, {-1}) == cudaErrorInvalidValue);
    CUDA_REQUIRE(fold::DeviceReduceAxes::Sum(nullptr, bytes, d_in.get(), d_out.get(), {8, 8}, {0}));
    fold_test::DeviceBuffer<unsigned char> temp(bytes);
    d_out.poison();
    const auto before = d_out.to_host();
    float* null       = nullptr;
    CHECK(fold::DeviceReduceAxes::Sum(temp.get(), bytes, null, d_out.get(), {8, 8}, {0}) == cudaErrorInvalidValue);
    CHECK(fold::DeviceReduceAxes::Sum(temp.get(), bytes, d_in.get(), null, {8, 8}, {0}) == cudaErrorInvalidValue);
    std::size_t short_bytes = bytes - 1;
    CHECK(fold::DeviceReduceAxes::Sum(temp.get(), short_bytes, d_in.get(), d_out.get(), {8, 8}, {0}) ==
          cudaErrorInvalidValue);
    // Max writes through its order-key adapter, which must report a null output as null.
    std::size_t max_bytes = 0;
    CUDA_REQUIRE(fold::DeviceReduceAxes::Max(nullptr, max_bytes, d_in.get(), d_out.get(), {8, 8}, {0}));
    fold_test::DeviceBuffer<unsigned char> max_temp(max_bytes);
    CHECK(fold::DeviceReduceAxes::Max(max_temp.get(), max_bytes, null, d_out.get(), {8, 8}, {0}) ==
          cudaErrorInvalidValue);
    CHECK(fold::DeviceReduceAxes::Max(max_temp.get(), max_bytes, d_in.get(), null, {8, 8}, {0}) ==
          cudaErrorInvalidValue);
    CHECK(fold::DeviceReduceAxes::Max(nullptr, max_bytes, d_in.get(), d_out.get(), {4, 4}, {2}) ==
          cudaErrorInvalidValue);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto after = d_out.to_host();
    CHECK(std::memcmp(before.data(), after.data(), 64 * sizeof(float)) == 0);
  }
}
