#include "doctor/check.h"

#include <utility>

namespace rgpu::doctor {

int layer_number(Layer layer) { return static_cast<int>(layer); }

const char* layer_name(Layer layer) {
  switch (layer) {
    case Layer::host_driver: return "host driver";
    case Layer::device_nodes: return "device nodes";
    case Layer::runtime: return "runtime integration";
    case Layer::specs: return "specs and inventory";
    case Layer::policy: return "grants and policy";
    case Layer::container: return "container";
  }
  return "other";
}

Check Check::about(std::string what) && {
  subject = std::move(what);
  return std::move(*this);
}

Check Check::because(std::string why, std::string what_to_do) && {
  meaning = std::move(why);
  decision = std::move(what_to_do);
  return std::move(*this);
}

Check Check::from(std::string what) && {
  evidence = std::move(what);
  return std::move(*this);
}

Check CheckMaker::with(Status status, std::string id, std::string observed, std::string meaning,
                       std::string decision) const {
  return {std::move(id), layer, status, std::move(observed), std::move(meaning), std::move(decision)};
}

Check CheckMaker::ok(std::string id, std::string observed, Evidence from) const {
  return with(Status::ok, std::move(id), std::move(observed), "", "").from(std::move(from.what));
}

Check CheckMaker::skip(std::string id, std::string observed) const {
  return with(Status::skip, std::move(id), std::move(observed), "", "");
}

Check CheckMaker::warn(std::string id, std::string observed, std::string meaning, std::string decision) const {
  return with(Status::warn, std::move(id), std::move(observed), std::move(meaning), std::move(decision));
}

Check CheckMaker::fail(std::string id, std::string observed, std::string meaning, std::string decision) const {
  return with(Status::fail, std::move(id), std::move(observed), std::move(meaning), std::move(decision));
}

}  // namespace rgpu::doctor
