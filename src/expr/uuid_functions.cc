// uuid builders: gen_random_uuid() (PostgreSQL's own) and the functions of
// the uuid-ossp extension, which frameworks call by habit (TypeORM's
// default for generated uuid keys is uuid_generate_v4()): they are built
// in, and CREATE EXTENSION IF NOT EXISTS "uuid-ossp" is accepted with a
// notice (frontend/handler/extension.cc).
//
//   uuid_generate_v1(), uuid_generate_v1mc()  time-based (version 1): the
//       time in 100 ns steps since 1582-10-15, a clock sequence and a node.
//       The node is a random multicast address chosen at start (RFC 4122
//       section 4.5) for both: a server does not publish its MAC address.
//   uuid_generate_v3(ns, name), uuid_generate_v5(ns, name)  name-based:
//       MD5 / SHA-1 of the namespace's 16 bytes and the name.
//   uuid_generate_v4()  random.
//   uuid_nil(), uuid_ns_dns(), uuid_ns_url(), uuid_ns_oid(), uuid_ns_x500()

#include <openssl/evp.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <random>

#include "common/uuid.h"
#include "expr/function_helpers.h"

namespace freshet {

namespace {

using SV = std::string_view;

// A version 1 uuid: the time stamp is strictly increasing within the
// process (a clock that stands still or steps back moves it one tick on),
// so two calls never return the same value.
std::string TimeUuid() {
  static std::mutex mu;
  static uint64_t last = 0;
  static uint16_t clock_sequence = 0;
  static unsigned char node[6];
  static std::once_flag chosen;
  std::call_once(chosen, [] {
    std::random_device rd;
    std::mt19937_64 rng{rd()};
    uint64_t r = rng();
    std::memcpy(node, &r, sizeof(node));
    node[0] |= 0x01;  // the multicast bit: not a real interface's address
    clock_sequence = static_cast<uint16_t>(rng());
  });
  // 100 ns steps between 1582-10-15 (the Gregorian reform) and 1970-01-01.
  constexpr uint64_t kGregorianToUnix = 0x01B21DD213814000ULL;
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  uint64_t now = kGregorianToUnix + static_cast<uint64_t>(
                                        std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count() / 100);
  {
    std::lock_guard lock(mu);
    if (now <= last) now = last + 1;
    last = now;
  }
  unsigned char bytes[16];
  const uint32_t time_low = static_cast<uint32_t>(now);
  const uint16_t time_mid = static_cast<uint16_t>(now >> 32);
  const uint16_t time_high = static_cast<uint16_t>(now >> 48);
  bytes[0] = static_cast<unsigned char>(time_low >> 24);
  bytes[1] = static_cast<unsigned char>(time_low >> 16);
  bytes[2] = static_cast<unsigned char>(time_low >> 8);
  bytes[3] = static_cast<unsigned char>(time_low);
  bytes[4] = static_cast<unsigned char>(time_mid >> 8);
  bytes[5] = static_cast<unsigned char>(time_mid);
  bytes[6] = static_cast<unsigned char>(time_high >> 8);
  bytes[7] = static_cast<unsigned char>(time_high);
  bytes[8] = static_cast<unsigned char>(clock_sequence >> 8);
  bytes[9] = static_cast<unsigned char>(clock_sequence);
  std::memcpy(bytes + 10, node, sizeof(node));
  return VersionedUuid(bytes, 1);
}

// A name-based uuid: the digest of the namespace's bytes and the name.
std::string NameUuid(SV name_space, SV name, const EVP_MD* digest, int version) {
  const std::string ns = UuidToBytes(name_space);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestInit_ex(md.get(), digest, nullptr);
  EVP_DigestUpdate(md.get(), ns.data(), ns.size());
  EVP_DigestUpdate(md.get(), name.data(), name.size());
  EVP_DigestFinal_ex(md.get(), out, &len);
  return VersionedUuid(out, version);
}

void RegisterConstant(FunctionRegistry* r, const char* name, const char* value) {
  RegisterFn(r, name, {}, DataType::Uuid(), [value](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
    for (size_t i = 0; i < n; i++) out->AppendString(value);
  });
}

}  // namespace

void RegisterUuidFunctions(FunctionRegistry* r) {
  const DataType uuid = DataType::Uuid();
  for (const char* random : {"gen_random_uuid", "uuid_generate_v4"})
    RegisterFn(r, random, {}, uuid, [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
      for (size_t i = 0; i < n; i++) out->AppendString(RandomUuid());
    });
  for (const char* time_based : {"uuid_generate_v1", "uuid_generate_v1mc"})
    RegisterFn(r, time_based, {}, uuid, [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
      for (size_t i = 0; i < n; i++) out->AppendString(TimeUuid());
    });
  RegisterFn(r, "uuid_generate_v3", {uuid, DataType::Text()}, uuid,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
               ExecuteStrict<SV, SV>(args, n, out, [](SV ns, SV name) { return NameUuid(ns, name, EVP_md5(), 3); });
             });
  RegisterFn(r, "uuid_generate_v5", {uuid, DataType::Text()}, uuid,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
               ExecuteStrict<SV, SV>(args, n, out, [](SV ns, SV name) { return NameUuid(ns, name, EVP_sha1(), 5); });
             });
  RegisterConstant(r, "uuid_nil", "00000000-0000-0000-0000-000000000000");
  RegisterConstant(r, "uuid_ns_dns", "6ba7b810-9dad-11d1-80b4-00c04fd430c8");
  RegisterConstant(r, "uuid_ns_url", "6ba7b811-9dad-11d1-80b4-00c04fd430c8");
  RegisterConstant(r, "uuid_ns_oid", "6ba7b812-9dad-11d1-80b4-00c04fd430c8");
  RegisterConstant(r, "uuid_ns_x500", "6ba7b814-9dad-11d1-80b4-00c04fd430c8");
}

}  // namespace freshet
