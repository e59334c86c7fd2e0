// Recognising a file by its first bytes (decompressed first when gzip'd), never by its name.

#include "core/snapshot/file_kind.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "core/util/error.h"
#include "core/util/gzip.h"

namespace oomscope::snapshot {

namespace {

constexpr std::size_t kHead = 64 * 1024;
constexpr unsigned char kRiegeli[8] = {0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f};

bool varint(std::string_view s, std::size_t& p, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && p < s.size(); shift += 7) {
    const auto c = static_cast<unsigned char>(s[p++]);
    v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}

// Walks top-level protobuf fields of the prefix; returns the highest field number seen, 0 when the bytes
// are not protobuf (an invalid tag, a length past a complete file).
std::uint32_t protobuf_max_field(std::string_view s, bool complete, std::uint32_t& fields) {
  std::size_t p = 0;
  std::uint32_t max_field = 0;
  fields = 0;
  while (p < s.size()) {
    std::uint64_t tag = 0, v = 0;
    if (!varint(s, p, tag)) return complete ? 0 : max_field;
    const std::uint64_t num = tag >> 3, type = tag & 7;
    if (num == 0 || num > 536870911 || type == 3 || type == 4 || type > 5) return 0;
    if (type == 0) {
      if (!varint(s, p, v)) return complete ? 0 : max_field;
    } else if (type == 1) {
      p += 8;
    } else if (type == 5) {
      p += 4;
    } else {
      if (!varint(s, p, v)) return complete ? 0 : max_field;
      if (complete && v > s.size() - p) return 0;
      p += v;
    }
    max_field = std::max<std::uint32_t>(max_field, static_cast<std::uint32_t>(num));
    ++fields;
    if (p > s.size() && complete) return 0;
  }
  return max_field;
}

std::size_t skip_ws(std::string_view s, std::size_t p = 0) {
  while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  return p;
}

// "[[-1, 1, 4096, 0], ..." : the first row has exactly four numbers.
bool hta_raw_rows(std::string_view s, std::size_t p) {
  if (p >= s.size() || s[p] != '[') return false;
  p = skip_ws(s, p + 1);
  if (p >= s.size() || s[p] != '[') return false;
  const std::size_t close = s.find(']', p);
  if (close == std::string_view::npos) return false;
  const std::string_view row = s.substr(p + 1, close - p - 1);
  int commas = 0;
  for (char c : row) {
    if (c == ',')
      ++commas;
    else if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-' &&
             !std::isspace(static_cast<unsigned char>(c)))
      return false;
  }
  return commas == 3;
}

// "[[", "[{", "[\"", "[]" or "[-1.5," start a JSON list; "[rank3]:" or "[2024-01-01 10:00:00]" start a log
// line.
bool json_list_start(std::string_view s, std::size_t p) {
  const std::size_t q = skip_ws(s, p + 1);
  if (q >= s.size()) return true;
  const char c = s[q];
  if (c == '[' || c == '{' || c == '"' || c == ']') return true;
  if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-') return false;
  std::size_t e = q;
  while (e < s.size() && e < q + 64 &&
         (std::isdigit(static_cast<unsigned char>(s[e])) || s[e] == '.' || s[e] == 'e' || s[e] == 'E' ||
          s[e] == '+' || s[e] == '-'))
    ++e;
  const std::size_t after = skip_ws(s, e);
  return after < s.size() && (s[after] == ',' || s[after] == ']');
}

std::string printable_start(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '.';
  return out;
}

std::string hex_start(std::string_view s) {
  std::string out;
  char buf[4];
  for (std::size_t i = 0; i < s.size() && i < 8; ++i) {
    std::snprintf(buf, sizeof buf, "%02x ", static_cast<unsigned char>(s[i]));
    out += buf;
  }
  if (!out.empty()) out.pop_back();
  return out;
}

FileKindInfo classify(std::string_view s, bool gz, bool complete) {
  FileKindInfo k;
  k.gzip = gz;
  const std::string post = gz ? " (gzip-compressed)" : "";
  if (s.empty()) {
    k.looks_like = gz ? "an empty gzip stream" : "an empty file";
    return k;
  }
  const auto c0 = static_cast<unsigned char>(s[0]);
  if (c0 == 0x80 && s.size() >= 2 && s[1] >= 0 &&
      s[1] <= 16) {  // PROTO; the reader says which versions it takes
    k.kind = FileKind::TorchSnapshot;
    k.looks_like = "a Python pickle (protocol " + std::to_string(static_cast<int>(s[1])) + ")" + post;
    return k;
  }
  if (s.size() >= 8 && std::memcmp(s.data(), kRiegeli, 8) == 0) {
    k.kind = FileKind::XSpace;
    k.looks_like = "a Riegeli chunked capture";
    return k;
  }
  if (s.size() >= 4 && std::memcmp(s.data(), "PK\x03\x04", 4) == 0) {
    k.looks_like =
        "a ZIP archive (a torch.save() checkpoint or a .pt model?), not a memory snapshot or profile" + post;
    return k;
  }
  const std::size_t p = skip_ws(s, s.starts_with("\xef\xbb\xbf") ? 3 : 0);  // after a UTF-8 byte-order mark
  if (p < s.size() && s[p] == '<') {
    k.looks_like =
        "an HTML or XML page (a memory_viz / trace_plot export?); open the .pickle or trace it was made "
        "from" +
        post;
    return k;
  }
  if (p < s.size() && (s[p] == '{' || (s[p] == '[' && json_list_start(s, p)))) {
    if (s.find("\"traceEvents\"") != std::string_view::npos ||
        (s[p] == '[' && s.find("\"ph\"") != std::string_view::npos &&
         s.find("\"ts\"") != std::string_view::npos)) {
      k.kind = FileKind::ChromeTrace;
      k.looks_like = "Chrome trace JSON (torch.profiler / Kineto)" + post;
    } else if (hta_raw_rows(s, p)) {
      k.kind = FileKind::HtaRawTimeline;
      k.looks_like = "a torch.profiler raw memory timeline (export_memory_timeline .raw.json.gz)" + post;
    } else if (s.find("\"memoryProfilePerAllocator\"") != std::string_view::npos) {
      k.looks_like =
          "an XProf memory_profile tool output (JSON); open the .xplane.pb capture it was made from" + post;
    } else if (s.find("\"device_traces\"") != std::string_view::npos ||
               s.find("\"segments\"") != std::string_view::npos) {
      k.kind = FileKind::TorchSnapshot;
      k.looks_like = "a PyTorch allocator snapshot written as JSON" + post;
    } else if (s[p] == '[') {
      k.looks_like =
          "a JSON list (a non-raw export_memory_timeline [times, sizes] file?), not a format oomscope reads" +
          post;
    } else {
      k.looks_like = "JSON, but not a Chrome trace, memory timeline or snapshot (starts '" +
                     printable_start(s.substr(p)) + "')" + post;
    }
    return k;
  }
  std::uint32_t fields = 0;
  const std::uint32_t max_field = protobuf_max_field(s, complete, fields);
  if (max_field > 0 && fields > 0) {
    if (max_field >= 5 && max_field <= 14) {
      k.kind = FileKind::Pprof;
      k.looks_like = "a pprof Profile protobuf (jax.profiler.save_device_memory_profile)" + post;
      return k;
    }
    if (max_field <= 4) {
      k.kind = FileKind::XSpace;
      k.looks_like = "a protobuf (an XSpace profiler capture)" + post;
      return k;
    }
  }
  // Text: printable ASCII, whitespace, well-formed UTF-8, ESC of colour codes, and at most one stray byte (a
  // NUL, another control, a byte of no UTF-8 sequence) in 64 of the first 4 KiB. Text is a log candidate; the
  // log reader decides. Binary data with a little ASCII in it (a damaged capture) is not text.
  std::size_t control = 0;
  const std::string_view sample = s.substr(0, 4096);
  for (std::size_t i = 0; i < sample.size(); ++i) {
    const auto u = static_cast<unsigned char>(sample[i]);
    if (u < 0x80) {
      if ((u < 0x20 && !std::isspace(u) && u != 0x1b) || u == 0x7f) ++control;
      continue;
    }
    const std::size_t len = u >= 0xc2 && u <= 0xdf   ? 2
                            : u >= 0xe0 && u <= 0xef ? 3
                            : u >= 0xf0 && u <= 0xf4 ? 4
                                                     : 0;
    std::size_t n = 1;
    while (len && n < len && i + n < sample.size() &&
           (static_cast<unsigned char>(sample[i + n]) & 0xc0) == 0x80)
      ++n;
    if (len == 0 || (n < len && i + n < sample.size())) {
      ++control;  // no UTF-8 sequence starts or continues here (a sequence cut by the sample's end is fine)
      continue;
    }
    i += n - 1;
  }
  if (control * 64 <= sample.size()) {
    k.kind = FileKind::Log;
    k.looks_like = "text starting '" + printable_start(s) + "'" + post;
    return k;
  }
  // Other binary data: most likely a damaged or cut capture; the capture reader says where it breaks.
  k.kind = FileKind::XSpace;
  k.looks_like = "binary data starting with bytes " + hex_start(s) + post;
  return k;
}

}  // namespace

const char* to_string(FileKind k) noexcept { return enum_name(kFileKindNames, k, "?"); }

FileKindInfo detect_kind_of_bytes(std::string_view bytes, bool complete) {
  if (is_gzip(bytes)) return classify(gunzip_prefix(bytes, kHead), true, false);
  return classify(bytes.substr(0, kHead), false, complete && bytes.size() <= kHead);
}

FileKindInfo detect_file_kind(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileKindInfo{FileKind::XSpace, false, "unreadable"};  // the capture reader words the error
  std::string head(kHead * 4, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  const bool complete = in.eof();
  if (head.empty())
    return FileKindInfo{FileKind::XSpace, false, "an empty file"};  // the capture reader says "empty"
  return detect_kind_of_bytes(head, complete);
}

void throw_unknown_kind(const std::string& path, const FileKindInfo& k) {
  throw Error(
      ErrorKind::NotACapture, path,
      "is not a file oomscope reads: it looks like " + k.looks_like +
          ". oomscope opens XLA captures (.xplane.pb), PyTorch memory snapshots (.pickle), Kineto traces "
          "(.json/.json.gz), memory timelines (.raw.json.gz) and JAX device memory profiles (.prof)");
}

}  // namespace oomscope::snapshot
