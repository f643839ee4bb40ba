// Team tokens of a live competition (competition_store.h): "gc_<token id>_<32 hex digits>",
// shown once when created. The store keeps only a random salt and SHA-256(salt || secret); a check
// recomputes the hash and compares in constant time (OpenSSL's libcrypto).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace graphcost {

// A new secret: 16 random bytes as 32 lowercase hex digits.
std::string new_token_secret();
// A new salt: 16 random bytes.
std::string new_token_salt();
// SHA-256(salt || secret), the 32 bytes stored.
std::string token_hash(const std::string& salt, const std::string& secret);
// "gc_<id>_<secret>".
std::string format_token(int64_t id, const std::string& secret);

struct TokenParts {
  int64_t id = 0;
  std::string secret;
};
// The id and secret of a well-formed token; nothing for anything else (another prefix, an id with
// a leading zero or of more than 18 digits, a secret of other than 32 characters).
std::optional<TokenParts> parse_token(const std::string& token);
// Equal hashes, compared in time independent of where they differ.
bool same_token_hash(const std::string& expected, const std::string& actual);

}  // namespace graphcost
