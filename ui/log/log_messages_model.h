#pragma once
// The messages of a log, one row each, in the order the log printed them: where they came from (rank,
// process), their kind and lines, the request and the device they name, and whether each is an
// out-of-memory error (a BFC warning that says "this is not a failure" is listed, but not as one).

#include <QAbstractTableModel>
#include <memory>

#include "ui/log/log_document.h"

namespace oomscope::ui {

class LogMessagesModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Index, Source, Kind, Lines, Requested, Device, Oom, FirstLine, ColumnCount };

  explicit LogMessagesModel(QObject* parent = nullptr);

  void setDocument(std::shared_ptr<const LogDocument> doc);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const LogDocument> m_doc;
};

}  // namespace oomscope::ui
