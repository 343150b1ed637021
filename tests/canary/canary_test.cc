// The canary's reading of a container's own output: device nodes by number from `ls -lR /dev`
// (busybox's and coreutils' forms), and the Engine API's framed log stream.

#include <catch2/catch.hpp>

#include "canary/canary.h"

using namespace rgpu::canary;

TEST_CASE("canary: the container's device nodes are read by number, in every directory ls lists") {
  const std::string busybox =
      "/dev:\n"
      "total 0\n"
      "crw-rw-rw-    1 root     root        1,   3 Dec  2 15:00 null\n"
      "drwxr-xr-x    2 root     root            60 Dec  2 15:00 dri\n"
      "lrwxrwxrwx    1 root     root            11 Dec  2 15:00 core -> /proc/kcore\n"
      "\n"
      "/dev/dri:\n"
      "total 0\n"
      "crw-rw----    1 root     44        226, 128 Dec  2 15:00 renderD128\n";
  const auto found = devices_listed(busybox);
  CHECK(found.at({1, 3}) == "/dev/null");
  CHECK(found.at({226, 128}) == "/dev/dri/renderD128");
  CHECK(found.size() == 2);
  const std::string coreutils = "/dev/nvidia-caps:\ncr--r--r-- 1 root root 511, 21 Dec  2 15:00 nvidia-cap21\n";
  CHECK(devices_listed(coreutils).at({511, 21}) == "/dev/nvidia-caps/nvidia-cap21");
}

TEST_CASE("canary: a log stream's frames are joined in order, and a TTY's raw text is kept as it is") {
  const auto frame = [](char stream, const std::string& text) {
    std::string header = {stream, 0, 0, 0, 0, 0, 0, static_cast<char>(text.size())};
    return header + text;
  };
  CHECK(demultiplexed(frame(1, "--- dev\n") + frame(2, "ls: x\n") + frame(1, "crw\n")) == "--- dev\nls: x\ncrw\n");
  CHECK(demultiplexed("--- dev\nplain text from a TTY\n") == "--- dev\nplain text from a TTY\n");
  CHECK(demultiplexed("").empty());
}
