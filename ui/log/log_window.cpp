#include "ui/log/log_window.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/log/device_bar_widget.h"
#include "ui/log/log_buffers_model.h"
#include "ui/log/log_figures_model.h"
#include "ui/log/log_messages_model.h"
#include "ui/log/log_texts.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"
#include "ui/widgets/sorted_table_view.h"

namespace oomscope::ui {

namespace {

QPlainTextEdit* makeText(QWidget* parent) {
  auto* text = new QPlainTextEdit(parent);
  text->setReadOnly(true);
  text->setLineWrapMode(QPlainTextEdit::NoWrap);
  text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  return text;
}

}  // namespace

LogWindow::LogWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Log \u2014 oomscope"));
  resize(1100, 760);
  m_jobs = new JobTracker(this);

  m_stack = new QStackedWidget(this);
  m_empty = new QLabel(tr("Reading\u2026"), m_stack);
  m_empty->setObjectName(QStringLiteral("logEmpty"));
  m_empty->setTextFormat(Qt::PlainText);
  m_empty->setWordWrap(true);
  m_empty->setAlignment(Qt::AlignCenter);
  m_empty->setMargin(24);
  m_stack->addWidget(m_empty);

  auto* page = new QWidget(m_stack);
  auto* layout = new QVBoxLayout(page);
  m_summary = new QLabel(page);
  m_summary->setObjectName(QStringLiteral("logSummary"));
  m_summary->setTextFormat(Qt::PlainText);
  m_summary->setWordWrap(true);
  layout->addWidget(m_summary);
  auto* split = new QSplitter(Qt::Vertical, page);
  m_messageModel = new LogMessagesModel(this);
  auto* messages = new SortedTableView(m_messageModel, split, Qt::DisplayRole);
  messages->setSelectionMode(QAbstractItemView::SingleSelection);
  m_sorted = messages->proxy();
  m_messages = messages;
  m_messages->setObjectName(QStringLiteral("logMessages"));
  m_messages->sortByColumn(LogMessagesModel::Index, Qt::AscendingOrder);
  split->addWidget(m_messages);
  split->addWidget(buildDetail());
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  layout->addWidget(split, 1);
  m_stack->addWidget(page);
  setCentralWidget(m_stack);

  connect(m_messages->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) selectMessage(current.data(Qt::UserRole).toInt());
          });

  m_status = new QLabel(this);
  m_status->setTextFormat(Qt::PlainText);
  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 1000);
  m_progress->setMaximumWidth(220);
  m_progress->hide();
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->hide();
  statusBar()->addWidget(m_status, 1);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);
  connect(m_cancel, &QPushButton::clicked, this, &LogWindow::cancel);
  connect(m_jobs, &JobTracker::progress, this, [this](double fraction, const QString&) {
    m_progress->setValue(static_cast<int>(fraction * 1000));
  });
  connect(m_jobs, &JobTracker::busyChanged, this, [this](bool busy) {
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
  });
  connect(m_jobs, &JobTracker::failed, this, [this](const JobError& error) {
    const QString text = error.text();
    m_empty->setText(text);
    m_stack->setCurrentWidget(m_empty);
    m_status->setText(text);
    emit failed(text);
  });
  connect(m_jobs, &JobTracker::cancelled, this, [this](const QString& subject) {
    const QString text = tr("Reading %1 was cancelled.").arg(subject);
    if (!m_doc) {
      m_empty->setText(text);
      m_stack->setCurrentWidget(m_empty);
    }
    m_status->setText(text);
    emit failed(text);
  });
}

LogWindow::~LogWindow() = default;

QWidget* LogWindow::buildDetail() {
  auto* detail = new QWidget;
  auto* layout = new QVBoxLayout(detail);
  layout->setContentsMargins(0, 0, 0, 0);
  m_heading = new QLabel(detail);
  m_heading->setObjectName(QStringLiteral("logHeading"));
  m_heading->setTextFormat(Qt::PlainText);
  QFont bold = m_heading->font();
  bold.setBold(true);
  m_heading->setFont(bold);
  layout->addWidget(m_heading);
  m_bar = new DeviceBarWidget(detail);
  layout->addWidget(m_bar);
  m_tabs = new QTabWidget(detail);
  m_diagnosis = makeText(m_tabs);
  m_diagnosis->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  m_diagnosis->setObjectName(QStringLiteral("logDiagnosis"));
  m_tabs->addTab(m_diagnosis, tr("Diagnosis"));
  m_buffersModel = new LogBuffersModel(this);
  m_buffers = new SortedTableView(m_buffersModel, m_tabs);
  m_buffers->setSelectionMode(QAbstractItemView::SingleSelection);
  m_tabs->addTab(m_buffers, tr("Peak Buffers"));
  m_figuresModel = new LogFiguresModel(this);
  auto* figures = new SortedTableView(m_figuresModel, m_tabs, Qt::DisplayRole);
  figures->setSelectionMode(QAbstractItemView::SingleSelection);
  m_tabs->addTab(figures, tr("Figures"));
  m_report = makeText(m_tabs);
  m_report->setObjectName(QStringLiteral("logReport"));
  m_tabs->addTab(m_report, tr("Report"));
  layout->addWidget(m_tabs, 1);
  return detail;
}

LogWindow* LogWindow::openFile(const QString& path) {
  auto* window = new LogWindow;
  window->setAttribute(Qt::WA_DeleteOnClose);
  window->show();
  window->load(path);
  return window;
}

LogWindow* LogWindow::openText(const QString& text) {
  auto* window = new LogWindow;
  window->setAttribute(Qt::WA_DeleteOnClose);
  window->show();
  window->loadText(text);
  return window;
}

void LogWindow::startJob(
    const QString& subject,
    std::function<std::shared_ptr<const LogDocument>(ProgressSink&, std::stop_token)> work) {
  m_status->setText(tr("Reading %1\u2026").arg(subject));
  m_progress->setValue(0);
  m_jobs->start<std::shared_ptr<const LogDocument>>(subject, std::move(work),
                                                    [this](const std::shared_ptr<const LogDocument>& doc) {
                                                      setDocument(doc);
                                                      emit loaded();
                                                    });
}

void LogWindow::load(const QString& path) {
  setWindowTitle(tr("%1 \u2014 oomscope").arg(safeText(QFileInfo(path).fileName())));
  startJob(path, [p = path.toStdString()](ProgressSink& progress, std::stop_token stop) {
    return loadLogDocument(p, progress, std::move(stop));
  });
}

void LogWindow::loadText(const QString& text) {
  setWindowTitle(tr("Pasted log \u2014 oomscope"));
  startJob(tr("the pasted log"), [t = text.toStdString()](ProgressSink&, const std::stop_token&) {
    return logDocumentFromText(t, std::string());
  });
}

void LogWindow::cancel() { m_jobs->cancel(); }

void LogWindow::setDocument(std::shared_ptr<const LogDocument> doc) {
  m_doc = std::move(doc);
  m_selected = -1;
  m_messageModel->setDocument(m_doc);
  if (!m_doc || m_doc->empty()) {
    m_empty->setText(m_doc ? logSummary(*m_doc) : QString());
    m_stack->setCurrentWidget(m_empty);
    m_status->setText(m_doc ? tr("No out-of-memory message found.") : QString());
    return;
  }
  m_stack->setCurrentIndex(1);
  m_summary->setText(logSummary(*m_doc));
  m_report->setPlainText(safeMultiline(m_doc->report));
  m_messages->resizeColumnsToContents();
  const auto first = m_doc->file.first_oom();
  selectMessage(first ? static_cast<int>(*first) : 0);
  m_status->setText(m_doc->file.lines == 1 ? tr("1 line read") : tr("%1 lines read").arg(m_doc->file.lines));
}

void LogWindow::selectMessage(int index) {
  if (!m_doc || index < 0 || static_cast<std::size_t>(index) >= m_doc->file.messages.size()) return;
  if (index == m_selected) return;
  m_selected = index;
  const auto i = static_cast<std::size_t>(index);
  m_heading->setText(messageHeading(*m_doc, index));
  const log::MessageDiagnosis* derived = m_doc->diagnosisOf(i);
  m_bar->setBar(derived ? derived->bar : log::DeviceBar{});
  m_bar->setVisible(!m_bar->parts().empty());  // a message that names only the request draws no device
  m_diagnosis->setPlainText(messageDiagnosisText(*m_doc, index));
  m_buffersModel->setMessage(m_doc, index);
  m_figuresModel->setMessage(m_doc, index);
  m_buffers->resizeColumnsToContents();
  m_tabs->setTabEnabled(1, !m_doc->file.messages[i].buffers.empty());
  // Keep the table's selection on the shown message (a selection from the code, or a click).
  for (int row = 0; row < m_sorted->rowCount(); ++row) {
    const QModelIndex at = m_sorted->index(row, 0);
    if (at.data(Qt::UserRole).toInt() == index && m_messages->currentIndex().row() != row) {
      m_messages->setCurrentIndex(at);
      break;
    }
  }
}

}  // namespace oomscope::ui
