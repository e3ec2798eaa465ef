// The Nexmark event generator, as RisingWave's `nexmark` source runs it.
//
// RisingWave generates Nexmark with the Rust crate `nexmark` 0.2.0
// (github.com/risingwavelabs/nexmark-rs: src/event.rs, src/config.rs,
// src/generator.rs, src/utils.rs) driven by
// src/connector/src/source/nexmark/{mod.rs,source/reader.rs} in RisingWave.
// This file follows that code formula by formula and draw by draw, and it
// reproduces the crate's random streams bit for bit: the crate seeds
// `rand` 0.8's SmallRng per event with `SmallRng::seed_from_u64(event_id)`,
// which on 64-bit targets is xoshiro256++ filled by rand_core 0.6's default
// `seed_from_u64` (PCG32 output, since SmallRng does not forward to
// xoshiro's SplitMix seeding), and every `gen_range`/`choose`/`gen::<f32>`
// consumes the same words as rand 0.8.5 (widening-multiply rejection with
// the same zones, 32-bit draws for u8/i32/u32/slice indexes, 64-bit for
// usize). The crate's own test vector (event 0 = "vicky noris",
// "yplkvgz@qbxfg.com", "7878 5821 1864 2539", ...) is checked in the test.
//
// Event stream (event number n from 0; event id = first_event_id + n seeds
// the RNG and feeds the id formulas):
//  * n % 50: 0 person, 1..3 auction, 4..49 bid (proportions 1:3:46).
//  * person id = 1000 + Person::last_id(event id); auction id likewise.
//  * date_time = base_time + round(n * inter_event_delay / 1000) ms, in f32
//    arithmetic as the crate does; inter_event_delay =
//    us_per_unit / first_event_rate * num_event_generators µs (100 µs by
//    default). Values are whole milliseconds (RisingWave converts the
//    crate's ms to TIMESTAMP); Freshet stores them as µs.
//  * Strings are exact-length lowercase letters (the Rust crate's
//    gen_string(n) = n letters; the Java generator's variable-length strings
//    with spaces are NOT what RisingWave produces). `extra` pads toward the
//    average size: avg - current ± 20% letters.
//  * Hot sellers/auctions/bidders use the crate's constant batch of 100
//    (nexmark 0.2.0 removed the *_ratio_2 knobs): a hot auction is
//    (last_auction / 100) * 100, a hot seller (last_person / 100) * 100, a
//    hot bidder that + 1. Non-hot picks are uniform among recent ids and may
//    run up to auction_id_lead / person_id_lead (10) ids AHEAD of the last
//    generated one, exactly as in the reference (so a bid can name an
//    auction or person that does not exist yet).
//  * Bid channel: with probability 1 - 1/hot_channel_ratio one of
//    Google/Facebook/Baidu/Apple with fixed URLs, else one of 10,000
//    `channel-N` entries whose URL carries `&channel_id=<bit-reversed N>`
//    for 9 of 10 N.
//
// Splits (RisingWave's NexmarkSplitReader): a source declares one table
// type; split i of n builds EventGenerator::new(cfg).with_offset(i)
// .with_step(n).with_type_filter(type). The generator's offset counts events
// OF THAT TYPE: the split's k-th row is the type's event number i + k*n,
// whose global event number is
//     (t / p) * 50 + (events of earlier types in a 50-block) + t % p
// (t = type offset, p = the type's proportion). So the splits partition the
// table's rows exactly: split i's k-th row equals the single-split stream's
// row i + k*n, and the union over splits is the single-split stream. A split
// stops before the first event whose global offset (event number without
// first_event_number) is >= event_num, so event_num bounds the total number
// of events of all types, of which each table sees its own share.
//
// Deviations from the reference, and why:
//  * min_event_gap_ns is NOT the event-time spacing. In RisingWave,
//    nexmark.min.event.gap.in.ns only throttles the reader (it sleeps until
//    start + gap * (global offset progress)); event time always advances by
//    inter_event_delay. The benchmark sets the gap to 0 (generate as fast as
//    possible) and still gets 10,000 events per second of event time, which
//    the window queries depend on. The generator itself never sleeps; the
//    reader can pace with PacingTargetNs() / NexmarkRowsPerSecondPerSplit().
//  * offset() is this split's row count (0, 1, 2, ...), so Seek(offset())
//    resumes exactly; RisingWave persists the equivalent type offset
//    (split + offset * split_num), available as type_offset().
//  * The generator is type-filtered; the combined source (connector/
//    nexmark.cc) builds each event's row with AppendEvent. The crate's
//    out_of_order_group_size (which only reorders the unfiltered stream, and
//    is 1 = in order by default) is not implemented, and neither are rate shapes: RisingWave sets both
//    first_rate and next_rate from nexmark.first.event.rate, so its delay
//    table always has one entry.
//  * Prices use libm's powf, as Rust's f32::powf does; bit-identity with a
//    RisingWave binary assumes the same libm (glibc) result.
//  * Configurations the crate would panic on (zero ratios or proportions,
//    empty name lists) are refused by ValidateNexmarkConfig; the generator
//    clamps them instead of crashing.
//
// Performance: one xoshiro256++ step per letter (the padding dominates), no
// allocation per row besides the strings themselves: about 2-3 million bid
// rows per second of CPU on one core of a shared 2-vCPU EPYC VM (~3,400
// instructions per bid row; the test prints the rate).
//
// Thread safety: a NexmarkGenerator is used by one thread; distinct
// generators are independent (the shared channel/URL table is immutable
// after its thread-safe first construction).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/data_chunk.h"
#include "common/types.h"

namespace freshet {

enum class NexmarkTable { kPerson, kAuction, kBid };

// RisingWave's nexmark.table.type values "Person", "Auction", "Bid"
// (accepted case-insensitively); nullopt for anything else.
std::optional<NexmarkTable> NexmarkTableFromName(std::string_view name);
const char* NexmarkTableName(NexmarkTable t);

// Defaults are RisingWave's for a source with nexmark.table.type (the
// crate's NexmarkConfig::default() with RisingWave's base time).
struct NexmarkConfig {
  // nexmark.event.num: total events (all types) over all splits; -1 = unbounded.
  int64_t event_num = -1;
  // nexmark.min.event.gap.in.ns: reader throttle only (see the header comment).
  int64_t min_event_gap_ns = 100000;
  // nexmark.split.num.
  int split_num = 1;
  // nexmark.base.time: event time of event 0, ms since 1970. RisingWave's
  // BASE_TIME for typed sources: 1,436,918,400,000 = 2015-07-15 00:00:00 UTC.
  int64_t base_time_ms = 1436918400000;
  // nexmark.max.chunk.size / nexmark.use.real.time: reader settings kept
  // for the connector (the generator does not use them).
  int64_t max_chunk_size = 1024;
  bool use_real_time = false;

  // Event time: inter-event delay = us_per_unit / first_event_rate *
  // num_event_generators µs.
  int64_t first_event_rate = 10000;    // nexmark.first.event.rate
  int64_t us_per_unit = 1000000;       // nexmark.us.per.unit
  int64_t num_event_generators = 1;    // nexmark.threads

  int64_t active_people = 1000;        // nexmark.active.people
  int64_t in_flight_auctions = 100;    // nexmark.in.flight.auctions
  int64_t avg_person_byte_size = 200;  // nexmark.avg.person.byte.size
  int64_t avg_auction_byte_size = 500; // nexmark.avg.auction.byte.size
  int64_t avg_bid_byte_size = 100;     // nexmark.avg.bid.byte.size
  int64_t hot_seller_ratio = 4;        // nexmark.hot.seller.ratio: P(hot) = 1 - 1/ratio
  int64_t hot_auction_ratio = 2;       // nexmark.hot.auction.ratio
  int64_t hot_bidder_ratio = 4;        // nexmark.hot.bidder.ratio
  int64_t hot_channel_ratio = 2;       // nexmark.hot.channel.ratio
  int64_t first_event_id = 0;          // nexmark.first.event.id
  int64_t first_event_number = 0;      // nexmark.first.event.number
  int64_t num_categories = 5;          // nexmark.num.categories
  int64_t auction_id_lead = 10;        // nexmark.auction.id.lead
  int64_t person_id_lead = 10;         // nexmark.person.id.lead
  int64_t person_proportion = 1;       // nexmark.person.proportion
  int64_t auction_proportion = 3;      // nexmark.auction.proportion
  int64_t bid_proportion = 46;         // nexmark.bid.proportion
  int64_t first_auction_id = 1000;     // nexmark.first.auction.id
  int64_t first_person_id = 1000;      // nexmark.first.person.id
  int64_t first_category_id = 10;      // nexmark.first.category.id

  // nexmark.us.states / us.cities / first.names / last.names (comma lists).
  std::vector<std::string> us_states = {"az", "ca", "id", "or", "wa", "wy"};
  std::vector<std::string> us_cities = {"phoenix", "los angeles", "san francisco", "boise", "portland",
                                        "bend",    "redmond",     "seattle",       "kent",  "cheyenne"};
  std::vector<std::string> first_names = {"peter", "paul",  "luke",  "john",   "saul",  "vicky",
                                          "kate",  "julie", "sarah", "deiter", "walter"};
  std::vector<std::string> last_names = {"shultz", "abrams", "spencer", "white", "bartels",
                                         "walton", "smith",  "jones",   "noris"};
};

// "" when the configuration is usable, else what is wrong with it.
std::string ValidateNexmarkConfig(const NexmarkConfig& c);

// Applies one WITH option by RisingWave's name (nexmark.split.num, ...).
// Returns "" on success, "unknown" when the key is not a nexmark generator
// option (connector, nexmark.table.type and foreign keys are the caller's),
// else an error message for a bad value.
std::string ApplyNexmarkOption(NexmarkConfig* c, const std::string& key, const std::string& value);

// Column names and types of each table, in RisingWave's order.
std::vector<std::pair<std::string, DataType>> NexmarkColumns(NexmarkTable t);
// The combined source's columns: event_type bigint, then person, auction
// and bid as structs of their table's columns.
std::vector<std::pair<std::string, DataType>> NexmarkCombinedColumns();

// --- The event model (pure functions of the configuration) ---
// Which table event number n belongs to.
NexmarkTable NexmarkEventType(const NexmarkConfig& c, int64_t event_number);
// RisingWave's EventGenerator::global_offset() for a type-filtered
// generator at type offset t (the t-th event of that type, from 0).
int64_t NexmarkGlobalOffset(const NexmarkConfig& c, NexmarkTable t, int64_t type_offset);
// date_time of event n in ms since 1970.
int64_t NexmarkEventTimestampMs(const NexmarkConfig& c, int64_t event_number);
// The id of the last person / auction generated at or before event n
// (first_person_id / first_auction_id included); the current one when n
// is itself a person / auction.
int64_t NexmarkLastPersonId(const NexmarkConfig& c, int64_t event_number);
int64_t NexmarkLastAuctionId(const NexmarkConfig& c, int64_t event_number);
// Rows per second per split the RisingWave reader's throttle allows for
// table t (0 = unthrottled, min_event_gap_ns == 0).
double NexmarkRowsPerSecondPerSplit(const NexmarkConfig& c, NexmarkTable t);

class NexmarkGenerator {
 public:
  // split in [0, config.split_num).
  NexmarkGenerator(NexmarkConfig config, NexmarkTable table, int split);

  // Position within this split: the number of the split's events (rows of
  // its table; a split only visits its table's events) consumed so far.
  int64_t offset() const { return offset_; }
  void Seek(int64_t offset) { offset_ = offset < 0 ? 0 : offset; }

  // Appends to `out` (a DataChunk with NexmarkColumns(table) types; an
  // empty chunk without columns is given them) the rows of the split's next
  // events, until max_rows rows were appended or the split is exhausted
  // (event_num reached). Returns false when the split is exhausted and
  // nothing was appended.
  bool NextChunk(DataChunk* out, size_t max_rows);
  bool exhausted() const;

  NexmarkTable table() const { return table_; }
  int split() const { return split_; }
  const NexmarkConfig& config() const { return cfg_; }
  // RisingWave's EventGenerator::offset() (the split state RisingWave
  // persists): type offset of the next event, split + offset * split_num.
  int64_t type_offset() const { return split_ + offset_ * cfg_.split_num; }
  // RisingWave's EventGenerator::global_offset() of the next event.
  int64_t global_offset() const { return NexmarkGlobalOffset(cfg_, table_, type_offset()); }
  int64_t next_event_number() const { return cfg_.first_event_number + global_offset(); }
  int64_t next_timestamp_ms() const { return NexmarkEventTimestampMs(cfg_, next_event_number()); }
  // RisingWave's throttle: a reader that started at global offset
  // `start_global_offset` emits its latest chunk no earlier than
  // start + the returned nanoseconds (min_event_gap_ns * progress).
  int64_t PacingTargetNs(int64_t start_global_offset) const {
    return cfg_.min_event_gap_ns * (global_offset() - start_global_offset);
  }

  // Appends the row of event `event_number`, which must be an event of this
  // generator's table (NexmarkEventType), whatever the split and offset.
  void AppendEvent(int64_t event_number, DataChunk* out) const;

 private:
  void PrepareChunk(DataChunk* out, size_t rows) const;
  void AppendPerson(int64_t event_number, DataChunk* out) const;
  void AppendAuction(int64_t event_number, DataChunk* out) const;
  void AppendBid(int64_t event_number, DataChunk* out) const;

  NexmarkConfig cfg_;
  NexmarkTable table_;
  int split_;
  int64_t offset_ = 0;
  float inter_event_delay_us_ = 100.0f;
};

}  // namespace freshet
