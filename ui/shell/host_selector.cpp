#include "ui/shell/host_selector.h"

#include <QComboBox>
#include <QFileInfo>
#include <QLabel>

#include "ui/session/capture_session.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

// "host-a (host-a.xplane.pb)" for the selector.
QString hostLabel(const LoadedCapture& host) {
  const auto& names = host.capture->hostnames();
  const QString file = safeText(QFileInfo(host.path).fileName());
  if (names.empty()) return file;
  return QStringLiteral("%1 (%2)").arg(safeText(QString::fromStdString(names.front())), file);
}

}  // namespace

HostSelector::HostSelector(QWidget* parent) : QToolBar(tr("Hosts"), parent) {
  setObjectName(QStringLiteral("hostsToolBar"));
  setMovable(false);
  auto* label = new QLabel(tr("Host:"), this);
  label->setContentsMargins(6, 0, 6, 0);
  addWidget(label);
  m_combo = new QComboBox(this);
  m_combo->setObjectName(QStringLiteral("hostSelector"));
  m_combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_combo->setToolTip(tr("The host whose capture the pages show"));
  addWidget(m_combo);
  connect(m_combo, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (!m_syncing) emit hostChosen(m_combo->itemData(index).toInt());
  });
}

void HostSelector::setRun(const LoadedRun& run) {
  m_syncing = true;
  m_combo->clear();
  for (int i = 0; i < int(run.hosts.size()); ++i) m_combo->addItem(hostLabel(run.hosts[std::size_t(i)]), i);
  m_syncing = false;
  setVisible(run.isMultiHost());
}

void HostSelector::setCurrentHost(int host) {
  m_syncing = true;
  m_combo->setCurrentIndex(m_combo->findData(host));
  m_syncing = false;
}

}  // namespace oomscope::ui
