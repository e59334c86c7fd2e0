#pragma once
// The figures of one message: first every figure the log printed (read: the value in bytes, and the text
// as printed with the rounding it implies), then what oomscope computed from them (derived, with how).

#include <QAbstractTableModel>
#include <memory>

#include "ui/log/log_document.h"

namespace oomscope::ui {

class LogFiguresModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Key, Value, Provenance, Printed, ColumnCount };

  explicit LogFiguresModel(QObject* parent = nullptr);

  void setMessage(std::shared_ptr<const LogDocument> doc, int message);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const LogDocument> m_doc;
  const log::Message* m_read = nullptr;              // inside m_doc
  const log::MessageDiagnosis* m_derived = nullptr;  // inside m_doc
};

}  // namespace oomscope::ui
