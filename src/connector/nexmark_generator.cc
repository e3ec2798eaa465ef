#include "connector/nexmark_generator.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace freshet {

namespace {

// nexmark 0.2.0 src/event.rs: HOT_SELLER_RATIO, HOT_AUCTION_RATIO, HOT_BIDDER_RATIO.
constexpr int64_t kHotBatch = 100;
// src/utils.rs: CHANNEL_NUMBER, MIN_STRING_LENGTH.
constexpr int kChannelNumber = 10000;
constexpr uint64_t kMinStringLength = 3;

// rand 0.8's SmallRng on 64-bit targets (xoshiro256++), seeded as
// `SmallRng::seed_from_u64` does there: SmallRng does not override
// seed_from_u64, so rand_core 0.6's default applies (PCG32 output words,
// little-endian, fill the 32-byte seed), then Xoshiro256PlusPlus::from_seed.
class SmallRng {
 public:
  explicit SmallRng(uint64_t state) {
    constexpr uint64_t kMul = 6364136223846793005ULL;
    constexpr uint64_t kInc = 11634580027462260723ULL;
    uint32_t w[8];
    for (uint32_t& x : w) {
      state = state * kMul + kInc;
      uint32_t xorshifted = static_cast<uint32_t>(((state >> 18) ^ state) >> 27);
      uint32_t rot = static_cast<uint32_t>(state >> 59);
      x = (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
    }
    for (int i = 0; i < 4; i++) s_[i] = static_cast<uint64_t>(w[2 * i]) | (static_cast<uint64_t>(w[2 * i + 1]) << 32);
    if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) SeedSplitMix(0);  // from_seed's all-zero rule
  }

  uint64_t NextU64() {
    uint64_t res = Rotl(s_[0] + s_[3], 23) + s_[0];
    uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return res;
  }
  uint32_t NextU32() { return static_cast<uint32_t>(NextU64() >> 32); }

  // gen_range(0..n) for usize / u64 (rand 0.8.5 UniformInt::sample_single), n >= 1.
  uint64_t RangeU64(uint64_t n) {
    uint64_t zone = (n << __builtin_clzll(n)) - 1;
    for (;;) {
      unsigned __int128 m = static_cast<unsigned __int128>(NextU64()) * n;
      if (static_cast<uint64_t>(m) <= zone) return static_cast<uint64_t>(m >> 64);
    }
  }
  // gen_range(0..n) for u32 / i32 and SliceRandom::choose (gen_index), n >= 1.
  uint32_t RangeU32(uint32_t n) {
    uint32_t zone = (n << __builtin_clz(n)) - 1;
    for (;;) {
      uint64_t m = static_cast<uint64_t>(NextU32()) * n;
      if (static_cast<uint32_t>(m) <= zone) return static_cast<uint32_t>(m >> 32);
    }
  }
  // gen_range(b'a'..=b'z'): u8 samples through u32 with the exact
  // (modulus) rejection zone.
  char Letter() {
    constexpr uint32_t kZone = UINT32_MAX - ((UINT32_MAX - 26u + 1u) % 26u);
    for (;;) {
      uint64_t m = static_cast<uint64_t>(NextU32()) * 26u;
      if (static_cast<uint32_t>(m) <= kZone) return static_cast<char>('a' + (m >> 32));
    }
  }
  // n letters into p. The state lives in locals meanwhile: stores through
  // char* may alias anything, which would force it through memory.
  void Letters(char* p, size_t n) {
    constexpr uint32_t kZone = UINT32_MAX - ((UINT32_MAX - 26u + 1u) % 26u);
    uint64_t s0 = s_[0], s1 = s_[1], s2 = s_[2], s3 = s_[3];
    for (size_t i = 0; i < n;) {
      uint64_t res = Rotl(s0 + s3, 23) + s0;
      uint64_t t = s1 << 17;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = Rotl(s3, 45);
      uint64_t m = (res >> 32) * 26u;
      if (static_cast<uint32_t>(m) <= kZone) p[i++] = static_cast<char>('a' + (m >> 32));
    }
    s_[0] = s0;
    s_[1] = s1;
    s_[2] = s2;
    s_[3] = s3;
  }
  // gen::<f32>(): 24 high bits of a u32, scaled to [0, 1).
  float F32() { return static_cast<float>(NextU32() >> 8) * (1.0f / 16777216.0f); }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  void SeedSplitMix(uint64_t state) {
    for (uint64_t& x : s_) {
      state += 0x9e3779b97f4a7c15ULL;
      uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      x = z ^ (z >> 31);
    }
  }
  uint64_t s_[4];
};

// f32::round() as u64 for a non-negative float: half away from zero.
// x - trunc(x) is exact in float, so this equals roundf(x) without the
// libm call.
inline int64_t RoundNonNegative(float x) {
  int64_t r = static_cast<int64_t>(x);
  return x - static_cast<float>(r) >= 0.5f ? r + 1 : r;
}

// NexmarkRng::gen_price: round(10^(U * 6) * 100) in f32.
int64_t GenPrice(SmallRng& rng) {
  float u = rng.F32();
  float p = ::powf(10.0f, u * 6.0f) * 100.0f;
  return RoundNonNegative(p);
}

// NexmarkRng::gen_next_extra: the length of the padding string.
size_t ExtraLength(SmallRng& rng, int64_t current_size, int64_t desired_average_size) {
  if (current_size > desired_average_size) return 0;
  uint64_t desired = static_cast<uint64_t>(desired_average_size - current_size);
  uint64_t delta = (desired + 2) / 5;
  uint64_t min_size = desired - delta;
  return static_cast<size_t>(min_size + (delta == 0 ? 0 : rng.RangeU64(2 * delta)));
}

// NexmarkRng::gen_string_with_delimiter(max, delimiter).
std::string StringWithDelimiter(SmallRng& rng, uint64_t max, char delimiter) {
  size_t len = static_cast<size_t>(kMinStringLength + rng.RangeU64(max - kMinStringLength));
  std::string s(len, ' ');
  for (size_t i = 0; i < len; i++) s[i] = rng.RangeU32(13) == 0 ? delimiter : rng.Letter();
  return s;
}

// utils.rs get_base_url(seed).
std::string BaseUrl(uint64_t seed) {
  SmallRng rng(seed);
  std::string id0 = StringWithDelimiter(rng, 5, '_');
  std::string id1 = StringWithDelimiter(rng, 5, '_');
  std::string id2 = StringWithDelimiter(rng, 5, '_');
  return "https://www.nexmark.com/" + id0 + "/" + id1 + "/" + id2 + "/item.htm?query=1";
}

// The hot channels and CHANNEL_URL_MAP. The 10,000 URLs live in one arena
// (offsets beside it): bids pick them at random, and one cache line per
// pick beats chasing a std::string header first. Channel names
// "channel-N" are rebuilt from N.
struct ChannelTables {
  std::vector<std::string> hot_channels;
  std::vector<std::string> hot_urls;
  std::string url_arena;
  std::vector<uint32_t> url_offsets;  // kChannelNumber + 1 entries
};

const ChannelTables& Channels() {
  static const ChannelTables tables = [] {
    ChannelTables t;
    t.hot_channels = {"Google", "Facebook", "Baidu", "Apple"};
    for (uint64_t i = 0; i < 4; i++) t.hot_urls.push_back(BaseUrl(i));
    t.url_offsets.reserve(kChannelNumber + 1);
    for (int i = 0; i < kChannelNumber; i++) {
      t.url_offsets.push_back(static_cast<uint32_t>(t.url_arena.size()));
      t.url_arena += BaseUrl(static_cast<uint64_t>(i));
      SmallRng rng(static_cast<uint64_t>(i));
      if (rng.RangeU32(10) > 0) {
        // i64::abs((i as i32).reverse_bits() as i64)
        uint32_t v = static_cast<uint32_t>(i), r = 0;
        for (int b = 0; b < 32; b++) r |= ((v >> b) & 1u) << (31 - b);
        int64_t id = static_cast<int64_t>(static_cast<int32_t>(r));
        t.url_arena += "&channel_id=" + std::to_string(id < 0 ? -id : id);
      }
    }
    t.url_offsets.push_back(static_cast<uint32_t>(t.url_arena.size()));
    return t;
  }();
  return tables;
}

// "channel-N" for 0 <= N < 10^8.
void AppendChannelName(Vector& v, uint32_t n) {
  char buf[16] = {'c', 'h', 'a', 'n', 'n', 'e', 'l', '-'};
  char digits[10];
  int len = 0;
  do {
    digits[len++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  for (int i = 0; i < len; i++) buf[8 + i] = digits[len - 1 - i];
  v.strings().emplace_back(buf, static_cast<size_t>(8 + len));
  v.validity().push_back(1);
}

int64_t Pos(int64_t v) { return v < 1 ? 1 : v; }

// x / d for x >= 0, d >= 1, with the default configuration's divisors
// (proportions 1, 3, 46 and their sum 50) turned into multiplications.
inline int64_t Div(int64_t x, int64_t d) {
  switch (d) {
    case 1: return x;
    case 3: return x / 3;
    case 46: return x / 46;
    case 50: return x / 50;
    default: return x / d;
  }
}

int64_t Denominator(const NexmarkConfig& c) {
  return Pos(c.person_proportion) + Pos(c.auction_proportion) + Pos(c.bid_proportion);
}

// Person::last_id(event_id) (base 0).
int64_t PersonLastId(const NexmarkConfig& c, int64_t event_id) {
  int64_t den = Denominator(c), pp = Pos(c.person_proportion);
  int64_t epoch = Div(event_id, den);
  int64_t offset = std::min(event_id - epoch * den, pp - 1);
  return epoch * pp + offset;
}

// Auction::last_id(event_id) (base 0).
int64_t AuctionLastId(const NexmarkConfig& c, int64_t event_id) {
  int64_t den = Denominator(c), pp = Pos(c.person_proportion), ap = Pos(c.auction_proportion);
  int64_t epoch = Div(event_id, den);
  int64_t offset = event_id - epoch * den;
  if (offset < pp) {
    epoch -= 1;
    offset = ap - 1;
  } else if (pp + ap <= offset) {
    offset = ap - 1;
  } else {
    offset -= pp;
  }
  return epoch * ap + offset;
}

// Person::next_id (base 0).
int64_t PersonNextId(const NexmarkConfig& c, int64_t event_id, SmallRng& rng) {
  int64_t people = PersonLastId(c, event_id) + 1;
  int64_t active = std::min(people, c.active_people);
  return people - active + static_cast<int64_t>(rng.RangeU64(static_cast<uint64_t>(Pos(active + c.person_id_lead))));
}

// Auction::next_id (base 0).
int64_t AuctionNextId(const NexmarkConfig& c, int64_t event_id, SmallRng& rng) {
  int64_t max_auction = AuctionLastId(c, event_id);
  int64_t min_auction = max_auction < c.in_flight_auctions ? 0 : max_auction - c.in_flight_auctions;
  uint64_t n = static_cast<uint64_t>(Pos(max_auction - min_auction + 1 + c.auction_id_lead));
  return min_auction + static_cast<int64_t>(rng.RangeU64(n));
}

float InterEventDelayUs(const NexmarkConfig& c) {
  // rate_to_period(first_rate) * generators, all in f32.
  float period = static_cast<float>(c.us_per_unit) / static_cast<float>(Pos(c.first_event_rate));
  return period * static_cast<float>(Pos(c.num_event_generators));
}

int64_t TimestampMs(const NexmarkConfig& c, float delay_us, int64_t event_number) {
  float v = (static_cast<float>(static_cast<uint64_t>(event_number)) * delay_us) / 1000.0f;
  return c.base_time_ms + RoundNonNegative(v);
}

NexmarkConfig Sanitized(NexmarkConfig c) {
  c.split_num = std::max(1, c.split_num);
  for (int64_t* v : {&c.first_event_rate, &c.num_event_generators, &c.hot_seller_ratio, &c.hot_auction_ratio,
                     &c.hot_bidder_ratio, &c.hot_channel_ratio, &c.num_categories, &c.person_proportion,
                     &c.auction_proportion, &c.bid_proportion}) {
    *v = Pos(*v);
  }
  c.active_people = std::max<int64_t>(0, c.active_people);
  c.in_flight_auctions = std::max<int64_t>(0, c.in_flight_auctions);
  c.auction_id_lead = std::max<int64_t>(0, c.auction_id_lead);
  c.person_id_lead = std::max<int64_t>(0, c.person_id_lead);
  c.first_event_id = std::max<int64_t>(0, c.first_event_id);
  c.first_event_number = std::max<int64_t>(0, c.first_event_number);
  if (c.us_states.empty()) c.us_states = {""};
  if (c.us_cities.empty()) c.us_cities = {""};
  if (c.first_names.empty()) c.first_names = {""};
  if (c.last_names.empty()) c.last_names = {""};
  return c;
}

// Appends a string of n generated letters to a VARCHAR vector.
void AppendLetters(Vector& v, SmallRng& rng, size_t n) {
  std::string& s = v.strings().emplace_back(n, '\0');
  rng.Letters(s.data(), n);
  v.validity().push_back(1);
}

void AppendCopy(Vector& v, const std::string& s) {
  v.strings().push_back(s);
  v.validity().push_back(1);
}

bool ParseInt(const std::string& s, int64_t* out) {
  const char* b = s.data();
  const char* e = s.data() + s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(*b))) b++;
  while (e > b && std::isspace(static_cast<unsigned char>(e[-1]))) e--;
  if (b < e && *b == '+') b++;
  auto [p, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && p == e && b < e;
}

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(',', start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

}  // namespace

std::optional<NexmarkTable> NexmarkTableFromName(std::string_view name) {
  std::string lower;
  for (char ch : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "person") return NexmarkTable::kPerson;
  if (lower == "auction") return NexmarkTable::kAuction;
  if (lower == "bid") return NexmarkTable::kBid;
  return std::nullopt;
}

const char* NexmarkTableName(NexmarkTable t) {
  switch (t) {
    case NexmarkTable::kPerson: return "Person";
    case NexmarkTable::kAuction: return "Auction";
    case NexmarkTable::kBid: return "Bid";
  }
  return "?";
}

std::string ValidateNexmarkConfig(const NexmarkConfig& c) {
  if (c.split_num < 1) return "nexmark.split.num must be at least 1";
  if (c.event_num < -1) return "nexmark.event.num must not be negative";
  if (c.min_event_gap_ns < 0) return "nexmark.min.event.gap.in.ns must not be negative";
  if (c.first_event_rate < 1) return "nexmark.first.event.rate must be positive";
  if (c.us_per_unit < 1) return "nexmark.us.per.unit must be positive";
  if (c.num_event_generators < 1) return "nexmark.threads must be positive";
  if (c.hot_seller_ratio < 1 || c.hot_auction_ratio < 1 || c.hot_bidder_ratio < 1 || c.hot_channel_ratio < 1) {
    return "nexmark hot ratios must be positive";
  }
  if (c.person_proportion < 1 || c.auction_proportion < 1 || c.bid_proportion < 1) {
    return "nexmark proportions must be positive";
  }
  if (c.num_categories < 1) return "nexmark.num.categories must be positive";
  if (c.active_people < 0 || c.in_flight_auctions < 0 || c.auction_id_lead < 0 || c.person_id_lead < 0 ||
      c.first_event_id < 0 || c.first_event_number < 0 || c.avg_person_byte_size < 0 ||
      c.avg_auction_byte_size < 0 || c.avg_bid_byte_size < 0 || c.base_time_ms < 0) {
    return "nexmark sizes, counts and ids must not be negative";
  }
  if (c.active_people + c.person_id_lead < 1) return "nexmark.active.people + nexmark.person.id.lead must be positive";
  if (c.us_states.empty() || c.us_cities.empty() || c.first_names.empty() || c.last_names.empty()) {
    return "nexmark name lists must not be empty";
  }
  return "";
}

std::string ApplyNexmarkOption(NexmarkConfig* c, const std::string& key, const std::string& value) {
  struct IntKey {
    const char* name;
    int64_t NexmarkConfig::*field;
  };
  static const IntKey kIntKeys[] = {
      {"nexmark.event.num", &NexmarkConfig::event_num},
      {"nexmark.min.event.gap.in.ns", &NexmarkConfig::min_event_gap_ns},
      {"nexmark.base.time", &NexmarkConfig::base_time_ms},
      {"nexmark.max.chunk.size", &NexmarkConfig::max_chunk_size},
      {"nexmark.first.event.rate", &NexmarkConfig::first_event_rate},
      {"nexmark.us.per.unit", &NexmarkConfig::us_per_unit},
      {"nexmark.threads", &NexmarkConfig::num_event_generators},
      {"nexmark.active.people", &NexmarkConfig::active_people},
      {"nexmark.in.flight.auctions", &NexmarkConfig::in_flight_auctions},
      {"nexmark.avg.person.byte.size", &NexmarkConfig::avg_person_byte_size},
      {"nexmark.avg.auction.byte.size", &NexmarkConfig::avg_auction_byte_size},
      {"nexmark.avg.bid.byte.size", &NexmarkConfig::avg_bid_byte_size},
      {"nexmark.hot.seller.ratio", &NexmarkConfig::hot_seller_ratio},
      {"nexmark.hot.auction.ratio", &NexmarkConfig::hot_auction_ratio},
      {"nexmark.hot.bidder.ratio", &NexmarkConfig::hot_bidder_ratio},
      {"nexmark.hot.channel.ratio", &NexmarkConfig::hot_channel_ratio},
      {"nexmark.first.event.id", &NexmarkConfig::first_event_id},
      {"nexmark.first.event.number", &NexmarkConfig::first_event_number},
      {"nexmark.num.categories", &NexmarkConfig::num_categories},
      {"nexmark.auction.id.lead", &NexmarkConfig::auction_id_lead},
      {"nexmark.person.id.lead", &NexmarkConfig::person_id_lead},
      {"nexmark.person.proportion", &NexmarkConfig::person_proportion},
      {"nexmark.auction.proportion", &NexmarkConfig::auction_proportion},
      {"nexmark.bid.proportion", &NexmarkConfig::bid_proportion},
      {"nexmark.first.auction.id", &NexmarkConfig::first_auction_id},
      {"nexmark.first.person.id", &NexmarkConfig::first_person_id},
      {"nexmark.first.category.id", &NexmarkConfig::first_category_id},
  };
  // Accepted by RisingWave but without effect on its generator
  // (nexmark.events.per.sec is parsed and never used; the *_ratio_2 knobs
  // were removed from the crate; sine/square rate shapes never apply since
  // next_rate is set from first_event_rate too).
  static const char* kIgnoredIntKeys[] = {"nexmark.events.per.sec",      "nexmark.next.event.rate",
                                          "nexmark.hot.seller.ratio.2",  "nexmark.hot.auction.ratio.2",
                                          "nexmark.hot.bidder.ratio.2",  "nexmark.out.of.order.group.size",
                                          "nexmark.sine.approx.steps",   "nexmark.rate.period"};
  if (key == "nexmark.event.num") {
    // RisingWave's default is u64::MAX; anything beyond int64 is unbounded.
    uint64_t u;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), u);
    if (ec == std::errc() && ptr == value.data() + value.size() && u > static_cast<uint64_t>(INT64_MAX)) {
      c->event_num = -1;
      return "";
    }
  }
  for (const auto& k : kIntKeys) {
    if (key != k.name) continue;
    int64_t v;
    if (!ParseInt(value, &v)) return "invalid value for " + key + ": '" + value + "'";
    if (key == "nexmark.event.num" && v < 0) return "invalid value for " + key + ": '" + value + "'";
    c->*k.field = v;
    return "";
  }
  for (const char* k : kIgnoredIntKeys) {
    if (key != k) continue;
    int64_t v;
    if (!ParseInt(value, &v)) return "invalid value for " + key + ": '" + value + "'";
    return "";
  }
  if (key == "nexmark.split.num") {
    int64_t v;
    if (!ParseInt(value, &v) || v < 1 || v > 1 << 20) return "invalid value for " + key + ": '" + value + "'";
    c->split_num = static_cast<int>(v);
    return "";
  }
  if (key == "nexmark.use.real.time") {
    std::string lower;
    for (char ch : value) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "true") {
      c->use_real_time = true;
    } else if (lower == "false") {
      c->use_real_time = false;
    } else {
      return "invalid value for " + key + ": '" + value + "'";
    }
    return "";
  }
  if (key == "nexmark.rate.shape") {
    if (value != "sine" && value != "square") return "invalid value for " + key + ": '" + value + "'";
    return "";
  }
  if (key == "nexmark.us.states") {
    c->us_states = SplitComma(value);
    return "";
  }
  if (key == "nexmark.us.cities") {
    c->us_cities = SplitComma(value);
    return "";
  }
  if (key == "nexmark.first.names") {
    c->first_names = SplitComma(value);
    return "";
  }
  if (key == "nexmark.last.names") {
    c->last_names = SplitComma(value);
    return "";
  }
  return "unknown";
}

std::vector<std::pair<std::string, DataType>> NexmarkColumns(NexmarkTable t) {
  const DataType kBig = DataType::Int64(), kStr = DataType::Varchar(), kTs = DataType::Timestamp();
  switch (t) {
    case NexmarkTable::kPerson:
      return {{"id", kBig},   {"name", kStr},  {"email_address", kStr}, {"credit_card", kStr},
              {"city", kStr}, {"state", kStr}, {"date_time", kTs},      {"extra", kStr}};
    case NexmarkTable::kAuction:
      return {{"id", kBig},      {"item_name", kStr}, {"description", kStr}, {"initial_bid", kBig},
              {"reserve", kBig}, {"date_time", kTs},  {"expires", kTs},      {"seller", kBig},
              {"category", kBig}, {"extra", kStr}};
    case NexmarkTable::kBid:
      return {{"auction", kBig}, {"bidder", kBig},   {"price", kBig}, {"channel", kStr},
              {"url", kStr},     {"date_time", kTs}, {"extra", kStr}};
  }
  return {};
}

std::vector<std::pair<std::string, DataType>> NexmarkCombinedColumns() {
  auto as_struct = [](NexmarkTable t) {
    std::vector<StructField> fields;
    for (auto& [name, type] : NexmarkColumns(t)) fields.emplace_back(name, type);
    return DataType::Struct(fields);
  };
  return {{"event_type", DataType::Int64()},
          {"person", as_struct(NexmarkTable::kPerson)},
          {"auction", as_struct(NexmarkTable::kAuction)},
          {"bid", as_struct(NexmarkTable::kBid)}};
}

NexmarkTable NexmarkEventType(const NexmarkConfig& c, int64_t event_number) {
  int64_t rem = event_number % Denominator(c);
  if (rem < Pos(c.person_proportion)) return NexmarkTable::kPerson;
  if (rem < Pos(c.person_proportion) + Pos(c.auction_proportion)) return NexmarkTable::kAuction;
  return NexmarkTable::kBid;
}

int64_t NexmarkGlobalOffset(const NexmarkConfig& c, NexmarkTable t, int64_t type_offset) {
  int64_t den = Denominator(c), pp = Pos(c.person_proportion), ap = Pos(c.auction_proportion),
          bp = Pos(c.bid_proportion);
  auto block = [&](int64_t p, int64_t before) {
    int64_t q = Div(type_offset, p);
    return q * den + before + (type_offset - q * p);
  };
  switch (t) {
    case NexmarkTable::kPerson: return block(pp, 0);
    case NexmarkTable::kAuction: return block(ap, pp);
    case NexmarkTable::kBid: return block(bp, pp + ap);
  }
  return type_offset;
}

int64_t NexmarkEventTimestampMs(const NexmarkConfig& c, int64_t event_number) {
  return TimestampMs(c, InterEventDelayUs(c), event_number);
}

int64_t NexmarkLastPersonId(const NexmarkConfig& c, int64_t event_number) {
  return c.first_person_id + PersonLastId(c, c.first_event_id + event_number);
}

int64_t NexmarkLastAuctionId(const NexmarkConfig& c, int64_t event_number) {
  return c.first_auction_id + AuctionLastId(c, c.first_event_id + event_number);
}

double NexmarkRowsPerSecondPerSplit(const NexmarkConfig& c, NexmarkTable t) {
  if (c.min_event_gap_ns <= 0) return 0;
  int64_t share = t == NexmarkTable::kPerson    ? Pos(c.person_proportion)
                  : t == NexmarkTable::kAuction ? Pos(c.auction_proportion)
                                                : Pos(c.bid_proportion);
  // Each split's global offset may advance one event per gap; the split
  // owns 1/split_num of the table's events in that range.
  return 1e9 / static_cast<double>(c.min_event_gap_ns) * static_cast<double>(share) /
         static_cast<double>(Denominator(c)) / static_cast<double>(std::max(1, c.split_num));
}

// ---------------------------------------------------------------------------

NexmarkGenerator::NexmarkGenerator(NexmarkConfig config, NexmarkTable table, int split)
    : cfg_(Sanitized(std::move(config))), table_(table), split_(split < 0 ? 0 : split) {
  inter_event_delay_us_ = InterEventDelayUs(cfg_);
  if (table_ == NexmarkTable::kBid) Channels();  // build the shared table outside the hot loop
}

bool NexmarkGenerator::exhausted() const { return cfg_.event_num >= 0 && global_offset() >= cfg_.event_num; }

void NexmarkGenerator::PrepareChunk(DataChunk* out, size_t rows) const {
  if (out->num_columns() == 0) {
    for (auto& [name, type] : NexmarkColumns(table_)) out->AddColumn(Vector(type));
  }
  size_t expected = table_ == NexmarkTable::kPerson ? 8 : table_ == NexmarkTable::kAuction ? 10 : 7;
  if (out->num_columns() != expected) {
    throw std::logic_error(std::string("nexmark: chunk does not have the columns of table ") +
                           NexmarkTableName(table_));
  }
  // Grow geometrically, so that appending one row at a time stays linear.
  size_t want = out->num_rows() + std::min<size_t>(rows, 1 << 16);
  for (auto& col : out->columns()) {
    size_t cap = col.validity().capacity();
    if (cap < want) col.Reserve(std::max(want, 2 * cap));
  }
}

bool NexmarkGenerator::NextChunk(DataChunk* out, size_t max_rows) {
  if (max_rows == 0) return !exhausted();
  PrepareChunk(out, max_rows);
  const int64_t step = cfg_.split_num;
  size_t appended = 0;
  int64_t t = type_offset();
  while (appended < max_rows) {
    int64_t g = NexmarkGlobalOffset(cfg_, table_, t);
    if (cfg_.event_num >= 0 && g >= cfg_.event_num) break;
    int64_t n = cfg_.first_event_number + g;
    switch (table_) {
      case NexmarkTable::kPerson: AppendPerson(n, out); break;
      case NexmarkTable::kAuction: AppendAuction(n, out); break;
      case NexmarkTable::kBid: AppendBid(n, out); break;
    }
    appended++;
    offset_++;
    t += step;
  }
  return appended > 0;
}

void NexmarkGenerator::AppendEvent(int64_t event_number, DataChunk* out) const {
  PrepareChunk(out, 1);
  switch (table_) {
    case NexmarkTable::kPerson: AppendPerson(event_number, out); break;
    case NexmarkTable::kAuction: AppendAuction(event_number, out); break;
    case NexmarkTable::kBid: AppendBid(event_number, out); break;
  }
}

// event.rs Person::new.
void NexmarkGenerator::AppendPerson(int64_t event_number, DataChunk* out) const {
  const int64_t event_id = cfg_.first_event_id + event_number;
  const int64_t time_ms = TimestampMs(cfg_, inter_event_delay_us_, event_number);
  SmallRng rng(static_cast<uint64_t>(event_id));
  auto& cols = out->columns();

  cols[0].AppendInt(PersonLastId(cfg_, event_id) + cfg_.first_person_id);

  const std::string& first = cfg_.first_names[rng.RangeU32(static_cast<uint32_t>(cfg_.first_names.size()))];
  const std::string& last = cfg_.last_names[rng.RangeU32(static_cast<uint32_t>(cfg_.last_names.size()))];
  std::string& name = cols[1].strings().emplace_back();
  name.reserve(first.size() + 1 + last.size());
  name.append(first).append(1, ' ').append(last);
  cols[1].validity().push_back(1);
  size_t name_len = name.size();

  std::string& email = cols[2].strings().emplace_back(17, '\0');  // 7 letters @ 5 letters .com
  rng.Letters(email.data(), 7);
  email[7] = '@';
  rng.Letters(email.data() + 8, 5);
  std::memcpy(email.data() + 13, ".com", 4);
  cols[2].validity().push_back(1);

  std::string& card = cols[3].strings().emplace_back(19, ' ');  // "{:04} {:04} {:04} {:04}"
  for (int g = 0; g < 4; g++) {
    uint32_t v = rng.RangeU32(10000);
    char* p = card.data() + g * 5;
    p[0] = static_cast<char>('0' + v / 1000);
    p[1] = static_cast<char>('0' + v / 100 % 10);
    p[2] = static_cast<char>('0' + v / 10 % 10);
    p[3] = static_cast<char>('0' + v % 10);
  }
  cols[3].validity().push_back(1);

  const std::string& city = cfg_.us_cities[rng.RangeU32(static_cast<uint32_t>(cfg_.us_cities.size()))];
  const std::string& state = cfg_.us_states[rng.RangeU32(static_cast<uint32_t>(cfg_.us_states.size()))];
  AppendCopy(cols[4], city);
  AppendCopy(cols[5], state);

  cols[6].AppendInt(time_ms * 1000);

  int64_t current_size = 8 + static_cast<int64_t>(name_len + 17 + 19 + city.size() + state.size());
  AppendLetters(cols[7], rng, ExtraLength(rng, current_size, cfg_.avg_person_byte_size));
}

// event.rs Auction::new.
void NexmarkGenerator::AppendAuction(int64_t event_number, DataChunk* out) const {
  const int64_t event_id = cfg_.first_event_id + event_number;
  const int64_t time_ms = TimestampMs(cfg_, inter_event_delay_us_, event_number);
  SmallRng rng(static_cast<uint64_t>(event_id));
  auto& cols = out->columns();

  cols[0].AppendInt(AuctionLastId(cfg_, event_id) + cfg_.first_auction_id);
  AppendLetters(cols[1], rng, 20);   // item_name: gen_string(20)
  AppendLetters(cols[2], rng, 100);  // description: gen_string(100)
  int64_t initial_bid = GenPrice(rng);
  int64_t reserve = initial_bid + GenPrice(rng);
  cols[3].AppendInt(initial_bid);
  cols[4].AppendInt(reserve);

  // Auction::next_length.
  int64_t den = Denominator(cfg_);
  int64_t events_for_auctions = (cfg_.in_flight_auctions * den) / cfg_.auction_proportion;
  int64_t future_auction = TimestampMs(cfg_, inter_event_delay_us_, event_number + events_for_auctions);
  uint64_t horizon = static_cast<uint64_t>(future_auction - time_ms);
  int64_t expires = time_ms + 1 + static_cast<int64_t>(rng.RangeU64(std::max<uint64_t>(horizon * 2, 1)));

  int64_t seller;
  if (rng.RangeU64(static_cast<uint64_t>(cfg_.hot_seller_ratio)) > 0) {
    seller = (PersonLastId(cfg_, event_id) / kHotBatch) * kHotBatch;
  } else {
    seller = PersonNextId(cfg_, event_id, rng);
  }
  seller += cfg_.first_person_id;
  int64_t category = cfg_.first_category_id + static_cast<int64_t>(rng.RangeU64(static_cast<uint64_t>(cfg_.num_categories)));

  cols[5].AppendInt(time_ms * 1000);
  cols[6].AppendInt(expires * 1000);
  cols[7].AppendInt(seller);
  cols[8].AppendInt(category);

  int64_t current_size = 8 + 20 + 100 + 8 + 8 + 8 + 8 + 8;
  AppendLetters(cols[9], rng, ExtraLength(rng, current_size, cfg_.avg_auction_byte_size));
}

// event.rs Bid::new.
void NexmarkGenerator::AppendBid(int64_t event_number, DataChunk* out) const {
  const int64_t event_id = cfg_.first_event_id + event_number;
  const int64_t time_ms = TimestampMs(cfg_, inter_event_delay_us_, event_number);
  SmallRng rng(static_cast<uint64_t>(event_id));
  auto& cols = out->columns();

  int64_t auction;
  if (rng.RangeU64(static_cast<uint64_t>(cfg_.hot_auction_ratio)) > 0) {
    auction = (AuctionLastId(cfg_, event_id) / kHotBatch) * kHotBatch;
  } else {
    auction = AuctionNextId(cfg_, event_id, rng);
  }
  int64_t bidder;
  if (rng.RangeU64(static_cast<uint64_t>(cfg_.hot_bidder_ratio)) > 0) {
    bidder = (PersonLastId(cfg_, event_id) / kHotBatch) * kHotBatch + 1;
  } else {
    bidder = PersonNextId(cfg_, event_id, rng);
  }
  int64_t price = GenPrice(rng);

  const ChannelTables& ch = Channels();
  bool hot = rng.RangeU64(static_cast<uint64_t>(cfg_.hot_channel_ratio)) > 0;
  // hot: nex.hot_channels[gen_range(0..len)]; else CHANNEL_URL_MAP.choose().
  size_t index = hot ? static_cast<size_t>(rng.RangeU64(ch.hot_channels.size()))
                     : rng.RangeU32(static_cast<uint32_t>(kChannelNumber));

  cols[0].AppendInt(auction + cfg_.first_auction_id);
  cols[1].AppendInt(bidder + cfg_.first_person_id);
  cols[2].AppendInt(price);
  if (hot) {
    AppendCopy(cols[3], ch.hot_channels[index]);
    AppendCopy(cols[4], ch.hot_urls[index]);
  } else {
    AppendChannelName(cols[3], static_cast<uint32_t>(index));
    uint32_t begin = ch.url_offsets[index], end = ch.url_offsets[index + 1];
    cols[4].strings().emplace_back(ch.url_arena.data() + begin, end - begin);
    cols[4].validity().push_back(1);
  }
  cols[5].AppendInt(time_ms * 1000);
  AppendLetters(cols[6], rng, ExtraLength(rng, 8 + 8 + 8 + 8, cfg_.avg_bid_byte_size));
}

}  // namespace freshet
