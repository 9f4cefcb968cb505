// The worker protocol's JSON lines, for run's typed requests only (no
// public header includes this): one request per line with a fresh nonce,
// event lines ({"event": "stage", ..}) until the result line, each checked
// to carry the request's id and nonce. A dead worker yields {"status":
// "crashed"}, a slow one is killed and yields {"status": "timeout"}, and
// `cancel`, set from another thread, stops it within 50 ms with {"status":
// "cancelled"}.
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>

#include "run/worker_client.hpp"

namespace lego::run {

struct WorkerTransport {
  static nlohmann::json call(WorkerClient& worker, const nlohmann::json& request, double timeout_s,
                             const WorkerClient::OnEvent& on_event = {}, const std::atomic<bool>* cancel = nullptr);
};

}  // namespace lego::run
