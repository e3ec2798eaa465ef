// The 'datagen' connector (RisingWave's load generator).
//
//   fields.<col>.kind = 'sequence' | 'random' (default random)
//   sequence: fields.<col>.start (0), fields.<col>.end (32767): the source
//             ends when a sequence column passes its end
//   random:   fields.<col>.min (0), fields.<col>.max (32767),
//             fields.<col>.seed, fields.<col>.length (varchar, 10),
//             fields.<col>.max_past (timestamps, seconds before the
//             source's creation time, default 86400)
//   datagen.rows.per.second (10), datagen.split.num (1)
//
// Split i of n generates rows i, i+n, i+2n...: a sequence column's value
// of row r is start + r, and a random column's is a hash of (seed, r), so
// every row is a function of its number.
#pragma once

#include "connector/connector.h"

namespace freshet {

std::unique_ptr<SourceConnector> MakeDatagenConnector(const std::map<std::string, std::string>& options,
                                                      const std::vector<SourceColumn>& columns);

}  // namespace freshet
