// SPDX-License-Identifier: Apache-2.0
// fold::DeviceReduce::Reduce with an operator that is associative but not commutative: the composition of affine
// maps x -> a * x + b over the integers mod 2^32. fold combines the items in index order, so the result is the
// map that applies d_in[0] first and d_in[n - 1] last, the same as a loop on the host.
#include <fold/fold.cuh>

#include "example_check.cuh"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

//! [operator]
// The map x -> a * x + b, unsigned arithmetic: mod 2^32.
struct Affine
{
  std::uint32_t a;
  std::uint32_t b;
};

// Then{}(f, g): f, then g, the map x -> g.a * (f.a * x + f.b) + g.b. Associative but not commutative, so it is
// passed as it is; fold::commutative(op) declares an operator whose operands may be swapped (a faster path).
struct Then
{
  __host__ __device__ Affine operator()(Affine f, Affine g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};
//! [operator]

int main()
{
  if (!example_has_device())
  {
    return example_skipped;
  }

  const int n = 1 << 20;
  std::vector<Affine> h_maps(n);
  std::mt19937 rng(1234);
  Affine expected{1, 0};
  for (Affine& m : h_maps)
  {
    m        = {static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())}; // odd a: every map counts
    expected = Then{}(expected, m);
  }

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  Affine* d_maps = nullptr;
  Affine* d_out  = nullptr;
  CHECK(cudaMallocAsync(&d_maps, n * sizeof(Affine), stream));
  CHECK(cudaMallocAsync(&d_out, sizeof(Affine), stream));
  CHECK(cudaMemcpyAsync(d_maps, h_maps.data(), n * sizeof(Affine), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_out, 0xff, sizeof(Affine), stream)); // poison

  //! [ordered]
  // Then is not declared commutative, so the maps are composed in index order: d_maps[0] first.
  const Affine identity{1, 0}; // x -> x
  size_t bytes = 0;
  CHECK(fold::DeviceReduce::Reduce(nullptr, bytes, d_maps, d_out, n, Then{}, identity, stream));
  void* d_temp = nullptr;
  CHECK(cudaMallocAsync(&d_temp, bytes, stream));
  CHECK(fold::DeviceReduce::Reduce(d_temp, bytes, d_maps, d_out, n, Then{}, identity, stream));
  //! [ordered]

  Affine composed{};
  CHECK(cudaMemcpyAsync(&composed, d_out, sizeof(Affine), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaFreeAsync(d_temp, stream));
  CHECK(cudaFreeAsync(d_out, stream));
  CHECK(cudaFreeAsync(d_maps, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));

  if (composed.a != expected.a || composed.b != expected.b)
  {
    std::fprintf(
        stderr, "ordered: fold gave (%u, %u), the host (%u, %u)\n", composed.a, composed.b, expected.a, expected.b);
    return 1;
  }
  std::printf("composition of %d affine maps: x -> %u * x + %u\n", n, composed.a, composed.b);
  return 0;
}
