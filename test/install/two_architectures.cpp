// SPDX-License-Identifier: Apache-2.0
// Plain C++. Runs the two translation units' checks and fold::precompiled in one process, and checks that each
// unit ran under the architecture it compiled for: unit a for ARCH_A only (its PTX, compiled just in time on a
// newer GPU), unit b for the build's list. Exits 77 (skipped) without a CUDA device.
#include "two_architectures.h"

#include <fold/precompiled.h>

#include <cuda_runtime.h> // the typed cudaMalloc overloads

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace
{
//! The architecture (`__CUDA_ARCH__` spelling) a unit compiled for `list` (e.g. "80;90") runs on `device_arch`:
//! the highest listed one not above the device's.
int expected_arch(const char* list, int device_arch)
{
  int best = 0, value = 0;
  for (const char* p = list;; ++p)
  {
    if (*p >= '0' && *p <= '9')
    {
      value = value * 10 + (*p - '0');
      continue;
    }
    if (value * 10 <= device_arch && value * 10 > best)
    {
      best = value * 10;
    }
    value = 0;
    if (*p == '\0')
    {
      return best;
    }
  }
}

int check_precompiled()
{
  constexpr int n = 1 << 20;
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i)
  {
    values[i] = static_cast<float>((i * 37) % 1001) - 500.0f;
  }
  values[777'777] = 1000.0f;
  float *d_in = nullptr, *d_max = nullptr;
  std::int64_t* d_index = nullptr;
  if (cudaMalloc(&d_in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&d_max, sizeof(float)) != cudaSuccess ||
      cudaMalloc(&d_index, sizeof(std::int64_t)) != cudaSuccess ||
      cudaMemcpy(d_in, values.data(), n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
  {
    std::fprintf(stderr, "precompiled: set-up failed\n");
    return 1;
  }
  std::size_t bytes  = 0;
  void* temp         = nullptr;
  float max          = 0;
  std::int64_t index = 0;
  using fold::precompiled::DeviceReduce;
  if (DeviceReduce::ArgMax(nullptr, bytes, d_in, d_max, d_index, n) != cudaSuccess ||
      cudaMalloc(&temp, bytes) != cudaSuccess ||
      DeviceReduce::ArgMax(temp, bytes, d_in, d_max, d_index, n) != cudaSuccess ||
      cudaMemcpy(&max, d_max, sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(&index, d_index, sizeof(index), cudaMemcpyDeviceToHost) != cudaSuccess)
  {
    std::fprintf(stderr, "precompiled ArgMax failed\n");
    return 1;
  }
  cudaFree(temp);
  cudaFree(d_in);
  cudaFree(d_max);
  cudaFree(d_index);
  if (max != 1000.0f || index != 777'777)
  {
    std::fprintf(
        stderr, "precompiled ArgMax: %g at %lld, expected 1000 at 777777\n", max, static_cast<long long>(index));
    return 1;
  }
  return 0;
}
//! Whether the shared CUDA runtime is loaded. This program links the static one (CMake's default for CUDA code,
//! which fold::precompiled links too); a second, shared runtime beside it made the program crash at exit now and
//! then, when fold's targets named CUDA::cudart.
bool shared_runtime_loaded()
{
  void* handle = dlopen("libcudart.so." CUDA_RUNTIME_MAJOR, RTLD_NOW | RTLD_NOLOAD);
  if (handle != nullptr)
  {
    dlclose(handle);
  }
  return handle != nullptr;
}
} // namespace

int main()
{
  if (shared_runtime_loaded())
  {
    std::printf("FAILED: the shared CUDA runtime is loaded beside the static one\n");
    return 1;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
  {
    std::printf("no CUDA device: skipped\n");
    return 77;
  }
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess)
  {
    return 1;
  }
  const int device_arch = properties.major * 100 + properties.minor * 10;
  const UnitReport a    = run_unit_a();
  const UnitReport b    = run_unit_b();
  const int precompiled = check_precompiled();
  const int want_a = expected_arch(ARCH_A, device_arch), want_b = expected_arch(ARCH_B, device_arch);
  std::printf("unit a (%s): arch %d, expected %d, %d failures\n", ARCH_A, a.arch, want_a, a.failures);
  std::printf("unit b (%s): arch %d, expected %d, %d failures\n", ARCH_B, b.arch, want_b, b.failures);
  std::printf("fold::precompiled: %s\n", precompiled == 0 ? "right" : "wrong");
  const bool ok = a.failures == 0 && b.failures == 0 && precompiled == 0 && a.arch == want_a && b.arch == want_b;
  std::printf("%s\n", ok ? "two architectures in one program: right" : "FAILED");
  return ok ? 0 : 1;
}
