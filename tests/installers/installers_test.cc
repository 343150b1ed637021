#include <catch2/catch.hpp>

#include "installers/dpkg_status.h"
#include "tests/support/fixture_root.h"

#include "installers/nvidia_toolkit.h"
#include "installers/os_release.h"
#include "installers/package_manager.h"

using namespace rgpu;
using namespace rgpu::installers;

TEST_CASE("os-release: distributions map to their package manager, derivatives through ID_LIKE") {
  struct Case {
    const char* text;
    PackageFamily family;
  };
  const Case cases[] = {
      {"ID=debian\nVERSION_ID=\"12\"\n", PackageFamily::apt},
      {"ID=ubuntu\nVERSION_ID=\"24.04\"\n", PackageFamily::apt},
      {"ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", PackageFamily::apt},
      {"ID=\"rhel\"\nVERSION_ID=\"9.4\"\n", PackageFamily::dnf},
      {"ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n", PackageFamily::dnf},
      {"ID=\"almalinux\"\n", PackageFamily::dnf},
      {"ID=fedora\n", PackageFamily::dnf},
      {"ID=\"amzn\"\nVERSION_ID=\"2023\"\n", PackageFamily::dnf},
      {"ID=\"amzn\"\nVERSION_ID=\"2\"\n", PackageFamily::yum},
      {"ID=\"sles\"\nVERSION_ID=\"15.6\"\n", PackageFamily::zypper},
      {"ID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n", PackageFamily::zypper},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto family = package_family(parse_os_release(c.text), "/etc/os-release");
    REQUIRE(family);
    CHECK(*family == c.family);
  }
  auto unknown = package_family(parse_os_release("ID=gentoo\nPRETTY_NAME=\"Gentoo Linux\"\n"), "/etc/os-release");
  REQUIRE_FALSE(unknown);
  CHECK_THAT(unknown.error().message, Catch::Contains("\"Gentoo Linux\""));
}

TEST_CASE("installers: each family installs exactly nvidia-container-toolkit-base, pinned") {
  auto apt = make_package_manager(PackageFamily::apt, "/");
  CHECK(apt->install_commands(kToolkitPackage, "1.20.0", false).back() ==
        Argv{"apt-get", "install", "-y", "--no-install-recommends", "nvidia-container-toolkit-base=1.20.0-1"});
  CHECK(apt->repository().content ==
        "deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] "
        "https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH) /\n");
  auto dnf = make_package_manager(PackageFamily::dnf, "/");
  CHECK(dnf->install_commands(kToolkitPackage, "1.20.0", false) ==
        std::vector<Argv>{{"dnf", "-y", "install", "nvidia-container-toolkit-base-1.20.0-1"}});
  CHECK_THAT(dnf->repository().content,
             Catch::Contains("baseurl=https://nvidia.github.io/libnvidia-container/stable/rpm/$basearch"));
  CHECK_FALSE(dnf->key_path());
  auto yum = make_package_manager(PackageFamily::yum, "/");
  CHECK(yum->install_commands(kToolkitPackage, "1.18.0", false).front().front() == "yum");
  auto zypper = make_package_manager(PackageFamily::zypper, "/");
  CHECK(zypper->install_commands(kToolkitPackage, "1.20.0", false) ==
        std::vector<Argv>{{"zypper", "--non-interactive", "--gpg-auto-import-keys", "install", "-y",
                           "nvidia-container-toolkit-base-1.20.0-1"}});
  CHECK(zypper->repository().path == "/etc/zypp/repos.d/nvidia-container-toolkit.repo");
}

TEST_CASE("installers: no plan ever installs the full toolkit or configures a runtime") {
  for (auto family : {PackageFamily::apt, PackageFamily::dnf, PackageFamily::yum, PackageFamily::zypper}) {
    auto pm = make_package_manager(family, "/");
    auto commands = pm->install_commands(kToolkitPackage, "1.20.0", false);
    auto key = pm->fetch_key_commands();
    commands.insert(commands.end(), key.begin(), key.end());
    for (const auto& argv : commands) {
      const std::string line = command_line(argv);
      CHECK(line.find("runtime") == std::string::npos);
      CHECK(line.find("nvidia-container-toolkit=") == std::string::npos);
      CHECK(line.find("nvidia-container-toolkit-1") == std::string::npos);
    }
  }
}

TEST_CASE("installers: toolkit versions below 1.18.0 are refused") {
  CHECK(check_toolkit_version("1.20.0"));
  CHECK(check_toolkit_version("1.18.0"));
  CHECK_FALSE(check_toolkit_version("1.17.8"));
  CHECK_FALSE(check_toolkit_version("latest"));
}

TEST_CASE("installers: the default version is a floor: what is at or above it is kept, never downgraded") {
  const ToolkitWanted floor{"1.20.0", false}, exact{"1.20.0", true};
  CHECK(plan_toolkit(std::nullopt, floor) == ToolkitPlan::install);
  CHECK(plan_toolkit("1.20.0-1", floor) == ToolkitPlan::keep);
  CHECK(plan_toolkit("1.21.0-1", floor) == ToolkitPlan::keep);
  CHECK(plan_toolkit("1.19.2-1", floor) == ToolkitPlan::upgrade);
  CHECK(plan_toolkit("1.20.0~rc.1-1", floor) == ToolkitPlan::upgrade);  // a pre-release is below its release
  CHECK(plan_toolkit("garbage", floor) == ToolkitPlan::install);
  // Named on the command line: exactly that, down as well as up.
  CHECK(plan_toolkit("1.21.0-1", exact) == ToolkitPlan::downgrade);
  CHECK(plan_toolkit("1.20.0-1", exact) == ToolkitPlan::keep);
  CHECK(plan_toolkit("1.18.0-1", exact) == ToolkitPlan::upgrade);
  // A downgrade is asked for the way each package manager needs it, else it refuses under -y.
  CHECK(make_package_manager(PackageFamily::apt, "/")->install_commands(kToolkitPackage, "1.20.0", true).back() ==
        Argv{"apt-get", "install", "-y", "--no-install-recommends", "--allow-downgrades",
             "nvidia-container-toolkit-base=1.20.0-1"});
  CHECK(make_package_manager(PackageFamily::dnf, "/")->install_commands(kToolkitPackage, "1.20.0", true).back() ==
        Argv{"dnf", "-y", "downgrade", "nvidia-container-toolkit-base-1.20.0-1"});
  CHECK(make_package_manager(PackageFamily::zypper, "/")->install_commands(kToolkitPackage, "1.20.0", true).back() ==
        Argv{"zypper", "--non-interactive", "--gpg-auto-import-keys", "install", "-y", "--oldpackage",
             "nvidia-container-toolkit-base-1.20.0-1"});
}

TEST_CASE("installers: under another root apt runs inside it, never this machine's dpkg on its files") {
  auto apt = make_package_manager(PackageFamily::apt, "/srv/image");
  for (const auto& argv : apt->install_commands(kToolkitPackage, "1.20.0", false)) {
    REQUIRE(argv.size() > 2);
    CHECK(argv[0] == "chroot");
    CHECK(argv[1] == "/srv/image");
  }
  for (const auto& argv : apt->fetch_key_commands()) {
    CHECK(argv[0] == "chroot");
    for (size_t i = 2; i < argv.size(); ++i) CHECK(argv[i].find("/srv/image") == std::string::npos);
  }
}

TEST_CASE("installers: dpkg's status file says what is installed, half-installed packages are not") {
  rgpu::test::FixtureRoot root;
  RootFs fs(root.path());
  CHECK_FALSE(dpkg_installed_version(fs, "nvidia-container-toolkit-base"));
  root.write("/var/lib/dpkg/status",
             "Package: nvidia-container-toolkit-base-extra\nStatus: install ok installed\nVersion: 9.9.9-1\n\n"
             "Package: nvidia-container-toolkit-base\nStatus: install ok half-configured\nVersion: 1.21.0-1\n\n"
             "Package: docker.io\nStatus: install ok installed\nVersion: 20.10.24+dfsg1-1\n");
  CHECK_FALSE(dpkg_installed_version(fs, "nvidia-container-toolkit-base"));
  CHECK(dpkg_installed_version(fs, "docker.io") == "20.10.24+dfsg1-1");
  CHECK(dpkg_installed_version(fs, "nvidia-container-toolkit-base-extra") == "9.9.9-1");
}
