#include "store/team_names.h"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <vector>

#include "common/input_error.h"
#include "common/internal_error.h"

namespace graphcost {
namespace {

[[noreturn]] void refuse(const std::string& expected, const std::string& name) {
  throw InputError("", "team name", expected, "'" + printable(name) + "'");
}

std::u16string utf16_of(const std::string& utf8, const std::string& name) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t length = 0;
  u_strFromUTF8(nullptr, 0, &length, utf8.data(), static_cast<int32_t>(utf8.size()), &status);
  if (status != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(status)) refuse("valid UTF-8", name);
  std::u16string text(static_cast<size_t>(length), u'\0');
  status = U_ZERO_ERROR;
  u_strFromUTF8(reinterpret_cast<UChar*>(text.data()), length, nullptr, utf8.data(), static_cast<int32_t>(utf8.size()), &status);
  if (U_FAILURE(status)) refuse("valid UTF-8", name);
  return text;
}

std::string utf8_of(const std::u16string& text) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t length = 0;
  u_strToUTF8(nullptr, 0, &length, reinterpret_cast<const UChar*>(text.data()), static_cast<int32_t>(text.size()), &status);
  std::string utf8(static_cast<size_t>(length), '\0');
  status = U_ZERO_ERROR;
  u_strToUTF8(utf8.data(), length, nullptr, reinterpret_cast<const UChar*>(text.data()), static_cast<int32_t>(text.size()), &status);
  if (U_FAILURE(status)) throw InternalError(std::string("ICU: ") + u_errorName(status));
  return utf8;
}

std::u16string normalized(const UNormalizer2* normalizer, const std::u16string& text) {
  UErrorCode status = U_ZERO_ERROR;
  std::u16string out(text.size() * 4 + 16, u'\0');  // NFKC-casefold expands a code unit to at most a few
  const int32_t length = unorm2_normalize(normalizer, reinterpret_cast<const UChar*>(text.data()), static_cast<int32_t>(text.size()),
                                          reinterpret_cast<UChar*>(out.data()), static_cast<int32_t>(out.size()), &status);
  if (U_FAILURE(status)) throw InternalError(std::string("ICU: ") + u_errorName(status));
  out.resize(static_cast<size_t>(length));
  return out;
}

const UNormalizer2* nfc() {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* normalizer = unorm2_getNFCInstance(&status);
  if (U_FAILURE(status)) throw InternalError(std::string("ICU NFC: ") + u_errorName(status));
  return normalizer;
}

// Characters that are invisible, reorder text, or are not characters yet.
bool hidden(UChar32 c) {
  switch (u_charType(c)) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
      return true;
    case U_SPACE_SEPARATOR:
      return c != u' ';
    default:
      return u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) != 0;  // U+115F, U+3164 (Hangul fillers)...
  }
}

}  // namespace

std::string normalized_team_name(const std::string& name) {
  const std::u16string text = normalized(nfc(), utf16_of(name, name));
  const std::string stored = utf8_of(text);
  if (stored.empty() || stored.size() > 64) throw InputError("", "team name", "1 to 64 bytes", std::to_string(stored.size()) + " bytes");
  UChar32 previous = 0;
  for (size_t i = 0; i < text.size();) {
    UChar32 c;
    U16_NEXT(text.data(), i, text.size(), c);
    if (hidden(c)) refuse("visible characters (no control, format, invisible or unassigned ones, no spaces but U+0020)", name);
    if (c == u' ' && (previous == 0 || previous == u' ')) refuse("no leading space and no two spaces in a row", name);
    previous = c;
  }
  if (previous == u' ') refuse("no trailing space", name);
  return stored;
}

std::string team_name_key(const std::string& normalized_name) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* folding = unorm2_getNFKCCasefoldInstance(&status);
  if (U_FAILURE(status)) throw InternalError(std::string("ICU NFKC_Casefold: ") + u_errorName(status));
  return utf8_of(normalized(folding, utf16_of(normalized_name, normalized_name)));
}

}  // namespace graphcost
