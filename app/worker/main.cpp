// lego-worker: compiles, verifies and times one variant at a time. Requests
// are JSON lines on stdin; stage events and one result per request are JSON
// lines on stdout. Generated code runs here, never in the GUI or the CLI;
// if it crashes this process dies and the parent reports it and moves on.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "run/analyze.hpp"
#include "run/ceilings.hpp"
#include "run/executor.hpp"

namespace {

// The protocol gets its own descriptor; fd 1 goes to stderr so a kernel's
// printf cannot corrupt it.
FILE* protocol_stream() {
  const int fd = dup(1);
  dup2(2, 1);
  return fdopen(fd, "w");
}

void send(FILE* out, const nlohmann::json& message) {
  const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cout
        << "lego-worker: reads JSON requests on stdin, one per line ({\"kind\": \"run\" | \"analyze\" | \"ceilings\" | \"ping\", ..}),\n"
           "writes stage events and one JSON result per request on stdout. Started by lego and lego-studio.\n";
    return 0;
  }
  int bargc = 1;
  benchmark::Initialize(&bargc, argv);
  FILE* out = protocol_stream();
  lego::run::Executor executor;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    const nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    if (request.is_discarded() || !request.is_object()) {
      send(out, {{"status", "error"}, {"message", "the request is not a JSON object"}});
      continue;
    }
    // Every field is checked: a wrong type is an error result, never an abort.
    const nlohmann::json id = request.contains("id") ? request["id"] : nlohmann::json(0);
    const nlohmann::json nonce = request.contains("nonce") ? request["nonce"] : nlohmann::json("");
    const auto reply = [&](nlohmann::json message) {
      message["id"] = id;
      message["nonce"] = nonce;
      send(out, message);
    };
    if (!id.is_number_integer() || !nonce.is_string() || (request.contains("kind") && !request["kind"].is_string())) {
      reply({{"status", "error"}, {"message", "bad request: id must be an integer, nonce and kind strings"}});
      continue;
    }
    const std::string kind = request.value("kind", "run");
    try {
      if (kind == "ping") {
        reply({{"status", "ok"}});
      } else if (kind == "ceilings") {
        nlohmann::json r = lego::run::measure_ceilings(request.value("array_mib", 128));
        r["status"] = "ok";
        reply(r);
      } else if (kind == "run") {
        reply(executor.execute(request, [&](const std::string& stage) { reply({{"event", "stage"}, {"stage", stage}}); }));
      } else if (kind == "analyze") {
        reply(lego::run::execute_analyze(request));
      } else {
        reply({{"status", "error"}, {"message", "unknown request kind \"" + kind + "\""}});
      }
    } catch (const std::exception& e) {  // a field of the wrong type, or an engine error
      reply({{"status", "error"}, {"message", std::string("bad request: ") + e.what()}});
    }
  }
  return 0;
}
