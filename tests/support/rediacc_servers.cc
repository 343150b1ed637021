#include "tests/support/rediacc_servers.h"

namespace rgpu::test {

const std::vector<RediaccServer>& rediacc_servers() {
  // os-release texts as each release ships them (their first lines: what the toolkit reads);
  // Docker as Docker's own repository packages it for Ubuntu, Debian, Fedora and Oracle Linux
  // (docker-ce, an epoch on the deb), and as openSUSE's own "docker" package.
  static const std::vector<RediaccServer> servers = {
      {"Ubuntu 24.04",
       "PRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\n"
       "VERSION=\"24.04.3 LTS (Noble Numbat)\"\nVERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\n"
       "UBUNTU_CODENAME=noble\n",
       "apt", "docker-ce", "5:28.5.2-1~ubuntu.24.04~noble", false},
      {"Debian 13",
       "PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"13\"\n"
       "VERSION=\"13 (trixie)\"\nVERSION_CODENAME=trixie\nID=debian\n",
       "apt", "docker-ce", "5:28.5.2-1~debian.13~trixie", false},
      {"Fedora 43",
       "NAME=\"Fedora Linux\"\nVERSION=\"43 (Server Edition)\"\nRELEASE_TYPE=stable\nID=fedora\nVERSION_ID=43\n"
       "PLATFORM_ID=\"platform:f43\"\nPRETTY_NAME=\"Fedora Linux 43 (Server Edition)\"\nVARIANT=\"Server Edition\"\n"
       "VARIANT_ID=server\n",
       "dnf", "docker-ce", "28.5.2-1.fc43", true},
      {"openSUSE Leap 16.0",
       "NAME=\"openSUSE Leap\"\nVERSION=\"16.0\"\nID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n"
       "VERSION_ID=\"16.0\"\nPRETTY_NAME=\"openSUSE Leap 16.0\"\nCPE_NAME=\"cpe:/o:opensuse:leap:16.0\"\n",
       "zypper", "docker", "28.3.3_ce-160000.1.1", false},
      {"Oracle Linux 10",
       "NAME=\"Oracle Linux Server\"\nVERSION=\"10.0\"\nID=\"ol\"\nID_LIKE=\"fedora\"\nVARIANT=\"Server\"\n"
       "VARIANT_ID=\"server\"\nVERSION_ID=\"10.0\"\nPLATFORM_ID=\"platform:el10\"\n"
       "PRETTY_NAME=\"Oracle Linux Server 10.0\"\n",
       "dnf", "docker-ce", "28.5.2-1.el10", true},
  };
  return servers;
}

void as_server(const FixtureRoot& root, const RediaccServer& server) {
  root.write("/etc/os-release", server.os_release);
  if (server.selinux) {
    root.write("/sys/fs/selinux/enforce", "1");
    root.write("/etc/selinux/config", "SELINUX=enforcing\nSELINUXTYPE=targeted\n");
    // container-selinux (which Docker's packages require there) with its booleans' defaults.
    root.write("/sys/fs/selinux/booleans/container_use_dri_devices", "1 1\n");
    root.write("/sys/fs/selinux/booleans/container_use_xserver_devices", "0 0\n");
    root.write("/sys/fs/selinux/booleans/container_use_devices", "0 0\n");
  } else {
    root.write("/sys/module/apparmor/parameters/enabled", "Y\n");
  }
  if (server.family == "apt") {
    root.write("/var/lib/dpkg/status", "Package: " + server.docker_package +
                                           "\nStatus: install ok installed\nVersion: " + server.docker_version +
                                           "\n\n");
  } else {
    root.write("/var/lib/fake-rpm/" + server.docker_package, server.docker_version + "\n");
  }
}

}  // namespace rgpu::test
