// Storage parameters of a plain table: PostgreSQL's heap reloptions
// (`CREATE TABLE ... WITH (fillfactor = 100)`, `ALTER TABLE ... SET (...)`).
//
// Freshet's row store has no heap pages, vacuum or TOAST, so none of them
// changes how a table is stored; they are checked as PostgreSQL checks them
// (names, types and bounds, with its messages) and kept, so that tools that
// send them (pgbench -i, pg_dump's output) work and pg_class.reloptions
// shows them back.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace freshet {

// Checks `options` (lowercased names to values as written) and returns them
// as pg_class.reloptions lists them ("name=value"), in the order given.
// Throws 22023 for an unknown name, a value of the wrong type or out of
// bounds, as PostgreSQL does.
std::vector<std::string> CheckStorageParameters(const std::vector<std::pair<std::string, std::string>>& options);

// `current` with `changes` applied (ALTER TABLE ... SET (...)), or with the
// names in `reset` removed (ALTER TABLE ... RESET (...)); both checked.
std::vector<std::string> MergeStorageParameters(const std::vector<std::string>& current,
                                                const std::vector<std::pair<std::string, std::string>>& changes,
                                                const std::vector<std::string>& reset);

}  // namespace freshet
