#pragma once
// What a page that opens files of its own kind (the Live page: .oomlive recordings) offers the main window,
// so that File > Open, the recent files and drops hand such a file to the page instead of the capture
// reader. The page owns one as a direct child; the main window finds it when the page is added, offers its
// filter in the open dialog, and for a file the page accepts, shows the page and calls open(). The page
// answers openRequested and reports back: opened() (the window adds the file to the recent files) or
// failed() (the window shows the same error box as for a capture that cannot be read).
//
//   auto* opener = new PageFileOpener(tr("Live recordings (*.oomlive)"), &isRecording, page);
//   connect(opener, &PageFileOpener::openRequested, page, &LivePage::openRecording);
//   ... opener->reportOpened(path);  or  opener->reportFailed(JobError::fromError(path, e));

#include <QObject>
#include <QString>
#include <functional>
#include <utility>

#include "ui/session/job_error.h"

namespace oomscope::ui {

class PageFileOpener : public QObject {
  Q_OBJECT

 public:
  using Accepts = std::function<bool(const QString& path)>;

  // filter: the open dialog's entry for these files ("Live recordings (*.oomlive)").
  PageFileOpener(const QString& filter, Accepts accepts, QObject* parent = nullptr)
      : QObject(parent), m_filter(filter), m_accepts(std::move(accepts)) {
    setObjectName(QStringLiteral("pageFileOpener"));
  }

  QString filter() const { return m_filter; }
  // True when the page opens this file (a file, not a folder).
  bool accepts(const QString& path) const { return m_accepts && m_accepts(path); }

  // The window's side.
  void open(const QString& path) { emit openRequested(path); }
  // The page's side.
  void reportOpened(const QString& path) { emit opened(path); }
  void reportFailed(const JobError& error) { emit failed(error); }

 signals:
  void openRequested(const QString& path);
  void opened(const QString& path);
  void failed(const oomscope::ui::JobError& error);

 private:
  QString m_filter;
  Accepts m_accepts;
};

}  // namespace oomscope::ui
