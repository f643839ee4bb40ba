#include "spaces/restriction_expression.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "common/input_error.h"
#include "common/internal_error.h"
#include "spaces/expression_node.h"

namespace graphcost {

ExpressionValue ExpressionValue::of_int(int64_t v) {
  ExpressionValue value;
  value.integer = v;
  return value;
}
ExpressionValue ExpressionValue::of_float(double v) {
  ExpressionValue value;
  value.kind = Kind::Float;
  value.real = v;
  return value;
}
ExpressionValue ExpressionValue::of_string(std::string v) {
  ExpressionValue value;
  value.kind = Kind::String;
  value.text = std::move(v);
  return value;
}
bool ExpressionValue::truthy() const {
  switch (kind) {
    case Kind::Int:
      return integer != 0;
    case Kind::Float:
      return real != 0;
    case Kind::String:
      return !text.empty();
    case Kind::List:
      return !items.empty();
  }
  return false;
}
double ExpressionValue::number() const {
  check_invariant(kind == Kind::Int || kind == Kind::Float, "ExpressionValue::number of a number");
  return kind == Kind::Int ? static_cast<double>(integer) : real;
}

namespace {

using Node = ExpressionNode;
using NodePtr = std::unique_ptr<ExpressionNode>;
constexpr int kMaxDepth = 64;        // nesting a parse may reach: no stack overflow from a file
constexpr size_t kMaxTokens = 4096;  // so a left-deep chain (a+b+c...) stays shallow enough to evaluate

struct Token {
  enum class Kind { Number, String, Name, Op, End } kind = Kind::End;
  std::string text;
  int column = 0;
};

std::vector<Token> tokenize(const std::string& text, const std::string& where) {
  std::vector<Token> tokens;
  size_t i = 0;
  const auto fail = [&](const std::string& why) {
    throw InputError(where, "expression", "a Python expression over the parameters",
                     why + " at column " + std::to_string(i + 1) + " of " + excerpt(text));
  };
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token token;
    token.column = static_cast<int>(i) + 1;
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      size_t end = i;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '.' || text[end] == '_' ||
                                   ((text[end] == '+' || text[end] == '-') && (text[end - 1] == 'e' || text[end - 1] == 'E')))) {
        ++end;
      }
      token.kind = Token::Kind::Number;
      token.text = text.substr(i, end - i);
      i = end;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t end = i;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
      token.kind = Token::Kind::Name;
      token.text = text.substr(i, end - i);
      i = end;
    } else if (c == '"' || c == '\'') {
      const size_t end = text.find(c, i + 1);
      if (end == std::string::npos) fail("an unclosed string");
      token.kind = Token::Kind::String;
      token.text = text.substr(i + 1, end - i - 1);
      i = end + 1;
    } else {
      static const char* const kOps[] = {"**", "//", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "<", ">", "(", ")", "[", "]", ","};
      token.kind = Token::Kind::Op;
      for (const char* op : kOps) {
        if (text.compare(i, std::char_traits<char>::length(op), op) == 0) {
          token.text = op;
          break;
        }
      }
      if (token.text.empty()) fail(std::string("'") + c + "' (not part of the expressions graphcost reads)");
      i += token.text.size();
    }
    tokens.push_back(token);
    if (tokens.size() > kMaxTokens) fail("more than " + std::to_string(kMaxTokens) + " tokens");
  }
  Token end;
  end.column = static_cast<int>(text.size()) + 1;
  tokens.push_back(end);
  return tokens;
}

class Parser {
 public:
  Parser(const std::string& text, const std::vector<std::string>& names, const std::string& where)
      : text_(text), names_(names), where_(where), tokens_(tokenize(text, where)) {}

  NodePtr parse() {
    NodePtr root = expression();
    if (peek().kind != Token::Kind::End) fail("unexpected '" + peek().text + "'");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(where_, "expression", "a Python expression over the parameters",
                     why + " at column " + std::to_string(peek().column) + " of " + excerpt(text_));
  }
  const Token& peek() const { return tokens_[position_]; }
  bool accept_op(const char* op) {
    if (peek().kind == Token::Kind::Op && peek().text == op) return ++position_, true;
    return false;
  }
  bool accept_word(const char* word) {
    if (peek().kind == Token::Kind::Name && peek().text == word) return ++position_, true;
    return false;
  }
  void expect_op(const char* op) {
    if (!accept_op(op)) fail(std::string("expected '") + op + "'");
  }
  NodePtr make(Node::Op op, int column) {
    auto node = std::make_unique<Node>();
    node->op = op;
    node->column = column;
    return node;
  }
  NodePtr binary(Node::Op op, NodePtr left, NodePtr right) {
    NodePtr node = make(op, left->column);
    node->operands.push_back(std::move(left));
    node->operands.push_back(std::move(right));
    return node;
  }
  struct Depth {
    explicit Depth(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxDepth) parser.fail("nesting deeper than " + std::to_string(kMaxDepth));
    }
    ~Depth() { --parser.depth_; }
    Parser& parser;
  };

  NodePtr expression() {
    Depth depth(*this);
    NodePtr left = conjunction();
    while (accept_word("or")) left = binary(Node::Op::Or, std::move(left), conjunction());
    return left;
  }
  NodePtr conjunction() {
    NodePtr left = negation();
    while (accept_word("and")) left = binary(Node::Op::And, std::move(left), negation());
    return left;
  }
  NodePtr negation() {
    const int column = peek().column;
    if (accept_word("not")) {
      Depth depth(*this);
      NodePtr node = make(Node::Op::Not, column);
      node->operands.push_back(negation());
      return node;
    }
    return comparison();
  }
  NodePtr comparison() {
    NodePtr first = sum();
    NodePtr node;
    for (;;) {
      std::string op;
      static const char* const kComparisons[] = {"<=", ">=", "==", "!=", "<", ">"};
      for (const char* c : kComparisons) {
        if (op.empty() && accept_op(c)) op = c;
      }
      if (op.empty() && accept_word("in")) op = "in";
      if (op.empty() && peek().kind == Token::Kind::Name && peek().text == "not" && tokens_[position_ + 1].text == "in") {
        position_ += 2;
        op = "not in";
      }
      if (op.empty()) break;
      if (!node) {
        node = make(Node::Op::Compare, first->column);
        node->operands.push_back(std::move(first));
      }
      node->comparisons.push_back(op);
      node->operands.push_back(sum());
    }
    return node ? std::move(node) : std::move(first);
  }
  NodePtr sum() {
    NodePtr left = product();
    for (;;) {
      if (accept_op("+")) {
        left = binary(Node::Op::Add, std::move(left), product());
      } else if (accept_op("-")) {
        left = binary(Node::Op::Sub, std::move(left), product());
      } else {
        return left;
      }
    }
  }
  NodePtr product() {
    NodePtr left = unary();
    for (;;) {
      if (accept_op("*")) {
        left = binary(Node::Op::Mul, std::move(left), unary());
      } else if (accept_op("//")) {
        left = binary(Node::Op::FloorDiv, std::move(left), unary());
      } else if (accept_op("/")) {
        left = binary(Node::Op::Div, std::move(left), unary());
      } else if (accept_op("%")) {
        left = binary(Node::Op::Mod, std::move(left), unary());
      } else {
        return left;
      }
    }
  }
  NodePtr unary() {
    const int column = peek().column;
    if (accept_op("-")) {
      Depth depth(*this);
      NodePtr node = make(Node::Op::Neg, column);
      node->operands.push_back(unary());
      return node;
    }
    if (accept_op("+")) {
      Depth depth(*this);
      return unary();
    }
    NodePtr base = atom();
    if (accept_op("**")) return binary(Node::Op::Pow, std::move(base), unary());
    return base;
  }
  NodePtr atom();
  NodePtr number(const Token& token);

  const std::string& text_;
  const std::vector<std::string>& names_;
  const std::string& where_;
  std::vector<Token> tokens_;
  size_t position_ = 0;
  int depth_ = 0;
};

NodePtr Parser::number(const Token& token) {
  NodePtr node = make(Node::Op::Literal, token.column);
  const bool real = token.text.find_first_of(".eE") != std::string::npos && token.text.rfind("0x", 0) != 0;
  try {
    size_t used = 0;
    const bool hex = token.text.size() > 2 && token.text[0] == '0' && (token.text[1] == 'x' || token.text[1] == 'X');
    if (!real && !hex && token.text.size() > 1 && token.text[0] == '0' && token.text.find_first_not_of('0') != std::string::npos) {
      fail("a decimal with a leading zero " + excerpt(token.text, 60) + " (Python refuses it)");
    }
    if (real) {
      node->literal = ExpressionValue::of_float(std::stod(token.text, &used));
    } else {
      node->literal = ExpressionValue::of_int(std::stoll(token.text, &used, hex ? 16 : 10));
    }
    if (used != token.text.size()) fail("a malformed number '" + token.text + "'");
  } catch (const std::logic_error&) {  // invalid_argument, out_of_range
    fail("a number out of range '" + token.text + "'");
  }
  return node;
}

NodePtr Parser::atom() {
  Depth depth(*this);
  const Token token = peek();
  if (token.kind == Token::Kind::Number) {
    ++position_;
    return number(token);
  }
  if (token.kind == Token::Kind::String) {
    ++position_;
    NodePtr node = make(Node::Op::Literal, token.column);
    node->literal = ExpressionValue::of_string(token.text);
    return node;
  }
  if (accept_op("(")) {
    NodePtr inner = expression();
    expect_op(")");
    return inner;
  }
  if (accept_op("[")) {
    int brackets = 1;  // a comprehension is refused by name before its loop variable is taken for a parameter
    for (size_t k = position_; k < tokens_.size() && brackets > 0; ++k) {
      if (tokens_[k].kind == Token::Kind::Op) brackets += tokens_[k].text == "[" ? 1 : tokens_[k].text == "]" ? -1 : 0;
      if (brackets == 1 && tokens_[k].kind == Token::Kind::Name && tokens_[k].text == "for")
        fail("a comprehension (write the values as a list)");
    }
    NodePtr node = make(Node::Op::List, token.column);
    while (!accept_op("]")) {
      if (!node->operands.empty()) expect_op(",");
      if (accept_op("]")) break;  // a trailing comma
      node->operands.push_back(expression());
    }
    return node;
  }
  if (token.kind != Token::Kind::Name)
    fail(token.kind == Token::Kind::End ? "the expression ends early" : "unexpected '" + token.text + "'");
  ++position_;
  if (token.text == "True" || token.text == "False") {
    NodePtr node = make(Node::Op::Literal, token.column);
    node->literal = ExpressionValue::of_int(token.text == "True" ? 1 : 0);
    return node;
  }
  if (accept_op("(")) {
    static const char* const kFunctions[] = {"range", "list", "len", "min", "max", "abs", "int", "float"};
    bool known = false;
    for (const char* f : kFunctions) known = known || token.text == f;
    if (!known) fail("a call of " + excerpt(token.text, 60) + " (graphcost reads range, list, len, min, max, abs, int, float)");
    NodePtr node = make(Node::Op::Call, token.column);
    node->function = token.text;
    while (!accept_op(")")) {
      if (!node->operands.empty()) expect_op(",");
      node->operands.push_back(expression());
    }
    return node;
  }
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == token.text) {
      NodePtr node = make(Node::Op::Name, token.column);
      node->name = static_cast<int>(i);
      return node;
    }
  }
  fail("the unknown name " + excerpt(token.text, 60) + " (not a parameter of the space)");
}

}  // namespace

RestrictionExpression::RestrictionExpression(const std::string& text, const std::vector<std::string>& names, const std::string& where)
    : text_(text), where_(where) {
  Parser parser(text_, names, where_);
  root_ = parser.parse();
}
RestrictionExpression::~RestrictionExpression() = default;
RestrictionExpression::RestrictionExpression(RestrictionExpression&&) noexcept = default;
RestrictionExpression& RestrictionExpression::operator=(RestrictionExpression&&) noexcept = default;

}  // namespace graphcost
