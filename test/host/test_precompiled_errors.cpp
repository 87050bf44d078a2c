// SPDX-License-Identifier: Apache-2.0
// fold::precompiled from plain C++ (no nvcc), without a GPU: bad input is rejected before the device is touched.
#include <fold/precompiled.h>

#include <catch2/catch.hpp>

#include <cstdint>

TEST_CASE("precompiled: bad input returns cudaErrorInvalidValue without touching a device", "[precompiled][errors]")
{
  using fold::precompiled::DeviceReduce;
  void* temp        = reinterpret_cast<void*>(0x1000);
  const float* in   = reinterpret_cast<const float*>(0x2000);
  float* out        = reinterpret_cast<float*>(0x3000);
  std::int64_t* idx = reinterpret_cast<std::int64_t*>(0x4000);
  std::size_t bytes = 1 << 20;

  CHECK(DeviceReduce::Sum<float>(temp, bytes, in, out, -1) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::Min<float>(temp, bytes, nullptr, out, 10) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::Max<float>(temp, bytes, in, nullptr, 10) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::ArgMin<float>(temp, bytes, in, out, nullptr, 10) == cudaErrorInvalidValue);
  CHECK(DeviceReduce::ArgMax<double>(temp, bytes, reinterpret_cast<const double*>(in), nullptr, idx, 10) ==
        cudaErrorInvalidValue);
  std::size_t query = 99;
  CHECK(DeviceReduce::Sum<std::int32_t>(nullptr, query, nullptr, nullptr, -7) == cudaErrorInvalidValue);
  CHECK(query == 99);
}
