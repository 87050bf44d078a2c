// SPDX-License-Identifier: Apache-2.0
// BlockReduce: each algorithm at several block sizes, full and partial blocks. The order-keeping algorithms
// are checked with a non-commutative operator against a sequential host fold; all three with exact sums.
#include <fold/block/block_reduce.cuh>
#include <fold/util/operators.cuh>

#include "ops_util.cuh"
#include "test_util.cuh"

#include <cstdint>
#include <vector>

namespace
{
using Algorithm = fold::BlockReduceAlgorithm;

template <typename T, int BlockThreads, Algorithm A, typename ReductionOpT>
__global__ void block_reduce_kernel(const T* in, T* out, int num_valid, ReductionOpT op)
{
  using BlockReduceT = fold::BlockReduce<T, BlockThreads, A>;
  __shared__ typename BlockReduceT::TempStorage storage;
  const T value = in[blockIdx.x * BlockThreads + threadIdx.x];
  // Twice through the same storage, as the docs allow with a barrier in between.
  const T first = num_valid == BlockThreads ? BlockReduceT(storage).Reduce(value, op)
                                            : BlockReduceT(storage).Reduce(value, op, num_valid);
  __syncthreads();
  const T second = BlockReduceT(storage).Reduce(value, op, num_valid);
  if (threadIdx.x == 0)
  {
    out[2 * blockIdx.x]     = first;
    out[2 * blockIdx.x + 1] = second;
  }
}

std::vector<int> valid_counts(int block_threads)
{
  return {1,
          2,
          31,
          32,
          33,
          block_threads / 2 + 3 > block_threads ? block_threads : block_threads / 2 + 3,
          block_threads - 1,
          block_threads};
}

constexpr int blocks = 3;

template <typename T, int BlockThreads, Algorithm A>
void check_order()
{
  INFO("block threads " << BlockThreads << ", algorithm " << static_cast<int>(A));
  for (int num_valid : valid_counts(BlockThreads))
  {
    if (num_valid > BlockThreads)
    {
      continue;
    }
    INFO("num_valid " << num_valid);
    const auto matrices = fold_test::random_matrices(blocks * BlockThreads, 7 * num_valid + BlockThreads);
    std::vector<T> input(matrices.begin(), matrices.end());
    fold_test::DeviceBuffer<T> d_in(input);
    fold_test::DeviceBuffer<T> d_out(2 * blocks);
    d_out.poison();
    block_reduce_kernel<T, BlockThreads, A>
        <<<blocks, BlockThreads>>>(d_in.get(), d_out.get(), num_valid, fold_test::MatMul{});
    CUDA_REQUIRE(cudaGetLastError());
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto out = d_out.to_host();
    for (int b = 0; b < blocks; ++b)
    {
      const std::size_t first = static_cast<std::size_t>(b) * BlockThreads;
      const auto expected     = fold_test::sequential_product(matrices, first, first + num_valid);
      REQUIRE(fold_test::as_matrix(out[2 * b]) == expected);
      REQUIRE(fold_test::as_matrix(out[2 * b + 1]) == expected);
    }
  }
}

template <typename T, int BlockThreads, Algorithm A>
void check_sum()
{
  INFO("block threads " << BlockThreads << ", algorithm " << static_cast<int>(A));
  const auto values = fold_test::random_values<T>(blocks * BlockThreads, BlockThreads, fold_test::Values::full_range);
  fold_test::DeviceBuffer<T> d_in(values);
  fold_test::DeviceBuffer<T> d_out(2 * blocks);
  for (int num_valid : valid_counts(BlockThreads))
  {
    if (num_valid > BlockThreads)
    {
      continue;
    }
    INFO("num_valid " << num_valid);
    d_out.poison();
    block_reduce_kernel<T, BlockThreads, A><<<blocks, BlockThreads>>>(d_in.get(), d_out.get(), num_valid, fold::Sum{});
    CUDA_REQUIRE(cudaGetLastError());
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto out = d_out.to_host();
    for (int b = 0; b < blocks; ++b)
    {
      std::uint64_t expected = 0;
      for (int i = 0; i < num_valid; ++i)
      {
        expected += static_cast<std::uint64_t>(values[b * BlockThreads + i]);
      }
      REQUIRE(out[2 * b] == static_cast<T>(expected));
      REQUIRE(out[2 * b + 1] == static_cast<T>(expected));
    }
  }
}
} // namespace

TEST_CASE("BlockReduce warp_reductions keeps thread order", "[block]")
{
  check_order<fold_test::Mat2, 32, Algorithm::warp_reductions>();
  check_order<fold_test::Mat2, 96, Algorithm::warp_reductions>();
  check_order<fold_test::Mat2, 256, Algorithm::warp_reductions>();
  check_order<fold_test::Mat2, 1024, Algorithm::warp_reductions>();
  check_order<fold_test::BoxedMat2, 256, Algorithm::warp_reductions>();
}

TEST_CASE("BlockReduce raking keeps thread order", "[block]")
{
  check_order<fold_test::Mat2, 32, Algorithm::raking>();
  check_order<fold_test::Mat2, 96, Algorithm::raking>();
  check_order<fold_test::Mat2, 256, Algorithm::raking>();
  check_order<fold_test::Mat2, 1024, Algorithm::raking>();
  check_order<fold_test::BoxedMat2, 256, Algorithm::raking>();
}

TEST_CASE("BlockReduce sums exactly with every algorithm", "[block]")
{
  check_sum<std::uint32_t, 32, Algorithm::warp_reductions>();
  check_sum<std::uint32_t, 256, Algorithm::warp_reductions>();
  check_sum<std::uint32_t, 32, Algorithm::raking>();
  check_sum<std::uint32_t, 256, Algorithm::raking>();
  check_sum<std::uint32_t, 32, Algorithm::raking_commutative_only>();
  check_sum<std::uint32_t, 96, Algorithm::raking_commutative_only>();
  check_sum<std::uint32_t, 256, Algorithm::raking_commutative_only>();
  check_sum<std::uint64_t, 1024, Algorithm::raking_commutative_only>();
}
