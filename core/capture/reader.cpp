// Entry points: read_capture (file), read_capture_from_memory (fuzzer, tests), read_hlo_proto_file
// (bare HloProto sidecar); recognising files that are not captures and wording every error.

#include "core/capture/reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <new>

#include "core/capture/companion.h"
#include "core/capture/detail/capture_builder.h"
#include "core/capture/detail/xplane_fields.h"
#include "core/capture/input_checks.h"
#include "core/capture/parse_cost.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/gzip.h"
#include "hlo.pb.h"

namespace oomscope::capture {

namespace {

constexpr unsigned char kRiegeliMagic[8] = {0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f};

void reject_other_formats(const MappedFile& file, const std::string& path) {
  const std::string_view bytes = file.view();
  if (is_gzip(bytes))
    throw Error(
        ErrorKind::Gzip, path,
        "this is gzip-compressed data inside a capture that was already decompressed; a .trace.json.gz "
        "trace-viewer export is not a capture: open the .xplane.pb beside it");
  if ((bytes.size() >= 8 && std::memcmp(bytes.data(), kRiegeliMagic, 8) == 0) || path.ends_with(".riegeli"))
    throw Error(ErrorKind::Riegeli, path,
                "this is a Riegeli chunked capture (.xplane.riegeli), which oomscope cannot read; export the "
                "profile as a single .xplane.pb");
}

std::string at_byte(std::uint64_t offset) {
  return "at byte " + format_bytes_exact(static_cast<std::int64_t>(offset));
}

// A binary file pushed through a text conversion has every invalid UTF-8 byte replaced by U+FFFD
// (EF BF BD); many of them explain the damage better than any offset.
std::string text_mangling_hint(std::string_view bytes) {
  bytes = bytes.substr(0, 64u << 20);  // enough to tell, and a huge damaged file is not read through
  std::size_t count = 0;
  for (std::size_t at = bytes.find("\xef\xbf\xbd"); at != std::string_view::npos;
       at = bytes.find("\xef\xbf\xbd", at + 3))
    ++count;
  if (count < 16) return "";
  return "; it holds " + format_bytes_exact(static_cast<std::int64_t>(count)) +
         " U+FFFD replacement characters (EF BF BD), so it was probably mangled by a text-mode copy or an "
         "editor";
}

[[noreturn]] void throw_shrank(const MappedFile& file, const std::string& path) {
  std::string now;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    now = ", " + format_bytes_exact(static_cast<std::int64_t>(st.st_size)) + " now";
  throw Error(ErrorKind::Changed, path,
              "the file shrank while it was being read (it was " +
                  format_bytes_exact(static_cast<std::int64_t>(file.size())) + " bytes" + now +
                  "); it is probably still being written or replaced: read it again once it is complete");
}

// `where` names the bytes in errors: "" for a plain file, " of the decompressed data" for a .gz.
std::shared_ptr<const Capture> read_mapped(std::shared_ptr<const MappedFile> file, const std::string& path,
                                           ProgressSink& progress, std::stop_token stop,
                                           const std::string& where = "") {
  if (file->size() == 0)
    throw Error(ErrorKind::Empty, path, "the file is empty (0 bytes); the capture was not written");
  reject_other_formats(*file, path);
  // The start is checked before the rest of the file is read in: a big file of zeros or of something else
  // is refused after one page.
  if (auto why = xspace_start_problem(file->view())) {
    if (file->shrank()) throw_shrank(*file, path);
    throw Error(ErrorKind::NotACapture, path,
                "this is not an XSpace capture: " + *why + text_mangling_hint(file->view()));
  }
  file->prefetch();
  const std::uint64_t size = file->size();
  const std::shared_ptr<const MappedFile> keep = file;
  try {
    CaptureBuilder builder(std::move(file), path, progress, std::move(stop));
    if (!where.empty()) builder.set_decompressed();
    auto capture = builder.build();
    if (keep->shrank()) throw_shrank(*keep, path);
    return capture;
  } catch (const wire::WireError& e) {
    if (keep->shrank()) throw_shrank(*keep, path);
    if (e.truncated)
      throw Error(
          ErrorKind::Truncated, path,
          "the capture is truncated: it reads as an XSpace capture but ends in the middle of a field (" +
              e.what + ", " + at_byte(e.offset) + " of " +
              format_bytes_exact(static_cast<std::int64_t>(size)) + where +
              "); the file was probably cut short while being written or copied")
          .at(e.offset);
    throw Error(ErrorKind::Damaged, path,
                "the capture is damaged " + at_byte(e.offset) + where + ", after " +
                    (e.offset == 1 ? std::string("a first byte that reads") : "bytes that read") +
                    " as an XSpace capture: " + e.what + " (the bytes there are not valid protobuf)" +
                    text_mangling_hint(keep->view()))
        .at(e.offset);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::TooLarge, path,
                "there is not enough memory to read this " + format_bytes(size) + " capture");
  } catch (const Error&) {
    if (keep->shrank()) throw_shrank(*keep, path);
    throw;
  }
}

}  // namespace

std::optional<std::string> xspace_start_problem(std::string_view bytes) {
  if (bytes.empty()) return "it is empty";
  std::size_t zeros = 0;
  while (zeros < bytes.size() && zeros < (1u << 20) && bytes[zeros] == '\0') ++zeros;
  if (zeros == bytes.size())
    return "it holds nothing but zero bytes (" + format_bytes_exact(static_cast<std::int64_t>(zeros)) + ")";
  if (zeros == (1u << 20)) return "its first 1 MiB is all zero bytes, where an XSpace field must begin";
  if (zeros > 0)
    return "it starts with " + format_bytes_exact(static_cast<std::int64_t>(zeros)) +
           " zero bytes, where an XSpace field must begin";
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const auto hex = [&] {
    static const char digits[] = "0123456789abcdef";
    std::string out = "first bytes";
    for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
      out += ' ';
      out += digits[p[i] >> 4];
      out += digits[p[i] & 15];
    }
    return out;
  };
  std::uint64_t tag = 0;
  std::size_t i = 0;
  for (int shift = 0;; shift += 7) {
    if (i >= bytes.size()) return std::nullopt;  // cut inside the first tag: the scan says "truncated"
    if (shift >= 64) return "its first field's tag is longer than 10 bytes (" + hex() + ")";
    tag |= static_cast<std::uint64_t>(p[i] & 0x7f) << shift;
    if (p[i++] < 0x80) break;
  }
  const std::uint64_t number = tag >> 3, type = tag & 7;
  constexpr auto kVarint = static_cast<std::uint64_t>(wire::WireType::Varint);
  constexpr auto kLen = static_cast<std::uint64_t>(wire::WireType::Len);
  if (number == xf::XSpace::kPlanesFieldNumber && type == kLen) {
    // A plane: its first field must be one of XPlane's (id a number; name, lines, metadata, stats
    // length-delimited), else this is something else that happens to begin with byte 0A (a newline).
    std::uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      if (i >= bytes.size() || shift >= 64) return std::nullopt;  // cut or odd: left to the scan
      length |= static_cast<std::uint64_t>(p[i] & 0x7f) << shift;
      if (p[i++] < 0x80) break;
    }
    if (length == 0 || i >= bytes.size()) return std::nullopt;
    const std::uint8_t inner = p[i];
    const unsigned inner_number = inner >> 3, inner_type = inner & 7;
    static_assert(xf::XPlane::kIdFieldNumber == 1 && xf::XPlane::kNameFieldNumber == 2 &&
                  xf::XPlane::kStatsFieldNumber == 6);
    const bool plane_field = (inner_number == xf::XPlane::kIdFieldNumber && inner_type == kVarint) ||
                             (inner_number >= xf::XPlane::kNameFieldNumber &&
                              inner_number <= xf::XPlane::kStatsFieldNumber && inner_type == kLen);
    if (!plane_field && inner < 0x80)
      return "it begins like an XSpace plane, but the plane's first field is not one a plane has (" + hex() +
             ")";
    return std::nullopt;
  }
  // errors, warnings, hostnames
  if (number >= xf::XSpace::kErrorsFieldNumber && number <= xf::XSpace::kHostnamesFieldNumber && type == kLen)
    return std::nullopt;
  constexpr auto kStartGroup = static_cast<std::uint64_t>(wire::WireType::StartGroup);
  constexpr auto kEndGroup = static_cast<std::uint64_t>(wire::WireType::EndGroup);
  constexpr auto kFixed32 = static_cast<std::uint64_t>(wire::WireType::Fixed32);
  if (number == 0 || number > wire::kMaxFieldNumber || type == kStartGroup || type == kEndGroup ||
      type > kFixed32)
    return "its first bytes are not even a protobuf field (" + hex() + ")";
  return "its first field is number " + std::to_string(number) + " of wire type " + std::to_string(type) +
         ", while an XSpace starts with a plane, error, warning or hostname (fields 1 to 4, "
         "length-delimited; " +
         hex() + ")";
}

CaptureBuilder::CaptureBuilder(std::shared_ptr<const MappedFile> file, std::string path,
                               ProgressSink& progress, std::stop_token stop)
    : file_(std::move(file)),
      path_(std::move(path)),
      progress_(progress),
      stop_(std::move(stop)),
      capture_(new Capture()),
      internals_(new CaptureInternals()),
      window_(*file_) {
  capture_->strings_.emplace_back();
  errors_.kept = &capture_->errors_;
  warnings_.kept = &capture_->warnings_;
  hostnames_.kept = &capture_->hostnames_;
}

std::shared_ptr<const Capture> CaptureBuilder::build() {
  progress_.report(0.0, "reading planes");
  try {
    scan_space();
  } catch (wire::WireError& e) {
    if (!e.truncated) throw;
    accept_cut(e);  // keeps what was read whole, or throws e
  }
  window_.flush();
  warmer_.wait();  // the tables may be reallocated from here on
  bool named = false;
  for (const Plane& p : capture_->planes_) named = named || !p.name.empty();
  if (!named) {
    std::string why = "the file is valid protobuf but not an XSpace capture: it has no named planes";
    if (path_.ends_with(".hlo_proto.pb")) why += " (it looks like a bare HloProto sidecar)";
    throw Error(ErrorKind::NotACapture, path_, why);
  }
  finish_modules();
  finish_runtime();
  finish_notes();
  capture_->path_ = path_;
  capture_->file_size_ = file_->size();
  capture_->mapping_ = file_;
  capture_->internals_ = std::move(internals_);
  progress_.report(1.0, "done");
  return std::shared_ptr<const Capture>(capture_.release());
}

namespace {

std::shared_ptr<const Capture> read_capture_file(const std::string& path, ProgressSink& progress,
                                                 std::stop_token stop) {
  // A .gz may be bigger than 2 GiB only if it decompresses to more, which gunzip_capture() refuses.
  auto file = MappedFile::open(path, 2 * wire::kMaxMessageBytes);
  if (is_gzip(file->view())) {
    std::string bytes;
    try {
      bytes = gunzip_capture(file->view(), path, wire::kMaxMessageBytes, progress, stop);
    } catch (const std::bad_alloc&) {
      throw Error(ErrorKind::TooLarge, path, "there is not enough memory to decompress this capture");
    } catch (const Error&) {
      if (file->shrank()) throw_shrank(*file, path);
      throw;
    }
    if (file->shrank()) throw_shrank(*file, path);
    file.reset();
    return read_mapped(MappedFile::from_bytes(std::move(bytes)), path, progress, std::move(stop),
                       " of the decompressed data");
  }
  if (file->size() > wire::kMaxMessageBytes)
    throw Error(
        ErrorKind::TooLarge, path,
        "the file is " + format_bytes(file->size()) + ", larger than the 2 GiB a protobuf capture can hold");
  return read_mapped(std::move(file), path, progress, std::move(stop));
}

}  // namespace

std::shared_ptr<const Capture> read_capture(const std::string& path, ProgressSink& progress,
                                            std::stop_token stop) {
  try {
    return read_capture_file(path, progress, std::move(stop));
  } catch (const Error& e) {
    // A .trace.json.gz (or another file written beside a capture): name the capture to open instead.
    if (auto instead = instead_of(e, path)) throw *instead;
    throw;
  }
}

std::shared_ptr<const Capture> read_capture_from_memory(std::string bytes, const std::string& name,
                                                        ProgressSink& progress, std::stop_token stop) {
  if (is_gzip(bytes)) {
    std::string inflated = gunzip_capture(bytes, name, wire::kMaxMessageBytes, progress, stop);
    bytes = std::string();
    return read_mapped(MappedFile::from_bytes(std::move(inflated)), name, progress, std::move(stop),
                       " of the decompressed data");
  }
  if (bytes.size() > wire::kMaxMessageBytes)
    throw Error(ErrorKind::TooLarge, name, "the data is larger than the 2 GiB a protobuf capture can hold");
  return read_mapped(MappedFile::from_bytes(std::move(bytes)), name, progress, std::move(stop));
}

Module read_hlo_proto_file(const std::string& path) {
  auto file = MappedFile::open(path, wire::kMaxMessageBytes);
  reject_other_formats(*file, path);
  file->prefetch();
  // The same bound as a capture's (reader_limits.cpp), checked before the parse allocates (parse_cost.h).
  const std::uint64_t budget = CaptureBuilder::kBudgetTimesFile * file->size() + CaptureBuilder::kBudgetFloor;
  const ParseCost cost = estimate_parse_cost(*xla::HloProto::descriptor(), file->view(), budget);
  if (cost.over_limit)
    throw Error(ErrorKind::TooLarge, path,
                "the HloProto is implausible: parsing it would take more than " + format_bytes(budget) +
                    " of memory, " + std::to_string(CaptureBuilder::kBudgetTimesFile) +
                    " times its size and more; it was probably crafted or damaged");
  auto hlo = cost.malformed ? nullptr : parse_hlo_proto(file->view());
  if (!hlo || !hlo->has_hlo_module())
    throw Error(ErrorKind::Damaged, path, "the file is not a valid serialized xla.HloProto");
  // The sidecar is named "<module>(<program id>).hlo_proto.pb"; the module's own id is the program id.
  std::string stem = path.substr(path.find_last_of('/') + 1);
  if (stem.ends_with(".hlo_proto.pb")) stem.resize(stem.size() - std::strlen(".hlo_proto.pb"));
  std::uint64_t id = static_cast<std::uint64_t>(hlo->hlo_module().id());
  std::string metadata_name = hlo->hlo_module().name() + "(" + std::to_string(id) + ")";
  if (auto split = split_program_suffix(stem); split && id == 0) {
    id = split->second;
    metadata_name = stem;
  }
  if (file->shrank()) throw_shrank(*file, path);
  const std::size_t size = file->size();
  return make_module(std::move(hlo), id, std::move(metadata_name), size);
}

}  // namespace oomscope::capture
