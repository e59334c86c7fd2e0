#include "ui/snapshot/overlay_page.h"

#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <cstdlib>

#include "ui/models/report_format.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"
#include "ui/snapshot/overlay_widget.h"
#include "ui/snapshot/site_diff_model.h"
#include "ui/widgets/sorted_table_view.h"

namespace oomscope::ui {

OverlayPage::OverlayPage(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  m_open = new QPushButton(tr("Open Second Run\u2026"));
  row->addWidget(m_open);
  row->addWidget(new QLabel(tr("Shift B by")));
  m_shift = new QDoubleSpinBox;
  m_shift->setRange(-1e12, 1e12);
  m_shift->setDecimals(1);
  m_shift->setSingleStep(100.0);
  m_shift->setSuffix(tr(" ms"));
  m_shift->setToolTip(tr("Moves B along the shared axis, on top of the automatic alignment"));
  row->addWidget(m_shift);
  row->addStretch(1);
  layout->addLayout(row);
  m_summary =
      new QLabel(tr("Lay a second snapshot of the same job over this one: the run before and after a "
                    "change shows where the bytes went and whether the peak moved."));
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::RichText);
  layout->addWidget(m_summary);
  auto* split = new QSplitter(Qt::Vertical);
  m_chart = new OverlayWidget;
  split->addWidget(m_chart);
  m_model = new SiteDiffModel(this);
  m_view = new SortedTableView(m_model);
  m_view->resizeColumnsToContents();  // empty: each column as wide as its header, not elided
  split->addWidget(m_view);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);

  m_job = new JobTracker(this);
  connect(m_job, &JobTracker::failed, this, [this](const JobError& e) {
    m_open->setEnabled(true);
    m_summary->setText(e.text().toHtmlEscaped());
    emit failed(e.text());
  });
  connect(m_job, &JobTracker::cancelled, this, [this] {
    m_open->setEnabled(true);
    emit failed(tr("Loading the second run was cancelled."));
  });
  connect(m_open, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open Second Run"), QString(),
                                     tr("Snapshots, Kineto traces, JAX memory profiles (*.pickle *.pickle.gz "
                                        "*.json *.json.gz *.prof *.pb.gz);;All files (*)"));
    if (!path.isEmpty()) openSecondRun(path);
  });
  connect(m_shift, &QDoubleSpinBox::valueChanged, this, [this](double ms) {
    const bool entries = m_result && m_result->overlay.axis == snapshot::OverlayAxis::Entry;
    m_chart->setShift(entries ? ms : ms * 1000.0);
  });
}

void OverlayPage::setBaseline(std::shared_ptr<const SnapshotDocument> a) {
  m_a = std::move(a);
  m_open->setEnabled(m_a && (m_a->snap || m_a->kineto || m_a->pprof));
  if (m_a && (m_a->kineto || m_a->pprof))
    m_summary->setText(m_a->kineto
                           ? tr("Lay a second Kineto trace over this one: both memory timelines on one "
                                "axis, aligned by ProfilerStep#N where both carry it.")
                           : tr("Compare a second JAX memory profile with this one, side by side by "
                                "Python line: a profile is one moment, with no time axis."));
}

void OverlayPage::openSecondRun(const QString& path) {
  if (!m_a) return;
  m_open->setEnabled(false);
  m_summary->setText(tr("Reading %1\u2026").arg(safeText(QFileInfo(path).fileName()).toHtmlEscaped()));
  m_job->start<std::shared_ptr<const RunOverlayResult>>(
      path,
      [a = m_a, path](ProgressSink& progress, const std::stop_token& stop) {
        return buildRunOverlay(a, path, progress, stop);
      },
      [this](const std::shared_ptr<const RunOverlayResult>& r) {
        m_open->setEnabled(true);
        setResult(r);
        emit overlaid();
      });
}

void OverlayPage::setResult(std::shared_ptr<const RunOverlayResult> result) {
  m_result = std::move(result);
  m_chart->setResult(m_result);
  m_model->setResult(m_result);
  m_shift->blockSignals(true);
  m_shift->setValue(0);
  m_shift->blockSignals(false);
  if (!m_result) {
    m_view->resizeColumnsToContents();
    return;
  }
  const auto& o = m_result->overlay;
  m_shift->setEnabled(!m_result->noTimeAxis());
  if (m_result->profile) {
    showProfile(*m_result->profile);
    m_view->resizeColumnsToContents();
    return;
  }
  m_shift->setSuffix(o.axis == snapshot::OverlayAxis::Entry ? tr(" entries") : tr(" ms"));
  const qint64 pa = o.a.peak_bytes, pb = o.b.peak_bytes;
  QString text =
      tr("<b>A</b> %1 \u2192 <b>B</b> %2: active-memory peak %3 \u2192 %4 (%5%6). ")
          .arg(safeText(QFileInfo(QString::fromStdString(o.a.path)).fileName()).toHtmlEscaped(),
               safeText(QFileInfo(QString::fromStdString(o.b.path)).fileName()).toHtmlEscaped(),
               bytesText(pa), bytesText(pb), pb >= pa ? QStringLiteral("+") : QStringLiteral("\u2212"),
               bytesText(pb >= pa ? pb - pa : pa - pb));
  QString why = safeText(o.why);
  if (!why.isEmpty()) why[0] = why[0].toUpper();
  text += why.toHtmlEscaped() + QStringLiteral(". ");
  // Where each peak fell, by the files' own annotations (diff's "the peak moved" line).
  const snapshot::DiffPeak& peakA = m_result->diff.peak_a;
  const snapshot::DiffPeak& peakB = m_result->diff.peak_b;
  if (snapshot::peak_moved(peakA, peakB))
    text += tr("The peak moved: A's falls inside %1, B's inside %2 [derived]. ")
                .arg(safeText(peakA.window).toHtmlEscaped(), safeText(peakB.window).toHtmlEscaped());
  else if (!peakA.window.empty() && peakA.window == peakB.window)
    text += tr("Both peaks fall inside %1. ").arg(safeText(peakA.window).toHtmlEscaped());
  const auto& rows = m_result->diff.site_rows;
  if (!rows.empty())
    text += tr("Largest change at the peaks: <b>%1%2</b> at %3 (%4); %5 site and category rows changed "
               "[derived].")
                .arg(rows.front().delta() >= 0 ? QStringLiteral("+") : QStringLiteral("\u2212"),
                     bytesText(std::abs(rows.front().delta())), safeText(rows.front().site).toHtmlEscaped(),
                     safeText(rows.front().category).toHtmlEscaped())
                .arg(m_result->diff.site_rows_total);
  else
    text += tr("The same bytes are live at both peaks at every site.");
  m_summary->setText(text);
  m_view->sortByColumn(SiteDiffModel::Delta, Qt::DescendingOrder);
  m_view->resizeColumnsToContents();
}

// Two Kineto traces (one axis, no sites) or two JAX memory profiles (sites, no time axis): the peaks or the
// live bytes, the alignment or why there is none, and what the format cannot tell.
void OverlayPage::showProfile(const snapshot::ProfileDiff& d) {
  const auto& o = m_result->overlay;
  const auto name = [](const std::string& p) {
    return safeText(QFileInfo(QString::fromStdString(p)).fileName()).toHtmlEscaped();
  };
  const snapshot::ProfileRow& first = d.totals.front();  // peak allocated, or live bytes
  QString text = tr("<b>A</b> %1 \u2192 <b>B</b> %2: ").arg(name(d.path_a), name(d.path_b));
  const QString label = d.format == "kineto" ? tr("allocated peak") : tr("live bytes");
  if (first.a && first.b)
    text += tr("%1 %2 \u2192 %3 (%4%5) [read]. ")
                .arg(label, bytesText(*first.a), bytesText(*first.b),
                     *first.b >= *first.a ? QStringLiteral("+") : QStringLiteral("\u2212"),
                     bytesText(*first.b >= *first.a ? *first.b - *first.a : *first.a - *first.b));
  // For two JAX profiles the chart says why there is no axis, and the list below says it for the format.
  if (d.format != "pprof") {
    QString why = safeText(o.why);
    if (!why.isEmpty()) why[0] = why[0].toUpper();
    text += why.toHtmlEscaped() + QStringLiteral(". ");
  }
  if (d.format == "pprof" && !d.sites.empty())
    text +=
        tr("Largest change: <b>%1%2</b> at %3; %4 rows changed [read].")
            .arg(d.sites.front().delta() >= 0 ? QStringLiteral("+") : QStringLiteral("\u2212"),
                 bytesText(std::abs(d.sites.front().delta())), safeText(d.sites.front().site).toHtmlEscaped())
            .arg(d.sites_total);
  else if (d.format == "pprof")
    text += tr("The same bytes are live at every Python line.");
  for (const std::string& s : d.cannot_tell) {
    QString t = safeText(s);
    if (!t.isEmpty()) t[0] = t[0].toUpper();
    text += QStringLiteral(" ") + t.toHtmlEscaped() + QStringLiteral(".");
  }
  m_summary->setText(text);
  m_view->sortByColumn(SiteDiffModel::Delta, Qt::DescendingOrder);
}

}  // namespace oomscope::ui
