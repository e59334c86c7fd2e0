// Entry points: read_capture (file), read_capture_from_memory (fuzzer, tests), read_hlo_proto_file
// (bare HloProto sidecar); recognising files that are not captures and wording every error.

#include "core/capture/reader.h"

#include <cstring>

#include "core/capture/capture_builder.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "hlo.pb.h"

namespace oomscope::capture {

namespace {

constexpr unsigned char kRiegeliMagic[8] = {0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f};

void reject_other_formats(const MappedFile& file, const std::string& path) {
  const std::string_view bytes = file.view();
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b)
    throw Error(ErrorKind::Gzip, path,
                "this is gzip-compressed, probably a .trace.json.gz trace-viewer export; open the .xplane.pb beside it");
  if ((bytes.size() >= 8 && std::memcmp(bytes.data(), kRiegeliMagic, 8) == 0) || path.ends_with(".riegeli"))
    throw Error(ErrorKind::Riegeli, path,
                "this is a Riegeli chunked capture (.xplane.riegeli), which oomscope cannot read; export the "
                "profile as a single .xplane.pb");
}

std::string at_byte(std::uint64_t offset) { return "at byte " + format_bytes_exact(static_cast<std::int64_t>(offset)); }

// A binary file pushed through a text conversion has every invalid UTF-8 byte replaced by U+FFFD
// (EF BF BD); many of them explain the damage better than any offset.
std::string text_mangling_hint(std::string_view bytes) {
  std::size_t count = 0;
  for (std::size_t at = bytes.find("\xef\xbf\xbd"); at != std::string_view::npos; at = bytes.find("\xef\xbf\xbd", at + 3))
    ++count;
  if (count < 16) return "";
  return "; it holds " + format_bytes_exact(static_cast<std::int64_t>(count)) +
         " U+FFFD replacement characters (EF BF BD), so it was probably mangled by a text-mode copy or an editor";
}

std::shared_ptr<const Capture> read_mapped(std::shared_ptr<const MappedFile> file, const std::string& path,
                                           ProgressSink& progress, std::stop_token stop) {
  if (file->size() == 0) throw Error(ErrorKind::Empty, path, "the file is empty (0 bytes); the capture was not written");
  reject_other_formats(*file, path);
  const std::uint64_t size = file->size();
  const std::shared_ptr<const MappedFile> keep = file;
  try {
    CaptureBuilder builder(std::move(file), path, progress, std::move(stop));
    return builder.build();
  } catch (const wire::WireError& e) {
    if (e.truncated)
      throw Error(ErrorKind::Truncated, path,
                  "the capture is truncated: it ends in the middle of a field (" + e.what + ", " + at_byte(e.offset) +
                      " of " + format_bytes_exact(static_cast<std::int64_t>(size)) +
                      "); the file was probably cut short while being written or copied");
    throw Error(ErrorKind::Damaged, path,
                "the capture is damaged and is not valid protobuf: " + at_byte(e.offset) + ", " + e.what +
                    text_mangling_hint(keep->view()));
  }
}

}  // namespace

CaptureBuilder::CaptureBuilder(std::shared_ptr<const MappedFile> file, std::string path, ProgressSink& progress,
                               std::stop_token stop)
    : file_(std::move(file)), path_(std::move(path)), progress_(progress), stop_(std::move(stop)),
      capture_(new Capture()), internals_(new CaptureInternals()) {
  capture_->strings_.emplace_back();
}

std::shared_ptr<const Capture> CaptureBuilder::build() {
  progress_.report(0.0, "reading planes");
  scan_space();
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
  capture_->path_ = path_;
  capture_->file_size_ = file_->size();
  capture_->mapping_ = file_;
  capture_->internals_ = std::move(internals_);
  progress_.report(1.0, "done");
  return std::shared_ptr<const Capture>(capture_.release());
}

std::shared_ptr<const Capture> read_capture(const std::string& path, ProgressSink& progress, std::stop_token stop) {
  return read_mapped(MappedFile::open(path, wire::kMaxMessageBytes), path, progress, std::move(stop));
}

std::shared_ptr<const Capture> read_capture_from_memory(std::string bytes, const std::string& name,
                                                        ProgressSink& progress, std::stop_token stop) {
  if (bytes.size() > wire::kMaxMessageBytes)
    throw Error(ErrorKind::TooLarge, name, "the data is larger than the 2 GiB a protobuf capture can hold");
  return read_mapped(MappedFile::from_bytes(std::move(bytes)), name, progress, std::move(stop));
}

Module read_hlo_proto_file(const std::string& path) {
  auto file = MappedFile::open(path, wire::kMaxMessageBytes);
  reject_other_formats(*file, path);
  auto hlo = parse_hlo_proto(file->view());
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
  const std::size_t size = file->size();
  return make_module(std::move(hlo), id, std::move(metadata_name), size);
}

}  // namespace oomscope::capture
