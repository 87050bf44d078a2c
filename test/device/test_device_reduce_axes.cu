// SPDX-License-Identifier: Apache-2.0
// DeviceReduceAxes: random shapes of rank 1..6 over random axis sets (every merge pattern, one to four steps),
// long columns cut into units, non-commutative operators in row-major order, float sums within their bound and
// bitwise the same on every run, empty axes, and the argument checks; against a host reference.
#include <fold/device/device_reduce_axes.cuh>

#include "device_test_util.cuh"
#include "ops_util.cuh"
#include "test_util.cuh"

#include <cstdint>
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

TEST_CASE("Long columns are cut into units, in one or several steps", "[device][axes]")
{
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>> cases = {
      {{20000, 3}, {0}},         // a few units of many rows
      {{5000, 300}, {0}},        // 128-row units, then a second step
      {{300000, 2}, {0}},        // three steps
      {{4, 3000, 70}, {1}},      // batched
      {{3, 4000, 5, 9}, {1, 3}}, // the last dimension, then a batched higher one
      {{2, 1500, 3, 200, 4}, {0, 1, 3}},
      {{70000}, {0}}, // everything: one segment
      {{7, 9}, {}},   // nothing reduced
  };
  for (const auto& [shape, axes] : cases)
  {
    unsigned mask = 0;
    for (int a : axes)
    {
      mask |= 1u << a;
    }
    const auto values =
        fold_test::random_values<std::int32_t>(product(shape), product(shape), fold_test::Values::full_range);
    const auto expected = host_reduce<std::int32_t>(values, shape, mask, -3, WrapSum{});
    const auto out      = device_reduce<std::int32_t>(values, shape, axes, expected.size(), fold::Sum{}, -3);
    INFO("shape of " << shape.size() << " dims, " << product(shape) << " items, mask " << mask);
    CHECK(out == expected);
  }
}

TEST_CASE("Non-commutative operators see each output's items in row-major order", "[device][axes][order]")
{
  const fold_test::Mat2 init{1, 2, 3, 5};
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>> cases = {
      {{3, 50, 4, 70}, {1, 3}}, {{2000, 40}, {0}}, {{6, 700, 3}, {0, 1}}, {{5, 3, 2000}, {0, 2}}, {{40000}, {0}}};
  for (const auto& [shape, axes] : cases)
  {
    unsigned mask = 0;
    for (int a : axes)
    {
      mask |= 1u << a;
    }
    const auto values   = fold_test::random_matrices(product(shape), product(shape) + 1);
    const auto expected = host_reduce<fold_test::Mat2>(values, shape, mask, init, fold_test::MatMul{});
    const auto out = device_reduce<fold_test::Mat2>(values, shape, axes, expected.size(), fold_test::MatMul{}, init);
    INFO("shape of " << shape.size() << " dims, mask " << mask);
    CHECK(out == expected);
  }
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
    unsigned mask = 0;
    for (int a : axes)
    {
      mask |= 1u << a;
    }
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
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto after = d_out.to_host();
    CHECK(std::memcmp(before.data(), after.data(), 64 * sizeof(float)) == 0);
  }
}
