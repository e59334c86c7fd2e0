#pragma once
// JAX device memory profiles (jax.profiler.save_device_memory_profile): a gzip'd pprof Profile protobuf,
// wire-parsed here. Samples are live buffers and executables with their Python stacks, and labels
// kind (buffer / executable) and device. Shown as "what is live now, by Python line".

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace oomscope::snapshot {

struct PprofFrame {
  std::string function, filename;
  std::int64_t line = 0;
};

struct PprofSample {
  std::vector<std::int64_t> values;  // one per sample type
  std::vector<std::uint32_t> stack;  // frame ids, innermost first
  std::string kind, device;          // labels "kind", "device" ("" when absent)
};

struct PprofGroup {
  std::string where;  // "file.py:12 (function)"
  std::string kind;
  std::int64_t bytes = 0;
  std::size_t samples = 0;
  std::int64_t count = 0;  // the 'allocations' value
};

struct PprofProfile {
  std::string path;
  std::uint64_t file_size = 0;
  bool gzip = false;
  std::vector<std::pair<std::string, std::string>> sample_types;  // (type, unit)
  std::vector<PprofSample> samples;
  std::vector<PprofFrame> frames;
  std::int64_t time_nanos = 0;
  int space_index = -1, count_index = -1;  // sample types "space"/bytes and "allocations"/count
  std::int64_t total_bytes() const;
  // A sample's site: "file.py:12 (function)" of its innermost frame outside JAX's own code (else its
  // innermost frame), "(no stack)" without frames.
  std::string site_of(const PprofSample& s) const;
  // A sample's live bytes (its "space" value; 0 without one).
  std::int64_t bytes_of(const PprofSample& s) const;
  // Live bytes grouped by site_of, per kind, largest first.
  std::vector<PprofGroup> by_line() const;
  // Totals per (kind, device).
  std::vector<PprofGroup> by_kind() const;
};

// Throws oomscope::Error naming the file (Truncated / Damaged protobuf or gzip).
std::shared_ptr<const PprofProfile> read_pprof(const std::string& path);
std::shared_ptr<const PprofProfile> read_pprof_from_bytes(const std::string& bytes, const std::string& name);

}  // namespace oomscope::snapshot
