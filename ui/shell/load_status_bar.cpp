#include "ui/shell/load_status_bar.h"

#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>

#include "core/util/bytes.h"
#include "core/util/safe_text.h"
#include "ui/session/capture_session.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

// A file name as shown in status lines: control characters (a crafted name could hold ESC or BEL) are
// written as visible escapes.
QString fileName(const QString& path) {
  return QString::fromStdString(single_line_safe(QFileInfo(path).fileName().toStdString()));
}

}  // namespace

LoadStatusBar::LoadStatusBar(CaptureSession* session, QWidget* parent)
    : QStatusBar(parent), m_session(session) {
  m_text = new QLabel(this);
  m_text->setObjectName(QStringLiteral("statusText"));
  m_text->setTextFormat(Qt::PlainText);  // file names are shown as they are, never read as markup
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("loadProgress"));
  m_progress->setRange(0, 1000);
  m_progress->setMaximumWidth(220);
  m_progress->setFormat(QStringLiteral("%p%"));
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("cancelButton"));
  m_cancel->setToolTip(tr("Stop loading (Esc); the capture open before stays open."));
  m_cancel->setShortcut(QKeySequence(Qt::Key_Escape));
  connect(m_cancel, &QPushButton::clicked, m_session, &CaptureSession::cancel);
  addWidget(m_text, 1);
  addPermanentWidget(m_progress);
  addPermanentWidget(m_cancel);
  m_progress->hide();
  m_cancel->hide();
  m_text->setText(tr("No capture open."));
}

QString LoadStatusBar::text() const { return m_text->text(); }

void LoadStatusBar::setText(const QString& text) { m_text->setText(text); }

void LoadStatusBar::showLoading(const QString& path) {
  m_progress->setValue(0);
  m_text->setText(tr("Loading %1\u2026").arg(fileName(path)));
}

void LoadStatusBar::showProgress(double fraction, const QString& stage) {
  m_progress->setValue(int(qBound(0.0, fraction, 1.0) * 1000));
  const QString name = fileName(m_session->loadingPath());
  m_text->setText(stage.isEmpty() ? tr("Loading %1\u2026").arg(name)
                                  : tr("Loading %1: %2\u2026").arg(name, stage));
}

void LoadStatusBar::setBusy(bool busy) {
  m_progress->setVisible(busy);
  m_cancel->setVisible(busy);
}

void LoadStatusBar::showLoaded() {
  const auto& current = m_session->current();
  if (!current) {
    m_text->setText(tr("No capture open."));
    return;
  }
  const auto& capture = *current.capture;
  const auto plural = [](std::size_t n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(QLocale().toString(qulonglong(n)), n == 1 ? one : many);
  };
  const double s = m_session->run().isMultiHost() ? m_session->run().loadSeconds : current.loadSeconds;
  const QString took =
      s < 1.0 ? tr("%1 ms").arg(qMax(1, qRound(s * 1000))) : tr("%1 s").arg(QLocale().toString(s, 'f', 1));
  const auto& run = m_session->run();
  const QString host =
      run.isMultiHost() ? tr("host %1 of %2 \u00b7 ").arg(m_session->currentHost() + 1).arg(run.hosts.size())
                        : QString();
  m_text->setText(host + tr("%1 \u00b7 %2 \u00b7 %3, %4 \u00b7 loaded in %5")
                             .arg(fileName(current.path),
                                  QString::fromStdString(format_bytes(std::uint64_t(capture.file_size()))),
                                  plural(capture.modules().size(), tr("module"), tr("modules")),
                                  plural(capture.allocators().size(), tr("allocator"), tr("allocators")),
                                  took));
  m_text->setToolTip(plainToolTip(QFileInfo(current.path).absoluteFilePath()));
}

void LoadStatusBar::showCancelled(const QString& path) {
  showLoaded();
  m_text->setText(tr("Loading %1 cancelled. %2").arg(safeText(QFileInfo(path).fileName()), m_text->text()));
}

}  // namespace oomscope::ui
