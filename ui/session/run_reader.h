#pragma once
// The files of one multi-host run, read together on CaptureSession's worker (CaptureSession::openRun): the
// folders given become the capture files under them, each file is read with the session's loader (its
// progress one share of the whole), a file that cannot be read is listed among the run's failures (unless
// it is the only one), and for two or more hosts the default report of each and the comparison over them
// are built there too, off the GUI thread.

#include <QString>
#include <QStringList>
#include <stop_token>
#include <string>
#include <vector>

#include "core/util/progress.h"
#include "ui/session/capture_session.h"

namespace oomscope::ui {

class RunReader {
 public:
  RunReader(CaptureSession::Loader loader, QStringList inputs, QString label);

  // The run; throws oomscope::Error when no file could be read (or the only one failed), Cancelled on stop.
  LoadedRun operator()(ProgressSink& progress, const std::stop_token& stop) const;

  // Files as given; a folder becomes the capture files under it, sorted (as `oomscope-cli report` does); the
  // same file named twice (a file and its folder) once.
  static std::vector<std::string> expandInputs(const QStringList& inputs);

 private:
  CaptureSession::Loader m_loader;
  QStringList m_inputs;
  QString m_label;
};

}  // namespace oomscope::ui
