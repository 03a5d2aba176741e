// A fixed set of worker threads running queued tasks in FIFO order.
// The destructor finishes the queued tasks, then joins.
#ifndef JITK_TUNER_INTERNAL_THREAD_POOL_H_
#define JITK_TUNER_INTERNAL_THREAD_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace jitk::tuner::internal {

class ThreadPool {
 public:
  // REQUIRES: threads >= 1.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> task) ABSL_LOCKS_EXCLUDED(mu_);
  int size() const { return int(workers_.size()); }

  // std::thread::hardware_concurrency(), at least 1.
  static int DefaultThreads();

 private:
  void Work() ABSL_LOCKS_EXCLUDED(mu_);

  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace jitk::tuner::internal

#endif  // JITK_TUNER_INTERNAL_THREAD_POOL_H_
