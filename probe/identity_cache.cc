#include "probe/identity_cache.h"

#include <algorithm>

#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

namespace rgpu::probe::identity {

std::optional<Evidence> Cache::reread(const Evidence& e, Seen& seen) {
  if (!e.present()) return std::nullopt;
  mounts_checked(seen);
  if (e.kind == Evidence::Kind::link) return relink(e);
  if (e.kind != Evidence::Kind::file) return std::nullopt;
  auto it = files_.find(e.path);
  if (it == files_.end()) {
    auto fd = fs_.open_read(e.path);
    if (!fd) return std::nullopt;
    it = files_.emplace(e.path, std::move(*fd)).first;
  }
  struct stat st {};
  char buf[8192];
  const auto n = ::pread(it->second.get(), buf, sizeof buf, 0);
  if (n < 0 || static_cast<size_t>(n) == sizeof buf || ::fstat(it->second.get(), &st) != 0 || st.st_nlink == 0) {
    files_.erase(it);
    return std::nullopt;
  }
  auto trimmed = trimmed_if_present(std::string(buf, static_cast<size_t>(n)));
  if (!trimmed || !*trimmed) return std::nullopt;
  return Evidence{e.kind, e.path, Evidence::State::present, std::move(**trimmed)};
}

// sysfs's directories of links are never made anew while mounted: the descriptor kept from the
// last time reads a link with its one name, where the host path would be walked whole again.
std::optional<Evidence> Cache::relink(const Evidence& e) {
  const auto slash = e.path.rfind('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  const std::string dir = e.path.substr(0, slash);
  auto it = link_dirs_.find(dir);
  if (it == link_dirs_.end()) {
    auto fd = fs_.open_dir_fd(dir);
    if (!fd) return std::nullopt;
    it = link_dirs_.emplace(dir, std::move(*fd)).first;
  }
  char buf[4096];
  const auto n = ::readlinkat(it->second.get(), e.path.c_str() + slash + 1, buf, sizeof buf);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) {
    link_dirs_.erase(it);  // read again through the path, which says what is there now
    return std::nullopt;
  }
  return Evidence{e.kind, e.path, Evidence::State::present, std::string(buf, static_cast<size_t>(n))};
}

bool Cache::still_holds(const Evidence& e, Seen& seen) {
  const std::string key = e.key();
  auto it = seen.find(key);
  if (it == seen.end()) {
    auto again = reread(e, seen);
    it = seen.emplace(key, again ? std::move(*again) : read_evidence(fs_, e.kind, e.path)).first;
  }
  return it->second == e;
}

namespace {

bool same_times(const struct ::stat& a, const struct ::stat& b) {
  return a.st_ino == b.st_ino && a.st_dev == b.st_dev && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && a.st_ctim.tv_sec == b.st_ctim.tv_sec &&
         a.st_ctim.tv_nsec == b.st_ctim.tv_nsec;
}

// Changed in the last second: another change within the same tick of the coarse clock the
// directory's times come from would leave them as they are.
bool recently_changed(const struct ::stat& st) {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const auto last = std::max(st.st_mtim.tv_sec, st.st_ctim.tv_sec);
  return now.tv_sec - last <= 1;
}

}  // namespace

void Cache::check_mounts() {
  if (!mounts_) {
    const int fd = ::open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      forget_descriptors();  // no way to tell: keep nothing
      return;
    }
    mounts_ = UniqueFd(fd);
  }
  struct pollfd p {
    mounts_.get(), POLLPRI, 0
  };
  // The kernel reports a change once, to the poll that sees it first (proc_namespace.c's
  // mounts_poll): the descriptor goes on watching from there.
  if (::poll(&p, 1, 0) != 0) forget_descriptors();
}

// A descriptor kept from before a mount may name what the mount now covers: every one is opened
// again through its path.
void Cache::forget_descriptors() {
  ++mounts_changed_;
  dirs_.clear();
  files_.clear();
  link_dirs_.clear();
}

void Cache::mounts_checked(Seen& seen) {
  if (seen.emplace("mounts", Evidence{}).second) check_mounts();
}

Cache::Dir* Cache::dir_now(const std::string& name, Seen& seen, bool fresh) {
  mounts_checked(seen);
  auto it = dirs_.find(name);
  if (it == dirs_.end() || fresh) {
    auto fd = fs_.open_dir_fd(name);
    if (!fd) return nullptr;
    Dir opened;
    opened.fd = std::move(*fd);
    it = dirs_.insert_or_assign(name, std::move(opened)).first;
    seen.erase("dir" + name);
  }
  Dir& dir = it->second;
  if (seen.emplace("dir" + name, Evidence{}).second) {
    struct ::stat now {};
    if (::fstat(dir.fd.get(), &now) != 0 || now.st_nlink == 0) {
      dirs_.erase(it);
      return fresh ? nullptr : dir_now(name, seen, true);
    }
    if (!same_times(now, dir.seen)) dir.entries.clear();
    dir.seen = now;
    dir.settled = !recently_changed(now);
    if (!dir.settled) dir.entries.clear();
  }
  return &dir;
}

std::optional<struct ::stat> Cache::lstat(const std::string& path, Seen& seen, ReachProof* proof) {
  const auto slash = path.rfind('/');
  const std::string leaf = slash == std::string::npos ? path : path.substr(slash + 1);
  if (slash == std::string::npos || leaf.empty() || leaf == "." || leaf == "..") {
    if (proof) proof->whole = false;
    return fs_.lstat(path);
  }
  const std::string name = slash == 0 ? "/" : path.substr(0, slash);
  for (int attempt = 0; attempt < 2; ++attempt) {
    Dir* dir = dir_now(name, seen, attempt == 1);
    if (!dir) break;
    struct ::stat st {};
    auto entry = dir->entries.find(leaf);
    const bool found =
        entry != dir->entries.end() || ::fstatat(dir->fd.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!found) continue;
    if (entry != dir->entries.end()) st = entry->second;
    if (dir->settled) dir->entries.emplace(leaf, st);
    if (proof) {
      proof->whole = proof->whole && dir->settled;
      if (std::none_of(proof->dirs.begin(), proof->dirs.end(), [&](const auto& d) { return d.first == name; }))
        proof->dirs.emplace_back(name, dir->seen);
    }
    return st;
  }
  if (proof) proof->whole = false;
  return std::nullopt;
}

Result<DeviceNumber> Cache::number_of(const NodeRef& node, Seen& seen, ReachProof* proof) {
  if (auto given = spec_number(node)) return std::move(*given);
  return host_number(node, lstat(node.path, seen, proof));
}

Result<Found> Cache::found(const NodeRef& node, Seen& seen, ReachProof* proof) {
  RGPU_TRY_ASSIGN(const DeviceNumber n, number_of(node, seen, proof));
  const std::string key = n.key();
  const auto keep = [proof](const std::vector<Evidence>& evidence) {
    if (!proof) return;
    for (const auto& e : evidence) {
      if (std::find(proof->evidence.begin(), proof->evidence.end(), e) == proof->evidence.end())
        proof->evidence.push_back(e);
    }
  };
  if (auto it = answers_.find(key); it != answers_.end()) {
    const auto& ev = it->second.evidence;
    const auto& a = it->second;
    if (std::all_of(ev.begin(), ev.end(), [&](const Evidence& e) { return still_holds(e, seen); })) {
      keep(ev);
      return Found{a.role, *a.identity, a.card};
    }
    answers_.erase(it);
  }
  auto answer = derive(fs_, n, node.path);
  // What was read now is what every other answer of this call is compared with.
  for (const auto& e : answer.evidence) seen.insert_or_assign(e.key(), e);
  if (!answer.identity) return tl::unexpected(answer.identity.error());  // looked at afresh each time
  keep(answer.evidence);
  Found found{answer.role, *answer.identity, answer.card};
  answers_.insert_or_assign(key, std::move(answer));
  return found;
}

ReachProof Cache::new_proof(Seen& seen) {
  mounts_checked(seen);
  ReachProof proof;
  proof.mounts_changed = mounts_changed_;
  return proof;
}

bool Cache::holds(const ReachProof& proof, Seen& seen) {
  mounts_checked(seen);
  // A node mounted over another leaves its directory as it was.
  if (proof.mounts_changed != mounts_changed_) return false;
  for (const auto& [name, then] : proof.dirs) {
    const Dir* dir = dir_now(name, seen, false);
    if (!dir || !dir->settled || !same_times(dir->seen, then)) return false;
  }
  return std::all_of(proof.evidence.begin(), proof.evidence.end(),
                     [&](const Evidence& e) { return still_holds(e, seen); });
}

}  // namespace rgpu::probe::identity
