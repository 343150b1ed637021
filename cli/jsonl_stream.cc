#include "cli/jsonl_stream.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rgpu::cli {
namespace {

constexpr size_t kReadChunk = 256 * 1024;
constexpr size_t kWriteBatch = 64 * 1024;  // written early past this, whatever comes next

}  // namespace

std::optional<std::string_view> JsonlStream::next() {
  while (true) {
    const char* start = in_buf_.get() + pos_;
    if (const void* nl = pos_ < end_ ? std::memchr(start, '\n', end_ - pos_) : nullptr) {
      const std::string_view line(start, static_cast<size_t>(static_cast<const char*>(nl) - start));
      pos_ += line.size() + 1;
      return line;
    }
    if (eof_) {
      if (pos_ >= end_) return std::nullopt;
      const std::string_view line(start, end_ - pos_);
      pos_ = end_;
      return line;
    }
    flush();
    // Keep only the partial line, at the front; grow when it leaves less than a chunk to read into.
    const size_t kept = end_ - pos_;
    if (kept + kReadChunk > cap_) {
      const size_t cap = std::max(2 * cap_, kept + kReadChunk);
      auto bigger = std::make_unique_for_overwrite<char[]>(cap);
      if (kept) std::memcpy(bigger.get(), start, kept);
      in_buf_ = std::move(bigger);
      cap_ = cap;
    } else if (kept) {
      std::memmove(in_buf_.get(), start, kept);
    }
    pos_ = 0;
    end_ = kept;
    ssize_t got = 0;
    do {
      got = ::read(in_, in_buf_.get() + end_, cap_ - end_);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) {  // a read error ends the input like its end does
      eof_ = true;
      got = 0;
    }
    end_ += static_cast<size_t>(got);
  }
}

void JsonlStream::end_answer() {
  out_buf_ += '\n';
  if (out_buf_.size() >= kWriteBatch) flush();
}

bool JsonlStream::flush() {
  size_t done = 0;
  while (done < out_buf_.size()) {
    const ssize_t put = ::write(out_, out_buf_.data() + done, out_buf_.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      out_buf_.clear();
      return false;
    }
    done += static_cast<size_t>(put);
  }
  out_buf_.clear();
  return true;
}

}  // namespace rgpu::cli
