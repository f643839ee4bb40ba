#include "store/team_tokens.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "common/internal_error.h"

namespace graphcost {
namespace {

std::string hex(const unsigned char* bytes, size_t count) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < count; ++i) text += kDigits[bytes[i] >> 4], text += kDigits[bytes[i] & 15];
  return text;
}

std::string random_bytes(size_t count) {
  std::string bytes(count, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(count)) != 1) {
    throw InternalError("OpenSSL RAND_bytes failed");
  }
  return bytes;
}

}  // namespace

std::string new_token_secret() { return hex(reinterpret_cast<const unsigned char*>(random_bytes(16).data()), 16); }

std::string new_token_salt() { return random_bytes(16); }

std::string token_hash(const std::string& salt, const std::string& secret) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  const bool ok = context != nullptr && EVP_DigestInit_ex(context, EVP_sha256(), nullptr) == 1 &&
                  EVP_DigestUpdate(context, salt.data(), salt.size()) == 1 &&
                  EVP_DigestUpdate(context, secret.data(), secret.size()) == 1 && EVP_DigestFinal_ex(context, digest, &length) == 1;
  EVP_MD_CTX_free(context);
  if (!ok) throw InternalError("OpenSSL SHA-256 failed");
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string format_token(int64_t id, const std::string& secret) { return "gc_" + std::to_string(id) + "_" + secret; }

std::optional<TokenParts> parse_token(const std::string& token) {
  // gc_<id>_<32 hex digits>
  if (token.size() < 3 + 1 + 1 + 32 || token.compare(0, 3, "gc_") != 0) return std::nullopt;
  const size_t separator = token.find('_', 3);
  if (separator == std::string::npos || separator == 3 || separator > 3 + 18 || token.size() - separator - 1 != 32) return std::nullopt;
  if (token[3] == '0') return std::nullopt;  // ids are written without leading zeros: one token, one spelling
  TokenParts parts;
  for (size_t i = 3; i < separator; ++i) {
    if (token[i] < '0' || token[i] > '9') return std::nullopt;
    parts.id = parts.id * 10 + (token[i] - '0');
  }
  parts.secret = token.substr(separator + 1);
  return parts;
}

bool same_token_hash(const std::string& expected, const std::string& actual) {
  return expected.size() == actual.size() && CRYPTO_memcmp(expected.data(), actual.data(), actual.size()) == 0;
}

}  // namespace graphcost
