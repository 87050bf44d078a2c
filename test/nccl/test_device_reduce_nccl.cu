// SPDX-License-Identifier: Apache-2.0
// fold::nccl::DeviceReduce over NCCL: one communicator per visible GPU (ncclCommInitAll), one host thread per rank,
// each rank's shard on its own GPU. Results are compared bit for bit with fold::DeviceReduce over the whole array on
// GPU 0. Exits with 77 (skipped) with fewer than two GPUs.
#define CATCH_CONFIG_RUNNER
#include <fold/device/device_reduce.cuh>
#include <fold/nccl/device_reduce_nccl.cuh>

#include "nccl/sharded_test_util.cuh"
#include "test_util.cuh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace
{
using fold::nccl::Shards;
using fold_test::DeviceBuffer;
using fold_test::same_bits;

std::vector<ncclComm_t> comms;          // one per GPU, rank r on GPU r
std::vector<ncclResult_t> nccl_results; // each rank's fold::nccl::last_result() after its last call

int ranks()
{
  return static_cast<int>(comms.size());
}

// Runs `call(rank, comm, stream)` on every rank, one thread each on its GPU, waits for its stream, and returns each
// rank's error (and keeps its last NCCL result).
template <typename CallT>
std::vector<cudaError_t> on_ranks(CallT call)
{
  return fold_test::run_rank_threads(
      ranks(),
      [](int r) { return r; },
      [&](int r, cudaStream_t stream)
      {
        const cudaError_t error                   = call(r, comms[static_cast<std::size_t>(r)], stream);
        nccl_results[static_cast<std::size_t>(r)] = fold::nccl::last_result();
        return error;
      });
}

void require_all(const std::vector<cudaError_t>& errors)
{
  for (std::size_t r = 0; r < errors.size(); ++r)
  {
    INFO("rank " << r << ", NCCL's result " << ncclGetErrorString(nccl_results[r]));
    CUDA_REQUIRE(errors[r]);
  }
}

// A buffer on each rank's GPU.
template <typename T>
struct PerRank
{
  std::vector<std::unique_ptr<DeviceBuffer<T>>> buffers;

  explicit PerRank(const std::vector<std::size_t>& sizes)
  {
    for (int r = 0; r < ranks(); ++r)
    {
      CUDA_REQUIRE(cudaSetDevice(r));
      buffers.emplace_back(new DeviceBuffer<T>(sizes[static_cast<std::size_t>(r)] > 0 ? sizes[r] : 1));
      buffers.back()->poison();
    }
    CUDA_REQUIRE(cudaSetDevice(0));
  }
  // Rank r's shard of `whole`.
  PerRank(const std::vector<T>& whole, const Shards& shards)
      : PerRank(counts_of(shards))
  {
    for (int r = 0; r < ranks(); ++r)
    {
      CUDA_REQUIRE(cudaMemcpy(buffers[r]->get(),
                              whole.data() + shards.offset(r),
                              static_cast<std::size_t>(shards.count(r)) * sizeof(T),
                              cudaMemcpyHostToDevice));
    }
  }
  static std::vector<std::size_t> counts_of(const Shards& shards)
  {
    std::vector<std::size_t> counts;
    for (int r = 0; r < shards.ranks(); ++r)
    {
      counts.push_back(static_cast<std::size_t>(shards.count(r)));
    }
    return counts;
  }
  T* operator[](int r) const { return buffers[static_cast<std::size_t>(r)]->get(); }
  // The first item of each rank's buffer.
  std::vector<T> fronts() const
  {
    std::vector<T> values;
    for (const auto& buffer : buffers)
    {
      values.push_back(buffer->front());
    }
    return values;
  }
};

PerRank<float> one_each_float()
{
  return PerRank<float>(std::vector<std::size_t>(comms.size(), 1));
}

template <typename T>
void require_same_bits(const std::vector<T>& results, const T& expected)
{
  for (std::size_t r = 0; r < results.size(); ++r)
  {
    INFO("rank " << r);
    REQUIRE(same_bits(results[r], expected));
  }
}

template <typename T>
T single_gpu_sum(const std::vector<T>& whole)
{
  DeviceBuffer<T> in(whole);
  DeviceBuffer<T> out(1);
  CUDA_REQUIRE(fold::DeviceReduce::Sum(in.get(), out.get(), static_cast<std::int64_t>(whole.size())));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  return out.front();
}

template <typename T>
std::vector<T> nccl_sum(const PerRank<T>& in, const Shards& shards)
{
  PerRank<T> out(std::vector<std::size_t>(comms.size(), 1));
  require_all(on_ranks(
      [&](int r, ncclComm_t comm, cudaStream_t stream)
      {
        return fold_test::two_call_on(stream,
                                      [&](void* temp, std::size_t& bytes) {
                                        return fold::nccl::DeviceReduce::Sum(
                                            temp, bytes, static_cast<const T*>(in[r]), out[r], shards, comm, stream);
                                      });
      }));
  return out.fronts();
}

template <typename T>
std::int64_t sum_granule(std::int64_t total)
{
  std::int64_t granule = 0;
  CUDA_REQUIRE(fold::nccl::DeviceReduce::Granule<const T*>(total, granule));
  return granule;
}

template <typename T>
void check_sum(std::int64_t n, std::uint64_t seed)
{
  const auto whole   = fold_test::random_values<T>(static_cast<std::size_t>(n), seed, fold_test::Values::full_range);
  const T expected   = single_gpu_sum(whole);
  const auto granule = sum_granule<T>(n);
  const Shards even  = Shards::even(n, ranks(), granule);
  std::vector<std::int64_t> counts(comms.size(), 0);
  counts[0]     = granule * 3 < n ? granule * 3 : 0; // uneven: rank 0 small, the last one the rest
  counts.back() = n - counts[0];
  const Shards uneven{counts};
  for (const Shards& shards : {even, uneven})
  {
    const PerRank<T> in(whole, shards);
    require_same_bits(nccl_sum(in, shards), expected);
    require_same_bits(nccl_sum(in, shards), expected); // and again
  }
}

using fold_test::Affine;
using fold_test::counting_floats;
using fold_test::CountingFloats;
using fold_test::Then;

} // namespace

TEST_CASE("nccl: float and double sums have the single-GPU bits", "[nccl][sum]")
{
  check_sum<float>(10'000'019, 1);
  check_sum<float>(1'000, 2);
  check_sum<double>((std::int64_t{1} << 25) + 12345, 3); // units of two tiles
}

TEST_CASE("nccl: a rank with no items", "[nccl][sum]")
{
  const std::int64_t n = 3'000'017;
  const auto whole     = fold_test::random_values<float>(static_cast<std::size_t>(n), 4, fold_test::Values::full_range);
  const float expected = single_gpu_sum(whole);
  for (const int empty : {0, ranks() - 1})
  {
    std::vector<std::int64_t> counts(comms.size(), 0);
    counts[empty == 0 ? ranks() - 1 : 0] = n;
    const Shards shards{counts};
    const PerRank<float> in(whole, shards);
    require_same_bits(nccl_sum(in, shards), expected);
  }
}

TEST_CASE("nccl: ArgMax across the shard boundary, with the global index", "[nccl][arg]")
{
  const std::int64_t n = 4'000'037;
  auto whole           = fold_test::random_values<float>(static_cast<std::size_t>(n), 5, fold_test::Values::full_range);
  const Shards shards  = Shards::even(n, ranks());
  const std::int64_t boundary                   = shards.offset(1);
  whole[static_cast<std::size_t>(boundary - 1)] = 2.0f; // the last item of rank 0
  whole[static_cast<std::size_t>(boundary)]     = 2.0f; // the first of rank 1: a tie, the first wins
  const PerRank<float> in(whole, shards);
  PerRank<float> max(std::vector<std::size_t>(comms.size(), 1));
  PerRank<std::int64_t> at(std::vector<std::size_t>(comms.size(), 1));
  require_all(on_ranks(
      [&](int r, ncclComm_t comm, cudaStream_t stream)
      {
        return fold_test::two_call_on(
            stream,
            [&](void* temp, std::size_t& bytes)
            {
              return fold::nccl::DeviceReduce::ArgMax(
                  temp, bytes, static_cast<const float*>(in[r]), max[r], at[r], shards, comm, stream);
            });
      }));
  require_same_bits(at.fronts(), boundary - 1);
  require_same_bits(max.fronts(), 2.0f);
}

TEST_CASE("nccl: a non-commutative operator, in rank order, with the single-GPU bits", "[nccl][order]")
{
  const std::int64_t n = 2'000'003;
  fold_test::Random random{6};
  std::vector<Affine> whole(static_cast<std::size_t>(n));
  for (auto& f : whole)
  {
    f = {random.between(0, 1) ? 1.0f : -1.0f, static_cast<float>(random.uniform() * 2 - 1)};
  }
  const Affine identity{1.0f, 0.0f};
  DeviceBuffer<Affine> all(whole);
  DeviceBuffer<Affine> single(1);
  CUDA_REQUIRE(fold::DeviceReduce::Reduce(static_cast<const Affine*>(all.get()), single.get(), n, Then{}, identity));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const Affine expected = single.front();

  std::int64_t granule = 0;
  CUDA_REQUIRE((fold::nccl::DeviceReduce::Granule<const Affine*, Then, Affine>(n, granule)));
  const Shards shards = Shards::even(n, ranks(), granule);
  const PerRank<Affine> in(whole, shards);
  PerRank<Affine> out(std::vector<std::size_t>(comms.size(), 1));
  require_all(on_ranks(
      [&](int r, ncclComm_t comm, cudaStream_t stream)
      {
        return fold_test::two_call_on(
            stream,
            [&](void* temp, std::size_t& bytes)
            {
              return fold::nccl::DeviceReduce::Reduce(
                  temp, bytes, static_cast<const Affine*>(in[r]), out[r], shards, Then{}, identity, comm, stream);
            });
      }));
  for (const Affine& f : out.fronts())
  {
    REQUIRE(same_bits(f.a, expected.a));
    REQUIRE(same_bits(f.b, expected.b));
  }
}

TEST_CASE("nccl: over 2^31 items per rank, through an iterator", "[nccl][huge]")
{
  const std::int64_t n = (std::int64_t{1} << 32) + (std::int64_t{1} << 21) + 7;
  DeviceBuffer<float> single(1);
  CUDA_REQUIRE(fold::DeviceReduce::Sum(counting_floats(0), single.get(), n));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::int64_t granule = 0;
  CUDA_REQUIRE(fold::nccl::DeviceReduce::Granule<CountingFloats>(n, granule));
  const Shards shards = Shards::even(n, 2, granule);
  REQUIRE(shards.count(0) > (std::int64_t{1} << 31));
  REQUIRE(shards.count(1) > (std::int64_t{1} << 31));
  // Two ranks hold everything; any further ones hold nothing.
  std::vector<std::int64_t> counts(comms.size(), 0);
  counts[0] = shards.count(0);
  counts[1] = shards.count(1);
  const Shards two{counts};
  PerRank<float> out = one_each_float();
  require_all(on_ranks(
      [&](int r, ncclComm_t comm, cudaStream_t stream)
      {
        return fold_test::two_call_on(
            stream,
            [&](void* temp, std::size_t& bytes)
            {
              return fold::nccl::DeviceReduce::Sum(
                  temp, bytes, counting_floats(static_cast<std::uint64_t>(two.offset(r))), out[r], two, comm, stream);
            });
      }));
  require_same_bits(out.fronts(), single.front());
}

TEST_CASE("nccl: the result on a root only; shards from each rank's count; errors", "[nccl][root]")
{
  const std::int64_t n = 5'000'011;
  const auto whole     = fold_test::random_values<float>(static_cast<std::size_t>(n), 7, fold_test::Values::full_range);
  const float expected = single_gpu_sum(whole);
  const Shards shards  = Shards::even(n, ranks(), sum_granule<float>(n));

  // Each rank knows only its own count.
  std::vector<Shards> learned(comms.size());
  require_all(on_ranks([&](int r, ncclComm_t comm, cudaStream_t stream)
                       { return fold::nccl::exchange_counts(shards.count(r), learned[r], comm, stream); }));
  for (const Shards& s : learned)
  {
    REQUIRE(s == shards);
  }

  const PerRank<float> in(whole, shards);
  const int root     = ranks() - 1;
  PerRank<float> out = one_each_float();
  require_all(on_ranks(
      [&](int r, ncclComm_t comm, cudaStream_t stream)
      {
        return fold_test::two_call_on(stream,
                                      [&](void* temp, std::size_t& bytes)
                                      {
                                        return fold::nccl::DeviceReduce::Sum(temp,
                                                                             bytes,
                                                                             static_cast<const float*>(in[r]),
                                                                             r == root ? out[r] : nullptr,
                                                                             shards,
                                                                             fold::nccl::Root{root},
                                                                             comm,
                                                                             stream);
                                      });
      }));
  const auto results = out.fronts();
  float poison       = 0;
  std::memset(&poison, fold_test::poison_byte, sizeof(float));
  for (int r = 0; r < ranks(); ++r)
  {
    REQUIRE(same_bits(results[static_cast<std::size_t>(r)], r == root ? expected : poison));
  }

  // Bad arguments, before any NCCL call: a null communicator, shards of another number of ranks.
  std::size_t bytes = 0;
  REQUIRE(fold::nccl::DeviceReduce::Sum(nullptr, bytes, in[0], out[0], shards, nullptr, 0) == cudaErrorInvalidValue);
  REQUIRE(fold::nccl::DeviceReduce::Sum(nullptr, bytes, in[0], out[0], Shards::even(n, ranks() + 1), comms[0], 0) ==
          cudaErrorInvalidValue);
  // A root that is no rank: past the last, or negative (-1 included, which fold uses inside for "every rank").
  for (int bad : {ranks(), -1, -2})
  {
    INFO("root " << bad);
    REQUIRE(fold::nccl::DeviceReduce::Sum(nullptr, bytes, in[0], out[0], shards, fold::nccl::Root{bad}, comms[0], 0) ==
            cudaErrorInvalidValue);
  }
}

int main(int argc, char** argv)
{
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 2)
  {
    std::printf("%d CUDA devices, two needed: skipped\n", devices);
    return 77;
  }
  int version = 0;
  ncclGetVersion(&version);
  std::printf("%d GPUs, NCCL %d, NCCL_NVLS_ENABLE=%s\n",
              devices,
              version,
              std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "(unset)");
  comms.resize(static_cast<std::size_t>(devices));
  nccl_results.resize(comms.size(), ncclSuccess);
  if (const ncclResult_t result = ncclCommInitAll(comms.data(), devices, nullptr); result != ncclSuccess)
  {
    std::printf("ncclCommInitAll: %s\n", ncclGetErrorString(result));
    return 1;
  }
  const int status = Catch::Session().run(argc, argv);
  for (ncclComm_t comm : comms)
  {
    ncclCommDestroy(comm);
  }
  return status;
}
