#pragma once
// The Diagnosis page: the one-sentence verdict first, then each diagnosis line of the report as a card with
// its measured/read/derived chip, cause, fixes (estimated saving, cost, whether it then fits) and how to
// confirm; the known limits last. Across the top: the module selector (the default module marked with why
// it is the default), a "would it fit in a pool of X?" field, and Copy as text (the CLI's report text).
//
// The page only asks: programRequested / defaultModuleRequested / capacityRequested go to AnalysisPages,
// which rebuilds the report on a worker thread and calls setResult().

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QVBoxLayout;

namespace oomscope::ui {

struct AnalysisResult;
class RangeBanner;
class ReportModuleModel;

class DiagnosisPage : public QWidget {
  Q_OBJECT

 public:
  explicit DiagnosisPage(QWidget* parent = nullptr);

  void setResult(std::shared_ptr<const AnalysisResult> result);
  void clear();
  // "Analysing jit_step..." while a build runs; the last result stays visible meanwhile.
  void setBusy(bool busy, const QString& what = {});
  // A failed request (unknown module, bad pool size): shown above the verdict until the next result.
  void showError(const QString& message);

  QString verdictText() const;
  QString errorText() const;
  int findingCount() const { return m_findingCount; }
  QComboBox* moduleBox() const { return m_modules; }
  QLineEdit* capacityEdit() const { return m_capacity; }
  QPushButton* checkButton() const { return m_check; }
  QPushButton* resetCapacityButton() const { return m_resetCapacity; }
  QPushButton* copyButton() const { return m_copy; }
  // Shows the active range (set by AnalysisPages) with one click to clear it.
  RangeBanner* rangeBanner() const { return m_range; }
  // Copies the report text to the clipboard (what the Copy button does) and returns it.
  QString copyAsText();

 signals:
  // The module chosen in the selector, by program id; or the capture's default module.
  void programRequested(quint64 programId);
  void defaultModuleRequested();
  // Pool size to check the plan against; 0 = back to the capture's own pool.
  void capacityRequested(qint64 bytes);

 private:
  void submitCapacity();
  void rebuildFindings();

  std::shared_ptr<const AnalysisResult> m_result;
  ReportModuleModel* m_moduleModel = nullptr;
  QComboBox* m_modules = nullptr;
  QLineEdit* m_capacity = nullptr;
  QPushButton* m_check = nullptr;
  QPushButton* m_resetCapacity = nullptr;
  QPushButton* m_copy = nullptr;
  RangeBanner* m_range = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_error = nullptr;
  QLabel* m_verdict = nullptr;
  QLabel* m_verdictTag = nullptr;
  QLabel* m_pool = nullptr;
  QWidget* m_findings = nullptr;
  QVBoxLayout* m_findingsLayout = nullptr;
  int m_findingCount = 0;
};

}  // namespace oomscope::ui
