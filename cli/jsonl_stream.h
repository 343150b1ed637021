#pragma once
// One request per line in, one answer per line out, over raw file descriptors. Answers are
// batched and written when the next line is not yet in hand (just before a read that may wait),
// so a stream of many requests costs a write per batch, and a gateway that waits for each answer
// still gets it before it sends the next request.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace rgpu::cli {

class JsonlStream {
 public:
  JsonlStream(int in, int out) : in_(in), out_(out) {}
  ~JsonlStream() { flush(); }
  JsonlStream(const JsonlStream&) = delete;
  JsonlStream& operator=(const JsonlStream&) = delete;

  /// The next line without its newline (a last line without one counts), or nothing at the end
  /// of input. The view lasts until the next call.
  std::optional<std::string_view> next();
  /// Queues one answer line, which `write(std::string&)` appends to the queue itself (no copy
  /// between); written at the latest before the next read.
  template <typename Write>
  void answer_with(Write&& write) {
    write(out_buf_);
    end_answer();
  }
  /// Writes the queued answers; false when the output cannot be written.
  bool flush();

 private:
  void end_answer();

  // Input bytes [pos_, end_) of a buffer of cap_, not yet split into lines; never zero-filled.
  int in_;
  int out_;
  std::unique_ptr<char[]> in_buf_;
  size_t cap_ = 0;
  size_t pos_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  std::string out_buf_;
};

}  // namespace rgpu::cli
