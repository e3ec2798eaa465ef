// Data of TSBS's cpu-only use case (timescale/tsbs, pkg/data/usecases/devops)
// for bench/tsbs/run.sh: a benchmark tool, compiled by run.sh with g++ -O2,
// not part of Freshet's build.
//
//   tsbs_gen --scale N --days D --seed S [--float-values] --format csv|insert|hosts
//            [--table NAME] [--batch ROWS] [--per-txn STATEMENTS] [--limit ROWS]
//            --out FILE
//
// One row per host every 10 s from 2016-01-01 00:00:00 (TSBS's default start)
// for D days, all hosts at t, then all at t + 10 s, ... as TSBS emits them.
// Hosts host_0 .. host_<N-1>, each with tags fixed for the run and drawn from
// the seed as TSBS draws them: region (9, uniform), datacenter (uniform among
// the region's), rack 0..99, arch x64/x86, os Ubuntu16.10/Ubuntu16.04LTS/
// Ubuntu15.10, service 0..19, service_version 0..1, service_environment
// production/staging/test, team SF/NYC/LON/CHI. Ten fields usage_user ..
// usage_guest_nice, each a random walk: start uniform in [0, 100), then a
// N(0, 1) step per 10 s, clamped to [0, 100]. TSBS writes the cpu fields as
// int64(value) (SubsystemMeasurement.ToPointAllInt64: truncated, 0..100),
// which is the default here too; --float-values writes the walk's double
// itself (shortest round-trip form) instead.
//
// Formats:
//   csv     hostname,region,datacenter,rack,os,arch,team,service,
//           service_version,service_environment,usage_user,...,
//           usage_guest_nice,ts  (no header; for COPY ... (FORMAT csv) and
//           DuckDB's read_csv)
//   insert  the same rows as multi-row INSERT statements, one per line:
//           INSERT INTO <table> VALUES (...),(...); with --batch rows each
//           (default 1000); with --per-txn K > 0, "BEGIN;" before each K
//           statements and "COMMIT;" after them (default 0: autocommit)
//   hosts   one line per host: its tags (csv)
// --limit R stops after the first R rows (0 = all).
//
// The random numbers are our own (xoshiro256**, Box-Muller normals), so the
// rows depend on the seed alone, not on the compiler or its library.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Rng {
  uint64_t s[4];
  explicit Rng(uint64_t seed) {
    uint64_t x = seed;
    for (auto& w : s) {  // splitmix64
      x += 0x9e3779b97f4a7c15ULL;
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      w = z ^ (z >> 31);
    }
  }
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
    return r;
  }
  double uniform() { return (next() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t below(uint64_t n) { return static_cast<uint64_t>(uniform() * n); }
  bool have_spare = false;
  double spare = 0;
  double normal() {  // Box-Muller, two at a time
    if (have_spare) { have_spare = false; return spare; }
    double u1;
    do u1 = uniform(); while (u1 <= 0.0);
    double u2 = uniform();
    double r = std::sqrt(-2.0 * std::log(u1)), a = 2.0 * M_PI * u2;
    spare = r * std::sin(a);
    have_spare = true;
    return r * std::cos(a);
  }
};

struct Region { const char* name; std::vector<const char*> dcs; };
const std::vector<Region> kRegions = {
    {"us-east-1", {"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1e"}},
    {"us-west-1", {"us-west-1a", "us-west-1b"}},
    {"us-west-2", {"us-west-2a", "us-west-2b", "us-west-2c"}},
    {"eu-west-1", {"eu-west-1a", "eu-west-1b", "eu-west-1c"}},
    {"eu-central-1", {"eu-central-1a", "eu-central-1b"}},
    {"ap-southeast-1", {"ap-southeast-1a", "ap-southeast-1b"}},
    {"ap-southeast-2", {"ap-southeast-2a", "ap-southeast-2b"}},
    {"ap-northeast-1", {"ap-northeast-1a", "ap-northeast-1c"}},
    {"sa-east-1", {"sa-east-1a", "sa-east-1b", "sa-east-1c"}},
};
const char* kTeams[] = {"SF", "NYC", "LON", "CHI"};
const char* kOS[] = {"Ubuntu16.10", "Ubuntu16.04LTS", "Ubuntu15.10"};
const char* kArch[] = {"x64", "x86"};
const char* kEnv[] = {"production", "staging", "test"};
constexpr int kFields = 10;
constexpr int64_t kStart = 1451606400;  // 2016-01-01 00:00:00 UTC
constexpr int kInterval = 10;

class Out {
 public:
  explicit Out(const char* path) {
    f_ = std::fopen(path, "wb");
    if (!f_) { std::perror(path); std::exit(1); }
    buf_.reserve(kCap + 4096);
  }
  void put(const char* s, size_t n) {
    buf_.append(s, n);
    if (buf_.size() >= kCap) flush();
  }
  void put(const std::string& s) { put(s.data(), s.size()); }
  void put(char c) { buf_.push_back(c); }
  void flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
      std::perror("write"); std::exit(1);
    }
    buf_.clear();
  }
  void close() {
    flush();
    if (std::fclose(f_) != 0) { std::perror("close"); std::exit(1); }
  }

 private:
  static constexpr size_t kCap = 4 << 20;
  FILE* f_;
  std::string buf_;
};

// "YYYY-MM-DD HH:MM:SS" of a Unix time (UTC).
std::string format_ts(int64_t t) {
  int64_t days = t / 86400, sec = t % 86400;
  // civil_from_days (H. Hinnant)
  int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) y++;
  char b[32];
  std::snprintf(b, sizeof b, "%04d-%02d-%02d %02d:%02d:%02d", int(y), int(m), int(d),
                int(sec / 3600), int(sec / 60 % 60), int(sec % 60));
  return b;
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: tsbs_gen --scale N --days D --seed S [--float-values] --format csv|insert|hosts\n"
               "                [--table NAME] [--batch ROWS] [--per-txn K] [--limit ROWS] --out FILE\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  long scale = 0, days = 0, batch = 1000, per_txn = 0;
  unsigned long long seed = 1, limit = 0;
  bool float_values = false;
  std::string format, out_path, table = "cpu";
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val = [&]() -> const char* { if (i + 1 >= argc) usage(); return argv[++i]; };
    if (a == "--scale") scale = std::atol(val());
    else if (a == "--days") days = std::atol(val());
    else if (a == "--seed") seed = std::strtoull(val(), nullptr, 10);
    else if (a == "--float-values") float_values = true;
    else if (a == "--format") format = val();
    else if (a == "--table") table = val();
    else if (a == "--batch") batch = std::atol(val());
    else if (a == "--per-txn") per_txn = std::atol(val());
    else if (a == "--limit") limit = std::strtoull(val(), nullptr, 10);
    else if (a == "--out") out_path = val();
    else usage();
  }
  if (scale <= 0 || days <= 0 || batch <= 0 || per_txn < 0 || out_path.empty() ||
      (format != "csv" && format != "insert" && format != "hosts"))
    usage();
  const bool sql = format == "insert";

  // Hosts: tags first (host by host, in TSBS's order of draws), then each
  // host's ten starting values.
  Rng rng(seed);
  std::vector<std::string> prefix(scale);  // the row's text up to the first field
  std::vector<std::string> tags(scale);
  for (long h = 0; h < scale; h++) {
    const Region& r = kRegions[rng.below(kRegions.size())];
    const char* dc = r.dcs[rng.below(r.dcs.size())];
    std::string rack = std::to_string(rng.below(100));
    const char* arch = kArch[rng.below(2)];
    const char* os = kOS[rng.below(3)];
    std::string service = std::to_string(rng.below(20));
    std::string version = std::to_string(rng.below(2));
    const char* env = kEnv[rng.below(3)];
    const char* team = kTeams[rng.below(4)];
    std::vector<std::string> t = {"host_" + std::to_string(h), r.name, dc, rack, os, arch, team,
                                  service, version, env};
    std::string csv, values;
    for (size_t k = 0; k < t.size(); k++) {
      csv += (k ? "," : "") + t[k];
      values += (k ? ",'" : "('") + t[k] + "'";
    }
    tags[h] = csv;
    prefix[h] = sql ? values : csv;
  }
  std::vector<double> state(static_cast<size_t>(scale) * kFields);
  for (auto& v : state) v = rng.uniform() * 100.0;

  Out out(out_path.c_str());
  if (format == "hosts") {
    for (auto& t : tags) { out.put(t); out.put('\n'); }
    out.close();
    return 0;
  }

  std::string ints[101];
  for (int i = 0; i <= 100; i++) ints[i] = std::to_string(i);
  const int64_t epochs = days * 86400LL / kInterval;
  const std::string insert_head = "INSERT INTO " + table + " VALUES ";
  unsigned long long rows = 0;
  long in_stmt = 0, stmts_in_txn = 0;
  bool done = false;
  char num[64];
  for (int64_t e = 0; e < epochs && !done; e++) {
    const std::string ts = (sql ? "'" : "") + format_ts(kStart + e * kInterval) + (sql ? "'" : "");
    for (long h = 0; h < scale; h++) {
      double* v = &state[static_cast<size_t>(h) * kFields];
      if (e > 0) {
        for (int k = 0; k < kFields; k++) {
          double x = v[k] + rng.normal();
          v[k] = x > 100.0 ? 100.0 : (x < 0.0 ? 0.0 : x);
        }
      }
      if (sql) {
        if (in_stmt == 0) {
          if (per_txn > 0 && stmts_in_txn == 0) out.put("BEGIN;\n", 7);
          out.put(insert_head);
        } else {
          out.put(',');
        }
      }
      out.put(prefix[h]);
      for (int k = 0; k < kFields; k++) {
        out.put(',');
        if (float_values) {
          auto r = std::to_chars(num, num + sizeof num, v[k]);
          out.put(num, r.ptr - num);
        } else {
          out.put(ints[static_cast<int>(v[k])]);  // int64(value), as TSBS
        }
      }
      out.put(',');
      out.put(ts);
      rows++;
      done = limit > 0 && rows >= limit;
      bool last = done || (e == epochs - 1 && h == scale - 1);
      if (sql) {
        out.put(')');
        if (++in_stmt == batch || last) {
          out.put(";\n", 2);
          in_stmt = 0;
          if (per_txn > 0 && (++stmts_in_txn == per_txn || last)) {
            out.put("COMMIT;\n", 8);
            stmts_in_txn = 0;
          }
        }
      } else {
        out.put('\n');
      }
      if (done) break;
    }
  }
  out.close();
  std::fprintf(stderr, "tsbs_gen: %llu rows\n", rows);
  return 0;
}
