// Small text files (config.yaml, .xmf descriptions) written so that a full disk is an error, never a
// silently cut file.
//
// Contract (local to the calling process):
// - write_text_file(path, text) creates or replaces path with text; a failure to create, write or close it
//   throws kolmo::Error with the system's reason ("cannot write it: No space left on device"); the caller
//   adds the file's name.
// - replace_text_file(path, text) writes path + ".tmp" and renames it to path, so path is always whole; on
//   failure the temporary file is removed, path is left as it was, and the kolmo::Error names path.
#pragma once

#include <filesystem>
#include <string>

namespace kolmo::io {

void write_text_file(const std::filesystem::path& path, const std::string& text);

void replace_text_file(const std::filesystem::path& path, const std::string& text);

}  // namespace kolmo::io
