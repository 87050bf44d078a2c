// SPDX-License-Identifier: Apache-2.0
// Shared test helpers: checked CUDA calls, device buffers, seeded random inputs (never zeros), host references.
#pragma once

#include <fold/util/arch.cuh>
#include <fold/util/type_traits.cuh>

#include <catch2/catch.hpp>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

// REQUIRE that a CUDA call succeeded, naming the call and its error when it did not.
#define CUDA_REQUIRE(expr)                                                                                             \
  do                                                                                                                   \
  {                                                                                                                    \
    const cudaError_t fold_test_status_ = (expr);                                                                      \
    INFO(#expr << " -> " << cudaGetErrorName(fold_test_status_));                                                      \
    REQUIRE(fold_test_status_ == cudaSuccess);                                                                         \
  } while (0)

namespace fold_test
{

using Floats   = std::tuple<float, double, __half, __nv_bfloat16>;
using Integers = std::tuple<std::int8_t,
                            std::uint8_t,
                            std::int16_t,
                            std::uint16_t,
                            std::int32_t,
                            std::uint32_t,
                            std::int64_t,
                            std::uint64_t>;
//! Every type the device tests cover.
using AllTypes = decltype(std::tuple_cat(std::declval<Integers>(), std::declval<Floats>()));

//! A `+` fold is not told is commutative: DeviceReduce takes the order-preserving path for it.
struct OrderedPlus
{
  template <typename T>
  __host__ __device__ T operator()(T a, T b) const
  {
    return a + b;
  }
};

//! A byte pattern written over outputs and temporary storage before each run.
constexpr int poison_byte = 0xA5;

//! An owning device allocation of `size` items (at least one byte is allocated).
template <typename T>
class DeviceBuffer
{
public:
  explicit DeviceBuffer(std::size_t size = 1)
      : size_(size)
  {
    CUDA_REQUIRE(cudaMalloc(&data_, size * sizeof(T) > 0 ? size * sizeof(T) : 1));
  }
  explicit DeviceBuffer(const std::vector<T>& host)
      : DeviceBuffer(host.size())
  {
    CUDA_REQUIRE(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  DeviceBuffer(const DeviceBuffer&)            = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  std::size_t size() const { return size_; }

  //! Fills the buffer with the poison pattern and waits for it: cudaMemset may run asynchronously on the legacy
  //! default stream, which does not order work on non-blocking streams.
  void poison()
  {
    CUDA_REQUIRE(cudaMemset(data_, poison_byte, size_ * sizeof(T)));
    CUDA_REQUIRE(cudaDeviceSynchronize());
  }

  std::vector<T> to_host() const
  {
    std::vector<T> host(size_);
    CUDA_REQUIRE(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  T front() const { return to_host().at(0); }

private:
  T* data_ = nullptr;
  std::size_t size_;
};

//! Runs `call(d_temp_storage, temp_storage_bytes)` the CUB way: a size query, then a run with that much
//! (poisoned) storage on `stream`, then waits for it and checks for asynchronous errors.
template <typename CallT>
void two_call(CallT&& call, cudaStream_t stream = 0)
{
  std::size_t bytes = 0;
  CUDA_REQUIRE(call(nullptr, bytes));
  REQUIRE(bytes > 0);
  DeviceBuffer<unsigned char> temp(bytes);
  temp.poison();
  CUDA_REQUIRE(call(temp.get(), bytes));
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CUDA_REQUIRE(cudaGetLastError());
}

//! splitmix64: a small, fast, seeded generator.
struct Random
{
  std::uint64_t state;
  std::uint64_t next()
  {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z               = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z               = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  //! Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  //! Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi)
  {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
};

template <typename T>
double to_double(const T& x)
{
  if constexpr (fold::is_16bit_float_v<T>)
  {
    return static_cast<double>(static_cast<float>(x));
  }
  else
  {
    return static_cast<double>(x);
  }
}

template <typename T>
T from_double(double x)
{
  if constexpr (fold::is_16bit_float_v<T>)
  {
    return T(static_cast<float>(x));
  }
  else
  {
    return static_cast<T>(x);
  }
}

//! Bitwise equality (for results that must be exact, including floating-point min/max).
template <typename T>
bool same_bits(const T& a, const T& b)
{
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

enum class Values
{
  full_range, //!< integers: any value of the type; floats: uniform in [-1, 1)
  small,      //!< integers 1..4 in every type: sums of up to 2^22 of them are exact even in float
  few,        //!< 16 distinct values, so ties are everywhere (for arg-reductions)
};

//! `n` seeded random items of `T`; never all zeros.
template <typename T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed, Values kind)
{
  Random random{seed};
  std::vector<T> values(n);
  for (auto& v : values)
  {
    switch (kind)
    {
    case Values::small:
      v = from_double<T>(static_cast<double>(random.between(1, 4)));
      break;
    case Values::few:
      v = from_double<T>(static_cast<double>(random.between(1, 16)));
      break;
    case Values::full_range:
      if constexpr (fold::is_floating_v<T>)
      {
        v = from_double<T>(2.0 * random.uniform() - 1.0);
      }
      else
      {
        const std::uint64_t bits = random.next();
        std::memcpy(&v, &bits, sizeof(T));
      }
      break;
    }
  }
  return values;
}

//! The sizes every device algorithm is tested at, for a tile of `tile` items: the edges of a quarter and half tile
//! (shorter tiles'), of the single-tile path, of one and two tiles, and seeded random sizes up to 2^26.
inline std::vector<std::size_t> test_sizes(std::size_t tile, std::uint64_t seed)
{
  Random random{seed};
  return {0,
          1,
          31,
          32,
          33,
          tile / 4 - 1, // an exact reduction's one-tile call of at most 4096 items has a short tile of its own
          tile / 4,
          tile / 4 + 1,
          tile / 2 - 1,
          tile / 2,
          tile / 2 + 1,
          tile - 1,
          tile,
          tile + 1,
          2 * tile - 1,
          2 * tile,
          2 * tile + 1,
          static_cast<std::size_t>(random.between(2 * tile + 2, std::max<std::size_t>(1 << 16, 4 * tile))),
          static_cast<std::size_t>(random.between(1 << 16, 1 << 22)),
          static_cast<std::size_t>(random.between(1 << 22, 1 << 26))};
}

//! The PTX version of this program's image on the current device (as the dispatch sees it).
inline int current_ptx_version()
{
  int device = 0, arch = 0;
  CUDA_REQUIRE(cudaGetDevice(&device));
  CUDA_REQUIRE(fold::detail::ptx_version(device, arch));
  return arch;
}

} // namespace fold_test
