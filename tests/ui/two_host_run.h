#pragma once
// Hand-built captures of one host each (an XSpace with a /host:CPU plane of allocator events and, where
// asked, an AllocatorRetry wait), so a multi-host run with a known story can be opened: which host waited
// for memory first, by its own clock.

#include <QDir>
#include <QString>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

#include "xplane.pb.h"

namespace oomscope::testing {

struct HandBuiltHost {
  std::string hostname;
  std::int64_t start_ns =
      5'000'000'000;  // line timestamp, ns (the reader keeps times in ps: no epoch values)
  std::int64_t capacity = 1 << 30;
  std::int64_t allocation = 64 << 20;       // each of 8 allocations, 1 ms apart
  std::optional<std::int64_t> retry_at_ps;  // offset of an AllocatorRetry wait from the line start
};

// Writes the host's capture to path; false when the file cannot be written.
inline bool writeHandBuiltHost(const QString& path, const HandBuiltHost& h) {
  namespace tp = tensorflow::profiler;
  tp::XSpace space;
  space.add_hostnames(h.hostname);
  tp::XPlane* plane = space.add_planes();
  plane->set_id(1);
  plane->set_name("/host:CPU");
  const char* stats[] = {"allocator_name",   "bytes_allocated",  "bytes_available",
                         "requested_bytes",  "allocation_bytes", "addr",
                         "peak_bytes_in_use"};
  for (int i = 0; i < 7; ++i) {
    tp::XStatMetadata& md = (*plane->mutable_stat_metadata())[i + 1];
    md.set_id(i + 1);
    md.set_name(stats[i]);
  }
  (*plane->mutable_event_metadata())[1].set_id(1);
  (*plane->mutable_event_metadata())[1].set_name("MemoryAllocation");
  (*plane->mutable_event_metadata())[2].set_id(2);
  (*plane->mutable_event_metadata())[2].set_name("AllocatorRetry::AllocateRaw");
  tp::XLine* line = plane->add_lines();
  line->set_id(1);
  line->set_name("host thread");
  line->set_timestamp_ns(h.start_ns);
  std::int64_t in_use = 0;
  for (int i = 0; i < 8; ++i) {
    in_use += h.allocation;
    tp::XEvent* e = line->add_events();
    e->set_metadata_id(1);
    e->set_offset_ps(std::int64_t(i + 1) * 1'000'000'000);  // 1 ms apart
    e->set_duration_ps(1000);
    auto stat = [e](int id) {
      tp::XStat* s = e->add_stats();
      s->set_metadata_id(id);
      return s;
    };
    stat(1)->set_str_value("GPU_0_bfc");
    stat(2)->set_int64_value(in_use);
    stat(3)->set_int64_value(h.capacity - in_use);
    stat(4)->set_int64_value(h.allocation);
    stat(5)->set_int64_value(h.allocation);
    stat(6)->set_uint64_value(0x1000 + std::uint64_t(i) * 0x100000);
    stat(7)->set_int64_value(in_use);
  }
  if (h.retry_at_ps) {
    tp::XEvent* e = line->add_events();
    e->set_metadata_id(2);
    e->set_offset_ps(*h.retry_at_ps);
    e->set_duration_ps(500'000'000);
  }
  QDir().mkpath(QFileInfo(path).absolutePath());
  std::ofstream out(path.toStdString(), std::ios::binary);
  return space.SerializeToOstream(&out) && out.good();
}

}  // namespace oomscope::testing
