// Runs subquery plans for SubqueryExpr (planner/subquery.h) inside the
// batch engine. Uncorrelated subqueries run once per statement; correlated
// ones once per distinct outer row, with results cached by that row.
#pragma once

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "batch/executor.h"
#include "planner/subquery.h"

namespace freshet {

class BatchSubqueryRunner : public SubqueryRunner {
 public:
  explicit BatchSubqueryRunner(ExecContext* ctx) : ctx_(ctx) {}
  Vector Evaluate(const SubqueryExpr& expr, const DataChunk& input, EvalContext& eval) override;

 private:
  // Rows of the subquery for the current outer row (all of them, or for
  // EXISTS and scalar at most two).
  DataChunk Run(const SubqueryExpr& expr, size_t max_rows);
  Value Reduce(const SubqueryExpr& expr, const Value& left, EvalContext& eval);

  // x = ANY (subquery) and x <> ALL (subquery) (IN, NOT IN) for one
  // uncorrelated column of a scalar type: the subquery's rows as a hash set
  // of their key encodings, so each outer row costs one lookup.
  struct HashedRows {
    std::unordered_set<std::string> keys;
    bool has_null = false;
    size_t rows = 0;
  };
  static bool CanHash(const SubqueryExpr& expr);
  const HashedRows& Hashed(const SubqueryExpr& expr);

  ExecContext* ctx_;
  std::map<const SubqueryExpr*, std::unordered_map<std::string, DataChunk>> cache_;
  std::map<const SubqueryExpr*, HashedRows> hashed_;
};

}  // namespace freshet
