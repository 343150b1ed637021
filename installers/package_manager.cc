#include "installers/package_manager.h"

#include "core/state_paths.h"

namespace rgpu::installers {
namespace {

constexpr const char* kAptKeyring = "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg";

std::string under(const std::string& root, const std::string& machine_path) {
  return root == "/" ? machine_path : root + machine_path;
}

// The .repo file NVIDIA publishes for dnf, yum and zypper, with the experimental channel off.
std::string rpm_repo_text() {
  const std::string base = kNvidiaRepoBase;
  return "[nvidia-container-toolkit]\nname=nvidia-container-toolkit\nbaseurl=" + base +
         "/stable/rpm/$basearch\nrepo_gpgcheck=1\ngpgcheck=0\nenabled=1\ngpgkey=" + base +
         "/gpgkey\nsslverify=1\nsslcacert=/etc/pki/tls/certs/ca-bundle.crt\n\n"
         "[nvidia-container-toolkit-experimental]\nname=nvidia-container-toolkit-experimental\nbaseurl=" +
         base + "/experimental/rpm/$basearch\nrepo_gpgcheck=1\ngpgcheck=0\nenabled=0\ngpgkey=" + base +
         "/gpgkey\nsslverify=1\nsslcacert=/etc/pki/tls/certs/ca-bundle.crt\n";
}

class Apt final : public PackageManager {
 public:
  explicit Apt(std::string root) : root_(std::move(root)) {}
  Argv installed_version_command(const std::string& package) const override {
    Argv argv = {"dpkg-query", "-W", "-f=${Version}", package};
    if (root_ != "/") argv.insert(argv.begin() + 1, "--admindir=" + under(root_, "/var/lib/dpkg"));
    return argv;
  }
  RepoFile repository() const override {
    return {"/etc/apt/sources.list.d/nvidia-container-toolkit.list",
            "deb [signed-by=" + std::string(kAptKeyring) + "] " + kNvidiaRepoBase + "/stable/deb/$(ARCH) /\n"};
  }
  std::optional<std::string> key_path() const override { return kAptKeyring; }
  std::vector<Argv> fetch_key_commands() const override {
    return {
        apt({"install", "-y", "--no-install-recommends", "ca-certificates", "curl", "gnupg"}),
        {"curl", "-fsSL", "--create-dirs", "-o", under(root_, state::kDownloadedKey),
         std::string(kNvidiaRepoBase) + "/gpgkey"},
        {"gpg", "--batch", "--yes", "--dearmor", "-o", under(root_, kAptKeyring), under(root_, state::kDownloadedKey)}};
  }
  std::vector<Argv> install_commands(const std::string& package, const std::string& version) const override {
    return {apt({"update"}), apt({"install", "-y", "--no-install-recommends", package + "=" + version + "-1"})};
  }

 private:
  Argv apt(Argv args) const {
    Argv argv = {"apt-get"};
    if (root_ != "/") argv.insert(argv.end(), {"-o", "Dir=" + root_});
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  std::string root_;
};

class Rpm final : public PackageManager {
 public:
  Rpm(PackageFamily family, std::string root) : family_(family), root_(std::move(root)) {}
  Argv installed_version_command(const std::string& package) const override {
    Argv argv = {"rpm", "-q", "--qf", "%{VERSION}-%{RELEASE}", package};
    if (root_ != "/") argv.insert(argv.begin() + 1, {"--root", root_});
    return argv;
  }
  RepoFile repository() const override {
    return {family_ == PackageFamily::zypper ? "/etc/zypp/repos.d/nvidia-container-toolkit.repo"
                                             : "/etc/yum.repos.d/nvidia-container-toolkit.repo",
            rpm_repo_text()};
  }
  std::vector<Argv> install_commands(const std::string& package, const std::string& version) const override {
    const std::string pinned = package + "-" + version + "-1";
    if (family_ == PackageFamily::zypper) {
      Argv argv = {"zypper", "--non-interactive", "--gpg-auto-import-keys"};
      if (root_ != "/") argv.insert(argv.end(), {"--root", root_});
      argv.insert(argv.end(), {"install", "-y", pinned});
      return {argv};
    }
    Argv argv = {to_string(family_), "-y"};
    if (root_ != "/") argv.push_back("--installroot=" + root_);
    argv.insert(argv.end(), {"install", pinned});
    return {argv};
  }

 private:
  PackageFamily family_;
  std::string root_;
};

}  // namespace

std::unique_ptr<PackageManager> make_package_manager(PackageFamily family, const std::string& host_root) {
  if (family == PackageFamily::apt) return std::make_unique<Apt>(host_root);
  return std::make_unique<Rpm>(family, host_root);
}

}  // namespace rgpu::installers
