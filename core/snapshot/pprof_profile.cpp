#include "core/snapshot/pprof_profile.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <unordered_map>

#include "core/capture/wire_reader.h"
#include "core/util/error.h"
#include "core/util/gzip.h"

namespace oomscope::snapshot {

namespace {

using capture::wire::Field;
using capture::wire::WireReader;
using capture::wire::WireType;

// Repeated integer fields come packed or one per tag.
void read_ints(WireReader& r, Field f, std::vector<std::uint64_t>& out) {
  if (f.type == WireType::Len) {
    WireReader sub = r.sub(r.bytes());
    while (!sub.done()) out.push_back(sub.varint());
  } else if (f.type == WireType::Varint) {
    out.push_back(r.varint());
  } else {
    r.skip(f.type);
  }
}

struct Line {
  std::uint64_t function = 0;
  std::int64_t line = 0;
};
struct Function {
  std::uint64_t name = 0, filename = 0;
};

bool jax_internal(const std::string& file) {
  return file.find("/jax/") != std::string::npos || file.find("/jaxlib/") != std::string::npos ||
         file.find("site-packages") != std::string::npos || file.find("/lib/python") != std::string::npos ||
         file.find("<frozen") != std::string::npos;
}

}  // namespace

std::int64_t PprofProfile::total_bytes() const {
  std::int64_t n = 0;
  if (space_index < 0) return 0;
  for (const PprofSample& s : samples)
    if (static_cast<std::size_t>(space_index) < s.values.size())
      n += s.values[static_cast<std::size_t>(space_index)];
  return n;
}

std::string PprofProfile::site_of(const PprofSample& s) const {
  std::string where = "(no stack)";
  for (std::size_t i = 0; i < s.stack.size(); ++i) {
    const PprofFrame& f = frames[s.stack[i]];
    if (i == 0 || !jax_internal(f.filename))
      where = f.filename + ":" + std::to_string(f.line) + " (" + f.function + ")";
    if (!jax_internal(f.filename)) break;
  }
  return where;
}

std::int64_t PprofProfile::bytes_of(const PprofSample& s) const {
  if (space_index < 0 || static_cast<std::size_t>(space_index) >= s.values.size()) return 0;
  return s.values[static_cast<std::size_t>(space_index)];
}

std::vector<PprofGroup> PprofProfile::by_line() const {
  std::map<std::pair<std::string, std::string>, PprofGroup> groups;
  for (const PprofSample& s : samples) {
    const std::string where = site_of(s);
    PprofGroup& g = groups[{where, s.kind}];
    g.where = where;
    g.kind = s.kind;
    ++g.samples;
    g.bytes += bytes_of(s);
    if (count_index >= 0 && static_cast<std::size_t>(count_index) < s.values.size())
      g.count += s.values[static_cast<std::size_t>(count_index)];
  }
  std::vector<PprofGroup> out;
  for (auto& [k, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(),
                   [](const PprofGroup& a, const PprofGroup& b) { return a.bytes > b.bytes; });
  return out;
}

std::vector<PprofGroup> PprofProfile::by_kind() const {
  std::map<std::pair<std::string, std::string>, PprofGroup> groups;
  for (const PprofSample& s : samples) {
    PprofGroup& g = groups[{s.kind, s.device}];
    g.kind = s.kind;
    g.where = s.device;
    ++g.samples;
    if (space_index >= 0 && static_cast<std::size_t>(space_index) < s.values.size())
      g.bytes += s.values[static_cast<std::size_t>(space_index)];
    if (count_index >= 0 && static_cast<std::size_t>(count_index) < s.values.size())
      g.count += s.values[static_cast<std::size_t>(count_index)];
  }
  std::vector<PprofGroup> out;
  for (auto& [k, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(),
                   [](const PprofGroup& a, const PprofGroup& b) { return a.bytes > b.bytes; });
  return out;
}

std::shared_ptr<const PprofProfile> read_pprof_from_bytes(const std::string& raw, const std::string& name) {
  auto prof = std::make_shared<PprofProfile>();
  prof->path = name;
  prof->file_size = raw.size();
  prof->gzip = is_gzip(raw);
  const std::string data = prof->gzip ? gunzip(raw, name, 4ull << 30) : raw;
  const auto* base = reinterpret_cast<const std::uint8_t*>(data.data());
  std::vector<std::string> strings;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> types;  // string indexes
  struct RawSample {
    std::vector<std::uint64_t> locations, values;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> labels;  // key, str
  };
  std::vector<RawSample> samples;
  std::unordered_map<std::uint64_t, std::vector<Line>> locations;
  std::unordered_map<std::uint64_t, Function> functions;
  try {
    WireReader r(base, base, base + data.size(), true);
    while (!r.done()) {
      const Field f = r.field();
      if (f.number == 1 && f.type == WireType::Len) {  // sample_type
        WireReader vt = r.sub(r.bytes());
        std::pair<std::uint64_t, std::uint64_t> t{0, 0};
        while (!vt.done()) {
          const Field g = vt.field();
          if (g.number == 1 && g.type == WireType::Varint)
            t.first = vt.varint();
          else if (g.number == 2 && g.type == WireType::Varint)
            t.second = vt.varint();
          else
            vt.skip(g.type);
        }
        types.push_back(t);
      } else if (f.number == 2 && f.type == WireType::Len) {  // sample
        WireReader s = r.sub(r.bytes());
        RawSample rs;
        while (!s.done()) {
          const Field g = s.field();
          if (g.number == 1)
            read_ints(s, g, rs.locations);
          else if (g.number == 2)
            read_ints(s, g, rs.values);
          else if (g.number == 3 && g.type == WireType::Len) {
            WireReader l = s.sub(s.bytes());
            std::pair<std::uint64_t, std::uint64_t> kv{0, 0};
            while (!l.done()) {
              const Field h = l.field();
              if (h.number == 1 && h.type == WireType::Varint)
                kv.first = l.varint();
              else if (h.number == 2 && h.type == WireType::Varint)
                kv.second = l.varint();
              else
                l.skip(h.type);
            }
            rs.labels.push_back(kv);
          } else
            s.skip(g.type);
        }
        samples.push_back(std::move(rs));
      } else if (f.number == 4 && f.type == WireType::Len) {  // location
        WireReader l = r.sub(r.bytes());
        std::uint64_t id = 0;
        std::vector<Line> lines;
        while (!l.done()) {
          const Field g = l.field();
          if (g.number == 1 && g.type == WireType::Varint)
            id = l.varint();
          else if (g.number == 4 && g.type == WireType::Len) {
            WireReader ln = l.sub(l.bytes());
            Line line;
            while (!ln.done()) {
              const Field h = ln.field();
              if (h.number == 1 && h.type == WireType::Varint)
                line.function = ln.varint();
              else if (h.number == 2 && h.type == WireType::Varint)
                line.line = static_cast<std::int64_t>(ln.varint());
              else
                ln.skip(h.type);
            }
            lines.push_back(line);
          } else
            l.skip(g.type);
        }
        locations[id] = std::move(lines);
      } else if (f.number == 5 && f.type == WireType::Len) {  // function
        WireReader fn = r.sub(r.bytes());
        std::uint64_t id = 0;
        Function func;
        while (!fn.done()) {
          const Field g = fn.field();
          if (g.number == 1 && g.type == WireType::Varint)
            id = fn.varint();
          else if (g.number == 2 && g.type == WireType::Varint)
            func.name = fn.varint();
          else if (g.number == 4 && g.type == WireType::Varint)
            func.filename = fn.varint();
          else
            fn.skip(g.type);
        }
        functions[id] = func;
      } else if (f.number == 6 && f.type == WireType::Len) {
        strings.emplace_back(r.bytes());
      } else if (f.number == 9 && f.type == WireType::Varint) {
        prof->time_nanos = static_cast<std::int64_t>(r.varint());
      } else {
        r.skip(f.type);
      }
    }
  } catch (const capture::wire::WireError& e) {
    throw Error(
        e.truncated ? ErrorKind::Truncated : ErrorKind::Damaged, name,
        std::string(e.truncated ? "the profile is truncated" : "the profile is not a valid pprof protobuf") +
            " at byte " + std::to_string(e.offset) + " of the decompressed data: " + e.what);
  }
  auto str = [&](std::uint64_t i) -> std::string { return i < strings.size() ? strings[i] : std::string(); };
  for (std::size_t i = 0; i < types.size(); ++i) {
    prof->sample_types.emplace_back(str(types[i].first), str(types[i].second));
    if (prof->sample_types.back().second == "bytes" && prof->space_index < 0)
      prof->space_index = static_cast<int>(i);
    if (prof->sample_types.back().second == "count" && prof->count_index < 0)
      prof->count_index = static_cast<int>(i);
  }
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::uint32_t> frame_ids;
  for (RawSample& rs : samples) {
    PprofSample s;
    for (std::uint64_t v : rs.values) s.values.push_back(static_cast<std::int64_t>(v));
    for (auto [k, v] : rs.labels) {
      if (str(k) == "kind")
        s.kind = str(v);
      else if (str(k) == "device")
        s.device = str(v);
    }
    for (std::uint64_t loc : rs.locations) {
      auto it = locations.find(loc);
      if (it == locations.end()) continue;
      for (const Line& ln : it->second) {
        const Function fn = functions.count(ln.function) ? functions[ln.function] : Function{};
        auto key = std::make_tuple(str(fn.filename), str(fn.name), ln.line);
        auto [fit, added] = frame_ids.try_emplace(key, static_cast<std::uint32_t>(prof->frames.size()));
        if (added) prof->frames.push_back(PprofFrame{str(fn.name), str(fn.filename), ln.line});
        s.stack.push_back(fit->second);
      }
    }
    prof->samples.push_back(std::move(s));
  }
  return prof;
}

std::shared_ptr<const PprofProfile> read_pprof(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Io, path, "cannot open the file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return read_pprof_from_bytes(bytes, path);
}

}  // namespace oomscope::snapshot
