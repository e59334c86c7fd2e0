#include "core/snapshot/snapshot_reader.h"

#include "core/capture/mapped_file.h"
#include "core/snapshot/pickle_reader.h"
#include "core/snapshot/snapshot_builder.h"

namespace oomscope::snapshot {

namespace {

std::shared_ptr<const Snapshot> read_mapped(std::shared_ptr<const capture::MappedFile> file, const std::string& name,
                                            ProgressSink& progress, std::stop_token stop) {
  auto snap = std::make_shared<Snapshot>();
  snap->path = name;
  snap->file_size = file->size();
  snap->protocol = file->size() >= 2 ? file->data()[1] : 0;
  {
    const auto tree = parse_pickle(std::move(file), name, progress, stop);
    build_snapshot(*tree, *snap, progress, stop);
  }
  return snap;
}

}  // namespace

std::shared_ptr<const Snapshot> read_snapshot(const std::string& path, ProgressSink& progress, std::stop_token stop) {
  return read_mapped(capture::MappedFile::open(path, kMaxSnapshotBytes), path, progress, std::move(stop));
}

std::shared_ptr<const Snapshot> read_snapshot_from_memory(std::string bytes, const std::string& name, ProgressSink& progress,
                                                          std::stop_token stop) {
  return read_mapped(capture::MappedFile::from_bytes(std::move(bytes)), name, progress, std::move(stop));
}

}  // namespace oomscope::snapshot
