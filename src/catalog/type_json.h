// DataType and column catalog entries as JSON, as the catalog stores them
// (and the persisted stream plans of jobs): struct types by their fields
// (the registry numbers in DataType are per process), arrays of structs by
// their element's fields.
#pragma once

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"

namespace freshet {

nlohmann::json TypeToJson(const DataType& t);
DataType TypeFromJson(const nlohmann::json& j);
nlohmann::json ColumnToJson(const ColumnCatalog& c);
ColumnCatalog ColumnFromJson(const nlohmann::json& j);

}  // namespace freshet
