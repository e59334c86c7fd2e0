// Streaming over a log: fixed-size chunks read from the file (or standard input), the lines that can start
// a message found by one pass over each chunk that looks for all the anchors at once (anchor_scan.h), and
// only those lines (and the blocks that follow them) cleaned and parsed. Memory stays at the chunk plus the
// messages, whatever the file's size.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/log/detail/anchor_scan.h"
#include "core/log/detail/line_clean.h"
#include "core/log/detail/parser.h"
#include "core/log/detail/scan.h"
#include "core/log/log.h"
#include "core/util/error.h"

namespace oomscope::log {

namespace {

using detail::CleanLine;
using detail::Parser;

// 256 KiB: the chunk is still in the core's L2 cache when the scans read it after read() filled it (a 1 GB
// log on the 2-core machine: 0.31-0.42 s with 256 KiB, 0.45-0.52 s with 1 and 4 MiB; bench log).
constexpr std::size_t kChunk = 256 << 10;
constexpr std::size_t kHistory = 16 << 10;  // bytes kept before the current line for lookback
constexpr std::size_t kHead = 64 << 10;     // bytes kept from the start for looks_like

// Substrings of which every line that can start a message holds one (docs/logs.md "Recognition").
constexpr std::string_view kAnchors[] = {
    "emory",           // out of memory, Out of memory, memory summary, No available memory, Memory profiling
    "uffer",           // BufferAssignment, Peak buffers, Buffer N:
    "hunks",           // Total Chunks, Chunks of size, in-use chunks
    "equirement",      // Program hbm|vmem requirement
    "usage >=",        // Total hbm|vmem usage >=
    "allocations in",  // Largest program allocations in hbm
    "HBM capacity",    //
    "to reserve",      // Attempting to reserve
    "BFCAllocator",    // BFCAllocator dump for
    "Limit:",          // BFC Stats
    "OOM when",        // OOM when allocating tensor
    "OUT_OF_MEMORY",   // CUDA_ERROR_OUT_OF_MEMORY
    "allocate request",  // Failed to allocate request for
    "weights took",      // vLLM
    "GPU blocks",        // vLLM
    "max seq len",       // vLLM
    "CUDA calloc",       // NCCL
};
constexpr std::size_t kUnknown = static_cast<std::size_t>(-1) - 1;

const detail::AnchorScan& anchor_scan() {
  static const detail::AnchorScan scan(kAnchors);
  return scan;
}

class Input {
 public:
  Input(const std::string& path) : path_(path) {
    if (path == "-") {
      fd_ = 0;
      return;
    }
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      const int err = errno;
      throw Error(kind_of_errno(err), path, std::string("cannot open: ") + std::strerror(err));
    }
    struct stat st {};
    if (::fstat(fd_, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        ::close(fd_);
        fd_ = -1;
        throw Error(ErrorKind::NotAFile, path, "is a folder, not a log");
      }
      if (S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
    }
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~Input() {
    if (fd_ > 0) ::close(fd_);
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  // Reads up to `n` bytes into `to`; 0 at the end.
  std::size_t read(char* to, std::size_t n) {
    for (;;) {
      const ssize_t got = ::read(fd_, to, n);
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno == EINTR) continue;
      const int err = errno;
      throw Error(ErrorKind::Io, path_, std::string("cannot read: ") + std::strerror(err));
    }
  }
  std::uint64_t size() const { return size_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;  // 0 when unknown (a pipe)
};

// Something to read from: a file, or text in memory.
struct Source {
  Input* input = nullptr;
  std::string_view text;
  std::size_t text_pos = 0;
  std::size_t read(char* to, std::size_t n) {
    if (input) return input->read(to, n);
    const std::size_t k = std::min(n, text.size() - text_pos);
    std::memcpy(to, text.data() + text_pos, k);
    text_pos += k;
    return k;
  }
};

// What a log without an out-of-memory message looks like, from its first bytes and what the scan saw.
std::string describe(const LogFile& log, std::string_view head) {
  std::size_t control = 0;
  for (char ch : head.substr(0, 4096)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b) ++control;
  }
  const std::size_t sample = std::min<std::size_t>(head.size(), 4096);
  if (sample > 0 && control * 10 > sample) return "binary data, not a text log";
  std::string what;
  if (detail::contains(head, "Traceback (most recent call last)"))
    what = "a Python traceback without an out-of-memory error";
  else if (log.bytes == 0)
    what = "an empty file";
  else {
    std::string start;
    for (char ch : head.substr(0, 40)) start += (ch >= 0x20 && ch < 0x7f) ? ch : '.';
    what = "text starting '" + start + "'";
  }
  if (log.long_lines > 0)
    what += " (" + std::to_string(log.long_lines) + (log.long_lines == 1 ? " line" : " lines") +
            " longer than " + std::to_string(kMaxLineBytes / 1024) + " KiB, read for the first " +
            std::to_string(kMaxLineBytes / 1024) + " KiB only)";
  std::size_t warnings = 0;
  for (const Message& m : log.messages) warnings += m.kind == MessageKind::BfcWarning;
  if (warnings > 0)
    what += " (with " + std::to_string(warnings) + " BFC allocator warning" + (warnings == 1 ? "" : "s") +
            " that say they are not a failure)";
  return what;
}

class Scanner {
 public:
  Scanner(LogFile& log, ProgressSink* progress, std::stop_token stop, std::uint64_t total)
      : log_(log), parser_(log.messages), progress_(progress), stop_(std::move(stop)), total_(total) {
    parser_.lookback = [this](std::size_t n) { return lookback(n); };
  }

  void run(Source& src) {
    buf_.resize(kChunk + kMaxLineBytes + kHistory);
    bool eof = false;
    while (!eof) {
      if (stop_.stop_requested()) throw Cancelled(log_.path);
      compact();
      const std::size_t got = src.read(buf_.data() + len_, buf_.size() - len_);
      if (got == 0) eof = true;
      if (head_.size() < kHead) head_.append(buf_.data() + len_, std::min(got, kHead - head_.size()));
      len_ += got;
      log_.bytes += got;
      next_ = kUnknown;
      process(eof);
      if (progress_ && total_ > 0)
        progress_->report(std::min(1.0, static_cast<double>(log_.bytes) / static_cast<double>(total_)),
                          "reading the log");
    }
    parser_.finish();
    log_.looks_like = describe(log_, head_);
  }

 private:
  // Moves the unread bytes (and some history before them) to the front of the buffer.
  void compact() {
    const std::size_t keep_from = pos_ > kHistory ? pos_ - kHistory : 0;
    if (keep_from == 0) return;
    std::memmove(buf_.data(), buf_.data() + keep_from, len_ - keep_from);
    len_ -= keep_from;
    pos_ -= keep_from;
    base_ += keep_from;
  }

  // The first anchor at or after pos_ in what the buffer holds (every anchor in one pass: anchor_scan.h).
  std::size_t next_anchor() {
    if (next_ == kUnknown || (next_ != std::string_view::npos && next_ < pos_))
      next_ = scan_.find(std::string_view(buf_.data(), len_), pos_);
    return next_;
  }

  // Every byte the reader moves pos_ over passes through count_lines (the text between anchors, most of a
  // log) or note_nul (the lines it parses, the skipped rest of a long line): the NUL check rides on the
  // pass that counts lines instead of reading the text once more.
  void count_lines(std::size_t from, std::size_t to) {
    const detail::LineBytes b = detail::scan_line_bytes(buf_.data() + from, buf_.data() + to);
    log_.lines += static_cast<std::int64_t>(b.newlines);
    log_.nul_bytes = log_.nul_bytes || b.nul;
  }
  void note_nul(std::size_t from, std::size_t to) {
    if (!log_.nul_bytes && to > from && std::memchr(buf_.data() + from, '\0', to - from))
      log_.nul_bytes = true;
  }

  void process(bool eof) {
    while (pos_ < len_) {
      if (skipping_) {  // the rest of a line longer than kMaxLineBytes
        const char* nl = static_cast<const char*>(std::memchr(buf_.data() + pos_, '\n', len_ - pos_));
        if (!nl) {
          note_nul(pos_, len_);
          pos_ = len_;
          return;
        }
        note_nul(pos_, static_cast<std::size_t>(nl - buf_.data()));
        pos_ = static_cast<std::size_t>(nl - buf_.data()) + 1;
        skipping_ = false;
        continue;
      }
      if (!parser_.wants_every_line()) {
        const std::size_t hit = next_anchor();
        // Complete lines end at the last newline (or the end of the input).
        const std::size_t limit = hit == std::string_view::npos ? len_ : hit;
        const std::size_t line_start = line_start_before(limit);
        if (line_start > pos_) {
          count_lines(pos_, line_start);
          pos_ = line_start;
        }
        if (hit == std::string_view::npos) {
          // No anchor in what is here: keep only an unfinished last line, unless it is already too long
          // to keep (it is then read for its first kMaxLineBytes below, and the rest skipped).
          if (eof && pos_ < len_) {
            ++log_.lines;
            note_nul(pos_, len_);
            pos_ = len_;
          }
          if (len_ - pos_ < kMaxLineBytes) return;
        }
      }
      const char* nl = static_cast<const char*>(std::memchr(buf_.data() + pos_, '\n', len_ - pos_));
      std::size_t end = nl ? static_cast<std::size_t>(nl - buf_.data()) : len_;
      if (!nl && !eof && len_ - pos_ < kMaxLineBytes) return;  // wait for the rest of the line
      bool cut = false;
      if (end - pos_ > kMaxLineBytes) {
        end = pos_ + kMaxLineBytes;
        cut = true;
      }
      ++log_.lines;
      note_nul(pos_, end);
      line(pos_, end);
      if (cut) {
        ++log_.long_lines;
        pos_ = end;
        skipping_ = true;
      } else {
        pos_ = nl ? end + 1 : len_;
      }
    }
  }

  // The start of the line holding position `p` (or `p` itself when it starts one), not before pos_.
  std::size_t line_start_before(std::size_t p) const {
    std::size_t s = p;
    while (s > pos_ && buf_[s - 1] != '\n') --s;
    return s;
  }

  void line(std::size_t from, std::size_t to) {
    current_ = from;
    detail::clean_line(std::string_view(buf_.data() + from, to - from), clean_);
    parser_.feed(clean_, log_.lines, base_ + from);
  }

  std::vector<std::string> lookback(std::size_t n) const {
    std::vector<std::string> out;
    std::size_t end = current_;
    CleanLine c;
    while (out.size() < n && end > 0) {
      const std::size_t last = end - 1;  // the '\n' that ends the previous line
      std::size_t start = last;
      while (start > 0 && buf_[start - 1] != '\n') --start;
      if (start == 0 && base_ > 0) break;  // that line may have begun before what the buffer holds
      detail::clean_line(std::string_view(buf_.data() + start, last - start), c);
      out.push_back(c.text);
      end = start;
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  LogFile& log_;
  Parser parser_;
  ProgressSink* progress_;
  std::stop_token stop_;
  std::uint64_t total_;
  std::string buf_;
  std::size_t len_ = 0, pos_ = 0, current_ = 0;
  std::uint64_t base_ = 0;  // file offset of buf_[0]
  bool skipping_ = false;
  const detail::AnchorScan& scan_ = anchor_scan();
  std::size_t next_ = kUnknown;  // cached next_anchor(), until pos_ passes it or the buffer changes
  std::string head_;
  CleanLine clean_;
};

}  // namespace

LogFile read_log(const std::string& path, ProgressSink& progress, std::stop_token stop) {
  Input input(path);
  LogFile log;
  log.path = path;
  Source src;
  src.input = &input;
  Scanner(log, &progress, std::move(stop), input.size()).run(src);
  return log;
}

LogFile read_log_text(std::string_view text, std::string name) {
  LogFile log;
  log.path = std::move(name);
  Source src;
  src.text = text;
  Scanner(log, nullptr, {}, text.size()).run(src);
  return log;
}

}  // namespace oomscope::log
