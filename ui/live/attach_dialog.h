#pragma once
// "Attach to a running trainer": endpoints (one per rank; HOST:PORT, unix:PATH, or HOST:PORT+N for N ranks
// on consecutive ports), or a Prometheus server and label selector (the ranks whose agents it scrapes), an
// optional token, the alert rules, and, when a demo trainer program is known, a button that starts it
// serving and attaches to it.

#include <QDialog>
#include <vector>

#include "core/live/client/alerts.h"
#include "core/live/protocol/endpoint.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;

namespace oomscope::ui {

struct AttachRequest {
  std::vector<live::Endpoint> endpoints;
  std::string token;
  std::vector<live::AlertRule> rules;
  bool startDemo = false;
  std::string prometheus;  // server URL when the Prometheus tab was used (endpoints then empty)
  std::string selector;
};

// Parses the endpoint text: one per line or separated by spaces/commas; HOST:PORT+N expands to N ports.
// Returns an empty string or the first problem.
QString parseEndpointList(const QString& text, std::vector<live::Endpoint>& out);
QString parseRuleList(const QString& text, std::vector<live::AlertRule>& out);

class AttachDialog : public QDialog {
  Q_OBJECT

 public:
  explicit AttachDialog(bool demoAvailable, QWidget* parent = nullptr);
  const AttachRequest& request() const { return m_request; }
  // Selects the Prometheus tab with these values (tests).
  void setPrometheus(const QString& server, const QString& selector);

 private:
  void tryAccept(bool demo);

  QTabWidget* m_tabs = nullptr;
  QPlainTextEdit* m_endpoints = nullptr;
  QLineEdit* m_server = nullptr;
  QLineEdit* m_selector = nullptr;
  QLineEdit* m_token = nullptr;
  QLineEdit* m_rules = nullptr;
  QLabel* m_error = nullptr;
  AttachRequest m_request;
};

}  // namespace oomscope::ui
