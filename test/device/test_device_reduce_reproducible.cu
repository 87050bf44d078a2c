// SPDX-License-Identifier: Apache-2.0
// Reproducibility of inexact reductions (floating-point sums): the same values give the same bits at every grid
// size and on every path, whatever the input's alignment, the temporary storage's address and the stream; with
// fold::gpu_to_gpu also under every policy of the chain (run here on one GPU) and under a tuning whose tile
// differs. And the wider accumulators: 16-bit floats sum in float, 8-bit integers in int.
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace
{
using fold::detail::ReducePath;

template <typename T>
using accum_t = fold::detail::sum_init_t<T>;

//! fold's Sum of `[d_in, d_in + n)` under `TuningT`, through the same entry as the facade.
template <typename TuningT, typename T>
accum_t<T> sum_under(const T* d_in, std::size_t n, void* temp = nullptr, cudaStream_t stream = 0)
{
  using AccumT = accum_t<T>;
  fold_test::DeviceBuffer<AccumT> d_out(1);
  d_out.poison();
  auto call = [&](void* storage, std::size_t& bytes)
  {
    return fold::detail::reduce<AccumT, TuningT>(storage,
                                                 bytes,
                                                 d_in,
                                                 d_out.get(),
                                                 n,
                                                 fold::Sum{},
                                                 fold::detail::InitialValue<AccumT>{AccumT{}},
                                                 fold::detail::CastTo<AccumT>{},
                                                 stream);
  };
  if (temp == nullptr)
  {
    fold_test::two_call(call, stream);
  }
  else
  {
    std::size_t bytes = 0;
    CUDA_REQUIRE(call(nullptr, bytes));
    CUDA_REQUIRE(call(temp, bytes));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
  }
  return d_out.front();
}

template <typename T>
accum_t<T> sum_forced(const T* d_in, std::size_t n, ReducePath path, int max_grid, int waves = 0)
{
  fold_test::ForceDispatch force(path, max_grid, waves);
  return sum_under<fold_test::Forced<>>(d_in, n);
}

//! A tuning that pins the policy of one architecture of the chain, whatever the device.
template <int Arch, typename BaseT = fold::DefaultTuning>
struct AtArch
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int) { return BaseT::policy(Arch); }
};

//! A tuning whose tile differs from every entry of the chain.
struct OddTile
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int)
  {
    return {128, 12, 12, 8, fold::BlockReduceAlgorithm::raking, 4, 2, 64, 1, 1000};
  }
};

//! Sizes: around one tile, single-pass and two-pass grids, and more than max_units tiles (units of 2 tiles).
template <typename T>
std::vector<std::size_t> reproducible_sizes()
{
  const std::size_t tile = fold_test::tile_items<fold::Sum, T, accum_t<T>>();
  const std::size_t many =
      2 * tile *
      fold::detail::max_units_of<fold::Sum, accum_t<T>>(fold::select_reduce_policy(fold_test::current_ptx_version()));
  return {tile + 1, 77 * tile + 5, 1'234'567, many + 1001};
}

using ReproducibleTypes = std::tuple<float, double, __half>;
} // namespace

TEMPLATE_LIST_TEST_CASE("Float sums are bitwise identical at every grid size, wave count and path",
                        "[device][reproducible]",
                        ReproducibleTypes)
{
  using T = TestType;
  for (std::size_t n : reproducible_sizes<T>())
  {
    const auto values = fold_test::random_values<T>(n, n + 3, fold_test::Values::full_range);
    fold_test::DeviceBuffer<T> d_in(values);
    const accum_t<T> reference = sum_forced(d_in.get(), n, ReducePath::automatic, 0);
    for (ReducePath path : {ReducePath::single_pass, ReducePath::two_pass})
    {
      for (int max_grid : {1, 2, 5, 64, 131, 1000, 5000})
      {
        INFO("n " << n << ", path " << static_cast<int>(path) << ", max grid " << max_grid);
        CHECK(fold_test::same_bits(sum_forced(d_in.get(), n, path, max_grid), reference));
      }
    }
    for (int waves : {1, 2, 3, 8})
    {
      INFO("n " << n << ", waves " << waves);
      CHECK(fold_test::same_bits(sum_forced(d_in.get(), n, ReducePath::automatic, 0, waves), reference));
    }
  }
}

TEMPLATE_TEST_CASE("A float sum's units fit two tiles of its partials (16384 for float, 4096 for double), or are of "
                   "16 tiles, up to the policy's 16384",
                   "[device][reproducible]",
                   float,
                   double)
{
  // The temporary storage holds a ticket, then one partial per unit; the size query reads no input.
  using T                 = TestType;
  const auto policy       = fold::select_reduce_policy(fold_test::current_ptx_version());
  const std::size_t units = static_cast<std::size_t>(fold::detail::max_units_of<fold::Sum, T>(policy));
  if (fold_test::current_ptx_version() == 900)
  {
    REQUIRE(units == (sizeof(T) == 8 ? 4096 : 16384));
  }
  const std::size_t tile = fold_test::tile_items<fold::Sum, T, accum_t<T>>();
  for (std::size_t n : {3 * tile, units * tile, 16 * units * tile + 1, std::size_t{1} << 33})
  {
    std::size_t bytes = 0;
    CUDA_REQUIRE(fold::DeviceReduce::Sum(
        nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), static_cast<std::int64_t>(n)));
    const std::size_t tiles = (n + tile - 1) / tile;
    // Beyond 16 tiles a unit within the cap, units of 16 tiles, the last one partly.
    const std::size_t expected =
        std::min({tiles, std::max(units, (tiles + 15) / 16), static_cast<std::size_t>(policy.max_units)});
    INFO("n " << n);
    if (fold_test::current_ptx_version() == 900 && n == std::size_t{1} << 33)
    {
      CHECK(expected == 16384);
    }
    CHECK(bytes >= expected * sizeof(T));
    CHECK(bytes < expected * sizeof(T) + 64); // the ticket and the alignment: 47 bytes
  }
}

TEMPLATE_LIST_TEST_CASE("Float sums are bitwise identical whatever the input's alignment",
                        "[device][reproducible]",
                        ReproducibleTypes)
{
  // The same values at every offset from a 16-byte boundary: vector loads at offset 0, single loads otherwise.
  using T                     = TestType;
  constexpr std::size_t slots = 16 / sizeof(T);
  const std::size_t tile      = fold_test::tile_items<fold::Sum, T, accum_t<T>>();
  for (std::size_t n : {std::size_t{37}, tile - 3, tile + 1, 77 * tile + 5, std::size_t{1'234'567}})
  {
    const auto values = fold_test::random_values<T>(n, n + 9, fold_test::Values::full_range);
    fold_test::DeviceBuffer<T> d_buffer(n + slots);
    accum_t<T> at_zero{};
    for (std::size_t offset = 0; offset < slots; ++offset)
    {
      CUDA_REQUIRE(cudaMemcpy(d_buffer.get() + offset, values.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      const accum_t<T> result = sum_forced(d_buffer.get() + offset, n, ReducePath::automatic, 0);
      if (offset == 0)
      {
        at_zero = result;
      }
      INFO("n " << n << ", offset " << offset);
      CHECK(fold_test::same_bits(result, at_zero));
    }
  }
}

TEST_CASE("Float sums are bitwise identical whatever the temporary storage's address and the stream",
          "[device][reproducible]")
{
  const std::size_t n = 3'000'001;
  const auto values   = fold_test::random_values<float>(n, 4, fold_test::Values::full_range);
  fold_test::DeviceBuffer<float> d_in(values);
  const float reference = sum_under<fold::DefaultTuning>(d_in.get(), n);

  std::size_t bytes = 0;
  CUDA_REQUIRE(fold::DeviceReduce::Sum(nullptr, bytes, d_in.get(), static_cast<float*>(nullptr), n));
  fold_test::DeviceBuffer<unsigned char> d_temp(bytes + 64);
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (std::size_t shift : {0, 1, 7, 16, 33})
  {
    d_temp.poison();
    INFO("storage shifted by " << shift);
    CHECK(fold_test::same_bits(sum_under<fold::DefaultTuning>(d_in.get(), n, d_temp.get() + shift), reference));
    CHECK(fold_test::same_bits(sum_under<fold::DefaultTuning>(d_in.get(), n, d_temp.get() + shift, stream), reference));
  }
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEST_CASE("gpu_to_gpu: every policy of the chain, and a tuning with another tile, give the same bits",
          "[device][reproducible]")
{
  for (std::size_t n : reproducible_sizes<float>())
  {
    const auto values = fold_test::random_values<float>(n, n + 11, fold_test::Values::full_range);
    fold_test::DeviceBuffer<float> d_in(values);
    fold_test::DeviceBuffer<float> d_out(1);
    fold_test::two_call(
        [&](void* temp, std::size_t& bytes)
        { return fold::DeviceReduce::Sum(temp, bytes, d_in.get(), d_out.get(), n, 0, fold::gpu_to_gpu); });
    const float canonical = d_out.front();
    INFO("n " << n);
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<AtArch<600>>>(d_in.get(), n), canonical));
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<AtArch<700>>>(d_in.get(), n), canonical));
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<AtArch<800>>>(d_in.get(), n), canonical));
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<AtArch<900>>>(d_in.get(), n), canonical));
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<AtArch<1000>>>(d_in.get(), n), canonical));
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<OddTile>>(d_in.get(), n), canonical));
    // Under its own tile the odd tuning follows another tree: right, but not the same bits in general.
    const float odd      = sum_under<OddTile>(d_in.get(), n);
    const auto reference = fold_test::sum_reference(values);
    const double bound   = fold_test::sum_error_bound<float, float, float>(n, reference);
    INFO("canonical " << canonical << ", odd tile " << odd << ", reference " << reference.sum);
    CHECK(std::fabs(odd - reference.sum) <= bound);
    CHECK(std::fabs(canonical - reference.sum) <= bound);
  }
}

TEST_CASE("gpu_to_gpu: double and half sums under the chain's extremes", "[device][reproducible]")
{
  const std::size_t n = 5'000'003;
  {
    const auto values = fold_test::random_values<double>(n, 21, fold_test::Values::full_range);
    fold_test::DeviceBuffer<double> d_in(values);
    const double canonical = sum_under<fold::CanonicalTuning<>>(d_in.get(), n);
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<AtArch<600>>>(d_in.get(), n), canonical));
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<OddTile>>(d_in.get(), n), canonical));
  }
  {
    const auto values = fold_test::random_values<__half>(n, 22, fold_test::Values::full_range);
    fold_test::DeviceBuffer<__half> d_in(values);
    const float canonical = sum_under<fold::CanonicalTuning<>>(d_in.get(), n);
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<AtArch<600>>>(d_in.get(), n), canonical));
    CHECK(fold_test::same_bits(sum_under<fold::CanonicalTuning<OddTile>>(d_in.get(), n), canonical));
  }
}

namespace
{
//! Segmented float sums over segments of every length class, and axis sums over the rows and the columns, all
//! under the trailing `option`.
template <typename OptionT>
std::vector<float> segmented_and_axes(const fold_test::DeviceBuffer<float>& d_in,
                                      const std::vector<std::int64_t>& offsets,
                                      std::int64_t rows,
                                      std::int64_t cols,
                                      OptionT option)
{
  const auto segments = static_cast<std::int64_t>(offsets.size()) - 1;
  fold_test::DeviceBuffer<std::int64_t> d_offsets(offsets);
  fold_test::DeviceBuffer<float> d_out(segments + rows + cols);
  d_out.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return fold::DeviceSegmentedReduce::Sum(
            temp, bytes, d_in.get(), d_out.get(), segments, d_offsets.get(), d_offsets.get() + 1, 0, option);
      });
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes) {
        return fold::DeviceReduceAxes::Sum(
            temp, bytes, d_in.get(), d_out.get() + segments, {rows, cols}, {1}, 0, option);
      });
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return fold::DeviceReduceAxes::Sum(
            temp, bytes, d_in.get(), d_out.get() + segments + rows, {rows, cols}, {0}, 0, option);
      });
  return d_out.to_host();
}
} // namespace

TEST_CASE("gpu_to_gpu: segmented and axis sums give the same bits under every policy of the chain",
          "[device][reproducible][segmented]")
{
  // Lengths of every class: empty, lane groups, warps, blocks and segments split into units.
  std::vector<std::int64_t> offsets{0};
  for (std::int64_t length : {0, 1, 3, 17, 100, 129, 1000, 5000, 70'000, 1'000'003, 3'000'017, 2, 0, 513})
  {
    offsets.push_back(offsets.back() + length);
  }
  const std::int64_t n = offsets.back(), cols = 1000, rows = n / cols;
  const auto values = fold_test::random_values<float>(n, 31, fold_test::Values::full_range);
  fold_test::DeviceBuffer<float> d_in(values);
  const std::vector<float> canonical = segmented_and_axes(d_in, offsets, rows, cols, fold::gpu_to_gpu);
  const std::vector<float> at_600 =
      segmented_and_axes(d_in, offsets, rows, cols, fold::tuned<fold::CanonicalTuning<AtArch<600>>>);
  const std::vector<float> odd =
      segmented_and_axes(d_in, offsets, rows, cols, fold::tuned<fold::CanonicalTuning<OddTile>>);
  for (std::size_t i = 0; i < canonical.size(); ++i)
  {
    INFO("output " << i << " of " << offsets.size() - 1 << " segments, " << rows << " rows, " << cols << " columns");
    CHECK(fold_test::same_bits(canonical[i], at_600[i]));
    CHECK(fold_test::same_bits(canonical[i], odd[i]));
  }
}

namespace
{
//! `n` values uniform in [0, scale), as `T`.
template <typename T>
std::vector<T> uniform_values(std::size_t n, std::uint64_t seed, double scale)
{
  fold_test::Random random{seed};
  std::vector<T> values(n);
  for (auto& v : values)
  {
    v = fold_test::from_double<T>(scale * random.uniform());
  }
  return values;
}

template <typename OutT, typename InT>
double relative_sum_error(const std::vector<InT>& values)
{
  fold_test::DeviceBuffer<InT> d_in(values);
  fold_test::DeviceBuffer<OutT> d_out(1);
  d_out.poison();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceReduce::Sum(temp, bytes, d_in.get(), d_out.get(), values.size()); });
  const double reference = fold_test::sum_reference(values).sum;
  return std::fabs(fold_test::to_double(d_out.front()) - reference) / reference;
}
} // namespace

TEST_CASE("16-bit float sums accumulate in float: within 1e-3 of a double reference at 2^24 items",
          "[device][accumulators]")
{
  const std::size_t n = std::size_t{1} << 24;
  // Small values, so that the sum (about 16384) fits a __half output.
  const auto halves = uniform_values<__half>(n, 1, 1.0 / 512);
  CHECK(relative_sum_error<__half>(halves) < 1e-3);
  CHECK(relative_sum_error<float>(halves) < 1e-3);
  const auto bfloats = uniform_values<__nv_bfloat16>(n, 2, 1.0);
  CHECK(relative_sum_error<float>(bfloats) < 1e-3);
  // A bf16 output keeps 8 bits: the float sum rounded once, to within half its unit in the last place.
  CHECK(relative_sum_error<__nv_bfloat16>(bfloats) < 1e-3 + 0x1.0p-8);

  // cub sums __half in __half: far off by now (reported, not required).
  fold_test::DeviceBuffer<__half> d_in(halves);
  fold_test::DeviceBuffer<__half> d_out(1);
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return cub::DeviceReduce::Sum(temp, bytes, d_in.get(), d_out.get(), n); });
  const double reference = fold_test::sum_reference(halves).sum;
  WARN("cub's __half sum of 2^24 items: relative error "
       << std::fabs(fold_test::to_double(d_out.front()) - reference) / reference);
}

TEST_CASE("8- and 16-bit integer sums accumulate in int", "[device][accumulators]")
{
  const std::size_t n = (std::size_t{1} << 22) + 3;
  const auto bytes    = fold_test::random_values<std::int8_t>(n, 3, fold_test::Values::full_range);
  const auto shorts   = fold_test::random_values<std::int16_t>(n, 4, fold_test::Values::full_range);
  auto exact_sum      = [](const auto& values)
  {
    std::int64_t s = 0;
    for (auto v : values)
      s += v;
    return s;
  };
  fold_test::DeviceBuffer<std::int8_t> d_bytes(bytes);
  fold_test::DeviceBuffer<std::int16_t> d_shorts(shorts);
  fold_test::DeviceBuffer<std::int32_t> d_out(1);
  fold_test::two_call([&](void* temp, std::size_t& b)
                      { return fold::DeviceReduce::Sum(temp, b, d_bytes.get(), d_out.get(), n); });
  CHECK(d_out.front() == exact_sum(bytes));
  fold_test::two_call([&](void* temp, std::size_t& b)
                      { return fold::DeviceReduce::Sum(temp, b, d_shorts.get(), d_out.get(), n); });
  CHECK(d_out.front() == exact_sum(shorts));
}
