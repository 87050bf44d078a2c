// Kernel durations of a segmented call through offsets beside cub's, for ncu (issue 19): Sum over float, int
// offsets, 16384 x 4096 and 1024 x 65536 items, five calls each of fold and cub.
#include <fold/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cstdio>
#include <vector>
int main()
{
  const int shapes[2][2] = {{16384, 4096}, {1024, 65536}};
  float *in, *out;
  int* offsets;
  cudaMalloc(&in, (1ll << 26) * sizeof(float));
  cudaMalloc(&out, 16384 * sizeof(float));
  cudaMalloc(&offsets, 16385 * sizeof(int));
  cudaMemset(in, 0x3c, (1ll << 26) * sizeof(float)); // every float 0.0115: the values do not change the time
  void* temp        = nullptr;
  std::size_t bytes = 1 << 24;
  cudaMalloc(&temp, bytes);
  for (auto& s : shapes)
  {
    std::vector<int> h(s[0] + 1);
    for (int i = 0; i <= s[0]; ++i)
      h[i] = i * s[1];
    cudaMemcpy(offsets, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice);
    for (int k = 0; k < 5; ++k)
      fold::DeviceSegmentedReduce::Sum(temp, bytes, in, out, s[0], offsets, offsets + 1);
    for (int k = 0; k < 5; ++k)
      cub::DeviceSegmentedReduce::Sum(temp, bytes, in, out, s[0], offsets, offsets + 1);
  }
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
