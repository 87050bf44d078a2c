// SPDX-License-Identifier: Apache-2.0
// Stream order, graph capture, temporary-storage sizes on a real device, and bad input on a real device (an
// error before any launch, the output left untouched).
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace
{
//! A stream that is destroyed with the test.
struct Stream
{
  cudaStream_t handle = nullptr;
  Stream() { CUDA_REQUIRE(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(handle); }
};

std::uint32_t host_sum(const std::vector<std::uint32_t>& values)
{
  std::uint32_t sum = 0;
  for (auto v : values)
  {
    sum += v;
  }
  return sum;
}
} // namespace

TEST_CASE("A call runs in order on the given stream", "[device][stream]")
{
  Stream stream;
  for (std::size_t n : {std::size_t{1000}, std::size_t{1} << 24})
  {
    INFO("n " << n);
    const auto values = fold_test::random_values<std::uint32_t>(n, n, fold_test::Values::full_range);
    fold_test::DeviceBuffer<std::uint32_t> d_in(n);
    fold_test::DeviceBuffer<std::uint32_t> d_out(1);
    std::uint32_t result = 0;
    // Upload, reduce and download all queued on one non-blocking stream, with only the final wait: the
    // reduction must run after the upload and before the download.
    CUDA_REQUIRE(cudaMemsetAsync(d_out.get(), fold_test::poison_byte, sizeof(std::uint32_t), stream.handle));
    CUDA_REQUIRE(
        cudaMemcpyAsync(d_in.get(), values.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream.handle));
    fold_test::two_call([&](void* temp, std::size_t& bytes)
                        { return fold::DeviceReduce::Sum(temp, bytes, d_in.get(), d_out.get(), n, stream.handle); },
                        stream.handle);
    CUDA_REQUIRE(cudaMemcpyAsync(&result, d_out.get(), sizeof(result), cudaMemcpyDeviceToHost, stream.handle));
    CUDA_REQUIRE(cudaStreamSynchronize(stream.handle));
    CHECK(result == host_sum(values));
  }
}

TEST_CASE("Calls can be captured into a CUDA graph and replayed", "[device][graph]")
{
  Stream stream;
  for (std::size_t n : {std::size_t{100}, std::size_t{1} << 22})
  {
    INFO("n " << n);
    const auto values = fold_test::random_values<std::uint32_t>(n, 2 * n, fold_test::Values::full_range);
    fold_test::DeviceBuffer<std::uint32_t> d_in(values);
    fold_test::DeviceBuffer<std::uint32_t> d_out(1);
    std::size_t bytes = 0;
    CUDA_REQUIRE(fold::DeviceReduce::Sum(nullptr, bytes, d_in.get(), d_out.get(), n, stream.handle));
    fold_test::DeviceBuffer<unsigned char> d_temp(bytes);
    d_temp.poison(); // initialised, for initcheck (docs/errors.md, "Sanitizers")

    // Global capture mode: any call that is not capture-safe, or any work sent to another stream (the legacy
    // default stream included), fails the capture.
    cudaGraph_t graph = nullptr;
    CUDA_REQUIRE(cudaStreamBeginCapture(stream.handle, cudaStreamCaptureModeGlobal));
    const cudaError_t status = fold::DeviceReduce::Sum(d_temp.get(), bytes, d_in.get(), d_out.get(), n, stream.handle);
    CUDA_REQUIRE(cudaStreamEndCapture(stream.handle, &graph));
    CUDA_REQUIRE(status);

    // Only kernels (no memset node): one for a single tile or a single pass, two for two passes.
    const auto types = fold_test::graph_node_types(graph);
    CHECK((types.size() == 1 || types.size() == 2));
    CHECK(std::count(types.begin(), types.end(), cudaGraphNodeTypeKernel) == static_cast<long>(types.size()));

    cudaGraphExec_t exec = nullptr;
    CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 20; ++replay)
    {
      d_out.poison();
      CUDA_REQUIRE(cudaGraphLaunch(exec, stream.handle));
      CUDA_REQUIRE(cudaStreamSynchronize(stream.handle));
      REQUIRE(d_out.front() == host_sum(values));
    }
    CUDA_REQUIRE(cudaGraphExecDestroy(exec));
    CUDA_REQUIRE(cudaGraphDestroy(graph));
  }
}

TEST_CASE("A first call made during capture (cold caches) is capture-safe", "[device][graph]")
{
  Stream stream;
  // A type no other test here uses, so its kernel's occupancy is read for the first time inside the capture.
  const std::size_t n = 1 << 20;
  const auto values   = fold_test::random_values<std::uint16_t>(n, 4, fold_test::Values::full_range);
  fold_test::DeviceBuffer<std::uint16_t> d_in(values);
  fold_test::DeviceBuffer<std::uint16_t> d_out(1);
  fold_test::DeviceBuffer<unsigned char> d_temp(1 << 20);
  d_temp.poison(); // initialised, for initcheck (docs/errors.md, "Sanitizers")
  std::size_t bytes = 1 << 20;
  cudaGraph_t graph = nullptr;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream.handle, cudaStreamCaptureModeGlobal));
  const cudaError_t status = fold::DeviceReduce::Max(d_temp.get(), bytes, d_in.get(), d_out.get(), n, stream.handle);
  CUDA_REQUIRE(cudaStreamEndCapture(stream.handle, &graph));
  CUDA_REQUIRE(status);
  cudaGraphExec_t exec = nullptr;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  d_out.poison();
  CUDA_REQUIRE(cudaGraphLaunch(exec, stream.handle));
  CUDA_REQUIRE(cudaStreamSynchronize(stream.handle));
  CHECK(d_out.front() == *std::max_element(values.begin(), values.end()));
  CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  CUDA_REQUIRE(cudaGraphDestroy(graph));
}

TEST_CASE("Temporary storage depends only on num_items and never shrinks", "[device][temp_storage]")
{
  const float* in      = nullptr;
  float* out           = nullptr;
  std::size_t previous = 0;
  for (std::uint64_t n = 0; n < (1ull << 36); n = n * 5 / 4 + 1)
  {
    std::size_t bytes = 0, again = 0;
    CUDA_REQUIRE(fold::DeviceReduce::Sum(nullptr, bytes, in, out, n));
    CUDA_REQUIRE(fold::DeviceReduce::Sum(nullptr, again, in, out, n));
    INFO("n " << n);
    REQUIRE(bytes == again);
    REQUIRE(bytes > 0);
    REQUIRE(bytes >= previous);
    previous = bytes;
  }
}

TEST_CASE("Bad input on a device: an error, nothing launched, the output untouched", "[device][errors]")
{
  const std::size_t n = 1 << 20;
  const auto values   = fold_test::random_values<float>(n, 8, fold_test::Values::full_range);
  fold_test::DeviceBuffer<float> d_in(values);
  fold_test::DeviceBuffer<float> d_out(1);
  fold_test::DeviceBuffer<std::int64_t> d_index(1);
  std::size_t bytes = 0;
  CUDA_REQUIRE(fold::DeviceReduce::ArgMin(nullptr, bytes, d_in.get(), d_out.get(), d_index.get(), n));
  fold_test::DeviceBuffer<unsigned char> d_temp(bytes);
  d_temp.poison(); // initialised, for initcheck (docs/errors.md, "Sanitizers")
  const std::vector<unsigned char> poisoned(sizeof(float), fold_test::poison_byte);
  d_out.poison();
  d_index.poison();

  std::size_t too_small = bytes - 1;
  CHECK(fold::DeviceReduce::ArgMin(d_temp.get(), too_small, d_in.get(), d_out.get(), d_index.get(), n) ==
        cudaErrorInvalidValue);
  std::size_t sum_bytes = 0; // each algorithm's own size: Sum's partials are smaller than ArgMin's
  CUDA_REQUIRE(fold::DeviceReduce::Sum(nullptr, sum_bytes, d_in.get(), d_out.get(), n));
  std::size_t sum_too_small = sum_bytes - 1;
  CHECK(fold::DeviceReduce::Sum(d_temp.get(), sum_too_small, d_in.get(), d_out.get(), n) == cudaErrorInvalidValue);
  const float* null_in = nullptr;
  CHECK(fold::DeviceReduce::Sum(d_temp.get(), bytes, null_in, d_out.get(), n) == cudaErrorInvalidValue);
  CHECK(fold::DeviceReduce::Sum(d_temp.get(), bytes, d_in.get(), d_out.get(), -1) == cudaErrorInvalidValue);

  CUDA_REQUIRE(cudaDeviceSynchronize());
  CUDA_REQUIRE(cudaGetLastError());
  const float out = d_out.front();
  CHECK(std::memcmp(&out, poisoned.data(), sizeof(float)) == 0);
  const std::int64_t index = d_index.front();
  CHECK(std::memcmp(&index, std::vector<unsigned char>(8, fold_test::poison_byte).data(), 8) == 0);
}
