// SPDX-License-Identifier: Apache-2.0
// fold::precompiled from plain C++ (no nvcc, no CUDA templates): every algorithm and type it exports, on a GPU,
// against a host reference.
#include <fold/precompiled.h>

#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#define CUDA_REQUIRE(expr)                                                                                             \
  do                                                                                                                   \
  {                                                                                                                    \
    const cudaError_t status_ = (expr);                                                                                \
    INFO(#expr << " -> " << cudaGetErrorName(status_));                                                                \
    REQUIRE(status_ == cudaSuccess);                                                                                   \
  } while (0)

namespace
{
using fold::precompiled::DeviceReduce;

template <typename T>
double as_double(T x)
{
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
  {
    return static_cast<float>(x);
  }
  else
  {
    return static_cast<double>(x);
  }
}

template <typename T>
T make(int x)
{
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>)
  {
    return T(static_cast<float>(x));
  }
  else
  {
    return static_cast<T>(x);
  }
}

template <typename T>
struct Device
{
  T* ptr = nullptr;
  explicit Device(std::size_t n) { CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&ptr), n * sizeof(T))); }
  ~Device() { cudaFree(ptr); }
  T get() const
  {
    T value;
    CUDA_REQUIRE(cudaMemcpy(&value, ptr, sizeof(T), cudaMemcpyDeviceToHost));
    return value;
  }
};

template <typename CallT>
void run(CallT call)
{
  std::size_t bytes = 0;
  CUDA_REQUIRE(call(nullptr, bytes));
  Device<unsigned char> temp(bytes);
  CUDA_REQUIRE(call(temp.ptr, bytes));
  CUDA_REQUIRE(cudaDeviceSynchronize());
}

using Types =
    std::tuple<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double, __half, __nv_bfloat16>;
} // namespace

TEMPLATE_LIST_TEST_CASE("precompiled algorithms match a host reference", "[precompiled]", Types)
{
  using T = TestType;
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1000}, std::int64_t{3'000'001}})
  {
    INFO("n " << n);
    // Small positive integers: every sum here is exact in the accumulator, so results compare exactly.
    std::mt19937_64 random(static_cast<std::uint64_t>(n) + sizeof(T));
    std::vector<T> values(static_cast<std::size_t>(n));
    double sum = 0;
    for (auto& v : values)
    {
      const int x = 1 + static_cast<int>(random() % 3);
      v           = make<T>(x);
      sum += x;
    }
    Device<T> d_in(values.size() + 1);
    CUDA_REQUIRE(cudaMemcpy(d_in.ptr, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
    Device<T> d_out(1);
    Device<std::int64_t> d_index(1);

    run([&](void* t, std::size_t& b) { return DeviceReduce::Sum<T>(t, b, d_in.ptr, d_out.ptr, n); });
    // The exact sum converted once to T (16-bit floats accumulate in float, exact here: at most 9M < 2^24).
    CHECK(as_double(d_out.get()) == as_double(make<T>(static_cast<int>(sum))));
    if (n == 0)
    {
      continue;
    }
    const auto min =
        std::min_element(values.begin(), values.end(), [](T a, T b) { return as_double(a) < as_double(b); });
    const auto max =
        std::max_element(values.begin(), values.end(), [](T a, T b) { return as_double(a) < as_double(b); });
    run([&](void* t, std::size_t& b) { return DeviceReduce::Min<T>(t, b, d_in.ptr, d_out.ptr, n); });
    CHECK(as_double(d_out.get()) == as_double(*min));
    run([&](void* t, std::size_t& b) { return DeviceReduce::Max<T>(t, b, d_in.ptr, d_out.ptr, n); });
    CHECK(as_double(d_out.get()) == as_double(*max));
    run([&](void* t, std::size_t& b) { return DeviceReduce::ArgMin<T>(t, b, d_in.ptr, d_out.ptr, d_index.ptr, n); });
    CHECK(as_double(d_out.get()) == as_double(*min));
    CHECK(d_index.get() == min - values.begin());
    run([&](void* t, std::size_t& b) { return DeviceReduce::ArgMax<T>(t, b, d_in.ptr, d_out.ptr, d_index.ptr, n); });
    CHECK(as_double(d_out.get()) == as_double(*max));
    CHECK(d_index.get() == max - values.begin());
  }
}
