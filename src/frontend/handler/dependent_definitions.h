// What the definitions of a relation's dependents (views, materialized
// views, sinks, indexes) name: which of its columns a view reads (DROP
// COLUMN and ALTER COLUMN TYPE ask, as PostgreSQL's dependencies on a
// view's columns answer), and a rename that they follow (ALTER TABLE ...
// RENAME [COLUMN]), as PostgreSQL's views do.
//
// PostgreSQL's views and materialized views keep their analyzed query, so
// renaming a table or a column they read changes only the text
// pg_get_viewdef prints. Freshet keeps a dependent's definition as SQL text
// (views are bound from it each time; a stream job's stored plan is by
// column position and table id, but SHOW CREATE, DROP COLUMN's check and
// older jobs' recovery plan the text again), so the text must follow: the
// dependent's query is bound with the binder noting where each name it
// gives is (BinderContext::name_uses), and exactly those names are written
// anew (sql/parser.h EditNames). A select-list entry that was the renamed
// column alone gets `AS old_name`, so that the query's columns keep their
// names (as PostgreSQL prints `t.new AS old`); a relation named without an
// alias has its qualified references (`t.a`, `t.*`) renamed with it.
//
// The result is checked, never trusted: each rewritten definition, bound
// against the catalog as it will be, must name the same relations and
// columns in the same order (and a view give the same column types; a
// stream job plan exactly to its stored plan). A definition that cannot
// follow (a USING or NATURAL join on the column, a name given as a string)
// refuses the rename with 0A000, naming the dependent; nothing changes.
#pragma once

#include <vector>

#include "catalog/catalog.h"
#include "frontend/handler/handler.h"

namespace freshet {

// The views that read column `column` (its place in the stored rows) of
// relation `table`: by name, through * or t.*, or as a USING or NATURAL
// join's column. Views reached through other views are not listed (they
// read the view).
std::vector<TableRef> ViewsReadingColumn(const HandlerArgs& args, ObjectId table, int column);

// The dependents of `before` (views, materialized views, sinks, indexes)
// with their definitions rewritten for the rename that makes it `after`:
// of its column `column`, or of the relation itself when `column` is -1
// (its name, or its schema: they then name it qualified by the new one).
// Dependents whose definitions do not change are not returned (but still
// checked). Throws 0A000 when one cannot follow.
std::vector<TableCatalog> FollowRename(const HandlerArgs& args, const TableCatalog& before, const TableCatalog& after,
                                       int column);

}  // namespace freshet
