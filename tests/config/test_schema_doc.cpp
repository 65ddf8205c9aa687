// The reference page docs/configuration.md and the schema table in the code describe the same keys, and the
// page holds the table as the code generates it (kolmo_config_doc docs/configuration.md regenerates it).
#include <catch2/catch.hpp>
#include <set>

#include "fft/Exchange.hpp"
#include "io/ConfigSchema.hpp"
#include "tests/config/ConfigTestSupport.hpp"

using namespace kolmo::io;

namespace {

// The first cell of every row of a markdown table whose first cell is `code`: the keys the page documents.
std::set<std::string> documented_keys(const std::string& markdown) {
  std::set<std::string> keys;
  std::istringstream text(markdown);
  for (std::string line; std::getline(text, line);) {
    if (!line.starts_with("| `")) continue;
    const auto end = line.find('`', 3);
    if (end != std::string::npos) keys.insert(line.substr(3, end - 3));
  }
  return keys;
}

}  // namespace

TEST_CASE("docs/configuration.md documents exactly the keys of the schema", "[config]") {
  const std::string page = kolmo::testing::read_text(kolmo::testing::source_dir() / "docs/configuration.md");
  REQUIRE(!page.empty());
  const std::set<std::string> documented = documented_keys(page);
  std::set<std::string> in_code;
  for (const SchemaKey& key : schema()) in_code.emplace(key.path);
  for (const std::string& key : in_code) {
    INFO("in the code, not documented: " << key);
    CHECK(documented.contains(key));
  }
  for (const std::string& key : documented) {
    INFO("documented, not in the code: " << key);
    CHECK(in_code.contains(key));
  }
  INFO("docs/configuration.md is out of date: run kolmo_config_doc docs/configuration.md README.md");
  CHECK(page.find(schema_markdown()) != std::string::npos);
}

TEST_CASE("the schema is well formed", "[config]") {
  std::set<std::string> paths, closed_sections;
  std::string previous;
  for (const SchemaKey& key : schema()) {
    INFO(key.path);
    CHECK(paths.emplace(key.path).second);
    CHECK(!key.meaning.empty());
    CHECK(!is_section(key.path));
    // Sections are contiguous: once the order leaves a section it never comes back.
    for (std::size_t dot = previous.find('.'); dot != std::string::npos; dot = previous.find('.', dot + 1)) {
      const std::string section = previous.substr(0, dot);
      if (!key.path.starts_with(section + ".")) closed_sections.insert(section);
    }
    for (std::size_t dot = key.path.find('.'); dot != std::string::npos; dot = key.path.find('.', dot + 1))
      CHECK(!closed_sections.contains(std::string(key.path.substr(0, dot))));
    if (key.kind == ValueKind::choice || key.kind == ValueKind::choice_list)
      CHECK(choice_names(key).size() >= 2);
    // A key's used_when opens with the key that decides it, which messages name with its source.
    if (!key.used_when.empty()) {
      const SchemaKey* deciding = find_key(deciding_key(key.path));
      REQUIRE(deciding != nullptr);
      CHECK(deciding->path != key.path);
    }
    previous = key.path;
  }
  CHECK(deciding_key("physics.scalars[2].initial.file") == "physics.scalars[2].initial.type");
  CHECK(deciding_key("time.max_dt") == "time.dt");
  CHECK(deciding_key("grid.n").empty());
  for (const std::string& name : choice_names(*find_key("fft.exchange"))) {
    INFO(name);
    CHECK_NOTHROW(kolmo::fft::parse_exchange(name));
  }
}
