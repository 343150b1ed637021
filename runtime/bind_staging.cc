#include "runtime/bind_staging.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace rgpu::runtime {
namespace {

// Linux 5.2's new mount API (glibc 2.36 has wrappers, whose header clashes with <sys/mount.h>).
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

std::string why(const std::string& what) { return what + ": " + std::strerror(errno); }

bool same(const struct ::stat& a, const struct ::stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// Every directory from `fd` up to "/", by "..": what the opened object lies in.
bool ancestor_is(int fd, const struct ::stat& dir) {
  UniqueFd at(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  for (int depth = 0; at && depth < 256; ++depth) {
    struct ::stat st {};
    if (::fstat(at.get(), &st) != 0) return false;
    if (same(st, dir)) return true;
    UniqueFd up(::openat(at.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
    struct ::stat upst {};
    if (!up || ::fstat(up.get(), &upst) != 0 || same(upst, st)) return false;  // "/" is its own parent
    at = std::move(up);
  }
  return false;
}

bool is_private_tmpfs(const std::string& dir) {
  struct ::statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0 || fs.f_type != 0x01021994 /* TMPFS_MAGIC */) return false;
  struct ::stat st {
  }, parent{};
  return ::stat(dir.c_str(), &st) == 0 && ::stat(std::filesystem::path(dir).parent_path().c_str(), &parent) == 0 &&
         st.st_dev != parent.st_dev;
}

// The staging root, a tmpfs of the verifier's own (mode 0700, private: nothing staged spreads to
// other mount namespaces), made once under a lock.
Result<void> ensure_root(const std::string& root) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) return fail("cannot make the verifier's staging directory " + root + ": " + ec.message());
  const std::string lock_path = std::filesystem::path(root).parent_path() / ".staging.lock";
  UniqueFd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock || ::flock(lock.get(), LOCK_EX) != 0) return fail(why("cannot lock " + lock_path));
  if (!is_private_tmpfs(root)) {
    if (::mount("rediacc-gpu-staging", root.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") != 0)
      return fail(why("cannot mount the verifier's staging directory " + root));
    if (::mount(nullptr, root.c_str(), nullptr, MS_PRIVATE, nullptr) != 0)
      return fail(why("cannot make " + root + " private"));
  }
  struct ::stat st {};
  if (::lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077) != 0)
    return fail("the verifier's staging directory " + root + " is not root's alone (mode 0700, owner root)");
  return {};
}

// A staging directory's name is ID.PID; one whose verifier is gone was left by a killed one.
void remove_leftovers(const std::string& root) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    const auto dot = name.rfind('.');
    if (dot == std::string::npos) continue;
    const std::string pid = name.substr(dot + 1);
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (::kill(std::stoi(pid), 0) == 0 || errno != ESRCH) continue;
    // Never a recursive removal: a mount that would not go would have its source's files removed.
    for (const auto& inner : std::filesystem::directory_iterator(e.path(), ec)) {
      ::umount2(inner.path().c_str(), MNT_DETACH);
      if (::rmdir(inner.path().c_str()) != 0) ::unlink(inner.path().c_str());
    }
    ::rmdir(e.path().c_str());
  }
}

}  // namespace

Result<UniqueFd> open_beneath(int dir, std::string_view relative, Beneath how) {
  std::string rel(relative);
  while (rel.starts_with("/")) rel.erase(0, 1);
  if (rel.empty()) rel = ".";
  open_how o{};
  // No O_NOFOLLOW: with it a trailing link would be opened as itself; without, RESOLVE_NO_SYMLINKS
  // refuses it like any other (ELOOP).
  o.flags = O_PATH | O_CLOEXEC;
  o.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | (how.same_mount ? RESOLVE_NO_XDEV : 0);
  const long fd = ::syscall(SYS_openat2, dir, rel.c_str(), &o, sizeof o);
  if (fd < 0) return fail(why("cannot open " + rel), errno);
  UniqueFd opened(static_cast<int>(fd));
  struct ::stat st {};
  if (::fstat(opened.get(), &st) != 0 || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISLNK(st.st_mode))
    return fail(rel + " is a device node", ENODEV);
  return opened;
}

Result<UniqueFd> open_no_links(const std::string& path) {
  UniqueFd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return fail(why("cannot open /"), errno);
  return open_beneath(root.get(), path);
}

bool same_or_related(int fd, const std::string& dir) {
  struct ::stat target {
  }, st{};
  if (::stat(dir.c_str(), &target) != 0 || ::fstat(fd, &st) != 0) return false;
  if (same(st, target) || ancestor_is(fd, target)) return true;
  UniqueFd inside(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  return inside && ancestor_is(inside.get(), st);
}

Result<Staging> Staging::open(const std::string& staging_root, const std::string& id) {
  RGPU_TRY(ensure_root(staging_root));
  remove_leftovers(staging_root);
  const std::string dir = staging_root + "/" + id + "." + std::to_string(::getpid());
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return fail(why("cannot make " + dir));
  return Staging(dir);
}

Staging::Staging(Staging&& other) noexcept
    : dir_(std::move(other.dir_)),
      mounted_(std::move(other.mounted_)),
      written_(std::move(other.written_)),
      held_(std::move(other.held_)) {
  other.dir_.clear();
}

Staging::~Staging() {
  if (dir_.empty()) return;
  for (const auto& m : mounted_) {
    ::umount2(m.c_str(), MNT_DETACH);
    ::unlink(m.c_str());
    ::rmdir(m.c_str());
  }
  for (const auto& w : written_) ::unlink(w.c_str());
  ::rmdir(dir_.c_str());
}

Result<std::string> Staging::stage(const UniqueFd& source, bool recursive) {
  struct ::stat st {};
  if (::fstat(source.get(), &st) != 0) return fail(why("cannot read what was opened"));
  const std::string target = dir_ + "/" + std::to_string(mounted_.size());
  if (S_ISDIR(st.st_mode) ? ::mkdir(target.c_str(), 0700) != 0
                          : UniqueFd(::open(target.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600)).get() < 0)
    return fail(why("cannot make " + target));
  const long tree = ::syscall(SYS_open_tree, source.get(), "",
                              OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0));
  if (tree < 0) return fail(why("cannot clone the mount of " + target));
  UniqueFd clone(static_cast<int>(tree));
  if (::syscall(SYS_move_mount, clone.get(), "", AT_FDCWD, target.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0)
    return fail(why("cannot mount the opened source at " + target));
  mounted_.push_back(target);
  return target;
}

Result<std::string> Staging::write(const std::string& text) {
  const std::string target = dir_ + "/written-" + std::to_string(written_.size());
  UniqueFd out(::open(target.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600));
  if (!out) return fail(why("cannot make " + target));
  written_.push_back(target);
  if (::write(out.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return fail(why("cannot write " + target));
  return target;
}

std::string Staging::hold(UniqueFd ns) {
  const std::string path = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(ns.get());
  held_.push_back(std::move(ns));
  return path;
}

}  // namespace rgpu::runtime
