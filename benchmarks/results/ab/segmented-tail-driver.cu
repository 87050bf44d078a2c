// SPDX-License-Identifier: Apache-2.0
// Where a segmented call's time goes, block by block (issue 19): a diagnostic tree (the timer patch in
// `segmented-tail-timers.diff`) records the global timer as each block of SegmentedWarpKernel starts and ends, and as
// each block of SegmentedBlockKernel starts, passes its wait for the warp kernel, and ends. For a few length
// distributions (2^26 floats, int offsets, Sum), one warm call, then the median of 5 calls timed with events beside
// cub's; each fold result is checked against cub's (within 1e-5 of the segment's sum of
// magnitudes). Prints, in microseconds from the warp kernel's
// first block start: the warp kernel's last end; the block kernel's first wait end; the block kernel's ends at the
// 10th / 50th / 90th percentile and last; and the busy fraction (the blocks' summed time from wait end to end over
// the grid times the span from the first wait end to the last end).
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<diagnostic tree>/include -o tail segmented-tail-driver.cu
// Run:   tail
#include <fold/device/device_segmented_reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

#include "driver_util.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace
{
std::vector<int> lengths_of(const std::string& name, long long items)
{
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<int> lengths;
  long long total = 0;
  while (true)
  {
    double x = 0;
    if (name == "lognormal-256-2")
    {
      x = std::nearbyint(256.0 * std::exp(2.0 * z(rng)));
    }
    else if (name == "powerlaw-0.7")
    {
      x = std::floor(std::pow(1.0 - u(rng), -1.0 / 0.7));
    }
    else if (name == "powerlaw-1.2")
    {
      x = std::floor(std::pow(1.0 - u(rng), -1.0 / 1.2));
    }
    else if (name == "uniform-256-4096")
    {
      x = 256 + std::floor(u(rng) * 3841);
    }
    else if (name == "bimodal-8-4096")
    {
      x = u(rng) < 0.1 ? 4096 : 8;
    }
    else // fixed-L
    {
      x = std::stod(name.substr(6));
    }
    x                   = std::min(std::max(x, 1.0), double(1 << 24));
    const long long len = static_cast<long long>(x);
    if (total + len > items)
    {
      break;
    }
    lengths.push_back(static_cast<int>(len));
    total += len;
  }
  return lengths;
}
} // namespace

int main()
{
  const long long items = 1ll << 26;
  float* d_in           = nullptr;
  CHECK(cudaMalloc(&d_in, items * sizeof(float)));
  fill_hashed<<<1024, 256>>>(d_in, static_cast<std::size_t>(items), 2.0, -1.0);
  CHECK(cudaGetLastError());
  std::vector<float> host_in(items);
  CHECK(cudaMemcpy(host_in.data(), d_in, items * sizeof(float), cudaMemcpyDeviceToHost));
  const char* names[] = {"lognormal-256-2",
                         "powerlaw-0.7",
                         "powerlaw-1.2",
                         "uniform-256-4096",
                         "bimodal-8-4096",
                         "fixed-4096",
                         "fixed-65536",
                         "fixed-131072",
                         "fixed-1048576"};
  std::printf("%-17s %8s %6s %6s %6s %6s %6s %6s %6s %5s %7s %7s %6s\n",
              "case",
              "segments",
              "warpE",
              "wait0",
              "end10",
              "end50",
              "end90",
              "endMax",
              "waitMx",
              "busy",
              "fold",
              "cub",
              "f/c");
  for (const char* name : names)
  {
    const std::vector<int> lengths = lengths_of(name, items);
    const int n                    = static_cast<int>(lengths.size());
    std::vector<int> offsets(n + 1, 0);
    for (int i = 0; i < n; ++i)
    {
      offsets[i + 1] = offsets[i] + lengths[i];
    }
    int* d_offsets = nullptr;
    float *d_fold = nullptr, *d_cub = nullptr;
    CHECK(cudaMalloc(&d_offsets, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_fold, n * sizeof(float)));
    CHECK(cudaMalloc(&d_cub, n * sizeof(float)));
    CHECK(cudaMemcpy(d_offsets, offsets.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    std::size_t fold_bytes = 0, cub_bytes = 0;
    CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, fold_bytes, d_in, d_fold, n, d_offsets, d_offsets + 1));
    CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, cub_bytes, d_in, d_cub, n, d_offsets, d_offsets + 1));
    void *fold_temp = nullptr, *cub_temp = nullptr;
    CHECK(cudaMalloc(&fold_temp, fold_bytes));
    CHECK(cudaMalloc(&cub_temp, cub_bytes));
    auto run_fold = [&] {
      CHECK(fold::DeviceSegmentedReduce::Sum(fold_temp, fold_bytes, d_in, d_fold, n, d_offsets, d_offsets + 1));
    };
    auto run_cub = [&] {
      CHECK(cub::DeviceSegmentedReduce::Sum(cub_temp, cub_bytes, d_in, d_cub, n, d_offsets, d_offsets + 1));
    };
    run_cub();
    run_fold();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> a(n), b(n);
    CHECK(cudaMemcpy(a.data(), d_fold, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b.data(), d_cub, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0; // beyond 1e-5 of the segment's sum of magnitudes (both sums' rounding is far below that)
    for (int i = 0; i < n; ++i)
    {
      double magnitude = 0;
      for (int j = offsets[i]; j < offsets[i + 1]; ++j)
      {
        magnitude += std::fabs(host_in[j]);
      }
      bad += std::fabs(double(a[i]) - double(b[i])) > 1e-5 * magnitude + 1e-30;
    }
    // The timers of the warm call above are overwritten by the next one; take the last of the timed calls.
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    auto time = [&](auto&& f) {
      std::vector<float> ms;
      for (int r = 0; r < 5; ++r)
      {
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaEventRecord(e0));
        f();
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      return ms[2] * 1000.0f;
    };
    const float cub_us  = time(run_cub);
    const float fold_us = time(run_fold);
    static unsigned long long times[3 * 4096 + 2 * 65536];
    CHECK(cudaMemcpyFromSymbol(times, fold::fold_diag_times, sizeof(times)));
    // The block kernel's grid: every block wrote its three stamps (the warp kernel's first: its warp grid).
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int grid = 4 * sms;
    const long long warp_groups = (n + 31) / 32;
    const int warp_grid = static_cast<int>(std::min<long long>((warp_groups + 7) / 8, 32ll * sms));
    unsigned long long t0 = ~0ull, warp_end = 0;
    for (int b = 0; b < warp_grid; ++b)
    {
      t0       = std::min(t0, times[3 * 4096 + 2 * b]);
      warp_end = std::max(warp_end, times[3 * 4096 + 2 * b + 1]);
    }
    std::vector<double> ends, waits;
    double busy = 0;
    for (int b = 0; b < grid; ++b)
    {
      waits.push_back(double(times[3 * b + 1] - t0) / 1000.0);
      ends.push_back(double(times[3 * b + 2] - t0) / 1000.0);
      busy += double(times[3 * b + 2] - times[3 * b + 1]) / 1000.0;
    }
    std::vector<double> sorted_ends = ends;
    std::sort(sorted_ends.begin(), sorted_ends.end());
    const double wait0  = *std::min_element(waits.begin(), waits.end());
    const double waitmx = *std::max_element(waits.begin(), waits.end());
    const double span   = sorted_ends.back() - wait0;
    std::printf("%-17s %8d %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f %5.2f %7.1f %7.1f %6.3f%s\n",
                name,
                n,
                double(warp_end - t0) / 1000.0,
                wait0,
                sorted_ends[grid / 10],
                sorted_ends[grid / 2],
                sorted_ends[grid * 9 / 10],
                sorted_ends.back(),
                waitmx,
                busy / (grid * span),
                fold_us,
                cub_us,
                fold_us / cub_us,
                bad ? "  MISMATCH" : "");
    CHECK(cudaFree(d_offsets));
    CHECK(cudaFree(d_fold));
    CHECK(cudaFree(d_cub));
    CHECK(cudaFree(fold_temp));
    CHECK(cudaFree(cub_temp));
  }
  CHECK(cudaFree(d_in));
  return 0;
}
