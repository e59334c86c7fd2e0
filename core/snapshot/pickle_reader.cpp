// The pickle virtual machine, restricted to data: see pickle_reader.h for what is accepted and refused.

#include "core/snapshot/pickle_reader.h"

#include <sys/mman.h>

#include <bit>
#include <cstring>
#include <optional>
#include <string_view>

#include "core/snapshot/detail/pickle_utf8.h"
#include "core/snapshot/detail/record_dict_decoder.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace oomscope::snapshot {

namespace {

constexpr std::uint64_t kUnset = ~0ull;
constexpr std::int64_t kInlineMax = (1ll << 59) - 1;
constexpr std::uint64_t kProgressStep = 4ull << 20;
constexpr std::uintptr_t kPage = 4096;
constexpr std::uintptr_t kWarmAhead = 4u << 20;  // per progress step the tables grow by less than this

#ifdef MADV_POPULATE_WRITE
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
constexpr int kPopulateWrite = 23;  // Linux 5.14; older kernels refuse it (EINVAL), which costs nothing
#endif

// Faults in, with one system call, the next pages of a table's reserved storage that its pushes will
// write: on this machine's VMs a page faulted one at a time on first write costs about 1.4x as much (300 MB
// of fresh pages: 1.55 s of CPU written in place, 1.10 s populated 2 MiB at a time). `warmed` is where the
// last call stopped. Only reserved (not yet constructed) storage is touched, and only to map it.
template <class T>
void warm_ahead(const std::vector<T>& v, std::uintptr_t& warmed) {
  warm_reserved(v.data(), v.size() * sizeof(T), v.capacity() * sizeof(T), warmed);
}

}  // namespace

void warm_reserved(const void* data, std::size_t used_bytes, std::size_t capacity_bytes,
                   std::uintptr_t& warmed) {
  const auto base = reinterpret_cast<std::uintptr_t>(data);
  if (!base) return;
  const std::uintptr_t cap_end = (base + capacity_bytes) & ~(kPage - 1);
  std::uintptr_t from = (base + used_bytes + kPage - 1) & ~(kPage - 1);
  if (warmed > from && warmed <= cap_end) from = warmed;
  const std::uintptr_t to = std::min(cap_end, ((base + used_bytes) & ~(kPage - 1)) + kWarmAhead);
  if (to <= from) return;
  ::madvise(reinterpret_cast<void*>(from), to - from, kPopulateWrite);
  warmed = to;
}

class PickleParser {
 public:
  PickleParser(PickleSource source, const std::string& name, ProgressSink& progress, std::stop_token stop,
               DictRecordSink* sink)
      : tree_(std::make_shared<PickleTree>()),
        name_(name),
        progress_(progress),
        stop_(std::move(stop)),
        sink_(sink) {
    fast_taken_ = source.fast_records_taken;
    if (sink_ && source.fast_records) records_.emplace(*tree_, memo_, source.data, source.size, *sink_);
    tree_->keep_ = std::move(source.keep);
    release_ = std::move(source.release);
    data_ = source.data;
    size_ = source.size;
    tree_->data_ = reinterpret_cast<const char*>(data_);
    // Generous first sizes (real snapshots hold about one node per 60 bytes, one item or memo entry per
    // 20): reserved address space costs no memory until it is written, and no vector is copied to grow.
    tree_->nodes_.reserve(static_cast<std::size_t>(size_ / 24 + 64));
    tree_->pool_.reserve(static_cast<std::size_t>(size_ / 12 + 64));
    memo_.reserve(static_cast<std::size_t>(size_ / 24 + 64));
    tree_->segments_.reserve(static_cast<std::size_t>(size_ / 48 + 64));  // at most one per container
  }

  std::shared_ptr<const PickleTree> run();

 private:
  [[noreturn]] void damaged(std::uint64_t at, const std::string& what) const {
    throw Error(
        ErrorKind::Damaged, name_,
        "the pickle is invalid at byte " + format_bytes_exact(static_cast<std::int64_t>(at)) + ": " + what)
        .at(at);
  }
  [[noreturn]] void truncated(std::uint64_t at, const std::string& inside) const {
    throw Error(ErrorKind::Truncated, name_,
                "the pickle is truncated: the file ends (" +
                    format_bytes_exact(static_cast<std::int64_t>(size_)) + " bytes) inside " + inside +
                    " that starts at byte " + format_bytes_exact(static_cast<std::int64_t>(at)) +
                    "; it was probably cut short while being written or copied")
        .at(at);
  }
  std::string op_text(std::uint8_t op) const {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", op);
    const char* n = pickle_opcode_name(op);
    return *n ? std::string(n) + " (" + hex + ")" : std::string("byte ") + hex;
  }

  const std::uint8_t* need(std::uint64_t n, const char* what) {
    if (n > size_ - pos_) truncated(op_at_, what);
    const std::uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  template <class T>
  T read_le(const char* what) {
    const std::uint8_t* p = need(sizeof(T), what);
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;  // little-endian hosts only (x86-64, aarch64)
  }

  Ref new_node(Tag tag, Node n) {
    if (tree_->nodes_.size() >= (1ull << 60)) damaged(op_at_, "too many values");
    tree_->nodes_.push_back(n);
    return Ref{((tree_->nodes_.size() - 1) << 3) | static_cast<std::uint64_t>(tag)};
  }
  Ref container(Tag tag) { return new_node(tag, Node{kNoRun, 0, kNoRun}); }
  Ref int_ref(std::int64_t v) {
    if (v >= -kInlineMax && v <= kInlineMax)
      return Ref{(static_cast<std::uint64_t>(v) << 3) | static_cast<std::uint64_t>(Tag::Int)};
    return new_node(Tag::Other,
                    Node{static_cast<std::uint64_t>(v), 0, static_cast<std::uint32_t>(OtherKind::Int64)});
  }
  Ref str_ref(std::uint64_t len, const char* what) {
    if (len > 0xffffffffull)
      damaged(op_at_, std::string(what) + " of " + format_bytes_exact(static_cast<std::int64_t>(len)) +
                          " bytes is longer than 4 GiB");
    const std::uint64_t off = pos_;
    const std::uint8_t* p = need(len, what);
    if (!detail::valid_utf8(p, static_cast<std::size_t>(len)))
      damaged(op_at_, std::string(what) + " is not valid UTF-8");
    return new_node(Tag::Str, Node{off, static_cast<std::uint32_t>(len), 0});
  }
  Ref bytes_ref(std::uint64_t len, const char* what) {
    if (len > 0xffffffffull) damaged(op_at_, std::string(what) + " is longer than 4 GiB");
    const std::uint64_t off = pos_;
    need(len, what);
    return new_node(Tag::Other,
                    Node{off, static_cast<std::uint32_t>(len), static_cast<std::uint32_t>(OtherKind::Bytes)});
  }

  void push(Ref r) { stack_.push_back(r); }
  Ref pop(const char* op) {
    if (stack_.size() <= floor()) damaged(op_at_, std::string(op) + " needs a value but the stack is empty");
    Ref r = stack_.back();
    stack_.pop_back();
    return r;
  }
  Ref& top(const char* op) {
    if (stack_.size() <= floor()) damaged(op_at_, std::string(op) + " needs a value but the stack is empty");
    return stack_.back();
  }
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::size_t pop_mark(const char* op) {
    if (marks_.empty()) damaged(op_at_, std::string(op) + " has no MARK before it");
    const std::size_t m = marks_.back();
    marks_.pop_back();
    return m;
  }

  // Appends stack_[from, end) to a container and drops them from the stack.
  void extend(Ref target, std::size_t from) {
    const std::size_t n = stack_.size() - from;
    if (n == 0) {
      stack_.resize(from);
      return;
    }
    Node& node = tree_->nodes_[PickleTree::index(target)];
    if (node.a & PickleTree::kRecordBit)
      damaged(op_at_, "a dict gets more items after its first batch was complete");
    if (static_cast<std::uint64_t>(node.b) + n > 0xffffffffull)
      damaged(op_at_, "a container holds more than 4 billion items");
    auto& pool = tree_->pool_;
    auto& segs = tree_->segments_;
    const std::uint64_t start = pool.size();
    pool.insert(pool.end(), stack_.begin() + static_cast<std::ptrdiff_t>(from), stack_.end());
    stack_.resize(from);
    if (node.c != kNoRun && segs[node.a].start + segs[node.a].count == start &&
        segs[node.a].count + n <= 0xffffffffull) {
      segs[node.a].count += static_cast<std::uint32_t>(n);
    } else {
      if (segs.size() >= kNoRun) damaged(op_at_, "too many container batches");
      segs.push_back(ItemRun{start, static_cast<std::uint32_t>(n), kNoRun});
      const auto s = static_cast<std::uint32_t>(segs.size() - 1);
      if (node.c == kNoRun)
        node.c = s;
      else
        segs[node.a].next = s;
      node.a = s;
    }
    node.b += static_cast<std::uint32_t>(n);
  }

  void memo_put(std::uint64_t idx) {
    const Ref v = top("a memo store");
    if (idx < memo_.size()) {
      memo_[idx] = v;
    } else if (idx == memo_.size()) {
      memo_.push_back(v);
    } else {
      // Explicit indexes count up from 0 in every writer; a far jump is a damaged or hostile file.
      if (idx > memo_.size() + (1u << 20) || idx > size_)
        damaged(op_at_, "memo index " + std::to_string(idx) + " is out of range");
      memo_.resize(static_cast<std::size_t>(idx), Ref{kUnset});
      memo_.push_back(v);
    }
  }
  void memo_get(std::uint64_t idx) {
    if (idx >= memo_.size() || memo_[idx].bits == kUnset)
      damaged(op_at_, "memo reference " + std::to_string(idx) + " refers to nothing stored (" +
                          std::to_string(memo_.size()) + " entries)");
    push(memo_[idx]);
  }

  Ref long_value(std::uint64_t n) {
    if (n > 9)
      damaged(op_at_, "an integer of " + format_bytes_exact(static_cast<std::int64_t>(n)) +
                          " bytes is larger than any snapshot value (at most 9 bytes)");
    const std::uint8_t* p = need(n, "an integer");
    if (n == 0) return int_ref(0);
    if (n == 9) {
      if (p[8] != 0)
        damaged(op_at_, "a 9-byte integer is negative or at least 2^64 (no 64-bit field holds it)");
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      if (v <= static_cast<std::uint64_t>(INT64_MAX)) return int_ref(static_cast<std::int64_t>(v));
      return new_node(Tag::Other, Node{v, 0, static_cast<std::uint32_t>(OtherKind::UInt64)});
    }
    std::uint64_t v = 0;
    for (std::uint64_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    if (n < 8 && (p[n - 1] & 0x80)) v |= ~0ull << (8 * n);  // sign-extend
    return int_ref(static_cast<std::int64_t>(v));
  }

  [[noreturn]] void refuse(std::uint8_t op) {
    damaged(op_at_,
            "refused opcode " + op_text(op) +
                ": it names or calls Python code (an object, not data); snapshot files never contain it, and "
                "oomscope does not run pickle code");
  }

  std::shared_ptr<PickleTree> tree_;
  const std::string& name_;
  ProgressSink& progress_;
  std::stop_token stop_;
  DictRecordSink* sink_ = nullptr;
  std::function<void(std::uint64_t)> release_;
  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t pos_ = 0;
  std::uint64_t op_at_ = 0;
  std::vector<Ref> stack_;
  std::vector<std::size_t> marks_;
  std::vector<Ref> memo_;
  std::uintptr_t warmed_[4] = {0, 0, 0, 0};   // warm_ahead() of nodes_, pool_, memo_, segments_
  std::optional<RecordDictDecoder> records_;  // the fast path for the sink's records
  std::uint64_t* fast_taken_ = nullptr;
};

std::shared_ptr<const PickleTree> PickleParser::run() {
  if (size_ < 2 || data_[0] != 0x80)
    throw Error(ErrorKind::NotACapture, name_,
                "is not a pickle of protocol 2 or later (it does not start with PROTO, byte 0x80)");
  std::uint64_t next_progress = kProgressStep;
  while (true) {
    if (pos_ >= next_progress) {
      if (stop_.stop_requested()) throw Cancelled(name_);
      progress_.report(static_cast<double>(pos_) / static_cast<double>(size_), "reading pickle");
      next_progress = pos_ + kProgressStep;
      if (release_ && pos_ > (2u << 20)) release_(pos_ - (1u << 20));  // parsed bytes leave memory
      warm_ahead(tree_->nodes_, warmed_[0]);
      warm_ahead(tree_->pool_, warmed_[1]);
      warm_ahead(memo_, warmed_[2]);
      warm_ahead(tree_->segments_, warmed_[3]);
    }
    op_at_ = pos_;
    if (pos_ >= size_)
      throw Error(ErrorKind::Truncated, name_,
                  "the pickle is truncated: the file ends after " +
                      format_bytes_exact(static_cast<std::int64_t>(size_)) +
                      " bytes with no STOP opcode; it was probably cut short while being written or copied");
    const std::uint8_t op = data_[pos_++];
    switch (op) {
      case 0x80: {  // PROTO
        const std::uint8_t v = *need(1, "PROTO");
        if (v < 2 || v > 5)
          damaged(op_at_, "pickle protocol " + std::to_string(v) + " is not supported (2 to 5 are)");
        break;
      }
      case 0x95: {  // FRAME: informational, but its length must fit in the file
        const std::uint64_t len = read_le<std::uint64_t>("FRAME");
        if (len > size_ - pos_)
          truncated(op_at_, "a FRAME of " +
                                format_bytes_exact(
                                    static_cast<std::int64_t>(std::min<std::uint64_t>(len, INT64_MAX))) +
                                " bytes");
        break;
      }
      case 0x2e: {  // STOP
        if (!marks_.empty())
          damaged(op_at_, "STOP with " + std::to_string(marks_.size()) + " MARK(s) still open");
        if (stack_.empty()) damaged(op_at_, "STOP with nothing on the stack");
        tree_->root_ = stack_.back();
        if (fast_taken_) *fast_taken_ = records_ ? records_->taken() : 0;
        progress_.report(1.0, "reading pickle");
        return tree_;
      }
      case 0x28:  // MARK
        if (marks_.size() >= kMaxPickleNesting)
          damaged(op_at_, "more than " + std::to_string(kMaxPickleNesting) + " nested MARKs (nesting limit)");
        marks_.push_back(stack_.size());
        break;
      case 0x30:
        pop("POP");
        break;
      case 0x31:
        stack_.resize(pop_mark("POP_MARK"));
        break;
      case 0x32:
        push(top("DUP"));
        break;
      case 0x7d: {  // EMPTY_DICT: a trace entry's shape is read by the fast path when a sink takes it
        Ref dict;
        if (records_ && records_->worth_trying()) {
          if (const std::uint64_t end = records_->decode(pos_, marks_.size(), dict)) {
            pos_ = end;
            push(dict);
            break;
          }
        }
        push(container(Tag::Dict));
        break;
      }
      case 0x5d:
        push(container(Tag::List));
        break;
      case 0x29:
        push(container(Tag::Tuple));
        break;
      case 0x4e:
        push(Ref{static_cast<std::uint64_t>(Tag::None)});
        break;
      case 0x88:
        push(Ref{(1u << 3) | static_cast<std::uint64_t>(Tag::Bool)});
        break;
      case 0x89:
        push(Ref{static_cast<std::uint64_t>(Tag::Bool)});
        break;
      case 0x4b:
        push(int_ref(*need(1, "BININT1")));
        break;
      case 0x4d:
        push(int_ref(read_le<std::uint16_t>("BININT2")));
        break;
      case 0x4a:
        push(int_ref(read_le<std::int32_t>("BININT")));
        break;
      case 0x8a:
        push(long_value(*need(1, "LONG1")));
        break;
      case 0x8b: {
        const std::int32_t n = read_le<std::int32_t>("LONG4");
        if (n < 0) damaged(op_at_, "LONG4 has a negative length");
        push(long_value(static_cast<std::uint64_t>(n)));
        break;
      }
      case 0x47: {  // BINFLOAT, big-endian
        const std::uint64_t be = read_le<std::uint64_t>("BINFLOAT");
        push(new_node(Tag::Other,
                      Node{__builtin_bswap64(be), 0, static_cast<std::uint32_t>(OtherKind::Float)}));
        break;
      }
      case 0x8c:
        push(str_ref(*need(1, "SHORT_BINUNICODE"), "a string"));
        break;
      case 0x58:
        push(str_ref(read_le<std::uint32_t>("BINUNICODE"), "a string"));
        break;
      case 0x8d:
        push(str_ref(read_le<std::uint64_t>("BINUNICODE8"), "a string"));
        break;
      case 0x43:
        push(bytes_ref(*need(1, "SHORT_BINBYTES"), "a bytes value"));
        break;
      case 0x42:
        push(bytes_ref(read_le<std::uint32_t>("BINBYTES"), "a bytes value"));
        break;
      case 0x8e:
        push(bytes_ref(read_le<std::uint64_t>("BINBYTES8"), "a bytes value"));
        break;
      case 0x96:
        push(bytes_ref(read_le<std::uint64_t>("BYTEARRAY8"), "a bytearray value"));
        break;
      case 0x94:
        memo_put(memo_.size());
        break;  // MEMOIZE
      case 0x71:
        memo_put(*need(1, "BINPUT"));
        break;
      case 0x72:
        memo_put(read_le<std::uint32_t>("LONG_BINPUT"));
        break;
      case 0x68:
        memo_get(*need(1, "BINGET"));
        break;
      case 0x6a:
        memo_get(read_le<std::uint32_t>("LONG_BINGET"));
        break;
      case 0x61: {  // APPEND
        const Ref v = pop("APPEND");
        const Ref list = top("APPEND");
        if (list.tag() != Tag::List) damaged(op_at_, "APPEND onto something that is not a list");
        stack_.push_back(v);
        extend(list, stack_.size() - 1);
        break;
      }
      case 0x65: {  // APPENDS
        const std::size_t m = pop_mark("APPENDS");
        if (m == 0 || m <= floor() || stack_[m - 1].tag() != Tag::List)
          damaged(op_at_, "APPENDS without a list below its MARK");
        extend(stack_[m - 1], m);
        break;
      }
      case 0x73: {  // SETITEM
        if (stack_.size() < floor() + 3 || stack_[stack_.size() - 3].tag() != Tag::Dict)
          damaged(op_at_, "SETITEM without a dict, key and value on the stack");
        extend(stack_[stack_.size() - 3], stack_.size() - 2);
        break;
      }
      case 0x75: {  // SETITEMS
        const std::size_t m = pop_mark("SETITEMS");
        if (m == 0 || m <= floor() || stack_[m - 1].tag() != Tag::Dict)
          damaged(op_at_, "SETITEMS without a dict below its MARK");
        if ((stack_.size() - m) % 2) damaged(op_at_, "SETITEMS with an odd number of keys and values");
        if (sink_ && stack_.size() > m && tree_->nodes_[PickleTree::index(stack_[m - 1])].b == 0 &&
            !(tree_->nodes_[PickleTree::index(stack_[m - 1])].a & PickleTree::kRecordBit)) {
          std::uint32_t record = 0;
          if (sink_->take(*tree_, stack_.data() + m, stack_.size() - m, record)) {
            tree_->nodes_[PickleTree::index(stack_[m - 1])].a = PickleTree::kRecordBit | record;
            stack_.resize(m);
            break;
          }
        }
        extend(stack_[m - 1], m);
        break;
      }
      case 0x6c:
      case 0x64:
      case 0x74: {  // LIST, DICT, TUPLE (mark-based)
        const std::size_t m = pop_mark(pickle_opcode_name(op));
        if (op == 0x64 && (stack_.size() - m) % 2)
          damaged(op_at_, "DICT with an odd number of keys and values");
        const Ref c = container(op == 0x6c ? Tag::List : op == 0x64 ? Tag::Dict : Tag::Tuple);
        extend(c, m);
        push(c);
        break;
      }
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const std::size_t n = op - 0x84u;
        if (stack_.size() < floor() + n)
          damaged(op_at_, std::string(pickle_opcode_name(op)) + " needs " + std::to_string(n) +
                              " values on the stack");
        const Ref c = container(Tag::Tuple);
        extend(c, stack_.size() - n);
        push(c);
        break;
      }
      case 0x63:
      case 0x93:
      case 0x52:
      case 0x62:
      case 0x69:
      case 0x6f:
      case 0x81:
      case 0x92:
      case 0x50:
      case 0x51:
      case 0x82:
      case 0x83:
      case 0x84:
        refuse(op);
      case 0x97:
      case 0x98:
        damaged(op_at_, "refused opcode " + op_text(op) +
                            ": an out-of-band buffer (pickle protocol 5) whose bytes are not in the file; "
                            "snapshot files never contain one");
      default: {
        const char* n = pickle_opcode_name(op);
        if (*n)
          damaged(op_at_, "unsupported opcode " + op_text(op) +
                              " (a text-protocol, set or other opcode that snapshot writers never emit)");
        damaged(op_at_, "byte " + op_text(op) + " is not a pickle opcode");
      }
    }
  }
}

std::shared_ptr<const PickleTree> parse_pickle(PickleSource source, const std::string& name,
                                               ProgressSink& progress, std::stop_token stop,
                                               DictRecordSink* sink) {
  PickleParser parser(std::move(source), name, progress, std::move(stop), sink);
  return parser.run();
}

std::shared_ptr<const PickleTree> parse_pickle(std::shared_ptr<const capture::MappedFile> file,
                                               const std::string& name, ProgressSink& progress,
                                               std::stop_token stop, DictRecordSink* sink) {
  PickleSource source{file->data(), file->size(), std::move(file), {}};
  return parse_pickle(std::move(source), name, progress, std::move(stop), sink);
}

}  // namespace oomscope::snapshot
