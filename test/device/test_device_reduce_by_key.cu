// SPDX-License-Identifier: Apache-2.0
// DeviceReduce::ReduceByKey against a host reference and cub::DeviceReduce::ReduceByKey: every mean run length
// from single items to one run, sizes on the tile edges; the same bits on every run and on other streams for
// floating-point sums; keys and values at any alignment; index order for a non-commutative operator; an equality
// operator; 64-bit counts past 2^31 items; empty input; bad arguments (nothing launched, nothing written); a CUDA
// graph replayed.
#include <fold/fold.cuh>

#include "test_util.cuh"

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace
{
using fold_test::DeviceBuffer;
using fold_test::Random;

//! The map x -> a * x + b mod 2^32; `Then` composes two in order (associative, not commutative).
struct Affine
{
  std::uint32_t a;
  std::uint32_t b;
  bool operator==(const Affine& o) const { return a == o.a && b == o.b; }
};
//! The same mod 2^64: a 16-byte accumulator, which the look-back passes in two parts (status, then data).
struct Affine64
{
  std::uint64_t a;
  std::uint64_t b;
  bool operator==(const Affine64& o) const { return a == o.a && b == o.b; }
};
struct Then
{
  template <typename MapT>
  __host__ __device__ MapT operator()(MapT f, MapT g) const
  {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

//! Keys equal when they agree but for the lowest bit (a user's equality operator).
struct SameHalf
{
  __host__ __device__ bool operator()(std::int32_t x, std::int32_t y) const { return (x >> 1) == (y >> 1); }
};

//! `n` keys in runs of random lengths in [1, 2 * mean - 1] (mean 0: one run); neighbouring runs differ, and a
//! key may come back in a later run.
template <typename KeyT>
std::vector<KeyT> run_keys(std::size_t n, std::size_t mean, std::uint64_t seed)
{
  Random random{seed};
  std::vector<KeyT> keys(n);
  KeyT key = static_cast<KeyT>(random.between(0, 1000));
  for (std::size_t i = 0; i < n;)
  {
    const std::size_t length =
        mean == 0 ? n : static_cast<std::size_t>(random.between(1, static_cast<std::int64_t>(2 * mean - 1)));
    for (std::size_t j = 0; j < length && i < n; ++j, ++i)
    {
      keys[i] = key;
    }
    const KeyT next = static_cast<KeyT>(random.between(0, 1000));
    key             = next == key ? static_cast<KeyT>(key + 1) : next;
  }
  return keys;
}

template <typename KeyT, typename AccumT>
struct Runs
{
  std::vector<KeyT> keys;
  std::vector<AccumT> aggregates;
};

//! The host reference: runs of `equal` keys, each folded left to right.
template <typename AccumT, typename KeyT, typename ValueT, typename OpT, typename EqualT>
Runs<KeyT, AccumT> reference(const std::vector<KeyT>& keys, const std::vector<ValueT>& values, OpT op, EqualT equal)
{
  Runs<KeyT, AccumT> runs;
  for (std::size_t i = 0; i < keys.size(); ++i)
  {
    if (i == 0 || !equal(keys[i - 1], keys[i]))
    {
      runs.keys.push_back(keys[i]);
      runs.aggregates.push_back(static_cast<AccumT>(values[i]));
    }
    else
    {
      runs.aggregates.back() = op(runs.aggregates.back(), static_cast<AccumT>(values[i]));
    }
  }
  return runs;
}

//! The host's runs of int32 values summed as the device sums them, wrapping (in uint32, bit for bit the same).
Runs<std::int32_t, std::int32_t> wrapping_sums(const std::vector<std::int32_t>& keys,
                                               const std::vector<std::int32_t>& values)
{
  return reference<std::int32_t>(
      keys,
      values,
      [](std::int32_t a, std::int32_t b)
      { return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b)); },
      [](std::int32_t a, std::int32_t b) { return a == b; });
}

//! A device buffer's items, or items at a device pointer.
template <typename T>
const T* device_items(const DeviceBuffer<T>& buffer)
{
  return buffer.get();
}
template <typename T>
const T* device_items(const T* items)
{
  return items;
}

//! fold's result over device keys and values (buffers, or pointers into them), with a count of type `CountT` (32- or
//! 64-bit offsets): the runs, poisoned before; the outputs past the runs checked to be untouched.
template <typename AccumT,
          typename CountT = std::size_t,
          typename KeysT,
          typename ValuesT,
          typename OpT,
          typename EqualT,
          typename OptionT,
          typename KeyT = std::remove_cv_t<std::remove_pointer_t<decltype(device_items(std::declval<KeysT>()))>>>
Runs<KeyT, AccumT> fold_runs(const KeysT& d_keys,
                             const ValuesT& d_values,
                             std::size_t n,
                             OpT op,
                             EqualT equal,
                             cudaStream_t stream,
                             OptionT option)
{
  DeviceBuffer<KeyT> d_unique(n + 1);
  DeviceBuffer<AccumT> d_aggregates(n + 1);
  DeviceBuffer<std::int64_t> d_num_runs(1);
  d_unique.poison();
  d_aggregates.poison();
  d_num_runs.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return fold::DeviceReduce::ReduceByKey(temp,
                                               bytes,
                                               device_items(d_keys),
                                               d_unique.get(),
                                               device_items(d_values),
                                               d_aggregates.get(),
                                               d_num_runs.get(),
                                               op,
                                               static_cast<CountT>(n),
                                               equal,
                                               stream,
                                               option);
      },
      stream);
  const std::int64_t num_runs = d_num_runs.front();
  REQUIRE(num_runs >= (n > 0 ? 1 : 0));
  REQUIRE(num_runs <= static_cast<std::int64_t>(n));
  std::vector<KeyT> unique       = d_unique.to_host();
  std::vector<AccumT> aggregates = d_aggregates.to_host();
  const auto poisoned            = [](const auto& x)
  {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&x);
    return std::all_of(bytes, bytes + sizeof(x), [](unsigned char b) { return b == fold_test::poison_byte; });
  };
  CHECK(poisoned(unique[num_runs]));
  CHECK(poisoned(aggregates[num_runs]));
  unique.resize(num_runs);
  aggregates.resize(num_runs);
  return {unique, aggregates};
}

//! `items` placed `shift` items into a device buffer of `items.size() + 8` (the rest random), so that a pointer to
//! them lies off the buffer's 256-byte alignment.
template <typename T>
DeviceBuffer<T> shifted(const std::vector<T>& items, std::size_t shift)
{
  std::vector<T> padded = fold_test::random_values<T>(items.size() + 8, 77 + shift, fold_test::Values::full_range);
  std::copy(items.begin(), items.end(), padded.begin() + static_cast<std::ptrdiff_t>(shift));
  return DeviceBuffer<T>(padded);
}

//! cub's result, for the exact cases.
template <typename AccumT, typename KeyT, typename ValueT, typename OpT>
Runs<KeyT, AccumT>
cub_runs(const DeviceBuffer<KeyT>& d_keys, const DeviceBuffer<ValueT>& d_values, std::size_t n, OpT op)
{
  DeviceBuffer<KeyT> d_unique(n + 1);
  DeviceBuffer<AccumT> d_aggregates(n + 1);
  DeviceBuffer<std::int64_t> d_num_runs(1);
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return cub::DeviceReduce::ReduceByKey(
            temp, bytes, d_keys.get(), d_unique.get(), d_values.get(), d_aggregates.get(), d_num_runs.get(), op, n);
      });
  const std::int64_t num_runs = d_num_runs.front();
  std::vector<KeyT> unique    = d_unique.to_host();
  std::vector<AccumT> aggs    = d_aggregates.to_host();
  unique.resize(num_runs);
  aggs.resize(num_runs);
  return {unique, aggs};
}

constexpr std::size_t tile_of_int_pairs = [] // the tile edges of int32 keys with int32 values
{
  constexpr auto shape = fold::detail::reduce_by_key_shape<std::int32_t, std::int32_t>();
  return static_cast<std::size_t>(shape.block_threads * shape.items_per_thread);
}();

std::vector<std::size_t> sizes()
{
  const std::size_t t = tile_of_int_pairs;
  // The fix-up's chunks are c tiles: with c t + 1 items the last chunk holds only the call's last tile (its pair
  // left out), with 2 c t + 3 t + 7 the last chunk is part full.
  const std::size_t c = fold::detail::run_fix_up_threads * fold::detail::run_fix_up_tiles;
  return {1,
          2,
          31,
          t - 1,
          t,
          t + 1,
          2 * t + 7,
          32 * t,
          33 * t + 5,
          100003,
          (1u << 22) + 17,
          c * t + 1,
          2 * c * t + 3 * t + 7};
}
const std::vector<std::size_t> mean_lengths{1, 2, 8, 64, 1024, 1 << 20, 0};

} // namespace

TEST_CASE("ReduceByKey sums int32 values by int32 keys as the host and cub do", "[reduce_by_key]")
{
  for (const std::size_t n : sizes())
  {
    for (const std::size_t mean : mean_lengths)
    {
      INFO("n = " << n << ", mean run length " << mean);
      const auto keys   = run_keys<std::int32_t>(n, mean, 7 * n + mean);
      const auto values = fold_test::random_values<std::int32_t>(n, n + 3 * mean, fold_test::Values::full_range);
      const DeviceBuffer<std::int32_t> d_keys(keys), d_values(values);
      const auto got = fold_runs<std::int32_t, int>(
          d_keys, d_values, n, fold::Sum{}, ::cuda::std::equal_to<>{}, cudaStream_t{}, fold::run_to_run);
      const auto want = wrapping_sums(keys, values);
      REQUIRE(got.keys == want.keys);
      REQUIRE(got.aggregates == want.aggregates);
      const auto theirs = cub_runs<std::int32_t>(d_keys, d_values, n, ::cuda::std::plus<>{});
      REQUIRE(theirs.keys == got.keys);
      REQUIRE(theirs.aggregates == got.aggregates);
    }
  }
}

TEST_CASE("ReduceByKey reads keys and values at any alignment: the same runs, and the same bits for float sums",
          "[reduce_by_key]")
{
  // Keys and values 0 to 4 items off the buffers' 256-byte alignment (some 16-byte aligned, some not): every
  // placement gives the host's runs and the aligned call's bits, whatever a tile's loads make of the alignment.
  const std::size_t n = 5 * tile_of_int_pairs + 77;
  for (const std::size_t mean : {std::size_t{1}, std::size_t{8}, std::size_t{1000}, std::size_t{0}})
  {
    const auto keys        = run_keys<std::int32_t>(n, mean, 31 * mean + 5);
    const auto int_values  = fold_test::random_values<std::int32_t>(n, 5 + mean, fold_test::Values::full_range);
    const auto real_values = fold_test::random_values<float>(n, 6 + mean, fold_test::Values::full_range);
    const auto want        = wrapping_sums(keys, int_values);
    const DeviceBuffer<std::int32_t> d_keys(keys);
    const DeviceBuffer<float> d_real(real_values);
    const auto aligned =
        fold_runs<float>(d_keys, d_real, n, fold::Sum{}, ::cuda::std::equal_to<>{}, cudaStream_t{}, fold::run_to_run);
    const std::pair<std::size_t, std::size_t> shifts[] = {{1, 0}, {0, 3}, {2, 2}, {4, 4}};
    for (const auto& [key_shift, value_shift] : shifts)
    {
      INFO("mean run length " << mean << ", keys " << key_shift << " and values " << value_shift << " items in");
      const auto k                   = shifted(keys, key_shift);
      const auto v                   = shifted(int_values, value_shift);
      const auto r                   = shifted(real_values, value_shift);
      const std::int32_t* keys_there = k.get() + key_shift;
      // The runs of the shifted keys with `values` (shifted too), summed in `values`' type.
      const auto sums_at = [&](const auto* values)
      {
        using ValueT = std::remove_cv_t<std::remove_pointer_t<decltype(values)>>;
        return fold_runs<ValueT>(
            keys_there, values, n, fold::Sum{}, ::cuda::std::equal_to<>{}, cudaStream_t{}, fold::run_to_run);
      };
      const auto got = sums_at(v.get() + value_shift);
      REQUIRE(got.keys == want.keys);
      REQUIRE(got.aggregates == want.aggregates);
      const auto real = sums_at(r.get() + value_shift);
      REQUIRE(real.keys == aligned.keys);
      REQUIRE(std::memcmp(
                  real.aggregates.data(), aligned.aggregates.data(), aligned.aggregates.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("ReduceByKey float sums: near the exact sums, and the same bits on every run and stream",
          "[reduce_by_key][reproducible]")
{
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const std::size_t n : {std::size_t{100003}, std::size_t{(1u << 23) + 5}})
  {
    for (const std::size_t mean : {std::size_t{3}, std::size_t{700}, std::size_t{1} << 20, std::size_t{0}})
    {
      INFO("n = " << n << ", mean run length " << mean);
      const auto keys   = run_keys<std::int64_t>(n, mean, n ^ mean);
      const auto values = fold_test::random_values<float>(n, n + mean, fold_test::Values::full_range);
      const DeviceBuffer<std::int64_t> d_keys(keys);
      const DeviceBuffer<float> d_values(values);
      const auto first = fold_runs<float>(
          d_keys, d_values, n, fold::Sum{}, ::cuda::std::equal_to<>{}, cudaStream_t{}, fold::run_to_run);
      const auto exact = reference<double>(
          keys,
          values,
          [](double a, double b) { return a + b; },
          [](std::int64_t a, std::int64_t b) { return a == b; });
      REQUIRE(first.keys == exact.keys);
      for (std::size_t r = 0; r < exact.aggregates.size(); ++r)
      {
        // |error| <= (length - 1) u sum|x|, with |x| < 1: bounded by the run's length squared times u.
        const double length = static_cast<double>(exact.aggregates.size() == 1 ? n : 2 * (mean == 0 ? n : mean));
        INFO("run " << r);
        REQUIRE(std::abs(first.aggregates[r] - exact.aggregates[r]) <= length * length * 0x1.0p-24 + 1e-6);
      }
      const auto same_bits = [&](auto option, cudaStream_t on)
      {
        const auto again = fold_runs<float>(d_keys, d_values, n, fold::Sum{}, ::cuda::std::equal_to<>{}, on, option);
        REQUIRE(again.keys == first.keys);
        REQUIRE(std::memcmp(
                    again.aggregates.data(), first.aggregates.data(), first.aggregates.size() * sizeof(float)) == 0);
      };
      same_bits(fold::run_to_run, cudaStream_t{});
      same_bits(fold::run_to_run, stream);
      same_bits(fold::gpu_to_gpu, stream);
    }
  }
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEMPLATE_TEST_CASE("ReduceByKey composes a non-commutative operator in index order",
                   "[reduce_by_key][order]",
                   Affine,
                   Affine64)
{
  for (const std::size_t n : sizes())
  {
    for (const std::size_t mean : {std::size_t{1}, std::size_t{5}, std::size_t{4000}, std::size_t{0}})
    {
      INFO("n = " << n << ", mean run length " << mean);
      const auto keys = run_keys<std::uint32_t>(n, mean, n + mean);
      Random random{n * 31 + mean};
      std::vector<TestType> maps(n);
      for (auto& m : maps)
      {
        m = {static_cast<decltype(m.a)>(random.next() | 1u), static_cast<decltype(m.b)>(random.next())};
      }
      const DeviceBuffer<std::uint32_t> d_keys(keys);
      const DeviceBuffer<TestType> d_maps(maps);
      const auto got = fold_runs<TestType, int>(
          d_keys, d_maps, n, Then{}, ::cuda::std::equal_to<>{}, cudaStream_t{}, fold::run_to_run);
      const auto want =
          reference<TestType>(keys, maps, Then{}, [](std::uint32_t a, std::uint32_t b) { return a == b; });
      REQUIRE(got.keys == want.keys);
      REQUIRE(got.aggregates == want.aggregates);
    }
  }
}

// A run over many chunks of the fix-up: the value entering a chunk folds the chunks back to the run's start, 32 a
// round, over more than one round. Keys and values are computed, so 2^28 items take no memory; the maps compose in
// index order only if every chunk's and every round's part comes in order.
TEST_CASE("ReduceByKey folds a run across many chunks in index order", "[reduce_by_key][order][huge]")
{
  const std::int64_t n     = (std::int64_t{1} << 28) + 12345;
  const std::int64_t split = n / 3; // two runs: [0, split) and [split, n)
  const auto keys =
      thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                      [split] __host__ __device__(std::int64_t i) { return i < split ? 7 : 9; });
  const auto map_of = [] __host__ __device__(std::int64_t i)
  {
    const auto x = static_cast<std::uint32_t>(i) * 2654435761u;
    return Affine{(x ^ (x >> 15)) | 1u, x >> 7};
  };
  const auto maps = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), map_of);
  DeviceBuffer<std::int32_t> d_unique(3);
  DeviceBuffer<Affine> d_aggregates(3);
  DeviceBuffer<std::int32_t> d_num_runs(1);
  d_unique.poison();
  d_aggregates.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return fold::DeviceReduce::ReduceByKey(
            temp, bytes, keys, d_unique.get(), maps, d_aggregates.get(), d_num_runs.get(), Then{}, static_cast<int>(n));
      });
  Affine want[2] = {map_of(0), map_of(split)};
  for (std::int64_t i = 1; i < n; ++i)
  {
    if (i != split)
    {
      Affine& w = want[i < split ? 0 : 1];
      w         = Then{}(w, map_of(i));
    }
  }
  REQUIRE(d_num_runs.front() == 2);
  const auto unique     = d_unique.to_host();
  const auto aggregates = d_aggregates.to_host();
  REQUIRE(unique[0] == 7);
  REQUIRE(unique[1] == 9);
  REQUIRE(aggregates[0] == want[0]);
  REQUIRE(aggregates[1] == want[1]);
}

TEST_CASE("ReduceByKey takes an equality operator, and Min over double values", "[reduce_by_key]")
{
  const std::size_t n = 3 * tile_of_int_pairs + 11;
  for (const std::size_t mean : {std::size_t{1}, std::size_t{6}, std::size_t{2000}})
  {
    INFO("mean run length " << mean);
    const auto keys   = run_keys<std::int32_t>(n, mean, mean);
    const auto values = fold_test::random_values<double>(n, mean + 1, fold_test::Values::full_range);
    const DeviceBuffer<std::int32_t> d_keys(keys);
    const DeviceBuffer<double> d_values(values);
    const auto got  = fold_runs<double>(d_keys, d_values, n, fold::Min{}, SameHalf{}, cudaStream_t{}, fold::run_to_run);
    const auto want = reference<double>(
        keys, values, [](double a, double b) { return std::min(a, b); }, SameHalf{});
    REQUIRE(got.keys == want.keys);
    REQUIRE(got.aggregates == want.aggregates);
  }
}

TEST_CASE("ReduceByKey counts past 2^31 items with a 64-bit count", "[reduce_by_key][huge]")
{
  // Keys i / 1000 and values 1, both computed: every run sums to 1000 but the last.
  const std::int64_t n    = (std::int64_t{1} << 31) + 1234;
  const std::int64_t runs = (n + 999) / 1000;
  const auto keys         = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                    [] __host__ __device__(std::int64_t i) { return i / 1000; });
  const auto values       = thrust::constant_iterator<std::int32_t>(1);
  DeviceBuffer<std::int64_t> d_unique(runs);
  DeviceBuffer<std::int32_t> d_sums(runs);
  DeviceBuffer<std::int64_t> d_num_runs(1);
  d_sums.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return fold::DeviceReduce::ReduceByKey(
            temp, bytes, keys, d_unique.get(), values, d_sums.get(), d_num_runs.get(), fold::Sum{}, n);
      });
  REQUIRE(d_num_runs.front() == runs);
  const auto unique = d_unique.to_host();
  const auto sums   = d_sums.to_host();
  for (std::int64_t r = 0; r < runs; ++r)
  {
    INFO("run " << r);
    REQUIRE(unique[r] == r);
    REQUIRE(sums[r] == (r + 1 < runs ? 1000 : n - 1000 * (runs - 1)));
  }
}

TEST_CASE("ReduceByKey of no items writes 0 runs and nothing else; bad arguments write nothing",
          "[reduce_by_key][errors]")
{
  DeviceBuffer<int> d_keys(std::vector<int>{1, 1, 2}), d_values(std::vector<int>{5, 6, 7});
  DeviceBuffer<int> d_unique(3), d_sums(3), d_num_runs(1);
  d_unique.poison();
  d_sums.poison();
  d_num_runs.poison();
  fold_test::two_call(
      [&](void* temp, std::size_t& bytes)
      {
        return fold::DeviceReduce::ReduceByKey(
            temp, bytes, d_keys.get(), d_unique.get(), d_values.get(), d_sums.get(), d_num_runs.get(), fold::Sum{}, 0);
      });
  REQUIRE(d_num_runs.front() == 0);
  const auto poison = [](int x) { return x == static_cast<int>(0xA5A5A5A5u); };
  REQUIRE(poison(d_unique.front()));
  REQUIRE(poison(d_sums.front()));

  d_num_runs.poison();
  std::size_t bytes = 0;
  CUDA_REQUIRE(fold::DeviceReduce::ReduceByKey(
      nullptr, bytes, d_keys.get(), d_unique.get(), d_values.get(), d_sums.get(), d_num_runs.get(), fold::Sum{}, 3));
  DeviceBuffer<unsigned char> temp(bytes);
  std::size_t small = bytes - 1;
  CHECK(fold::DeviceReduce::ReduceByKey(temp.get(),
                                        small,
                                        d_keys.get(),
                                        d_unique.get(),
                                        d_values.get(),
                                        d_sums.get(),
                                        d_num_runs.get(),
                                        fold::Sum{},
                                        3) == cudaErrorInvalidValue);
  CHECK(fold::DeviceReduce::ReduceByKey(temp.get(),
                                        bytes,
                                        d_keys.get(),
                                        d_unique.get(),
                                        d_values.get(),
                                        d_sums.get(),
                                        static_cast<int*>(nullptr),
                                        fold::Sum{},
                                        3) == cudaErrorInvalidValue);
  CHECK(fold::DeviceReduce::ReduceByKey(temp.get(),
                                        bytes,
                                        static_cast<int*>(nullptr),
                                        d_unique.get(),
                                        d_values.get(),
                                        d_sums.get(),
                                        d_num_runs.get(),
                                        fold::Sum{},
                                        3) == cudaErrorInvalidValue);
  CHECK(fold::DeviceReduce::ReduceByKey(temp.get(),
                                        bytes,
                                        d_keys.get(),
                                        d_unique.get(),
                                        d_values.get(),
                                        d_sums.get(),
                                        d_num_runs.get(),
                                        fold::Sum{},
                                        -1) == cudaErrorInvalidValue);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  REQUIRE(poison(d_num_runs.front()));
  REQUIRE(poison(d_unique.front()));
  REQUIRE(poison(d_sums.front()));
}

// Each replay reduces new values: a replay that took the slots the one before left (replays share one tag) would
// carry that replay's sums, so the graph's clearing of the slots is what makes every replay right.
TEST_CASE("ReduceByKey captured into a CUDA graph gives the right runs on every replay, and in one call",
          "[reduce_by_key][graph]")
{
  const std::size_t n = 40 * tile_of_int_pairs + 3;
  const auto keys     = run_keys<std::int32_t>(n, 3000, 5);
  const DeviceBuffer<std::int32_t> d_keys(keys);
  DeviceBuffer<float> d_values(n);

  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer<std::int32_t> d_unique(n);
  DeviceBuffer<float> d_sums(n);
  DeviceBuffer<std::int64_t> d_num_runs(1);
  for (const bool one_call : {false, true})
  {
    INFO("one call: " << one_call);
    std::size_t bytes = 0;
    CUDA_REQUIRE(fold::DeviceReduce::ReduceByKey(
        nullptr, bytes, d_keys.get(), d_unique.get(), d_values.get(), d_sums.get(), d_num_runs.get(), fold::Sum{}, n));
    DeviceBuffer<unsigned char> temp(bytes);
    cudaGraph_t graph = nullptr;
    CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const cudaError_t captured =
        one_call
            ? fold::DeviceReduce::ReduceByKey(
                  d_keys.get(), d_unique.get(), d_values.get(), d_sums.get(), d_num_runs.get(), fold::Sum{}, n, stream)
            : fold::DeviceReduce::ReduceByKey(temp.get(),
                                              bytes,
                                              d_keys.get(),
                                              d_unique.get(),
                                              d_values.get(),
                                              d_sums.get(),
                                              d_num_runs.get(),
                                              fold::Sum{},
                                              n,
                                              stream);
    CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
    CUDA_REQUIRE(captured);
    cudaGraphExec_t exec = nullptr;
    CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; ++replay)
    {
      INFO("replay " << replay);
      const auto values = fold_test::random_values<float>(n, 6 + replay, fold_test::Values::full_range);
      CUDA_REQUIRE(cudaMemcpy(d_values.get(), values.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      const auto want = fold_runs<float>(
          d_keys, d_values, n, fold::Sum{}, ::cuda::std::equal_to<>{}, cudaStream_t{}, fold::run_to_run);
      d_sums.poison();
      CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
      CUDA_REQUIRE(cudaStreamSynchronize(stream));
      const std::int64_t runs = d_num_runs.front();
      REQUIRE(runs == static_cast<std::int64_t>(want.keys.size()));
      auto sums = d_sums.to_host();
      sums.resize(runs);
      REQUIRE(std::memcmp(sums.data(), want.aggregates.data(), runs * sizeof(float)) == 0);
    }
    CUDA_REQUIRE(cudaGraphExecDestroy(exec));
    CUDA_REQUIRE(cudaGraphDestroy(graph));
  }
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}
