// Helper for bench/foundation/run.sh: a deterministic CSV generator and a
// peak-memory sampler. Built by run.sh with the system C++ compiler; no
// dependencies beyond the standard library and Linux /proc.
//
//   benchtool gen-t ROWS SEED FILE   the fact table t (a, b, c, d, e)
//   benchtool gen-u ROWS SEED FILE   the dimension table u (k, w, name)
//   benchtool sample ROOT_PID INTERVAL_MS OUT_FILE
//       Resets the peak RSS (clear_refs 5) of ROOT_PID and its children,
//       then polls VmHWM of ROOT_PID and every process whose parent is
//       ROOT_PID (PostgreSQL's backends and parallel workers, which may live
//       for a few milliseconds only) until SIGTERM/SIGINT. Then writes
//         max_kb <largest VmHWM of one process>
//         sum_kb <sum over processes of their VmHWM>
//         procs  <number of processes seen>
//       and one line per process (pid, comm, VmHWM) to OUT_FILE.
//
// Data (all deterministic for a given seed, independent of compiler/libc):
//   t.a  bigint            1..ROWS (unique)
//   t.b  bigint            uniform in [0, 100000): join key to u.k; b % 1000
//                          has 1,000 distinct values
//   t.c  double precision  uniform in [0, 1000000) with 4 decimals
//   t.d  text              4 to 20 lowercase letters
//   t.e  timestamp         uniform over 2024 (second resolution)
//   u.k  bigint            0..ROWS-1 (unique)
//   u.w  double precision  uniform in [0, 100) with 2 decimals
//   u.name text            "name_<k>"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); the modulo bias is negligible for n << 2^64.
  uint64_t Below(uint64_t n) { return Next() % n; }
};

// Days since 1970-01-01 -> civil date (Howard Hinnant's algorithm).
void CivilFromDays(int64_t z, int* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int>(yy + (*m <= 2));
}

class Writer {
 public:
  explicit Writer(const char* path) : f_(std::fopen(path, "wb")) {
    if (!f_) {
      std::perror(path);
      std::exit(1);
    }
    buf_.reserve(kCap + 256);
  }
  ~Writer() {
    Flush();
    if (std::fclose(f_) != 0) {
      std::perror("fclose");
      std::exit(1);
    }
  }
  void Append(const char* s, size_t n) {
    buf_.append(s, n);
    if (buf_.size() >= kCap) Flush();
  }

 private:
  static constexpr size_t kCap = 1 << 20;
  void Flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
      std::perror("fwrite");
      std::exit(1);
    }
    buf_.clear();
  }
  FILE* f_;
  std::string buf_;
};

int GenT(uint64_t rows, uint64_t seed, const char* path) {
  SplitMix64 rng{seed};
  Writer out(path);
  const int64_t kStart2024 = 19723;  // days from 1970-01-01 to 2024-01-01
  const uint64_t kSecondsIn2024 = 366ull * 86400;
  char line[160];
  char word[24];
  for (uint64_t a = 1; a <= rows; ++a) {
    const uint64_t b = rng.Below(100000);
    const uint64_t c = rng.Below(10000000000ull);  // c / 10^4
    const unsigned len = 4 + static_cast<unsigned>(rng.Below(17));
    for (unsigned i = 0; i < len; ++i) word[i] = static_cast<char>('a' + rng.Below(26));
    word[len] = 0;
    const uint64_t secs = rng.Below(kSecondsIn2024);
    int y;
    unsigned mo, d;
    CivilFromDays(kStart2024 + static_cast<int64_t>(secs / 86400), &y, &mo, &d);
    const unsigned sod = static_cast<unsigned>(secs % 86400);
    const int n = std::snprintf(line, sizeof line,
                                "%llu,%llu,%llu.%04llu,%s,%04d-%02u-%02u %02u:%02u:%02u\n",
                                static_cast<unsigned long long>(a),
                                static_cast<unsigned long long>(b),
                                static_cast<unsigned long long>(c / 10000),
                                static_cast<unsigned long long>(c % 10000), word, y, mo, d,
                                sod / 3600, sod / 60 % 60, sod % 60);
    out.Append(line, static_cast<size_t>(n));
  }
  return 0;
}

int GenU(uint64_t rows, uint64_t seed, const char* path) {
  SplitMix64 rng{seed ^ 0x5555555555555555ull};
  Writer out(path);
  char line[96];
  for (uint64_t k = 0; k < rows; ++k) {
    const uint64_t w = rng.Below(10000);  // w / 100
    const int n = std::snprintf(line, sizeof line, "%llu,%llu.%02llu,name_%llu\n",
                                static_cast<unsigned long long>(k),
                                static_cast<unsigned long long>(w / 100),
                                static_cast<unsigned long long>(w % 100),
                                static_cast<unsigned long long>(k));
    out.Append(line, static_cast<size_t>(n));
  }
  return 0;
}

volatile sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

bool ReadFile(const std::string& path, std::string* out) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return false;
  char buf[4096];
  out->clear();
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
  std::fclose(f);
  return true;
}

// Parent pid and comm from /proc/PID/stat; false if the process is gone.
bool ParentOf(long pid, long* ppid, std::string* comm) {
  std::string s;
  if (!ReadFile("/proc/" + std::to_string(pid) + "/stat", &s)) return false;
  const size_t open = s.find('(');
  const size_t close = s.rfind(')');
  if (open == std::string::npos || close == std::string::npos) return false;
  *comm = s.substr(open + 1, close - open - 1);
  // after ") " comes the state, then the ppid
  char state;
  return std::sscanf(s.c_str() + close + 1, " %c %ld", &state, ppid) == 2;
}

long HwmKb(long pid) {
  std::string s;
  if (!ReadFile("/proc/" + std::to_string(pid) + "/status", &s)) return -1;
  const size_t p = s.find("VmHWM:");
  if (p == std::string::npos) return -1;
  return std::strtol(s.c_str() + p + 6, nullptr, 10);
}

// ROOT and its direct children, with their comm. Uses
// /proc/ROOT/task/ROOT/children (cheap; the children of ROOT's main thread,
// which is every child of PostgreSQL's single-threaded postmaster) when the
// kernel has it, else scans /proc.
std::vector<std::pair<long, std::string>> Tree(long root) {
  std::vector<std::pair<long, std::string>> result;
  std::string children;
  const std::string r = std::to_string(root);
  if (ReadFile("/proc/" + r + "/task/" + r + "/children", &children)) {
    long ppid;
    std::string comm;
    if (ParentOf(root, &ppid, &comm)) result.emplace_back(root, comm);
    const char* p = children.c_str();
    char* end;
    for (long pid; (pid = std::strtol(p, &end, 10)), end != p; p = end)
      if (ParentOf(pid, &ppid, &comm)) result.emplace_back(pid, comm);
    return result;
  }
  DIR* dir = opendir("/proc");
  if (!dir) return result;
  while (dirent* e = readdir(dir)) {
    char* end;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (*end != 0 || pid <= 0) continue;
    long ppid;
    std::string comm;
    if (!ParentOf(pid, &ppid, &comm)) continue;
    if (pid == root || ppid == root) result.emplace_back(pid, comm);
  }
  closedir(dir);
  return result;
}

int Sample(long root, long interval_ms, const char* out_path) {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSignal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  bool reset_ok = true;
  for (const auto& [pid, comm] : Tree(root)) {
    FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/clear_refs").c_str(), "w");
    if (!f || std::fputs("5", f) < 0 || std::fclose(f) != 0) reset_ok = false;
  }
  struct Seen {
    std::string comm;
    long hwm_kb;
  };
  std::map<long, Seen> seen;
  auto poll = [&] {
    for (const auto& [pid, comm] : Tree(root)) {
      const long hwm = HwmKb(pid);
      if (hwm < 0) continue;
      auto& s = seen[pid];
      s.comm = comm;
      if (hwm > s.hwm_kb) s.hwm_kb = hwm;
    }
  };
  // Tell the caller we have reset and started.
  std::printf("ready\n");
  std::fflush(stdout);
  while (!g_stop) {
    poll();
    usleep(static_cast<useconds_t>(interval_ms * 1000));
  }
  poll();
  long max_kb = 0, sum_kb = 0;
  for (const auto& [pid, s] : seen) {
    if (s.hwm_kb > max_kb) max_kb = s.hwm_kb;
    sum_kb += s.hwm_kb;
  }
  FILE* out = std::fopen(out_path, "w");
  if (!out) {
    std::perror(out_path);
    return 1;
  }
  std::fprintf(out, "max_kb %ld\nsum_kb %ld\nprocs %zu\nreset %s\n", max_kb, sum_kb, seen.size(),
               reset_ok ? "ok" : "failed");
  for (const auto& [pid, s] : seen) std::fprintf(out, "proc %ld %s %ld\n", pid, s.comm.c_str(), s.hwm_kb);
  std::fclose(out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "gen-t") == 0)
    return GenT(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10), argv[4]);
  if (argc == 5 && std::strcmp(argv[1], "gen-u") == 0)
    return GenU(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10), argv[4]);
  if (argc == 5 && std::strcmp(argv[1], "sample") == 0)
    return Sample(std::strtol(argv[2], nullptr, 10), std::strtol(argv[3], nullptr, 10), argv[4]);
  std::fprintf(stderr,
               "usage: benchtool gen-t ROWS SEED FILE | gen-u ROWS SEED FILE |"
               " sample ROOT_PID INTERVAL_MS OUT_FILE\n");
  return 1;
}
