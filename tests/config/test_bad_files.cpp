// Each file in tests/config/bad/ holds one mistake and says in leading comments what the message must
// contain:
//   # expect: physics.viscosity
// Loading it must throw kolmo::Error with one line that starts with the file's path and contains every
// expected text.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
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

TEST_CASE("a carriage return without a line feed is named with its line", "[config]") {
  // yaml-cpp ends lines at LF only: the text after a comment and a lone CR (old Mac line ends) was a comment
  // too, so that these loaded with the default precision, or grid.n = 64. Found by fuzzing the loader.
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"grid: {n: 8}\ntime: {t_end: 1}   # a comment\rprecision: single\n", "run.yaml:2"},
      {"# a comment\rgrid: {n: 8}\rtime: {t_end: 1}\r", "run.yaml:1"},
      {"grid: {n: 8}\r\ntime: {t_end: 1}\r\noutput: {directory: out}\r", "run.yaml:3"},
  };
  for (const auto& [text, where] : texts) {
    INFO(text);
    CHECK(error_of([&] { kolmo::io::load_config_text(text, "run.yaml"); }) ==
          where + ": a carriage return (CR) not followed by a line feed: lines end with LF or CRLF");
  }
  // CRLF line ends are YAML's, and taken.
  kolmo::io::RunConfig config;
  REQUIRE_NOTHROW(config = kolmo::io::load_config_text("grid: {n: 8}\r\ntime: {t_end: 1}  # end\r\n"
                                                       "precision: single\r\n",
                                                       "run.yaml"));
  CHECK(config.precision == kolmo::io::Precision::float32);
}

TEST_CASE("text after the first node is a syntax error on one line, not a second document", "[config]") {
  // yaml-cpp starts a new document at a comma after the top-level node and at a line indented less than the
  // first (the old loader called that "a second YAML document (after ---)"); a message quoting the character
  // at the parser's position gave a newline where a BOM shifted it (found by fuzzing the loader).
  for (const std::string& text :
       {std::string("\xef\xbb\xbf    k0: 3\n  n: 32\n"), std::string("    k0: 3\n  n: 32\n"),
        std::string("{time: {t_end: 1}}\n,\n")}) {
    const std::string message = error_of([&] { kolmo::io::load_config_text(text, "run.yaml"); });
    INFO(text << ": " << message);
    CHECK(message ==
          "run.yaml:2: YAML syntax error: text after the end of the first node (a comma after its "
          "closing bracket, or a line indented less than the first)");
  }
}

TEST_CASE("lists nested past the parser's limit are named as such", "[config]") {
  // yaml-cpp stops at a depth of recursion and says "bad file" (found by fuzzing the loader).
  const std::string nested = std::string(1000, '[') + "1" + std::string(1000, ']');
  CHECK(error_of([&] {
          kolmo::io::load_config_text("time: {t_end: 1}\ngrid: {n: " + nested + "}\n", "run.yaml");
        }) == "run.yaml:2: YAML syntax error: lists or maps nested too deeply for the parser");
  CHECK(error_of([&] {
          kolmo::io::load_config_text("time: {t_end: 1}\n", "run.yaml", {"grid.n=" + nested});
        }) == "--set grid.n=" + nested +
                  ": grid.n: YAML syntax error in the value: lists or maps nested too "
                  "deeply for the parser");
}

TEST_CASE("an unknown key a million characters long is refused at once", "[config]") {
  // The suggestion compared it with every key by an edit distance of a million rows each: minutes (found by
  // fuzzing the loader; a file's plain key is at most 1024 characters to YAML, a --set's is not).
  const std::string key(1'000'000, 'k');
  const auto start = std::chrono::steady_clock::now();
  const std::string message =
      error_of([&] { kolmo::io::load_config_text("time: {t_end: 1}\n", "run.yaml", {key + "=1"}); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(message == "--set " + key + "=1: " + key + ": unknown key");
  CHECK(seconds < 5);
}

TEST_CASE("a tab in the indentation is named with its line and column; a tab elsewhere is taken",
          "[config]") {
  // yaml-cpp refuses these with "illegal map value", "illegal block entry" or "illegal tab when looking for
  // indentation", at columns other than the tab's.
  const std::vector<std::pair<std::string, std::string>> indented = {
      {"time:\n\tt_end: 1\n", "run.yaml:2:1"},
      {"grid: {n: 8}\ntime:\n  t_end: 1\n  \tcfl: 0.5\n", "run.yaml:4:3"},
      {"time:\n  t_end: 1\n\n\tcfl: 0.5\n", "run.yaml:4:1"},
      {"time: {t_end: 1}\nphysics:\n  scalars:\n\t- name: s\n    schmidt: 1\n", "run.yaml:4:1"},
      {"time: {t_end: 1}\nphysics:\n  scalars:\n  -\tname: s\n    schmidt: 1\n", "run.yaml:4:4"},
      {"\ttime: {t_end: 1}\n", "run.yaml:1:1"},
      {"time:\r\n\tt_end: 1\r\n", "run.yaml:2:1"},
  };
  for (const auto& [text, where] : indented) {
    INFO(text);
    CHECK(error_of([&] { kolmo::io::load_config_text(text, "run.yaml"); }) ==
          where + ": a tab in the indentation; YAML indents with spaces");
  }
  // A syntax error on a line that opens without a tab keeps the parser's words, tabs elsewhere or not.
  CHECK(error_of([] {
          kolmo::io::load_config_text("grid:\t{n: 8}\ntime:\n    t_end: 1\n  cfl: 0.5\n", "run.yaml");
        }).starts_with("run.yaml:4: YAML syntax error: "));
  // Tabs inside quoted values, and between a key and its value, are YAML's and kept.
  const std::string text =
      "grid: {n: 8}\ntime:\t{t_end: 1}\noutput:\n  directory: \"out\twith\ttabs\"\n  progress_every:\t2\n"
      "physics: {scalars: [{name: s, schmidt: 1, initial: {type: file, file: 'in\tput.h5'}}]}\n";
  kolmo::io::RunConfig config;
  REQUIRE_NOTHROW(config =
                      kolmo::io::load_config_text(text, "run.yaml", {}, kolmo::io::StartFrom::checkpoint));
  CHECK(config.output.directory == "out\twith\ttabs");
  CHECK(config.output.progress_every == 2);
  CHECK(config.physics.scalars.at(0).initial.file == "in\tput.h5");
}
