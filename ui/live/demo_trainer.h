#pragma once
// The demo trainer the Live page can start and attach to ("Start the demo trainer and attach" in the
// attach dialog): a program that serves its agent on a socket when given `--serve unix:PATH`. One runs at
// a time; starting again replaces it, and it is killed with its owner.

#include <QObject>
#include <QString>
#include <QStringList>

class QProcess;

namespace oomscope::ui {

class DemoTrainer : public QObject {
  Q_OBJECT

 public:
  explicit DemoTrainer(QObject* parent = nullptr);
  ~DemoTrainer() override;

  // PROGRAM ARGS --serve unix:PATH; an empty program: none.
  void setProgram(const QString& program, const QStringList& args = {});
  bool available() const { return !m_program.isEmpty(); }
  // Starts the program (killing one started before) and returns the endpoint it serves ("unix:PATH"), or
  // an empty string with the reason in *error.
  QString start(QString* error);

 private:
  void stop();

  QString m_program;
  QStringList m_args;
  QProcess* m_process = nullptr;
};

}  // namespace oomscope::ui
