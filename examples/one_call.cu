// SPDX-License-Identifier: Apache-2.0
// The one-call forms: no size query, the temporary storage allocated and freed on the stream. Sum from the
// device's current pool, Max from a pool of one's own, and Sum captured into a CUDA graph and replayed; each
// checked against the host.
#include <fold/fold.cuh>

#include "example_check.cuh"

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

int main()
{
  if (!example_has_device())
  {
    return example_skipped;
  }

  const int n = 1 << 20;
  std::vector<int> h_in(n);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(-1000, 1000);
  long long expected_sum = 0;
  for (int& x : h_in)
  {
    x = dist(rng);
    expected_sum += x;
  }
  const int expected_max = *std::max_element(h_in.begin(), h_in.end());

  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  int* d_in  = nullptr;
  int* d_out = nullptr;
  CHECK(cudaMallocAsync(&d_in, n * sizeof(int), stream));
  CHECK(cudaMallocAsync(&d_out, 3 * sizeof(int), stream));
  CHECK(cudaMemcpyAsync(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(d_out, 0xff, 3 * sizeof(int), stream)); // poison: a result that was never written shows

  //! [one-call]
  // No size query: the temporary storage is allocated and freed on `stream`, in stream order.
  CHECK(fold::DeviceReduce::Sum(d_in, d_out, n, stream));
  //! [one-call]

  //! [one-call-pool]
  // The temporary storage from a pool of one's own instead of the device's current pool.
  cudaMemPoolProps props{};
  props.allocType     = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id   = device;
  cudaMemPool_t pool  = nullptr;
  CHECK(cudaMemPoolCreate(&pool, &props));
  CHECK(fold::DeviceReduce::Max(d_in, d_out + 1, n, stream, fold::from_pool(pool)));
  //! [one-call-pool]

  // Captured into a graph: the allocation and the free become nodes of the graph, replayed with it.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  CHECK(fold::DeviceReduce::Sum(d_in, d_out + 2, n, stream));
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaGraphLaunch(exec, stream));

  int out[3] = {};
  CHECK(cudaMemcpyAsync(out, d_out, sizeof(out), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFreeAsync(d_out, stream));
  CHECK(cudaFreeAsync(d_in, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemPoolDestroy(pool));
  CHECK(cudaStreamDestroy(stream));

  if (out[0] != expected_sum || out[1] != expected_max || out[2] != expected_sum)
  {
    std::fprintf(stderr,
                 "one call: sum %d, max %d, graph sum %d; the host: %lld, %d\n",
                 out[0],
                 out[1],
                 out[2],
                 expected_sum,
                 expected_max);
    return 1;
  }
  std::printf("one call over %d ints: sum %d, max %d, the same sum replayed from a graph\n", n, out[0], out[1]);
  return 0;
}
