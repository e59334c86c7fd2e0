// The Prometheus API answers, sources and selectors (prom_api.h), and headroom ordering (store.h).

#include "core/live/prom/prom_api.h"

#include <gtest/gtest.h>

#include "core/live/client/store.h"
#include "core/util/error.h"

namespace oomscope::live {
namespace {

const std::string kServer = "http://127.0.0.1:9090";

TEST(PromAnswer, MatrixKeepsLabelsAndPointsAndSkipsNaN) {
  const auto s = parse_prom_answer(kServer, R"({"status":"success","data":{"resultType":"matrix","result":[
      {"metric":{"__name__":"oomscope_rss_bytes","rank":"3","host":"n1"},
       "values":[[1700000000.5,"123"],[1700000001,"NaN"],[1700000002.25,"4294967296"]]},
      {"metric":{"rank":"4"},"values":[]}]}})");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].label("rank"), "3");
  EXPECT_EQ(s[0].label("host"), "n1");
  EXPECT_EQ(s[0].label("nothing"), "");
  ASSERT_EQ(s[0].points.size(), 2u);
  EXPECT_EQ(s[0].points[0].first, 1700000000500);
  EXPECT_EQ(s[0].points[0].second, 123.0);
  EXPECT_EQ(s[0].points[1].first, 1700000002250);
  EXPECT_EQ(s[0].points[1].second, 4294967296.0);
  EXPECT_TRUE(s[1].points.empty());
}

TEST(PromAnswer, FastAndGeneralReadersAgree) {
  // Prometheus's own layout takes the hand-written path; the same answer re-spaced takes the SAX reader.
  const std::string tight =
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"1","b":"x y"},)"
      R"("values":[[1700000000.001,"5"],[1700000001,"+Inf"],[1700000002,"-2.5e3"]]},{"metric":{},"values":[]}]}})";
  std::string spaced = tight;
  for (std::size_t at = 0; (at = spaced.find(",\"values\"", at)) != std::string::npos; at += 3)
    spaced.insert(at + 1, " ");
  for (const auto& body : {tight, spaced}) {
    const auto s = parse_prom_answer(kServer, body);
    ASSERT_EQ(s.size(), 2u) << body;
    EXPECT_EQ(s[0].labels, (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "x y"}}));
    ASSERT_EQ(s[0].points.size(), 2u);
    EXPECT_EQ(s[0].points[0], (std::pair<std::int64_t, double>{1700000000001, 5.0}));
    EXPECT_EQ(s[0].points[1], (std::pair<std::int64_t, double>{1700000002000, -2500.0}));
    EXPECT_TRUE(s[1].labels.empty());
  }
  // Cut anywhere, the answer is an error naming the server, never a crash or a partial result.
  for (std::size_t n = 0; n < tight.size(); n += 7)
    EXPECT_THROW(parse_prom_answer(kServer, tight.substr(0, n)), Error);
}

TEST(PromAnswer, VectorAndSeries) {
  const auto v = parse_prom_answer(kServer, R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"instance":"a:1"},"value":[1700000000,"0"]}]}})");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].label("instance"), "a:1");
  ASSERT_EQ(v[0].points.size(), 1u);
  EXPECT_EQ(v[0].points[0].second, 0.0);
  const auto s = parse_prom_answer(
      kServer, R"({"status":"success","data":[{"__name__":"up","job":"train"},{"__name__":"x"}]})");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].label("job"), "train");
  EXPECT_EQ(s[1].label("__name__"), "x");
}

TEST(PromAnswer, ErrorsNameTheServerAndSayWhy) {
  try {
    parse_prom_answer(kServer, R"({"status":"error","errorType":"bad_data","error":"parse error: x"})");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), kServer);
    EXPECT_NE(e.message().find("Prometheus refused the query: bad_data: parse error: x"), std::string::npos);
  }
  try {
    parse_prom_answer(kServer, "<html>not found</html>");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), kServer);
    EXPECT_NE(e.message().find("not valid JSON"), std::string::npos);
  }
  EXPECT_THROW(parse_prom_answer(kServer, R"({"data":[]})"), Error);
}

TEST(PromSource, ParsesServerAndSelector) {
  EXPECT_EQ(parse_prometheus_source("prometheus:http://h:9090/"), "http://h:9090");
  EXPECT_TRUE(is_prometheus_source("prometheus:http://h:9090"));
  EXPECT_FALSE(is_prometheus_source("h:9090"));
  EXPECT_THROW(parse_prometheus_source("prometheus:h:9090"), Error);
  EXPECT_THROW(parse_prometheus_source("prometheus:http://h:9090/api"), Error);
  EXPECT_THROW(parse_prometheus_source("http://h:9090"), Error);
  EXPECT_EQ(parse_prometheus_source("http://h:9090", false), "http://h:9090");
  EXPECT_EQ(normalise_selector(R"( {job="train", host="a}b"} )"), R"(job="train", host="a}b")");
  EXPECT_EQ(normalise_selector(""), "");
  EXPECT_THROW(normalise_selector(R"(job="train)"), Error);
  EXPECT_THROW(normalise_selector(R"({job="train")"), Error);
  EXPECT_THROW(normalise_selector(R"(job="a"}{)"), Error);
}

TEST(Headroom, ClosestToOomFirstUnknownLast) {
  Store store;
  auto rank = [&](int r, std::int64_t total, std::int64_t used, Field f) {
    Hello h;
    h.rank = r;
    h.total_bytes = total;
    store.on_hello(r, h);
    Sample s;
    s.t = 1;
    s.set(f, used);
    store.on_sample(r, s);
  };
  rank(0, 80, 10, Field::DeviceUsed);  // 70 left
  rank(1, 0, 10, Field::DeviceUsed);   // capacity unknown
  rank(2, 80, 75, Field::Reserved);    // 5 left
  rank(3, 80, 40, Field::Driver);      // 40 left
  EXPECT_EQ(ranks_by_headroom(store), (std::vector<int>{2, 3, 0, 1}));
  EXPECT_EQ(headroom(store.ranks()[2]).bytes(), 5);
  EXPECT_FALSE(headroom(store.ranks()[1]).known);
  Sample mps;  // MPS: recommended max is the capacity, driver the use
  mps.set(Field::RecommendedMax, 100);
  mps.set(Field::Driver, 99);
  store.on_sample(4, mps);
  EXPECT_EQ(ranks_by_headroom(store).front(), 4);
}

}  // namespace
}  // namespace oomscope::live
