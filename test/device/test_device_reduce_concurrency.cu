// SPDX-License-Identifier: Apache-2.0
// Concurrency: the per-device caches first filled from many host threads at once; 8 host threads, each with its
// own stream, storage and input, queueing 1000 reductions back to back while the others do the same; one captured
// graph of every algorithm replayed 1000 times. Every result is checked against exact host values. (Catch2's
// assertions are not thread-safe, so the threads only record what they saw; the main thread checks it.)
#include <fold/device/device_reduce.cuh>
#include <fold/device/device_reduce_axes.cuh>
#include <fold/device/device_segmented_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <memory>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace
{
using fold_test::DeviceBuffer;
using Call = std::function<cudaError_t(void*, std::size_t&)>;

//! What a worker thread saw: the first failed CUDA call (if any), and how many results were checked and wrong.
struct Report
{
  std::string failure;
  long checked = 0;
  long wrong   = 0;
  std::string first_wrong;
};

// For worker threads: records the first failing call in `report` and returns from the (void) function.
#define WORKER_CALL(report, expr)                                                                                      \
  do                                                                                                                   \
  {                                                                                                                    \
    const cudaError_t worker_status_ = (expr);                                                                         \
    if (worker_status_ != cudaSuccess)                                                                                 \
    {                                                                                                                  \
      (report).failure = std::string(#expr) + " -> " + cudaGetErrorName(worker_status_);                               \
      return;                                                                                                          \
    }                                                                                                                  \
  } while (0)

template <typename T>
void expect_equal(Report& report, const T& got, const T& expected, const std::string& what)
{
  ++report.checked;
  if (!(got == expected))
  {
    if (report.wrong++ == 0)
    {
      std::ostringstream os;
      os << what << ": got " << got << ", expected " << expected;
      report.first_wrong = os.str();
    }
  }
}

void check_reports(const std::vector<Report>& reports, long expected_checks)
{
  for (std::size_t t = 0; t < reports.size(); ++t)
  {
    INFO("thread " << t << ": " << reports[t].failure << reports[t].first_wrong);
    CHECK(reports[t].failure.empty());
    CHECK(reports[t].wrong == 0);
    CHECK(reports[t].checked == expected_checks);
  }
}

//! The calls per thread and the graph's replays: 1000, or FOLD_CONCURRENCY_REPETITIONS (rounded down to a
//! multiple of 4). scripts/gpu-sanitize.sh sets 100 under racecheck, whose process is killed after some
//! thousands of launches (docs/errors.md); a kernel's shared-memory hazards do not depend on how often it runs.
int repetitions()
{
  const char* value = std::getenv("FOLD_CONCURRENCY_REPETITIONS");
  const int count   = value != nullptr && *value != '\0' ? std::atoi(value) : 1000;
  return count >= 4 ? count / 4 * 4 : 4;
}

//! Runs `worker(t, report, wait_for_all)` on `threads` threads at once (t = 0 .. threads - 1) and returns their
//! reports. `wait_for_all()` is the start line: it returns once every worker has called it, or has returned
//! without calling it (a worker whose set-up failed), so that no worker waits forever.
template <typename WorkerT>
std::vector<Report> run_workers(int threads, WorkerT worker)
{
  std::vector<Report> reports(threads);
  std::atomic<int> arrived{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
  {
    pool.emplace_back(
        [&, t]
        {
          bool waited       = false;
          auto wait_for_all = [&]
          {
            waited = true;
            arrived.fetch_add(1);
            while (arrived.load() < threads)
            {
              std::this_thread::yield();
            }
          };
          worker(t, reports[t], wait_for_all);
          if (!waited)
          {
            arrived.fetch_add(1);
          }
        });
  }
  for (auto& thread : pool)
  {
    thread.join();
  }
  return reports;
}

__global__ void bump(int* values, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
  {
    values[i] += 1;
  }
}

//! Appends this replay's results to `log` (`width` ints per replay) and counts the replay.
__global__ void record(const int* results, int width, int* log, int* replays)
{
  const int replay = *replays;
  for (int j = threadIdx.x; j < width; j += blockDim.x)
  {
    log[replay * width + j] = results[j];
  }
  __syncthreads();
  if (threadIdx.x == 0)
  {
    *replays = replay + 1;
  }
}
} // namespace

// First in this file, and on types no other test here uses, so that every cache it reaches starts empty.
TEST_CASE("The per-device caches filled from 16 threads at once", "[device][concurrency]")
{
  constexpr int threads = 16;
  constexpr int rows = 3000, cols = 700; // multi-block, so the occupancy caches are read too
  const auto reports = run_workers(
      threads,
      [&](int t, Report& report, auto wait_for_all)
      {
        const auto values  = fold_test::random_values<std::int16_t>(rows * cols, 100 + t, fold_test::Values::small);
        int* d_results     = nullptr;
        std::int16_t* d_in = nullptr;
        void* d_temp       = nullptr;
        cudaStream_t stream{};
        const std::size_t temp_bytes = 1 << 24; // ample: the sizes are asked for only after the start
        // Allocated up front, so that only fold's calls race after the barrier.
        bool ready = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess &&
                     cudaMalloc(&d_in, values.size() * sizeof(std::int16_t)) == cudaSuccess &&
                     cudaMalloc(&d_results, (2 + rows + cols) * sizeof(int)) == cudaSuccess &&
                     cudaMalloc(&d_temp, temp_bytes) == cudaSuccess &&
                     cudaMemset(d_temp, 0, temp_bytes) == cudaSuccess && // for initcheck (docs/errors.md)
                     cudaMemcpy(d_in, values.data(), values.size() * sizeof(std::int16_t), cudaMemcpyHostToDevice) ==
                         cudaSuccess;
        wait_for_all();
        auto work = [&]
        {
          WORKER_CALL(report, ready ? cudaSuccess : cudaErrorMemoryAllocation);
          std::size_t bytes = 0;
          WORKER_CALL(report, fold::DeviceReduce::Sum(nullptr, bytes, d_in, d_results, rows * cols, stream));
          WORKER_CALL(report, bytes <= temp_bytes ? cudaSuccess : cudaErrorInvalidValue);
          WORKER_CALL(report, fold::DeviceReduce::Sum(d_temp, bytes, d_in, d_results, rows * cols, stream));
          WORKER_CALL(report, fold::DeviceReduce::Max(nullptr, bytes, d_in, d_results + 1, rows * cols, stream));
          WORKER_CALL(report, fold::DeviceReduce::Max(d_temp, bytes, d_in, d_results + 1, rows * cols, stream));
          WORKER_CALL(report,
                      fold::DeviceSegmentedReduce::Sum(nullptr, bytes, d_in, d_results + 2, rows, cols, stream));
          WORKER_CALL(report, fold::DeviceSegmentedReduce::Sum(d_temp, bytes, d_in, d_results + 2, rows, cols, stream));
          int* columns = d_results + 2 + rows;
          WORKER_CALL(report, fold::DeviceReduceAxes::Sum(nullptr, bytes, d_in, columns, {rows, cols}, {0}, stream));
          WORKER_CALL(report, fold::DeviceReduceAxes::Sum(d_temp, bytes, d_in, columns, {rows, cols}, {0}, stream));
          std::vector<int> got(2 + rows + cols);
          WORKER_CALL(report,
                      cudaMemcpyAsync(got.data(), d_results, got.size() * sizeof(int), cudaMemcpyDeviceToHost, stream));
          WORKER_CALL(report, cudaStreamSynchronize(stream));
          int total = 0, max = values[0];
          std::vector<int> row(rows, 0), column(cols, 0);
          for (int r = 0; r < rows; ++r)
          {
            for (int c = 0; c < cols; ++c)
            {
              const int x = values[r * cols + c];
              total += x;
              max = std::max(max, x);
              row[r] += x;
              column[c] += x;
            }
          }
          expect_equal(report, got[0], total, "Sum");
          expect_equal(report, got[1], max, "Max");
          expect_equal(report, std::vector<int>(got.begin() + 2, got.begin() + 2 + rows) == row, true, "rows");
          expect_equal(report, std::vector<int>(got.begin() + 2 + rows, got.end()) == column, true, "columns");
        };
        work();
        cudaFree(d_in);
        cudaFree(d_results);
        cudaFree(d_temp);
        cudaStreamDestroy(stream);
      });
  check_reports(reports, 4);
}

TEST_CASE("8 threads, each with its own stream and storage, queue 1000 reductions at once", "[device][concurrency]")
{
  constexpr int threads = 8;
  const int calls       = repetitions(); // a multiple of 4
  constexpr int max_n   = 1 << 21;
  const auto reports    = run_workers(
      threads,
      [&](int t, Report& report, auto wait_for_all)
      {
        const auto values = fold_test::random_values<int>(max_n, 1000 + t, fold_test::Values::small);
        // Exact host answers for every prefix: sums, minima, first maxima.
        std::vector<long long> sum(max_n + 1, 0);
        std::vector<int> min(max_n + 1, 5), max(max_n + 1, 0), argmax(max_n + 1, -1);
        for (int i = 0; i < max_n; ++i)
        {
          sum[i + 1]    = sum[i] + values[i];
          min[i + 1]    = std::min(min[i], values[i]);
          const bool up = values[i] > max[i];
          max[i + 1]    = up ? values[i] : max[i];
          argmax[i + 1] = up ? i : argmax[i];
        }
        // Sizes: log-uniform in [1, max_n], a different sequence per thread.
        fold_test::Random random{static_cast<std::uint64_t>(t) + 77};
        std::vector<int> sizes(calls);
        for (int& n : sizes)
        {
          n = std::max(1, static_cast<int>(std::exp2(random.uniform() * 21)));
        }

        int* d_in             = nullptr;
        int* d_out            = nullptr; // 2 ints per call
        std::int64_t* d_index = nullptr;
        void* d_temp          = nullptr;
        // Thread 0 works on the per-thread default stream, the others on streams of their own.
        cudaStream_t stream = cudaStreamPerThread;
        auto work           = [&]
        {
          if (t > 0)
          {
            WORKER_CALL(report, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
          }
          WORKER_CALL(report, cudaMalloc(&d_in, max_n * sizeof(int)));
          WORKER_CALL(report, cudaMalloc(&d_out, 2 * calls * sizeof(int)));
          WORKER_CALL(report, cudaMalloc(&d_index, calls * sizeof(std::int64_t)));
          WORKER_CALL(report, cudaMemset(d_out, 0, 2 * calls * sizeof(int))); // not every slot is written
          WORKER_CALL(report, cudaMemset(d_index, 0, calls * sizeof(std::int64_t)));
          WORKER_CALL(report, cudaMemcpy(d_in, values.data(), max_n * sizeof(int), cudaMemcpyHostToDevice));
          // One allocation for every call: the size for the largest input of each algorithm (sizes never shrink
          // as the input grows).
          std::size_t bytes = 0, most = 0;
          WORKER_CALL(report, fold::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, max_n, stream));
          most = std::max(most, bytes);
          WORKER_CALL(report, fold::DeviceReduce::Min(nullptr, bytes, d_in, d_out, max_n, stream));
          most = std::max(most, bytes);
          WORKER_CALL(report, fold::DeviceReduce::ArgMax(nullptr, bytes, d_in, d_out, d_index, max_n, stream));
          most = std::max(most, bytes);
          WORKER_CALL(report, fold::DeviceSegmentedReduce::Sum(nullptr, bytes, d_in, d_out, 2, max_n / 2, stream));
          most = std::max(most, bytes);
          WORKER_CALL(report, cudaMalloc(&d_temp, most));
          WORKER_CALL(report, cudaMemsetAsync(d_temp, 0, most, stream)); // for initcheck (docs/errors.md)

          wait_for_all();
          for (int i = 0; i < calls; ++i)
          {
            const int n = sizes[i];
            int* out    = d_out + 2 * i;
            switch (i % 4)
            {
            case 0:
              WORKER_CALL(report, fold::DeviceReduce::Sum(d_temp, most, d_in, out, n, stream));
              break;
            case 1:
              WORKER_CALL(report, fold::DeviceReduce::Min(d_temp, most, d_in, out, n, stream));
              break;
            case 2:
              WORKER_CALL(report, fold::DeviceReduce::ArgMax(d_temp, most, d_in, out, d_index + i, n, stream));
              break;
            default:
              WORKER_CALL(report, fold::DeviceSegmentedReduce::Sum(d_temp, most, d_in, out, 2, n / 2, stream));
              break;
            }
          }
          std::vector<int> got(2 * calls);
          std::vector<std::int64_t> index(calls);
          WORKER_CALL(report,
                      cudaMemcpyAsync(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost, stream));
          WORKER_CALL(
              report,
              cudaMemcpyAsync(index.data(), d_index, calls * sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream));
          WORKER_CALL(report, cudaStreamSynchronize(stream));
          for (int i = 0; i < calls; ++i)
          {
            const int n            = sizes[i];
            const std::string what = "call " + std::to_string(i) + ", n " + std::to_string(n);
            switch (i % 4)
            {
            case 0:
              expect_equal(report, static_cast<long long>(got[2 * i]), sum[n], what + " Sum");
              break;
            case 1:
              expect_equal(report, got[2 * i], min[n], what + " Min");
              break;
            case 2:
              expect_equal(report, got[2 * i], max[n], what + " ArgMax value");
              expect_equal(report, index[i], static_cast<std::int64_t>(argmax[n]), what + " ArgMax index");
              break;
            default:
            {
              const int half = n / 2;
              expect_equal(report, static_cast<long long>(got[2 * i]), sum[half], what + " segment 0");
              expect_equal(
                  report, static_cast<long long>(got[2 * i + 1]), sum[2 * half] - sum[half], what + " segment 1");
            }
            }
          }
        };
        work();
        cudaFree(d_in);
        cudaFree(d_out);
        cudaFree(d_index);
        cudaFree(d_temp);
        if (t > 0 && stream != cudaStreamPerThread)
        {
          cudaStreamDestroy(stream);
        }
      });
  check_reports(reports, calls / 4 * 6);
}

TEST_CASE("A captured graph of every algorithm replayed 1000 times", "[device][concurrency][graph]")
{
  constexpr int n = 1 << 20, small = 1000, segments = 4, cols = 64;
  const int replays = repetitions();
  const auto values = fold_test::random_values<int>(n, 5, fold_test::Values::small);
  DeviceBuffer<int> in(values);
  // Results of one replay: sums over n (single-pass and two-pass) and over `small` (single tile), the segments,
  // the columns.
  constexpr int width = 3 + segments + cols;
  DeviceBuffer<int> results(width), log(replays * width), counter(1);
  CUDA_REQUIRE(cudaMemset(counter.get(), 0, sizeof(int)));
  log.poison();
  cudaStream_t stream{};
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // Each call has its own storage, allocated before the capture and reused by every replay.
  int* r                                                             = results.get();
  const std::vector<std::pair<fold::detail::ReducePath, Call>> calls = {
      {fold::detail::ReducePath::single_pass,
       [&](void* t, std::size_t& b)
       { return fold::DeviceReduce::Sum(t, b, in.get(), r, n, stream, fold_test::forced); }},
      {fold::detail::ReducePath::two_pass,
       [&](void* t, std::size_t& b)
       { return fold::DeviceReduce::Sum(t, b, in.get(), r + 1, n, stream, fold_test::forced); }},
      {fold::detail::ReducePath::automatic,
       [&](void* t, std::size_t& b)
       { return fold::DeviceReduce::Sum(t, b, in.get(), r + 2, small, stream, fold_test::forced); }},
      {fold::detail::ReducePath::automatic,
       [&](void* t, std::size_t& b) {
         return fold::DeviceSegmentedReduce::Sum(
             t, b, in.get(), r + 3, segments, n / segments, stream, fold_test::forced);
       }},
      {fold::detail::ReducePath::automatic,
       [&](void* t, std::size_t& b)
       {
         return fold::DeviceReduceAxes::Sum(
             t, b, in.get(), r + 3 + segments, {n / cols, cols}, {0}, stream, fold_test::forced);
       }},
  };
  std::vector<std::unique_ptr<DeviceBuffer<unsigned char>>> storage;
  std::vector<std::size_t> sizes;
  for (const auto& [path, call] : calls)
  {
    fold_test::ForceDispatch force(path);
    sizes.push_back(0);
    CUDA_REQUIRE(call(nullptr, sizes.back()));
    storage.push_back(std::make_unique<DeviceBuffer<unsigned char>>(sizes.back()));
    storage.back()->poison();
  }
  cudaGraph_t graph{};
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  bump<<<n / 256, 256, 0, stream>>>(in.get(), n);
  for (std::size_t i = 0; i < calls.size(); ++i)
  {
    fold_test::ForceDispatch force(calls[i].first);
    CUDA_REQUIRE(calls[i].second(storage[i]->get(), sizes[i]));
  }
  record<<<1, 128, 0, stream>>>(r, width, log.get(), counter.get());
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec{};
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  for (int k = 0; k < replays; ++k)
  {
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
  }
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CUDA_REQUIRE(cudaGetLastError());
  CHECK(counter.front() == replays);

  // Replay k sees every item raised by k + 1.
  std::vector<long long> segment(segments, 0), column(cols, 0);
  long long total = 0, head = 0;
  for (int i = 0; i < n; ++i)
  {
    total += values[i];
    head += i < small ? values[i] : 0;
    segment[i / (n / segments)] += values[i];
    column[i % cols] += values[i];
  }
  const std::vector<int> got = log.to_host();
  long wrong                 = 0;
  for (int k = 0; k < replays; ++k)
  {
    const long long bump_count      = k + 1;
    std::vector<long long> expected = {total + bump_count * n, total + bump_count * n, head + bump_count * small};
    for (long long s : segment)
    {
      expected.push_back(s + bump_count * (n / segments));
    }
    for (long long c : column)
    {
      expected.push_back(c + bump_count * (n / cols));
    }
    for (int j = 0; j < width; ++j)
    {
      if (got[k * width + j] != expected[j] && wrong++ < 5)
      {
        FAIL_CHECK("replay " << k << ", result " << j << ": " << got[k * width + j] << ", expected " << expected[j]);
      }
    }
  }
  CHECK(wrong == 0);
  CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  CUDA_REQUIRE(cudaGraphDestroy(graph));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}
