// The attach dialog (see attach_dialog.h).

#include "ui/live/attach_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QTabWidget>
#include <QVBoxLayout>

#include "core/live/prom/prom_api.h"
#include "core/util/error.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

QString parseEndpointList(const QString& text, std::vector<live::Endpoint>& out) {
  out.clear();
  const QStringList items = text.split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts);
  for (const QString& item : items) {
    try {
      const qsizetype plus =
          item.startsWith(QLatin1String("unix:")) ? -1 : item.lastIndexOf(QLatin1Char('+'));
      if (plus > 0) {
        bool ok = false;
        const int n = item.mid(plus + 1).toInt(&ok);
        if (!ok || n < 1 || n > 1024)
          return QObject::tr("'%1': the rank count after + must be 1 to 1024").arg(item);
        live::Endpoint ep = live::parse_endpoint(item.left(plus).toStdString());
        if (ep.port + n - 1 > 65535) return QObject::tr("'%1': ports run past 65535").arg(item);
        for (int i = 0; i < n; ++i, ++ep.port) out.push_back(ep);
      } else {
        out.push_back(live::parse_endpoint(item.toStdString()));
      }
    } catch (const Error& e) {
      return safeMultiline(e.message());
    }
  }
  if (out.empty()) return QObject::tr("Give at least one endpoint (HOST:PORT or unix:PATH).");
  return {};
}

QString parseRuleList(const QString& text, std::vector<live::AlertRule>& out) {
  out.clear();
  for (const QString& item : text.split(QRegularExpression(QStringLiteral("[\\s,;]+")), Qt::SkipEmptyParts)) {
    try {
      out.push_back(live::parse_alert_rule(item.toStdString()));
    } catch (const Error& e) {
      return safeMultiline(e.message());
    }
  }
  return {};
}

AttachDialog::AttachDialog(bool demoAvailable, QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("attachDialog"));
  setWindowTitle(tr("Attach to a running trainer"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("Start the trainer with an agent serving, e.g. <code>python3 -m oomscope_agent --port 7070 "
         "train.py</code>, then give one endpoint per rank, or (tab Prometheus) the server that scrapes "
         "their <code>/metrics</code>."),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("sourceTabs"));
  auto* agentsTab = new QWidget(m_tabs);
  auto* agentsForm = new QFormLayout(agentsTab);
  auto* form = new QFormLayout;
  m_endpoints = new QPlainTextEdit(this);
  m_endpoints->setObjectName(QStringLiteral("endpoints"));
  m_endpoints->setPlaceholderText(
      tr("127.0.0.1:7070\n127.0.0.1:7071\nunix:/tmp/rank2.sock\n127.0.0.1:7100+8"));
  m_endpoints->setMinimumHeight(90);
  QSettings settings;
  m_endpoints->setPlainText(
      settings.value(QStringLiteral("live/endpoints"), QStringLiteral("127.0.0.1:7070")).toString());
  agentsForm->addRow(tr("Endpoints:"), m_endpoints);
  m_tabs->addTab(agentsTab, tr("Agents"));
  auto* promTab = new QWidget(m_tabs);
  auto* promForm = new QFormLayout(promTab);
  auto* promIntro = new QLabel(
      tr("A Prometheus server that scrapes the agents' <code>/metrics</code> (<code>--metrics-port</code>): "
         "the ranks are the agents whose series match the selector."),
      promTab);
  promIntro->setWordWrap(true);
  promForm->addRow(promIntro);
  m_server = new QLineEdit(promTab);
  m_server->setObjectName(QStringLiteral("prometheusServer"));
  m_server->setPlaceholderText(QStringLiteral("http://127.0.0.1:9090"));
  m_server->setText(
      settings.value(QStringLiteral("live/prometheus"), QStringLiteral("http://127.0.0.1:9090")).toString());
  promForm->addRow(tr("Server:"), m_server);
  m_selector = new QLineEdit(promTab);
  m_selector->setObjectName(QStringLiteral("prometheusSelector"));
  m_selector->setPlaceholderText(QStringLiteral("job=\"train\""));
  m_selector->setText(settings.value(QStringLiteral("live/selector")).toString());
  promForm->addRow(tr("Selector:"), m_selector);
  m_tabs->addTab(promTab, tr("Prometheus"));
  m_tabs->setCurrentIndex(
      settings.value(QStringLiteral("live/source")).toString() == QLatin1String("prometheus") ? 1 : 0);
  layout->addWidget(m_tabs);
  m_token = new QLineEdit(this);
  m_token->setEchoMode(QLineEdit::Password);
  m_token->setPlaceholderText(tr("only for agents bound to another address than loopback"));
  form->addRow(tr("Token:"), m_token);
  m_rules = new QLineEdit(this);
  m_rules->setObjectName(QStringLiteral("rules"));
  m_rules->setText(settings
                       .value(QStringLiteral("live/rules"),
                              QStringLiteral("driver>22000MB moves:ooms moves:alloc_retries shapes-rising"))
                       .toString());
  m_rules->setToolTip(
      tr("FIELD>SIZE, growth:FIELD>SIZE (per 1,000 steps), moves:FIELD, gap>SIZE, "
         "shapes-rising[:N], event:KIND"));
  form->addRow(tr("Alerts:"), m_rules);
  layout->addLayout(form);
  m_error = new QLabel(this);
  m_error->setObjectName(QStringLiteral("attachError"));
  m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
  m_error->setWordWrap(true);
  layout->addWidget(m_error);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  auto* attach = buttons->addButton(tr("Attach"), QDialogButtonBox::AcceptRole);
  attach->setDefault(true);
  connect(attach, &QPushButton::clicked, this, [this] { tryAccept(false); });
  if (demoAvailable) {
    auto* demo = buttons->addButton(tr("Start the demo trainer and attach"), QDialogButtonBox::ActionRole);
    demo->setObjectName(QStringLiteral("startDemo"));
    connect(demo, &QPushButton::clicked, this, [this] { tryAccept(true); });
  }
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(560, 380);
}

void AttachDialog::setPrometheus(const QString& server, const QString& selector) {
  m_server->setText(server);
  m_selector->setText(selector);
  m_tabs->setCurrentIndex(1);
}

void AttachDialog::tryAccept(bool demo) {
  AttachRequest r;
  r.startDemo = demo;
  QString error;
  const bool prometheus = !demo && m_tabs->currentIndex() == 1;
  if (prometheus) {
    try {
      r.prometheus = live::parse_prometheus_source(m_server->text().trimmed().toStdString(), false);
      r.selector = live::normalise_selector(m_selector->text().toStdString());
    } catch (const Error& e) {
      error = safeText(e.what());
    }
  } else if (!demo) {
    error = parseEndpointList(m_endpoints->toPlainText(), r.endpoints);
  }
  if (error.isEmpty()) error = parseRuleList(m_rules->text(), r.rules);
  if (!error.isEmpty()) {
    m_error->setText(error);
    return;
  }
  r.token = m_token->text().toStdString();
  QSettings settings;
  if (prometheus) {
    settings.setValue(QStringLiteral("live/prometheus"), m_server->text().trimmed());
    settings.setValue(QStringLiteral("live/selector"), m_selector->text());
  } else if (!demo) {
    settings.setValue(QStringLiteral("live/endpoints"), m_endpoints->toPlainText());
  }
  if (!demo)
    settings.setValue(QStringLiteral("live/source"),
                      prometheus ? QStringLiteral("prometheus") : QStringLiteral("agents"));
  settings.setValue(QStringLiteral("live/rules"), m_rules->text());
  m_request = std::move(r);
  accept();
}

}  // namespace oomscope::ui
