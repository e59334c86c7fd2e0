#include "core/capture/reader.h"
#include "ui/session/capture_session.h"

namespace oomscope::ui {

// Kept here rather than in capture_session.cpp so that only code using the real reader has to link it.
CaptureSession::CaptureSession(QObject* parent) : CaptureSession(defaultCaptureLoader(), parent) {}

CaptureSession::Loader defaultCaptureLoader() {
  return [](const std::string& path, ProgressSink& progress, std::stop_token stop) {
    return capture::read_capture(path, progress, std::move(stop));
  };
}

}  // namespace oomscope::ui
