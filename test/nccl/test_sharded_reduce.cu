// SPDX-License-Identifier: Apache-2.0
// fold::nccl's partition logic without NCCL: P virtual ranks on one GPU (test/nccl/virtual_ranks.cuh) run the
// sharded dispatch over slices of one array, and their results are compared bit for bit with fold::DeviceReduce
// over the whole array, for P from 1 to 64, with even, uneven and empty shards.
#include <fold/device/device_reduce.cuh>
#include <fold/nccl/sharded_reduce.cuh>

#include "nccl/virtual_ranks.cuh"
#include "test_util.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace
{
using fold::nccl::Shards;
using fold_test::DeviceBuffer;
using fold_test::same_bits;
using Sharded = fold::detail::ShardedReduce<fold_test::VirtualExchange>;

constexpr int every_rank = fold::detail::every_rank;

using fold_test::Affine;
using fold_test::counting_floats;
using fold_test::CountingFloats;
using fold_test::Then;

// The granule of `ReductionOpT` over `InputIteratorT` with initial value `T`, for `total` items.
template <typename InputIteratorT, typename ReductionOpT, typename T>
std::int64_t granule_of(std::int64_t total)
{
  using AccumT      = fold::detail::accumulator_t<ReductionOpT, T, fold::detail::value_t<InputIteratorT>>;
  std::int64_t unit = 0;
  CUDA_REQUIRE((fold::detail::sharded_granule<InputIteratorT, ReductionOpT, AccumT, fold::DefaultTuning>(total, unit)));
  return unit;
}

// `total` items cut at `ranks - 1` seeded random points, multiples of `granule` (1: anywhere), some ranks empty.
Shards random_shards(std::int64_t total, int ranks, std::int64_t granule, std::uint64_t seed)
{
  fold_test::Random random{seed};
  std::vector<std::int64_t> cuts{0};
  for (int r = 1; r < ranks; ++r)
  {
    // One cut in four repeats the previous one: an empty rank.
    cuts.push_back(r > 1 && random.between(0, 3) == 0 ? cuts.back() : random.between(0, total / granule) * granule);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(total);
  std::vector<std::int64_t> counts;
  for (int r = 0; r < ranks; ++r)
  {
    counts.push_back(cuts[r + 1] - cuts[r]);
  }
  return Shards{counts};
}

void require_all(const std::vector<cudaError_t>& errors)
{
  for (std::size_t r = 0; r < errors.size(); ++r)
  {
    INFO("rank " << r);
    CUDA_REQUIRE(errors[r]);
  }
}

// Runs `reduce(exchange, stream, temp, bytes, rank_out)` on every rank of `shards`, each writing its result to
// its own item of one output array (poisoned first), and returns that array.
template <typename OutT, typename ReduceT>
std::vector<OutT> on_ranks(const Shards& shards, ReduceT reduce)
{
  DeviceBuffer<OutT> out(static_cast<std::size_t>(shards.ranks()));
  out.poison();
  require_all(fold_test::run_virtual_ranks(
      shards.ranks(),
      [&](fold_test::VirtualExchange& exchange, cudaStream_t stream)
      {
        return fold_test::two_call_on(stream,
                                      [&](void* temp, std::size_t& bytes)
                                      { return reduce(exchange, stream, temp, bytes, out.get() + exchange.rank()); });
      }));
  return out.to_host();
}

// The sum over `shards` of the array at `d_in` (a pointer or an iterator indexed by global position), every rank's
// result.
template <typename T, typename InputIteratorT>
std::vector<T> sharded_sum(InputIteratorT d_in, const Shards& shards)
{
  return on_ranks<T>(
      shards,
      [&](fold_test::VirtualExchange& exchange, cudaStream_t stream, void* temp, std::size_t& bytes, T* out)
      {
        const InputIteratorT in = d_in + shards.offset(exchange.rank());
        return Sharded::Sum(temp, bytes, in, out, shards, every_rank, exchange, stream, fold::run_to_run);
      });
}

template <typename T, typename InputIteratorT>
T single_gpu_sum(InputIteratorT d_in, std::int64_t n)
{
  DeviceBuffer<T> out(1);
  CUDA_REQUIRE(fold::DeviceReduce::Sum(d_in, out.get(), n));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  return out.front();
}

template <typename T>
void require_same_bits(const std::vector<T>& results, const T& expected)
{
  for (std::size_t r = 0; r < results.size(); ++r)
  {
    INFO("rank " << r << ": " << fold_test::to_double(results[r]) << " against " << fold_test::to_double(expected));
    REQUIRE(same_bits(results[r], expected));
  }
}

template <typename T>
void check_sums(std::int64_t n, std::uint64_t seed, const std::vector<int>& rank_counts)
{
  const auto host = fold_test::random_values<T>(static_cast<std::size_t>(n), seed, fold_test::Values::full_range);
  DeviceBuffer<T> in(host);
  const T expected           = single_gpu_sum<T>(static_cast<const T*>(in.get()), n);
  const std::int64_t granule = granule_of<const T*, fold::Sum, T>(n);
  double magnitude = 0, exact = 0;
  for (const T& x : host)
  {
    exact += static_cast<double>(x);
    magnitude += std::fabs(static_cast<double>(x));
  }
  for (const int ranks : rank_counts)
  {
    INFO(n << " items over " << ranks << " ranks, granule " << granule);
    {
      INFO("even shards of whole granules");
      require_same_bits(sharded_sum<T>(static_cast<const T*>(in.get()), Shards::even(n, ranks, granule)), expected);
    }
    {
      INFO("uneven shards of whole granules, some empty");
      const Shards shards = random_shards(n, ranks, granule, seed + ranks);
      require_same_bits(sharded_sum<T>(static_cast<const T*>(in.get()), shards), expected);
    }
    if (ranks > 1)
    {
      INFO("shards cut anywhere: the same bits on every rank and every run, near the exact sum");
      const Shards shards = random_shards(n, ranks, 1, seed + 1000 + ranks);
      const auto first    = sharded_sum<T>(static_cast<const T*>(in.get()), shards);
      require_same_bits(first, first[0]);
      require_same_bits(sharded_sum<T>(static_cast<const T*>(in.get()), shards), first[0]);
      const double unit_roundoff = std::is_same_v<T, float> ? 0x1.0p-24 : 0x1.0p-53;
      REQUIRE(std::fabs(static_cast<double>(first[0]) - exact) <= 1024 * unit_roundoff * magnitude);
    }
  }
}

std::vector<int> one_to(int last)
{
  std::vector<int> counts;
  for (int p = 1; p <= last; ++p)
  {
    counts.push_back(p);
  }
  return counts;
}

} // namespace

TEST_CASE("virtual ranks: float sums have the single-GPU bits, 1 to 64 ranks", "[sharded][sum]")
{
  // ~366 tiles of 8192 floats; granules of one tile.
  check_sums<float>(3'000'017, 11, one_to(64));
  // At most one tile: one unit, and every rank but the last empty.
  check_sums<float>(5'000, 12, {1, 2, 3, 64});
}

TEST_CASE("virtual ranks: double sums have the single-GPU bits, units of several tiles", "[sharded][sum]")
{
  // 16897 tiles of 2048 doubles, cut into at most 4096 units (a double sum's two tiles of partials): units of 8
  // tiles, 2113 of them.
  check_sums<double>((std::int64_t{1} << 25) + (std::int64_t{1} << 20) + 3, 21, {1, 2, 3, 5, 8, 64});
  check_sums<double>(1'234'567, 22, {1, 2, 7, 16, 33, 64});
}

TEST_CASE("virtual ranks: over 2^31 items per rank through an iterator", "[sharded][sum][huge]")
{
  const std::int64_t n       = (std::int64_t{1} << 32) + (std::int64_t{1} << 20) + 5;
  const float expected       = single_gpu_sum<float>(counting_floats(0), n);
  const std::int64_t granule = granule_of<CountingFloats, fold::Sum, float>(n);
  const Shards shards        = Shards::even(n, 2, granule);
  REQUIRE(shards.count(0) > (std::int64_t{1} << 31));
  REQUIRE(shards.count(1) > (std::int64_t{1} << 31));
  require_same_bits(sharded_sum<float>(counting_floats(0), shards), expected);
}

TEST_CASE("virtual ranks: a non-commutative operator keeps the whole array's order", "[sharded][order]")
{
  const std::int64_t n = 700'001;
  fold_test::Random random{31};
  std::vector<Affine> host(static_cast<std::size_t>(n));
  for (auto& f : host)
  {
    f = {random.between(0, 1) ? 1.0f : -1.0f, static_cast<float>(random.uniform() * 2 - 1)};
  }
  DeviceBuffer<Affine> in(host);
  const Affine identity{1.0f, 0.0f};
  DeviceBuffer<Affine> single(1);
  CUDA_REQUIRE(fold::DeviceReduce::Reduce(static_cast<const Affine*>(in.get()), single.get(), n, Then{}, identity));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const Affine expected = single.front();
  // In order on the host, in double: the maps composed the other way round would give another b.
  double a = 1, b = 0;
  for (const Affine& f : host)
  {
    b = f.a * b + f.b;
    a = f.a * a;
  }
  REQUIRE(expected.a == a);
  REQUIRE(std::fabs(expected.b - b) < 1e-2);

  const std::int64_t granule = granule_of<const Affine*, Then, Affine>(n);
  auto reduce                = [&](const Shards& shards)
  {
    return on_ranks<Affine>(
        shards,
        [&](fold_test::VirtualExchange& exchange, cudaStream_t stream, void* temp, std::size_t& bytes, Affine* out)
        {
          const Affine* shard = in.get() + shards.offset(exchange.rank());
          return Sharded::Reduce(
              temp, bytes, shard, out, shards, every_rank, Then{}, identity, exchange, stream, fold::run_to_run);
        });
  };
  for (const int ranks : {1, 2, 3, 8, 17, 64})
  {
    INFO(ranks << " ranks, granule " << granule);
    for (const Affine& r : reduce(Shards::even(n, ranks, granule)))
    {
      REQUIRE(same_bits(r.a, expected.a));
      REQUIRE(same_bits(r.b, expected.b));
    }
    for (const Affine& r : reduce(random_shards(n, ranks, 1, 40 + ranks)))
    {
      REQUIRE(r.a == a);
      REQUIRE(std::fabs(r.b - b) < 1e-2);
    }
  }
}

TEST_CASE("virtual ranks: ArgMax and Min across shard boundaries, global indices", "[sharded][arg]")
{
  const std::int64_t n = 1'000'003;
  auto host = fold_test::random_values<float>(static_cast<std::size_t>(n), 51, fold_test::Values::full_range);
  for (const int ranks : {1, 2, 5, 64})
  {
    for (const bool even : {true, false})
    {
      const Shards shards = even ? Shards::even(n, ranks) : random_shards(n, ranks, 1, 60 + ranks);
      INFO(ranks << (even ? " even" : " random") << " shards");
      // The largest value twice: at the last item of the first non-empty rank that has a successor with items, and
      // at that successor's first item. The first occurrence wins.
      auto values = host;
      int first   = 0;
      while (first + 1 < ranks && (shards.count(first) == 0 || shards.offset(first + 1) == n))
      {
        ++first;
      }
      const std::int64_t boundary = shards.offset(first) + shards.count(first); // the successor's first item
      if (boundary > 0 && boundary < n)
      {
        values[static_cast<std::size_t>(boundary - 1)] = 2.0f;
        values[static_cast<std::size_t>(boundary)]     = 2.0f;
      }
      DeviceBuffer<float> in(values);
      DeviceBuffer<float> max(1);
      DeviceBuffer<std::int64_t> at(1);
      CUDA_REQUIRE(fold::DeviceReduce::ArgMax(static_cast<const float*>(in.get()), max.get(), at.get(), n));
      DeviceBuffer<float> min(1);
      CUDA_REQUIRE(fold::DeviceReduce::Min(static_cast<const float*>(in.get()), min.get(), n));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      if (boundary > 0 && boundary < n)
      {
        REQUIRE(at.front() == boundary - 1);
      }

      DeviceBuffer<float> maxes(static_cast<std::size_t>(ranks));
      maxes.poison();
      const auto indices = on_ranks<std::int64_t>(shards,
                                                  [&](fold_test::VirtualExchange& exchange,
                                                      cudaStream_t stream,
                                                      void* temp,
                                                      std::size_t& bytes,
                                                      std::int64_t* index)
                                                  {
                                                    const float* shard = in.get() + shards.offset(exchange.rank());
                                                    return Sharded::ArgExtremum<true>(temp,
                                                                                      bytes,
                                                                                      shard,
                                                                                      maxes.get() + exchange.rank(),
                                                                                      index,
                                                                                      shards,
                                                                                      every_rank,
                                                                                      exchange,
                                                                                      stream,
                                                                                      fold::run_to_run);
                                                  });
      require_same_bits(indices, at.front());
      require_same_bits(maxes.to_host(), max.front());

      const auto mins = on_ranks<float>(
          shards,
          [&](fold_test::VirtualExchange& exchange, cudaStream_t stream, void* temp, std::size_t& bytes, float* out)
          {
            const float* shard = in.get() + shards.offset(exchange.rank());
            return Sharded::Extremum<false>(
                temp, bytes, shard, out, shards, every_rank, exchange, stream, fold::run_to_run);
          });
      require_same_bits(mins, min.front());
    }
  }
}

TEST_CASE("virtual ranks: the result on a root only; empty arrays; bad arguments", "[sharded][root][errors]")
{
  const std::int64_t n = 2'000'000;
  const auto host = fold_test::random_values<float>(static_cast<std::size_t>(n), 71, fold_test::Values::full_range);
  DeviceBuffer<float> in(host);
  const float expected = single_gpu_sum<float>(static_cast<const float*>(in.get()), n);
  const Shards shards  = random_shards(n, 4, granule_of<const float*, fold::Sum, float>(n), 72);
  for (const int root : {0, 2, 3})
  {
    INFO("root " << root);
    std::vector<int> gathers(4, 0);
    const auto results = on_ranks<float>(
        shards,
        [&](fold_test::VirtualExchange& exchange, cudaStream_t stream, void* temp, std::size_t& bytes, float* out)
        {
          const int rank     = exchange.rank();
          const float* shard = in.get() + shards.offset(rank);
          // The other ranks pass no output at all.
          const cudaError_t error = Sharded::Sum(
              temp, bytes, shard, rank == root ? out : nullptr, shards, root, exchange, stream, fold::run_to_run);
          gathers[static_cast<std::size_t>(rank)] = exchange.gathers;
          return error;
        });
    for (int r = 0; r < 4; ++r)
    {
      INFO("rank " << r);
      REQUIRE(gathers[static_cast<std::size_t>(r)] == 1);
      float poison = 0;
      std::memset(&poison, fold_test::poison_byte, sizeof(float));
      REQUIRE(same_bits(results[static_cast<std::size_t>(r)], r == root ? expected : poison));
    }
  }

  // No items anywhere: the initial value, and index -1.
  const auto sums = sharded_sum<float>(static_cast<const float*>(in.get()), Shards{{0, 0, 0}});
  require_same_bits(sums, 0.0f);
  const Shards empty{{0, 0}};
  DeviceBuffer<float> maxes(2);
  const auto indices = on_ranks<std::int64_t>(empty,
                                              [&](fold_test::VirtualExchange& exchange,
                                                  cudaStream_t stream,
                                                  void* temp,
                                                  std::size_t& bytes,
                                                  std::int64_t* index)
                                              {
                                                return Sharded::ArgExtremum<true>(temp,
                                                                                  bytes,
                                                                                  static_cast<const float*>(nullptr),
                                                                                  maxes.get() + exchange.rank(),
                                                                                  index,
                                                                                  empty,
                                                                                  every_rank,
                                                                                  exchange,
                                                                                  stream,
                                                                                  fold::run_to_run);
                                              });
  require_same_bits(indices, std::int64_t{-1});
  require_same_bits(maxes.to_host(), -std::numeric_limits<float>::infinity());

  // Errors, the same on every rank (so that none waits for the others): shards of another number of ranks, a root
  // that is no rank, a null output.
  auto errors_of = [&](const Shards& given, int ranks, int root, bool null_out)
  {
    DeviceBuffer<float> out(1);
    return fold_test::run_virtual_ranks(ranks,
                                        [&](fold_test::VirtualExchange& exchange, cudaStream_t stream)
                                        {
                                          return fold_test::two_call_on(stream,
                                                                        [&](void* temp, std::size_t& bytes)
                                                                        {
                                                                          return Sharded::Sum(
                                                                              temp,
                                                                              bytes,
                                                                              static_cast<const float*>(in.get()),
                                                                              null_out ? nullptr : out.get(),
                                                                              given,
                                                                              root,
                                                                              exchange,
                                                                              stream,
                                                                              fold::run_to_run);
                                                                        });
                                        });
  };
  for (const cudaError_t error : errors_of(Shards::even(100, 3), 2, every_rank, false))
  {
    REQUIRE(error == cudaErrorInvalidValue);
  }
  for (const cudaError_t error : errors_of(Shards::even(100, 2), 2, 2, false))
  {
    REQUIRE(error == cudaErrorInvalidValue);
  }
  for (const cudaError_t error : errors_of(Shards{}, 2, every_rank, false))
  {
    REQUIRE(error == cudaErrorInvalidValue);
  }
  for (const cudaError_t error : errors_of(Shards::even(100, 2), 2, every_rank, true))
  {
    REQUIRE(error == cudaErrorInvalidValue);
  }
}
