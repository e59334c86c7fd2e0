#pragma once
// Combo boxes and button groups that carry an enum value, not a position: each item stores its enum in
// its item data (a button its id), so reading or setting the choice never maps an index by hand and
// reordering the items cannot silently change what they mean.

#include <QButtonGroup>
#include <QComboBox>
#include <QVariant>

namespace oomscope::ui {

template <typename E>
void addEnumItem(QComboBox* box, const QString& text, E value) {
  box->addItem(text, QVariant::fromValue(int(value)));
}

template <typename E>
E currentEnum(const QComboBox* box) {
  return E(box->currentData().toInt());
}

// Selects the item carrying value; leaves the box as it is when no item does.
template <typename E>
void selectEnum(QComboBox* box, E value) {
  const int at = box->findData(QVariant::fromValue(int(value)));
  if (at >= 0) box->setCurrentIndex(at);
}

template <typename E>
E checkedEnum(const QButtonGroup* group) {
  return E(group->checkedId());
}

// Checks the button whose id is value; nothing changes when no button has that id.
template <typename E>
void checkEnum(QButtonGroup* group, E value) {
  if (QAbstractButton* b = group->button(int(value))) b->setChecked(true);
}

}  // namespace oomscope::ui
