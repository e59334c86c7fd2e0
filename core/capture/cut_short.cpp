// A capture cut short (cut_short.h): what the bytes before the cut say about the field that was cut, the
// decision to keep what was read whole (CaptureBuilder::accept_cut), and the sentence that says so.

#include "core/capture/cut_short.h"

#include <algorithm>
#include <cstdio>

#include "core/capture/detail/capture_builder.h"
#include "core/capture/detail/xplane_fields.h"
#include "core/util/bytes.h"

namespace oomscope::capture {

namespace {

std::string exact(std::uint64_t n) { return format_bytes_exact(static_cast<std::int64_t>(n)); }

std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 80;
  return "\"" + std::string(s.substr(0, kMax)) + (s.size() > kMax ? "...\"" : "\"");
}

// A varint that may run off [p, end): nullopt then (p is left where it stopped).
std::optional<std::uint64_t> cut_varint(const std::uint8_t*& p, const std::uint8_t* end) {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= end) return std::nullopt;
    const std::uint8_t byte = *p++;
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) return value;
  }
  return std::nullopt;
}

bool is_plan_or_device(std::string_view plane) {
  return plane == "/host:metadata" || plane.starts_with("/device:");
}

// The name of a plane whose payload [p, end) is cut: XPlane's field 2, when it lies whole before the cut.
std::string cut_plane_name(const std::uint8_t* p, const std::uint8_t* end) {
  while (p < end) {
    const auto tag = cut_varint(p, end);
    if (!tag) return "";
    const std::uint64_t number = *tag >> 3, type = *tag & 7;
    if (type == static_cast<std::uint64_t>(wire::WireType::Varint)) {
      if (!cut_varint(p, end)) return "";
      continue;
    }
    if (type != static_cast<std::uint64_t>(wire::WireType::Len)) return "";  // XPlane has no other kind
    const auto length = cut_varint(p, end);
    if (!length || *length > static_cast<std::uint64_t>(end - p)) return "";
    if (number == xf::XPlane::kNameFieldNumber)
      return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(*length));
    p += *length;
  }
  return "";
}

}  // namespace

std::string CutShort::field_text() const {
  switch (field_number) {
    case xf::XSpace::kPlanesFieldNumber:
      return plane.empty() ? std::string("a plane whose name is cut too") : "the plane " + quoted(plane);
    case xf::XSpace::kErrorsFieldNumber:
      return "a capture error message";
    case xf::XSpace::kWarningsFieldNumber:
      return "a capture warning";
    case xf::XSpace::kHostnamesFieldNumber:
      return "a hostname";
    case 0:
      return "the tag of the field that follows the last one read";
    default:
      return "field " + std::to_string(field_number) + " of the XSpace";
  }
}

std::string CutShort::note() const {
  std::string out =
      "the file is cut short: it ends at byte " + exact(data_bytes) + ", inside " + field_text();
  if (declared_bytes && *declared_bytes > 0) {
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.1f %%",
                  100.0 * static_cast<double>(present_bytes) / static_cast<double>(*declared_bytes));
    out += " (" + exact(present_bytes) + " of its " + exact(*declared_bytes) + " bytes, " + percent + ")";
  }
  out += ", which is left out with whatever followed it in the file; read whole before the cut: " +
         exact(planes_read.size()) + (planes_read.size() == 1 ? " plane (" : " planes (");
  for (std::size_t i = 0; i < planes_read.size() && i < 6; ++i) out += (i ? ", " : "") + planes_read[i];
  if (planes_read.size() > 6) out += ", ... " + exact(planes_read.size() - 6) + " more";
  return out + ")";
}

void CaptureBuilder::accept_cut(wire::WireError& error) {
  const std::uint8_t* const base = file_->data();
  const std::uint8_t* p = base + std::min<std::uint64_t>(top_field_at_, file_->size());
  const std::uint8_t* const end = base + file_->size();
  CutShort cut;
  cut.data_bytes = file_->size();
  cut.field_offset = top_field_at_;
  if (const auto tag = cut_varint(p, end)) {
    cut.field_number = static_cast<std::uint32_t>(std::min<std::uint64_t>(*tag >> 3, UINT32_MAX));
    if ((*tag & 7) == static_cast<std::uint64_t>(wire::WireType::Len))
      if (const auto length = cut_varint(p, end)) cut.declared_bytes = *length;
    cut.present_bytes = static_cast<std::uint64_t>(end - p);
    if (cut.field_number == xf::XSpace::kPlanesFieldNumber) cut.plane = cut_plane_name(p, end);
  }
  for (const Plane& plane : capture_->planes_) cut.planes_read.push_back(plane.name);
  const bool have_whole = std::any_of(cut.planes_read.begin(), cut.planes_read.end(),
                                      [](const std::string& name) { return is_plan_or_device(name); });
  const bool cut_plane = cut.field_number == xf::XSpace::kPlanesFieldNumber;
  if (!have_whole) {
    error.what += "; nothing before the cut holds the plan (/host:metadata) or a device plane whole";
    throw error;
  }
  if (cut_plane && (cut.plane.empty() || is_plan_or_device(cut.plane))) {
    error.what += ", inside " + cut.field_text() +
                  (cut.plane.empty() ? ", so it cannot be told whether the plan or a device plane is cut"
                                     : ", which is needed whole");
    throw error;
  }
  capture_->reader_notes_.push_back(cut.note());
  capture_->cut_short_ = std::move(cut);
}

}  // namespace oomscope::capture
