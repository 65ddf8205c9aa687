#include "io/SeriesFile.hpp"

#include "core/Error.hpp"
#include "io/Collective.hpp"
#include "io/RunIdentity.hpp"

namespace kolmo::io {

namespace {

std::vector<Column> scalar_columns(const std::vector<std::string>& names) {
  std::vector<Column> columns;
  for (const auto& name : names) columns.push_back(Column{name, 0, name == "step"});
  return columns;
}

}  // namespace

SeriesFile::SeriesFile(const std::filesystem::path& path, std::vector<std::string> columns, Opening opening,
                       MPI_Comm comm, const std::string& run)
    : columns_(std::move(columns)),
      table_(path, scalar_columns(columns_), opening, comm, [&run](hid_t file, bool) {
        if (!run.empty() && !has_attribute(file, kRunAttribute)) write_run_identity(file, run);
      }) {}

void SeriesFile::append(std::span<const double> values) {
  std::vector<std::span<const double>> row;
  // A short row is reported by the table (on rank 0, where the values matter).
  for (std::size_t c = 0; c < values.size(); ++c) row.push_back(values.subspan(c, 1));
  table_.append(row);
}

}  // namespace kolmo::io
