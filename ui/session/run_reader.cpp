#include "ui/session/run_reader.h"

#include <QElapsedTimer>
#include <filesystem>
#include <utility>

#include "core/util/error.h"
#include "core/util/files_under.h"

namespace oomscope::ui {

namespace fs = std::filesystem;

namespace {

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

std::vector<std::string> RunReader::expandInputs(const QStringList& inputs) {
  std::vector<std::string> files;
  for (const QString& input : inputs) {
    const std::string in = input.toStdString();
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found = files_under(in, {".xplane.pb", ".xplane.pb.gz"});
    if (found.empty())
      throw Error(ErrorKind::NotFound, in, "the folder holds no .xplane.pb or .xplane.pb.gz capture");
    files.insert(files.end(), found.begin(), found.end());
  }
  return without_repeats(files);  // the same file named twice (a file and its folder) is read once
}

RunReader::RunReader(CaptureSession::Loader loader, QStringList inputs, QString label)
    : m_loader(std::move(loader)), m_inputs(std::move(inputs)), m_label(std::move(label)) {}

LoadedRun RunReader::operator()(ProgressSink& progress, const std::stop_token& stop) const {
  QElapsedTimer timer;
  timer.start();
  const std::vector<std::string> files = expandInputs(m_inputs);
  LoadedRun run;
  run.inputs = m_inputs;
  run.label = m_label;
  std::vector<std::string> errors;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (stop.stop_requested()) throw Cancelled();
    PartProgress part(progress, i, files.size(), fs::path(files[i]).filename().string());
    QElapsedTimer one;
    one.start();
    try {
      auto capture = m_loader(files[i], part, stop);
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
    throw Error(ErrorKind::InvalidArgument, m_label.toStdString(),
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
}

}  // namespace oomscope::ui
