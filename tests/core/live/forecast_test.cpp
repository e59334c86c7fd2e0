// The OOM forecast on synthetic series: a leak, no leak, a restart (by event and by the step counter), a
// checkpoint spike and an evaluation pass, rising input shapes, a step peak over the headroom, too little
// history, no limit, ranks without a step counter; the tracker's interval and lead, and forecast:STEPS.

#include "core/live/client/forecast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "core/live/client/alerts.h"
#include "core/live/client/forecast_tracker.h"
#include "core/live/client/robust_fit.h"
#include "core/util/error.h"

namespace oomscope::live {
namespace {

constexpr std::int64_t kMiB = 1 << 20;
constexpr std::int64_t kStepNs = 500'000'000;  // half a second a step

// A rank with a budget of `capacity`: per step, four samples through the step (phases 0, 1/4, 1/2, 3/4):
// allocated = baseline(step) + peak(step) * phase, peak_allocated = the same (the attempt's peak so far).
struct Series {
  RankSeries rank;
  explicit Series(std::int64_t capacity) {
    Hello h;
    h.total_bytes = capacity;
    rank.hello = h;
  }
  void steps(std::int64_t from, std::int64_t to, const std::function<double(std::int64_t)>& baseline,
             const std::function<double(std::int64_t)>& peak, std::int64_t t_offset = 0) {
    for (std::int64_t step = from; step < to; ++step)
      for (int q = 0; q < 4; ++q) {
        Sample s;
        s.t = t_offset + step * kStepNs + q * kStepNs / 4;
        s.set(Field::Step, step);
        const auto v = static_cast<std::int64_t>(baseline(step) + peak(step) * q / 4.0);
        s.set(Field::Allocated, v);
        s.set(Field::PeakAllocated, v);
        rank.samples.push_back(s);
      }
  }
};

double leak(std::int64_t step) { return 200.0 * kMiB + 1.0 * kMiB * static_cast<double>(step); }
double flat_peak(std::int64_t) { return 100.0 * kMiB; }
// With a step's peak of 100 MiB at phase 3/4 (75 MiB above the baseline), 1 GiB is crossed when
// 200 + s + 75 >= 1024 MiB: at step 749.
constexpr std::int64_t kLeakOom = 749;

TEST(LiveForecast, TheilSenIgnoresOutliers) {
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) x.push_back(i), y.push_back(3.0 * i + 7);
  y[4] = 500, y[17] = -400, y[25] = 1e6;
  const LineFit f = theil_sen(x, y);
  EXPECT_NEAR(f.slope, 3.0, 0.01);
  EXPECT_NEAR(f.intercept, 7.0, 0.5);
  EXPECT_LE(f.slope_lo, 3.0);
  EXPECT_GE(f.slope_hi, 3.0);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.5), 3);
  EXPECT_DOUBLE_EQ(quantile({}, 0.9), 0);
}

TEST(LiveForecast, LeakNamesTheCrossingStep) {
  Series s(1024 * kMiB);
  s.steps(0, 300, leak, flat_peak);
  const Forecast f = forecast_rank(s.rank);
  ASSERT_EQ(f.state, ForecastState::Oom) << f.driver;
  ASSERT_TRUE(f.oom_at_step);
  EXPECT_NEAR(static_cast<double>(*f.oom_at_step), kLeakOom, 0.02 * kLeakOom) << f.driver;
  EXPECT_LE(*f.early_step, *f.oom_at_step);
  EXPECT_GE(*f.late_step, *f.oom_at_step);
  EXPECT_EQ(f.driver_kind, ForecastDriver::Growth);
  EXPECT_NE(f.driver.find("+1.00 MiB per step (leak-like, steady for 299 steps)"), std::string::npos)
      << f.driver;
  EXPECT_EQ(f.figure, Field::Allocated);
  EXPECT_EQ(f.limit_bytes, 1024 * kMiB);
  EXPECT_EQ(f.at_step, 299);
  ASSERT_TRUE(f.oom_in_seconds);
  EXPECT_NEAR(*f.oom_in_seconds, (*f.oom_at_step - 299) * 0.5, 1.0);
  EXPECT_NE(forecast_sentence(f).find("[derived]"), std::string::npos);
  EXPECT_EQ(forecast_cell(f).rfind("step ", 0), 0u);
}

TEST(LiveForecast, NoLeakIsNoOomInSight) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(-8.0 * kMiB, 8.0 * kMiB);
  std::vector<double> jitter(2000);
  for (auto& j : jitter) j = noise(rng);
  Series s(1024 * kMiB);
  s.steps(
      0, 600, [&](std::int64_t step) { return 500.0 * kMiB + jitter[static_cast<std::size_t>(step)]; },
      flat_peak);
  const Forecast f = forecast_rank(s.rank);
  EXPECT_EQ(f.state, ForecastState::NoOom) << f.driver;
  EXPECT_FALSE(f.oom_at_step);
  EXPECT_EQ(f.driver.rfind("no OOM in sight: ", 0), 0u) << f.driver;
  EXPECT_EQ(forecast_cell(f), "none in sight");
}

TEST(LiveForecast, SlowCreepFarAheadIsNoOomInSight) {
  Series s(64LL * 1024 * kMiB);
  s.steps(
      0, 200, [](std::int64_t step) { return 500.0 * kMiB + 10.0 * 1024 * step; }, flat_peak);
  const Forecast f = forecast_rank(s.rank);
  EXPECT_EQ(f.state, ForecastState::NoOom) << f.driver;
  EXPECT_NE(f.driver.find("fitted ahead"), std::string::npos) << f.driver;
}

TEST(LiveForecast, RestartStartsTheHistoryAgain) {
  Series s(1024 * kMiB);
  s.steps(0, 400, leak, flat_peak);
  // The process restarts from its checkpoint at step 400: the leak is given back, the step goes on.
  s.rank.events.push_back(Event{400 * kStepNs - 1, "restart", "live bytes crossed", "", 400});
  s.steps(
      400, 430, [](std::int64_t step) { return leak(step - 400); }, flat_peak);
  Forecast f = forecast_rank(s.rank);
  EXPECT_EQ(f.state, ForecastState::NotEnoughHistory);
  EXPECT_NE(f.driver.find("since the restart at step 399"), std::string::npos) << f.driver;
  s.steps(
      430, 700, [](std::int64_t step) { return leak(step - 400); }, flat_peak);
  f = forecast_rank(s.rank);
  ASSERT_EQ(f.state, ForecastState::Oom) << f.driver;
  EXPECT_NEAR(static_cast<double>(*f.oom_at_step), 400 + kLeakOom, 0.02 * kLeakOom) << f.driver;
  EXPECT_EQ(f.from_step, 400);
}

TEST(LiveForecast, StepCounterGoingBackIsARestart) {
  Series s(1024 * kMiB);
  s.steps(0, 500, leak, flat_peak);
  s.steps(0, 200, leak, flat_peak, 500 * kStepNs);  // a new run from step 0
  const Forecast f = forecast_rank(s.rank);
  ASSERT_EQ(f.state, ForecastState::Oom) << f.driver;
  EXPECT_NEAR(static_cast<double>(*f.oom_at_step), kLeakOom, 0.02 * kLeakOom);
  EXPECT_NE(f.since.find("step counter going back from 499 to 0"), std::string::npos) << f.since;
}

TEST(LiveForecast, AGapStartsAgainOnlyWhenANewProcessCameBack) {
  Series same(1024 * kMiB), fresh(1024 * kMiB);
  for (Series* s : {&same, &fresh}) {
    s->steps(0, 300, leak, flat_peak);
    s->rank.gaps.push_back(Gap{s->rank.samples.back().t, 310 * kStepNs, "connection reset"});
  }
  same.steps(310, 400, leak, flat_peak);  // the same process: the network dropped for 10 steps
  fresh.steps(
      310, 400, [](std::int64_t step) { return leak(step - 310); }, flat_peak);
  const Forecast a = forecast_rank(same.rank), b = forecast_rank(fresh.rank);
  ASSERT_EQ(a.state, ForecastState::Oom) << a.driver;
  EXPECT_TRUE(a.since.empty()) << a.since;
  EXPECT_NEAR(static_cast<double>(*a.oom_at_step), kLeakOom, 0.02 * kLeakOom);
  ASSERT_EQ(b.state, ForecastState::Oom) << b.driver;
  EXPECT_NE(b.since.find("the reconnection after step 299"), std::string::npos) << b.since;
  EXPECT_NEAR(static_cast<double>(*b.oom_at_step), 310 + kLeakOom, 0.02 * kLeakOom);
}

TEST(LiveForecast, CheckpointSpikeAndEvaluationPassDoNotWreckTheFit) {
  Series clean(1024 * kMiB), spiky(1024 * kMiB);
  clean.steps(0, 400, leak, flat_peak);
  spiky.steps(
      0, 400,
      [](std::int64_t step) {
        double b = leak(step);
        if (step >= 300 && step < 315) b += 120.0 * kMiB;  // an evaluation pass holds its outputs
        return b;
      },
      [](std::int64_t step) { return step == 150 || step == 250 ? 500.0 * kMiB : 100.0 * kMiB; });
  const Forecast a = forecast_rank(clean.rank), b = forecast_rank(spiky.rank);
  ASSERT_EQ(a.state, ForecastState::Oom);
  ASSERT_EQ(b.state, ForecastState::Oom) << b.driver;
  EXPECT_NEAR(static_cast<double>(*b.oom_at_step), static_cast<double>(*a.oom_at_step), 0.03 * kLeakOom)
      << b.driver;
}

TEST(LiveForecast, RisingShapesAreTheDriver) {
  Series s(1024 * kMiB);
  // Flat baseline; the step's peak grows 1 MiB a step as longer inputs arrive (75 % of it sampled).
  s.steps(
      0, 300, [](std::int64_t) { return 300.0 * kMiB; },
      [](std::int64_t step) { return 100.0 * kMiB + 1.0 * kMiB * static_cast<double>(step); });
  for (std::int64_t step = 0; step < 300; step += 10)
    s.rank.shapes.push_back(Shapes{step * kStepNs, 1 + step / 10, {4, 1000 + step}, {{4, 1000 + step}}});
  const Forecast f = forecast_rank(s.rank);
  ASSERT_EQ(f.state, ForecastState::Oom) << f.driver;
  EXPECT_EQ(f.driver_kind, ForecastDriver::Shapes) << f.driver;
  EXPECT_NE(f.driver.find("input shapes still rising"), std::string::npos) << f.driver;
  // 300 + 0.75 * (100 + s) >= 1024 MiB: s = 866 (in whole MiB steps of the sampled peak).
  EXPECT_NEAR(static_cast<double>(*f.oom_at_step), 866, 0.05 * 866) << f.driver;
}

TEST(LiveForecast, StepPeakOverHeadroomFailsNextStep) {
  Series s(1000 * kMiB);
  s.steps(
      0, 200, [](std::int64_t) { return 850.0 * kMiB; }, [](std::int64_t) { return 200.0 * kMiB; });
  const Forecast f = forecast_rank(s.rank);
  ASSERT_EQ(f.state, ForecastState::Oom) << f.driver;
  EXPECT_EQ(f.driver_kind, ForecastDriver::StepPeak);
  EXPECT_EQ(*f.oom_at_step, 200);
  EXPECT_NE(f.driver.find("step peak 150 MiB > headroom 150 MiB"), std::string::npos) << f.driver;
}

TEST(LiveForecast, TooLittleHistoryAndNoLimitSaySo) {
  Series s(1024 * kMiB);
  EXPECT_EQ(forecast_rank(s.rank).state, ForecastState::NotEnoughHistory);
  EXPECT_EQ(forecast_rank(s.rank).driver, "no samples yet");
  s.steps(0, 20, leak, flat_peak);
  Forecast f = forecast_rank(s.rank);
  EXPECT_EQ(f.state, ForecastState::NotEnoughHistory);
  EXPECT_EQ(f.driver, "not enough history yet: 19 steps (a forecast needs 50 steps)");
  EXPECT_EQ(forecast_cell(f), "history too short");
  // Samples in too few ranges: one sample every 30 steps.
  Series sparse(1024 * kMiB);
  sparse.steps(0, 300, leak, flat_peak);
  std::vector<Sample> kept;
  for (const Sample& x : sparse.rank.samples)
    if (x.get(Field::Step) % 60 == 0) kept.push_back(x);
  sparse.rank.samples = kept;
  f = forecast_rank(sparse.rank);
  EXPECT_EQ(f.state, ForecastState::NotEnoughHistory);
  EXPECT_NE(f.driver.find("samples in only 5 of 40 ranges"), std::string::npos) << f.driver;
  RankSeries no_limit;
  no_limit.samples = s.rank.samples;
  f = forecast_rank(no_limit);
  EXPECT_EQ(f.state, ForecastState::NoLimit);
  EXPECT_NE(f.driver.find("no device capacity"), std::string::npos);
}

TEST(LiveForecast, DriverAgainstRecommendedMaxPerThousandSteps) {
  // The reference's MPS re-run: the driver cache grows from 1.2 GB by ~15 GB per 1,000 steps, the
  // recommended maximum is 25,559 MB; no capacity in the hello.
  RankSeries r;
  for (std::int64_t step = 3000; step < 3600; ++step) {
    Sample s;
    s.t = step * kStepNs;
    s.set(Field::Step, step);
    s.set(Field::Allocated, 1'086'000'000);
    s.set(Field::Driver, 1'200'000'000 + (step - 3000) * 15'035'714);
    s.set(Field::RecommendedMax, 25'559'000'000);
    r.samples.push_back(s);
  }
  const Forecast f = forecast_rank(r);
  ASSERT_EQ(f.state, ForecastState::Oom) << f.driver;
  EXPECT_EQ(f.figure, Field::Driver);
  EXPECT_EQ(f.limit_name, "recommended_max");
  // 1.2e9 + (s - 3000) * 15.04e6 >= 25.559e9: s = 4621.
  EXPECT_NEAR(static_cast<double>(*f.oom_at_step), 4621, 5);
  EXPECT_EQ(f.driver.rfind("driver cache +14.0 GiB per 1,000 steps (steady for ", 0), 0u) << f.driver;
}

TEST(LiveForecast, WithoutStepsOverSeconds) {
  RankSeries r;
  Hello h;
  h.total_bytes = 1024 * kMiB;
  r.hello = h;
  for (int i = 0; i < 1200; ++i) {  // 10 Hz for 120 s, reserved +1 MiB a second
    Sample s;
    s.t = 1'000'000'000'000 + i * 100'000'000LL;
    s.set(Field::Reserved, 500 * kMiB + i * kMiB / 10);
    r.samples.push_back(s);
  }
  const Forecast f = forecast_rank(r);
  ASSERT_EQ(f.state, ForecastState::Oom) << f.driver;
  EXPECT_FALSE(f.by_step);
  EXPECT_FALSE(f.oom_at_step);
  ASSERT_TRUE(f.oom_in_seconds);
  // 500 + 120 = 620 MiB now, 404 MiB left at 1 MiB/s.
  EXPECT_NEAR(*f.oom_in_seconds, 404, 10);
  EXPECT_NE(f.driver.find("reserved +60.0 MiB per minute"), std::string::npos) << f.driver;
}

TEST(LiveForecast, TrackerIntervalLeadAndAlert) {
  Store store;
  Hello h;
  h.total_bytes = 1024 * kMiB;
  store.on_hello(0, h);
  ForecastTracker tracker;
  AlertEngine alerts;
  alerts.add_rule(parse_alert_rule("forecast:200"));
  Series s(1024 * kMiB);
  s.steps(0, 740, leak, flat_peak);
  int updates = 0;
  for (const Sample& x : s.rank.samples) {
    store.on_sample(0, x);
    if (tracker.update(store, 0)) {
      ++updates;
      alerts.on_forecast(0, *tracker.latest(0));
    }
  }
  // Once a second of sample time: 740 steps of half a second.
  EXPECT_NEAR(updates, 370, 2);
  const ForecastLead lead = forecast_lead(tracker.history(0), kLeakOom);
  ASSERT_TRUE(lead.named);
  EXPECT_TRUE(lead.stayed);
  EXPECT_LE(lead.first_step, 60);  // named from the first forecast on
  ASSERT_EQ(alerts.alerts().size(), 1u);
  const Alert& a = alerts.alerts()[0];
  EXPECT_EQ(a.rule, "forecast:200");
  EXPECT_LE(a.figure, 200);
  EXPECT_NE(a.message.find("forecast to run out of memory in "), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("[derived]"), std::string::npos);
  EXPECT_EQ(parse_alert_rule("forecast:500").kind, AlertRule::Kind::Forecast);
  EXPECT_THROW(parse_alert_rule("forecast:soon"), Error);
  EXPECT_THROW(parse_alert_rule("forecast:0"), Error);
}

}  // namespace
}  // namespace oomscope::live
