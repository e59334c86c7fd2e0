#include "ui/live/demo_trainer.h"

#include <QCoreApplication>
#include <QProcess>

namespace oomscope::ui {

DemoTrainer::DemoTrainer(QObject* parent) : QObject(parent) {}

DemoTrainer::~DemoTrainer() {
  if (m_process) {
    m_process->kill();
    m_process->waitForFinished(2000);
  }
}

void DemoTrainer::setProgram(const QString& program, const QStringList& args) {
  m_program = program;
  m_args = args;
}

void DemoTrainer::stop() {
  if (!m_process) return;
  m_process->kill();
  m_process->waitForFinished(2000);
  delete m_process;
  m_process = nullptr;
}

QString DemoTrainer::start(QString* error) {
  const QString sock = QStringLiteral("/tmp/oomscope-demo-%1.sock").arg(QCoreApplication::applicationPid());
  stop();
  m_process = new QProcess(this);
  m_process->setProcessChannelMode(QProcess::MergedChannels);
  m_process->setStandardOutputFile(QProcess::nullDevice());
  m_process->start(m_program,
                   m_args + QStringList{QStringLiteral("--serve"), QStringLiteral("unix:") + sock});
  if (!m_process->waitForStarted(5000)) {
    if (error) *error = tr("Cannot start the demo trainer %1: %2").arg(m_program, m_process->errorString());
    return {};
  }
  return QStringLiteral("unix:") + sock;
}

}  // namespace oomscope::ui
