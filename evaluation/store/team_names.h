// Team names as people read them on a board. Two names that look alike must not both exist, and a
// name must not hide characters that change how it reads. With ICU:
//   - valid UTF-8, stored in NFC (a name typed with combining accents finds the composed one);
//   - 1 to 64 bytes once normalised; letters, marks, digits, punctuation, symbols and single
//     inner spaces (U+0020); no control, format (U+202E, U+200B...), private-use, unassigned or
//     line/paragraph separator characters, no other spaces, none leading or trailing;
//   - two names collide when their NFKC case-folded forms are equal ("ALPHA", "ａｌｐｈａ" and
//     "alpha" are one name).
#pragma once

#include <string>

namespace graphcost {

// The name as stored (NFC), or InputError naming the rule the name breaks.
std::string normalized_team_name(const std::string& name);

// The form two names collide on (NFKC case-folded), of a name normalized_team_name accepts.
std::string team_name_key(const std::string& normalized_name);

}  // namespace graphcost
