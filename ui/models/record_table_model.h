#pragma once
// Base of the flat tables (modules, allocators, planes): one record per row, a fixed set of typed columns.
//
// Subclasses only say how many records there are and what each cell's raw value is; this class turns raw
// values into the roles every view needs, the same way in every table:
//   DisplayRole        human text (bytes in binary units with 3 significant figures, counts grouped)
//   SortRole           the raw value (qint64 / quint64 / QString) so sorting is numeric, not textual
//   ToolTipRole        exact bytes, or the full text of a possibly elided name
//   TextAlignmentRole  numbers right-aligned
// and header tooltips say what each column means and whether it was read from the file or derived.

#include <QAbstractTableModel>
#include <QString>
#include <vector>

namespace oomscope::ui {

class RecordTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Role { SortRole = Qt::UserRole + 1 };

  enum class CellKind { Text, Count, Bytes, Id };
  enum class Origin { Read, Derived };

  struct ColumnSpec {
    QString title;
    QString description;  // one sentence, shown in the header tooltip
    CellKind kind = CellKind::Text;
    Origin origin = Origin::Read;
    QString how;  // for derived columns: how the value is computed
  };

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  const ColumnSpec& columnSpec(int column) const { return m_columns.at(std::size_t(column)); }
  // Columns a text filter should look at (names and ids, not byte figures).
  bool isTextColumn(int column) const;

 protected:
  RecordTableModel(std::vector<ColumnSpec> columns, QObject* parent);

  virtual int recordCount() const = 0;
  // qint64/quint64 for numbers, QString for text; an invalid QVariant when the value is unknown.
  virtual QVariant rawValue(int row, int column) const = 0;
  // Extra tooltip line for an unknown value ("no buffer assignment", say).
  virtual QString unknownReason(int row, int column) const;

 private:
  std::vector<ColumnSpec> m_columns;
};

}  // namespace oomscope::ui
