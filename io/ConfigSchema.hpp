// The schema of kolmo's run configuration: one table with every key, its type, default, allowed values, when
// it is used and what it means.
//
// Contract:
// - schema() lists every key the YAML file may hold, as its full dotted path, sections contiguous and in the
//   order to_yaml writes them. A path that is a proper prefix of some key ("physics.forcing") is a section.
// - The loader (Config.cpp) uses the table for unknown-key detection, defaults, type conversion, range checks
//   and the names of choices; docs/configuration.md holds schema_markdown() verbatim (a test checks it).
// - example_configs() names every run in configs/, each with one line on what it runs; docs/configuration.md
//   and README.md hold examples_markdown() verbatim, and a test checks that it names exactly the files there.
// - default_value is YAML text; "~" means not set (an optional key), "" means required where it is used.
// - allowed is, for numbers, a range: "> A", ">= A", "(A, B)" (open) or "" (any finite number); for choices,
//   the names separated by " | ", in the order of the matching C++ enum's values.
// - used_when says when the key is read ("" = always); a key given where it is not used is an error. It
//   opens with the key whose value decides that ("physics.forcing.type is band"; "its initial.type is
//   file": the same list item's; "physics.scalars lists it"), which deciding_key gives.
// - Lists of maps (item_list, physics.scalars): the keys of an item are the rows "<list>[].<key>"; in a file
//   and in messages item i's keys are "<list>[i].<key>" (find_key and is_section accept either form).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kolmo::io {

enum class ValueKind {
  real,            // a number
  integer,         // a whole number
  boolean,         // true or false
  text,            // a string (paths, names)
  choice,          // one name from allowed
  choice_list,     // a list of names from allowed, each at most once
  integer_triple,  // n or [nx, ny, nz]
  length_triple,   // L or [Lx, Ly, Lz]; each a number or a multiple of pi written "2pi", "2*pi", "pi"
  mode_list,       // [[kx, ky, kz], ...] integer wavevectors
  real_triple,     // [a, b, c]: three numbers (a vector)
  item_list,       // a list of maps, each with the keys "<path>[].*"
};

struct SchemaKey {
  std::string_view path;
  ValueKind kind;
  std::string_view default_value;
  std::string_view allowed;
  std::string_view used_when;
  std::string_view meaning;
};

std::span<const SchemaKey> schema();
// The schema's form of a path: each "[i]" of a list item becomes "[]".
std::string schema_path(std::string_view path);
// The key with this full dotted path, or nullptr.
const SchemaKey* find_key(std::string_view path);
// True when path is a section: a proper prefix (up to a dot) of some key's path.
bool is_section(std::string_view path);
// The key whose value decides whether the key at path is used: the first name of its used_when, with path's
// list index where it is the same item's (physics.scalars[1].initial.file: physics.scalars[1].initial.type);
// "" for a key always used or not in the schema.
std::string deciding_key(std::string_view path);
// The names of a choice or choice_list key, in order.
std::vector<std::string> choice_names(const SchemaKey& key);
// What a value of this kind looks like, for messages: "an integer or a list of 3 integers".
std::string expected_text(ValueKind kind);
// The reference table of every key as GitHub markdown (one header, one row per key).
std::string schema_markdown();

// An example run in configs/: its file name and what it runs, in one line.
struct ExampleConfig {
  std::string_view file;
  std::string_view what;
};
std::span<const ExampleConfig> example_configs();
// The examples as a markdown list, one item per file: "- `<file>`: <what>".
std::string examples_markdown();

}  // namespace kolmo::io
