#include "cli/jsonl_stream.h"

#include <unistd.h>

#include <cerrno>

namespace rgpu::cli {
namespace {

constexpr size_t kReadChunk = 256 * 1024;
constexpr size_t kWriteBatch = 64 * 1024;  // written early past this, whatever comes next

}  // namespace

std::optional<std::string_view> JsonlStream::next() {
  while (true) {
    const size_t newline = in_buf_.find('\n', pos_);
    if (newline != std::string::npos) {
      const std::string_view line(in_buf_.data() + pos_, newline - pos_);
      pos_ = newline + 1;
      return line;
    }
    if (eof_) {
      if (pos_ >= in_buf_.size()) return std::nullopt;
      const std::string_view line(in_buf_.data() + pos_, in_buf_.size() - pos_);
      pos_ = in_buf_.size();
      return line;
    }
    in_buf_.erase(0, pos_);  // keep only the partial line
    pos_ = 0;
    flush();
    const size_t kept = in_buf_.size();
    in_buf_.resize(kept + kReadChunk);
    ssize_t got = 0;
    do {
      got = ::read(in_, in_buf_.data() + kept, kReadChunk);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) {  // a read error ends the input like its end does
      eof_ = true;
      got = 0;
    }
    in_buf_.resize(kept + static_cast<size_t>(got));
  }
}

void JsonlStream::answer(std::string_view line) {
  out_buf_.append(line);
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
