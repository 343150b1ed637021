#include "tests/support/cdi_schema.h"
#include "tests/support/build_paths.h"

#include <fstream>
#include <stdexcept>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace rgpu::test {
namespace {

nlohmann::json load(const std::string& name) {
  std::ifstream in(std::string(kCdiSchemaDir) + "/" + name);
  if (!in) throw std::runtime_error(std::string("CDI schema missing: ") + kCdiSchemaDir + "/" + name);
  return nlohmann::json::parse(in);
}

const valijson::Schema& cdi_schema() {
  static const nlohmann::json root = load("schema.json");
  static valijson::Schema schema;
  static bool parsed = false;
  if (!parsed) {
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(root);
    // schema.json refers to "defs.json#/definitions/..." beside it.
    auto fetch = [](const std::string& uri) -> const nlohmann::json* {
      return new nlohmann::json(load(uri.substr(uri.find_last_of('/') + 1)));
    };
    auto release = [](const nlohmann::json* doc) { delete doc; };
    parser.populateSchema(adapter, schema, fetch, release);
    parsed = true;
  }
  return schema;
}

const valijson::Schema& inventory_schema() {
  static const nlohmann::json root = [] {
    std::ifstream in(rgpu::test::source_path("/docs/inventory.schema.json"));
    if (!in) throw std::runtime_error("docs/inventory.schema.json is missing");
    return nlohmann::json::parse(in);
  }();
  static valijson::Schema schema;
  static bool parsed = false;
  if (!parsed) {
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(root);
    parser.populateSchema(adapter, schema);
    parsed = true;
  }
  return schema;
}

std::vector<std::string> errors_of(const valijson::Schema& schema, const nlohmann::json& doc) {
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  std::vector<std::string> errors;
  if (validator.validate(schema, target, &results)) return errors;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    std::string where;
    for (const auto& part : error.context) where += part;
    errors.push_back(where + ": " + error.description);
  }
  return errors;
}

}  // namespace

std::vector<std::string> cdi_schema_errors(const nlohmann::json& spec) { return errors_of(cdi_schema(), spec); }

std::vector<std::string> inventory_schema_errors(const nlohmann::json& inventory) {
  return errors_of(inventory_schema(), inventory);
}

}  // namespace rgpu::test
