#include "connector/nexmark_generator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace freshet {
namespace {

constexpr int64_t kBaseMs = 1436918400000;  // RisingWave's BASE_TIME

// Generates the whole split (bounded config) into one chunk.
DataChunk GenerateAll(const NexmarkConfig& cfg, NexmarkTable t, int split, size_t batch = 1024) {
  NexmarkGenerator gen(cfg, t, split);
  DataChunk out;
  while (gen.NextChunk(&out, batch)) {
  }
  return out;
}

std::string RowKey(const DataChunk& c, size_t i) {
  std::string s;
  for (size_t j = 0; j < c.num_columns(); j++) {
    s += c.column(j).GetValue(i).ToString();
    s += '|';
  }
  return s;
}

std::vector<std::string> RowKeys(const DataChunk& c) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < c.num_rows(); i++) keys.push_back(RowKey(c, i));
  return keys;
}

size_t Col(NexmarkTable t, const std::string& name) {
  auto cols = NexmarkColumns(t);
  for (size_t i = 0; i < cols.size(); i++) {
    if (cols[i].first == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

NexmarkConfig Bounded(int64_t events, int splits = 1) {
  NexmarkConfig cfg;
  cfg.event_num = events;
  cfg.split_num = splits;
  return cfg;
}

// The crate's own test (nexmark 0.2.0 src/event.rs test_event): event 0.
TEST(NexmarkGenerator, MatchesRustCrateReferenceEvent) {
  NexmarkConfig cfg = Bounded(1);
  DataChunk c = GenerateAll(cfg, NexmarkTable::kPerson, 0);
  ASSERT_EQ(c.num_rows(), 1u);
  EXPECT_EQ(c.column(0).GetInt(0), 1000);
  EXPECT_EQ(c.column(1).GetString(0), "vicky noris");
  EXPECT_EQ(c.column(2).GetString(0), "yplkvgz@qbxfg.com");
  EXPECT_EQ(c.column(3).GetString(0), "7878 5821 1864 2539");
  EXPECT_EQ(c.column(4).GetString(0), "cheyenne");
  EXPECT_EQ(c.column(5).GetString(0), "az");
  EXPECT_EQ(c.column(6).GetInt(0), kBaseMs * 1000);
  EXPECT_EQ(c.column(7).GetString(0),
            "lwaiyhjhrkaruidlsjilvqccyedttedeynpqmackqbwvklwuyypztnkengzgtwtjivjgrxurskpcldfohdzuwnefqymyncrks"
            "xyfaecwsbswjumzxudgoznyhakxrudomnxtmqtgshecfjgspxzpludz");
}

// RisingWave's simulation test for Nexmark q4 (src/tests/simulation/tests/
// integration_tests/scale/nexmark_q4.rs, Linux results) over its sources
// (src/tests/simulation/src/nexmark.rs: 6 splits, event_num 20 * 5000):
//   SELECT category, AVG(final) FROM (SELECT MAX(B.price) AS final, A.category
//   FROM auction A, bid B WHERE A.id = B.auction AND B.date_time BETWEEN
//   A.date_time AND A.expires GROUP BY A.id, A.category) GROUP BY category
// Matching it to 18 decimals checks auction ids, categories, date_time,
// expires, bid auctions, prices and timestamps against RisingWave's output.
TEST(NexmarkGenerator, MatchesRisingWaveQ4Result) {
  NexmarkConfig cfg = Bounded(100000, 6);
  cfg.min_event_gap_ns = 200000;
  struct Auction {
    int64_t category, date_time, expires;
  };
  std::map<int64_t, Auction> auctions;
  std::map<int64_t, int64_t> final_price;
  for (int split = 0; split < 6; split++) {
    DataChunk a = GenerateAll(cfg, NexmarkTable::kAuction, split);
    for (size_t i = 0; i < a.num_rows(); i++) {
      auctions[a.column(0).GetInt(i)] = {a.column(8).GetInt(i), a.column(5).GetInt(i), a.column(6).GetInt(i)};
    }
  }
  for (int split = 0; split < 6; split++) {
    DataChunk b = GenerateAll(cfg, NexmarkTable::kBid, split);
    for (size_t i = 0; i < b.num_rows(); i++) {
      auto it = auctions.find(b.column(0).GetInt(i));
      int64_t dt = b.column(5).GetInt(i);
      if (it == auctions.end() || dt < it->second.date_time || dt > it->second.expires) continue;
      int64_t& f = final_price.try_emplace(it->first, 0).first->second;
      f = std::max(f, b.column(2).GetInt(i));
    }
  }
  std::map<int64_t, std::pair<int64_t, int64_t>> per_category;  // sum, count
  for (auto& [id, price] : final_price) {
    auto& [sum, count] = per_category[auctions[id].category];
    sum += price;
    count++;
  }
  // sum / count with `decimals` digits after the point, truncated.
  auto divide = [](int64_t sum, int64_t count, int decimals) {
    std::string s = std::to_string(sum / count) + ".";
    int64_t rem = sum % count;
    for (int i = 0; i < decimals; i++) {
      rem *= 10;
      s += static_cast<char>('0' + rem / count);
      rem %= count;
    }
    return s;
  };
  const std::map<int64_t, std::string> expected = {
      {10, "28586726.812614259597806215722"},
      {11, "29089413.538191395961369622476"},
      {12, "29245370.435142594296228150874"},
      {13, "30910968.113309352517985611511"},
      {14, "26961712.806972789115646258503"},
  };
  ASSERT_EQ(per_category.size(), expected.size());
  for (auto& [category, want] : expected) {
    auto [sum, count] = per_category[category];
    EXPECT_EQ(divide(sum, count, 18), want.substr(0, want.find('.') + 19)) << "category " << category;
  }
}

TEST(NexmarkGenerator, ColumnsInRisingWaveOrder) {
  auto names = [](NexmarkTable t) {
    std::string s;
    for (auto& [n, ty] : NexmarkColumns(t)) s += n + ":" + ty.ToString() + ",";
    return s;
  };
  EXPECT_EQ(names(NexmarkTable::kPerson),
            "id:bigint,name:character varying,email_address:character varying,credit_card:character varying,"
            "city:character varying,state:character varying,date_time:timestamp without time zone,"
            "extra:character varying,");
  EXPECT_EQ(names(NexmarkTable::kAuction),
            "id:bigint,item_name:character varying,description:character varying,initial_bid:bigint,"
            "reserve:bigint,date_time:timestamp without time zone,expires:timestamp without time zone,"
            "seller:bigint,category:bigint,extra:character varying,");
  EXPECT_EQ(names(NexmarkTable::kBid),
            "auction:bigint,bidder:bigint,price:bigint,channel:character varying,url:character varying,"
            "date_time:timestamp without time zone,extra:character varying,");
  // A chunk given to NextChunk without columns gets them.
  DataChunk c = GenerateAll(Bounded(50), NexmarkTable::kAuction, 0);
  EXPECT_EQ(c.num_columns(), 10u);
  EXPECT_EQ(c.num_rows(), 3u);
}

TEST(NexmarkGenerator, Proportions) {
  NexmarkConfig cfg = Bounded(5000);
  EXPECT_EQ(GenerateAll(cfg, NexmarkTable::kPerson, 0).num_rows(), 100u);
  EXPECT_EQ(GenerateAll(cfg, NexmarkTable::kAuction, 0).num_rows(), 300u);
  EXPECT_EQ(GenerateAll(cfg, NexmarkTable::kBid, 0).num_rows(), 4600u);
  int counts[3] = {0, 0, 0};
  for (int64_t n = 0; n < 5000; n++) counts[static_cast<int>(NexmarkEventType(cfg, n))]++;
  EXPECT_EQ(counts[0], 100);
  EXPECT_EQ(counts[1], 300);
  EXPECT_EQ(counts[2], 4600);
  EXPECT_EQ(NexmarkEventType(cfg, 0), NexmarkTable::kPerson);
  EXPECT_EQ(NexmarkEventType(cfg, 1), NexmarkTable::kAuction);
  EXPECT_EQ(NexmarkEventType(cfg, 3), NexmarkTable::kAuction);
  EXPECT_EQ(NexmarkEventType(cfg, 4), NexmarkTable::kBid);
  EXPECT_EQ(NexmarkEventType(cfg, 49), NexmarkTable::kBid);
  EXPECT_EQ(NexmarkEventType(cfg, 50), NexmarkTable::kPerson);
}

TEST(NexmarkGenerator, GlobalOffsetMapping) {
  NexmarkConfig cfg;
  for (NexmarkTable t : {NexmarkTable::kPerson, NexmarkTable::kAuction, NexmarkTable::kBid}) {
    int64_t k = 0;
    for (int64_t n = 0; n < 1000; n++) {
      if (NexmarkEventType(cfg, n) != t) continue;
      EXPECT_EQ(NexmarkGlobalOffset(cfg, t, k), n);
      k++;
    }
  }
}

TEST(NexmarkGenerator, IdsDenseFrom1000) {
  NexmarkConfig cfg = Bounded(5000);
  DataChunk p = GenerateAll(cfg, NexmarkTable::kPerson, 0);
  for (size_t i = 0; i < p.num_rows(); i++) EXPECT_EQ(p.column(0).GetInt(i), 1000 + static_cast<int64_t>(i));
  DataChunk a = GenerateAll(cfg, NexmarkTable::kAuction, 0);
  for (size_t i = 0; i < a.num_rows(); i++) EXPECT_EQ(a.column(0).GetInt(i), 1000 + static_cast<int64_t>(i));
  // Last ids as a function of the event number.
  EXPECT_EQ(NexmarkLastPersonId(cfg, 0), 1000);
  EXPECT_EQ(NexmarkLastPersonId(cfg, 49), 1000);
  EXPECT_EQ(NexmarkLastPersonId(cfg, 50), 1001);
  EXPECT_EQ(NexmarkLastAuctionId(cfg, 1), 1000);
  EXPECT_EQ(NexmarkLastAuctionId(cfg, 3), 1002);
  EXPECT_EQ(NexmarkLastAuctionId(cfg, 49), 1002);
  EXPECT_EQ(NexmarkLastAuctionId(cfg, 50), 1002);
  EXPECT_EQ(NexmarkLastAuctionId(cfg, 51), 1003);
}

TEST(NexmarkGenerator, DeterministicAndSeekable) {
  for (NexmarkTable t : {NexmarkTable::kPerson, NexmarkTable::kAuction, NexmarkTable::kBid}) {
    NexmarkConfig cfg = Bounded(20000, 3);
    auto full = RowKeys(GenerateAll(cfg, t, 1, 1024));
    // Same configuration, other chunk sizes: same rows.
    EXPECT_EQ(RowKeys(GenerateAll(cfg, t, 1, 1)), full);
    EXPECT_EQ(RowKeys(GenerateAll(cfg, t, 1, 77)), full);
    // Resume from recorded offsets.
    NexmarkGenerator gen(cfg, t, 1);
    DataChunk first;
    ASSERT_TRUE(gen.NextChunk(&first, 100));
    EXPECT_EQ(gen.offset(), 100);
    EXPECT_EQ(gen.type_offset(), 1 + 100 * 3);
    int64_t saved = gen.offset();
    DataChunk rest1;
    while (gen.NextChunk(&rest1, 64)) {
    }
    EXPECT_TRUE(gen.exhausted());
    NexmarkGenerator resumed(cfg, t, 1);
    resumed.Seek(saved);
    DataChunk rest2;
    while (resumed.NextChunk(&rest2, 1000)) {
    }
    EXPECT_EQ(RowKeys(rest1), RowKeys(rest2));
    auto keys_first = RowKeys(first);
    auto keys_rest = RowKeys(rest1);
    keys_first.insert(keys_first.end(), keys_rest.begin(), keys_rest.end());
    EXPECT_EQ(keys_first, full);
    // Seek backwards regenerates.
    resumed.Seek(5);
    DataChunk again;
    ASSERT_TRUE(resumed.NextChunk(&again, 10));
    for (size_t i = 0; i < 10; i++) EXPECT_EQ(RowKey(again, i), full[5 + i]);
    // AppendEvent is a pure function of the event number.
    DataChunk one;
    gen.AppendEvent(NexmarkGlobalOffset(cfg, t, 1 + 7 * 3), &one);
    EXPECT_EQ(RowKey(one, 0), full[7]);
  }
}

// RisingWave's stepping: split i of n takes the table's events i, i+n, ...
// (counted within the table), so the splits partition the table exactly.
TEST(NexmarkGenerator, SplitsPartitionTheStream) {
  for (NexmarkTable t : {NexmarkTable::kPerson, NexmarkTable::kAuction, NexmarkTable::kBid}) {
    auto single = RowKeys(GenerateAll(Bounded(30011, 1), t, 0));
    for (int n : {2, 3, 4, 7}) {
      NexmarkConfig cfg = Bounded(30011, n);
      std::vector<std::string> all;
      for (int i = 0; i < n; i++) {
        auto part = RowKeys(GenerateAll(cfg, t, i));
        for (size_t k = 0; k < part.size(); k++) {
          ASSERT_LT(i + k * n, single.size());
          EXPECT_EQ(part[k], single[i + k * n]) << "table " << NexmarkTableName(t) << " n=" << n << " i=" << i;
        }
        all.insert(all.end(), part.begin(), part.end());
      }
      auto sorted_single = single;
      std::sort(all.begin(), all.end());
      std::sort(sorted_single.begin(), sorted_single.end());
      EXPECT_EQ(all, sorted_single) << "table " << NexmarkTableName(t) << " n=" << n;
    }
  }
}

TEST(NexmarkGenerator, EventNumBoundsTotal) {
  for (int64_t events : {1, 4, 5, 49, 50, 51, 4321, 10000}) {
    for (int n : {1, 2, 5}) {
      NexmarkConfig cfg = Bounded(events, n);
      size_t total = 0;
      for (NexmarkTable t : {NexmarkTable::kPerson, NexmarkTable::kAuction, NexmarkTable::kBid}) {
        for (int i = 0; i < n; i++) {
          NexmarkGenerator gen(cfg, t, i);
          DataChunk c;
          while (gen.NextChunk(&c, 333)) {
          }
          EXPECT_TRUE(gen.exhausted());
          DataChunk more;
          EXPECT_FALSE(gen.NextChunk(&more, 10));
          EXPECT_EQ(more.num_rows(), 0u);
          EXPECT_GE(gen.global_offset(), events);
          total += c.num_rows();
        }
      }
      EXPECT_EQ(total, static_cast<size_t>(events)) << events << " events, " << n << " splits";
    }
  }
  // Unbounded: never exhausted.
  NexmarkGenerator gen(NexmarkConfig{}, NexmarkTable::kBid, 0);
  gen.Seek(int64_t{1} << 40);
  EXPECT_FALSE(gen.exhausted());
  DataChunk c;
  EXPECT_TRUE(gen.NextChunk(&c, 5));
  EXPECT_EQ(c.num_rows(), 5u);
}

TEST(NexmarkGenerator, BidsReferenceRecentAuctionsAndPersons) {
  NexmarkConfig cfg = Bounded(200000);
  DataChunk b = GenerateAll(cfg, NexmarkTable::kBid, 0);
  ASSERT_EQ(b.num_rows(), 184000u);
  size_t hot_auction = 0, hot_bidder = 0;
  for (size_t k = 0; k < b.num_rows(); k++) {
    int64_t n = NexmarkGlobalOffset(cfg, NexmarkTable::kBid, static_cast<int64_t>(k));
    int64_t last_auction = NexmarkLastAuctionId(cfg, n);
    int64_t last_person = NexmarkLastPersonId(cfg, n);
    int64_t auction = b.column(0).GetInt(k), bidder = b.column(1).GetInt(k);
    // Uniform picks lie among the last in_flight_auctions (active_people)
    // ids and may lead the last generated id by auction_id_lead
    // (person_id_lead), as in the reference generator.
    EXPECT_GE(auction, std::max<int64_t>(1000, last_auction - cfg.in_flight_auctions));
    EXPECT_LE(auction, last_auction + cfg.auction_id_lead);
    EXPECT_GE(bidder, std::max<int64_t>(1000, last_person + 1 - cfg.active_people));
    EXPECT_LE(bidder, last_person + cfg.person_id_lead);
    if (auction == 1000 + ((last_auction - 1000) / 100) * 100) hot_auction++;
    if (bidder == 1000 + ((last_person - 1000) / 100) * 100 + 1) hot_bidder++;
  }
  // P(hot) = 1 - 1/ratio (plus the odd uniform pick of the same id).
  double ha = static_cast<double>(hot_auction) / b.num_rows();
  double hb = static_cast<double>(hot_bidder) / b.num_rows();
  EXPECT_NEAR(ha, 0.5, 0.02);
  EXPECT_NEAR(hb, 0.75, 0.02);

  DataChunk a = GenerateAll(cfg, NexmarkTable::kAuction, 0);
  size_t hot_seller = 0;
  for (size_t k = 0; k < a.num_rows(); k++) {
    int64_t n = NexmarkGlobalOffset(cfg, NexmarkTable::kAuction, static_cast<int64_t>(k));
    int64_t last_person = NexmarkLastPersonId(cfg, n);
    int64_t seller = a.column(7).GetInt(k);
    EXPECT_GE(seller, std::max<int64_t>(1000, last_person + 1 - cfg.active_people));
    EXPECT_LE(seller, last_person + cfg.person_id_lead);
    if (seller == 1000 + ((last_person - 1000) / 100) * 100) hot_seller++;
  }
  EXPECT_NEAR(static_cast<double>(hot_seller) / a.num_rows(), 0.75, 0.02);
}

TEST(NexmarkGenerator, PricesAndCategories) {
  NexmarkConfig cfg = Bounded(100000);
  DataChunk b = GenerateAll(cfg, NexmarkTable::kBid, 0);
  int64_t lo = INT64_MAX, hi = 0;
  size_t below_10k = 0;
  for (size_t k = 0; k < b.num_rows(); k++) {
    int64_t p = b.column(2).GetInt(k);
    EXPECT_GE(p, 100);
    EXPECT_LE(p, 100000000);
    lo = std::min(lo, p);
    hi = std::max(hi, p);
    below_10k += p < 10000;
  }
  // Log-uniform over 6 decades: about a third below 10^4 (= 10^2 * 100).
  EXPECT_NEAR(static_cast<double>(below_10k) / b.num_rows(), 1.0 / 3, 0.01);
  EXPECT_LT(lo, 110);
  EXPECT_GT(hi, 90000000);

  DataChunk a = GenerateAll(cfg, NexmarkTable::kAuction, 0);
  std::set<int64_t> categories;
  for (size_t k = 0; k < a.num_rows(); k++) {
    int64_t initial = a.column(3).GetInt(k), reserve = a.column(4).GetInt(k);
    EXPECT_GE(initial, 100);
    EXPECT_LE(initial, 100000000);
    EXPECT_GE(reserve, initial + 100);
    EXPECT_LE(reserve, initial + 100000000);
    categories.insert(a.column(8).GetInt(k));
  }
  EXPECT_EQ(categories, (std::set<int64_t>{10, 11, 12, 13, 14}));
}

TEST(NexmarkGenerator, EventTime) {
  NexmarkConfig cfg = Bounded(100000);
  // 10,000 events per second of event time: event n at base + n/10 ms
  // (whole milliseconds, as RisingWave's TIMESTAMP from the crate's ms).
  EXPECT_EQ(NexmarkEventTimestampMs(cfg, 0), kBaseMs);
  EXPECT_EQ(NexmarkEventTimestampMs(cfg, 10), kBaseMs + 1);
  EXPECT_EQ(NexmarkEventTimestampMs(cfg, 14), kBaseMs + 1);
  EXPECT_EQ(NexmarkEventTimestampMs(cfg, 15), kBaseMs + 2);
  EXPECT_EQ(NexmarkEventTimestampMs(cfg, 10000), kBaseMs + 1000);
  EXPECT_EQ(NexmarkEventTimestampMs(cfg, 9999990), kBaseMs + 999999);
  // The gap does not change event time (it only paces the reader).
  NexmarkConfig fast = cfg;
  fast.min_event_gap_ns = 0;
  EXPECT_EQ(NexmarkEventTimestampMs(fast, 10000), kBaseMs + 1000);
  NexmarkConfig rate = cfg;
  rate.first_event_rate = 1000;
  EXPECT_EQ(NexmarkEventTimestampMs(rate, 10), kBaseMs + 10);

  for (NexmarkTable t : {NexmarkTable::kPerson, NexmarkTable::kAuction, NexmarkTable::kBid}) {
    DataChunk c = GenerateAll(cfg, t, 0);
    size_t ts = Col(t, "date_time");
    int64_t prev = 0;
    for (size_t k = 0; k < c.num_rows(); k++) {
      int64_t n = NexmarkGlobalOffset(cfg, t, static_cast<int64_t>(k));
      int64_t v = c.column(ts).GetInt(k);
      EXPECT_EQ(v, (kBaseMs + (n + 5) / 10) * 1000);  // round(n * 0.1) ms, in µs
      EXPECT_GE(v, prev);
      prev = v;
    }
    // Spread: the last event of 100,000 is ~10 s after the first.
    EXPECT_NEAR(static_cast<double>(prev - c.column(ts).GetInt(0)), 10e6, 0.01e6);
  }
  // Auctions expire within twice the horizon of in_flight_auctions auctions
  // (1666 events = 167 ms).
  DataChunk a = GenerateAll(cfg, NexmarkTable::kAuction, 0);
  for (size_t k = 0; k < a.num_rows(); k++) {
    int64_t dt = a.column(5).GetInt(k), ex = a.column(6).GetInt(k);
    EXPECT_GT(ex, dt);
    EXPECT_LE(ex - dt, (1 + 2 * 167) * 1000);
    EXPECT_EQ(ex % 1000, 0);
  }
  // Splits interleave in event time.
  NexmarkConfig two = Bounded(1000, 2);
  DataChunk s1 = GenerateAll(two, NexmarkTable::kBid, 1);
  EXPECT_EQ(s1.column(5).GetInt(0), NexmarkEventTimestampMs(two, 5) * 1000);
}

TEST(NexmarkGenerator, StringFormats) {
  NexmarkConfig cfg = Bounded(200000);
  const std::regex email(R"([a-z]{7}@[a-z]{5}\.com)");
  const std::regex card(R"([0-9]{4} [0-9]{4} [0-9]{4} [0-9]{4})");
  const std::regex letters("[a-z]*");
  std::set<std::string> firsts(cfg.first_names.begin(), cfg.first_names.end());
  std::set<std::string> lasts(cfg.last_names.begin(), cfg.last_names.end());
  std::set<std::string> cities(cfg.us_cities.begin(), cfg.us_cities.end());
  std::set<std::string> states(cfg.us_states.begin(), cfg.us_states.end());

  DataChunk p = GenerateAll(cfg, NexmarkTable::kPerson, 0);
  ASSERT_EQ(p.num_rows(), 4000u);
  std::set<std::string> seen_states, seen_cities;
  double size_sum = 0;
  for (size_t k = 0; k < p.num_rows(); k++) {
    const std::string& name = p.column(1).GetString(k);
    size_t sp = name.find(' ');
    ASSERT_NE(sp, std::string::npos);
    EXPECT_TRUE(firsts.count(name.substr(0, sp))) << name;
    EXPECT_TRUE(lasts.count(name.substr(sp + 1))) << name;
    EXPECT_TRUE(std::regex_match(p.column(2).GetString(k), email)) << p.column(2).GetString(k);
    EXPECT_TRUE(std::regex_match(p.column(3).GetString(k), card)) << p.column(3).GetString(k);
    EXPECT_TRUE(cities.count(p.column(4).GetString(k)));
    EXPECT_TRUE(states.count(p.column(5).GetString(k)));
    seen_cities.insert(p.column(4).GetString(k));
    seen_states.insert(p.column(5).GetString(k));
    const std::string& extra = p.column(7).GetString(k);
    EXPECT_TRUE(std::regex_match(extra, letters));
    size_t current = 8 + name.size() + 17 + 19 + p.column(4).GetString(k).size() + p.column(5).GetString(k).size();
    size_t want = 200 - current, delta = (want + 2) / 5;
    EXPECT_GE(extra.size(), want - delta);
    EXPECT_LT(extra.size(), want + delta);
    size_sum += static_cast<double>(current + extra.size());
  }
  EXPECT_EQ(seen_states, states);
  EXPECT_EQ(seen_cities, cities);
  EXPECT_NEAR(size_sum / p.num_rows(), 200, 3);

  DataChunk a = GenerateAll(cfg, NexmarkTable::kAuction, 0);
  for (size_t k = 0; k < a.num_rows(); k++) {
    EXPECT_EQ(a.column(1).GetString(k).size(), 20u);
    EXPECT_EQ(a.column(2).GetString(k).size(), 100u);
    EXPECT_TRUE(std::regex_match(a.column(1).GetString(k), letters));
    EXPECT_TRUE(std::regex_match(a.column(2).GetString(k), letters));
    size_t extra = a.column(9).GetString(k).size();  // 332 +- 66
    EXPECT_GE(extra, 266u);
    EXPECT_LT(extra, 398u);
  }

  DataChunk b = GenerateAll(cfg, NexmarkTable::kBid, 0);
  const std::regex base_url(R"(https://www\.nexmark\.com/[a-z_]{3,4}/[a-z_]{3,4}/[a-z_]{3,4}/item\.htm\?query=1)");
  const std::regex channel_url(
      R"(https://www\.nexmark\.com/[a-z_]{3,4}/[a-z_]{3,4}/[a-z_]{3,4}/item\.htm\?query=1(&channel_id=([0-9]+))?)");
  const std::set<std::string> hot = {"Google", "Facebook", "Baidu", "Apple"};
  std::map<std::string, std::string> hot_urls;
  size_t hot_count = 0, with_id = 0, cold = 0;
  for (size_t k = 0; k < b.num_rows(); k++) {
    const std::string& channel = b.column(3).GetString(k);
    const std::string& url = b.column(4).GetString(k);
    if (hot.count(channel)) {
      hot_count++;
      EXPECT_TRUE(std::regex_match(url, base_url)) << url;
      auto [it, inserted] = hot_urls.emplace(channel, url);
      EXPECT_EQ(it->second, url) << "hot channel " << channel << " has one fixed url";
    } else {
      cold++;
      ASSERT_EQ(channel.rfind("channel-", 0), 0u) << channel;
      int64_t num = std::stoll(channel.substr(8));
      EXPECT_GE(num, 0);
      EXPECT_LT(num, 10000);
      std::smatch m;
      ASSERT_TRUE(std::regex_match(url, m, channel_url)) << url;
      if (m[2].matched) {
        with_id++;
        uint32_t v = static_cast<uint32_t>(num), r = 0;
        for (int i = 0; i < 32; i++) r |= ((v >> i) & 1u) << (31 - i);
        int64_t expect = static_cast<int32_t>(r);
        EXPECT_EQ(std::stoll(m[2].str()), expect < 0 ? -expect : expect);
      }
    }
    size_t extra = b.column(6).GetString(k).size();  // 68 +- 14
    EXPECT_GE(extra, 54u);
    EXPECT_LT(extra, 82u);
  }
  EXPECT_EQ(hot_urls.size(), 4u);
  EXPECT_NEAR(static_cast<double>(hot_count) / b.num_rows(), 0.5, 0.01);
  EXPECT_NEAR(static_cast<double>(with_id) / cold, 0.9, 0.01);
}

TEST(NexmarkGenerator, Options) {
  NexmarkConfig c;
  EXPECT_EQ(ApplyNexmarkOption(&c, "nexmark.split.num", "4"), "");
  EXPECT_EQ(c.split_num, 4);
  EXPECT_EQ(ApplyNexmarkOption(&c, "nexmark.event.num", "10000000"), "");
  EXPECT_EQ(c.event_num, 10000000);
  EXPECT_EQ(ApplyNexmarkOption(&c, "nexmark.min.event.gap.in.ns", "0"), "");
  EXPECT_EQ(c.min_event_gap_ns, 0);
  EXPECT_EQ(ApplyNexmarkOption(&c, "nexmark.us.states", "ny,nj"), "");
  EXPECT_EQ(c.us_states, (std::vector<std::string>{"ny", "nj"}));
  EXPECT_EQ(ApplyNexmarkOption(&c, "nexmark.use.real.time", "true"), "");
  EXPECT_TRUE(c.use_real_time);
  EXPECT_EQ(ApplyNexmarkOption(&c, "nexmark.first.event.rate", "20000"), "");
  EXPECT_EQ(c.first_event_rate, 20000);
  EXPECT_EQ(ApplyNexmarkOption(&c, "nexmark.event.num", "18446744073709551615"), "");
  EXPECT_EQ(c.event_num, -1);
  EXPECT_EQ(ApplyNexmarkOption(&c, "connector", "nexmark"), "unknown");
  EXPECT_NE(ApplyNexmarkOption(&c, "nexmark.split.num", "zero"), "");
  EXPECT_NE(ApplyNexmarkOption(&c, "nexmark.split.num", "0"), "");
  EXPECT_EQ(ValidateNexmarkConfig(c), "");
  c.hot_bidder_ratio = 0;
  EXPECT_NE(ValidateNexmarkConfig(c), "");
  EXPECT_EQ(NexmarkTableFromName("Bid"), NexmarkTable::kBid);
  EXPECT_EQ(NexmarkTableFromName("person"), NexmarkTable::kPerson);
  EXPECT_FALSE(NexmarkTableFromName("bids").has_value());
  // A chunk with other columns is refused.
  {
    NexmarkGenerator bids(NexmarkConfig{}, NexmarkTable::kBid, 0);
    DataChunk wrong(std::vector<DataType>{DataType::Int64()});
    EXPECT_THROW(bids.NextChunk(&wrong, 1), std::logic_error);
  }
  // An invalid configuration does not crash the generator.
  NexmarkGenerator gen(c, NexmarkTable::kBid, 0);
  DataChunk out;
  EXPECT_TRUE(gen.NextChunk(&out, 10));
}

TEST(NexmarkGenerator, Pacing) {
  NexmarkConfig c;  // gap 100,000 ns: 10,000 events/s of global progress per split
  EXPECT_NEAR(NexmarkRowsPerSecondPerSplit(c, NexmarkTable::kBid), 9200, 1e-6);
  c.split_num = 2;
  EXPECT_NEAR(NexmarkRowsPerSecondPerSplit(c, NexmarkTable::kPerson), 100, 1e-6);
  c.min_event_gap_ns = 0;
  EXPECT_EQ(NexmarkRowsPerSecondPerSplit(c, NexmarkTable::kBid), 0);
  NexmarkConfig d;
  NexmarkGenerator gen(d, NexmarkTable::kBid, 0);
  int64_t start = gen.global_offset();
  DataChunk out;
  gen.NextChunk(&out, 46);
  EXPECT_EQ(gen.PacingTargetNs(start), 50 * 100000);
}

TEST(NexmarkGenerator, Throughput) {
  // Prints rows per second of CPU time (the wall clock of a shared machine
  // says little); not asserted.
  auto cpu_now = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  };
  for (NexmarkTable t : {NexmarkTable::kBid, NexmarkTable::kAuction, NexmarkTable::kPerson}) {
    NexmarkConfig cfg;
    cfg.event_num = 10000000;  // the benchmark's size
    cfg.min_event_gap_ns = 0;
    NexmarkGenerator gen(cfg, t, 0);
    const size_t want = t == NexmarkTable::kBid ? 3000000 : 200000;
    size_t rows = 0, bytes = 0;
    DataChunk chunk;
    double cpu0 = cpu_now();
    auto wall0 = std::chrono::steady_clock::now();
    while (rows < want) {
      chunk.Clear();
      if (!gen.NextChunk(&chunk, kChunkSize)) break;
      rows += chunk.num_rows();
      bytes += chunk.column(chunk.num_columns() - 1).GetString(0).size();
    }
    double cpu = cpu_now() - cpu0;
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    std::printf("[ perf ] nexmark %-7s %zu rows: %.3f s CPU (%.3f s wall): %.2f M rows/s per core\n",
                NexmarkTableName(t), rows, cpu, wall, static_cast<double>(rows) / cpu / 1e6);
    EXPECT_GE(rows, want);
    EXPECT_GT(bytes, 0u);
  }
}

}  // namespace
}  // namespace freshet
