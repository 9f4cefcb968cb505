// The parent side of the worker protocol: a `lego-worker` process, started
// on the first request and again after one dies. Callers use run's typed
// requests (run_variant, compile_in_worker, analyze_variant, the ceilings);
// the JSON lines they travel as are run/worker_transport's. Generated code
// can crash or hang: a dead worker's answer is Crashed, a slow one is killed
// and answers Timeout; the next request starts a fresh worker.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace lego::run {

class WorkerClient {
 public:
  using Environment = std::vector<std::pair<std::string, std::string>>;
  // `environment`: variables set in the worker only (a library baseline's
  // OPENBLAS_CORETYPE), on top of the parent's; an empty value unsets one.
  explicit WorkerClient(std::string executable, Environment environment = {});
  const std::string& executable() const { return executable_; }
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  // Called for each event line the worker sends while it works on a
  // request (a stage begins): progress, which a sweep shows as a tick.
  using OnEvent = std::function<void()>;

 private:
  friend struct WorkerTransport;
  void start();
  // Kills the worker. `mid_request`: a kernel process may still be running,
  // and dies of the worker's death a moment later.
  void stop(bool mid_request = false);
  std::string executable_;
  Environment environment_;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string pending_;  // bytes read past the last line
};

// lego-worker next to the running executable (build/release/bin).
std::string default_worker_path();

}  // namespace lego::run
