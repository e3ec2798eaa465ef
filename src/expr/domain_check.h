// A value of a domain (CREATE DOMAIN): its base type's value, checked
// against the domain's constraints as it is made.
//
// A domain is its base type with NOT NULL and CHECK constraints over
// VALUE. The binder gives a cast to a domain, and a column of one written
// by INSERT, UPDATE or COPY, a DomainCheckExpr over the value: it yields
// the value unchanged, or throws PostgreSQL's error for the first
// constraint a row breaks (23502 "domain d does not allow null values",
// 23514 "value for domain d violates check constraint "c""). Each CHECK is
// bound over a one-column input, the value, and is not a child of the
// expression: tree walkers see only the value. A domain over another
// domain carries the other's constraints first, as PostgreSQL checks them.
#pragma once

#include <string>
#include <vector>

#include "expr/expression.h"

namespace freshet {

class DomainCheckExpr : public Expression {
 public:
  struct Constraint {
    std::string domain;  // the domain it belongs to
    std::string schema;  // that domain's schema (the error's schema field)
    std::string name;    // the CHECK's name; empty: NOT NULL
    ExprPtr check;       // over one column, the value; null for NOT NULL
  };

  DomainCheckExpr(ExprPtr value, std::string domain, std::vector<Constraint> constraints);
  Vector Eval(const DataChunk& input, EvalContext& ctx) const override;
  ExprPtr Clone() const override;
  std::string ToString() const override;

  const std::string& domain() const { return domain_; }
  const std::vector<Constraint>& constraints() const { return constraints_; }

 private:
  std::string domain_;
  std::vector<Constraint> constraints_;
};

// Throws when a value of `values` breaks one of `constraints` (as above).
void CheckDomainValues(const Vector& values, const std::vector<DomainCheckExpr::Constraint>& constraints,
                       EvalContext& ctx);

}  // namespace freshet
