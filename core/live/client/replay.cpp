// Replaying a recording (see replay.h).

#include "core/live/client/replay.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/live/client/recording_format.h"
#include "core/util/bytes.h"
#include "core/util/error.h"
#include "core/util/gzip.h"

namespace oomscope::live {

namespace {

// The whole decompressed stream, through the one gzip reader (core/util/gzip.h); a recording that is not
// gzip is read as it is (as zlib's gzread did). A cut-off gzip stream (the recorder flushes about every
// second, so a crash leaves one) yields what decoded before the cut: zlib's output up to there. The
// recorder's writer stays on zlib's streaming gzwrite, which flushes as it goes.
std::string read_all(const std::string& path, ReplayInfo& info, const std::stop_token& stop) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error(ErrorKind::NotFound, path, "no such recording");
  info.file_bytes = static_cast<std::uint64_t>(st.st_size);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, std::string("cannot open: ") + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!is_gzip(bytes)) {
    info.data_bytes = bytes.size();
    return bytes;
  }
  constexpr std::uint64_t kMaxData = 64ull << 30;
  std::string data;
  const GzipEnd end = inflate_gzip(bytes, data, kMaxData, [&](std::uint64_t) {
    if (stop.stop_requested()) throw Cancelled(path);
  });
  switch (end.kind) {
    case GzipEnd::Complete:
      break;
    case GzipEnd::Limit:
      throw Error(ErrorKind::TooLarge, path, "decompresses to more than " + format_bytes(kMaxData));
    case GzipEnd::NoDecompressor:
      throw Error(ErrorKind::Io, path, "cannot start the gzip decompressor (out of memory?)");
    case GzipEnd::Truncated:
    case GzipEnd::Damaged:
      info.truncated = true;
      info.note =
          "the compressed stream stops early (" +
          (end.kind == GzipEnd::Truncated ? std::string("unexpected end of file") : end.zlib_message) +
          "): the recording was not closed; everything up to its last flush is shown";
      break;
  }
  info.data_bytes = data.size();
  return data;
}

}  // namespace

bool looks_like_recording(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (is_gzip(head)) head = gunzip_prefix(head, rec::kMagic.size());
  return std::string_view(head).starts_with(rec::kMagic);
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): by value as declared; callers move their token in
ReplayInfo replay_recording(const std::string& path, LiveSink& sink, std::stop_token stop) {
  ReplayInfo info;
  const std::string data = read_all(path, info, stop);
  if (!std::string_view(data).starts_with(rec::kMagic))
    throw Error(ErrorKind::NotACapture, path,
                "not an oomscope live recording (no 'OOMSCOPE-LIVE-RECORDING 1' header)");
  const char* p = data.data() + rec::kMagic.size();
  const char* const end = data.data() + data.size();
  std::vector<rec::DeltaState> state;
  auto cut = [&](const char* why) {
    info.truncated = true;
    if (info.note.empty())
      info.note = std::string("the last record is incomplete (") + why + "): the recording was not closed";
  };
  while (p < end) {
    if ((info.records & 0xffff) == 0 && stop.stop_requested()) throw Cancelled(path);
    const auto kind = static_cast<rec::Kind>(static_cast<std::uint8_t>(*p++));
    std::uint64_t rank = 0;
    if (!rec::get_varint(p, end, rank)) {
      cut("rank");
      break;
    }
    if (rank > 100000)
      throw Error(ErrorKind::Damaged, path, "damaged record: rank index " + std::to_string(rank));
    const int r = static_cast<int>(rank);
    if (kind == rec::Kind::Sample) {
      if (state.size() <= rank) state.resize(rank + 1);
      rec::DeltaState& d = state[rank];
      std::uint64_t dt = 0, mask = 0;
      if (!rec::get_varint(p, end, dt) || !rec::get_varint(p, end, mask)) {
        cut("sample");
        break;
      }
      if (mask >> kFieldCount)
        throw Error(ErrorKind::Damaged, path, "damaged sample record: unknown field bits");
      Sample s;
      s.t = rec::wrap_add(d.t, rec::unzigzag(dt));
      s.present = static_cast<std::uint16_t>(mask);
      bool ok = true;
      for (std::size_t i = 0; i < kFieldCount && ok; ++i) {
        if (!s.has(static_cast<Field>(i))) continue;
        std::uint64_t dv = 0;
        ok = rec::get_varint(p, end, dv);
        s.values[i] = rec::wrap_add(d.values[i], rec::unzigzag(dv));
      }
      if (!ok) {
        cut("sample");
        break;
      }
      d.t = s.t;
      for (std::size_t i = 0; i < kFieldCount; ++i)
        if (s.has(static_cast<Field>(i))) d.values[i] = s.values[i];
      sink.on_sample(r, s);
      ++info.samples;
    } else if (kind == rec::Kind::Line) {
      std::uint64_t len = 0;
      if (!rec::get_varint(p, end, len)) {
        cut("line");
        break;
      }
      if (len > static_cast<std::uint64_t>(end - p)) {
        cut("line");
        break;
      }
      const ParseResult pr = parse_line(std::string_view(p, len));
      p += len;
      if (!pr.message) throw Error(ErrorKind::Damaged, path, "damaged line record: " + pr.error);
      if (const auto* h = std::get_if<Hello>(&*pr.message))
        sink.on_hello(r, *h);
      else if (const auto* e = std::get_if<Event>(&*pr.message))
        sink.on_event(r, *e);
      else if (const auto* sh = std::get_if<Shapes>(&*pr.message))
        sink.on_shapes(r, *sh);
    } else if (kind >= rec::Kind::Endpoint && kind <= rec::Kind::BadLine) {
      std::uint64_t t = 0, len = 0;
      if (!rec::get_varint(p, end, t) || !rec::get_varint(p, end, len) ||
          len > static_cast<std::uint64_t>(end - p)) {
        cut("text");
        break;
      }
      const std::string text(p, len);
      p += len;
      const auto ts = static_cast<std::int64_t>(t);
      if (kind == rec::Kind::Endpoint)
        sink.on_endpoint(r, text);
      else if (kind == rec::Kind::Disconnected)
        sink.on_disconnected(r, ts, text);
      else if (kind == rec::Kind::Connected)
        sink.on_connected(r, ts);
      else
        sink.on_bad_line(r, ts, text);
    } else {
      throw Error(ErrorKind::Damaged, path,
                  "damaged record at byte " + std::to_string(p - 1 - data.data()) +
                      " of the decompressed stream: kind " + std::to_string(static_cast<int>(kind)));
    }
    ++info.records;
  }
  return info;
}

}  // namespace oomscope::live
