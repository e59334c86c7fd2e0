// CaptureSession::openRun: several capture files of one multi-host run, read together on the worker.
#include <QElapsedTimer>
#include <QFileInfo>
#include <algorithm>
#include <filesystem>
#include <string>

#include "core/util/error.h"
#include "ui/session/capture_session.h"

namespace oomscope::ui {

namespace {

namespace fs = std::filesystem;

bool isCaptureName(const std::string& name) {
  return name.ends_with(".xplane.pb") || name.ends_with(".xplane.pb.gz");
}

// Files as given; a folder becomes the capture files under it, sorted (as `oomscope-cli report` does).
std::vector<std::string> expandInputs(const QStringList& inputs) {
  std::vector<std::string> files;
  for (const QString& input : inputs) {
    const std::string in = input.toStdString();
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file(ec) && isCaptureName(it->path().filename().string()))
        found.push_back(it->path().string());
    if (found.empty())
      throw Error(ErrorKind::NotFound, in, "the folder holds no .xplane.pb or .xplane.pb.gz capture");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  // The same file named twice (a file and its folder) is read once.
  std::vector<std::string> unique;
  for (const std::string& f : files) {
    std::error_code ec;
    const bool seen = std::any_of(unique.begin(), unique.end(),
                                  [&](const std::string& u) { return u == f || fs::equivalent(u, f, ec); });
    if (!seen) unique.push_back(f);
  }
  return unique;
}

// Reports a part of the whole: file i of n maps [0, 1] onto [i/n, (i+1)/n].
class PartProgress final : public ProgressSink {
 public:
  PartProgress(ProgressSink& whole, std::size_t index, std::size_t count, std::string name)
      : m_whole(whole), m_index(index), m_count(count), m_name(std::move(name)) {}
  void report(double fraction, std::string_view stage) override {
    m_whole.report((double(m_index) + fraction) / double(m_count),
                   m_name + " (" + std::to_string(m_index + 1) + "/" + std::to_string(m_count) + ")" +
                       (stage.empty() ? "" : ": " + std::string(stage)));
  }

 private:
  ProgressSink& m_whole;
  std::size_t m_index, m_count;
  std::string m_name;
};

}  // namespace

void CaptureSession::openRun(const QStringList& pathsOrFolders) {
  if (pathsOrFolders.size() == 1 && !QFileInfo(pathsOrFolders.first()).isDir()) {
    open(pathsOrFolders.first());
    return;
  }
  const QString label = pathsOrFolders.size() == 1 ? pathsOrFolders.first()
                                                   : tr("%n files", nullptr, int(pathsOrFolders.size()));
  JobTracker::Work<LoadedRun> work = [loader = m_loader, inputs = pathsOrFolders, label](
                                         ProgressSink& progress, const std::stop_token& stop) {
    QElapsedTimer timer;
    timer.start();
    const std::vector<std::string> files = expandInputs(inputs);
    LoadedRun run;
    run.inputs = inputs;
    run.label = label;
    std::vector<std::string> errors;
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (stop.stop_requested()) throw Cancelled();
      PartProgress part(progress, i, files.size(), fs::path(files[i]).filename().string());
      QElapsedTimer one;
      one.start();
      try {
        auto capture = loader(files[i], part, stop);
        if (!capture) throw Error(ErrorKind::Io, files[i], "the reader returned no capture");
        run.hosts.push_back(
            {std::move(capture), QString::fromStdString(files[i]), double(one.nsecsElapsed()) / 1e9});
      } catch (const Cancelled&) {
        throw;
      } catch (const Error& e) {
        if (files.size() == 1) throw;
        errors.push_back(e.what());
      }
    }
    if (run.hosts.empty()) {
      std::string all;
      for (const std::string& e : errors) all += (all.empty() ? "" : "; ") + e;
      throw Error(ErrorKind::InvalidArgument, label.toStdString(),
                  "no file of the run could be read: " + all);
    }
    for (const std::string& e : errors) run.failures << QString::fromStdString(e);
    if (run.hosts.size() > 1) {
      progress.report(1.0, "comparing hosts");
      auto reports = std::make_shared<std::vector<analysis::HostReport>>();
      std::vector<std::shared_ptr<const capture::Capture>> captures;
      for (const LoadedCapture& host : run.hosts) {
        reports->push_back(analysis::build_host_report(*host.capture, analysis::ReportOptions{}, stop));
        captures.push_back(host.capture);
      }
      analysis::add_multi_host_limits(*reports);
      run.comparison =
          std::make_shared<const analysis::HostComparison>(analysis::compare_hosts(*reports, captures));
      run.reports = std::move(reports);
    }
    run.loadSeconds = double(timer.nsecsElapsed()) / 1e9;
    return run;
  };
  m_requested = pathsOrFolders;
  emit loadStarted(label);
  m_jobs.start<LoadedRun>(label, std::move(work), [this](const LoadedRun& result) {
    // The run opens on the host that ran out first: that is where the story starts.
    int host = 0;
    if (result.comparison && result.comparison->first_out) host = int(*result.comparison->first_out);
    replaceRun(result, host);
    emit loaded(m_current);
  });
}

}  // namespace oomscope::ui
