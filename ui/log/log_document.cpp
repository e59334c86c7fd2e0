#include "ui/log/log_document.h"

#include <sstream>
#include <utility>

#include "core/log/log_text.h"

namespace oomscope::ui {

namespace {

std::shared_ptr<const LogDocument> finish(log::LogFile file) {
  auto doc = std::make_shared<LogDocument>();
  doc->file = std::move(file);
  doc->diagnosis = log::diagnose_log(doc->file);
  if (!doc->empty()) {
    std::ostringstream text;
    log::write_log_text(text, doc->file, doc->diagnosis);
    doc->report = text.str();
  }
  return doc;
}

}  // namespace

const log::MessageDiagnosis* LogDocument::diagnosisOf(std::size_t index) const {
  // diagnose_log() keeps the messages' order, one diagnosis per message; the check keeps that promise honest.
  if (index < diagnosis.messages.size() && diagnosis.messages[index].message == index)
    return &diagnosis.messages[index];
  for (const log::MessageDiagnosis& d : diagnosis.messages)
    if (d.message == index) return &d;
  return nullptr;
}

std::string LogDocument::noMessageText() const {
  const std::string name = file.path.empty() ? std::string("the pasted text") : file.path;
  std::string text = "no out-of-memory message found in " + name;
  if (!file.looks_like.empty()) text += "; it looks like " + file.looks_like;
  return text;
}

std::shared_ptr<const LogDocument> loadLogDocument(const std::string& path, ProgressSink& progress,
                                                   std::stop_token stop) {
  return finish(log::read_log(path, progress, std::move(stop)));
}

std::shared_ptr<const LogDocument> logDocumentFromText(std::string_view text, const std::string& name) {
  return finish(log::read_log_text(text, name));
}

}  // namespace oomscope::ui
