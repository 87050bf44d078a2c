// SPDX-License-Identifier: Apache-2.0
// The checks each translation unit of the two-architecture program runs with its own fold: the same template
// specializations in both, which without fold's ABI namespace would be one symbol, and so one host plan and one
// set of kernels, for both.
#pragma once

#include "two_architectures.h"

#include <fold/fold.cuh>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace
{

#define UNIT_CHECK(call)                                                                                               \
  do                                                                                                                   \
  {                                                                                                                    \
    const cudaError_t status_ = (call);                                                                                \
    if (status_ != cudaSuccess)                                                                                        \
    {                                                                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(status_));                   \
      return {0, 1};                                                                                                   \
    }                                                                                                                  \
  } while (0)

template <typename CallT>
cudaError_t two_calls(CallT call, cudaStream_t stream)
{
  std::size_t bytes = 0;
  if (const cudaError_t error = call(nullptr, bytes); error != cudaSuccess)
  {
    return error;
  }
  void* temp = nullptr;
  if (const cudaError_t error = cudaMallocAsync(&temp, bytes, stream); error != cudaSuccess)
  {
    return error;
  }
  const cudaError_t error = call(temp, bytes);
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  return error != cudaSuccess ? error : freed;
}

UnitReport run_checks(const char* unit)
{
  constexpr int n = 3'000'017, rows = 1000, cols = n / rows;
  std::mt19937 rng(2024);
  std::uniform_int_distribution<int> small(-1000, 1000);
  std::vector<int> values(n);
  for (int& v : values)
  {
    v = small(rng);
  }
  std::vector<float> floats(n);
  for (int i = 0; i < n; ++i)
  {
    // In 64 bits: i * 7919 passes 2^31 (an int here overflowed, and the program crashed now and then).
    floats[i] = static_cast<float>(values[static_cast<std::int64_t>(i) * 7919 % n]) * 0.25f;
  }

  cudaStream_t stream{};
  UNIT_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int *d_values = nullptr, *d_out = nullptr;
  float *d_floats = nullptr, *d_max = nullptr;
  std::int64_t* d_index = nullptr;
  UNIT_CHECK(cudaMalloc(&d_values, n * sizeof(int)));
  UNIT_CHECK(cudaMalloc(&d_floats, n * sizeof(float)));
  UNIT_CHECK(cudaMalloc(&d_out, (2 + rows + cols) * sizeof(int)));
  UNIT_CHECK(cudaMalloc(&d_max, sizeof(float)));
  UNIT_CHECK(cudaMalloc(&d_index, sizeof(std::int64_t)));
  UNIT_CHECK(cudaMemcpy(d_values, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  UNIT_CHECK(cudaMemcpy(d_floats, floats.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  UNIT_CHECK(cudaMemset(d_out, 0xff, (2 + rows + cols) * sizeof(int)));

  using fold::DeviceReduce;
  const std::int64_t count = n;
  UNIT_CHECK(two_calls([&](void* t, std::size_t& b) { return DeviceReduce::Sum(t, b, d_values, d_out, count, stream); },
                       stream));
  UNIT_CHECK(two_calls(
      [&](void* t, std::size_t& b) { return DeviceReduce::Min(t, b, d_values, d_out + 1, count, stream); }, stream));
  UNIT_CHECK(two_calls([&](void* t, std::size_t& b)
                       { return DeviceReduce::ArgMax(t, b, d_floats, d_max, d_index, count, stream); },
                       stream));
  UNIT_CHECK(two_calls(
      [&](void* t, std::size_t& b)
      { return fold::DeviceSegmentedReduce::Sum(t, b, d_values, d_out + 2, rows, std::int64_t{cols}, stream); },
      stream));
  UNIT_CHECK(two_calls(
      [&](void* t, std::size_t& b) {
        return fold::DeviceReduceAxes::Sum(t, b, d_values, d_out + 2 + rows, {rows, cols}, {0}, stream);
      },
      stream));
  UNIT_CHECK(cudaStreamSynchronize(stream));

  std::vector<int> out(2 + rows + cols);
  float max_value        = 0;
  std::int64_t max_index = 0;
  UNIT_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  UNIT_CHECK(cudaMemcpy(&max_value, d_max, sizeof(float), cudaMemcpyDeviceToHost));
  UNIT_CHECK(cudaMemcpy(&max_index, d_index, sizeof(std::int64_t), cudaMemcpyDeviceToHost));

  long long sum          = 0;
  int min                = values[0];
  std::int64_t first_max = 0;
  std::vector<long long> row_sums(rows, 0), col_sums(cols, 0);
  for (int i = 0; i < n; ++i)
  {
    sum += values[i];
    min       = values[i] < min ? values[i] : min;
    first_max = floats[i] > floats[first_max] ? i : first_max;
    if (i < rows * cols)
    {
      row_sums[i / cols] += values[i];
      col_sums[i % cols] += values[i];
    }
  }
  int failures = 0;
  auto expect  = [&](bool ok, const char* what, long long got, long long want)
  {
    if (!ok)
    {
      std::fprintf(stderr, "unit %s: %s: %lld, expected %lld\n", unit, what, got, want);
      ++failures;
    }
  };
  expect(out[0] == static_cast<int>(sum), "Sum", out[0], sum);
  expect(out[1] == min, "Min", out[1], min);
  expect(max_index == first_max && max_value == floats[first_max], "ArgMax index", max_index, first_max);
  for (int r = 0; r < rows; ++r)
  {
    expect(out[2 + r] == static_cast<int>(row_sums[r]), "segmented Sum", out[2 + r], row_sums[r]);
  }
  for (int c = 0; c < cols; ++c)
  {
    expect(out[2 + rows + c] == static_cast<int>(col_sums[c]), "axes Sum", out[2 + rows + c], col_sums[c]);
  }

  int device = 0, arch = 0;
  UNIT_CHECK(cudaGetDevice(&device));
  UNIT_CHECK(fold::detail::ptx_version(device, arch));
  UNIT_CHECK(cudaFree(d_values));
  UNIT_CHECK(cudaFree(d_floats));
  UNIT_CHECK(cudaFree(d_out));
  UNIT_CHECK(cudaFree(d_max));
  UNIT_CHECK(cudaFree(d_index));
  UNIT_CHECK(cudaStreamDestroy(stream));
  return {arch, failures};
}

} // namespace
