#include "expr/domain_check.h"

#include <fmt/format.h>

#include "common/error.h"

namespace freshet {

DomainCheckExpr::DomainCheckExpr(ExprPtr value, std::string domain, std::vector<Constraint> constraints)
    : Expression(Kind::kDomainCheck, value->type()), domain_(std::move(domain)), constraints_(std::move(constraints)) {
  children_.push_back(std::move(value));
}

Vector DomainCheckExpr::Eval(const DataChunk& input, EvalContext& ctx) const {
  Vector values = children_[0]->Eval(input, ctx);
  CheckDomainValues(values, constraints_, ctx);
  return values;
}

ExprPtr DomainCheckExpr::Clone() const {
  std::vector<Constraint> constraints;
  for (const auto& c : constraints_)
    constraints.push_back({c.domain, c.schema, c.name, c.check ? c.check->Clone() : nullptr});
  return std::make_unique<DomainCheckExpr>(children_[0]->Clone(), domain_, std::move(constraints));
}

std::string DomainCheckExpr::ToString() const { return fmt::format("{}::{}", children_[0]->ToString(), domain_); }

void CheckDomainValues(const Vector& values, const std::vector<DomainCheckExpr::Constraint>& constraints,
                       EvalContext& ctx) {
  if (constraints.empty() || values.size() == 0) return;
  DataChunk one;
  for (const auto& c : constraints) {
    if (!c.check) {
      for (size_t r = 0; r < values.size(); r++)
        if (values.IsNull(r))
          throw SqlError(sqlstate::kNotNullViolation, fmt::format("domain {} does not allow null values", c.domain))
              .WithField('s', c.schema)
              .WithField('d', c.domain);
      continue;
    }
    if (one.num_columns() == 0) one.AddColumn(values);
    Vector result = c.check->Eval(one, ctx);
    for (size_t r = 0; r < values.size(); r++) {
      if (result.IsNull(r) || result.GetValue(r).bool_value()) continue;
      throw SqlError(sqlstate::kCheckViolation,
                     fmt::format("value for domain {} violates check constraint \"{}\"", c.domain, c.name))
          .WithField('s', c.schema)
          .WithField('d', c.domain)
          .WithField('n', c.name);
    }
  }
}

}  // namespace freshet
