#include "installers/package_manager.h"

#include "core/state_paths.h"
#include "installers/dpkg_status.h"

namespace rgpu::installers {
namespace {

constexpr const char* kAptKeyring = "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg";

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
  std::optional<std::string> installed_version(const RootFs& fs, CommandRunner&,
                                               const std::string& package) const override {
    return dpkg_installed_version(fs, package);
  }
  RepoFile repository() const override {
    return {"/etc/apt/sources.list.d/nvidia-container-toolkit.list",
            "deb [signed-by=" + std::string(kAptKeyring) + "] " + kNvidiaRepoBase + "/stable/deb/$(ARCH) /\n"};
  }
  std::optional<std::string> key_path() const override { return kAptKeyring; }
  std::vector<Argv> fetch_key_commands() const override {
    return {inside({"apt-get", "install", "-y", "--no-install-recommends", "ca-certificates", "curl", "gnupg"}),
            inside({"curl", "-fsSL", "--create-dirs", "-o", state::kDownloadedKey,
                    std::string(kNvidiaRepoBase) + "/gpgkey"}),
            inside({"gpg", "--batch", "--yes", "--dearmor", "-o", kAptKeyring, state::kDownloadedKey})};
  }
  std::vector<Argv> install_commands(const std::string& package, const std::string& version,
                                     bool downgrade) const override {
    Argv install = {"apt-get", "install", "-y", "--no-install-recommends"};
    if (downgrade) install.push_back("--allow-downgrades");
    install.push_back(package + "=" + version + "-1");
    return {inside({"apt-get", "update"}), inside(install)};
  }

 private:
  // Every command runs in the machine it installs into: paths are that machine's.
  Argv inside(Argv args) const {
    if (root_ != "/") args.insert(args.begin(), {"chroot", root_});
    return args;
  }
  std::string root_;
};

class Rpm final : public PackageManager {
 public:
  Rpm(PackageFamily family, std::string root) : family_(family), root_(std::move(root)) {}
  std::optional<std::string> installed_version(const RootFs&, CommandRunner& query,
                                               const std::string& package) const override {
    Argv argv = {"rpm", "-q", "--qf", "%{VERSION}-%{RELEASE}", package};
    if (root_ != "/") argv.insert(argv.begin() + 1, {"--root", root_});
    auto r = query.run(argv, std::chrono::seconds(60));
    if (!r || r->exit_code != 0) return std::nullopt;
    const auto first = r->output.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return std::nullopt;
    return r->output.substr(first, r->output.find_last_not_of(" \t\r\n") - first + 1);
  }
  RepoFile repository() const override {
    return {family_ == PackageFamily::zypper ? "/etc/zypp/repos.d/nvidia-container-toolkit.repo"
                                             : "/etc/yum.repos.d/nvidia-container-toolkit.repo",
            rpm_repo_text()};
  }
  std::vector<Argv> install_commands(const std::string& package, const std::string& version,
                                     bool downgrade) const override {
    const std::string pinned = package + "-" + version + "-1";
    if (family_ == PackageFamily::zypper) {
      Argv argv = {"zypper", "--non-interactive", "--gpg-auto-import-keys"};
      if (root_ != "/") argv.insert(argv.end(), {"--root", root_});
      argv.insert(argv.end(), {"install", "-y"});
      if (downgrade) argv.push_back("--oldpackage");
      argv.push_back(pinned);
      return {argv};
    }
    Argv argv = {to_string(family_), "-y"};
    if (root_ != "/") argv.push_back("--installroot=" + root_);
    argv.insert(argv.end(), {downgrade ? "downgrade" : "install", pinned});
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
