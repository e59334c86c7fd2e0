#include "ui/shell/empty_state_page.h"

#include <QFontDatabase>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace oomscope::ui {

namespace {

QLabel* paragraph(const QString& html, QWidget* parent) {
  auto* label = new QLabel(html, parent);
  label->setWordWrap(true);
  label->setTextFormat(Qt::RichText);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

// A snippet people copy into their training script: monospace, selectable, on a tinted background.
QLabel* snippet(const QString& code, QWidget* parent) {
  auto* label = new QLabel(code, parent);
  label->setObjectName(QStringLiteral("snippet"));
  label->setTextFormat(Qt::PlainText);
  label->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  label->setCursor(Qt::IBeamCursor);
  label->setStyleSheet(
      QStringLiteral("QLabel#snippet { background: palette(alternate-base); "
                     "border: 1px solid palette(mid); border-radius: 4px; padding: 8px; }"));
  return label;
}

}  // namespace

EmptyStatePage::EmptyStatePage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("emptyState"));

  auto* card = new QFrame(this);
  card->setObjectName(QStringLiteral("emptyCard"));
  card->setFrameShape(QFrame::StyledPanel);
  card->setMaximumWidth(720);
  card->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);

  auto* title = new QLabel(tr("No capture open"), card);
  QFont titleFont = title->font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.5);
  titleFont.setBold(true);
  title->setFont(titleFont);

  auto* intro = paragraph(tr("oomscope shows what filled the GPU memory of a JAX or TensorFlow run, from an "
                             "XProf profiler capture "
                             "(<code>.xplane.pb</code>)."),
                          card);
  auto* step1 =
      paragraph(tr("<b>1.</b> Trace the step that runs out of memory. The trace is written even when "
                   "the step fails:"),
                card);
  auto* code = snippet(QStringLiteral("import jax\n\n"
                                      "with jax.profiler.trace(\"/tmp/oom-trace\"):\n"
                                      "    state = train_step(state, batch)   # the failing step"),
                       card);
  auto* step2 = paragraph(tr("<b>2.</b> The capture is <code>/tmp/oom-trace/plugins/profile/&lt;run&gt;/"
                             "&lt;host&gt;.xplane.pb</code>. Allocator events need "
                             "<code>host_tracer_level</code> 2 or higher (the default)."),
                          card);
  auto* step3 =
      paragraph(tr("<b>3.</b> Open it with <b>File \u25b8 Open</b> (Ctrl+O), drop it on this window, "
                   "or pass it on the command line: <code>oomscope&nbsp;&lt;file&gt;</code>."),
                card);

  auto* open = new QPushButton(tr("Open a Capture\u2026"), card);
  open->setObjectName(QStringLiteral("openButton"));
  open->setDefault(true);
  m_example = new QPushButton(tr("Open the Bundled Example"), card);
  m_example->setObjectName(QStringLiteral("openExampleButton"));
  connect(open, &QPushButton::clicked, this, &EmptyStatePage::openRequested);
  connect(m_example, &QPushButton::clicked, this, &EmptyStatePage::openExampleRequested);

  auto* logHint =
      paragraph(tr("Only have the log of the failed run? Paste it with <b>Edit \u25b8 Paste Log</b> "
                   "(Ctrl+Shift+V) or open the log file: oomscope reads the out-of-memory messages "
                   "of PyTorch (CUDA, ROCm, MPS), XLA (GPU and TPU), TensorFlow's allocator, vLLM "
                   "and NCCL, and says what they mean."),
                card);
  logHint->setObjectName(QStringLiteral("logHint"));
  auto* paste = new QPushButton(tr("Paste a Log"), card);
  paste->setObjectName(QStringLiteral("pasteLogButton"));
  connect(paste, &QPushButton::clicked, this, &EmptyStatePage::pasteLogRequested);

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open);
  buttons->addWidget(m_example);
  buttons->addWidget(paste);
  buttons->addStretch(1);

  auto* cardLayout = new QVBoxLayout(card);
  cardLayout->setContentsMargins(28, 24, 28, 24);
  cardLayout->setSpacing(12);
  cardLayout->addWidget(title);
  cardLayout->addWidget(intro);
  cardLayout->addSpacing(4);
  cardLayout->addWidget(step1);
  cardLayout->addWidget(code);
  cardLayout->addWidget(step2);
  cardLayout->addWidget(step3);
  cardLayout->addWidget(logHint);
  cardLayout->addSpacing(8);
  cardLayout->addLayout(buttons);

  auto* outer = new QVBoxLayout(this);
  outer->addStretch(1);
  auto* row = new QHBoxLayout;
  row->addStretch(1);
  row->addWidget(card, 4);
  row->addStretch(1);
  outer->addLayout(row);
  outer->addStretch(2);

  setExamplePath({});
}

void EmptyStatePage::setExamplePath(const QString& path) {
  m_example->setEnabled(!path.isEmpty());
  m_example->setToolTip(
      path.isEmpty()
          ? tr("The bundled example was not found next to the program.")
          : tr("Opens %1: a JAX 0.8 + TransformerEngine fused-attention capture from an AMD MI350-class GPU.")
                .arg(path));
}

}  // namespace oomscope::ui
