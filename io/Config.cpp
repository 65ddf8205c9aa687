#include "io/Config.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>
#include <utility>

#include "core/Error.hpp"
#include "core/Text.hpp"
#include "core/Vector3.hpp"
#include "io/ConfigSchema.hpp"
#include "solver/Wavenumbers.hpp"

namespace kolmo::io {

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Messages and number text

// Every message is one line: "where: key: what is wrong".
[[noreturn]] void fail_at(const std::string& where, std::string_view path, const std::string& message) {
  std::string line = where + ": " + std::string(path) + ": " + message;
  std::replace(line.begin(), line.end(), '\n', ' ');
  throw Error(line);
}

const SchemaKey& key_of(std::string_view path) {
  const SchemaKey* key = find_key(path);
  if (key == nullptr)
    throw Error("internal: configuration key " + std::string(path) + " is not in the schema");
  return *key;
}

// A YAML value as the user wrote it, quoted: 'abc', '[64, 64]'.
std::string shown(const YAML::Node& node) {
  YAML::Emitter emitter;
  emitter.SetSeqFormat(YAML::Flow);
  emitter.SetMapFormat(YAML::Flow);
  emitter << node;
  std::string text = emitter.c_str();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return "'" + text + "'";
}

// A number for a YAML file: with a decimal point even when whole, so that it reads as a real number.
std::string real_text(double x) {
  std::string text = exact_text(x);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

// The whole of text read as a double into x (a leading + allowed): std::errc() when it is one,
// result_out_of_range when it is a number past what a double holds (1e400, 1e-400), else invalid_argument.
std::errc read_double(std::string_view text, double& x) {
  if (text.starts_with('+')) text.remove_prefix(1);
  const auto result = std::from_chars(text.data(), text.data() + text.size(), x);
  if (text.empty() || result.ptr != text.data() + text.size()) return std::errc::invalid_argument;
  return result.ec;
}

std::optional<double> parse_real(std::string_view text) {
  double x = 0;
  if (read_double(text, x) != std::errc() || !std::isfinite(x)) return std::nullopt;
  return x;
}

std::optional<long> parse_integer(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);
  long n = 0;
  auto result = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size())
    return std::nullopt;
  return n;
}

// A length: a number, or a multiple of pi written "pi", "2pi", "2*pi", "0.5 * pi".
std::optional<double> parse_length(std::string_view text) {
  if (!text.ends_with("pi")) return parse_real(text);
  std::string factor;
  for (char c : text.substr(0, text.size() - 2))
    if (c != ' ') factor += c;
  if (factor.ends_with('*')) factor.pop_back();
  if (factor.empty()) return std::numbers::pi;
  auto value = parse_real(factor);
  if (!value) return std::nullopt;
  return *value * std::numbers::pi;
}

// Written so that parse_length reads back the same double: small multiples of pi as "2pi".
std::string length_text(double x) {
  for (int multiple = 1; multiple <= 16; ++multiple)
    if (x == multiple * std::numbers::pi) return multiple == 1 ? "pi" : std::to_string(multiple) + "pi";
  return real_text(x);
}

// ---------------------------------------------------------------------------------------------------------------
// Suggestions for unknown keys

// Edit distance counting a swap of neighbours as one edit (optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t change = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + change});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string_view leaf_of(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

// " (did you mean physics.viscosity?)" for a close key or section, or a key of the same name elsewhere.
std::string suggestion(std::string_view given) {
  const std::string normal = schema_path(given);
  const std::string_view path = normal;
  std::vector<std::string> candidates;
  for (const SchemaKey& key : schema()) {
    for (auto dot = key.path.find('.'); dot != std::string_view::npos; dot = key.path.find('.', dot + 1))
      candidates.emplace_back(key.path.substr(0, dot));
    candidates.emplace_back(key.path);
  }
  const std::size_t allowed_edits = path.size() <= 4 ? 1 : path.size() <= 8 ? 2 : 3;
  std::string best;
  std::size_t best_distance = allowed_edits + 1;
  for (const std::string& candidate : candidates) {
    // The lengths' difference bounds the distance from below: a name far longer than any key (a million
    // characters) is not compared, which took minutes.
    if (std::max(path.size(), candidate.size()) - std::min(path.size(), candidate.size()) > allowed_edits)
      continue;
    const std::size_t distance = edit_distance(path, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (best.empty())
    for (const SchemaKey& key : schema())
      if (leaf_of(key.path) == leaf_of(path)) best = key.path;
  return best.empty() ? "" : " (did you mean " + best + "?)";
}

// ---------------------------------------------------------------------------------------------------------------
// Collecting the values given in the file and on the command line

// One value and where it came from: "runs/x.yaml:12" or "--set time.dt=0.1".
struct Value {
  YAML::Node node;
  std::string where;
  std::string path;  // as given ("physics.scalars[1].name"); empty for a default
};
using Values = std::map<std::string, Value, std::less<>>;

struct Origin {
  std::string source;  // the file, or the --set text
  bool is_file;        // file values carry their line and may not repeat
};

// " (grid.n from --set grid.n=8; grid.box from the default)": where each of keys came from, from(key) giving
// its where ("" for a key not given); one given where own is (the where that the message opens with, for the
// key it checks) came "from the same line" or "from the same --set". "" for no keys.
template <class From>
std::string sources_of(const std::vector<std::string>& keys, std::string_view own, From from) {
  std::string text;
  for (const std::string& key : keys) {
    if (key.empty()) continue;
    text += text.empty() ? " (" : "; ";
    text += key;
    const std::string where = from(key);
    if (where.empty()) {
      text += " from the default";
    } else if (where != own) {
      text += " from ";
      text += where;
    } else {
      text += own.starts_with("--set ") ? " from the same --set" : " from the same line";
    }
  }
  return text.empty() ? text : text + ")";
}

// What yaml-cpp says is wrong; for lists or maps nested past its parser's limit it says "bad file".
std::string parser_words(const YAML::Exception& error) {
  if (dynamic_cast<const YAML::DeepRecursion*>(&error) != nullptr)
    return "lists or maps nested too deeply for the parser";
  return error.msg;
}

// YAML text read as one document, and where a second one starts, if any. Not YAML::LoadAll: yaml-cpp 0.7's
// loops forever, allocating gigabytes, on a top-level node followed by a comma ("{grid: {n: 16}},", "'a',"),
// where its parser hands out empty documents without reading on (found by fuzzing the configuration). The
// first document is loaded, and the documents counted to two.
struct OneDocument {
  YAML::Node root;
  std::optional<YAML::Mark> second;       // where the second document starts: its "---", or that comma
  std::optional<YAML::Mark> second_node;  // where its first node is
  // What is wrong: a second document (after ---), or text after the first one's node; of a --set value
  // (in_value) or a file. (By line: the mark's pos and column count characters, not bytes, and skip a BOM.)
  std::string second_text(const std::string& text, bool in_value) const {
    std::size_t start = 0;
    for (int line = 0; line < second->line && start != std::string::npos; ++line) {
      start = text.find('\n', start);
      if (start != std::string::npos) ++start;
    }
    const std::size_t first = start == std::string::npos ? start : text.find_first_not_of(" \t", start);
    if (first != std::string::npos && text.compare(first, 3, "---") == 0)
      return in_value ? "a second YAML document (after ---) in the value"
                      : "a second YAML document (after ---): a configuration file holds one run";
    return std::string(in_value ? "YAML syntax error in the value: " : "YAML syntax error: ") +
           "text after the end of the first node (a comma after its closing bracket, or a line indented less "
           "than the first)";
  }
};

OneDocument load_one_document(const std::string& text) {
  class Starts : public YAML::EventHandler {
   public:
    explicit Starts(OneDocument& result) : result_(result) {}
    void OnDocumentStart(const YAML::Mark& mark) override {
      if (++documents_ == 2) result_.second = mark;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
      node(mark);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
      node(mark);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
      node(mark);
    }
    void OnMapEnd() override {}

   private:
    void node(const YAML::Mark& mark) {
      if (documents_ == 2 && !result_.second_node) result_.second_node = mark;
    }
    OneDocument& result_;
    int documents_ = 0;
  };
  OneDocument result;
  result.root = YAML::Load(text);
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  Starts starts(result);
  for (int document = 0; document < 2 && parser.HandleNextDocument(starts); ++document) {
  }
  return result;
}

std::string join(std::string_view section, std::string_view key) {
  return section.empty() ? std::string(key) : std::string(section) + "." + std::string(key);
}

void collect(const YAML::Node& map, const std::string& section, const Origin& origin, Values& values);

// A list of maps (an item_list key): replaces the list and its items' keys, "<path>[i].<key>".
void set_items(const std::string& path, const YAML::Node& node, const std::string& where,
               const Origin& origin, Values& values) {
  std::erase_if(values, [&](const auto& entry) { return entry.first.starts_with(path + "["); });
  values[path] = Value{node, where, path};
  if (node.IsNull()) return;
  if (!node.IsSequence()) fail_at(where, path, "expected a list of maps, got " + shown(node));
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    if (!node[i].IsMap()) fail_at(where, item, "expected a map of keys, got " + shown(node[i]));
    collect(node[i], item, origin, values);
  }
}

// Adds the keys of the YAML map given for section (the top level when empty) to values, refusing unknown
// ones. A name given twice in one map is refused, in a file or a --set: yaml-cpp keeps both, and a section's
// second keys would join the first's, a key's second value replace the first, without a word.
void collect(const YAML::Node& map, const std::string& section, const Origin& origin, Values& values) {
  std::set<std::string> names;  // the keys and sections of this map so far
  for (const auto& entry : map) {
    const YAML::Node& key_node = entry.first;
    const std::string where =
        origin.is_file ? origin.source + ":" + std::to_string(key_node.Mark().line + 1) : origin.source;
    if (!key_node.IsScalar()) fail_at(where, section.empty() ? "(top level)" : section, "keys must be names");
    const std::string path = join(section, key_node.Scalar());
    const bool repeated = !names.insert(path).second;
    const YAML::Node& node = entry.second;
    if (const SchemaKey* key = find_key(path)) {
      if (repeated || (origin.is_file && values.contains(path))) fail_at(where, path, "given twice");
      if (key->kind == ValueKind::item_list)
        set_items(path, node, where, origin, values);
      else
        values[path] = Value{node, where, path};
    } else if (is_section(path)) {
      // Its keys first, so that one given in both is named where it repeats.
      if (!node.IsNull()) {
        if (!node.IsMap()) fail_at(where, path, "expected a section (a map of keys), got " + shown(node));
        collect(node, path, origin, values);
      }
      if (repeated) fail_at(where, path, "given twice");
    } else {
      fail_at(where, path, "unknown key" + suggestion(path));
    }
  }
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(" \t") - first + 1));
}

// "key.path=value": a key gets the value; a section gets a map merged into it, or is reset by an empty value.
void apply_override(const std::string& text, Values& values) {
  std::string where = "--set " + text;
  std::replace(where.begin(), where.end(), '\n', ' ');  // one line, as every message
  const auto equals = text.find('=');
  const std::string path = trimmed(std::string_view(text).substr(0, equals));
  if (equals == std::string::npos || path.empty()) throw Error(where + ": expected key.path=value");
  YAML::Node node;
  try {
    // A second document would be dropped without a word, as in a file.
    const std::string value = text.substr(equals + 1);
    const OneDocument document = load_one_document(value);
    if (document.second) fail_at(where, path, document.second_text(value, true));
    node = document.root;
  } catch (const YAML::Exception& error) {
    fail_at(where, path, "YAML syntax error in the value: " + parser_words(error));
  }
  if (const SchemaKey* key = find_key(path)) {
    if (key->kind == ValueKind::item_list)
      set_items(path, node, where, Origin{where, false}, values);
    else
      values[path] = Value{node, where, path};
  } else if (is_section(path)) {
    if (node.IsNull()) {
      std::erase_if(values, [&](const auto& entry) { return entry.first.starts_with(path + "."); });
    } else {
      if (!node.IsMap()) fail_at(where, path, "expected a section (a map of keys), got " + shown(node));
      collect(node, path, Origin{where, false}, values);
    }
  } else {
    fail_at(where, path, "unknown key" + suggestion(path));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Converting values to C++ types, with the schema's type and range checks

// The key as the user named it (with its list index), or the schema's path for a default.
std::string_view named(const SchemaKey& key, const Value& value) {
  return value.path.empty() ? key.path : std::string_view(value.path);
}

// A number written past what a double holds (1e400, 1e-400): its own words, not "expected a number".
bool beyond_double(const YAML::Node& node) {
  double x = 0;
  return node.IsScalar() && read_double(trimmed(node.Scalar()), x) == std::errc::result_out_of_range;
}

[[noreturn]] void wrong_type(const SchemaKey& key, const Value& value) {
  std::string expected = expected_text(key.kind);
  if (key.kind == ValueKind::choice) {
    const auto names = choice_names(key);
    expected = "one of ";
    for (std::size_t i = 0; i < names.size(); ++i) expected += (i == 0 ? "" : ", ") + names[i];
  }
  fail_at(value.where, named(key, value), "expected " + expected + ", got " + shown(value.node));
}

void expect_kind(const SchemaKey& key, ValueKind kind) {
  if (key.kind != kind)
    throw Error("internal: configuration key " + std::string(key.path) + " is read as the wrong type");
}

double range_bound(std::string_view text) {
  auto value = parse_real(trimmed(text));
  if (!value) throw Error("internal: bad range in the configuration schema: " + std::string(text));
  return *value;
}

// allowed: "" (any), "> A", ">= A" or "(A, B)".
void check_range(const SchemaKey& key, const Value& value, double x) {
  const std::string_view range = key.allowed;
  if (range.empty()) return;
  bool inside = false;
  if (range.starts_with(">=")) {
    inside = x >= range_bound(range.substr(2));
  } else if (range.starts_with(">")) {
    inside = x > range_bound(range.substr(1));
  } else if (range.starts_with("(") && range.ends_with(")")) {
    const auto comma = range.find(',');
    inside = x > range_bound(range.substr(1, comma - 1)) &&
             x < range_bound(range.substr(comma + 1, range.size() - comma - 2));
  } else {
    throw Error("internal: bad range in the configuration schema: " + std::string(range));
  }
  if (!inside)
    fail_at(value.where, named(key, value),
            "must be " + std::string(range.starts_with("(") ? "in " : "") + std::string(range) + ", got " +
                exact_text(x));
}

template <class Parse>
auto scalar_number(const SchemaKey& key, const Value& value, const YAML::Node& node, Parse parse) {
  auto x = node.IsScalar() ? parse(node.Scalar()) : std::nullopt;
  if (!x && beyond_double(node))
    fail_at(value.where, named(key, value),
            "'" + node.Scalar() + "' is beyond what a double holds (magnitudes from 2.2e-308 to 1.8e308)");
  if (!x) wrong_type(key, value);
  check_range(key, value, static_cast<double>(*x));
  return *x;
}

// One number for all three axes, or a list of three.
template <class T, class Parse>
std::array<T, 3> triple(const SchemaKey& key, const Value& value, Parse parse) {
  const YAML::Node& node = value.node;
  if (node.IsScalar()) {
    const T x = scalar_number(key, value, node, parse);
    return {x, x, x};
  }
  if (!node.IsSequence() || node.size() != 3) wrong_type(key, value);
  std::array<T, 3> result{};
  for (std::size_t d = 0; d < 3; ++d) result[d] = scalar_number(key, value, node[d], parse);
  return result;
}

template <class T>
T convert(const SchemaKey& key, const Value& value) {
  const YAML::Node& node = value.node;
  if constexpr (std::is_same_v<T, double>) {
    expect_kind(key, ValueKind::real);
    return scalar_number(key, value, node, parse_real);
  } else if constexpr (std::is_same_v<T, long>) {
    expect_kind(key, ValueKind::integer);
    return scalar_number(key, value, node, parse_integer);
  } else if constexpr (std::is_same_v<T, bool>) {
    expect_kind(key, ValueKind::boolean);
    std::string text = node.IsScalar() ? node.Scalar() : "";
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    if (text != "true" && text != "false") wrong_type(key, value);
    return text == "true";
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (key.kind != ValueKind::text && key.kind != ValueKind::choice) expect_kind(key, ValueKind::text);
    if (!node.IsScalar()) wrong_type(key, value);
    if (node.Scalar().empty()) fail_at(value.where, named(key, value), "must not be empty");
    return node.Scalar();
  } else if constexpr (std::is_same_v<T, std::array<long, 3>>) {
    expect_kind(key, ValueKind::integer_triple);
    return triple<long>(key, value, parse_integer);
  } else if constexpr (std::is_same_v<T, std::array<double, 3>>) {
    if (key.kind == ValueKind::real_triple) {  // a vector: three numbers, always written out
      if (!node.IsSequence() || node.size() != 3) wrong_type(key, value);
      return triple<double>(key, value, parse_real);
    }
    expect_kind(key, ValueKind::length_triple);
    return triple<double>(key, value, parse_length);
  } else {
    static_assert(std::is_same_v<T, std::vector<std::array<long, 3>>>, "no conversion to this type");
    expect_kind(key, ValueKind::mode_list);
    if (!node.IsSequence()) wrong_type(key, value);
    if (node.size() == 0) fail_at(value.where, named(key, value), "must hold at least one mode");
    T modes;
    for (const YAML::Node& mode : node) {
      if (!mode.IsSequence() || mode.size() != 3) wrong_type(key, value);
      std::array<long, 3> k{};
      for (std::size_t d = 0; d < 3; ++d) {
        auto component = mode[d].IsScalar() ? parse_integer(mode[d].Scalar()) : std::nullopt;
        if (!component) wrong_type(key, value);
        k[d] = *component;
      }
      modes.push_back(k);
    }
    return modes;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading keys: the user's value or the schema's default, remembering which keys were read

class Reader {
 public:
  Reader(Values values, std::string source, StartFrom start)
      : values_(std::move(values)), source_(std::move(source)), start_(start) {}

  // Whether the run reads its initial fields: not when it starts from a checkpoint.
  bool reads_initial_fields() const { return start_ == StartFrom::initial_condition; }

  // The key was given a value (not empty, not ~).
  bool given(std::string_view path) const {
    auto entry = values_.find(path);
    return entry != values_.end() && !entry->second.node.IsNull();
  }
  // Where the key's value came from; for a key of a list's item that was not given, where the list came from
  // (a --set that gave the list, say); the file otherwise.
  std::string where(std::string_view path) const {
    if (given(path)) return values_.find(path)->second.where;
    if (const auto item = path.find('['); item != std::string_view::npos && given(path.substr(0, item)))
      return values_.find(path.substr(0, item))->second.where;
    return source_;
  }
  // A problem with the key at path. A check that involves other keys as well (a value that the grid, the
  // precision or another key's value makes wrong) names them in others: the message then ends with where
  // each of their values came from, "(grid.n from --set grid.n=[64,64,32]; grid.box from the default)", so
  // that a value given elsewhere than path's (a --set, another line) that takes part is seen.
  [[noreturn]] void fail(std::string_view path, const std::string& message,
                         const std::vector<std::string>& others = {}) const {
    fail_at(where(path), path, message + sources(path, others));
  }
  // Where the other keys of a check on path came from, as fail appends it; "" for none.
  std::string sources(std::string_view path, const std::vector<std::string>& others) const {
    std::vector<std::string> keys;
    for (const std::string& other : others)
      if (other != path) keys.push_back(other);
    return sources_of(keys, where(path), [this](const std::string& key) {
      return given(key) ? values_.find(key)->second.where : std::string();
    });
  }
  // Where each key given came from (KeySources).
  KeySources given_sources() const {
    KeySources sources;
    for (const auto& [path, value] : values_)
      if (!value.node.IsNull()) sources.where.emplace(path, value.where);
    return sources;
  }

  // The value, or the default; nothing when the key has neither.
  template <class T>
  std::optional<T> optional(std::string_view path) {
    const SchemaKey& key = key_of(path);
    read_.emplace(path);
    if (given(path)) return convert<T>(key, values_.find(path)->second);
    if (key.default_value.empty() || key.default_value == "~") return std::nullopt;
    return convert<T>(key, Value{YAML::Load(std::string(key.default_value)), source_, ""});
  }
  // The value, or the default; missing is an error (why: what needs it).
  template <class T>
  T get(std::string_view path, const std::string& why = "") {
    auto value = optional<T>(path);
    if (!value) {
      const SchemaKey& key = key_of(path);
      // The key that requires it; not the list that holds an item's key, whose where the message opens with.
      std::string deciding = deciding_key(path);
      if (path.starts_with(deciding + "[")) deciding.clear();
      fail(path,
           "missing: " + (!why.empty()            ? why
                          : key.used_when.empty() ? std::string("required")
                                                  : "required when " + std::string(key.used_when)),
           {deciding});
    }
    return *value;
  }
  // A choice key's value as its index among the allowed names, which is the matching enum value.
  template <class Enum>
  Enum choice(std::string_view path) {
    return static_cast<Enum>(index_of(path, get<std::string>(path)));
  }
  std::string choice_name(std::string_view path) {
    const std::string name = get<std::string>(path);
    index_of(path, name);
    return name;
  }
  template <class Enum>
  std::vector<Enum> choice_list(std::string_view path) {
    const SchemaKey& key = key_of(path);
    expect_kind(key, ValueKind::choice_list);
    Value value = given(path) ? values_.find(path)->second
                              : Value{YAML::Load(std::string(key.default_value)), source_, ""};
    read_.emplace(path);
    if (!value.node.IsSequence()) wrong_type(key, value);
    std::vector<Enum> list;
    for (const YAML::Node& item : value.node) {
      if (!item.IsScalar()) wrong_type(key, value);
      const auto index = index_of(path, item.Scalar());
      if (std::find(list.begin(), list.end(), static_cast<Enum>(index)) != list.end())
        fail(path, "'" + item.Scalar() + "' is listed twice");
      list.push_back(static_cast<Enum>(index));
    }
    return list;
  }

  // The number of items of a list of maps (its keys are then read as "<path>[i].<key>").
  std::size_t items(std::string_view path) {
    expect_kind(key_of(path), ValueKind::item_list);
    read_.emplace(path);
    if (!given(path)) return 0;
    return values_.find(path)->second.node.size();
  }

  // Keys given but never read are keys given where they are not used. The message names the key that
  // decides (its used_when's), and where that one is not read either, the key that decides it, up to one that
  // is read: "initial.amplitude: not used here: only used when initial.type is taylor_green or orszag_tang,
  // and initial.type only when problem is navier_stokes", with where each of them came from.
  void check_all_used() const {
    for (const auto& [path, value] : values_) {
      if (value.node.IsNull() || read_.contains(path)) continue;
      const SchemaKey& key = key_of(path);
      if (key.used_when.empty()) throw Error("internal: configuration key " + path + " was not read");
      std::string message = "not used here: only used when " + std::string(key.used_when);
      std::vector<std::string> deciding{deciding_key(path)};
      while (!read_.contains(deciding.back())) {
        const SchemaKey* above = find_key(deciding.back());
        if (above == nullptr || above->used_when.empty()) break;
        message += ", and " + deciding.back() + " only when " + std::string(above->used_when);
        deciding.push_back(deciding_key(deciding.back()));
      }
      fail(path, message, deciding);
    }
  }

 private:
  std::size_t index_of(std::string_view path, const std::string& name) const {
    const SchemaKey& key = key_of(path);
    const auto names = choice_names(key);
    const auto found = std::find(names.begin(), names.end(), name);
    if (found == names.end()) {
      std::string expected;
      for (std::size_t i = 0; i < names.size(); ++i)
        expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
      fail(path, "unknown value '" + name + "' (expected " + expected + ")");
    }
    return static_cast<std::size_t>(found - names.begin());
  }

  Values values_;
  std::string source_;
  StartFrom start_;
  std::set<std::string, std::less<>> read_;  // the keys read, given or not: those in use
};

// ---------------------------------------------------------------------------------------------------------------
// The sections, with the checks that involve more than one key

// The box's wavenumbers and spacings must be numbers the solver can hold (solver/Wavenumbers.hpp): the unit
// 2 pi / L_d and |k|^2 in the run's precision, squared by the projection, the integrating factor
// exp(-nu k^2 dt) and the spectra, and the spacing L_d / N_d in double, by which the CFL step divides the
// velocity. A box far too small overflows the largest |k|^2 (sum over d of (2 pi / L_d * floor(N_d / 2))^2);
// one far too large underflows the smallest, (2 pi / L_d)^2, by which the projection divides. Neither shows
// before the first step, so both are refused here. Computed in double, and compared so that NaN fails too.
void check_box(Reader& in, const GridConfig& grid, Precision precision) {
  const bool single = precision == Precision::float32;
  const double largest = single ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max(),
               smallest = single ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
  const std::string largest_text = single ? "the largest single-precision number (3.4e38)"
                                          : "the largest double (1.8e308)",
                    smallest_text = single ? "the smallest normal single-precision number (1.2e-38)"
                                           : "the smallest normal double (2.2e-308)";
  const std::string box = "[" + length_text(grid.box[0]) + ", " + length_text(grid.box[1]) + ", " +
                          length_text(grid.box[2]) + "]";
  double largest_k2 = 0;
  for (int d = 0; d < 3; ++d) {
    const double spacing = grid.box[d] / double(grid.n[d]);
    if (!std::isnormal(spacing))
      in.fail("grid.box",
              box + ": along " + "xyz"[d] + " the spacing L / N = " + exact_text(spacing) +
                  " is not a normal double (finite, at least 2.2e-308), and the CFL step divides by it",
              {"grid.n"});
    if (grid.n[d] < 2) continue;  // mode 0 alone: its wavenumber is 0 on any box
    const double unit = 2 * std::numbers::pi / grid.box[d];
    if (!(unit * unit >= smallest))
      in.fail("grid.box",
              box + " is too large: along " + "xyz"[d] + " the wavenumber 2 pi / L = " + exact_text(unit) +
                  " squares to " + exact_text(unit * unit) + ", below " + smallest_text +
                  ", and the projection divides by k^2",
              {"precision"});
    const double k = unit * double(grid.n[d] / 2);
    largest_k2 += k * k;
  }
  if (!(largest_k2 <= largest))
    in.fail("grid.box",
            box + " is too small for grid.n = " + list_text(grid.n) +
                ": its largest wavenumber squared, the sum over x, y, z of "
                "(2 pi / L * floor(N / 2))^2, is " +
                exact_text(largest_k2) + ", beyond " + largest_text,
            {"grid.n", "precision"});
}

void require_file(Reader& in, std::string_view path, const std::string& file) {
  std::error_code error;
  if (!std::filesystem::exists(file, error)) in.fail(path, "no such file '" + file + "'");
  if (!std::filesystem::is_regular_file(file, error)) in.fail(path, "'" + file + "' is not a file");
}

// The checks of an initial field, its file here and its modes against the grid below (check_peak,
// check_kept_modes), are for a run that starts from it: a run from a checkpoint reads none, and may continue
// after the file was moved away, or on another grid (which app/Inputs.hpp judges against the checkpoint's).
void require_initial_file(Reader& in, std::string_view path, const std::string& file) {
  if (in.reads_initial_fields()) require_file(in, path, file);
}

// The 2/3 rule as the solver applies it (solver/Wavenumbers.hpp): |n_d| < N_d / 3.
using KeptModes = solver::Wavenumbers<double>;

// True when some wavevector other than 0 that the 2/3 rule keeps (|n_d| < N_d / 3) has k_min <= |k| <= k_max:
// the forcing acts on kept modes only.
bool shell_holds_a_mode(const GridConfig& grid, double k_min, double k_max) {
  std::array<long, 3> reach{};
  for (int d = 0; d < 3; ++d)
    reach[d] = std::min(KeptModes::largest_kept_index(grid.n[d]),
                        static_cast<long>(k_max * grid.box[d] / (2 * std::numbers::pi)));
  for (long i = -reach[0]; i <= reach[0]; ++i)
    for (long j = -reach[1]; j <= reach[1]; ++j)
      for (long l = -reach[2]; l <= reach[2]; ++l) {
        const double kx = 2 * std::numbers::pi * i / grid.box[0], ky = 2 * std::numbers::pi * j / grid.box[1],
                     kz = 2 * std::numbers::pi * l / grid.box[2];
        const double k = std::sqrt(kx * kx + ky * ky + kz * kz);
        if (k > 0 && k >= k_min && k <= k_max) return true;
      }
  return false;
}

// A vector as the user wrote it, each component to the digits that read back as it: [0, 0, 1e-300].
std::string given_text(const std::array<double, 3>& v) {
  return "[" + exact_text(v[0]) + ", " + exact_text(v[1]) + ", " + exact_text(v[2]) + "]";
}

// How large the linear terms' coefficients may be. The solver forms them with the velocity in its real-space
// pass, in the run's precision (u x 2 Omega, Coriolis: 2 Omega joins the vorticity; u.G, a scalar's mean
// gradient, G = N2 up for a Boussinesq b), and the forward transform sums the N^3 points' values. The start
// check (app/BlowUp.cpp, beyond_range) takes a velocity up to U, where the nonlinear term's U^2 k_max N^3
// reaches the precision's largest number L (k_max the largest kept |k|): a coefficient c keeps U c N^3 below
// L for every velocity the run takes when c <= L / (U N^3) = U k_max, the largest vorticity it takes. In MHD,
// B = B0 + b joins u in that check (the Alfven speed, in the products j x B and u x B): |B0| < U. Beyond
// these the first step may give infinities, or the start check blames the velocity, and neither names the
// key.
struct TermBounds {
  double velocity = 0, rate = 0;
  std::string where;  // "double precision on grid.n = [16, 16, 16]"
};

TermBounds term_bounds(const GridConfig& grid, Precision precision) {
  const bool single = precision == Precision::float32;
  TermBounds bounds;
  bounds.where = std::string(single ? "single" : "double") + " precision on grid.n = " + list_text(grid.n);
  const double k2 = largest_kept_k2(grid);
  if (!(k2 > 0)) {  // no kept mode but 0: no nonlinear term, no velocity bound; the coefficient must fit
    bounds.velocity = bounds.rate =
        single ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
    return bounds;
  }
  bounds.velocity = largest_safe_velocity(grid, precision);
  bounds.rate = bounds.velocity * std::sqrt(k2);
  return bounds;
}

// The coefficient of a term formed with the velocity (term: its product, what: "2 |Omega|", coefficient: its
// value) against TermBounds::rate.
void check_term(Reader& in, const std::string& key, const std::string& what, double coefficient,
                const std::string& term, const TermBounds& bounds) {
  if (!(coefficient <= bounds.rate))
    in.fail(key,
            what + " = " + exact_text(coefficient) + " may overflow " + bounds.where + ": the term " + term +
                ", summed over the N^3 points by its transform, stays finite for every velocity " +
                "the run takes (up to " + number_text(bounds.velocity, 2) + ") only when " + what +
                " <= " + number_text(bounds.rate, 2),
            {"grid.n", "grid.box", "precision"});
}

// The largest wavenumber the 2/3 rule keeps (|n_d| < N_d / 3) along any axis: a random field's peak must
// lie below it, or the dealiasing removes the spectrum's peak and most of its energy. (Along any axis, not
// every one: a flat box's thin axis keeps few modes, and its spectrum's peak may lie beyond them.)
double largest_kept_wavenumber(const GridConfig& grid) {
  double largest = 0;
  for (int d = 0; d < 3; ++d) largest = std::max(largest, largest_kept_wavenumber(grid, d));
  return largest;
}

// A random field's spectral peak k0 (the key `key`) must lie below the largest kept wavenumber, and not so
// far below the smallest that the shape's |q^| there (k exp(-(k/k0)^2) for k4_exp, exp(-(k/k0)^2 / 2) for
// k2_exp) is not a normal number of the precision, or its square not one of a double (the field's energy is
// summed in double precision): then no mode carries energy, or the field's scaling overflows, which the
// solver found only as it made the field, in words without the key or file (found by fuzzing the
// configuration).
void check_peak(Reader& in, const std::string& key, double k0, SpectrumShape shape, const RunConfig& config) {
  if (!in.reads_initial_fields()) return;
  const GridConfig& grid = config.grid;
  const double largest = largest_kept_wavenumber(grid);
  if (k0 >= largest)
    in.fail(key,
            "the peak " + exact_text(k0) +
                " must lie below the largest wavenumber that the 2/3 rule of grid.n = " + list_text(grid.n) +
                " keeps, " + exact_text(largest),
            {"grid.n", "grid.box"});
  double smallest = largest;
  for (int d = 0; d < 3; ++d)
    if (KeptModes::largest_kept_index(grid.n[d]) > 0)
      smallest = std::min(smallest, 2 * std::numbers::pi / grid.box[d]);
  const bool single = config.precision == Precision::float32;
  const double ratio = smallest / k0;  // in logarithms: k0 may be far below it (1e-300)
  const double log_magnitude =
      shape == SpectrumShape::k4_exp ? std::log(smallest) - ratio * ratio : -0.5 * ratio * ratio;
  const double log_tiny =
      std::log(single ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min());
  if (!(log_magnitude >= log_tiny && 2 * log_magnitude >= std::log(std::numeric_limits<double>::min())))
    in.fail(key,
            "the peak " + exact_text(k0) + " lies so far below the smallest wavenumber the grid keeps, " +
                exact_text(smallest) + ", that the spectrum there underflows " + to_string(config.precision) +
                " precision: no mode would carry energy",
            {"grid.n", "grid.box", "precision"});
}

// An analytic initial field (`what`, the key `key`) whose largest mode number along axis d is modes[d] must
// survive the 2/3 rule: 3 modes[d] < N_d. Otherwise the run would start from a field the dealiasing has
// removed, without a word. (Compared with the largest kept index, not as 3 modes[d] < N: a mode number near
// the largest long would overflow the product and pass.)
void check_kept_modes(Reader& in, const std::string& key, const std::string& what, std::array<long, 3> modes,
                      const GridConfig& grid) {
  if (!in.reads_initial_fields()) return;
  for (int d = 0; d < 3; ++d)
    if (modes[d] > KeptModes::largest_kept_index(grid.n[d]))
      in.fail(key,
              what + " has mode number " + std::to_string(modes[d]) + " along " + "xyz"[d] +
                  ", which the 2/3 rule of grid.n = " + list_text(grid.n) + " removes (it needs 3 x " +
                  std::to_string(modes[d]) + " < N)",
              {"grid.n"});
}

// The initial field of a scalar or of b, from the keys "<prefix>.initial.*"; name: the field's name, the
// default dataset of a field file.
ScalarInitialConfig read_scalar_initial(Reader& in, const RunConfig& config, const std::string& prefix,
                                        const std::string& name) {
  ScalarInitialConfig initial;
  const std::string key = prefix + ".initial.";
  initial.type = in.choice<ScalarInitialType>(key + "type");
  if (initial.type == ScalarInitialType::random) {
    initial.variance = in.get<double>(key + "variance");
    initial.k0 = in.get<double>(key + "k0");
    initial.shape = in.choice<SpectrumShape>(key + "shape");
    initial.seed = in.get<long>(key + "seed");
    check_peak(in, key + "k0", initial.k0, initial.shape, config);
  } else if (initial.type == ScalarInitialType::file) {
    initial.file = in.get<std::string>(key + "file");
    require_initial_file(in, key + "file", initial.file);
    initial.dataset = in.given(key + "dataset") ? in.get<std::string>(key + "dataset") : name;
  }
  return initial;
}

// A scalar's name becomes dataset names, series columns and spectra: a plain identifier that no other
// dataset of a field dump or checkpoint has.
void check_scalar_name(Reader& in, const std::string& path, const std::string& name,
                       const std::vector<std::pair<std::string, std::string>>& taken) {
  const bool identifier =
      std::isalpha(static_cast<unsigned char>(name[0])) &&
      std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
  if (!identifier)
    in.fail(path, "'" + name + "' is not a plain name (letters, digits and _, starting with a letter)");
  for (const char* reserved : {"u", "v", "w", "pressure", "vorticity_x", "vorticity_y", "vorticity_z", "bx",
                               "by", "bz", "jx", "jy", "jz"})
    if (name == reserved) in.fail(path, "'" + name + "' is the name of a field dump's own dataset");
  // A checkpoint names each field <name>_hat, and an input file holding u_hat (bx_hat, a scalar's <name>_hat)
  // is read as a checkpoint: a dump of a scalar named u_hat was refused as initial.file for lacking a
  // checkpoint's attributes ("missing attribute 'dt'").
  if (name.ends_with("_hat"))
    in.fail(path, "'" + name +
                      "' ends in _hat, the suffix of a checkpoint's fields: a field dump holding it "
                      "would be read as a checkpoint");
  // Names that other outputs are built on: a scalar's spectrum and series columns (<name>_spectrum,
  // <name>_dissipation, ...) would repeat theirs, and a field file's vectors are named in its XDMF.
  // Reserved in every run, so that a name means one thing in every output kolmo writes.
  const std::pair<const char*, const char*> built_on[] = {
      {"energy", "energy_spectrum"},
      {"magnetic", "magnetic_spectrum, magnetic_dissipation (MHD)"},
      {"velocity", "the field files' vector of u, v, w"},
      {"vorticity", "the field files' vector of vorticity_x, _y, _z"},
      {"current", "the field files' vector of jx, jy, jz (MHD)"}};
  for (const auto& [reserved, output] : built_on)
    if (name == reserved) in.fail(path, "'" + name + "' is taken by another output: " + output);
  for (const auto& [other, key] : taken)
    if (name == other)
      in.fail(
          path,
          "'" + name + "' names another field too (the scalars' names must differ, and b is the buoyancy's)",
          {key});
}

// A diffusivity given as viscosity / ratio (a Schmidt or Prandtl number at key): refused where the quotient
// is not a number the solver can hold (a ratio of 1e-320, or 1e-10 with a viscosity of 1e300), which the
// solver otherwise met as an infinite diffusivity, refused with neither key nor file.
void check_quotient(Reader& in, const std::string& key, double viscosity, double ratio,
                    const std::string& what) {
  if (const double quotient = viscosity / ratio; !std::isfinite(quotient))
    in.fail(key,
            what + " = physics.viscosity / " + exact_text(ratio) + " = " + exact_text(quotient) +
                " is not a finite number",
            {"physics.viscosity"});
}

void read_fields(Reader& in, RunConfig& config) {
  PhysicsConfig& physics = config.physics;
  const TermBounds bounds = term_bounds(config.grid, config.precision);
  physics.rotation = in.get<std::array<double, 3>>("physics.rotation");
  check_term(in, "physics.rotation", "2 |Omega|", 2 * length(physics.rotation), "u x 2 Omega", bounds);
  BuoyancyConfig& buoyancy = physics.buoyancy;
  buoyancy.type = in.choice<BuoyancyType>("physics.buoyancy.type");
  std::vector<std::pair<std::string, std::string>> taken;  // the fields' names, and the keys that give them
  if (buoyancy.type == BuoyancyType::boussinesq) {
    buoyancy.n2 = in.get<double>("physics.buoyancy.n2", "the mean stratification of the buoyancy");
    if (buoyancy.n2 == 0)
      in.fail("physics.buoyancy.n2", "must not be 0: > 0 for a stable stratification, < 0 for convection");
    check_term(in, "physics.buoyancy.n2", "|N2|", std::abs(buoyancy.n2), "N2 u.up", bounds);
    buoyancy.prandtl = in.get<double>("physics.buoyancy.prandtl");
    check_quotient(in, "physics.buoyancy.prandtl", physics.viscosity, buoyancy.prandtl, "b's diffusivity");
    buoyancy.gravity = in.get<std::array<double, 3>>(
        "physics.buoyancy.gravity", "buoyancy acts against gravity, whose direction is needed");
    // Only its direction is used: any vector but 0 has one (the solver scales it before normalising, so that
    // [0, 0, 1e-300] and [1e300, 0, 1e300] give theirs).
    if (length(buoyancy.gravity) == 0)
      in.fail("physics.buoyancy.gravity", "has no direction: " + given_text(buoyancy.gravity));
    buoyancy.initial = read_scalar_initial(in, config, "physics.buoyancy", "b");
    taken.emplace_back("b", "physics.buoyancy.type");
  }
  const std::size_t count = in.items("physics.scalars");
  for (std::size_t i = 0; i < count; ++i) {
    const std::string item = "physics.scalars[" + std::to_string(i) + "]";
    ScalarConfig scalar;
    scalar.name = in.get<std::string>(item + ".name");
    check_scalar_name(in, item + ".name", scalar.name, taken);
    taken.emplace_back(scalar.name, item + ".name");
    scalar.diffusivity = in.optional<double>(item + ".diffusivity");
    scalar.schmidt = in.optional<double>(item + ".schmidt");
    if (scalar.diffusivity && scalar.schmidt)
      in.fail(item + ".schmidt", "give " + item + ".diffusivity or " + item + ".schmidt, not both",
              {item + ".diffusivity"});
    if (!scalar.diffusivity && !scalar.schmidt)
      in.fail(item + ".diffusivity", "missing: give " + item + ".diffusivity or " + item + ".schmidt");
    if (scalar.schmidt)
      check_quotient(in, item + ".schmidt", physics.viscosity, *scalar.schmidt, "its diffusivity");
    scalar.mean_gradient = in.get<std::array<double, 3>>(item + ".mean_gradient");
    check_term(in, item + ".mean_gradient", "|G|", length(scalar.mean_gradient), "u.G", bounds);
    scalar.initial = read_scalar_initial(in, config, item, scalar.name);
    physics.scalars.push_back(std::move(scalar));
  }
}

// A band forcing's shell and power under prefix (physics.forcing. or physics.magnetic.forcing.).
void read_band(Reader& in, const GridConfig& grid, const std::string& prefix, ForcingConfig& forcing) {
  forcing.k_min = in.get<double>(prefix + "k_min");
  forcing.k_max = in.get<double>(prefix + "k_max");
  forcing.power = in.get<double>(prefix + "power", "band forcing needs its injection rate");
  if (forcing.k_min >= forcing.k_max)
    in.fail(prefix + "k_min",
            "must be below " + prefix + "k_max = " + exact_text(forcing.k_max) + ", got " +
                exact_text(forcing.k_min),
            {prefix + "k_max"});
  if (!shell_holds_a_mode(grid, forcing.k_min, forcing.k_max))
    in.fail(prefix + "k_max",
            "the shell " + exact_text(forcing.k_min) + " <= |k| <= " + exact_text(forcing.k_max) +
                " holds no wavevector of the grid that the 2/3 rule keeps",
            {prefix + "k_min", "grid.n", "grid.box"});
}

void read_magnetic(Reader& in, RunConfig& config) {
  MagneticConfig& magnetic = config.physics.magnetic;
  magnetic.type = in.choice<MagneticType>("physics.magnetic.type");
  if (magnetic.type == MagneticType::none) return;
  const std::string key = "physics.magnetic.";
  magnetic.resistivity = in.optional<double>(key + "resistivity");
  magnetic.prandtl = in.optional<double>(key + "prandtl");
  if (magnetic.resistivity && magnetic.prandtl)
    in.fail(key + "prandtl", "give physics.magnetic.resistivity or physics.magnetic.prandtl, not both",
            {key + "resistivity"});
  if (!magnetic.resistivity && !magnetic.prandtl)
    in.fail(key + "resistivity", "missing: give physics.magnetic.resistivity or physics.magnetic.prandtl",
            {key + "type"});
  if (magnetic.prandtl)
    check_quotient(in, key + "prandtl", config.physics.viscosity, *magnetic.prandtl, "the resistivity");
  magnetic.background = in.get<std::array<double, 3>>(key + "background");
  const TermBounds bounds = term_bounds(config.grid, config.precision);
  if (const double b0 = length(magnetic.background); !(b0 < bounds.velocity))
    in.fail(key + "background",
            "|B0| = " + exact_text(b0) + " may overflow " + bounds.where +
                ": B = B0 + b joins the velocity in the MHD products (j x B, u x B), whose transforms sum up "
                "to about |B|^2 k_max N^3, past the largest number from |B0| = " +
                number_text(bounds.velocity, 2) + "; use a smaller field (other units)",
            {"grid.n", "grid.box", "precision"});
  magnetic.forcing.type = in.choice<ForcingKind>(key + "forcing.type");  // none | band in the schema
  if (magnetic.forcing.type == ForcingKind::band)
    read_band(in, config.grid, key + "forcing.", magnetic.forcing);
  MagneticInitialConfig& initial = magnetic.initial;
  initial.type = in.choice<MagneticInitialType>(key + "initial.type");
  switch (initial.type) {
    case MagneticInitialType::orszag_tang:
    case MagneticInitialType::taylor_green_conducting: {
      initial.amplitude = in.get<double>(key + "initial.amplitude");
      const bool orszag_tang = initial.type == MagneticInitialType::orszag_tang;
      check_kept_modes(in, key + "initial.type", orszag_tang ? "orszag_tang's b" : "taylor_green_conducting",
                       orszag_tang ? std::array<long, 3>{1, 2, 1} : std::array<long, 3>{2, 2, 2},
                       config.grid);
      break;
    }
    case MagneticInitialType::abc:
      initial.A = in.get<double>(key + "initial.A");
      initial.B = in.get<double>(key + "initial.B");
      initial.C = in.get<double>(key + "initial.C");
      initial.k = in.get<long>(key + "initial.k");
      check_kept_modes(in, key + "initial.k", "the ABC field", {initial.k, initial.k, initial.k},
                       config.grid);
      break;
    case MagneticInitialType::random: {
      initial.energy = in.get<double>(key + "initial.energy");
      initial.k0 = in.get<double>(key + "initial.k0");
      initial.shape = in.choice<SpectrumShape>(key + "initial.shape");
      initial.seed = in.get<long>(key + "initial.seed");
      check_peak(in, key + "initial.k0", initial.k0, initial.shape, config);
      break;
    }
    case MagneticInitialType::file:
      initial.file = in.get<std::string>(key + "initial.file");
      require_initial_file(in, key + "initial.file", initial.file);
      break;
    case MagneticInitialType::zero:
      break;
  }
}

void read_physics(Reader& in, RunConfig& config) {
  config.physics.viscosity = in.get<double>("physics.viscosity");
  config.physics.nonlinear_form = in.choice<NonlinearForm>("physics.nonlinear_form");
  ForcingConfig& forcing = config.physics.forcing;
  forcing.type = in.choice<ForcingKind>("physics.forcing.type");
  if (forcing.type == ForcingKind::band) {
    read_band(in, config.grid, "physics.forcing.", forcing);
  } else if (forcing.type == ForcingKind::linear) {
    forcing.power = in.optional<double>("physics.forcing.power");
    forcing.coefficient = in.optional<double>("physics.forcing.coefficient");
    if (forcing.power && forcing.coefficient)
      in.fail("physics.forcing.coefficient",
              "give physics.forcing.power or physics.forcing.coefficient for linear forcing, not both",
              {"physics.forcing.power"});
    if (!forcing.power && !forcing.coefficient)
      in.fail("physics.forcing.power",
              "missing: linear forcing needs physics.forcing.power or physics.forcing.coefficient",
              {"physics.forcing.type"});
  }
  read_fields(in, config);
  read_magnetic(in, config);
  // The form the run uses, which the resolved configuration then says. The rotational form asked for where
  // the divergence form is used (MHD) is almost always a mistake (the rules above): said, not ignored. The
  // divergence form, the default, stays accepted where the rotational one is used (rotation, the linear
  // forcing): resolved configurations written before this check hold it.
  const bool mhd = config.physics.magnetic.type == MagneticType::mhd;
  const NonlinearForm requested = config.physics.nonlinear_form;
  if (mhd && requested == NonlinearForm::rotational)
    in.fail("physics.nonlinear_form",
            "rotational is not used with MHD, which forms its own divergence form; remove the key",
            {"physics.magnetic.type"});
  config.physics.nonlinear_form =
      solver::nonlinear_form_used(requested, config.physics.rotation != std::array<double, 3>{0, 0, 0},
                                  forcing.type == ForcingKind::linear, mhd);
}

void read_time(Reader& in, TimeConfig& time) {
  time.integrator = in.choice<Integrator>("time.integrator");
  time.dt = in.optional<double>("time.dt");
  if (time.dt) {
    if (in.given("time.cfl"))
      in.fail("time.cfl", "give time.dt (a fixed step) or time.cfl (an adaptive step), not both",
              {"time.dt"});
  } else {
    time.cfl = in.get<double>("time.cfl");
    time.max_dt = in.optional<double>("time.max_dt");
  }
  time.t_end = in.optional<double>("time.t_end");
  time.steps = in.optional<long>("time.steps");
  if (!time.t_end && !time.steps)
    in.fail("time.t_end",
            "missing: give time.t_end, time.steps or both (the run stops at whichever comes first)");
}

void read_initial(Reader& in, RunConfig& config) {
  InitialConfig& initial = config.initial;
  initial.type = in.choice<InitialType>("initial.type");
  switch (initial.type) {
    case InitialType::taylor_green:
      initial.amplitude = in.get<double>("initial.amplitude");
      check_kept_modes(in, "initial.type", "taylor_green", {1, 1, 1}, config.grid);
      break;
    case InitialType::orszag_tang:
      if (config.physics.magnetic.type != MagneticType::mhd)
        in.fail("initial.type", "orszag_tang is an MHD initial condition, but physics.magnetic.type is none",
                {"physics.magnetic.type"});
      initial.amplitude = in.get<double>("initial.amplitude");
      check_kept_modes(in, "initial.type", "orszag_tang's u", {1, 1, 0}, config.grid);
      break;
    case InitialType::abc:
      initial.A = in.get<double>("initial.A");
      initial.B = in.get<double>("initial.B");
      initial.C = in.get<double>("initial.C");
      initial.k = in.get<long>("initial.k");
      check_kept_modes(in, "initial.k", "the ABC flow", {initial.k, initial.k, initial.k}, config.grid);
      break;
    case InitialType::random: {
      initial.spectrum.shape = in.choice<SpectrumShape>("initial.spectrum.shape");
      initial.spectrum.k0 = in.get<double>("initial.spectrum.k0");
      initial.spectrum.energy = in.get<double>("initial.spectrum.energy");
      initial.seed = in.get<long>("initial.seed");
      check_peak(in, "initial.spectrum.k0", initial.spectrum.k0, initial.spectrum.shape, config);
      break;
    }
    case InitialType::file:
      initial.file = in.get<std::string>("initial.file");
      require_initial_file(in, "initial.file", initial.file);
      break;
  }
}

void read_poisson(Reader& in, RunConfig& config) {
  PoissonConfig& poisson = config.poisson;
  const auto& n = config.grid.n;
  poisson.shift = in.get<double>("poisson.shift");
  poisson.rhs.type = in.choice<RhsType>("poisson.rhs.type");
  if (poisson.rhs.type == RhsType::manufactured) {
    poisson.rhs.modes = in.get<std::vector<std::array<long, 3>>>("poisson.rhs.modes");
    for (const auto& k : poisson.rhs.modes) {
      if (k == std::array<long, 3>{0, 0, 0} && poisson.shift == 0)
        in.fail("poisson.rhs.modes", "mode [0, 0, 0] is undetermined when poisson.shift is 0",
                {"poisson.shift"});
      // |k| < N/2, i.e. |k| <= (N - 1)/2, written so that no mode number can overflow the test.
      for (int d = 0; d < 3; ++d)
        if (k[d] > (n[d] - 1) / 2 || k[d] < -((n[d] - 1) / 2))
          in.fail("poisson.rhs.modes",
                  "mode " + list_text(k) + " is not resolved by grid.n = " + list_text(n) +
                      " (it needs |k| < N/2 on every axis)",
                  {"grid.n"});
    }
  } else {
    poisson.rhs.file = in.get<std::string>("poisson.rhs.file");
    require_file(in, "poisson.rhs.file", poisson.rhs.file);
    poisson.rhs.dataset = in.get<std::string>("poisson.rhs.dataset");
    poisson.subtract_mean = in.get<bool>("poisson.subtract_mean");
  }
  poisson.gradient = in.get<bool>("poisson.gradient");
}

void read_output(Reader& in, RunConfig& config, const std::string& name) {
  OutputConfig& output = config.output;
  output.directory = in.given("output.directory") ? in.get<std::string>("output.directory") : "runs/" + name;
  // A shell expands ~ on the command line, but not inside YAML: the run would create a folder named ~ here.
  if (output.directory.starts_with('~'))
    in.fail("output.directory", "'" + output.directory +
                                    "': kolmo does not expand ~ (a shell does, but not inside YAML); write "
                                    "the path out");
  output.overwrite = in.get<bool>("output.overwrite");
  if (config.problem != Problem::navier_stokes) return;
  output.progress_every = in.get<long>("output.progress_every");
  output.series_every = in.get<long>("output.series_every");
  output.fields = in.choice_list<OutputField>("output.fields");
  const bool scalars = !config.physics.scalars.empty() || config.physics.buoyancy.type != BuoyancyType::none;
  if (!scalars &&
      std::find(output.fields.begin(), output.fields.end(), OutputField::scalars) != output.fields.end())
    in.fail("output.fields", "scalars are asked for, but the run has none",
            {"physics.scalars", "physics.buoyancy.type"});
  auto asked = [&](OutputField field) {
    return std::find(output.fields.begin(), output.fields.end(), field) != output.fields.end();
  };
  const bool mhd = config.physics.magnetic.type == MagneticType::mhd;
  if (!mhd && (asked(OutputField::magnetic) || asked(OutputField::current)))
    in.fail("output.fields", "magnetic or current is asked for, but physics.magnetic.type is none",
            {"physics.magnetic.type"});
  output.fields_every = in.get<double>("output.fields_every");
  output.spectra_every = in.get<double>("output.spectra_every");
  output.checkpoint_every = in.get<double>("output.checkpoint_every");
  output.checkpoint_wall_minutes = in.get<double>("output.checkpoint_wall_minutes");
  if (output.fields_every > 0 && output.fields.empty())
    in.fail("output.fields_every", "field dumps are asked for, but output.fields is empty",
            {"output.fields"});
}

RunConfig read_config(Reader& in, const std::string& name) {
  RunConfig config;
  config.grid.n = in.get<std::array<long, 3>>("grid.n");
  // Bounds far beyond any grid a machine holds (the memory check refuses much less), so that what follows
  // neither walks nor sizes anything by a nonsense length (the layout's ky planes) and no count of points or
  // bytes overflows: at most 2^20 points a side and 2^50 in all (about 104000^3).
  constexpr long kLargestSide = 1L << 20, kLargestGrid = 1L << 50;
  const auto& n = config.grid.n;
  for (int d = 0; d < 3; ++d)
    if (n[d] > kLargestSide)
      in.fail("grid.n", std::string(1, "xyz"[d]) + ": " + std::to_string(n[d]) + " points, more than " +
                            std::to_string(kLargestSide) + " a side: far beyond any grid kolmo can hold");
  if (n[0] <= kLargestSide && n[1] <= kLargestSide && n[2] <= kLargestSide &&
      n[0] * n[1] * n[2] > kLargestGrid)
    in.fail("grid.n", list_text(n) + " has " + std::to_string(n[0] * n[1] * n[2]) +
                          " points, more than 2^50 = " + std::to_string(kLargestGrid) +
                          ": far beyond any grid kolmo can hold");
  config.grid.box = in.get<std::array<double, 3>>("grid.box");
  config.precision = in.choice<Precision>("precision");
  check_box(in, config.grid, config.precision);
  config.backend = in.choice<BackendChoice>("backend");
  config.fft.exchange = fft::parse_exchange(in.choice_name("fft.exchange"));
  config.fft.cuda_aware_mpi = in.get<bool>("fft.cuda_aware_mpi");
  config.fft.exchange_pieces = in.get<long>("fft.exchange_pieces");
  config.fft.lanes = in.get<long>("fft.lanes");
  config.fft.spectral_split = in.choice<SpectralSplitChoice>("fft.spectral_split");
  config.fft.planning = in.choice<fft::FftwPlanning>("fft.planning");
  if (config.fft.exchange_pieces > config.grid.n[0])
    in.fail("fft.exchange_pieces",
            "more pieces (" + std::to_string(config.fft.exchange_pieces) +
                ") than x planes (Nx = " + std::to_string(config.grid.n[0]) + ")",
            {"grid.n"});
  const auto exchange = config.fft.exchange;
  if ((exchange == fft::ExchangeMethod::nccl || exchange == fft::ExchangeMethod::p2p) &&
      config.backend == BackendChoice::host)
    in.fail("fft.exchange", fft::to_string(exchange) + " needs the cuda backend, but backend is host",
            {"backend"});
  if (exchange == fft::ExchangeMethod::nccl && config.fft.lanes > 1)
    in.fail("fft.lanes",
            std::to_string(config.fft.lanes) +
                " with the nccl exchange, whose communicators (one a lane) may deadlock when used at once: "
                "1 lane, or the p2p exchange inside a node",
            {"fft.exchange"});
  config.problem = in.choice<Problem>("problem");
  if (config.problem == Problem::navier_stokes) {
    read_physics(in, config);
    read_time(in, config.time);
    read_initial(in, config);
  } else {
    read_poisson(in, config);
  }
  read_output(in, config, name);
  in.check_all_used();
  return config;
}

// The column (from 1) of the first tab among the blanks and block-sequence dashes that open line `line` (from
// 0) of text, or 0 where there is none. YAML indents with spaces only; yaml-cpp refuses a tab there, on that
// line, but in words that do not say so ("illegal map value", at the colon after the key).
long indentation_tab(std::string_view text, int line) {
  std::size_t start = 0;
  for (int l = 0; l < line; ++l) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return 0;
    ++start;
  }
  const std::size_t opening = text.find_first_not_of(" \t-", start);  // npos: the rest of the text
  const std::size_t tab = text.substr(start, opening - start).find('\t');
  return tab == std::string_view::npos ? 0 : static_cast<long>(tab) + 1;
}

RunConfig load(const std::string& yaml, const std::string& source, const std::string& name,
               const std::vector<std::string>& overrides, StartFrom start) {
  // A control byte (a binary file, a NUL from a broken copy) would reach the user as yaml-cpp's message with
  // the raw byte in it: name it instead.
  const auto control = std::find_if(yaml.begin(), yaml.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\t' && c != '\n' && c != '\r') || byte == 0x7f;
  });
  if (control != yaml.end()) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(*control)));
    const long line = 1 + std::count(yaml.begin(), control, '\n');
    throw Error(source + ":" + std::to_string(line) + ": not a text file: control byte " + byte +
                " (a configuration is YAML text)");
  }
  // yaml-cpp ends lines at a line feed only (LF or CRLF); to it a carriage return alone (a file saved with
  // the old Mac line ends, CR) is a blank, so that a comment ran on to the next LF, taking the keys after it.
  for (std::size_t cr = yaml.find('\r'); cr != std::string::npos; cr = yaml.find('\r', cr + 1))
    if (cr + 1 == yaml.size() || yaml[cr + 1] != '\n') {
      const long line = 1 + std::count(yaml.begin(), yaml.begin() + static_cast<long>(cr), '\n');
      throw Error(source + ":" + std::to_string(line) +
                  ": a carriage return (CR) not followed by a line feed: lines end with LF or CRLF");
    }
  OneDocument document;
  try {
    document = load_one_document(yaml);
  } catch (const YAML::Exception& error) {
    const std::string line = error.mark.is_null() ? "" : ":" + std::to_string(error.mark.line + 1);
    if (const long tab = error.mark.is_null() ? 0 : indentation_tab(yaml, error.mark.line); tab > 0)
      throw Error(source + line + ":" + std::to_string(tab) +
                  ": a tab in the indentation; YAML indents with spaces");
    throw Error(source + line + ": YAML syntax error: " + parser_words(error));
  }
  // A second document would otherwise be ignored without a word: one run per file.
  if (document.second) {
    const YAML::Mark mark = document.second_node.value_or(*document.second);
    throw Error(source + ":" + std::to_string(mark.line + 1) + ": " + document.second_text(yaml, false));
  }
  const YAML::Node root = document.root;
  Values values;
  if (!root.IsNull()) {
    if (!root.IsMap())
      throw Error(source + ": expected sections and keys (grid:, physics:, ...) at the top level, got " +
                  shown(root));
    collect(root, "", Origin{source, true}, values);
  }
  for (const std::string& text : overrides) apply_override(text, values);
  Reader in(std::move(values), source, start);
  RunConfig config = read_config(in, name);
  config.sources = in.given_sources();
  return config;
}

// ---------------------------------------------------------------------------------------------------------------
// Writing: the keys in use, in the schema's order, with their meaning as a comment

class Writer {
 public:
  void put(std::string_view path, std::string yaml) {
    key_of(path);
    values_[std::string(path)] = std::move(yaml);
  }

  std::string text() const {
    std::string out =
        "# kolmo run configuration, resolved: every key in use, defaults filled in (~: not set).\n"
        "# Reference: docs/configuration.md\n";
    std::vector<std::string> open;  // the sections of the previous key
    for (const SchemaKey& key : schema()) {
      const auto value = values_.find(key.path);
      if (value == values_.end()) continue;
      std::vector<std::string> sections;
      for (std::size_t start = 0, dot; (dot = key.path.find('.', start)) != std::string_view::npos;
           start = dot + 1)
        sections.emplace_back(key.path.substr(start, dot - start));
      std::size_t common = 0;
      while (common < open.size() && common < sections.size() && open[common] == sections[common]) ++common;
      if (common == 0 && !(sections.empty() && open.empty())) out += "\n";  // around top-level sections
      for (std::size_t depth = common; depth < sections.size(); ++depth)
        out += std::string(2 * depth, ' ') + sections[depth] + ":\n";
      open = sections;
      std::string line =
          std::string(2 * sections.size(), ' ') + std::string(leaf_of(key.path)) + ": " + value->second;
      line.resize(std::max<std::size_t>(line.size() + 2, 40), ' ');
      out += line + "# " + std::string(key.meaning) + "\n";
    }
    return out;
  }

  // "key.path: value", one a key, in the schema's order.
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const SchemaKey& key : schema())
      if (const auto value = values_.find(key.path); value != values_.end())
        out.push_back(std::string(key.path) + ": " + value->second);
    return out;
  }

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

std::string quoted(const std::string& text) {
  YAML::Emitter emitter;
  emitter << YAML::DoubleQuoted << text;
  return emitter.c_str();
}

std::string boolean_text(bool value) {
  return value ? "true" : "false";
}

template <class T, class Text>
std::string triple_text(const std::array<T, 3>& values, Text text) {
  if (values[0] == values[1] && values[1] == values[2]) return text(values[0]);
  return "[" + text(values[0]) + ", " + text(values[1]) + ", " + text(values[2]) + "]";
}

template <class T, class Text>
std::string optional_text(const std::optional<T>& value, Text text) {
  return value ? text(*value) : "~";
}

std::string integer_text(long n) {
  return std::to_string(n);
}

std::string name_of(std::string_view path, int index) {
  return choice_names(key_of(path)).at(static_cast<std::size_t>(index));
}

std::string vector_text(const std::array<double, 3>& v) {
  return "[" + real_text(v[0]) + ", " + real_text(v[1]) + ", " + real_text(v[2]) + "]";
}

// The keys in use of a scalar's initial field and their YAML values, in the schema's order.
std::vector<std::pair<std::string, std::string>> scalar_initial_entries(const ScalarInitialConfig& initial) {
  std::vector<std::pair<std::string, std::string>> entries{{"type", to_string(initial.type)}};
  if (initial.type == ScalarInitialType::random) {
    entries.emplace_back("variance", real_text(initial.variance));
    entries.emplace_back("k0", real_text(initial.k0));
    entries.emplace_back("shape", solver::to_string(initial.shape));
    entries.emplace_back("seed", integer_text(initial.seed));
  } else if (initial.type == ScalarInitialType::file) {
    entries.emplace_back("file", quoted(initial.file));
    entries.emplace_back("dataset", quoted(initial.dataset));
  }
  return entries;
}

}  // namespace

RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides, StartFrom start) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw Error(path + ": is a directory, not a configuration file");
  std::ifstream file(path);
  if (!file) throw Error(path + ": cannot read the configuration file (no such file, or no permission)");
  std::stringstream text;
  text << file.rdbuf();
  return load(text.str(), path, std::filesystem::path(path).stem().string(), overrides, start);
}

RunConfig load_config_text(const std::string& yaml, const std::string& name,
                           const std::vector<std::string>& overrides, StartFrom start) {
  return load(yaml, name, name, overrides, start);
}

namespace {

// The keys in use and their values, as to_yaml writes them.
Writer written(const RunConfig& config) {
  Writer out;
  out.put("grid.n", triple_text(config.grid.n, integer_text));
  out.put("grid.box", triple_text(config.grid.box, length_text));
  out.put("precision", to_string(config.precision));
  out.put("backend", to_string(config.backend));
  out.put("fft.exchange", fft::to_string(config.fft.exchange));
  out.put("fft.cuda_aware_mpi", boolean_text(config.fft.cuda_aware_mpi));
  out.put("fft.exchange_pieces", integer_text(config.fft.exchange_pieces));
  out.put("fft.lanes", integer_text(config.fft.lanes));
  out.put("fft.spectral_split", to_string(config.fft.spectral_split));
  out.put("fft.planning", name_of("fft.planning", static_cast<int>(config.fft.planning)));
  out.put("problem", to_string(config.problem));

  if (config.problem == Problem::navier_stokes) {
    const PhysicsConfig& physics = config.physics;
    out.put("physics.viscosity", real_text(physics.viscosity));
    out.put("physics.nonlinear_form", solver::to_string(physics.nonlinear_form));
    out.put("physics.forcing.type", solver::to_string(physics.forcing.type));
    if (physics.forcing.type == ForcingKind::band) {
      out.put("physics.forcing.k_min", real_text(physics.forcing.k_min));
      out.put("physics.forcing.k_max", real_text(physics.forcing.k_max));
    }
    if (physics.forcing.type != ForcingKind::none)
      out.put("physics.forcing.power", optional_text(physics.forcing.power, real_text));
    if (physics.forcing.type == ForcingKind::linear)
      out.put("physics.forcing.coefficient", optional_text(physics.forcing.coefficient, real_text));
    out.put("physics.rotation", vector_text(physics.rotation));
    const BuoyancyConfig& buoyancy = physics.buoyancy;
    out.put("physics.buoyancy.type", to_string(buoyancy.type));
    if (buoyancy.type == BuoyancyType::boussinesq) {
      out.put("physics.buoyancy.n2", real_text(buoyancy.n2));
      out.put("physics.buoyancy.prandtl", real_text(buoyancy.prandtl));
      out.put("physics.buoyancy.gravity", vector_text(buoyancy.gravity));
      for (const auto& [key, value] : scalar_initial_entries(buoyancy.initial))
        out.put("physics.buoyancy.initial." + key, value);
    }
    const MagneticConfig& magnetic = physics.magnetic;
    out.put("physics.magnetic.type", to_string(magnetic.type));
    if (magnetic.type == MagneticType::mhd) {
      if (magnetic.resistivity) out.put("physics.magnetic.resistivity", real_text(*magnetic.resistivity));
      if (magnetic.prandtl) out.put("physics.magnetic.prandtl", real_text(*magnetic.prandtl));
      out.put("physics.magnetic.background", vector_text(magnetic.background));
      out.put("physics.magnetic.forcing.type", solver::to_string(magnetic.forcing.type));
      if (magnetic.forcing.type == ForcingKind::band) {
        out.put("physics.magnetic.forcing.k_min", real_text(magnetic.forcing.k_min));
        out.put("physics.magnetic.forcing.k_max", real_text(magnetic.forcing.k_max));
        out.put("physics.magnetic.forcing.power", optional_text(magnetic.forcing.power, real_text));
      }
      const MagneticInitialConfig& initial = magnetic.initial;
      const std::string key = "physics.magnetic.initial.";
      out.put(key + "type", to_string(initial.type));
      if (initial.type == MagneticInitialType::orszag_tang ||
          initial.type == MagneticInitialType::taylor_green_conducting)
        out.put(key + "amplitude", real_text(initial.amplitude));
      if (initial.type == MagneticInitialType::abc) {
        out.put(key + "A", real_text(initial.A));
        out.put(key + "B", real_text(initial.B));
        out.put(key + "C", real_text(initial.C));
        out.put(key + "k", integer_text(initial.k));
      }
      if (initial.type == MagneticInitialType::random) {
        out.put(key + "energy", real_text(initial.energy));
        out.put(key + "k0", real_text(initial.k0));
        out.put(key + "shape", solver::to_string(initial.shape));
        out.put(key + "seed", integer_text(initial.seed));
      }
      if (initial.type == MagneticInitialType::file) out.put(key + "file", quoted(initial.file));
    }
    std::string scalars;
    for (const ScalarConfig& scalar : physics.scalars) {
      std::string item = "{name: " + quoted(scalar.name);
      if (scalar.diffusivity) item += ", diffusivity: " + real_text(*scalar.diffusivity);
      if (scalar.schmidt) item += ", schmidt: " + real_text(*scalar.schmidt);
      item += ", mean_gradient: " + vector_text(scalar.mean_gradient) + ", initial: {";
      std::string initial;
      for (const auto& [key, value] : scalar_initial_entries(scalar.initial))
        initial += (initial.empty() ? "" : ", ") + key + ": " + value;
      scalars += (scalars.empty() ? "" : ", ") + item + initial + "}}";
    }
    out.put("physics.scalars", "[" + scalars + "]");

    const TimeConfig& time = config.time;
    out.put("time.integrator", solver::to_string(time.integrator));
    out.put("time.dt", optional_text(time.dt, real_text));
    if (!time.dt) {
      out.put("time.cfl", real_text(time.cfl));
      out.put("time.max_dt", optional_text(time.max_dt, real_text));
    }
    out.put("time.t_end", optional_text(time.t_end, real_text));
    out.put("time.steps", optional_text(time.steps, integer_text));

    const InitialConfig& initial = config.initial;
    out.put("initial.type", to_string(initial.type));
    switch (initial.type) {
      case InitialType::taylor_green:
      case InitialType::orszag_tang:
        out.put("initial.amplitude", real_text(initial.amplitude));
        break;
      case InitialType::abc:
        out.put("initial.A", real_text(initial.A));
        out.put("initial.B", real_text(initial.B));
        out.put("initial.C", real_text(initial.C));
        out.put("initial.k", integer_text(initial.k));
        break;
      case InitialType::random:
        out.put("initial.spectrum.shape", solver::to_string(initial.spectrum.shape));
        out.put("initial.spectrum.k0", real_text(initial.spectrum.k0));
        out.put("initial.spectrum.energy", real_text(initial.spectrum.energy));
        out.put("initial.seed", integer_text(initial.seed));
        break;
      case InitialType::file:
        out.put("initial.file", quoted(initial.file));
        break;
    }
  } else {
    const PoissonConfig& poisson = config.poisson;
    out.put("poisson.shift", real_text(poisson.shift));
    out.put("poisson.rhs.type", to_string(poisson.rhs.type));
    if (poisson.rhs.type == RhsType::manufactured) {
      std::string modes;
      for (const auto& k : poisson.rhs.modes) modes += (modes.empty() ? "" : ", ") + list_text(k);
      out.put("poisson.rhs.modes", "[" + modes + "]");
    } else {
      out.put("poisson.rhs.file", quoted(poisson.rhs.file));
      out.put("poisson.rhs.dataset", quoted(poisson.rhs.dataset));
      out.put("poisson.subtract_mean", boolean_text(poisson.subtract_mean));
    }
    out.put("poisson.gradient", boolean_text(poisson.gradient));
  }

  const OutputConfig& output = config.output;
  out.put("output.directory", quoted(output.directory));
  out.put("output.overwrite", boolean_text(output.overwrite));
  if (config.problem == Problem::navier_stokes) {
    out.put("output.progress_every", integer_text(output.progress_every));
    out.put("output.series_every", integer_text(output.series_every));
    std::string fields;
    for (OutputField field : output.fields) fields += (fields.empty() ? "" : ", ") + to_string(field);
    out.put("output.fields", "[" + fields + "]");
    out.put("output.fields_every", real_text(output.fields_every));
    out.put("output.spectra_every", real_text(output.spectra_every));
    out.put("output.checkpoint_every", real_text(output.checkpoint_every));
    out.put("output.checkpoint_wall_minutes", real_text(output.checkpoint_wall_minutes));
  }
  return out;
}

}  // namespace

std::string to_yaml(const RunConfig& config) {
  return written(config).text();
}

std::vector<std::string> resolved_keys(const RunConfig& config) {
  return written(config).lines();
}

double largest_kept_wavenumber(const GridConfig& grid, int d) {
  return 2 * std::numbers::pi * double(KeptModes::largest_kept_index(grid.n[d])) / grid.box[d];
}

double largest_kept_k2(const GridConfig& grid) {
  double k2 = 0;
  for (int d = 0; d < 3; ++d) k2 += std::pow(largest_kept_wavenumber(grid, d), 2);
  return k2;
}

double largest_safe_velocity(const GridConfig& grid, Precision precision) {
  const double largest = precision == Precision::float32 ? double(std::numeric_limits<float>::max())
                                                         : std::numeric_limits<double>::max();
  double points = 1;
  for (int d = 0; d < 3; ++d) points *= double(grid.n[d]);
  return std::sqrt(largest / (std::sqrt(largest_kept_k2(grid)) * points));
}

std::string sources_text(const RunConfig& config, const std::vector<std::string>& keys) {
  return sources_of(keys, "", [&](const std::string& key) {
    const auto entry = config.sources.where.find(key);
    return entry == config.sources.where.end() ? std::string() : entry->second;
  });
}

std::string key_message(const RunConfig& config, const std::string& key, const std::string& message) {
  const auto given = config.sources.where.find(key);
  if (given == config.sources.where.end()) return key + ": " + message + sources_text(config, {key});
  return given->second + ": " + key + ": " + message;
}

void check_ranks(const RunConfig& config, int ranks) {
  if (ranks < 1) throw Error("ranks: need at least one MPI rank, got " + std::to_string(ranks));
  // A slab FFT splits x planes in real space and ky planes in spectral space over the ranks.
  const char* axis[2] = {"Nx", "Ny"};
  for (int d = 0; d < 2; ++d)
    if (ranks > config.grid.n[d])
      throw Error(key_message(config, "grid.n",
                              std::string(axis[d]) + " = " + std::to_string(config.grid.n[d]) +
                                  " cannot be split over " + std::to_string(ranks) + " ranks (at most " +
                                  std::to_string(config.grid.n[d]) + ")"));
}

Backend resolve(BackendChoice choice) {
  switch (choice) {
    case BackendChoice::host:
      return Backend::host;
    case BackendChoice::cuda:
      return Backend::cuda;
    case BackendChoice::automatic:
      break;
  }
  return Device::automatic();
}

std::string to_string(Precision value) {
  return name_of("precision", static_cast<int>(value));
}
std::string to_string(BackendChoice value) {
  return name_of("backend", static_cast<int>(value));
}
std::string to_string(SpectralSplitChoice value) {
  return name_of("fft.spectral_split", static_cast<int>(value));
}
std::string to_string(Problem value) {
  return name_of("problem", static_cast<int>(value));
}
std::string to_string(InitialType value) {
  return name_of("initial.type", static_cast<int>(value));
}
std::string to_string(ScalarInitialType value) {
  return name_of("physics.buoyancy.initial.type", static_cast<int>(value));
}
std::string to_string(BuoyancyType value) {
  return name_of("physics.buoyancy.type", static_cast<int>(value));
}
std::string to_string(OutputField value) {
  return name_of("output.fields", static_cast<int>(value));
}
std::string to_string(MagneticType value) {
  return name_of("physics.magnetic.type", static_cast<int>(value));
}
std::string to_string(MagneticInitialType value) {
  return name_of("physics.magnetic.initial.type", static_cast<int>(value));
}
std::string to_string(RhsType value) {
  return name_of("poisson.rhs.type", static_cast<int>(value));
}

}  // namespace kolmo::io
