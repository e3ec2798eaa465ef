#include "stream/fault_injection.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace freshet {

namespace {

struct FaultConfig {
  std::string op;
  FaultPoint point = FaultPoint::kChunk;
  long long nth = 0;
  long long times = 1;
  std::atomic<long long> calls{0};
  std::atomic<long long> injected{0};
};

// Null when no fault is configured (or the variable does not parse).
FaultConfig* Config() {
  static FaultConfig* config = [] () -> FaultConfig* {
    const char* env = std::getenv("FRESHET_STREAM_FAULT");
    if (!env || !*env) return nullptr;
    std::vector<std::string> parts;
    std::string s = env;
    for (size_t start = 0;;) {
      size_t colon = s.find(':', start);
      parts.push_back(s.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    auto* c = new FaultConfig();
    try {
      if (parts.size() < 3 || parts.size() > 4 || (parts[1] != "chunk" && parts[1] != "barrier"))
        throw std::invalid_argument("shape");
      c->op = parts[0];
      c->point = parts[1] == "chunk" ? FaultPoint::kChunk : FaultPoint::kBarrier;
      c->nth = std::stoll(parts[2]);
      if (parts.size() == 4) c->times = std::stoll(parts[3]);
    } catch (const std::exception&) {
      spdlog::error("FRESHET_STREAM_FAULT={} is not <operator>:<chunk|barrier>:<n>[:<times>]; ignored", env);
      delete c;
      return nullptr;
    }
    spdlog::warn("test fault injection: {} throws at {} {} ({} times)", c->op, parts[1], c->nth, c->times);
    return c;
  }();
  return config;
}

}  // namespace

bool StreamFaultConfigured() {
  static const bool configured = Config() != nullptr;
  return configured;
}

void MaybeInjectStreamFault(const std::string& op_name, FaultPoint point) {
  FaultConfig* c = Config();
  if (!c || c->point != point || op_name != c->op) return;
  long long call = c->calls.fetch_add(1) + 1;
  if (call < c->nth) return;
  if (c->times > 0 && c->injected.fetch_add(1) >= c->times) return;
  throw std::runtime_error("injected fault: " + op_name + (point == FaultPoint::kChunk ? " chunk " : " barrier ") +
                           std::to_string(call));
}

}  // namespace freshet
