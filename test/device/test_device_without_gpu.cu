// SPDX-License-Identifier: Apache-2.0
// No CUDA device at all: every entry point returns the runtime's error (cudaErrorNoDevice, or
// cudaErrorInsufficientDriver where no driver is installed), does not crash, and writes nothing. A host test: it
// hides the devices itself (CUDA_VISIBLE_DEVICES="" before the runtime starts; ctest sets it as well), so it runs
// on the CI machine, which has no GPU, and on the GPU machine alike.
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>

#include <catch2/catch.hpp>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <vector>

namespace
{
// Before main, so before the CUDA runtime initialises.
const bool devices_hidden = setenv("CUDA_VISIBLE_DEVICES", "", 1) == 0;

using Call = std::function<cudaError_t(void*, std::size_t&)>;

//! Associative and not declared commutative: fold keeps its operands' order.
struct FirstOf
{
  __host__ __device__ float operator()(float a, float) const { return a; }
};

//! The same over double: 8-byte results, whose storage reaches 2^64 bytes first.
struct FirstOfDouble
{
  __host__ __device__ double operator()(double a, double) const { return a; }
};

bool no_device_error(cudaError_t error)
{
  return error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver;
}

//! A size query and a run with (fake, never dereferenced) storage: both fail with a no-device error, the query
//! leaves `temp_storage_bytes` alone, and the host memory given as the output keeps its values.
void expect_no_device(const char* name, const Call& call, const std::vector<float>& out, bool query_needs_device = true)
{
  INFO(name);
  std::size_t bytes       = 4242;
  const cudaError_t query = call(nullptr, bytes);
  INFO("query: " << cudaGetErrorName(query));
  if (query_needs_device)
  {
    CHECK(no_device_error(query));
    CHECK(bytes == 4242);
  }
  else
  {
    CHECK(query == cudaSuccess); // the size does not depend on the device
  }
  bytes                 = std::size_t{1} << 30;
  const cudaError_t run = call(reinterpret_cast<void*>(0x10000), bytes);
  INFO("run: " << cudaGetErrorName(run));
  CHECK(no_device_error(run));
  CHECK(std::all_of(out.begin(), out.end(), [](float x) { return x == -7.0f; }));
}
} // namespace

TEST_CASE("Without a device every call returns the runtime's no-device error and writes nothing",
          "[device][errors][no-device]")
{
  REQUIRE(devices_hidden);
  int devices             = -1;
  const cudaError_t count = cudaGetDeviceCount(&devices);
  INFO("cudaGetDeviceCount: " << cudaGetErrorName(count) << ", " << devices << " devices");
  REQUIRE((count != cudaSuccess || devices == 0)); // run with CUDA_VISIBLE_DEVICES="", as ctest does

  // Host memory as the "device" pointers: nothing may touch them.
  std::vector<float> in(1 << 20, 1.0f), out(1 << 20, -7.0f);
  std::vector<int> offsets = {0, 10, 1000, 1 << 20};
  std::int64_t index       = -7;
  const float* d_in        = in.data();
  float* d_out             = out.data();

  for (std::int64_t n : {std::int64_t{10}, std::int64_t{1} << 20})
  {
    expect_no_device(
        "Sum", [&](void* t, std::size_t& b) { return fold::DeviceReduce::Sum(t, b, d_in, d_out, n); }, out);
    expect_no_device(
        "Min", [&](void* t, std::size_t& b) { return fold::DeviceReduce::Min(t, b, d_in, d_out, n); }, out);
    expect_no_device(
        "ArgMax",
        [&](void* t, std::size_t& b) { return fold::DeviceReduce::ArgMax(t, b, d_in, d_out, &index, n); },
        out);
    CHECK(index == -7);
  }
  expect_no_device(
      "DeviceSegmentedReduce::Sum",
      [&](void* t, std::size_t& b)
      { return fold::DeviceSegmentedReduce::Sum(t, b, d_in, d_out, 3, offsets.data(), offsets.data() + 1); },
      out);
  expect_no_device(
      "DeviceSegmentedReduce::Max (fixed size)",
      [&](void* t, std::size_t& b) { return fold::DeviceSegmentedReduce::Max(t, b, d_in, d_out, 1024, 1024); },
      out);
  expect_no_device(
      "DeviceReduceAxes::Sum (last axis)",
      [&](void* t, std::size_t& b) {
        return fold::DeviceReduceAxes::Sum(t, b, d_in, d_out, {1024, 1024}, {1});
      },
      out);
  // A float sum over the first axis takes the tree the architecture's tiles give a row of 1024 items: the query
  // needs the device too.
  expect_no_device(
      "DeviceReduceAxes::Sum (first axis)",
      [&](void* t, std::size_t& b) {
        return fold::DeviceReduceAxes::Sum(t, b, d_in, d_out, {1024, 1024}, {0});
      },
      out);
  // So do exact ones over 4-byte items (integer sums, Min, Max: the same trees). Max over half takes
  // HigherDimKernel's units instead (two columns a word), sized by the shape alone: the query succeeds, the run fails.
  expect_no_device(
      "DeviceReduceAxes::Max over half (first axis)",
      [&](void* t, std::size_t& b)
      {
        return fold::DeviceReduceAxes::Max(
            t, b, reinterpret_cast<const __half*>(d_in), reinterpret_cast<__half*>(d_out), {1024, 1024}, {0});
      },
      out,
      /*query_needs_device=*/false);
  // An order-preserving operator over the first axis: units of rows and two buffers, sized by the shape alone; the
  // query succeeds, the run fails.
  expect_no_device(
      "DeviceReduceAxes::Reduce, an order-preserving operator (first axis)",
      [&](void* t, std::size_t& b) {
        return fold::DeviceReduceAxes::Reduce(t, b, d_in, d_out, {1024, 1024}, {0}, FirstOf{}, -1.0f);
      },
      out,
      /*query_needs_device=*/false);
}

TEST_CASE("DeviceReduceAxes refuses a shape whose output count or storage would overflow, before it needs a device",
          "[device][axes][errors][no-device]")
{
  REQUIRE(devices_hidden);
  const std::int64_t big = std::int64_t{1} << 59;
  std::size_t bytes      = 4242;
  // An order-preserving operator over axes 0 and 2 of [2, 2^59, 3, 2] (an iterator's 12 * 2^59 items): its first
  // step's results number 2^61 or more, 2^64 bytes and more as doubles, which wrapped around to a small size that
  // the run then wrote past. Refused; the query leaves the size alone. The same shape with 2^20 in place of 2^59
  // gets a size, with no device: the query is sized by the shape alone.
  const auto query = [&](std::int64_t middle)
  {
    return fold::DeviceReduceAxes::Reduce(nullptr,
                                          bytes,
                                          static_cast<const double*>(nullptr),
                                          static_cast<double*>(nullptr),
                                          {2, middle, 3, 2},
                                          {0, 2},
                                          FirstOfDouble{},
                                          0.0);
  };
  CHECK(query(big) == cudaErrorInvalidValue);
  CHECK(bytes == 4242);
  CHECK(query(std::int64_t{1} << 20) == cudaSuccess);
  CHECK(bytes >= (std::size_t{1} << 20) * 4 * sizeof(double));
  // A zero extent makes no item, but the kept extents still count the outputs: 2^64 of them (wrapped to 0 before,
  // so the call "succeeded" with nothing written) and 2^64 + 4 (wrapped to 4). Refused, as runs and as queries.
  for (const std::int64_t first : {std::int64_t{1} << 62, (std::int64_t{1} << 62) + 1})
  {
    INFO("[" << first << ", 4, 0] over axis 2");
    float out = -7.0f;
    bytes     = 4242;
    CHECK(fold::DeviceReduceAxes::Sum(nullptr, bytes, &out, &out, {first, 4, 0}, {2}) == cudaErrorInvalidValue);
    CHECK(bytes == 4242);
    bytes = std::size_t{1} << 30;
    CHECK(fold::DeviceReduceAxes::Sum(reinterpret_cast<void*>(0x10000), bytes, &out, &out, {first, 4, 0}, {2}) ==
          cudaErrorInvalidValue);
    CHECK(out == -7.0f);
  }
}

TEST_CASE("A one-call form checks the run's pointers before it allocates, so without a device a null output is "
          "still cudaErrorInvalidValue",
          "[device][one_call][errors][no-device]")
{
  REQUIRE(devices_hidden);
  // An order-preserving operator over the first axis: the size query needs no device (see above), so the one-call
  // form reaches its check of the pointers, which comes before the allocation that would need the device.
  std::vector<float> in(1024 * 1024, 1.0f), out(1024, -7.0f);
  CHECK(fold::DeviceReduceAxes::Reduce(in.data(), static_cast<float*>(nullptr), {1024, 1024}, {0}, FirstOf{}, -1.0f) ==
        cudaErrorInvalidValue);
  // With an output, the allocation (or the run) meets the missing device.
  const cudaError_t error = fold::DeviceReduceAxes::Reduce(in.data(), out.data(), {1024, 1024}, {0}, FirstOf{}, -1.0f);
  INFO(cudaGetErrorName(error));
  CHECK(no_device_error(error));
  CHECK(std::all_of(out.begin(), out.end(), [](float x) { return x == -7.0f; }));
}
