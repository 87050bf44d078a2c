// SPDX-License-Identifier: Apache-2.0
// A prototype, not library code (issue 19): short segments through offsets read by warps that stage their items in
// shared memory by 16-byte cp.async (CUDA's pipeline primitives, as block/block_stage.cuh), two stages a warp, so that
// one chunk's items are in flight while the warp folds the one before; beside fold::DeviceSegmentedReduce::Sum and
// cub's on the same buffers (Sum over float, int offsets, 2^26 items a case). What it measures: whether per-warp
// staging, with no block barrier, reads short and mixed segments near the memory limit. Its fold is a plain left fold a
// segment (one thread each), not fold's tree, so its results are checked against fold's to a relative 1e-4 only.
//
// Each warp takes a contiguous slice of the segments (equal counts) and walks it in chunks: the longest run of up to
// 32 * K segments whose items fit a stage (`Stage` floats, the span aligned out to 16 bytes). A segment longer than a
// stage is reduced by the warp from global memory (a strided loop and shuffles). Lane l folds the chunk's segments
// l, l + 32, ... from the stage and writes their sums (variants a-d, by stage size and segments a chunk), or (e) groups
// of 1-32 lanes a segment, by the chunk's mean length, each lane reading every g-th item (no bank conflicts in a
// group).
//
// The segments are drawn here (std::mt19937_64, seed 12345), not by fold-segmented-bench's `make_lengths`: the names
// follow the bench's shapes, but a log-normal length may be 0 here (the bench's are at least 1), so fold's figures
// below are the ones timed beside the prototype on the same segments, not the bench's. The timing loop (the median
// of 9 calls) is this driver's own, as measured; `median_us` in driver_util.cuh is the shared one. The copies were
// inline `cp.async` PTX when measured (stop 87); CUDA's pipeline primitives now, with the same SASS (cuobjdump).
//
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o staged staged-warps-driver.cu
// Run:   staged [rounds]
#include <fold/device/device_segmented_reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>

#include "driver_util.cuh"

#include <cuda_pipeline.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace
{

//! Per warp: two stages of `Stage` floats (+4 for the span's alignment) and two of `32 * K + 1` offsets.
template <int Stage, int K>
struct WarpSpace
{
  static constexpr int items   = Stage + 4;
  static constexpr int offsets = 32 * K + 1;
  float stage[2][items];
  int offs[2][offsets + 3]; // keeps the next warp's stages 16-byte aligned
};

template <int Warps, int Stage, int K, bool Groups = false>
__global__ __launch_bounds__(Warps * 32) void staged_kernel(const float* in, const int* off, int nseg, float* out)
{
  using Space = WarpSpace<Stage, K>;
  extern __shared__ __align__(16) unsigned char raw[];
  Space& space          = reinterpret_cast<Space*>(raw)[threadIdx.x / 32];
  const int lane        = threadIdx.x % 32;
  const long long warps = static_cast<long long>(gridDim.x) * Warps;
  const long long w     = static_cast<long long>(blockIdx.x) * Warps + threadIdx.x / 32;
  const int lo          = static_cast<int>(nseg * w / warps);
  const int hi          = static_cast<int>(nseg * (w + 1) / warps);

  // Offsets [s, s + 32K] (clipped to hi) into registers; then the chunk's count m (0: segment s is too long).
  int v[K + 1];
  auto load_offsets = [&](int s)
  {
#pragma unroll
    for (int k = 0; k <= K; ++k)
    {
      const int i = s + k * 32 + lane;
      v[k]        = (k < K || lane == 0) && i <= hi ? off[i] : 0x7fffffff;
    }
  };
  // The count of segments from s whose items fit a stage, given v; and v stored into offs[slot].
  auto count = [&](int s, int slot) -> int
  {
    const int first = __shfl_sync(~0u, v[0], 0);
    int m           = 0;
#pragma unroll
    for (int k = 0; k <= K; ++k)
    {
      const int i   = s + k * 32 + lane; // this lane's offset index
      const bool ok = i <= hi && (k < K || lane == 0) && v[k] - (first & ~3) <= Stage;
      m += __popc(__ballot_sync(~0u, ok));
      if (k < K || lane == 0)
      {
        space.offs[slot][k * 32 + lane] = v[k];
      }
    }
    return m - 1; // offsets fitting minus one: segments
  };
  auto issue = [&](int s, int m, int slot)
  {
    if (m > 0)
    {
      const int a0 = space.offs[slot][0] & ~3;
      const int a1 = (space.offs[slot][m] + 3) & ~3;
      for (int vtx = lane; vtx < (a1 - a0) / 4; vtx += 32)
      {
        __pipeline_memcpy_async(&space.stage[slot][vtx * 4], in + a0 + vtx * 4, 16);
      }
    }
    __pipeline_commit();
  };
  auto fold_chunk = [&](int s, int m, int slot)
  {
    const int a0 = space.offs[slot][0] & ~3;
    if constexpr (Groups)
    {
      // Groups of g lanes a segment (g from the chunk's mean length: at most 4 items a lane), lane k of a group
      // reading items k, k + g, ... (no bank conflicts within a group), then the group's shuffles.
      const int mean = (space.offs[slot][m] - space.offs[slot][0] + m - 1) / m;
      const int g    = mean <= 4 ? 1 : mean <= 8 ? 2 : mean <= 16 ? 4 : mean <= 32 ? 8 : mean <= 64 ? 16 : 32;
      const int k    = lane % g;
      for (int i = lane / g; i - lane / g < m; i += 32 / g) // every lane of the group runs the same rounds
      {
        float sum = 0.0f;
        if (i < m)
        {
          const int b = space.offs[slot][i] - a0, e = space.offs[slot][i + 1] - a0;
          for (int t = b + k; t < e; t += g)
          {
            sum += space.stage[slot][t];
          }
        }
        for (int d = g / 2; d > 0; d /= 2)
        {
          sum += __shfl_xor_sync(~0u, sum, d);
        }
        if (k == 0 && i < m)
        {
          out[s + i] = sum;
        }
      }
    }
    else
    {
      for (int i = lane; i < m; i += 32)
      {
        const int b = space.offs[slot][i] - a0, e = space.offs[slot][i + 1] - a0;
        float sum = 0.0f;
        for (int t = b; t < e; ++t)
        {
          sum += space.stage[slot][t];
        }
        out[s + i] = sum;
      }
    }
  };
  auto long_segment = [&](int s)
  {
    const int b = off[s], e = off[s + 1];
    float sum = 0.0f;
    for (int t = b + lane; t < e; t += 32)
    {
      sum += in[t];
    }
    for (int d = 16; d > 0; d /= 2)
    {
      sum += __shfl_xor_sync(~0u, sum, d);
    }
    if (lane == 0)
    {
      out[s] = sum;
    }
  };

  if (lo >= hi)
  {
    return;
  }
  // Chunk 0 at s0 in slot 0: offsets, count, copy.
  int s0 = lo, slot = 0;
  load_offsets(s0);
  int m0 = count(s0, 0);
  __syncwarp();
  issue(s0, m0, 0);
  int s1 = s0 + (m0 > 0 ? m0 : 1);
  if (s1 < hi)
  {
    load_offsets(s1);
  }
  while (true)
  {
    // Chunk 1's count and copy (its offsets loaded during the last fold), then wait for chunk 0 and fold it.
    int m1 = 0;
    if (s1 < hi)
    {
      m1 = count(s1, slot ^ 1);
    }
    __syncwarp();
    issue(s1, s1 < hi ? m1 : 0, slot ^ 1);
    const int s2 = s1 < hi ? s1 + (m1 > 0 ? m1 : 1) : hi;
    if (s2 < hi)
    {
      load_offsets(s2); // in flight through the fold below
    }
    __pipeline_wait_prior(1);
    __syncwarp();
    if (m0 > 0)
    {
      fold_chunk(s0, m0, slot);
    }
    else
    {
      long_segment(s0);
    }
    __syncwarp();
    if (s1 >= hi)
    {
      break;
    }
    s0 = s1, m0 = m1, s1 = s2, slot ^= 1;
  }
  __pipeline_wait_prior(0);
}

struct Case
{
  std::string name;
  std::vector<int> lengths;
};

std::vector<int> lengths_of(const std::string& kind, double a, double b, long long items)
{
  std::mt19937_64 rng(12345);
  std::vector<int> out;
  long long total = 0;
  while (total < items)
  {
    int len = 0;
    if (kind == "fixed")
    {
      len = static_cast<int>(a);
    }
    else if (kind == "uniform")
    {
      len = static_cast<int>(a) + static_cast<int>(rng() % static_cast<unsigned long long>(b - a + 1));
    }
    else // lognormal: round(a * exp(b * z))
    {
      std::normal_distribution<double> z(0.0, 1.0);
      len = static_cast<int>(std::lround(a * std::exp(b * z(rng))));
    }
    len = static_cast<int>(std::min<long long>(len, items - total));
    out.push_back(len);
    total += len;
    if (kind == "fixed" && total + len > items)
    {
      break;
    }
  }
  return out;
}

} // namespace

int main(int argc, char** argv)
{
  const int rounds      = argc > 1 ? std::atoi(argv[1]) : 2;
  const long long items = 1ll << 26;
  std::vector<Case> cases;
  for (int L : {1, 2, 4, 7, 8, 16, 32, 33, 64, 100, 128, 256})
  {
    cases.push_back({"fixed-" + std::to_string(L), lengths_of("fixed", L, 0, items)});
  }
  cases.push_back({"uniform-1-16", lengths_of("uniform", 1, 16, items)});
  cases.push_back({"uniform-1-64", lengths_of("uniform", 1, 64, items)});
  cases.push_back({"uniform-1-512", lengths_of("uniform", 1, 512, items)});
  cases.push_back({"lognormal-32-1", lengths_of("lognormal", 32, 1, items)});
  cases.push_back({"lognormal-256-2", lengths_of("lognormal", 256, 2, items)});

  float* in = nullptr;
  CHECK(cudaMalloc(&in, items * sizeof(float) + 64));
  fill<<<1024, 256>>>(in, items, 0.5f);
  CHECK(cudaGetLastError());
  const bench::DeviceFacts facts = bench::device_facts();
  const int sms                  = facts.sms;
  const double peak              = facts.peak_gbps;
  std::printf("%s, %d SMs, datasheet %.0f GB/s\n", facts.name.c_str(), sms, peak);

  // The variants: warps a block, stage floats, offsets a lane a chunk (up to 32 * K segments a chunk).
  struct Variant
  {
    const char* name;
    void (*kernel)(const float*, const int*, int, float*);
    int threads, bytes, blocks;
  };
  std::vector<Variant> variants;
  auto add = [&](const char* name, auto kernel, int warps, int bytes)
  {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    int per = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, warps * 32, bytes));
    variants.push_back({name, kernel, warps * 32, bytes, per * sms});
    std::printf(
        "variant %s: %d B of shared memory a block of %d warps, %d blocks a multiprocessor\n", name, bytes, warps, per);
  };
  add("a:S1024,K4", staged_kernel<8, 1024, 4>, 8, 8 * int(sizeof(WarpSpace<1024, 4>)));
  add("b:S2048,K8", staged_kernel<8, 2048, 8>, 8, 8 * int(sizeof(WarpSpace<2048, 8>)));
  add("c:S1024,K16", staged_kernel<8, 1024, 16>, 8, 8 * int(sizeof(WarpSpace<1024, 16>)));
  add("d:S2048,K32", staged_kernel<4, 2048, 32>, 4, 4 * int(sizeof(WarpSpace<2048, 32>)));
  add("e:c,groups", staged_kernel<8, 1024, 16, true>, 8, 8 * int(sizeof(WarpSpace<1024, 16>)));

  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int round = 0; round < rounds; ++round)
  {
    for (const Case& c : cases)
    {
      const int nseg = static_cast<int>(c.lengths.size());
      std::vector<int> offsets(nseg + 1, 0);
      for (int i = 0; i < nseg; ++i)
      {
        offsets[i + 1] = offsets[i] + c.lengths[i];
      }
      int* off   = nullptr;
      float *out = nullptr, *ref = nullptr;
      CHECK(cudaMalloc(&off, (nseg + 1) * sizeof(int)));
      CHECK(cudaMalloc(&out, nseg * sizeof(float)));
      CHECK(cudaMalloc(&ref, nseg * sizeof(float)));
      CHECK(cudaMemcpy(off, offsets.data(), (nseg + 1) * sizeof(int), cudaMemcpyHostToDevice));
      std::size_t fb = 0, cb = 0;
      CHECK(fold::DeviceSegmentedReduce::Sum(nullptr, fb, in, ref, nseg, off, off + 1));
      CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, cb, in, out, nseg, off, off + 1));
      void *ft = nullptr, *ct = nullptr;
      CHECK(cudaMalloc(&ft, fb));
      CHECK(cudaMalloc(&ct, cb));
      auto fold_call = [&] { CHECK(fold::DeviceSegmentedReduce::Sum(ft, fb, in, ref, nseg, off, off + 1)); };
      auto cub_call  = [&] { CHECK(cub::DeviceSegmentedReduce::Sum(ct, cb, in, out, nseg, off, off + 1)); };
      auto time      = [&](auto call)
      {
        call();
        CHECK(cudaDeviceSynchronize());
        std::vector<float> t;
        for (int r = 0; r < 9; ++r)
        {
          CHECK(cudaEventRecord(e0));
          call();
          CHECK(cudaEventRecord(e1));
          CHECK(cudaEventSynchronize(e1));
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, e0, e1));
          t.push_back(ms * 1000.0f);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
      };
      const double moved = (offsets[nseg] + 2.0 * nseg + 1) * 4.0; // items, offsets, results
      auto pct           = [&](float us) { return moved / (us * 1e-6) / 1e9 / peak * 100.0; };
      fold_call();
      std::vector<float> want(nseg), got(nseg);
      CHECK(cudaMemcpy(want.data(), ref, nseg * sizeof(float), cudaMemcpyDeviceToHost));
      const float tf = time(fold_call), tc = time(cub_call);
      std::printf("%-16s %9d segments, mean %7.1f: fold %8.1f us %5.1f %%, cub %9.1f us %5.1f %%\n",
                  c.name.c_str(),
                  nseg,
                  double(offsets[nseg]) / nseg,
                  tf,
                  pct(tf),
                  tc,
                  pct(tc));
      for (const Variant& v : variants)
      {
        auto call = [&] { v.kernel<<<v.blocks, v.threads, v.bytes>>>(in, off, nseg, out); };
        // Checked against fold (relative 1e-4), the output poisoned first.
        CHECK(cudaMemset(out, 0xff, nseg * sizeof(float)));
        call();
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got.data(), out, nseg * sizeof(float), cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < nseg; ++i)
        {
          if (!(std::fabs(got[i] - want[i]) <= 1e-4f * std::max(1.0f, std::fabs(want[i]))) && bad++ < 3)
          {
            std::printf("MISMATCH %s variant %s segment %d: %g against fold's %g\n",
                        c.name.c_str(),
                        v.name,
                        i,
                        got[i],
                        want[i]);
          }
        }
        const float t = time(call);
        std::printf(
            "  %-12s %8.1f us %5.1f %%  over fold %.3f%s\n", v.name, t, pct(t), t / tf, bad ? "  CHECK FAILED" : "");
      }
      CHECK(cudaFree(off));
      CHECK(cudaFree(out));
      CHECK(cudaFree(ref));
      CHECK(cudaFree(ft));
      CHECK(cudaFree(ct));
    }
  }
  return 0;
}
