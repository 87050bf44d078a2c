// SPDX-License-Identifier: Apache-2.0
// WarpReduce: every logical warp width, full and partial warps, shuffled and shared-memory types, and a
// non-commutative operator against a sequential host fold; `detail::reduce_rows_in_order` the same way.
#include <fold/util/operators.cuh>
#include <fold/warp/warp_reduce.cuh>

#include "ops_util.cuh"
#include "test_util.cuh"

#include <cstdint>
#include <vector>

namespace
{
constexpr int block_threads = 64; // two hardware warps

template <typename T, int LogicalWarpThreads, typename ReductionOpT>
__global__ void warp_reduce_kernel(const T* in, T* out, int num_valid, ReductionOpT op)
{
  using WarpReduceT = fold::WarpReduce<T, LogicalWarpThreads>;
  __shared__ typename WarpReduceT::TempStorage storage[block_threads / LogicalWarpThreads];
  const int logical_warp = static_cast<int>(threadIdx.x) / LogicalWarpThreads;
  const T result         = WarpReduceT(storage[logical_warp]).Reduce(in[threadIdx.x], op, num_valid);
  if (threadIdx.x % LogicalWarpThreads == 0)
  {
    out[logical_warp] = result;
  }
}

template <typename T, int LogicalWarpThreads>
void check_matrix_products()
{
  INFO("logical warp " << LogicalWarpThreads << ", " << (fold::is_shuffleable_v<T> ? "shuffles" : "shared memory"));
  constexpr int warps = block_threads / LogicalWarpThreads;
  for (int num_valid = 1; num_valid <= LogicalWarpThreads; ++num_valid)
  {
    INFO("num_valid " << num_valid);
    // Lanes past num_valid hold random matrices too: reading any of them would change the product.
    const auto matrices = fold_test::random_matrices(block_threads, 100 + num_valid);
    std::vector<T> input(matrices.begin(), matrices.end());
    fold_test::DeviceBuffer<T> d_in(input);
    fold_test::DeviceBuffer<T> d_out(warps);
    d_out.poison();
    warp_reduce_kernel<T, LogicalWarpThreads>
        <<<1, block_threads>>>(d_in.get(), d_out.get(), num_valid, fold_test::MatMul{});
    CUDA_REQUIRE(cudaGetLastError());
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto out = d_out.to_host();
    for (int w = 0; w < warps; ++w)
    {
      const std::size_t first = static_cast<std::size_t>(w) * LogicalWarpThreads;
      REQUIRE(fold_test::as_matrix(out[w]) == fold_test::sequential_product(matrices, first, first + num_valid));
    }
  }
}

//! Warp `w`'s lane `t` holds row `r`'s value `in[(w * Rows + r) * 32 + t]`.
template <int Rows, typename T, typename ReductionOpT>
__global__ void rows_kernel(const T* in, T* out, ReductionOpT op)
{
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  T rows[Rows];
  for (int r = 0; r < Rows; ++r)
  {
    rows[r] = in[(warp * Rows + r) * 32 + lane];
  }
  const T result = fold::detail::reduce_rows_in_order(rows, op);
  if (lane == 0)
  {
    out[warp] = result;
  }
}

template <int Rows>
void check_rows_in_order()
{
  INFO(Rows << " rows");
  constexpr int warps = block_threads / 32;
  const auto matrices = fold_test::random_matrices(block_threads * Rows, 300 + Rows);
  std::vector<fold_test::Mat2> input(matrices.begin(), matrices.end());
  fold_test::DeviceBuffer<fold_test::Mat2> d_in(input);
  fold_test::DeviceBuffer<fold_test::Mat2> d_out(warps);
  d_out.poison();
  rows_kernel<Rows><<<1, block_threads>>>(d_in.get(), d_out.get(), fold_test::MatMul{});
  CUDA_REQUIRE(cudaGetLastError());
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto out = d_out.to_host();
  for (int w = 0; w < warps; ++w)
  {
    const std::size_t first = static_cast<std::size_t>(w) * 32 * Rows;
    REQUIRE(fold_test::as_matrix(out[w]) == fold_test::sequential_product(matrices, first, first + 32 * Rows));
  }
}

template <typename T>
void check_matrix_products_every_width()
{
  check_matrix_products<T, 1>();
  check_matrix_products<T, 2>();
  check_matrix_products<T, 4>();
  check_matrix_products<T, 8>();
  check_matrix_products<T, 16>();
  check_matrix_products<T, 32>();
}
} // namespace

TEST_CASE("WarpReduce keeps lane order with shuffles (non-commutative operator)", "[warp]")
{
  check_matrix_products_every_width<fold_test::Mat2>();
}

TEST_CASE("reduce_rows_in_order keeps lane order in each row and row order (non-commutative operator)", "[warp]")
{
  check_rows_in_order<2>();
  check_rows_in_order<4>();
  check_rows_in_order<8>();
  check_rows_in_order<32>();
}

TEST_CASE("WarpReduce keeps lane order through shared memory for types that cannot be shuffled", "[warp]")
{
  check_matrix_products_every_width<fold_test::BoxedMat2>();
}

TEMPLATE_TEST_CASE("WarpReduce sums exactly", "[warp]", std::int32_t, std::uint64_t, std::int8_t)
{
  using T           = TestType;
  const auto values = fold_test::random_values<T>(block_threads, 5, fold_test::Values::full_range);
  fold_test::DeviceBuffer<T> d_in(values);
  fold_test::DeviceBuffer<T> d_out(block_threads / 32);
  for (int num_valid : {1, 7, 31, 32})
  {
    d_out.poison();
    warp_reduce_kernel<T, 32><<<1, block_threads>>>(d_in.get(), d_out.get(), num_valid, fold::Sum{});
    CUDA_REQUIRE(cudaGetLastError());
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto out = d_out.to_host();
    for (int w = 0; w < block_threads / 32; ++w)
    {
      std::uint64_t expected = 0;
      for (int i = 0; i < num_valid; ++i)
      {
        expected += static_cast<std::uint64_t>(values[w * 32 + i]);
      }
      INFO("warp " << w << ", num_valid " << num_valid);
      REQUIRE(out[w] == static_cast<T>(expected));
    }
  }
}
