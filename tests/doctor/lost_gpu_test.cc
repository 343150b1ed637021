// A GPU that falls off the bus or stops answering is named, never taken for one the machine never
// had; the NVML check says where its answer came from.

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/admit_on.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machine_builder.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
using Catch::Contains;
using nlohmann::json;

namespace {

// What the kernel shows once the 4090 fell off the bus: no PCI device, no DRM nodes, no
// /proc/driver/nvidia entry.
void fall_off_the_bus(const FixtureRoot& root) {
  for (const char* p : {"/sys/devices/pci0000:00/0000:01:00.0", "/sys/bus/pci/devices/0000:01:00.0",
                        "/sys/class/drm/card1", "/sys/class/drm/renderD129", "/sys/dev/char/226:1",
                        "/sys/dev/char/226:129", "/proc/driver/nvidia/gpus/0000:01:00.0"})
    std::filesystem::remove_all(root.host(p));
}

}  // namespace

TEST_CASE("doctor: a recorded GPU gone from the bus fails by name, and no check says the machine has none") {
  FixtureRoot root;
  workstation_numbered(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"probe"}).exit_code == 0);  // records the inventory
  CHECK(doctor_checks(root, "gpu-present")[0]["status"] == "ok");
  fall_off_the_bus(root);
  const auto present = doctor_checks(root, "gpu-present");
  REQUIRE(present.size() == 1);
  CHECK(present[0]["status"] == "fail");
  CHECK(present[0]["layer"] == 1);
  CHECK(present[0]["subject"] == "0000:01:00.0");
  CHECK_THAT(present[0]["observed"].get<std::string>(),
             Contains("NVIDIA GeForce RTX 4090 (0000:01:00.0), recorded in the inventory of") &&
                 Contains("is no longer on the PCI bus"));
  CHECK_THAT(present[0]["decision"].get<std::string>(),
             Contains("Xid 79") && Contains("nvidia-smi -r -i 0000:01:00.0") && Contains("rediacc-gpu setup"));
  for (const char* id : {"nvidia-driver", "nvml", "nouveau"}) {
    INFO(id);
    const auto c = doctor_checks(root, id);
    REQUIRE(c.size() == 1);
    CHECK_THAT(c[0]["observed"].get<std::string>(), !Contains("no NVIDIA GPU") && Contains("not found now"));
  }
  const auto metrics = tool_on(root, {"metrics"}).out;
  CHECK_THAT(metrics, Contains("rediacc_gpu_gpus_missing 1\n") &&
                          Contains("rediacc_gpu_gpu_lost{pci_address=\"0000:01:00.0\"} 1\n"));
  CHECK(tool_on(root, {"doctor"}).exit_code == 1);
}

TEST_CASE("doctor: a GPU the NVIDIA driver lists and sysfs no longer shows fails by name, with no inventory") {
  FixtureRoot root;
  two_nvidia_datacenter(root, false);
  MachineBuilder(root).unplug("0000:41:00.0");  // fell off the bus; the loaded driver still lists it
  const auto present = doctor_checks(root, "gpu-present");
  REQUIRE(present.size() == 1);
  CHECK(present[0]["status"] == "fail");
  CHECK(present[0]["subject"] == "0000:41:00.0");
  CHECK_THAT(present[0]["observed"].get<std::string>(),
             Contains("NVIDIA H100 80GB HBM3 (0000:41:00.0), listed by the NVIDIA driver "
                      "(/proc/driver/nvidia/gpus/0000:41:00.0)") &&
                 Contains("is no longer on the PCI bus"));
  CHECK_THAT(tool_on(root, {"metrics"}).out, Contains("rediacc_gpu_gpus_missing 1\n") &&
                                                 Contains("rediacc_gpu_gpu_lost{pci_address=\"0000:41:00.0\"} 1\n"));
}

TEST_CASE("doctor: a GPU whose configuration space reads all-ones fails, though sysfs still lists it") {
  FixtureRoot root;
  workstation_numbered(root, {128, 129, 130});
  REQUIRE(tool_on(root, {"probe"}).exit_code == 0);
  CHECK_THAT(tool_on(root, {"metrics"}).out, Contains("rediacc_gpu_gpus_missing 0\n"));
  root.write("/sys/devices/pci0000:00/0000:03:00.0/config", std::string(64, '\xff'));
  const auto present = doctor_checks(root, "gpu-present");
  REQUIRE(present.size() == 1);
  CHECK(present[0]["status"] == "fail");
  CHECK_THAT(present[0]["observed"].get<std::string>(), Contains("(0000:03:00.0)") && Contains("all-ones"));
  CHECK_THAT(present[0]["decision"].get<std::string>(), Contains("amdgpu GPU reset"));
  CHECK_THAT(tool_on(root, {"metrics"}).out, Contains("rediacc_gpu_gpu_lost{pci_address=\"0000:03:00.0\"} 1\n"));
}

TEST_CASE("doctor: the NVML check says NVML answered only when it did, else that /proc was read") {
  FixtureRoot with, without;
  two_nvidia_datacenter(with, true);
  two_nvidia_datacenter(without, false);
  const auto nvml = doctor_checks(with, "nvml");
  REQUIRE(nvml.size() == 1);
  CHECK(nvml[0]["status"] == "ok");
  CHECK_THAT(
      nvml[0]["observed"].get<std::string>(),
      Contains("NVML (/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1, driver ") && Contains(") answered for 2 GPU(s)"));
  const auto proc = doctor_checks(without, "nvml");
  REQUIRE(proc.size() == 1);
  CHECK(proc[0]["status"] == "warn");
  CHECK_THAT(proc[0]["observed"].get<std::string>(),
             Contains("NVML did not answer") && Contains("2 GPU(s) read from /proc/driver/nvidia instead"));
}

TEST_CASE("doctor: an NVML that hangs is left behind at its bound, and the check says so") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  const auto conf = root.host("/usr/lib/x86_64-linux-gnu/fake-nvml.conf");
  REQUIRE(std::filesystem::exists(conf));
  root.write("/usr/lib/x86_64-linux-gnu/fake-nvml.conf",
             root.read("/usr/lib/x86_64-linux-gnu/fake-nvml.conf") + "hang 120\n");  // a driver stuck with a GPU
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_tool({"doctor", "-o", "json", "--root", root.str()}, "", {{"REDIACC_GPU_NVML_TIMEOUT", "1"}});
  // Returned long before the library would have: the run's one NVML look waited 1 s.
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(90));
  std::map<std::string, json> by_id;
  const auto doc = json::parse(r.out);
  for (const auto& c : doc["checks"]) by_id.emplace(c["id"].get<std::string>(), c);
  INFO(r.out);
  CHECK(by_id["nvml"]["status"] == "warn");
  CHECK_THAT(by_id["nvml"]["observed"].get<std::string>(),
             Contains("did not answer within 1 s") && Contains("2 GPU(s) read from /proc/driver/nvidia instead"));
  CHECK_THAT(by_id["probe"]["observed"].get<std::string>(), Contains("the driver is likely hung"));
}

TEST_CASE("NVML loads once a run of doctor or metrics or usage: the probe's answer is the run's") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  const std::string lib_dir = "/usr/lib/x86_64-linux-gnu";
  root.write(lib_dir + "/fake-nvml.conf", root.read(lib_dir + "/fake-nvml.conf") + "count_inits\n");
  const auto inits = [&] {
    const auto log = root.host(lib_dir + "/fake-nvml.inits");
    const auto text = std::filesystem::exists(log) ? root.read(lib_dir + "/fake-nvml.inits") : std::string();
    std::filesystem::remove(log);
    return std::count(text.begin(), text.end(), '\n');
  };
  // A hung driver costs every load its whole bound: two loads a run made doctor wait twice as long.
  const auto nvml = doctor_checks(root, "nvml");
  REQUIRE(nvml.size() == 1);
  CHECK(nvml[0]["status"] == "ok");
  CHECK(inits() == 1);
  CHECK(run_tool({"metrics", "--root", root.str()}).exit_code == 0);
  CHECK(inits() == 1);
  CHECK(tool_on(root, {"usage", "-o", "json", "--sample-ms", "0"}).exit_code == 0);
  CHECK(inits() == 1);
}

TEST_CASE(
    "doctor: the NVIDIA spec's check claims only what it read: its libraries' driver, and nodes that reach "
    "NVIDIA GPUs") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  const auto spec_check = [&] {
    const auto c = doctor_checks(root, "nvidia-spec");
    REQUIRE(c.size() == 1);
    return c[0];
  };
  const auto good = spec_check();
  CHECK(good["status"] == "ok");
  CHECK_THAT(good["observed"].get<std::string>(),
             Contains("names driver 550.54.15's libraries, as loaded") && Contains("its nodes reach NVIDIA GPUs"));
  // A spec with no versioned library says nothing of the driver it was made for.
  root.write("/etc/cdi/nvidia.yaml",
             "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n"
             "  containerEdits:\n    deviceNodes: [{path: /dev/nvidia0}]\n");
  const auto unversioned = spec_check();
  CHECK(unversioned["status"] == "warn");
  CHECK_THAT(unversioned["observed"].get<std::string>(), Contains("names no versioned driver library"));
  // After a card change that regenerated only our specs, nvidia.yaml maps another card's node.
  FixtureRoot ws;
  workstation_numbered(ws, {128, 129, 130});
  ws.write("/etc/cdi/nvidia.yaml",
           "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n"
           "  containerEdits:\n    deviceNodes: [{path: /dev/nvidia0}, {path: /dev/dri/renderD129}]\n");
  workstation_numbered(ws, {128, 130, 129});
  const auto c = doctor_checks(ws, "nvidia-spec");
  REQUIRE(c.size() == 1);
  CHECK(c[0]["status"] == "fail");
  CHECK_THAT(c[0]["observed"].get<std::string>(),
             Contains("maps /dev/dri/renderD129 under nvidia.com/gpu=0, which is 0000:03:00.0 now, no NVIDIA GPU"));
  CHECK_THAT(c[0]["decision"].get<std::string>(), Contains("nvidia-cdi-refresh"));
}

namespace {

constexpr const char* kXidLines[] = {
    "NVRM: Xid (PCI:0000:01:00): 13, pid=4242, name=python3, Graphics Exception: ESR 0x405840=0x0",
    "NVRM: Xid (PCI:0000:01:00): 13, pid=4243, name=python3, Graphics Exception",
    "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "amdgpu 0000:03:00.0: amdgpu: GPU reset begin!",
};

}  // namespace

TEST_CASE("doctor and metrics: Xids and amdgpu resets per GPU and code, from /dev/kmsg, the journal or kern.log") {
  const auto expect_events = [](const FixtureRoot& root, const std::string& source) {
    INFO(source);
    const auto log = doctor_checks(root, "kernel-log");
    std::map<std::string, json> by_status;
    for (const auto& c : log) by_status[c["status"].get<std::string>() + " " + c["subject"].get<std::string>()] = c;
    REQUIRE(by_status.count("fail 0000:01:00.0"));
    CHECK_THAT(by_status["fail 0000:01:00.0"]["observed"].get<std::string>(),
               Contains("0000:01:00.0: Xid 79 since boot (" + source + ")"));
    REQUIRE(by_status.count("warn 0000:01:00.0"));
    CHECK_THAT(by_status["warn 0000:01:00.0"]["observed"].get<std::string>(), Contains("Xid 13 x2"));
    REQUIRE(by_status.count("fail 0000:03:00.0"));
    CHECK_THAT(by_status["fail 0000:03:00.0"]["observed"].get<std::string>(), Contains("amdgpu GPU reset"));
    const auto metrics = tool_on(root, {"metrics"}).out;
    CHECK_THAT(metrics,
               Contains("rediacc_gpu_xid_errors_total{pci_address=\"0000:01:00.0\",xid=\"13\"} 2\n") &&
                   Contains("rediacc_gpu_xid_errors_total{pci_address=\"0000:01:00.0\",xid=\"79\"} 1\n") &&
                   Contains("rediacc_gpu_amdgpu_events_total{pci_address=\"0000:03:00.0\",event=\"reset\"} 1") &&
                   Contains("# TYPE rediacc_gpu_xid_errors_total counter"));
  };
  std::string kmsg, plain;
  unsigned seq = 0;  // the buffer still holds the boot's first message
  for (const char* line : kXidLines) {
    kmsg += "3," + std::to_string(seq++) + ",123456,-;" + line + "\n SUBSYSTEM=pci\n";
    plain += std::string("Dec  2 10:00:00 ws-01 kernel: ") + line + "\n";
  }
  FixtureRoot from_kmsg, from_journal, from_file;
  for (const auto* root : {&from_kmsg, &from_journal, &from_file}) workstation_numbered(*root, {128, 129, 130});
  from_kmsg.write("/dev/kmsg", kmsg);
  expect_events(from_kmsg, "/dev/kmsg");
  std::string journal;
  for (const char* line : kXidLines) journal += std::string(line) + "\n";
  from_journal.write("/usr/bin/journalctl", "#!/bin/sh\ncat <<'EOF'\n" + journal + "EOF\n");
  std::filesystem::permissions(from_journal.host("/usr/bin/journalctl"), std::filesystem::perms::owner_all);
  expect_events(from_journal, "the journal");
  from_file.write("/var/log/kern.log", "Dec  2 09:00:00 ws-01 kernel: Linux version 6.1.0\n" + plain);
  expect_events(from_file, "/var/log/kern.log");
  FixtureRoot quiet;
  workstation_numbered(quiet, {128, 129, 130});
  // An Xid of the boot before is not this boot's: kern.log keeps both until it is rotated.
  quiet.write("/var/log/kern.log", plain + "Dec  2 11:00:00 ws-01 kernel: Linux version 6.1.0\n");
  const auto ok = doctor_checks(quiet, "kernel-log");
  REQUIRE(ok.size() == 1);
  CHECK(ok[0]["status"] == "ok");
  CHECK_THAT(ok[0]["observed"].get<std::string>(), Contains("since boot"));
  CHECK_THAT(ok[0]["evidence"].get<std::string>(), Contains("/var/log/kern.log, 1 lines"));
  CHECK_THAT(tool_on(quiet, {"metrics"}).out, !Contains("rediacc_gpu_xid_errors_total{"));
}

TEST_CASE("doctor: a kernel log that does not reach back to boot says so, never \"since boot\"") {
  FixtureRoot wrapped, rotated;
  for (const auto* root : {&wrapped, &rotated}) workstation_numbered(*root, {128, 129, 130});
  // The kernel's ring buffer overwrote its first 5000 messages: what it holds starts later.
  wrapped.write("/dev/kmsg", "6,5000,7200000000,-;usb 1-1: new device\n");
  const auto kmsg = doctor_checks(wrapped, "kernel-log");
  REQUIRE(kmsg.size() == 1);
  CHECK(kmsg[0]["status"] == "ok");
  CHECK_THAT(kmsg[0]["observed"].get<std::string>(),
             Contains("since 7200 s after boot (the kernel's buffer dropped the 5000 messages before)") &&
                 !Contains("since boot"));
  // A kern.log that names no boot may have lost this boot's start to rotation.
  rotated.write("/var/log/kern.log", "Dec  2 10:00:00 ws-01 kernel: usb 1-1: new device\n");
  const auto file = doctor_checks(rotated, "kernel-log");
  REQUIRE(file.size() == 1);
  CHECK_THAT(file[0]["observed"].get<std::string>(), Contains("in what the file keeps") && !Contains("since boot"));
}

TEST_CASE("doctor and metrics: AMD RAS counters, uncorrectable errors fail and correctable ones warn") {
  FixtureRoot root;
  workstation_numbered(root, {128, 129, 130});
  CHECK(doctor_checks(root, "gpu-ras")[0]["status"] == "skip");
  const std::string ras = "/sys/devices/pci0000:00/0000:03:00.0/ras/";
  root.write(ras + "umc_err_count", "ue: 0\nce: 5\n");
  root.write(ras + "gfx_err_count", "ue: 0\nce: 0\n");
  root.write(ras + "features", "feature mask: 0x3fff\n");
  auto c = doctor_checks(root, "gpu-ras");
  REQUIRE(c.size() == 1);
  CHECK(c[0]["status"] == "warn");
  CHECK_THAT(c[0]["observed"].get<std::string>(),
             Contains("0000:03:00.0: correctable RAS errors") && Contains("umc 5"));
  root.write(ras + "umc_err_count", "ue: 2\nce: 5\n");
  c = doctor_checks(root, "gpu-ras");
  REQUIRE(c.size() == 1);
  CHECK(c[0]["status"] == "fail");
  CHECK(c[0]["subject"] == "0000:03:00.0");
  CHECK_THAT(c[0]["observed"].get<std::string>(), Contains("uncorrectable RAS errors since the driver loaded: umc 2"));
  CHECK_THAT(
      tool_on(root, {"metrics"}).out,
      Contains("rediacc_gpu_ras_errors{pci_address=\"0000:03:00.0\",block=\"umc\",kind=\"uncorrectable\"} 2\n") &&
          Contains("rediacc_gpu_ras_errors{pci_address=\"0000:03:00.0\",block=\"gfx\",kind=\"correctable\"} 0\n"));
}

TEST_CASE(
    "doctor: NVML's uncorrected ECC errors and failed row remaps fail, a pending remap warns, a card without "
    "ECC is skipped") {
  FixtureRoot root;
  workstation_numbered(root, {128, 129, 130});
  MachineBuilder m(root);
  const std::string gpu = "driver 570.86.15\n" + nvml_gpu_line("00000000:01:00.0", "NVIDIA GeForce RTX 4090",
                                                               kWorkstation4090Uuid, 24ULL << 30, 0, 0x2684);
  const auto ecc_with = [&](const std::string& lines) {
    m.fake_nvml("/usr/lib/x86_64-linux-gnu", gpu + lines);
    const auto c = doctor_checks(root, "gpu-ecc");
    REQUIRE(c.size() == 1);
    return c[0];
  };
  CHECK(ecc_with("")["status"] == "skip");  // a GeForce card keeps no ECC counters
  const auto clean = ecc_with("ecc 0 0\nremap 0 2 0 0 0\n");
  CHECK(clean["status"] == "ok");
  CHECK_THAT(clean["observed"].get<std::string>(), Contains("no uncorrected ECC error"));
  CHECK_THAT(clean["evidence"].get<std::string>(), Contains("NVML's volatile ECC counts"));
  const auto pending = ecc_with("ecc 0 0\nremap 0 2 1 1 0\n");
  CHECK(pending["status"] == "warn");
  CHECK_THAT(pending["decision"].get<std::string>(), Contains("reset the GPU"));
  const auto corrupted = ecc_with("ecc 0 3\nremap 0 2 1 0 0\n");
  CHECK(corrupted["status"] == "fail");
  CHECK(corrupted["subject"] == "0000:01:00.0");
  CHECK_THAT(corrupted["observed"].get<std::string>(), Contains("3 uncorrected ECC error(s) since the driver loaded"));
  CHECK_THAT(tool_on(root, {"metrics"}).out,
             Contains("rediacc_gpu_ecc_uncorrected_errors{pci_address=\"0000:01:00.0\"} 3\n") &&
                 Contains("rediacc_gpu_row_remap_pending{pci_address=\"0000:01:00.0\"} 0\n"));
  const auto failed = ecc_with("ecc 0 0\nremap 0 2 1 0 1\n");
  CHECK(failed["status"] == "fail");
  CHECK_THAT(failed["decision"].get<std::string>(), Contains("replaced"));
}
