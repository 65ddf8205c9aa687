// Each file in tests/config/bad/ holds one mistake and says in leading comments what the message must
// contain:
//   # expect: physics.viscosity
// Loading it must throw kolmo::Error with one line that starts with the file's path and contains every
// expected text.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "io/Config.hpp"
#include "tests/config/ConfigTestSupport.hpp"

using kolmo::testing::error_of;

namespace {

std::vector<std::string> expected_parts(const std::filesystem::path& file) {
  std::vector<std::string> parts;
  std::istringstream text(kolmo::testing::read_text(file));
  const std::string tag = "# expect: ";
  for (std::string line; std::getline(text, line);)
    if (line.starts_with(tag)) parts.push_back(line.substr(tag.size()));
  return parts;
}

}  // namespace

TEST_CASE("every broken file gives one line naming its key", "[config]") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(kolmo::testing::source_dir() / "tests/config/bad"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 12);

  for (const auto& file : files) {
    const auto expected = expected_parts(file);
    const std::string message = error_of([&] { kolmo::io::load_config(file.string()); });
    INFO(file.filename().string() << ": " << message);
    REQUIRE(!expected.empty());
    REQUIRE(!message.empty());
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message.starts_with(file.string() + ":"));
    for (const std::string& part : expected) CHECK(message.find(part) != std::string::npos);
  }
}

TEST_CASE("a configuration file that does not exist is named", "[config]") {
  const std::string message = error_of([] { kolmo::io::load_config("no/such/dir/run.yaml"); });
  CHECK(message.starts_with("no/such/dir/run.yaml: cannot read"));
}

TEST_CASE("a directory given as the configuration is named as such", "[config]") {
  const std::string directory = (kolmo::testing::source_dir() / "tests/config/bad").string();
  const std::string message = error_of([&] { kolmo::io::load_config(directory); });
  CHECK(message == directory + ": is a directory, not a configuration file");
}

TEST_CASE("a control byte (a binary file, a stray NUL) is named with its line, not shown raw", "[config]") {
  for (const char byte : {'\x01', '\0', '\x7f'}) {
    const std::string text = std::string("grid: {n: [8, 8, 8]}\n# a comment\nphysics: {viscosity: 0.01}") +
                             byte + "\ntime: {steps: 2}\n";
    const std::string message = error_of([&] { kolmo::io::load_config_text(text, "run.yaml"); });
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(byte)));
    CHECK(message == "run.yaml:3: not a text file: control byte " + std::string(hex) +
                         " (a configuration is YAML text)");
  }
}
