#include "ui/shell/load_error_box.h"

#include <QFileInfo>
#include <QLabel>
#include <QPushButton>

#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

QList<LoadErrorChoice> loadErrorChoices(const JobError& error) {
  const LoadErrorChoice retry{LoadErrorAction::Retry, QObject::tr("Retry"), QStringLiteral("retryButton")};
  const LoadErrorChoice choose{LoadErrorAction::ChooseAnother, QObject::tr("Choose Another File\u2026"),
                               QStringLiteral("chooseAnotherButton")};
  switch (error.kind) {
    case ErrorKind::CompanionNeeded:
      if (error.companion.isEmpty()) return {choose};
      return {{LoadErrorAction::OpenCompanion,
               QObject::tr("Open %1").arg(safeText(QFileInfo(error.companion).fileName())),
               QStringLiteral("openCompanionButton")},
              choose};
    case ErrorKind::Changed:
      return {retry};
    case ErrorKind::PermissionDenied:
    case ErrorKind::Io:
    case ErrorKind::Truncated:
      return {retry, choose};
    case ErrorKind::NotFound:
    case ErrorKind::NotAFile:
    case ErrorKind::Empty:
    case ErrorKind::TooLarge:
    case ErrorKind::Gzip:
    case ErrorKind::Riegeli:
    case ErrorKind::NotACapture:
    case ErrorKind::Damaged:
    case ErrorKind::UnsupportedVersion:
    case ErrorKind::InvalidArgument:
      return {choose};
    case ErrorKind::Cancelled:
    case ErrorKind::Internal:
      return {};
  }
  return {};
}

QMessageBox* openMessageBox(QWidget* parent, QMessageBox::Icon icon, const QString& title,
                            const QString& text, const QList<LoadErrorChoice>& choices,
                            const std::function<void(LoadErrorAction)>& chosen) {
  auto* box = new QMessageBox(icon, QStringLiteral("oomscope"), title, QMessageBox::NoButton, parent);
  box->setObjectName(QStringLiteral("messageBox"));
  box->setTextFormat(Qt::PlainText);
  box->setInformativeText(text);
  // The informative label has no format setter of its own; names from files must not be read as markup.
  for (QLabel* label : box->findChildren<QLabel*>()) label->setTextFormat(Qt::PlainText);
  // QMessageBox picks a narrow width that wraps long paths and sentences into a column.
  box->setStyleSheet(
      QStringLiteral("QLabel#qt_msgbox_label, QLabel#qt_msgbox_informativelabel { min-width: 480px; }"));
  for (const LoadErrorChoice& choice : choices) {
    QPushButton* button = box->addButton(choice.label, QMessageBox::AcceptRole);
    button->setObjectName(choice.objectName);
    QObject::connect(button, &QPushButton::clicked, box, [chosen, action = choice.action] {
      if (chosen) chosen(action);
    });
    if (choice.action == choices.first().action) box->setDefaultButton(button);
  }
  QPushButton* close = box->addButton(choices.isEmpty() ? QMessageBox::Ok : QMessageBox::Close);
  close->setObjectName(QStringLiteral("closeButton"));
  if (choices.isEmpty()) box->setDefaultButton(close);
  box->setEscapeButton(close);
  box->setAttribute(Qt::WA_DeleteOnClose);
  // Window-modal and opened, not exec()'d: the event loop (and a running load) keeps going.
  box->setWindowModality(Qt::WindowModal);
  box->open();
  return box;
}

}  // namespace oomscope::ui
