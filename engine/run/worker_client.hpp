// The parent side of the worker protocol: starts `lego-worker`, sends one
// JSON request per line, reads event lines ({"event": "stage", ..}) and the
// result line. Generated code can crash or hang: a dead worker yields
// {"status": "crashed"}, a slow one is killed and yields {"status":
// "timeout"}; the next call starts a fresh worker.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
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

  using OnEvent = std::function<void(const nlohmann::json&)>;
  // `cancel`, set from another thread, stops the worker within 50 ms and
  // yields {"status": "cancelled"}.
  nlohmann::json call(const nlohmann::json& request, double timeout_s, const OnEvent& on_event = {},
                      const std::atomic<bool>* cancel = nullptr);

 private:
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
