#pragma once
// What the main window offers when a file cannot be opened: an action that fits the error's kind, in a
// non-blocking message box that names the file and the problem.
//
// clang-format off
//   CompanionNeeded                   "Open <host>.xplane.pb" (the capture beside a .trace.json.gz, sidecar)
//   Changed                           "Retry" (the file shrank or was replaced while read)
//   PermissionDenied, Io, Truncated   "Retry" and "Choose Another File..." (it may still be being written)
//   wrong format, missing, damaged    "Choose Another File..." (starts in the failed file's folder)
//   Internal                          Close only; Cancelled: no box at all
// clang-format on
//
// Every text in the box is plain text (Qt::PlainText): a file named "<b>x</b>.xplane.pb" shows literally.

#include <QList>
#include <QMessageBox>
#include <QString>
#include <functional>

#include "ui/session/job_error.h"

namespace oomscope::ui {

enum class LoadErrorAction { OpenCompanion, Retry, ChooseAnother };

struct LoadErrorChoice {
  LoadErrorAction action;
  QString label;       // the button's text
  QString objectName;  // "openCompanionButton", "retryButton", "chooseAnotherButton" (tests find them so)
};

// The actions for this error, the most likely first (it becomes the default button). Empty for Internal
// and Cancelled.
QList<LoadErrorChoice> loadErrorChoices(const JobError& error);

// Opens (does not exec) a window-modal box on parent with Close and one button per choice; chosen runs when
// one of them is pressed. objectName "messageBox", deleted on close.
QMessageBox* openMessageBox(QWidget* parent, QMessageBox::Icon icon, const QString& title,
                            const QString& text, const QList<LoadErrorChoice>& choices = {},
                            const std::function<void(LoadErrorAction)>& chosen = {});

}  // namespace oomscope::ui
