#include "ui/live/direct_attach.h"

#include <poll.h>
#include <unistd.h>

#include <QWidget>

#include "core/live/protocol/endpoint.h"
#include "core/util/error.h"
#include "ui/live/live_page.h"
#include "ui/session/job_tracker.h"
#include "ui/session/safe_text_qt.h"

namespace oomscope::ui {

namespace {

// One connection attempt of at most 3 s (polled in 100 ms slices, so a stop is seen at once): empty when
// the socket answered, else why not.
std::string tryConnect(const live::Endpoint& ep, const std::stop_token& stop) {
  std::string error;
  bool in_progress = false;
  const int fd = live::start_connect(ep, in_progress, error);
  if (fd >= 0 && in_progress) {
    int ready = 0;
    for (int waited = 0; ready == 0 && waited < 3000 && !stop.stop_requested(); waited += 100) {
      pollfd p{fd, POLLOUT, 0};
      ready = ::poll(&p, 1, 100);
    }
    if (ready <= 0)
      error = "no answer within 3 s";
    else
      live::check_connected(fd, error);
  }
  if (fd >= 0) ::close(fd);
  if (stop.stop_requested()) throw Cancelled();
  return error;
}

}  // namespace

DirectAttach::DirectAttach(QWidget* page) : QObject(page), m_page(page), m_job(new JobTracker(this)) {}

bool DirectAttach::start(const live::PromRankInfo& info, int index) {
  const QString who = tr("rank %1").arg(info.rank >= 0 ? info.rank : index);
  if (info.stats_endpoint.empty()) {
    emit failed(
        tr("Cannot attach directly to %1: its agent publishes no stats_endpoint in oomscope_agent_info "
           "(an agent without a stats socket, or one older than this debugger).")
            .arg(who));
    return false;
  }
  live::Endpoint ep;
  try {
    ep = live::parse_endpoint(info.stats_endpoint);
  } catch (const Error& e) {
    emit failed(tr("Cannot attach directly to %1: %2").arg(who, safeText(e.what())));
    return false;
  }
  emit connecting(tr("Connecting to %1 at %2\u2026").arg(who, safeText(info.stats_endpoint)));
  m_job->start<std::string>(
      who, [ep](ProgressSink&, std::stop_token stop) { return tryConnect(ep, stop); },
      [this, ep, who](const std::string& error) {
        if (!error.empty()) {
          emit failed(tr("Cannot attach directly to %1 at %2: %3 (the agent's stats socket must be reachable "
                         "from this machine; agents bind loopback unless started with --host and a token).")
                          .arg(who, safeText(ep.to_string()), safeText(error)));
          return;
        }
        auto* page = new LivePage(m_page);
        page->setWindowFlag(Qt::Window);
        page->setAttribute(Qt::WA_DeleteOnClose);
        page->setWindowTitle(tr("%1 \u2014 direct attach to %2").arg(who, safeText(ep.to_string())));
        page->setWindowSeconds(60);
        page->attach({ep});
        page->resize(1000, 640);
        page->show();
        emit attached(page,
                      tr("attached directly to %1 at %2 in a new window").arg(who, safeText(ep.to_string())));
      });
  return true;
}

}  // namespace oomscope::ui
