#pragma once
// The buffers one XLA message lists at its peak ("Peak buffers:" on GPU, "Largest program allocations in
// hbm:" on TPU), with what the log gave of each: size, shape, the operator and its source line, the XLA
// label, and on TPU the unpadded size and the padding. Every figure here is read.

#include <QAbstractTableModel>
#include <memory>

#include "ui/log/log_document.h"

namespace oomscope::ui {

class LogBuffersModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Index, Size, Shape, Unpadded, Padding, Source, Op, Label, Type, ColumnCount };

  explicit LogBuffersModel(QObject* parent = nullptr);

  // The buffers of message `message` of `doc` (none for a message out of range).
  void setMessage(std::shared_ptr<const LogDocument> doc, int message);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  const log::Message* message() const;

  std::shared_ptr<const LogDocument> m_doc;
  int m_message = -1;
};

}  // namespace oomscope::ui
